"""Calibration@k: how far each top k's genre distribution is from its query's history (Steck 2018, miscalibration).

With p(g|i) = an item's ``features=`` value on genre g over the sum of its values (Steck's share of a genre), the
history's distribution is p(g|u) = sum_{i in H_u} w_ui p(g|i) / sum w_ui (H_u = the query's rows of ``train=``,
w_ui their ``weight``) and the list's q(g|u) = sum_{i in L} w_r(i) p(g|i) / sum w_r(i) (``rank_weight``: 1,
1 / rank or 1 / log2(rank + 1)). The value is a divergence of the two after smoothing: Steck's
KL(p || q~) with q~ = (1 - alpha) q + alpha p (``divergence='kl'``, ``smooth='q'``, ``direction='history_list'``),
or the Jensen-Shannon distance (``'js'``: the square root of the JS divergence, scipy's ``jensenshannon``), both in
base ``log_base``. 0 = the list has the history's proportions.

Never built per user: the history is one GROUP BY (query, genre) of train= x features=, the lists one GROUP BY
(list, genre) of the top-k rows x features=; the divergence sums over the union of the two (list, genre) cells.
O(rows x genres per item) time and memory.

Items without a positive share (no ``features=`` row, or values summing to 0) have no genre distribution and are
left out of both sides. A list whose query has no history with a known item, or without a known top-k item: NaN.
KL is infinite when the first distribution has a genre the second has not (``alpha=0``, or ``smooth='q'`` with
``direction='list_history'``): the value is ``inf``, as scipy's ``entropy``.

Examples
--------
>>> import pandas as pd
>>> import rankframe
>>> recs = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
>>> train = pd.DataFrame({"query": [1, 1], "item": ["a", "b"]})
>>> features = pd.DataFrame({"item": ["a", "b"], "feature": ["x", "y"]})
>>> rankframe.evaluate(recs, "Calibration@2", train=train, features=features)["value"].tolist()  # 1/2, 1/2 both
[0.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.declare import Param, k_param
from ..core.errors import ParameterError
from .declare import LOG_BASE, BeyondSpec, like_param
from .lists import Lists, gather

PRESETS = {
    # Informfully's Calibration (Informfully/Recommenders cornac/metrics/diversity.py, data_type='category'):
    # compute_divergence(freq_rec, freq_history) mixes alpha=0.001 of each distribution into the other, then
    # scipy entropy(history, list, base=2), or JSD (the square root of the JS divergence, base 2); discount=False
    "informfully": {
        "divergence": "kl",
        "direction": "history_list",
        "alpha": 0.001,
        "smooth": "both",
        "rank_weight": "none",
        "log_base": 2.0,
    },
}

SPEC = BeyondSpec(
    name="calibration",
    canonical="Calibration",
    better="lower",
    better_why="miscalibration: a divergence from the query's history, 0 when calibrated (Steck)",
    aliases=("miscalibration", "genre_calibration"),
    summary="divergence of each top k's genre distribution (features=) from its query's history (train=)",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        Param(
            "divergence",
            "kl",
            "'kl' = Kullback-Leibler divergence (Steck's miscalibration C_KL), 'js' = the Jensen-Shannon distance "
            "(the square root of the JS divergence, as scipy's jensenshannon and Informfully; in [0, 1] in base 2)",
            choices=("kl", "js"),
        ),
        Param(
            "direction",
            "history_list",
            "'history_list' = D(history || list) (Steck), 'list_history' = D(list || history) (the JS distance is "
            "symmetric)",
            choices=("history_list", "list_history"),
        ),
        Param(
            "alpha",
            0.01,
            "smoothing weight: alpha of the other distribution mixed in before the divergence (Steck's 0.01; 0 = "
            "none: KL is then infinite when a genre of the first distribution is missing from the second)",
            kind="unit",
        ),
        Param(
            "smooth",
            "q",
            "'q' = only the list's distribution is smoothed, q~ = (1 - alpha) q + alpha p (Steck), 'both' = each "
            "takes alpha of the other (Informfully)",
            choices=("q", "both"),
        ),
        Param(
            "rank_weight",
            "none",
            "weight of a list item by its position r: 'none' = 1 (Steck's experiments), 'reciprocal' = 1 / r "
            "(RADio's rank-aware discount, MRR), 'log' = 1 / log2(r + 1) (nDCG)",
            choices=("none", "reciprocal", "log"),
        ),
        LOG_BASE,
    ),
    bounded=False,
    level="list",
    needs=("train", "features"),
    presets=PRESETS,
    order=2150,
    lists_macro="rf__calibration_lists",
    history=True,
)


def check_shares(values: np.ndarray) -> None:
    """features= values are a genre's share of an item: never negative (every face calls it before computing)."""
    bad = np.flatnonzero(values < 0)
    if len(bad):
        raise ParameterError(
            f"Calibration reads features='s column 'value' as an item's share of each genre: {len(bad)} row(s) are "
            f"negative (rows {bad[:5].tolist()}); give values >= 0",
            owner="Calibration",
            parameter="features",
            got=values[bad[:5]].tolist(),
        )


