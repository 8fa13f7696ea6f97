"""Personalization@k: 1 - the mean cosine similarity of every pair of the segment's top-k item sets (set-level).

The sum over the pairs of lists u < v of |A_u ∩ A_v| / sqrt(|A_u| |A_v|) is never built pair by pair: with
w_u = 1 / sqrt(|A_u|) and S_i = sum_{u: i in A_u} w_u, item i adds (S_i² - sum_{u: i in A_u} w_u²) / 2 to it, and
the second sums add up to n (each list's w_u² over its |A_u| items is 1). So

    mean similarity = sum_i (S_i² - Q_i) / (n (n - 1)),   Q_i = sum_{u: i in A_u} w_u²   (sum_i Q_i = n),

recmetrics' ``(similarity.sum() - dim) / (dim * (dim - 1))`` of its dense user × user matrix, in one pass over
the (list, item) pairs and one GROUP BY item: O(rows) time, O(distinct (segment, item) pairs) memory. n counts
the lists with at least one top-k row (a list without one has no item set); fewer than two lists: NaN.

Examples
--------
>>> import pandas as pd
>>> import rankframe
>>> recs = pd.DataFrame({"query": [1, 1, 2, 2, 3, 3], "item": ["a", "b", "a", "c", "d", "e"], "rank": [1, 2] * 3})
>>> rankframe.evaluate(recs, "Personalization@2")["value"].round(4).tolist()  # pairs 1/2, 0, 0: 1 - (1/2) / 3
[0.8333]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..declare import Param, k_param
from ..errors import ParameterError
from .declare import BeyondSpec, like_param
from .lists import Lists, count_distinct

PRESETS = {
    # recmetrics personalization (recmetrics/metrics.py): 1 - the mean of the upper triangle of sklearn's cosine
    # similarity of the binary user x item matrix
    "recmetrics": {"output": "distance"},
    # Evidently PersonalizationMetric: 1 - (sum_i c_i² - n k) / (k n (n - 1)), the mean pairwise overlap / k (the
    # cosine when every list has k items; a shorter list is counted as if it had k)
    "evidently": {"output": "distance", "norm": "k"},
}

SPEC = BeyondSpec(
    name="personalization",
    canonical="Personalization",
    aliases=("personalisation", "inter_list_diversity"),
    summary="1 - the mean cosine similarity of every pair of the segment's top-k item sets (set-level)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        Param(
            "output",
            "distance",
            "'distance' = 1 - the mean pairwise cosine similarity (recmetrics' personalization: 1 = no two lists "
            "share an item), 'similarity' = the mean pairwise cosine similarity itself",
            choices=("distance", "similarity"),
        ),
        Param(
            "norm",
            "cosine",
            "a pair's similarity: 'cosine' = |A_u ∩ A_v| / sqrt(|A_u| |A_v|), 'k' = |A_u ∩ A_v| / k with every list's "
            "own overlap taken as k: (sum_i c_i² - n k) / (k n (n - 1)), c_i the lists recommending i (Evidently; "
            "the cosine when every list has k items; needs @k)",
            choices=("cosine", "k"),
        ),
    ),
    level="set",
    presets=PRESETS,
    order=2030,
)


def check_rules(*, k: int | None, norm: str, **_: object) -> None:
    """The rules between the options (every face calls it): norm='k' divides by the cutoff."""
    if norm == "k" and k is None:
        raise ParameterError("Personalization(norm='k') divides each overlap by the cutoff: give one, e.g. @10")


def compute(lists: Lists, *, k, output, norm, like) -> np.ndarray:
    """One value per segment; NaN for a segment with fewer than two lists with a top-k row."""
    check_rules(k=k, norm=norm)
    top = lists.cut(k)
    pairs, _ = count_distinct(top.unit.astype(np.int64) * top.n_items + top.item)  # each (list, item) once
    unit, item = pairs // top.n_items, pairs % top.n_items
    size = np.bincount(unit, minlength=top.n_units)
    weight = 1.0 / np.sqrt(size[unit])
    seg = top.unit_segment[unit]
    codes, uniques = pd.factorize(seg.astype(np.int64) * top.n_items + item, sort=False)
    s = np.bincount(codes, weights=weight, minlength=len(uniques))  # S_i per (segment, item)
    q = np.bincount(codes, weights=weight * weight, minlength=len(uniques))  # sum of w_u² per (segment, item)
    # 2 x the pairs' sum; S_i² - Q_i per item (not sum S_i² - n): exactly 0 for an item of one list, no cancellation
    twice = np.bincount(np.asarray(uniques) // top.n_items, weights=s * s - q, minlength=top.n_segments)
    n = np.bincount(top.unit_segment[size > 0], minlength=top.n_segments).astype(np.float64)
    if norm == "k":  # sum_i c_i² - n k over k n (n - 1), c_i = the lists recommending item i
        c = np.bincount(codes, minlength=len(uniques)).astype(np.float64)
        twice = (np.bincount(np.asarray(uniques) // top.n_items, weights=c * c, minlength=top.n_segments) - n * k) / k
    with np.errstate(invalid="ignore", divide="ignore"):
        similarity = np.where(n >= 2, twice / (n * (n - 1)), np.nan)
    return 1.0 - similarity if output == "distance" else similarity
