"""NumQ: 1 per evaluated query (trec_eval ``num_q``: summed, the number of queries)."""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec

SPEC = MetricSpec(
    name="num_q",
    canonical="NumQ",
    better=None,
    better_why="a count of queries: the same for every system",
    aliases=("numq",),
    summary="1 per evaluated query; its sum is the number of queries (trec_eval num_q)",
    params=(),
    bounded=False,
    count=True,
    trec_eval="num_q",
    ir_measures="NumQ",
    example="1.0",
    example_why="one query",
    order=200,
)


def compute(prep):
    return np.ones(prep.n), None


def portable(t):
    """NumQ as one aggregate: 1 for the unit."""
    return t.num(1)
