"""The aggregate macros' speed shapes (issue 10): the bit-mask branch of P/AP/RR at its k <= 62 boundary, nDCG as
the DCG and IDCG aggregates, and the number of aggregate states the planner keeps for the benchmark statement."""

from __future__ import annotations

import json
import math

import duckdb
import pytest

import rankframe.sql as rf_sql


@pytest.fixture(scope="module")
def con():
    c = rf_sql.install(duckdb.connect())
    # query 1: 70 retrieved rows, hits (grade 1) at positions 1, 61, 62, 63, 70, plus one relevant row not
    # retrieved (n_rel = 6); query 2: 70 retrieved rows, hits at 62 and 63 only (n_rel = 2)
    c.sql(
        """CREATE TABLE t AS
        SELECT 1 AS query, i AS rf_pos, CASE WHEN i IN (1, 61, 62, 63, 70) THEN 1.0 ELSE 0.0 END AS rf_g
        FROM range(1, 71) AS r(i)
        UNION ALL SELECT 1, NULL, 1.0
        UNION ALL SELECT 2, i, CASE WHEN i IN (62, 63) THEN 1.0 ELSE 0.0 END FROM range(1, 71) AS r(i)"""
    )
    yield c
    c.close()


def _agg(con, expr: str) -> dict[int, float]:
    return dict(con.sql(f"SELECT query, {expr} FROM t GROUP BY query").fetchall())


# hand derivation: AP = sum over hits at p <= k of (hits so far) / p, divided by n_rel = 6 (query 1)
AP_1 = {
    61: (1 + 2 / 61) / 6,
    62: (1 + 2 / 61 + 3 / 62) / 6,
    63: (1 + 2 / 61 + 3 / 62 + 4 / 63) / 6,
    None: (1 + 2 / 61 + 3 / 62 + 4 / 63 + 5 / 70) / 6,
}
P_1 = {61: 2 / 61, 62: 3 / 62, 63: 4 / 63, None: 5 / 70}  # hits in the top k over k (over n = 70 without k)
RR_2 = {61: 0.0, 62: 1 / 62, 63: 1 / 62, None: 1 / 62}  # query 2's first hit is at 62
AP_2 = {61: 0.0, 62: (1 / 62) / 2, 63: (1 / 62 + 2 / 63) / 2, None: (1 / 62 + 2 / 63) / 2}


@pytest.mark.parametrize("k", [61, 62, 63, None])
def test_mask_boundary(con, k):
    """k <= 62 takes the bit-mask branch, 63 and NULL the count/min/list one: same hand values on both sides."""
    ks = "NULL" if k is None else str(k)
    ap = _agg(con, f"rf_agg_ap(rf_pos, rf_g, k := {ks})")
    p = _agg(con, f"rf_agg_precision(rf_pos, rf_g, k := {ks})")
    rr = _agg(con, f"rf_agg_rr(rf_pos, rf_g, k := {ks})")
    assert math.isclose(ap[1], AP_1[k], rel_tol=1e-12)
    assert math.isclose(ap[2], AP_2[k], rel_tol=1e-12)
    assert math.isclose(p[1], P_1[k], rel_tol=1e-12)
    assert rr[1] == 1.0
    assert math.isclose(rr[2], RR_2[k], rel_tol=1e-12)


def test_ndcg_matches_dcg_over_idcg(con):
    """rf_agg_ndcg = rf_agg_dcg / rf_agg_idcg (a sum and a list of gains), at a cutoff and without."""
    for ks in ("10", "62", "NULL"):
        got = _agg(con, f"rf_agg_ndcg(rf_pos, rf_g, k := {ks})")
        dcg = _agg(con, f"rf_agg_dcg(rf_pos, rf_g, k := {ks})")
        idcg = _agg(con, f"rf_agg_idcg(rf_pos, rf_g, k := {ks})")
        for q in (1, 2):
            assert math.isclose(got[q], dcg[q] / idcg[q] if idcg[q] else 0.0, rel_tol=1e-12), (ks, q)


def test_linear_overflow_is_an_error(con):
    """Without max(grade) for linear gains, an infinite sum still stops with a message (not a silent inf/NaN)."""
    with pytest.raises(duckdb.Error, match="sum of the gains of a query is infinite"):
        con.sql("SELECT rf_agg_dcg(p, g) FROM (VALUES (1, 1e308), (2, 1e308), (3, 1e308)) AS v(p, g)").fetchall()


