"""Success@k (hit rate): 1 when a relevant item is in the top k."""

from __future__ import annotations

from ..core.declare import JUDGED_ONLY, MetricSpec, k_param, rel_param

SPEC = MetricSpec(
    name="hit_rate",
    canonical="Success",
    better_why="a relevant item is found",
    aliases=("success", "hit_rate", "hitrate"),
    summary="1 if a relevant item is in the top k",
    params=(
        k_param(),
        rel_param(),
        JUDGED_ONLY,
    ),
    perfect_is_one=True,
    trec_eval_cut="success",
    ir_measures="Success",
    example="1.0",
    order=120,
)


def compute(prep, *, k, rel):
    top = prep.cut(k)
    return (top.segment_sum(top.hits(rel)) > 0).astype(float), None


def portable(t, *, k, rel, **_):
    """Success@k as one aggregate: 1 when a hit is in the top k."""
    return t.when(f"{t.count(f'{t.within(k)} AND {t.hit(rel)}')} > 0", t.num(1), t.num(0))
