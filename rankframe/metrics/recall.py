"""R@k: hits in the top k / |R| (or / min(k, |R|))."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, Param, k_param, rel_param

SPEC = MetricSpec(
    name="recall",
    canonical="R",
    better_why="more of the relevant items found",
    aliases=("r", "recall"),
    summary="fraction of the relevant judged items found in the top k",
    params=(
        k_param(),
        rel_param(),
        Param(
            "denominator",
            "relevant",
            "'relevant' = all relevant judged (trec_eval) or 'min_k' = min(k, relevant) (capped recall)",
            choices=("relevant", "min_k"),
        ),
        JUDGED_ONLY,
    ),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval_cut="recall",
    ir_measures="R",
    example="0.66667",
    example_why="2 of 3 relevant found",
    sql_data_args=("n_rel",),
    sql_table_params=(("denominator", "r_denominator"),),
    order=20,
)


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.n_hits(rel)
    n_rel = prep.n_relevant(rel)
    # K = k, or the list length when there is no cutoff (docs/metrics.md)
    denom = n_rel if denominator == "relevant" else np.minimum(n_rel, prep.n_retrieved if k is None else k)
    return np.divide(hits, denom, out=np.zeros(prep.n), where=denom > 0), n_rel == 0


def portable(t, *, k, rel, denominator, **_):
    """R@k as one aggregate over the unit's rows (rankframe.warehouse; the same rule as ``compute``)."""
    hits, n_rel = t.count(f"{t.within(k)} AND {t.hit(rel)}"), t.count(t.hit(rel))
    if denominator == "relevant":
        return t.ratio(hits, n_rel)
    return t.ratio(hits, t.least(t.count(f"{t.pos} IS NOT NULL") if k is None else str(k), n_rel))
