"""Serendipity@k in the portable SQL: the flat form of ``sql/serendipity.sql`` (rankframe/beyond/serendipity.py).

Written on the builder of :mod:`rankframe.portable.beyond` (its CTEs ``rf__bpos`` with the grade ``rf__g``,
``rf__btrain``, the item vectors and the train items), as PostgreSQL-flavoured text. The mean similarity of an item
to the query's history H is u_i . (sum_{h in H} u_h) / |H|: one GROUP BY (train query, dimension) for the sums and
one GROUP BY (unit, item) over a UNION ALL for the dot products, so no pair of items is built and no join is on
segment values (the history is found by the query id alone).
"""

from __future__ import annotations

from typing import Any

from ..beyond.serendipity import check_rules
from .terms import FLOAT, Terms, literal


def _f(term: str) -> str:
    return f"CAST({term} AS {FLOAT})"


def _null() -> str:
    return f"CAST(NULL AS {FLOAT})"


def lists(
    b: Any, i: int, *, k, like, form, similarity, relevance, rel, unknown, no_relevant_item, popularity
) -> tuple[str, str, str]:
    """The per-list CTE (unit..., rf__n, rf__nrel, rf__sum, rf__hn) and the (state, raw) terms of its value."""
    check_rules(form=form, similarity=similarity)
    unit_cols = [*b.grp, "rf__q"]
    unit = ", ".join(unit_cols)
    runit = ", ".join(f"r.{c}" for c in unit_cols)
    top = "r.rf__pos IS NOT NULL" if k is None else f"r.rf__pos <= {literal(k)}"
    grade = "COALESCE(r.rf__g, 0)"
    r_term = _f(f"CASE WHEN {grade} >= {Terms.num(rel)} THEN 1 ELSE 0 END" if relevance == "binary" else grade)
    terms = f"rf__bserterms{i}"
    if form == "popularity":  # RecTools: max((N + 1 - pos) / N - (N + 1 - dense popularity rank) / N, 0)
        items = b.train_items(popularity)
        ranks = f"rf__bserrank{i}"
        b.ctes[ranks] = f"SELECT rf__titem, DENSE_RANK() OVER (ORDER BY rf__pop DESC) AS rf__dr FROM {items}"
        n = f"{_f('n.rf__un')}"
        catalog = b.universe("catalog")
        pu = f"CASE WHEN d.rf__titem IS NULL THEN 0 ELSE ({n} + 1 - d.rf__dr) / {n} END"
        b.ctes[terms] = (
            f"SELECT {runit}, {r_term} AS rf__r, {r_term} * GREATEST(({n} + 1 - r.rf__pos) / {n} - {pu}, 0) "
            f"AS rf__t, {_null()} AS rf__hn FROM rf__bpos AS r LEFT JOIN {ranks} AS d ON r.rf__item = d.rf__titem "
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
        b.ctes[sizes] = f"SELECT rf__tq, {_f('COUNT(*)')} AS rf__hn FROM {hist} GROUP BY rf__tq"
        b.ctes[sums] = (
            f"SELECT h.rf__tq, v.rf__dim, SUM(v.rf__u) AS rf__s FROM {hist} AS h JOIN {vec} AS v "
            "ON h.rf__titem = v.rf__vitem GROUP BY h.rf__tq, v.rf__dim"
        )
        b.ctes[rows] = (
            f"SELECT {runit}, r.rf__item, {r_term} AS rf__r FROM rf__bpos AS r LEFT JOIN {known} AS kn "
            f"ON r.rf__item = kn.rf__kitem WHERE {top}{counted}"
        )
        dots = (  # each counted row once with its relevance, plus its item's entries times the history's sums
            f"SELECT {unit}, rf__item, rf__r, {_null()} AS rf__d FROM {rows} UNION ALL "
            f"SELECT {runit}, r.rf__item, {_null()}, v.rf__u * s.rf__s FROM {rows} AS r "
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
    per = f"rf__blists{i}"
    b.ctes[per] = (
        f"SELECT {unit}, SUM(rf__cnt) AS rf__n, SUM(rf__rel) AS rf__nrel, SUM(rf__t) AS rf__sum, "
        f"MAX(rf__hn) AS rf__hn FROM (SELECT {unit}, 1 AS rf__cnt, CASE WHEN rf__r > 0 THEN 1 ELSE 0 END AS rf__rel, "
        f"rf__t, rf__hn FROM {terms} UNION ALL SELECT {unit}, 0, 0, {_null()}, {_null()} FROM rf__bunits) AS x "
        f"GROUP BY {unit}"
    )
    ok = ["rf__n > 0"]
    ok += [] if form == "popularity" else ["COALESCE(rf__hn, 0) > 0"]
    ok += ["rf__nrel > 0"] if no_relevant_item == "skip" else []
    cond = " AND ".join(ok)
    value = "1 - COALESCE(rf__sum, 0)" if form == "summed_similarity" else f"COALESCE(rf__sum, 0) / {_f('rf__n')}"
    return per, f"CASE WHEN {cond} THEN 0 ELSE 2 END", f"CASE WHEN {cond} THEN {value} ELSE {_null()} END"
