"""Entropy@k: Shannon entropy of the distribution of the segment's top-k recommendations over items."""

from __future__ import annotations

import numpy as np

from ..declare import Param, k_param
from .declare import LOG_BASE, BeyondSpec, E, like_param
from .lists import Lists

PRESETS = {
    # Microsoft Recommenders distributional_coverage: -sum p log2 p over recommended items
    "recommenders": {"log_base": 2.0, "normalize": "none"},
    # RecBole ShannonEntropy: -sum p ln p / (number of distinct recommended items)
    "recbole": {"log_base": E, "normalize": "items"},
}

SPEC = BeyondSpec(
    name="entropy",
    canonical="Entropy",
    aliases=("shannon_entropy", "shannonentropy", "distributional_coverage"),
    summary="Shannon entropy -sum_i p_i log p_i of the share p_i of the segment's top-k rows that recommend item i "
    "(set-level)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        LOG_BASE,
        Param(
            "normalize",
            "none",
            "'none' = the entropy (Microsoft Recommenders), 'items' = divided by the number of distinct items "
            "recommended (RecBole)",
            choices=("none", "items"),
        ),
    ),
    bounded=False,
    level="set",
    presets=PRESETS,
    order=2020,
)


def compute(lists: Lists, *, k, log_base, normalize, like) -> np.ndarray:
    """One value per segment; NaN when the segment has no recommended row."""
    seg, _, count = lists.cut(k).segment_items()
    n_seg = lists.n_segments
    total = np.bincount(seg, weights=count, minlength=n_seg)
    p = count / total[seg]
    h = np.bincount(seg, weights=-p * np.log(p), minlength=n_seg) / np.log(log_base)
    m = np.bincount(seg, minlength=n_seg)
    if normalize == "items":
        h = h / np.maximum(m, 1)
    return np.where(total > 0, h, np.nan)
