"""alpha_DCG@k: novelty-discounted DCG over ndeval's ideal-ideal normaliser (every subtopic at every position)."""

from __future__ import annotations

from .declare import TF_PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="alpha_dcg",
    canonical="alpha_DCG",
    aliases=("alpha_dcg", "alphadcg"),
    summary="novelty-discounted DCG over ndeval's ideal-ideal normaliser (every subtopic at every position)",
    params=params(alpha=True, beta=False, presets=TF_PRESETS),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="alpha_DCG",
    better_why="more subtopics covered, earlier, less redundantly",
    presets=TF_PRESETS,
    order=3000,
)


def compute(lists: IntentLists, *, k, alpha, rel, like):
    run = lists.run(like, rel, alpha)
    if like == "tf_ranking":  # TF-Ranking's AlphaDCGMetric: the raw sum, no normaliser
        return run.dcg(k), lists.n_sub(rel) == 0
    den = lists.ideal_ideal(like, rel, alpha, k, "log")
    return ratio(run.dcg(k), den), lists.n_sub(rel) == 0


def portable(t, *, k, alpha, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    if like == "tf_ranking":  # TF-Ranking's raw sum
        return t.dcg
    return t.ratio(t.dcg, t.ideal_ideal("log"))
