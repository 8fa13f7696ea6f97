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

from ..core.declare import Param, k_param
from ..core.errors import ParameterError
from .declare import BeyondSpec, like_param
from .lists import Lists

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
    better_when=(("output", "similarity", "lower"),),
    better_why="lists that differ between queries; output='similarity' reports their overlap, lower is better",
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
    unbounded_when=(("norm", "k"),),  # Evidently divides each overlap by k: above 1 on lists shorter than k
    presets=PRESETS,
    order=2030,
)


def check_rules(*, k: int | None, norm: str, **_: object) -> None:
    """The rules between the options (every face calls it): norm='k' divides by the cutoff."""
    if norm == "k" and k is None:
        raise ParameterError(
            "Personalization(norm='k') divides each overlap by the cutoff: give one, e.g. @10",
            owner="Personalization",
            parameter="norm",
        )


def compute(lists: Lists, *, k, output, norm, like) -> np.ndarray:
    """One value per segment (per resample of ``lists.weights``); NaN with fewer than two lists with a top-k row.

    With multiplicities w_u (a list drawn twice is two lists: its copies form a pair of similarity 1), S_i and Q_i
    are the weighted sums ``sum_u w_u / sqrt(|A_u|)`` and ``sum_u w_u / |A_u|``, and n = sum_u w_u.
    """
    check_rules(k=k, norm=norm)
    top = lists.cut(k)
    unit, _, column, seg, _ = top.item_columns()  # each (list, item) pair once
    size = np.bincount(unit, minlength=top.n_units)
    weight = 1.0 / np.sqrt(size[unit])
    s = top.weigh("personalization_s", unit, column, weight, len(seg))  # S_i per (segment, item)
    q = top.weigh("personalization_q", unit, column, weight * weight, len(seg))  # sum of w_u² per (segment, item)
    # 2 x the pairs' sum; S_i² - Q_i per item (not sum S_i² - n): exactly 0 for an item of one list, no cancellation
    twice = top.by_segment(s * s - q, seg)
    listed = np.flatnonzero(size > 0)
    n = top.weigh("personalization_n", listed, top.unit_segment[listed], np.ones(len(listed)), top.n_segments)
    if norm == "k":  # sum_i c_i² - n k over k n (n - 1), c_i = the (weighted) lists recommending item i
        c = top.weigh("personalization_c", unit, column, np.ones(len(unit)), len(seg))
        twice = (top.by_segment(c * c, seg) - n * k) / k
    with np.errstate(invalid="ignore", divide="ignore"):
        similarity = np.where(n >= 2, twice / (n * (n - 1)), np.nan)
    return lists.out(1.0 - similarity if output == "distance" else similarity)


def portable(b, i, *, k, output, norm, like):
    """Personalization in the portable SQL (rankframe.warehouse.beyond's builder ``b``): its segment rows' CTE."""
    check_rules(k=k, norm=norm)
    unit = ", ".join([*b.grp, "rf__q"])
    sets, items = f"rf__bpsets{i}", f"rf__bpitems{i}"
    # each (list, item) of a top k once, w = 1 / sqrt(the list's number of items)
    b.ctes[sets] = (
        f"SELECT {unit}, rf__item, 1 / SQRT({b.f(f'COUNT(*) OVER (PARTITION BY {unit})')}) AS rf__w "
        f"FROM (SELECT DISTINCT {unit}, rf__item FROM rf__bpos WHERE {b.top(k)}) AS d"
    )
    # per item: S = sum of w, Q = sum of w^2; the pairs' sum is sum_i (S^2 - Q) / 2 (compute above)
    b.ctes[items] = (
        f"SELECT {b.g}, SUM(rf__w) AS rf__s, SUM(rf__w * rf__w) AS rf__sq, {b.f('COUNT(*)')} AS rf__cnt "
        f"FROM {sets} "
        f"GROUP BY {b.g}, rf__item"
    )
    lists = f"(SELECT DISTINCT {unit} FROM {sets}) AS l"
    n = "COALESCE(SUM(a1), 0)"
    similarity = f"SUM(a0) / ({n} * ({n} - 1))"
    pair = "rf__s * rf__s - rf__sq"
    if norm == "k":  # Evidently: (sum_i c_i² - n k) / (k n (n - 1))
        pair = "rf__cnt * rf__cnt"
        similarity = f"(SUM(a0) - {n} * {b.num(k)}) / ({b.num(k)} * {n} * ({n} - 1))"
    value = similarity if output == "similarity" else f"1 - {similarity}"
    return b.segment_rows(
        f"rf__bm{i}",
        [b.contribution(items, pair, "NULL"), b.contribution(lists, "NULL", "1")],
        2,
        f"CASE WHEN {n} < 2 THEN {b.null()} ELSE {value} END",
    )
