"""RBP@k: (1 - p) * sum of p^(position - 1) over relevant items in the top k."""

from __future__ import annotations

import numpy as np

from ..declare import MetricSpec, Param, k_param, rel_param

SPEC = MetricSpec(
    name="rbp",
    canonical="RBP",
    better_why="more relevant items, ranked earlier",
    aliases=("rbp", "rank_biased_precision"),
    summary="rank-biased precision (1 - p) sum p^(rank-1) rel",
    params=(
        k_param(),
        rel_param(),
        Param("p", 0.8, "persistence", kind="open_unit", aliases=("persistence",)),
    ),
    ir_measures="RBP",
    example="0.288",
    example_why="0.2 (0.8 + 0.8^2)",
    order=150,
)


def compute(prep, *, k, rel, p):
    top = prep.cut(k)
    return (1.0 - p) * top.segment_sum(top.hits(rel) * np.power(p, top.pos - 1.0)), None


def portable(t, *, k, rel, p):
    """RBP@k as one aggregate: (1 - p) times the sum of p^(position - 1) over the hits in the top k."""
    total = t.total(t.power(t.num(p), f"{t.pos} - 1"), f"{t.within(k)} AND {t.hit(rel)}")
    return f"({t.num(1)} - {t.num(p)}) * {total}"
