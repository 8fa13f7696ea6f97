"""nNRBP@k: NRBP / NRBP of the greedy ideal list (can exceed 1: the ideal is greedy)."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="nnrbp",
    canonical="nNRBP",
    aliases=("nnrbp",),
    summary="NRBP / NRBP of the greedy ideal list (can exceed 1: the ideal is greedy)",
    params=params(alpha=True, beta=True),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="nNRBP",
    better_why="more subtopics covered, earlier, less redundantly, of the (greedy) ideal",
    presets=PRESETS,
    order=3050,
)


def compute(lists: IntentLists, *, k, alpha, beta, rel, like):
    run = lists.run(like, rel, alpha)
    ideal = lists.ideal(rel, alpha, k).rbp(k, beta)[lists.unit_query]
    return ratio(run.rbp(k, beta), ideal), lists.n_sub(rel) == 0


def portable(t, *, k, alpha, beta, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(t.rbp, t.irbp)
