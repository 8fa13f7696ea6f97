"""Coverage@k: the share (or number) of the universe's items recommended in some top k of the segment."""

from __future__ import annotations

import numpy as np

from ..declare import Param, k_param
from .declare import BeyondSpec, like_param
from .lists import Lists

PRESETS = {
    # Microsoft Recommenders catalog_coverage: distinct recommended items / distinct items of train_df
    "recommenders": {"universe": "train", "output": "share"},
    # RecBole ItemCoverage: distinct recommended items / num_items (the dataset's items, as catalog= gives them)
    "recbole": {"universe": "catalog", "output": "share"},
}

SPEC = BeyondSpec(
    name="coverage",
    canonical="Coverage",
    aliases=("item_coverage", "catalog_coverage", "itemcoverage"),
    summary="share of the universe's items that appear in some top k of the segment (set-level)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        Param(
            "universe",
            "catalog",
            "the items that could be recommended: 'catalog' = catalog= (RecBole), 'train' = the items of train= "
            "(Microsoft Recommenders)",
            choices=("catalog", "train"),
        ),
        Param(
            "output",
            "share",
            "'share' = covered / |universe|, 'count' = the number covered",
            choices=("share", "count"),
        ),
    ),
    bounded=False,
    level="set",
    needs_when=(("universe", "catalog", "catalog"), ("universe", "train", "train")),
    presets=PRESETS,
    order=2000,
)


def compute(lists: Lists, *, k, universe, output, like) -> np.ndarray:
    """One value per segment: |{items of the universe in some top k}| (/ |universe| for 'share').

    Per resample of ``lists.weights`` (one row each) when given: an item is covered when its weighted count is > 0.
    """
    counts, seg, item = lists.cut(k).weighted_counts()
    inside = lists.universe(universe)
    covered = lists.by_segment((counts > 0) & inside[item], seg)
    return lists.out(covered if output == "count" else covered / max(int(inside.sum()), 1))
