"""AP@k: sum of P@i at relevant positions i <= k, over |R|, min(|R|, k) or the hits found."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, Param, k_param, rel_param

SPEC = MetricSpec(
    name="ap",
    canonical="AP",
    better_why="more relevant items, ranked earlier",
    aliases=("ap", "map", "average_precision"),
    summary="average precision at the ranks of relevant items",
    params=(
        k_param(),
        rel_param(),
        Param(
            "denominator",
            "relevant",
            "'relevant' = all relevant judged (trec_eval, ranx), 'min_k' = min(relevant, k) (Spark, MS Recommenders), "
            "'retrieved' = relevant found in the top k (torchmetrics)",
            choices=("relevant", "min_k", "retrieved"),
        ),
        JUDGED_ONLY,
    ),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval="map",
    trec_eval_cut="map_cut",
    ir_measures="AP",
    example="0.38889",
    example_why="(1/2 + 2/3) / 3",
    sql_data_args=("n_rel",),
    sql_table_params=(("denominator", "ap_denominator"),),
    order=30,
)


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.hits(rel)
    precision_at = top.cumsum_in_list(hits) / top.pos
    total = top.segment_sum(precision_at * hits)
    n_rel = prep.n_relevant(rel)
    if denominator == "relevant":
        denom = n_rel
    elif denominator == "min_k":
        denom = np.minimum(n_rel, prep.n_retrieved if k is None else k)
    else:  # "retrieved": relevant items found in the top k
        denom = top.segment_sum(hits)
    return np.divide(total, denom, out=np.zeros(prep.n), where=denom > 0), n_rel == 0


def portable(t, *, k, rel, denominator, **_):
    """AP@k as one aggregate: the sum over the hits in the top k of (hits at or above) / position, over D."""
    top = f"{t.within(k)} AND {t.hit(rel)}"
    precision_at_hits = t.total(t.ratio(t.running_count(t.hit(rel)), t.pos), top)
    n_rel, n = t.count(t.hit(rel)), t.count(f"{t.pos} IS NOT NULL")
    den = {
        "relevant": n_rel,
        "min_k": t.least(n_rel, n if k is None else str(k)),
        "retrieved": t.count(top),
    }[denominator]
    return t.ratio(precision_at_hits, den)
