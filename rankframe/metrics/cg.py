"""CG@k: sum of the gains of the top k."""

from __future__ import annotations

from ..core.declare import GAIN, MetricSpec, k_param, rel_param
from ..tables.prepare import gain_of

SPEC = MetricSpec(
    name="cg",
    canonical="CG",
    better_why="more gain in the top k",
    aliases=("cg",),
    summary="sum of the gains of the top k",
    params=(
        k_param(),
        rel_param(None),
        GAIN,
    ),
    bounded=False,
    binary=False,
    example="3.0",
    example_why="0 + 2 + 1",
    sql_table_params=(("rel", "graded_rel"),),
    order=50,
)


def compute(prep, *, k, rel, gain):
    top = prep.cut(k)
    return top.segment_sum(gain_of(top.grade, gain, rel)), None


def portable(t, *, k, rel, gain, **_):
    """CG@k as one aggregate: the sum of the gains in the top k."""
    return t.total(t.gain(rel, gain), t.within(k))
