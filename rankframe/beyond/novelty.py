"""Novelty@k: the mean self-information -log p(i) of the items of each top k, p from train= (Vargas & Castells)."""

from __future__ import annotations

import numpy as np

from ..declare import Param, k_param
from ..errors import ParameterError
from .declare import AGGREGATE, LOG_BASE, POPULARITY, BeyondSpec, like_param
from .lists import Lists

PRESETS = {
    # Microsoft Recommenders novelty: -log2(count(i) / |train rows|), items absent from train add 0 but their rows
    # count in the denominator (an inner merge over item counts, divided by every recommendation row)
    "recommenders": {
        "popularity": "interactions",
        "model": "choice",
        "log_base": 2.0,
        "cold": "zero",
        "list_denominator": "present",
        "aggregate": "rows",
    },
}

SPEC = BeyondSpec(
    name="novelty",
    canonical="Novelty",
    aliases=("self_information", "surprisal_novelty"),
    summary="mean self-information -log p(i) of the items of each top k (p from train=), averaged over lists",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        POPULARITY,
        Param(
            "model",
            "discovery",
            "p(i) = popularity / |queries of train| ('discovery': the chance a user has seen i, Vargas & Castells) "
            "or popularity / the sum of all items' popularity ('choice': the chance a seen item is i; Microsoft "
            "Recommenders with popularity='interactions')",
            choices=("discovery", "choice"),
        ),
        LOG_BASE,
        Param(
            "cold",
            "drop",
            "an item with popularity 0 (no row in train=, or only weight 0): 'drop' = left out of the list (its "
            "self-information is infinite), 'zero' = novelty 0, counted in the denominator (Microsoft Recommenders)",
            choices=("drop", "zero"),
        ),
        Param(
            "list_denominator",
            "present",
            "divide a list's sum by 'present' = its rows counted, or 'k' = the cutoff (a list shorter than k "
            "scores less; needs @k)",
            choices=("present", "k"),
        ),
        AGGREGATE,
    ),
    bounded=False,
    level="list",
    needs=("train",),
    presets=PRESETS,
    order=2120,
)


def check_rules(*, k: int | None, list_denominator: str, aggregate: str, **_: object) -> None:
    """The rules between the options (every face calls it before computing): 'k' needs a cutoff and lists."""
    if list_denominator == "k" and k is None:
        raise ParameterError("Novelty(list_denominator='k') divides by the cutoff: give one, e.g. Novelty@10")
    if list_denominator == "k" and aggregate == "rows":
        raise ParameterError("Novelty(list_denominator='k') divides each list by k; aggregate='rows' has no lists")


def compute(lists: Lists, *, k, popularity, model, log_base, cold, list_denominator, aggregate, like) -> np.ndarray:
    """One value per list (per segment with aggregate='rows'); NaN without counted rows."""
    check_rules(k=k, list_denominator=list_denominator, aggregate=aggregate)
    top = lists.cut(k)
    train = top.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    pop = train.popularity(popularity)
    z = train.n_users if model == "discovery" else pop.sum()
    warm = pop > 0
    info = np.zeros(len(pop))
    info[warm] = -np.log(pop[warm] / z) / np.log(log_base)
    counted = None if cold == "zero" else warm[top.item]
    mean = top.mean(info[top.item], counted, aggregate)
    if list_denominator == "present":
        return mean
    rows = np.bincount(top.unit if counted is None else top.unit[counted], minlength=top.n_units)
    return np.where(rows > 0, mean * rows / k, np.nan)
