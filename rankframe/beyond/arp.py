"""ARP@k: average recommendation popularity, the mean popularity (in train=) of the items of each top k."""

from __future__ import annotations

import numpy as np

from ..declare import Param, k_param
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
    "recbole": {"popularity": "interactions", "cold": "zero", "aggregate": "per_list"},
}

SPEC = BeyondSpec(
    name="arp",
    canonical="ARP",
    aliases=("average_popularity", "averagepopularity", "avg_pop"),
    summary="mean popularity in train= of the items of each top k, averaged over lists",
    params=(k_param(), like_param(tuple(PRESETS)), POPULARITY, COLD, AGGREGATE),
    bounded=False,
    level="list",
    needs=("train",),
    presets=PRESETS,
    order=2100,
)


def compute(lists: Lists, *, k, popularity, cold, aggregate, like) -> np.ndarray:
    """One value per list (per segment with aggregate='rows'): sum of popularity / rows counted; NaN without rows."""
    top = lists.cut(k)
    train = top.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    pop = train.popularity(popularity)[top.item]
    return top.mean(pop, None if cold == "zero" else train.known[top.item], aggregate)