def position_weight(pos: np.ndarray, rank_weight: str) -> np.ndarray:
    """The weight of a list item at 1-based position ``pos``."""
    pos = pos.astype(np.float64)
    if rank_weight == "reciprocal":
        return 1.0 / pos
    if rank_weight == "log":
        return np.log(2.0) / np.log(pos + 1.0)
    return np.ones(len(pos))


def compute(lists: Lists, *, k, like, divergence, direction, alpha, smooth, rank_weight, log_base) -> np.ndarray:
    """One value per list; NaN without a known history or a known top-k item."""
    train, features, unit_user = lists.train, lists.features, lists.unit_user
    if train is None or features is None or unit_user is None:
        raise RuntimeError("train= and features= were not checked before the kernel")
    check_shares(features.value)
    top = lists.cut(k)
    # p(g|i): each item's values over their sum; an item whose values sum to 0 (or without a row) has no share
    total = np.bincount(features.item, weights=features.value, minlength=lists.n_items)
    known = total > 0
    order = np.argsort(features.item, kind="stable")
    f_item, f_genre = features.item[order], features.feature[order]
    f_share = features.value[order] / np.where(total[f_item] > 0, total[f_item], 1.0)
    counts = np.bincount(f_item, minlength=lists.n_items)
    starts = np.cumsum(counts) - counts
    genres = np.int64(max(features.n_features, 1))

    def cells(owner: np.ndarray, item: np.ndarray, weight: np.ndarray, n_owners: int):
        """(owner, genre, mass) of the weighted shares, and each owner's total weight (known items only)."""
        keep = known[item] & (weight > 0)
        owner, item, weight = owner[keep], item[keep], weight[keep]
        entry, row = gather(starts, counts, item)
        codes, keys = pd.factorize(owner[row] * genres + f_genre[entry], sort=True)
        mass = np.bincount(codes, weights=weight[row] * f_share[entry], minlength=len(keys))
        keys = np.asarray(keys, dtype=np.int64)
        return keys // genres, keys % genres, mass, np.bincount(owner, weights=weight, minlength=n_owners)

    n_users = int(max(unit_user.max(initial=-1), train.row_user.max(initial=-1))) + 1
    h_user, h_genre, h_mass, h_total = cells(train.row_user, train.row_item, train.row_weight, n_users)
    l_unit, l_genre, l_mass, l_total = cells(top.unit, top.item, position_weight(top.pos, rank_weight), top.n_units)
    # the history's cells of each list's query (h_user is sorted: a CSR by user)
    h_counts = np.bincount(h_user, minlength=n_users)
    h_starts = np.cumsum(h_counts) - h_counts
    entry, unit = gather(h_starts, h_counts, unit_user)
    p = h_mass[entry] / h_total[h_user[entry]]
    q = l_mass / l_total[l_unit]
    codes, keys = pd.factorize(np.concatenate([unit * genres + h_genre[entry], l_unit * genres + l_genre]))
    n_p = len(entry)
    pc = np.bincount(codes[:n_p], weights=p, minlength=len(keys))
    qc = np.bincount(codes[n_p:], weights=q, minlength=len(keys))
    cell_unit = np.asarray(keys, dtype=np.int64) // genres
    a = 1.0 - alpha
    ps = a * pc + alpha * qc if smooth == "both" else pc
    qs = a * qc + alpha * pc
    first, second = (ps, qs) if direction == "history_list" else (qs, ps)
    if divergence == "kl":
        terms = _rel_entr(first, second)
        value = np.bincount(cell_unit, weights=terms, minlength=top.n_units) / np.log(log_base)
    else:
        mid = (first + second) / 2
        terms = _rel_entr(first, mid) + _rel_entr(second, mid)
        js = np.bincount(cell_unit, weights=terms, minlength=top.n_units) / np.log(log_base) / 2
        value = np.sqrt(np.maximum(js, 0.0))
    defined = (h_total[unit_user] > 0) & (l_total > 0)
    return np.where(defined, value, np.nan)


def _rel_entr(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Elementwise x log(x / y): 0 where x = 0, inf where x > 0 = y (scipy.special.rel_entr)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > 0, x * np.log(np.where(y > 0, x / np.where(y > 0, y, 1.0), 1.0)), 0.0)
    return np.where((x > 0) & (y <= 0), np.inf, out)


