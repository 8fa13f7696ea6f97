"""StRecall@k: subtopic recall, the share of the query's subtopics with a relevant item in the top k (Zhai et al.)."""

from __future__ import annotations

import numpy as np

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, pair_total, ratio

SPEC = IntentSpec(
    name="st_recall",
    canonical="StRecall",
    aliases=("st_recall", "strec", "subtopic_recall"),
    summary="subtopic recall: the share of the query's subtopics with a relevant item in the top k (Zhai et al. 2003)",
    params=params(alpha=False, beta=False),
    bounded=True,
    nothing_relevant="relevant",
    ir_measures="StRecall",
    better_why="more of the query's subtopics covered",
    presets=PRESETS,
    order=3080,
)


def compute(lists: IntentLists, *, k, rel, like):
    run = lists.run(like, rel, 0.5)  # the pairs only: alpha does not apply
    assert run.pair_seen is not None
    first = pair_total(run, np.ones(len(run.pair_seen)), k, mask=run.pair_seen == 0)
    return ratio(first, lists.n_sub(rel)), lists.n_sub(rel) == 0


def portable(t, *, k, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(t.n_first, t.s)
