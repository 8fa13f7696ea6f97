"""NRBP@k: novelty- and rank-biased precision: (1 - (1 - alpha) beta) / S sum g beta^(p - 1) (Clarke et al. 2009)."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, ratio

SPEC = IntentSpec(
    name="nrbp",
    canonical="NRBP",
    aliases=("nrbp",),
    summary="novelty- and rank-biased precision: (1 - (1 - alpha) beta) / S sum g beta^(p - 1) (Clarke et al. 2009)",
    params=params(alpha=True, beta=True),
    bounded=False,
    nothing_relevant="relevant",
    ir_measures="NRBP",
    better_why="more subtopics covered, earlier, less redundantly",
    presets=PRESETS,
    order=3040,
)


def compute(lists: IntentLists, *, k, alpha, beta, rel, like):
    run = lists.run(like, rel, alpha)
    return ratio((1.0 - (1.0 - alpha) * beta) * run.rbp(k, beta), lists.n_sub(rel)), lists.n_sub(rel) == 0


def portable(t, *, k, alpha, beta, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(f"{t.num(1.0 - (1.0 - alpha) * beta)} * {t.rbp}", t.s)
