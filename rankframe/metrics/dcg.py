"""DCG@k: sum of gain / log_b(position + 1) over the top k (b = ``log_base``, 2 by default)."""

from __future__ import annotations

from ..declare import GAIN, GAINS, LOG_BASE, MetricSpec, k_param, rel_param
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
        LOG_BASE,
        GAINS,
    ),
    bounded=False,
    binary=False,
    example="1.76186",
    example_why="2/log2(3) + 1/log2(4)",
    sql_table_params=(("rel", "graded_rel"),),
    order=60,
)


def compute(prep, *, k, rel, gain, log_base, gains):
    return dcg(prep, k, rel, gain, log_base, gains), None


def dcg(prep, k, rel, gain, log_base=2.0, gains=None):
    """DCG@k per unit (shared with nDCG)."""
    top = prep.cut(k)
    return top.memo(
        ("dcg", rel, gain, log_base, gains),
        lambda: top.segment_sum(gain_of(top.grade, gain, rel, gains) * discount(top.pos, log_base)),
    )
