"""Which way is better: a metric's declared direction, read by every face that says "better", "worse" or "wins".

Each metric declares it once (``MetricSpec.better``, ``better_when`` for an option that turns it:
``rankframe/declare.py``); :func:`direction` answers for a metric with its options. compare's wins/losses
(:mod:`rankframe.comparing.frame`, shared by pandas, DuckDB and Spark), the styled tables' bold and colours
(:mod:`rankframe.display`), the report's "best" and "better / worse" (:mod:`rankframe.report`), ``rankframe compare
--fail-if-worse`` and the non-inferiority ``margin=`` read it here; ``rf_compare`` reads the same declaration from
its generated column list (``sql/evaluate.sql``, held to the Python declaration by tests/project/test_declared.py).

A metric without a direction (a count such as ``NumRet``, ``NumRel``, ``NumQ``; ``IDCG``; ``Judged``) is never
called better or worse: no wins or losses (NA), no bold, no "best", no gate.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import numpy as np

from . import registry

#: the words of each direction, for captions and messages
WORDS = {1: "higher is better", -1: "lower is better", 0: "no direction"}


def direction(metric: Any) -> int:
    """+1 when higher is better, -1 when lower is better, 0 when the metric is neither (a count, a normaliser).

    ``metric`` is a metric string (``"ARP@10"``, ``"ILD(output='similarity')@10"``) or a parsed
    :class:`rankframe.Measure`; the options count (``Gini(complement=True)`` and ``like='elliot'``: higher is
    better).

    >>> direction("nDCG@10"), direction("ARP@10"), direction("ILD(output='similarity')"), direction("NumRet")
    (1, -1, -1, 0)
    """
    from .names import Measure, parse

    m = metric if isinstance(metric, Measure) else parse(metric)
    return m.spec.direction(m.kw)


@lru_cache(maxsize=4096)
def _of_label(label: str) -> int:
    from ..core.errors import RankframeError

    try:
        return direction(label)
    except RankframeError:
        return 0  # a label that names no metric (a frame read back and relabelled): never better or worse


def of_labels(labels: Iterable[Any]) -> np.ndarray:
    """The direction of each metric label of a result frame (0 for a label that is not a metric string)."""
    return np.array([_of_label(str(label)) for label in labels], dtype=np.int64)


def verdicts(delta: Any, p_adjusted: Any, directions: Any, alpha: float = 0.05) -> np.ndarray:
    """Per row: +1 significantly better, -1 significantly worse, 0 neither (or no direction).

    Significant is ``p_adjusted < alpha``; better is ``delta`` (system - baseline) on the metric's side.
    """
    d = np.asarray(delta, dtype=np.float64) * np.asarray(directions, dtype=np.float64)
    p = np.asarray(p_adjusted, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        significant = p < alpha
        return np.where(significant & (d > 0), 1, np.where(significant & (d < 0), -1, 0)).astype(np.int64)


def clear_cache() -> None:
    """Forget the labels seen (after :func:`rankframe.registry.register` changes what a label means)."""
    _of_label.cache_clear()


registry.on_change(clear_cache)  # a label's direction follows register() (the cache exists once this module does)
