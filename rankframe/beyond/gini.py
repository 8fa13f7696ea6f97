"""Gini@k: the Gini index of how often each item of the universe is recommended in the segment's top k."""

from __future__ import annotations

import numpy as np

from ..declare import Param, k_param
from .declare import BeyondSpec, like_param
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
    aliases=("gini_index", "giniindex"),
    summary="Gini index of the recommendation counts of the universe's items in the segment's top k (set-level)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        Param(
            "universe",
            "catalog",
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
    needs_when=(("universe", "catalog", "catalog"), ("universe", "train", "train")),
    presets=PRESETS,
    order=2010,
)


def compute(lists: Lists, *, k, universe, denominator, complement, like) -> np.ndarray:
    """One value per segment; NaN when the segment has no recommended row (or n = 1 with d = n - 1)."""
    seg, item, count = lists.cut(k).segment_items()
    n_seg = lists.n_segments
    m = np.bincount(seg, minlength=n_seg)  # distinct items recommended per segment
    if universe == "recommended":
        n = m.astype(np.float64)
    else:
        inside = lists.universe(universe)
        n = inside.sum() + np.bincount(seg[~inside[item]], minlength=n_seg).astype(np.float64)
    order = np.lexsort((count, seg))  # by segment, then count ascending: c_(1) <= ... within each segment
    seg, count = seg[order], count[order]
    starts = np.concatenate(([0], np.cumsum(m)[:-1]))
    j = np.arange(len(seg)) - starts[seg] + 1  # rank among the segment's recommended items
    i = n[seg] - m[seg] + j  # rank among all n items (the n - m unrecommended items come first, with 0)
    num = np.bincount(seg, weights=(2 * i - n[seg] - 1) * count, minlength=n_seg)
    total = np.bincount(seg, weights=count, minlength=n_seg)
    d = n if denominator == "n" else n - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where((total > 0) & (d > 0), num / (np.maximum(d, 1) * np.maximum(total, 1)), np.nan)
    return 1 - value if complement else value
