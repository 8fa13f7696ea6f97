"""P_IA@k: intent-aware precision, the relevant (item, subtopic) pairs in the top k / (k S) (Agrawal et al. 2009)."""

from __future__ import annotations

import numpy as np

from .declare import TF_PRESETS, IntentSpec, params
from .lists import IntentLists, pair_pos, pair_total, ratio

SPEC = IntentSpec(
    name="p_ia",
    canonical="P_IA",
    aliases=("p_ia", "precision_ia"),
    summary="intent-aware precision: relevant (item, subtopic) pairs in the top k / (k S) (Agrawal et al. 2009)",
    params=params(alpha=False, beta=False, presets=TF_PRESETS),
    bounded=True,
    nothing_relevant="relevant",
    ir_measures="P_IA",
    better_why="more relevant items per subtopic in the top k",
    presets=TF_PRESETS,
    order=3060,
)


def compute(lists: IntentLists, *, k, rel, like):
    run = lists.run(like, rel, 0.5)  # the pairs only: alpha does not apply
    ones = np.ones(len(pair_pos(run)))
    count = pair_total(run, ones, k)
    depth = lists.n_retrieved if k is None else np.full(lists.n, k, dtype=np.float64)
    n_sub = lists.n_sub(rel)
    if like == "tf_ranking":  # PrecisionIAMetric: min(k, the list's length) x the subtopics the list covers
        depth = np.minimum(depth, lists.n_retrieved)
        assert run.pair_seen is not None
        n_sub = pair_total(run, ones, None, mask=run.pair_seen == 0)
    return ratio(count, depth * n_sub), lists.n_sub(rel) == 0


def portable(t, *, k, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    if like == "tf_ranking":  # min(k, the list's length) x the subtopics the list covers
        return t.ratio(t.n_pairs, f"{t.least(t.cut, t.nret)} * {t.n_covered}")
    return t.ratio(t.n_pairs, f"{t.cut} * {t.s}")