def test_benchmark_statement_keeps_few_aggregate_states(con):
    """bench/sql.py's statement: 10 aggregate states per query (15 with 2 lists before issue 10), a single list.

    (9 with nDCG's one list of (position, gain) structs, which cost more than a DCG sum plus a list of DOUBLE gains.)
    """
    con.sql(
        "CREATE TABLE b AS SELECT query, row_number() OVER () AS item, rf_pos AS rank, rf_g AS relevance, query % 7 AS segment FROM t"
    )
    plan = con.sql(
        """EXPLAIN (FORMAT json)
        SELECT query, any_value(segment), rf_agg_ap(rf_pos, rf_g, k := 10), rf_agg_ndcg(rf_pos, rf_g, k := 10),
               rf_agg_precision(rf_pos, rf_g, k := 10), rf_agg_recall(rf_pos, rf_g, k := 100),
               rf_agg_rr(rf_pos, rf_g, k := 10)
        FROM rf_prepare('b', order_by := 'position') GROUP BY query
        HAVING count(rf_g) > 0 AND rf_agg_n_retrieved(rf_pos, order_by := 'position') >= 0"""
    ).fetchall()[0][1]

    def aggregates(node):
        if node.get("name") in ("HASH_GROUP_BY", "PERFECT_HASH_GROUP_BY"):
            return node["extra_info"]["Aggregates"]
        return next((a for c in node.get("children", []) if (a := aggregates(c))), None)

    aggs = next(a for n in json.loads(plan) if (a := aggregates(n)))
    assert len(aggs) <= 10, aggs
    assert sum(a.startswith("list(") for a in aggs) == 1, aggs


@pytest.mark.parametrize("order_by", ["position", "rank", "score"])
def test_prepare_keeps_the_query_column_statistics_for_the_perfect_hash_aggregate(con, order_by):
    """rf_prepare passes the query column's min/max through (no live UNION branch, no window over a pruned branch).

    With them DuckDB groups a small-range integer query column in a perfect hash table (direct indexing), about
    1.3x faster on the 103M-row benchmark file than the radix-partitioned hash table it used before (docs/decisions/
    0010-sql-big-inputs.md "Perfect hash aggregate"). rf__input's error row for missing columns and the window
    branches pruned only below their window both made the statistics unknown.
    """
    con.sql(
        "CREATE OR REPLACE TABLE s AS SELECT CAST(query AS INTEGER) AS query, row_number() OVER () AS item, rf_pos AS rank, "
        "-rf_pos AS score, rf_g AS relevance FROM t"
    )
    for sql in (
        f"SELECT query, count(*) FROM rf_prepare('s', order_by := '{order_by}') GROUP BY query",
        f"SELECT query, rf_agg_ndcg(rf_pos, rf_g, k := 10) FROM rf_prepare('s', order_by := '{order_by}') GROUP BY query",
    ):
        plan = con.sql("EXPLAIN " + sql).fetchall()[0][1]
        assert "Perfect Hash Group By" in plan, plan


@pytest.mark.parametrize(
    ("rows", "dense"),
    [
        # (segment, query, rank); hand-checked: a unit is dense when its ranks are exactly 1..n
        ([("a", 1, 2), ("a", 1, 1), ("a", 1, None), ("a", 2, 1)], True),
        ([("a", 1, 1), ("a", 1, 3)], False),  # a gap
        ([("a", 1, 2), ("a", 1, 3)], False),  # starts at 2
        ([("a", 1, 0), ("a", 1, 1)], False),  # max 1 != n 2, and a rank below 1
        ([("a", 1, 1.0), ("a", 1, 2.0)], True),  # whole numbers in a DOUBLE column
        ([("a", 1, 1.0), ("a", 1, 1.5)], False),
        ([("a", 1, 1), ("a", 1, 2), ("a", 1, 2), ("a", 1, 4)], False),  # a repeated rank: XOR 5, not 1^2^3^4 = 4
        ([("a", 1, 2), ("a", 1, 3), ("a", 1, 1), ("a", 1, 5), ("a", 1, 4)], True),  # XOR 1 = 1^2^3^4^5
        ([("a", 1, 1), ("a", 1, 3), ("a", 1, 3)], False),  # XOR 1, not 1^2^3 = 0
        ([("a", 1, 1), ("a", 1, 9223372036854775807)], False),  # huge rank, count 2
        ([("a", 1, None)], True),  # nothing retrieved
        ([("a", 1, 1), ("b", 1, 1)], True),  # per unit (segment, query): each is 1..1
        ([("a", 1, 1), ("b", 1, 2)], False),  # query 1 is 1..2 overall but segment b's unit starts at 2
    ],
)
def test_ranks_are_positions_decides_per_unit(con, rows, dense):
    values = ", ".join(f"('{g}', {q}, 'i{i}', {'NULL' if r is None else r}, 1)" for i, (g, q, r) in enumerate(rows))
    con.sql(f"CREATE OR REPLACE VIEW d AS SELECT * FROM (VALUES {values}) v(seg, query, item, rank, relevance)")
    got = con.sql("SELECT rf__dense FROM rf__ranks_are_positions('d', ['seg'], 'rank')").fetchall()
    assert got == [(dense,)]


