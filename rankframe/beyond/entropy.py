"""Entropy@k: Shannon entropy of the distribution of the segment's top-k recommendations over items."""

from __future__ import annotations

import numpy as np

from ..core.declare import Param, k_param
from .declare import LOG_BASE, BeyondSpec, E, like_param
from .lists import Lists

PRESETS = {
    # Microsoft Recommenders distributional_coverage: -sum p log2 p over recommended items
    "recommenders": {"log_base": 2.0, "normalize": "none", "weigh": "rows"},
    # RecBole ShannonEntropy: -sum p ln p / (number of distinct recommended items)
    "recbole": {"log_base": E, "normalize": "items", "weigh": "rows"},
    # Elliot ShannonEntropy (SEntropy): p_i = item i's share of every top-k row, each row weighted 1/|its list|,
    # -sum_i w_i log2 p_i / |lists| (the entropy when every list has the same length)
    "elliot": {"log_base": 2.0, "normalize": "none", "weigh": "lists"},
}

SPEC = BeyondSpec(
    name="entropy",
    canonical="Entropy",
    better_why="recommendations spread over more items, more evenly",
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
        Param(
            "weigh",
            "rows",
            "the weights of -sum_i q_i log p_i: 'rows' = q_i = p_i, each top-k row once (the entropy), 'lists' = "
            "q_i = the mean over the lists of item i's share of the list, each row 1/|its list| (Elliot)",
            choices=("rows", "lists"),
        ),
    ),
    bounded=False,
    level="set",
    presets=PRESETS,
    order=2020,
)


def compute(lists: Lists, *, k, log_base, normalize, weigh, like) -> np.ndarray:
    """One value per segment (per resample of ``lists.weights``); NaN when the segment has no recommended row."""
    top = lists.cut(k)
    counts, seg, _ = top.weighted_counts()
    total = lists.by_segment(counts, seg)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts / total[:, seg]
        q = p
        if weigh == "lists":  # each list weighs 1: its rows 1/|list| each, summed per item, / the lists
            unit, count, column, _, _ = top.item_columns()
            length = np.bincount(top.unit, minlength=top.n_units).astype(np.float64)
            shares = top.weigh("list_shares", unit, column, count / length[unit], len(seg))
            q = shares / lists.by_segment(shares, seg)[:, seg]
        terms = np.where(counts > 0, -q * np.log(np.where(counts > 0, p, 1.0)), 0.0)
    h = lists.by_segment(terms, seg) / np.log(log_base)
    if normalize == "items":
        h = h / np.maximum(lists.by_segment(counts > 0, seg), 1)
    return lists.out(np.where(total > 0, h, np.nan))


def portable(b, i, *, k, log_base, normalize, weigh, like):
    """Entropy in the portable SQL (rankframe.warehouse.beyond's builder ``b``): the CTE of its segment rows."""
    shares = f"rf__bentropy{i}"
    total = f"SUM(rf__c) OVER (PARTITION BY {b.g})"
    if weigh == "lists":  # Elliot: q_i = sum of 1 / |list| over item i's top-k rows, / the lists
        unit = ", ".join([*b.grp, "rf__q"])
        lengths, p = f"rf__bentlen{i}", f"rf__bentw{i}"
        b.ctes[lengths] = (
            f"SELECT {unit}, rf__item, rf__pos, COUNT(CASE WHEN {b.top(k)} THEN 1 END) OVER (PARTITION BY {unit}) "
            "AS rf__len FROM rf__bpos"
        )
        b.ctes[p] = (
            f"SELECT {b.g}, rf__item, COUNT(CASE WHEN {b.top(k)} THEN 1 END) AS rf__c, "
            f"SUM(CASE WHEN {b.top(k)} THEN 1 / {b.f('rf__len')} END) AS rf__w FROM {lengths} "
            f"GROUP BY {b.g}, rf__item"
        )
        weight = b.ratio("rf__w", f"SUM(rf__w) OVER (PARTITION BY {b.g})")
    else:
        p = b.pairs(k, None)
        weight = b.ratio("rf__c", total)  # = rf__p (a column alias is not visible in its own SELECT list)
    b.ctes[shares] = f"SELECT {b.g}, rf__c, {b.ratio('rf__c', total)} AS rf__p, {weight} AS rf__wq FROM {p}"
    h = f"SUM(a0) / LN({b.num(log_base)})"
    if normalize == "items":
        h = f"{h} / SUM(a2)"
    value = f"CASE WHEN COALESCE(SUM(a1), 0) = 0 THEN {b.null()} ELSE {h} END"
    term = "CASE WHEN rf__c > 0 THEN -rf__wq * LN(CASE WHEN rf__p > 0 THEN rf__p ELSE 1 END) END"
    flag = "CASE WHEN rf__c > 0 THEN 1 ELSE 0 END"
    return b.segment_rows(f"rf__bm{i}", [b.contribution(shares, term, "rf__c", flag)], 3, value)
