"""Judged@k: fraction of the top min(k, retrieved) that has a judgment."""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, k_param

SPEC = MetricSpec(
    name="judged",
    canonical="Judged",
    better=None,
    better_why="how much of the list is judged: the pool's coverage, not the ranking's quality",
    aliases=("judged",),
    summary="fraction of the top min(k, retrieved) that has a judgment",
    params=(k_param(),),
    binary=False,
    ir_measures="Judged",
    example="1.0",
    order=160,
)


def compute(prep, *, k):
    top = prep.cut(k)
    judged = top.segment_sum((~np.isnan(top.grade)).astype(np.float64))
    denom = top.n_retrieved.astype(np.float64)
    return np.divide(judged, denom, out=np.zeros(prep.n), where=denom > 0), None


def portable(t, *, k):
    """Judged@k as one aggregate: the judged rows (any grade, negative too) among the top min(k, retrieved)."""
    return t.ratio(t.count(f"{t.within(k)} AND {t.grade} IS NOT NULL"), t.count(t.within(k)))
