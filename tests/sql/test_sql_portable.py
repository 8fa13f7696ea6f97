"""``rankframe.sql.render`` on DuckDB: the one plain SELECT equals ``rankframe.evaluate`` (random tables with
unretrieved and unjudged rows, per query and per segment, every policy), and the statement parses in the other
dialects without a DuckDB-only construct. PostgreSQL: tests/sql/test_warehouse_postgres.py."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
import sqlglot
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from portable_cases import DUCKDB_ONLY, METRICS, POLICY_SETS, assert_same, expected, order_by_of
from strategies import SMALL_GRADES, by_of, tables

import rankframe.sql

OTHER_DIALECTS = ["bigquery", "snowflake", "spark", "trino"]


def _run(df: pd.DataFrame, sql: str) -> pd.DataFrame:
    con = duckdb.connect()
    con.register("runs", df)
    return con.sql(sql).df()


@settings(max_examples=hypothesis_examples(10))
@given(df=tables(grades=SMALL_GRADES, dtypes=False), per_query=st.booleans(), policies=st.sampled_from(POLICY_SETS))
def test_duckdb_equals_evaluate(df, per_query, policies):
    by = by_of(df)
    sql = rankframe.sql.render(
        METRICS, dialect="duckdb", by=by, per_query=per_query, order_by=order_by_of(df), **policies
    )
    assert_same(expected(df, METRICS, by, per_query, policies), _run(df, sql))


def test_hand_case_on_duckdb():
    # one query: ranks 1, 2 hold grades 0, 2; item c (grade 1) judged but not retrieved; item d retrieved at 3,
    # unjudged. P@2 = 1/2; R = 1/2 (b of b, c); AP = (1/2) / 2 = 0.25; RR = 1/2; nDCG@2 = (2/log2(3)) /
    # (2 + 1/log2(3)) = 1.26186 / 2.63093 = 0.479625
    df = pd.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "rank": [1, 2, None, 3], "relevance": [0, 2, 1, None]})
    got = _run(df, rankframe.sql.render(["P@2", "R", "AP", "RR", "nDCG@2"], dialect="duckdb"))
    assert got["metric"].tolist() == ["P@2", "R", "AP", "RR", "nDCG@2"]
    ndcg = (2 / 1.584962500721156) / (2 + 1 / 1.584962500721156)
    assert got["value"].tolist() == pytest.approx([0.5, 0.5, 0.25, 0.5, ndcg], abs=1e-12)
    assert got["n"].tolist() == [1] * 5


@pytest.mark.parametrize("dialect", OTHER_DIALECTS)
@pytest.mark.parametrize("per_query", [False, True])
def test_parses_in_each_dialect(dialect, per_query):
    sql = rankframe.sql.render(METRICS, dialect=dialect, by=["seg", "day"], per_query=per_query)
    parsed = sqlglot.parse_one(sql, read=dialect)  # raises on a syntax error of the dialect
    assert isinstance(parsed, sqlglot.exp.Query)
    assert not [w for w in DUCKDB_ONLY if w in sql.upper()]
    assert "LOG(" not in sql.upper()  # LN(x) / LN(b): LOG's argument order differs between dialects
    assert "COLLATE" not in sql.upper()  # byte order is these dialects' default; Postgres alone says COLLATE "C"
    for window in parsed.find_all(sqlglot.exp.Window):  # BigQuery's window ORDER BY takes no NULLS FIRST/LAST
        assert "NULLS" not in window.sql(dialect=dialect).upper()


def test_metric_labels_and_columns_follow_evaluate():
    df = pd.DataFrame({"s": ["x"], "query": [1], "item": ["a"], "rank": [1], "relevance": [1]})
    for per_query in (False, True):
        ms = ["map@10", "ndcg_cut_5", "P_5", "recip_rank"]
        got = _run(df, rankframe.sql.render(ms, dialect="duckdb", by="s", per_query=per_query))
        assert_same(expected(df, ms, "s", per_query, {}), got)


def test_identifiers_are_quoted_no_injection():
    evil = 'seg"; DROP TABLE runs; --'
    cols = {"query": "user id", "item": 'it"em', "rank": "rank's", "relevance": "Relevance"}
    df = pd.DataFrame(
        {
            evil: ["a", "a", "b"],
            "user id": [1, 1, 2],
            'it"em': ["x", "y", "x"],
            "rank's": [1, 2, 1],
            "Relevance": [1, 0, 1],
        }
    )
    con = duckdb.connect()
    con.execute('CREATE TABLE "my ""runs""" AS SELECT * FROM df')
    sql = rankframe.sql.render(
        ["P@1", "AP"], dialect="duckdb", table='my "runs"', by=evil, per_query=True, columns=cols
    )
    got = con.sql(sql).df()
    assert_same(rankframe.evaluate(df, ["P@1", "AP"], by=evil, per_query=True, columns=cols), got)
    assert con.execute('SELECT count(*) FROM "my ""runs"""').fetchall() == [(3,)]  # still there