def test_ranks_are_positions_is_false_for_a_text_rank_and_true_for_an_empty_table(con):
    con.sql("CREATE OR REPLACE VIEW d AS SELECT * FROM (VALUES (1, 'a', '1', 1)) v(query, item, rank, relevance)")
    assert con.sql("SELECT rf__dense FROM rf__ranks_are_positions('d', [], 'rank')").fetchall() == [(False,)]
    for rank_type, dense in [
        ("TINYINT", True),
        ("UBIGINT", True),
        ("HUGEINT", True),
        ("FLOAT", True),
        ("DECIMAL(9, 2)", True),
    ]:
        con.sql(
            f"CREATE OR REPLACE VIEW d AS SELECT query, item, CAST(rank AS {rank_type}) AS rank, relevance "
            "FROM (VALUES (1, 'a', 2, 1), (1, 'b', 1, 1)) v(query, item, rank, relevance)"
        )
        assert con.sql("SELECT rf__dense FROM rf__ranks_are_positions('d', [], 'rank')").fetchall() == [(dense,)]
        assert con.sql("SELECT item, rf_pos FROM rf_prepare('d') ORDER BY item").fetchall() == [("a", 2), ("b", 1)]
    con.sql("CREATE OR REPLACE VIEW d AS SELECT 1 AS query, 'a' AS item, 1 AS rank, 1 AS relevance LIMIT 0")
    assert con.sql("SELECT rf__dense FROM rf__ranks_are_positions('d', [], 'rank')").fetchall() == [(True,)]


@pytest.mark.parametrize("gap", [False, True])
def test_rank_order_gives_window_positions_with_and_without_the_dense_shortcut(con, gap):
    """Dense ranks take the shortcut (no window), a table with one gap the window: both number positions 1..n.

    Expected positions by hand: query 1's ranks 3, 1, 2 (or 30, 10, 20 with the gap table) are positions 3, 1, 2;
    query 2's single rank is position 1; the unranked row has none.
    """
    scale = 10 if gap else 1
    con.sql(
        f"""CREATE OR REPLACE VIEW d AS SELECT * FROM (VALUES (1, 'x', {3 * scale}, 1), (1, 'y', {1 * scale}, 0),
            (1, 'z', {2 * scale}, 2), (1, 'u', NULL, 1), (2, 'x', {scale}, 1)) v(query, item, rank, relevance)"""
    )
    assert con.sql("SELECT rf__dense FROM rf__ranks_are_positions('d', [], 'rank')").fetchall() == [(not gap,)]
    got = dict(con.sql("SELECT query || item, rf_pos FROM rf_prepare('d')").fetchall())
    assert got == {"1x": 3, "1y": 1, "1z": 2, "1u": None, "2x": 1}
    plan = con.sql(
        "EXPLAIN (ANALYZE, FORMAT json) SELECT query, rf_agg_ndcg(rf_pos, rf_g, k := 2) FROM rf_prepare('d') GROUP BY query"
    ).fetchall()[0][1]

    def window_rows(node) -> list[int]:
        own = [node.get("intermediate_rows", 0)] if node.get("type") == "WINDOW" else []
        return own + [n for c in node.get("children", []) for n in window_rows(c)]

    rows = [n for op in json.loads(plan)["operator"] for n in window_rows(op)]
    assert rows, plan  # the window branch is in the plan either way; it only gets rows when a unit has a gap
    assert sum(rows) == (5 if gap else 0), plan