def _portable_shares(b) -> None:
    """rf__bcaltot (the items with a positive total value), rf__bcalshare (p(g|i)), rf__bcalhist (p(g|u))."""
    if "rf__bcalhist" in b.ctes:
        return
    b.vectors("hamming")  # rf__bfeat: the raw features rows
    b.train()
    b.ctes["rf__bcaltot"] = (
        "SELECT rf__fitem, SUM(rf__x) AS rf__t FROM rf__bfeat GROUP BY rf__fitem HAVING SUM(rf__x) > 0"
    )
    b.ctes["rf__bcalshare"] = (
        "SELECT f.rf__fitem, f.rf__dim, f.rf__x / t.rf__t AS rf__s FROM rf__bfeat AS f "
        "JOIN rf__bcaltot AS t ON f.rf__fitem = t.rf__fitem"
    )
    mass = "SUM(h.rf__w * s.rf__s)"
    b.ctes["rf__bcalhist"] = (
        f"SELECT h.rf__tq, s.rf__dim, {mass} / SUM({mass}) OVER (PARTITION BY h.rf__tq) AS rf__hp "
        "FROM rf__btrain AS h JOIN rf__bcalshare AS s ON h.rf__titem = s.rf__fitem WHERE h.rf__w > 0 "
        "GROUP BY h.rf__tq, s.rf__dim"
    )


def portable(b, i, *, k, divergence, direction, alpha, smooth, rank_weight, log_base, like):
    """Calibration in the portable SQL (rankframe.warehouse.beyond's builder ``b``): (per-list CTE, state, raw).

    The per-list CTE holds (unit..., rf__sum, rf__hs, rf__ls): p from the query's history (a join on the query id
    only), q from the list's top-k rows (normalized by a window over the list's genres: no join on segment values),
    the two as a UNION ALL grouped by (list, genre).
    """
    _portable_shares(b)
    f, null = b.f, b.null()
    unit_cols = [*b.grp, "rf__q"]
    unit = ", ".join(unit_cols)
    runit = ", ".join(f"r.{c}" for c in unit_cols)
    weight = {"none": "1", "reciprocal": f"1 / {f('r.rf__pos')}", "log": f"LN(2) / LN({f('r.rf__pos')} + 1)"}
    rows, lq = f"rf__bcalrows{i}", f"rf__bcalq{i}"
    b.ctes[rows] = (
        f"SELECT {runit}, r.rf__item, {f(weight[rank_weight])} AS rf__v FROM rf__bpos AS r "
        f"JOIN rf__bcaltot AS t ON r.rf__item = t.rf__fitem WHERE r.{b.top(k)}"
    )
    mass = "SUM(r.rf__v * s.rf__s)"
    b.ctes[lq] = (
        f"SELECT {runit}, s.rf__dim, {mass} / SUM({mass}) OVER (PARTITION BY {runit}) AS rf__lq "
        f"FROM {rows} AS r JOIN rf__bcalshare AS s ON r.rf__item = s.rf__fitem GROUP BY {runit}, s.rf__dim"
    )
    uunit = ", ".join(f"u.{c}" for c in unit_cols)
    zero = f("0")
    cells = f"rf__bcalcells{i}"
    b.ctes[cells] = (
        f"SELECT {unit}, SUM(rf__hp) AS rf__hp, SUM(rf__lq) AS rf__lq FROM ("
        f"SELECT {uunit}, h.rf__dim, h.rf__hp, {zero} AS rf__lq FROM rf__bunits AS u "
        "JOIN rf__bcalhist AS h ON u.rf__q = h.rf__tq "
        f"UNION ALL SELECT {unit}, rf__dim, {zero}, rf__lq FROM {lq}) AS x GROUP BY {unit}, rf__dim"
    )
    a = b.num(alpha)
    ps = f"(1 - {a}) * rf__hp + {a} * rf__lq" if smooth == "both" else "rf__hp"
    qs = f"(1 - {a}) * rf__lq + {a} * rf__hp"
    first, second = (ps, qs) if direction == "history_list" else (qs, ps)
    pairs = f"rf__bcalpairs{i}"
    b.ctes[pairs] = f"SELECT {unit}, rf__hp, rf__lq, {first} AS rf__a, {second} AS rf__b FROM {cells}"

    def rel(x: str, y: str) -> str:  # x ln(x / y): 0 when x = 0, infinite when x > 0 = y
        return f"CASE WHEN {x} <= 0 THEN 0 WHEN {y} <= 0 THEN {b.infinity()} ELSE {x} * LN({x} / ({y})) END"

    mid = "(rf__a + rf__b) / 2"
    term = rel("rf__a", "rf__b") if divergence == "kl" else f"{rel('rf__a', mid)} + {rel('rf__b', mid)}"
    per = b.per_list(
        i,
        "SUM(rf__t) AS rf__sum, SUM(rf__hp) AS rf__hs, SUM(rf__lq) AS rf__ls",
        [(f"{term} AS rf__t, rf__hp, rf__lq", pairs)],
        f"{null}, {null}, {null}",
    )
    div = f"rf__sum / LN({b.num(log_base)})"
    value = div if divergence == "kl" else f"SQRT(GREATEST({div} / 2, 0))"
    known = "COALESCE(rf__hs, 0) > 0 AND COALESCE(rf__ls, 0) > 0"
    return per, f"CASE WHEN {known} THEN 0 ELSE 2 END", f"CASE WHEN {known} THEN {value} ELSE {null} END"


#: the hook of a face that checks features= before its SQL (the DuckDB engine): the kernel's rule and words
check_features = check_shares
