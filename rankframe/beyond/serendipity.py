"""Serendipity@k: relevant and unexpected — each top-k item's relevance times its unexpectedness, per list.

The one metric of the family that reads ``relevance``. Three forms (``form``), each a peer's definition:

- ``'unexpectedness'`` (Zhang et al. 2012, Auralist; Microsoft Recommenders ``user_serendipity``): the mean over
  the list's counted items i of rel(i) x (1 - s(i)), with s(i) the mean similarity of i to the query's history H
  (its distinct ``train=`` items with a positive weight);
- ``'summed_similarity'`` (Evidently ``SerendipityMetric``): 1 - the sum over the counted items of rel(i) x s(i)
  (summed, not averaged, over the relevant items: Evidently's code);
- ``'popularity'`` (RecTools ``Serendipity``, after Lab41): the mean over the top k of
  rel(i) x max(p(i) - pu(i), 0), p(i) = (N + 1 - position) / N, pu(i) = (N + 1 - the item's dense popularity rank
  in ``train=``) / N (0 for an item without a row), N = |``catalog=``|.

Never pair by pair: s(i) = sum_{h in H} u_i . u_h / |H| = u_i . (sum_{h in H} u_h) / |H|, with u the unit item
vectors of ``rankframe.beyond.similarity``: one GROUP BY (history, dimension) for the sums, one more (list row,
dimension) for the dot products. O((rows + train) x features per item) time and memory. With ``'cooccurrence'``
(a dimension per train query) on pandas: the row's item against each history item, looked up in the Gram matrix
of ``train=`` (rows x |H| look-ups; ``rankframe.beyond.similarity``).

Examples
--------
>>> import pandas as pd
>>> import rankframe
>>> recs = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2], "relevance": [1, 1]})
>>> train = pd.DataFrame({"query": [1, 2, 2], "item": ["c", "a", "c"]})
>>> metric = "Serendipity(similarity='cooccurrence')"
>>> rankframe.evaluate(recs, metric, train=train)["value"].round(4).tolist()  # a: 1 - 1/sqrt(2); b: 1
[0.6464]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.declare import Param, k_param, rel_param
from .declare import POPULARITY, BeyondSpec, like_param
from .lists import Lists, count_distinct, gather
from .similarity import chunks, cooccurrence, item_vectors, known_items

#: the similarities a form of unexpectedness reads (ILD's, without Hamming: a count, not a similarity)
SIMILARITIES = ("cosine", "cooccurrence")

PRESETS: dict[str, dict[str, Any]] = {
    # Microsoft Recommenders serendipity / user_serendipity / user_item_serendipity
    # (recommenders/evaluation/python_evaluation.py): (1 - the mean similarity of the item to the user's train
    # items) x the relevance column as it is, averaged over the user's recommendations, then over the users with a
    # history; item_sim_measure='item_cooccurrence_count' (its item_feature_vector: add similarity='cosine'); a pair
    # without a similarity counts 0
    "recommenders": {
        "form": "unexpectedness",
        "similarity": "cooccurrence",
        "relevance": "grade",
        "unknown": "zero",
        "no_relevant_item": "zero",
    },
    # Evidently SerendipityMetric (src/evidently/legacy/metrics/recsys/serendipity.py): for the users with a
    # relevant top-k item and a train row, 1 - sum over the relevant top-k items j of (sum over the train items h
    # of the cosine of the feature vectors) / |train items|
    "evidently": {
        "form": "summed_similarity",
        "similarity": "cosine",
        "relevance": "binary",
        "rel": 1,
        "unknown": "zero",
        "no_relevant_item": "skip",
    },
    # RecTools Serendipity (rectools/metrics/serendipity.py): max(p(rank) - p(popularity rank), 0) x relevant,
    # the mean over the top k rows; popularity = prev_interactions' value_counts, dense-ranked; cold items pu = 0
    "rectools": {
        "form": "popularity",
        "popularity": "interactions",
        "relevance": "binary",
        "rel": 1,
        "similarity": "cooccurrence",
        "no_relevant_item": "zero",
    },
}

SPEC = BeyondSpec(
    name="serendipity",
    canonical="Serendipity",
    better_why="relevant and unexpected (every form: 1 - a similarity, or a popularity gap)",
    aliases=("user_serendipity", "serendipity_metric"),
    summary="relevance x unexpectedness of the items of each top k (history from train=), averaged over lists",
    params=(
        k_param(),
        like_param(tuple(PRESETS)),
        Param(
            "form",
            "unexpectedness",
            "'unexpectedness' = the mean over the list of rel(i) * (1 - the mean similarity of i to the query's "
            "train= items) (Zhang et al.'s Auralist, Microsoft Recommenders), 'summed_similarity' = 1 - the sum over "
            "the list of rel(i) * that mean similarity (Evidently), 'popularity' = the mean over the list of "
            "rel(i) * max(p(position) - p(popularity rank), 0) with N = |catalog=| (RecTools)",
            choices=("unexpectedness", "summed_similarity", "popularity"),
        ),
        Param(
            "similarity",
            "cosine",
            "of an item to the history: 'cosine' = of their features= vectors (Evidently; Microsoft Recommenders' "
            "item_feature_vector; linear in rows), 'cooccurrence' = the cosine of the items' train= query sets "
            "(Auralist, Microsoft Recommenders' default; look-ups in train='s co-occurrence counts, rows x "
            "|history|, on every face but the portable SQL; within rankframe.beyond.similarity.COOCCURRENCE_BUDGET); "
            "not read by form='popularity'",
            choices=SIMILARITIES,
        ),
        Param(
            "relevance",
            "binary",
            "rel(i): 'binary' = 1 when the grade >= rel, else 0 (Evidently, RecTools), 'grade' = the grade itself "
            "(Microsoft Recommenders); an unjudged row (null grade) is 0",
            choices=("binary", "grade"),
        ),
        rel_param(1),
        Param(
            "unknown",
            "zero",
            "an item without a row in the input its similarity reads: 'zero' = the zero vector (similarity 0 with "
            "every item: fully unexpected; Microsoft Recommenders), 'drop' = left out of the list and of the "
            "history; not read by form='popularity'",
            choices=("zero", "drop"),
        ),
        Param(
            "no_relevant_item",
            "zero",
            "a list whose counted top k holds no item with rel(i) > 0: 'zero' = its value (0 for 'unexpectedness' "
            "and 'popularity'; 1 for 'summed_similarity'), 'skip' = no value, left out of the mean (Evidently)",
            choices=("zero", "skip"),
        ),
        POPULARITY,
    ),
    bounded=False,
    level="list",
    needs=("train",),
    needs_when=(("similarity", "cosine", "features"), ("form", "popularity", "catalog")),
    needs_unless=(("features", "form", "popularity"),),
    presets=PRESETS,
    order=2140,
    lists_macro="rf__serendipity_lists",
    reads_relevance=True,
    history=True,
)


def check_rules(*, form: str, similarity: str, **_: object) -> None:
    """The rules between the options (every face calls it): none yet (form='popularity' ignores ``similarity``)."""


def compute(lists: Lists, *, k, like, form, similarity, relevance, rel, unknown, no_relevant_item, popularity):
    """One value per list (NaN: no counted row, no history for a similarity form, or no relevant item with 'skip')."""
    check_rules(form=form, similarity=similarity)
    top = lists.cut(k)
    train = top.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    r = relevance_of(top.grade, relevance, rel)
    counted = np.ones(len(top.item), dtype=bool)
    defined = np.ones(top.n_units, dtype=bool)
    if form == "popularity":
        values = _popularity(top, train.popularity(popularity), train.known)
    else:
        similar, counted, defined = similarity_to_history(lists, top, similarity, unknown)
        values = 1.0 - similar if form == "unexpectedness" else similar
    unit, rv = top.unit[counted], r[counted]
    n = np.bincount(unit, minlength=top.n_units).astype(np.float64)
    relevant = np.bincount(unit, weights=(rv > 0).astype(np.float64), minlength=top.n_units)
    total = np.bincount(unit, weights=rv * values[counted], minlength=top.n_units)
    if form == "summed_similarity":
        out = 1.0 - total
    else:
        out = total / np.where(n > 0, n, 1.0)
    ok = (n > 0) & defined
    if no_relevant_item == "skip":
        ok &= relevant > 0
    return np.where(ok, out, np.nan)


def relevance_of(grade: np.ndarray | None, relevance: str, rel: float) -> np.ndarray:
    """rel(i) of each row: 1/0 by the threshold (``'binary'``) or the grade (``'grade'``); a null grade is 0."""
    if grade is None:
        raise RuntimeError("the relevance column was not checked before the kernel")
    g = np.nan_to_num(np.asarray(grade, dtype=np.float64), nan=0.0)
    return (g >= rel).astype(np.float64) if relevance == "binary" else g


def _popularity(top: Lists, pop: np.ndarray, known: np.ndarray) -> np.ndarray:
    """max(p(position) - pu(i), 0) of each row (RecTools): dense popularity ranks of the train items, descending."""
    if top.catalog is None:
        raise RuntimeError("catalog= was not checked before the kernel")
    n_catalog = float(top.catalog.sum())
    levels = np.unique(pop[known])  # ascending distinct popularities
    dense = np.zeros(len(pop))
    dense[known] = len(levels) - np.searchsorted(levels, pop[known])  # 1 = the most popular
    item = top.item
    p_user = (n_catalog + 1 - top.pos) / n_catalog
    p_any = np.where(known[item], (n_catalog + 1 - dense[item]) / n_catalog, 0.0)
    return np.maximum(p_user - p_any, 0.0)


def similarity_to_history(lists: Lists, top: Lists, similarity: str, unknown: str):
    """(s(i) of each top row, the counted rows, the units with a history), s(i) = u_i . (sum_{h in H} u_h) / |H|.

    H = the unit's query's distinct train items with a positive weight (without the unknown ones for
    ``unknown='drop'``); the history sums are one GROUP BY (train query, dimension), each row's dot product one
    more GROUP BY row over its item's entries, matched to the sums by a sorted search (no pair of items is built).
    """
    train, history = lists.train, lists.unit_history
    if train is None or history is None:
        raise RuntimeError("train= was not checked before the kernel")
    known = known_items(lists, similarity)
    h_query, h_item = train.pair_query, train.pair_item
    if unknown == "drop":
        keep = known[h_item]
        h_query, h_item = h_query[keep], h_item[keep]
    h_n = np.bincount(h_query, minlength=max(train.n_users, 1)).astype(np.float64)  # an empty train: no history
    tq = history[top.unit]  # the train query of each row's unit (-1: none)
    has = tq >= 0
    size = np.where(has, h_n[np.where(has, tq, 0)], 0.0)
    counted = np.ones(len(top.item), dtype=bool) if unknown == "zero" else known[top.item]
    rows = np.flatnonzero(counted & (size > 0))
    similar = np.zeros(len(top.item))
    unit_size = np.where(history >= 0, h_n[np.where(history >= 0, history, 0)], 0.0)
    if similarity == "cooccurrence":  # each row's item against each history item, in the Gram matrix
        gram = cooccurrence(lists, "Serendipity")
        order = np.argsort(h_query, kind="stable")
        h_code = gram.code[h_item[order]]  # a history item has a train query: a code
        h_first = (np.cumsum(h_n) - h_n).astype(np.int64)
        rows = rows[gram.code[top.item[rows]] >= 0]  # an item without a train query: similarity 0 to every item
        for m in np.unique(size[rows]).astype(np.int64).tolist():  # the rows whose history has m items: a matrix
            same = rows[size[rows] == m]
            for start, stop in chunks(np.full(len(same), m)):
                part = same[start:stop]
                history = h_code[h_first[tq[part]][:, None] + np.arange(m)]  # (rows, m) history codes
                cosines = gram.cosine(gram.code[top.item[part]][:, None], history)
                similar[part] = cosines.sum(axis=1) / m
        return similar, counted, unit_size > 0
    vec = item_vectors(lists, similarity)
    dims = np.int64(max(vec.n_dims, 1))
    entry, row = gather(vec.starts, vec.counts, h_item)
    keys, sums = _sums(h_query[row] * dims + vec.dim[entry], vec.value[entry])
    entry, at = gather(vec.starts, vec.counts, top.item[rows])
    want = tq[rows][at] * dims + vec.dim[entry]
    idx = np.minimum(np.searchsorted(keys, want), max(len(keys) - 1, 0))
    match = (keys[idx] == want) if len(keys) else np.zeros(len(want), dtype=bool)
    dot = np.bincount(
        at, weights=vec.value[entry] * np.where(match, sums[idx] if len(keys) else 0.0, 0.0), minlength=len(rows)
    )
    similar[rows] = dot / size[rows]
    return similar, counted, unit_size > 0


def _sums(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct int64 keys, sorted, and the sum of ``values`` of each."""
    distinct, _ = count_distinct(keys)
    codes = np.searchsorted(distinct, keys)
    return distinct, np.bincount(codes, weights=values, minlength=len(distinct))


