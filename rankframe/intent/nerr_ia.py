"""nERR_IA@k: ERR-IA / ERR-IA of the greedy ideal list (can exceed 1: the ideal is greedy)."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="nerr_ia",
    canonical="nERR_IA",
    aliases=("nerr_ia", "nerria"),
    summary="ERR-IA / ERR-IA of the greedy ideal list (can exceed 1: the ideal is greedy)",
    params=params(alpha=True, beta=False),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="nERR_IA",
    better_why="subtopics satisfied earlier, of the (greedy) ideal",
    presets=PRESETS,
    order=3030,
)


def compute(lists: IntentLists, *, k, alpha, rel, like):
    run = lists.run(like, rel, alpha)
    ideal = lists.ideal(rel, alpha, k).err(k)[lists.unit_query]
    return ratio(run.err(k), ideal), lists.n_sub(rel) == 0


def portable(t, *, k, alpha, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(t.err, t.ierr)
