"""ARP@k: average recommendation popularity, the mean popularity (in train=) of the items of each top k."""

from __future__ import annotations

import numpy as np

from ..core.declare import Param, k_param
from .declare import AGGREGATE, POPULARITY, BeyondSpec, like_param
from .lists import Lists

COLD = Param(
    "cold",
    "zero",
    "an item without a row in train=: 'zero' = popularity 0, counted in the list's denominator (RecBole), 'drop' "
    "= left out of the list (a list of cold items only has no value)",
    choices=("zero", "drop"),
)
PRESETS = {
    # RecBole AveragePopularity: item_counter (train interactions, 0 when absent) summed over the top k / k present
    "recbole": {"popularity": "interactions", "cold": "zero", "aggregate": "per_list", "popularity_norm": "none"},
    # RecTools AvgRecPopularity: value_counts of train's items (rows; normalize=True: / every row), 0 when absent
    # (fillna), the mean of each top k, then over users
    "rectools": {"popularity": "interactions", "cold": "zero", "aggregate": "per_list", "popularity_norm": "none"},
    # Evidently PopularityBias apr: nunique users per train item; an item absent from train is left out of the list
    # (map -> NaN -> dropped, and a user with only such items out of the mean); normalize_arp: / the largest
    "evidently": {"popularity": "users", "cold": "drop", "aggregate": "per_list", "popularity_norm": "none"},
    # Elliot ARP: pop_items (the users of each train item) summed over the top k / its length, per user
    "elliot": {"popularity": "users", "cold": "zero", "aggregate": "per_list", "popularity_norm": "none"},
    # LensKit MeanPopRank: the quantile of each item's popularity rank (users; average ranks among the items of
    # positive popularity / their number; 0 without one, 0 when absent), the mean of each top k
    "lenskit": {"popularity": "users", "cold": "zero", "aggregate": "per_list", "popularity_norm": "rank"},
}
POPULARITY_NORM = Param(
    "popularity_norm",
    "none",
    "divide each popularity by: 'none' = nothing, 'total' = the sum over train's items (RecTools' normalize=True: "
    "the share of train's interactions), 'max' = the largest (Evidently's normalize_arp), 'rank' = replace it by its "
    "rank quantile: its average rank from the least popular among the items of positive popularity / their number "
    "(0 for popularity 0; LensKit's MeanPopRank)",
    choices=("none", "total", "max", "rank"),
)

SPEC = BeyondSpec(
    name="arp",
    canonical="ARP",
    better="lower",
    better_why="popularity bias: a lower mean popularity recommends beyond the head (Abdollahpouri et al.)",
    aliases=("average_popularity", "averagepopularity", "avg_pop"),
    summary="mean popularity in train= of the items of each top k, averaged over lists",
    params=(k_param(), like_param(tuple(PRESETS)), POPULARITY, COLD, AGGREGATE, POPULARITY_NORM),
    bounded=False,
    level="list",
    needs=("train",),
    presets=PRESETS,
    order=2100,
)


def compute(lists: Lists, *, k, popularity, cold, aggregate, popularity_norm, like) -> np.ndarray:
    """One value per list (per segment with aggregate='rows'): sum of popularity / rows counted; NaN without rows."""
    top = lists.cut(k)
    train = top.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    pop = train.popularity(popularity)
    if popularity_norm == "rank":
        positive = pop > 0
        ranks = np.zeros_like(pop)
        from scipy.stats import rankdata  # imported here: scipy.stats costs ~1 s at import

        ranks[positive] = rankdata(pop[positive], method="average") / max(int(positive.sum()), 1)
        pop = ranks
    elif popularity_norm != "none":
        norm = pop.sum() if popularity_norm == "total" else pop.max(initial=0.0)
        pop = pop / norm if norm > 0 else np.zeros_like(pop)
    pop = pop[top.item]
    return top.mean(pop, None if cold == "zero" else train.known[top.item], aggregate)


def portable(b, i, *, k, popularity, cold, aggregate, popularity_norm, like):
    """ARP's row terms in the portable SQL (rankframe.warehouse.beyond's builder ``b``): (value, counted 1/0).

    Of a top-k row joined to train's items ``t`` (NULL columns: a cold item); the builder takes the lists' means.
    """
    counted = "1" if cold == "zero" else "CASE WHEN t.rf__titem IS NOT NULL THEN 1 ELSE 0 END"
    if popularity_norm == "rank":
        return "COALESCE(t.rf__prank, 0)", counted
    norm = {"none": None, "total": "t.rf__psum", "max": "t.rf__pmax"}[popularity_norm]
    if norm is None:
        return "COALESCE(t.rf__pop, 0)", counted
    return f"CASE WHEN {norm} > 0 THEN t.rf__pop / {norm} ELSE 0 END", counted