def portable(b, i, *, k, like, form, similarity, relevance, rel, unknown, no_relevant_item, popularity):
    """Serendipity in the portable SQL (rankframe.warehouse.beyond's builder ``b``): (per-list CTE, state, raw).

    The flat form of ``sql/serendipity.sql``, on the builder's CTEs (``rf__bpos`` with the grade ``rf__g``,
    ``rf__btrain``, the item vectors and the train items); the per-list CTE holds (unit..., rf__n, rf__nrel,
    rf__sum, rf__hn). The mean similarity of an item to the query's history H is u_i . (sum_{h in H} u_h) / |H|:
    one GROUP BY (train query, dimension) for the sums and one GROUP BY (unit, item) over a UNION ALL for the dot
    products, so no pair of items is built and no join is on segment values (the history is found by the query id
    alone).
    """
    check_rules(form=form, similarity=similarity)
    f, null = b.f, b.null()
    unit_cols = [*b.grp, "rf__q"]
    unit = ", ".join(unit_cols)
    runit = ", ".join(f"r.{c}" for c in unit_cols)
    top = f"r.{b.top(k)}"
    grade = "COALESCE(r.rf__g, 0)"
    r_term = f(f"CASE WHEN {grade} >= {b.num(rel)} THEN 1 ELSE 0 END" if relevance == "binary" else grade)
    terms = f"rf__bserterms{i}"
    if form == "popularity":  # RecTools: max((N + 1 - pos) / N - (N + 1 - dense popularity rank) / N, 0)
        items = b.train_items(popularity)
        ranks = f"rf__bserrank{i}"
        b.ctes[ranks] = f"SELECT rf__titem, DENSE_RANK() OVER (ORDER BY rf__pop DESC) AS rf__dr FROM {items}"
        n = f"{f('n.rf__un')}"
        catalog = b.universe("catalog")
        pu = f"CASE WHEN d.rf__titem IS NULL THEN 0 ELSE ({n} + 1 - d.rf__dr) / {n} END"
        b.ctes[terms] = (
            f"SELECT {runit}, {r_term} AS rf__r, {r_term} * GREATEST(({n} + 1 - r.rf__pos) / {n} - {pu}, 0) "
            f"AS rf__t, {null} AS rf__hn FROM rf__bpos AS r LEFT JOIN {ranks} AS d ON r.rf__item = d.rf__titem "
            f"CROSS JOIN {catalog}_n AS n WHERE {top}"
        )
    else:
        vec, known = b.vectors(similarity)
        b.train()
        counted = "" if unknown == "zero" else " AND kn.rf__kitem IS NOT NULL"
        hist, sizes, sums, rows = (f"rf__bser{part}{i}" for part in ("hist", "size", "sum", "rows"))
        b.ctes[hist] = (
            f"SELECT DISTINCT t.rf__tq, t.rf__titem FROM rf__btrain AS t LEFT JOIN {known} AS kn "
            f"ON t.rf__titem = kn.rf__kitem WHERE t.rf__w > 0{counted}"
        )
        b.ctes[sizes] = f"SELECT rf__tq, {f('COUNT(*)')} AS rf__hn FROM {hist} GROUP BY rf__tq"
        b.ctes[sums] = (
            f"SELECT h.rf__tq, v.rf__dim, SUM(v.rf__u) AS rf__s FROM {hist} AS h JOIN {vec} AS v "
            "ON h.rf__titem = v.rf__vitem GROUP BY h.rf__tq, v.rf__dim"
        )
        b.ctes[rows] = (
            f"SELECT {runit}, r.rf__item, {r_term} AS rf__r FROM rf__bpos AS r LEFT JOIN {known} AS kn "
            f"ON r.rf__item = kn.rf__kitem WHERE {top}{counted}"
        )
        dots = (  # each counted row once with its relevance, plus its item's entries times the history's sums
            f"SELECT {unit}, rf__item, rf__r, {null} AS rf__d FROM {rows} UNION ALL "
            f"SELECT {runit}, r.rf__item, {null}, v.rf__u * s.rf__s FROM {rows} AS r "
            f"JOIN {vec} AS v ON r.rf__item = v.rf__vitem "
            f"JOIN {sums} AS s ON s.rf__tq = r.rf__q AND s.rf__dim = v.rf__dim"
        )
        similar = "COALESCE(x.rf__dot, 0) / z.rf__hn"
        term = f"1 - {similar}" if form == "unexpectedness" else similar
        b.ctes[terms] = (
            f"SELECT {', '.join(f'x.{c}' for c in unit_cols)}, x.rf__r, x.rf__r * ({term}) AS rf__t, z.rf__hn FROM "
            f"(SELECT {unit}, rf__item, MAX(rf__r) AS rf__r, SUM(rf__d) AS rf__dot FROM ({dots}) AS d "
            f"GROUP BY {unit}, rf__item) AS x LEFT JOIN {sizes} AS z ON x.rf__q = z.rf__tq"
        )
    per = b.per_list(
        i,
        "SUM(rf__cnt) AS rf__n, SUM(rf__rel) AS rf__nrel, SUM(rf__t) AS rf__sum, MAX(rf__hn) AS rf__hn",
        [("1 AS rf__cnt, CASE WHEN rf__r > 0 THEN 1 ELSE 0 END AS rf__rel, rf__t, rf__hn", terms)],
        f"0, 0, {null}, {null}",
    )
    ok = ["rf__n > 0"]
    ok += [] if form == "popularity" else ["COALESCE(rf__hn, 0) > 0"]
    ok += ["rf__nrel > 0"] if no_relevant_item == "skip" else []
    cond = " AND ".join(ok)
    value = "1 - COALESCE(rf__sum, 0)" if form == "summed_similarity" else f"COALESCE(rf__sum, 0) / {f('rf__n')}"
    return per, f"CASE WHEN {cond} THEN 0 ELSE 2 END", f"CASE WHEN {cond} THEN {value} ELSE {null} END"
