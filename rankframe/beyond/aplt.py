"""APLT@k: average percentage of long-tail items, the share of each top k that are tail items of train=."""

from __future__ import annotations

import numpy as np

from ..core.declare import Param, k_param
from .declare import AGGREGATE, POPULARITY, BeyondSpec, like_param
from .lists import Lists, Train

PRESETS = {
    # RecBole TailPercentage (tail_ratio=0.1 <= 1): the int(0.1 * |train items|) (at least 1) least popular train
    # items, ties by item id; an item absent from item_counter is not a tail item
    "recbole": {
        "popularity": "interactions",
        "tail_rule": "bottom",
        "tail": 0.1,
        "cold": "not_tail",
        "aggregate": "per_list",
    },
    # Elliot APLT (elliot/evaluation/popularity_utils/popularity.py, pop_ratio 0.8): the long tail is every train
    # item outside the short head, the most popular items (users) taken until they hold 80% of the interactions;
    # an item absent from train is not in it
    "elliot": {
        "popularity": "users",
        "tail_rule": "pareto",
        "tail": 0.8,
        "cold": "not_tail",
        "aggregate": "per_list",
    },
}

SPEC = BeyondSpec(
    name="aplt",
    canonical="APLT",
    better_why="more long-tail items: less popularity bias (Abdollahpouri et al.)",
    aliases=("tail_percentage", "tailpercentage", "long_tail_share"),
    summary="share of the top k that are long-tail items of train=, averaged over lists",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        POPULARITY,
        Param(
            "tail_rule",
            "bottom",
            "which train items are the tail: 'bottom' = the int(tail * |train items|) (at least 1) least popular, "
            "ties by item id (RecBole's tail_ratio <= 1), 'count' = popularity <= tail (RecBole's tail_ratio > 1), "
            "'pareto' = the items outside the short head, the most popular items (ties by item id) taken while "
            "the popularity before them is below tail * the total (Elliot's pop_ratio)",
            choices=("bottom", "count", "pareto"),
        ),
        Param(
            "tail",
            0.8,
            "the share of train items in the tail ('bottom': 0.8 = all but the most popular 20%), the "
            "popularity threshold ('count') or the short head's share of the total popularity ('pareto')",
            kind="nonnegative",
        ),
        Param(
            "cold",
            "tail",
            "an item without a row in train=: 'tail' = a tail item, 'not_tail' = not one (RecBole), 'drop' = left "
            "out of the list",
            choices=("tail", "not_tail", "drop"),
        ),
        AGGREGATE,
    ),
    level="list",
    needs=("train",),
    presets=PRESETS,
    order=2110,
)


def tail_items(train: Train, popularity: str, tail_rule: str, tail: float) -> np.ndarray:
    """Bool per item code: a tail item of train (never a cold item: the ``cold`` option decides those)."""
    pop = train.popularity(popularity)
    if tail_rule == "count":
        return train.known & (pop <= tail)
    known = np.flatnonzero(train.known)
    if tail_rule == "pareto":  # the short head: most popular first (ties by id) while the sum before is < the limit
        ranked = known[np.lexsort((train.order[known], -pop[known]))]
        before = np.cumsum(pop[ranked]) - pop[ranked]
        out = np.zeros(len(pop), dtype=bool)
        out[ranked[before >= tail * pop[known].sum()]] = True
        return out
    cut = max(int(len(known) * tail), 1)
    bottom = known[np.lexsort((train.order[known], pop[known]))[:cut]]
    out = np.zeros(len(pop), dtype=bool)
    out[bottom] = True
    return out


def compute(lists: Lists, *, k, popularity, tail_rule, tail, cold, aggregate, like) -> np.ndarray:
    """One value per list: tail rows / rows counted; NaN for a list without counted rows."""
    top = lists.cut(k)
    train = top.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    is_tail = tail_items(train, popularity, tail_rule, tail)
    if cold == "tail":
        is_tail = is_tail | ~train.known
    known = train.known[top.item]
    return top.mean(is_tail[top.item].astype(np.float64), known if cold == "drop" else None, aggregate)


def portable(b, i, *, k, popularity, tail_rule, tail, cold, aggregate, like):
    """APLT's row terms in the portable SQL (rankframe.warehouse.beyond's builder ``b``): (value, counted 1/0).

    Of a top-k row joined to train's items ``t`` (NULL columns: a cold item); the builder takes the lists' means.
    """
    if tail_rule == "count":
        is_tail = f"t.rf__pop <= {b.num(tail)}"
    elif tail_rule == "pareto":  # outside the short head: the popularity before it reaches the limit
        is_tail = f"t.rf__before >= {b.num(tail)} * t.rf__psum"
    else:  # the int(tail * |train items|) (at least 1) least popular, ties by item
        is_tail = f"t.rf__low <= GREATEST(FLOOR({b.f('t.rf__nk')} * {b.num(tail)}), 1)"
    value = f"CASE WHEN t.rf__titem IS NULL THEN {'1' if cold == 'tail' else '0'} WHEN {is_tail} THEN 1 ELSE 0 END"
    counted = "CASE WHEN t.rf__titem IS NOT NULL THEN 1 ELSE 0 END" if cold == "drop" else "1"
    return value, counted
