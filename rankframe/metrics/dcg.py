"""DCG@k: sum of gain / log2(position + 1) over the top k."""

from __future__ import annotations

from ..declare import GAIN, MetricSpec, k_param, rel_param
from ..prepare import discount, gain_of

SPEC = MetricSpec(
    name="dcg",
    canonical="DCG",
    aliases=("dcg",),
    summary="sum of gain / log2(rank + 1) over the top k",
    params=(
        k_param(),
        rel_param(None),
        GAIN,
    ),
    bounded=False,
    binary=False,
    example="1.76186",
    example_why="2/log2(3) + 1/log2(4)",
    sql_table_params=(("rel", "graded_rel"),),
    order=60,
)


def compute(prep, *, k, rel, gain):
    return dcg(prep, k, rel, gain), None


def dcg(prep, k, rel, gain):
    """DCG@k per unit (shared with nDCG)."""
    top = prep.cut(k)
    return top.memo(("dcg", rel, gain), lambda: top.segment_sum(gain_of(top.grade, gain, rel) * discount(top.pos)))
