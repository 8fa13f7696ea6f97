"""ERR_IA@k: intent-aware ERR as ndeval: sum of novelty-discounted gain / rank over its ideal-ideal normaliser."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="err_ia",
    canonical="ERR_IA",
    aliases=("err_ia", "erria"),
    summary="intent-aware ERR as ndeval: sum of novelty-discounted gain / rank over its ideal-ideal normaliser",
    params=params(alpha=True, beta=False),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="ERR_IA",
    better_why="subtopics satisfied earlier",
    presets=PRESETS,
    order=3020,
)


def compute(lists: IntentLists, *, k, alpha, rel, like):
    run = lists.run(like, rel, alpha)
    den = lists.ideal_ideal(like, rel, alpha, k, "reciprocal")
    return ratio(run.err(k), den), lists.n_sub(rel) == 0


def portable(t, *, k, alpha, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(t.err, t.ideal_ideal("reciprocal"))
