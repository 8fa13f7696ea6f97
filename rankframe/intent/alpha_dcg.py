"""alpha_DCG@k: novelty-discounted DCG over ndeval's ideal-ideal normaliser (every subtopic at every position)."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="alpha_dcg",
    canonical="alpha_DCG",
    aliases=("alpha_dcg", "alphadcg"),
    summary="novelty-discounted DCG over ndeval's ideal-ideal normaliser (every subtopic at every position)",
    params=params(alpha=True, beta=False),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="alpha_DCG",
    better_why="more subtopics covered, earlier, less redundantly",
    presets=PRESETS,
    order=3000,
)


def compute(lists: IntentLists, *, k, alpha, rel, like):
    run = lists.run(like, rel, alpha)
    den = lists.ideal_ideal(like, rel, alpha, k, "log")
    return ratio(run.dcg(k), den), lists.n_sub(rel) == 0
