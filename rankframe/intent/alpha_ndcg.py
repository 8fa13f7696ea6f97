"""alpha_nDCG@k: alpha-DCG / alpha-DCG of the greedy ideal list (Clarke et al. 2008; can exceed 1)."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="alpha_ndcg",
    canonical="alpha_nDCG",
    aliases=("alpha_ndcg", "alphandcg"),
    summary="alpha-DCG / alpha-DCG of the greedy ideal list (Clarke et al. 2008; can exceed 1: the ideal is greedy)",
    params=params(alpha=True, beta=False),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="alpha_nDCG",
    better_why="more subtopics covered, earlier, less redundantly, of the (greedy) ideal",
    presets=PRESETS,
    order=3010,
)


def compute(lists: IntentLists, *, k, alpha, rel, like):
    run = lists.run(like, rel, alpha)
    ideal = lists.ideal(rel, alpha, k).dcg(k)[lists.unit_query]
    return ratio(run.dcg(k), ideal), lists.n_sub(rel) == 0
