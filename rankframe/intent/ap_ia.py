"""AP_IA@k: intent-aware average precision: the mean over subtopics of each subtopic's AP (ndeval's MAP-IA)."""

from __future__ import annotations

from .declare import PRESETS, IntentSpec, params
from .lists import IntentLists, pair_pos, pair_total, ratio

SPEC = IntentSpec(
    name="ap_ia",
    canonical="AP_IA",
    aliases=("ap_ia", "map_ia"),
    summary="intent-aware average precision: the mean over subtopics of each subtopic's AP (ndeval's MAP-IA)",
    params=params(alpha=False, beta=False),
    bounded=True,
    nothing_relevant="relevant",
    ir_measures="AP_IA",
    better_why="each subtopic's relevant items ranked earlier",
    presets=PRESETS,
    order=3070,
)


def compute(lists: IntentLists, *, k, rel, like):
    run = lists.run(like, rel, 0.5)  # the pairs only: alpha does not apply
    assert run.pair_seen is not None and run.pair_slot is not None
    per_pair = (run.pair_seen + 1.0) / pair_pos(run) / lists.judgments(rel).slot_nrel[run.pair_slot]
    return ratio(pair_total(run, per_pair, k), lists.n_sub(rel)), lists.n_sub(rel) == 0


def portable(t, *, k, rel, like, **_):
    """The value in the portable SQL (rankframe.warehouse.intent): compute()'s arithmetic over the per-unit sums."""
    return t.ratio(t.ap, t.s)
