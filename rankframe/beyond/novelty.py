"""Novelty@k: the mean self-information -log p(i) of the items of each top k, p from train= (Vargas & Castells)."""

from __future__ import annotations

import numpy as np

from ..core.declare import Param, k_param
from ..core.errors import ParameterError
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
        "scale": "none",
    },
    # Evidently NoveltyMetric (MIUF): -log2(users(i) / |train users|), an item absent from train left out (NaN
    # dropped; a user with only such items out of the mean), the mean of each top k, then over users
    "evidently": {
        "popularity": "users",
        "model": "discovery",
        "log_base": 2.0,
        "cold": "drop",
        "list_denominator": "present",
        "aggregate": "per_list",
        "scale": "none",
    },
    # RecTools MeanInvUserFreq: -log2(users(i) / |train users|), a cold item "consumed by a single user" (fillna(1)),
    # the mean of each top k's rows, then over users
    "rectools": {
        "popularity": "users",
        "model": "discovery",
        "log_base": 2.0,
        "cold": "one",
        "list_denominator": "present",
        "aggregate": "per_list",
        "scale": "none",
    },
    # RePlay Surprisal: log2(|train users| / users(i)) / log2(|train users|), a cold item 1 (rated by one user),
    # summed over the top k and divided by k, then the mean over the recommendations' users
    "replay": {
        "popularity": "users",
        "model": "discovery",
        "log_base": 2.0,
        "cold": "one",
        "list_denominator": "k",
        "aggregate": "per_list",
        "scale": "log_users",
    },
}

SPEC = BeyondSpec(
    name="novelty",
    canonical="Novelty",
    better_why="less popular, more surprising items (self-information)",
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
            "self-information is infinite), 'zero' = novelty 0, counted in the denominator (Microsoft Recommenders), "
            "'one' = popularity 1, as if one train query had seen it (RecTools, RePlay)",
            choices=("drop", "zero", "one"),
        ),
        Param(
            "list_denominator",
            "present",
            "divide a list's sum by 'present' = its rows counted, or 'k' = the cutoff (a list shorter than k "
            "scores less; needs @k)",
            choices=("present", "k"),
        ),
        AGGREGATE,
        Param(
            "scale",
            "none",
            "divide the self-information by: 'none' = nothing, 'log_users' = log_b |queries of train|, the "
            "self-information of an item one query saw (RePlay's Surprisal: 1 = the rarest; model='discovery' only; "
            "with one train query nothing is divided)",
            choices=("none", "log_users"),
        ),
    ),
    bounded=False,
    level="list",
    needs=("train",),
    presets=PRESETS,
    order=2120,
)


def check_rules(
    *, k: int | None, list_denominator: str, aggregate: str, scale: str = "none", model: str = "discovery", **_: object
) -> None:
    """The rules between the options (every face calls it before computing): 'k' needs a cutoff and lists."""
    if scale == "log_users" and model != "discovery":
        raise ParameterError(
            "Novelty(scale='log_users') divides by log |queries of train|: it needs model='discovery'",
            owner="Novelty",
            parameter="scale",
        )
    if list_denominator == "k" and k is None:
        raise ParameterError(
            "Novelty(list_denominator='k') divides by the cutoff: give one, e.g. Novelty@10",
            owner="Novelty",
            parameter="list_denominator",
        )
    if list_denominator == "k" and aggregate == "rows":
        raise ParameterError(
            "Novelty(list_denominator='k') divides each list by k; aggregate='rows' has no lists",
            owner="Novelty",
            parameter="list_denominator",
        )


def compute(
    lists: Lists, *, k, popularity, model, log_base, cold, list_denominator, aggregate, scale, like
) -> np.ndarray:
    """One value per list (per segment with aggregate='rows'); NaN without counted rows."""
    check_rules(k=k, list_denominator=list_denominator, aggregate=aggregate, scale=scale, model=model)
    top = lists.cut(k)
    train = top.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    pop = train.popularity(popularity)
    z = train.n_users if model == "discovery" else pop.sum()
    if cold == "one":  # a popularity-0 item as if one train query had seen it
        pop = np.where(pop > 0, pop, 1.0)
    warm = pop > 0
    info = np.zeros(len(pop))
    if z > 0:
        info[warm] = -np.log(pop[warm] / z) / np.log(log_base)
    else:  # an empty train=: no history to be novel against, for any item (issue 33): undefined, not -inf
        info[:] = np.nan
    if scale == "log_users" and train.n_users > 1:  # one train query: log 1 = 0, nothing is divided
        info = info / (np.log(train.n_users) / np.log(log_base))
    counted = None if cold in ("zero", "one") else warm[top.item]
    mean = top.mean(info[top.item], counted, aggregate)
    if list_denominator == "present":
        return mean
    rows = np.bincount(top.unit if counted is None else top.unit[counted], minlength=top.n_units)
    return np.where(rows > 0, mean * rows / k, np.nan)


def portable(b, i, *, k, popularity, model, log_base, cold, list_denominator, aggregate, scale, like):
    """Novelty's row terms in the portable SQL (rankframe.warehouse.beyond's builder ``b``): (value, counted 1/0).

    Of a top-k row joined to train's items ``t`` (NULL columns: a cold item) and train's totals ``z``; the builder
    takes the lists' means (``list_denominator='k'``: / k).
    """
    check_rules(k=k, list_denominator=list_denominator, aggregate=aggregate, scale=scale, model=model)
    z = b.f("z.rf__nu") if model == "discovery" else f"z.rf__psum_{popularity}"
    warm = "COALESCE(t.rf__pop, 0) > 0"
    base = b.num(log_base)
    if cold == "one":  # popularity 1 for an item of popularity 0
        info = f"-LN(CASE WHEN {warm} THEN t.rf__pop ELSE 1 END / {z}) / LN({base})"
    else:
        p = f"CASE WHEN {warm} THEN t.rf__pop / {z} ELSE 1 END"
        info = f"CASE WHEN {warm} THEN -LN({p}) / LN({base}) ELSE 0 END"
    # no popularity in all of train= (empty, or every weight 0): nothing to be novel against, undefined (NULL; compute
    # above), never a division by zero
    info = f"CASE WHEN {z} > 0 THEN {info} END"
    if scale == "log_users":  # / log |queries of train| (nothing with one query)
        info = f"{info} / CASE WHEN z.rf__nu > 1 THEN LN({b.f('z.rf__nu')}) / LN({base}) ELSE 1 END"
    counted = "1" if cold in ("zero", "one") else f"CASE WHEN {warm} THEN 1 ELSE 0 END"
    return info, counted
