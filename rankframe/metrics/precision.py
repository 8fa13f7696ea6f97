"""P@k: hits in the top k / k (or / min(k, retrieved))."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, Param, k_param, rel_param

SPEC = MetricSpec(
    name="precision",
    canonical="P",
    better_why="a larger share of the top k is relevant",
    aliases=("p", "precision"),
    summary="fraction of the top k that is relevant",
    params=(
        k_param(),
        rel_param(),
        Param(
            "denominator", "k", "'k' (trec_eval) or 'retrieved' = min(k, number retrieved)", choices=("k", "retrieved")
        ),
        JUDGED_ONLY,
    ),
    trec_eval_cut="P",
    ir_measures="P",
    example="0.66667",
    example_why="2 hits / 3 retrieved",
    sql_table_params=(("denominator", "p_denominator"),),
    order=10,
)


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.n_hits(rel)
    if denominator == "k" and k is not None:
        denom = np.full(prep.n, float(k))
    else:
        denom = top.n_retrieved.astype(np.float64)
    return np.divide(hits, denom, out=np.zeros(prep.n), where=denom > 0), None


def portable(t, *, k, rel, denominator, **_):
    """P@k as one aggregate over the unit's rows (rankframe.warehouse; the same rule as ``compute``)."""
    hits, n = t.count(f"{t.within(k)} AND {t.hit(rel)}"), t.count(f"{t.pos} IS NOT NULL")
    if k is None:
        return t.ratio(hits, n)
    return t.ratio(hits, str(k) if denominator == "k" else t.least(str(k), n))
