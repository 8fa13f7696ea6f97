"""The beyond-accuracy family's argument rules that need no data.

Which asked metrics are the family's, which are set-level, which inputs (train=, catalog=, features=) and columns
the asked metrics read.

Every face calls these before it computes: evaluate and its engines, compare, segment_means, report, Spark and the
warehouse renderer (``rankframe.sql.render``); the rules of the inputs' data are in :mod:`.input_rules` and the
engines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ..core.declare import Asked
from ..core.errors import ParameterError, keyword
from .declare import BeyondSpec, missing_input

#: a metric as asked (``rankframe.measures.names.Measure``): :func:`split` gives back the caller's own objects
M = TypeVar("M", bound=Asked)


def split(measures: Sequence[M]) -> tuple[list[M], list[M]]:
    """(the accuracy metrics, the beyond-accuracy metrics) of a list of measures, each in the order asked."""
    beyond = [m for m in measures if isinstance(m.spec, BeyondSpec)]
    return [m for m in measures if m not in beyond], beyond


def is_set_level(measure: Asked) -> bool:
    """One value per segment (Coverage, Gini, Entropy; aggregate='rows'): never per query."""
    return isinstance(measure.spec, BeyondSpec) and measure.spec.is_set_level(measure.kw)


def check_arguments(
    measures: Sequence[Asked],
    *,
    per_query: bool,
    ci: object,
    agg: str,
    train: object,
    catalog: object,
    features: object = None,
) -> dict[str, object]:
    """The rules of the extra inputs and the set-level metrics that need no data (evaluate calls it first).

    Returns the inputs to compute with: each as given when an asked metric reads it, None when none does. An input
    no asked metric reads is accepted and left alone (not read, not checked: issue 33), so one call can pass the
    same ``train=``/``catalog=``/``features=`` whatever its metrics; a metric that reads an input it was not given
    is still an error (:func:`~rankframe.beyond.declare.missing_input`), never a silent default.
    """
    sets = [str(m) for m in measures if is_set_level(m)]
    if sets and per_query:
        raise ParameterError(
            f"{', '.join(sets)}: set-level metrics have one value per segment, not per query; they do not apply "
            f"with {keyword('per_query', True)} (evaluate them in a separate call without it)",
            owner="evaluate",
            parameter="per_query",
        )
    if sets and agg != "mean":
        raise ParameterError(
            f"{', '.join(sets)}: set-level metrics are not means over queries; {keyword('agg', agg)} does not apply "
            f"to them ({keyword('ci')} gives them a bootstrap interval over queries)",
            owner="evaluate",
            parameter="agg",
        )
    given = {"train": train is not None, "catalog": catalog is not None, "features": features is not None}
    reads: dict[str, list[str]] = {name: [] for name in given}
    for m in measures:
        needed = m.spec.needed(m.kw)  # declared: the family's inputs, the intent-aware recommender form's history
        for name in needed:
            if not given[name]:
                raise missing_input(m, name)
            reads[name].append(str(m))
    values = {"train": train, "catalog": catalog, "features": features}
    return {name: values[name] if readers else None for name, readers in reads.items()}


def reads_history(measure: Asked) -> bool:
    """The metric reads each query's own history in train= (BeyondSpec.history; like='informfully'): declared."""
    return measure.spec.reads_history(measure.kw)


def reads_relevance(measures: Sequence[Asked]) -> bool:
    """Some asked metric of the family reads the ranking table's relevance column (Serendipity)."""
    return any(isinstance(m.spec, BeyondSpec) and m.spec.reads_relevance for m in measures)
