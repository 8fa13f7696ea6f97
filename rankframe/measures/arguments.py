"""The argument rules of ``rankframe.evaluate`` that need no data: metric lists, flags, output-name clashes.

Below ``evaluate`` so that other faces (``rankframe.sql.render``'s portable SQL) call the same rules without
importing the engines; ``rankframe.evaluate`` re-exports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..beyond import declare as beyond_family
from ..core.columns import Columns
from ..core.constraints import LEVEL
from ..core.errors import ParameterError, keyword, parameter_error
from ..intent import declare as intent_family
from . import registry
from .names import Measure, expand

__all__ = ["OUTPUT_COLUMNS", "parse_metrics", "as_flag", "check_output_names", "refuse_beyond"]

#: evaluate's own output columns: no segment column (nor the query column, per query) may take these names
OUTPUT_COLUMNS = ("metric", "value")


def parse_metrics(metrics: object, owner: str = "evaluate", face: str | None = None) -> list[Measure]:
    """One metric string/Measure or a list of them, parsed; at least one.

    ``face`` names the caller's face (``"compare"``, ``"spark"``): a metric of a family it does not serve is refused
    there with the family's words (:func:`refuse_beyond`).
    """
    if isinstance(metrics, (str, Measure)):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)):
        raise parameter_error(owner, "metrics", "a metric name such as 'nDCG@10' or a list of them", metrics)
    given = [(m, one) for m in metrics for one in expand(m)]  # iprec_at_recall: trec_eval's 11 levels
    if not given:
        raise ParameterError(
            f"The 'metrics' parameter of {owner} must name at least one metric. Got [] instead.",
            owner=owner,
            parameter="metrics",
        )
    labels = [str(m) for _, m in given]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            first = given[labels.index(label)][0]
            raise ParameterError(
                f"The 'metrics' parameter of {owner} asks for {label} twice (as {first!r} and "
                f"{given[i][0]!r}); give each metric once.",
                owner=owner,
                parameter="metrics",
            )
    measures = [m for _, m in given]
    if face is not None:  # each measure by its own faces (the intent family's recommender form has fewer)
        refuse_beyond(measures, face)
        intent_family.refuse(measures, face)
    elif owner not in (*intent_family.FACES, *intent_family.OWNERS):
        intent_family.refuse(measures, owner)
    return measures


def refuse_beyond(measures: Sequence[Any], face: str) -> None:
    """Raise the error of a face that does not serve the beyond-accuracy family, naming the metrics and its faces.

    The family's declarations say which faces serve it (``BeyondSpec.faces``, and ``NOT_SERVED``, ``PER_LIST_FACES``,
    ``SET_LEVEL_REFUSED`` of :mod:`rankframe.beyond.declare`); the message lists the family's SQL table macros as
    collected (a metric added with ``rankframe.registry.register`` too), which is why the rule lives here, above
    the family.
    """
    not_served = beyond_family.NOT_SERVED.get(face, face)
    asked = [
        str(m)
        for m in measures
        if isinstance(m.spec, beyond_family.BeyondSpec)
        and face not in m.spec.faces
        and not (face in beyond_family.PER_LIST_FACES and m.spec.level == "list")
    ]
    sets = [str(m) for m in measures if isinstance(m.spec, beyond_family.BeyondSpec) and m.spec.is_set_level(m.kw)]
    if face in beyond_family.SET_LEVEL_REFUSED and sets:
        raise ParameterError(
            f"{', '.join(sets)}: {beyond_family.SET_LEVEL_REFUSED[face]}.", owner=face, parameter="metrics", got=sets
        )
    if asked:
        macros = ", ".join(f"rf_{spec.name}" for spec in sorted(registry.BEYOND, key=lambda s: s.order))
        raise ParameterError(
            f"{', '.join(asked)}: the beyond-accuracy metrics (docs/beyond-accuracy.md) are not served by "
            f"{not_served} yet; they are served by rankframe.evaluate on a pandas, Arrow or polars "
            f"table with {keyword('engine', 'pandas')} or {keyword('engine', 'duckdb')}, the accessor "
            "df.rank_metrics.evaluate, the polars namespace, rankframe.spark.evaluate on a Spark DataFrame and the SQL "
            "table macros "
            f"{macros}.",
            owner=face,
            parameter="metrics",
            got=asked,
        )


def as_flag(name: str, value: object, owner: str = "evaluate") -> bool:
    """A bool parameter, checked (``per_query="yes"`` is an error, not a truthy string)."""
    if not isinstance(value, (bool, np.bool_)):
        raise parameter_error(owner, name, "True or False", value)
    return bool(value)


def check_output_names(
    by: Sequence[str],
    columns: Columns,
    per_query: bool,
    outputs: Sequence[str] = OUTPUT_COLUMNS,
    owner: str = "evaluate",
    fold_case: bool = False,
) -> None:
    """No user column may take an output column's name (``outputs``), and the query column is not a segment.

    ``fold_case``: names equal but for case collide too (a warehouse whose identifiers are case-insensitive, such as
    DuckDB's: a segment ``Value`` beside the output ``value`` would come back renamed ``value_1``).
    """
    if columns.query in by:
        raise ParameterError(
            f"The 'by' parameter of evaluate contains the query column {columns.query!r}; the "
            f"query is always part of the unit (use {keyword('per_query', True)} for one value per query).",
            owner="evaluate",
            parameter="by",
        )
    shown = [*by, *([columns.query] if per_query else [])]
    taken = {o.casefold() for o in outputs} if fold_case else set(outputs)
    clash = [name for name in shown if (name.casefold() if fold_case and isinstance(name, str) else name) in taken]
    if clash:
        role = "segment column" if clash[0] in by else "query column"
        raise ParameterError(
            f"the {role} {clash[0]!r} has the name of an output column of {owner} "
            f"{list(outputs)}; rename it first, e.g. "
            f"df.rename(columns={{{clash[0]!r}: '{clash[0]}_'}})",
            owner=owner,
            parameter="by" if clash[0] in by else "columns",
            got=clash[0],
        )


def check_level(owner: str, value: object, name: str = "ci") -> float:
    """A confidence level: a number in the open interval (0, 1) (compare's, anova's and segment_means' rule)."""
    return float(LEVEL.check(owner, name, value))
