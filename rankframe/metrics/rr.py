"""RR@k: 1 / position of the first relevant item within the top k."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, k_param, rel_param

SPEC = MetricSpec(
    name="rr",
    canonical="RR",
    better_why="the first relevant item comes earlier",
    aliases=("rr", "mrr", "recip_rank", "reciprocal_rank"),
    summary="1 / rank of the first relevant item",
    params=(
        k_param(),
        rel_param(),
        JUDGED_ONLY,
    ),
    perfect_is_one=True,
    trec_eval="recip_rank",
    ir_measures="RR",
    example="0.5",
    example_why="first hit at rank 2",
    order=40,
)


def compute(prep, *, k, rel):
    top = prep.cut(k)
    idx = np.flatnonzero(top.hits(rel))
    g = top.group[idx]
    first = np.ones(len(idx), dtype=bool)
    first[1:] = g[1:] != g[:-1]  # lists are contiguous and in rank order
    out = np.zeros(prep.n)
    out[g[first]] = 1.0 / top.pos[idx[first]]
    return out, None


def portable(t, *, k, rel, **_):
    """RR@k as one aggregate: 1 / the first hit's position in the top k, 0 without one."""
    first = t.smallest(t.pos, f"{t.within(k)} AND {t.hit(rel)}")
    return t.when(f"{first} IS NULL", t.num(0), t.ratio("1", first))
