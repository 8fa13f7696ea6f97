"""Gini@k: the Gini index of how often each item of the universe is recommended in the segment's top k."""

from __future__ import annotations

import numpy as np

from ..core.declare import Param, k_param
from .declare import UNIVERSE_NEEDS, BeyondSpec, like_param, universe_param
from .lists import Lists

PRESETS = {
    # RecBole GiniIndex: sum_i (2i - n - 1) c_(i) / (n * sum c), n = num_items (catalog), unrecommended items 0
    "recbole": {"universe": "catalog", "denominator": "n", "complement": False},
    # Evidently PopularityBias gini: value_counts of the top-k items (the recommended items only), d = n - 1
    "evidently": {"universe": "recommended", "denominator": "n-1", "complement": False},
    # LensKit ListGini (lenskit.stats.gini): the lists each item of the vocabulary appears in, d = n
    "lenskit": {"universe": "catalog", "denominator": "n", "complement": False},
    # Elliot GiniIndex: 1 - sum_j (2 (j + num_items - m) - num_items - 1) c_(j) / ((num_items - 1) sum c), num_items
    # = the training set's items
    "elliot": {"universe": "train", "denominator": "n-1", "complement": True},
}

SPEC = BeyondSpec(
    name="gini",
    canonical="Gini",
    better="lower",
    better_when=(("complement", True, "higher"),),
    better_why="concentration on few items; complement=True reports 1 - Gini, higher is better",
    aliases=("gini_index", "giniindex"),
    summary="Gini index of the recommendation counts of the universe's items in the segment's top k (set-level)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        universe_param(
            "the items counted (never recommended = 0): 'catalog' = catalog= (RecBole), 'train' = the items of "
            "train=, 'recommended' = the items recommended in the segment only; an item recommended outside the "
            "universe counts as well",
            choices=("catalog", "train", "recommended"),
        ),
        Param(
            "denominator",
            "n",
            "sum_i (2i - n - 1) c_(i) / (d * sum c) with d = 'n' (RecBole) or 'n-1' (RankSys, Elliot's "
            "documented formula: 1 when one item takes every recommendation)",
            choices=("n", "n-1"),
        ),
        Param("complement", False, "report 1 - Gini instead (RankSys's GiniIndex, with d = n - 1)", kind="flag"),
    ),
    level="set",
    needs_when=UNIVERSE_NEEDS,
    presets=PRESETS,
    order=2010,
)


def compute(lists: Lists, *, k, universe, denominator, complement, like) -> np.ndarray:
    """One value per segment (per resample of ``lists.weights``); NaN without a recommended row (or d = 0).

    The (segment, item) columns of the counts are sorted by segment: within each segment's block of columns, a
    row's counts are sorted ascending (an item not drawn in a resample has count 0 and sorts first); the item at
    place j0 (0-based) of a block of P_s columns ranks i = n - P_s + j0 + 1 among all n items (the items with count
    0 of the universe come first), so the numerator sum_i (2i - n - 1) c_(i) needs no per-segment loop.
    """
    counts, seg, item = lists.cut(k).weighted_counts()
    n_seg = lists.n_segments
    positive = counts > 0
    if universe == "recommended":
        n = lists.by_segment(positive, seg)
    else:
        inside = lists.universe(universe)
        n = inside.sum() + lists.by_segment(positive & ~inside[item], seg)  # + recommended outside the universe
    width = np.bincount(seg, minlength=n_seg)  # columns per segment
    starts = np.concatenate(([0], np.cumsum(width)[:-1]))
    j0 = np.arange(len(seg)) - starts[seg]
    step = float(counts.max(initial=0.0)) + 1.0  # blocks stay apart: segment s sorts within [s * step, s * step + max]
    ordered = np.sort(counts + seg * step, axis=1) - seg * step
    i = n[:, seg] - width[seg] + j0 + 1
    num = lists.by_segment((2 * i - n[:, seg] - 1) * ordered, seg)
    total = lists.by_segment(counts, seg)
    d = n if denominator == "n" else n - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where((total > 0) & (d > 0), num / (np.maximum(d, 1) * np.maximum(total, 1)), np.nan)
    return lists.out(1 - value if complement else value)


def portable(b, i, *, k, universe, denominator, complement, like):
    """Gini in the portable SQL (rankframe.warehouse.beyond's builder ``b``): the CTE of its segment rows."""
    p = b.pairs(k, None if universe == "recommended" else universe)
    m = f"COUNT(CASE WHEN rf__c > 0 THEN 1 END) OVER (PARTITION BY {b.g})"
    if universe == "recommended":
        n = m
    else:  # the universe's items plus those recommended outside it
        n = f"rf__un + COUNT(CASE WHEN rf__c > 0 AND rf__in = 0 THEN 1 END) OVER (PARTITION BY {b.g})"
    # j = the rank of c among the segment's recommended items (ascending; ties give the same sum in any order,
    # the item orders them all the same), the unrecommended n - m items come first with 0
    ranked = f"rf__bgini{i}"
    b.ctes[ranked] = (
        f"SELECT {b.g}, rf__c, {m} AS rf__m, {n} AS rf__nn, ROW_NUMBER() OVER (PARTITION BY {b.g}, "
        f"CASE WHEN rf__c > 0 THEN 1 ELSE 0 END ORDER BY rf__c, rf__item) AS rf__j FROM {p}"
    )
    d = "MAX(a2)" if denominator == "n" else "(MAX(a2) - 1)"
    g = f"CASE WHEN COALESCE(SUM(a1), 0) = 0 OR {d} <= 0 THEN {b.null()} ELSE SUM(a0) / ({d} * SUM(a1)) END"
    value = f"1 - {g}" if complement else g
    term = "CASE WHEN rf__c > 0 THEN (2 * (rf__nn - rf__m + rf__j) - rf__nn - 1) * rf__c END"
    return b.segment_rows(f"rf__bm{i}", [b.contribution(ranked, term, "rf__c", "rf__nn")], 3, value)
