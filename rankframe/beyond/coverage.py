"""Coverage@k: the share (or number) of the universe's items recommended in some top k of the segment."""

from __future__ import annotations

import numpy as np

from ..core.declare import Param, k_param
from .declare import UNIVERSE_NEEDS, BeyondSpec, like_param, universe_param
from .lists import Lists

PRESETS = {
    # Microsoft Recommenders catalog_coverage: reco_df's distinct items (every one, in train or not) / distinct
    # items of train_df
    "recommenders": {"universe": "train", "output": "share", "outside": "count"},
    # RecBole ItemCoverage: np.unique(item_matrix) (every recommended item) / num_items (the dataset's items, as
    # catalog= gives them)
    "recbole": {"universe": "catalog", "output": "share", "outside": "count"},
    # Evidently PopularityBias coverage: |recommended top-k items & train items| / |train items|
    "evidently": {"universe": "train", "output": "share", "outside": "ignore"},
    # RecTools CatalogCoverage (normalize=False): nunique of every top-k item, the catalog only as the divisor
    "rectools": {"universe": "catalog", "output": "count", "outside": "count"},
    # RePlay Coverage: distinct top-k items joined to train's distinct items / their number
    "replay": {"universe": "train", "output": "share", "outside": "ignore"},
    # Elliot ItemCoverage: the number of distinct top-k items (no universe: every recommended item counts)
    "elliot": {"universe": "train", "output": "count", "outside": "count"},
}

SPEC = BeyondSpec(
    name="coverage",
    canonical="Coverage",
    better_why="more of the universe's items recommended",
    aliases=("item_coverage", "catalog_coverage", "itemcoverage"),
    summary="share of the universe's items that appear in some top k of the segment (set-level)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        universe_param(
            "the items that could be recommended: 'catalog' = catalog= (RecBole), 'train' = the items of train= "
            "(Microsoft Recommenders)"
        ),
        Param(
            "output",
            "share",
            "'share' = covered / |universe|, 'count' = the number covered",
            choices=("share", "count"),
        ),
        Param(
            "outside",
            "ignore",
            "an item recommended outside the universe: 'ignore' = not covered (Evidently, RePlay), 'count' = "
            "counted (Microsoft Recommenders, RecBole, RecTools, Elliot: every distinct recommended item, the "
            "universe only the divisor; the value can exceed 1)",
            choices=("ignore", "count"),
        ),
    ),
    bounded=False,
    level="set",
    needs_when=UNIVERSE_NEEDS,
    presets=PRESETS,
    order=2000,
)


def compute(lists: Lists, *, k, universe, output, outside, like) -> np.ndarray:
    """One value per segment: |{items of the universe in some top k}| (/ |universe| for 'share').

    ``outside='count'`` counts a recommended item outside the universe too. Per resample of ``lists.weights`` (one
    row each) when given: an item is covered when its weighted count is > 0.
    """
    counts, seg, item = lists.cut(k).weighted_counts()
    inside = lists.universe(universe)
    hit = counts > 0 if outside == "count" else (counts > 0) & inside[item]
    covered = lists.by_segment(hit, seg)
    return lists.out(covered if output == "count" else covered / max(int(inside.sum()), 1))


def portable(b, i, *, k, universe, output, outside, like):
    """Coverage in the portable SQL (rankframe.warehouse.beyond's builder ``b``): the CTE of its segment rows."""
    p = b.pairs(k, universe)
    covered = "COALESCE(SUM(a0), 0)"
    value = covered if output == "count" else f"{covered} / GREATEST(MAX(a1), 1)"
    hit = "rf__c > 0" if outside == "count" else "rf__c > 0 AND rf__in = 1"  # 'count': items outside too
    return b.segment_rows(f"rf__bm{i}", [b.contribution(p, f"CASE WHEN {hit} THEN 1 ELSE 0 END", "rf__un")], 2, value)
