"""alpha_nDCG@k: alpha-DCG / alpha-DCG of the greedy ideal list (Clarke et al. 2008; can exceed 1)."""

from __future__ import annotations

from .declare import INFORMFULLY, NDCG_PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="alpha_ndcg",
    canonical="alpha_nDCG",
    aliases=("alpha_ndcg", "alphandcg"),
    summary="alpha-DCG / alpha-DCG of the greedy ideal list (Clarke et al. 2008; can exceed 1: the ideal is greedy)",
    params=params(alpha=True, beta=False, presets=NDCG_PRESETS),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="alpha_nDCG",
    better_why="more subtopics covered, earlier, less redundantly, of the (greedy) ideal",
    presets=NDCG_PRESETS,
    order=3010,
)


def compute(lists: IntentLists, *, k, alpha, rel, like):
    if like == INFORMFULLY:  # the recommender form is computed from train= and features= (intent.history)
        raise RuntimeError("like='informfully' reaches rankframe.intent.history, not the subtopic-qrels kernel")
    run = lists.run(like, rel, alpha)
    ideal = lists.ideal(rel, alpha, k).dcg(k)[lists.unit_query]
    return ratio(run.dcg(k), ideal), lists.n_sub(rel) == 0


def portable(t, *, k, alpha, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(t.dcg, t.idcg)
