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
    return con.execute(sql).df()


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


def test_hand_case_of_the_later_metrics_on_duckdb():
    # query q by score (ties by item descending): a 3.0 (grade 0), f 2.5 (-1: pooled, unjudged), c 2.0 (unjudged),
    # b 2.0 (2), d 1.0 (1), g 0.1 (0); e (3) and h (2) judged, not retrieved. Positions a1 f2 c3 b4 d5 g6;
    # R = {b, d, e, h} = 4, N (0 <= grade < 1) = {a, g} = 2. Query z: two judged items, nothing retrieved.
    df = pd.DataFrame(
        {
            "query": ["q"] * 8 + ["z"] * 2,
            "item": list("afbcdgehxy"),
            "score": [3.0, 2.5, 2.0, 2.0, 1.0, 0.1, None, None, None, None],
            "relevance": [0, -1, 2, None, 1, 0, 3, 2, 1, 2],
        }
    )
    eps, log2_3 = 1e-5, 1.584962500721156
    # nERR@5, Pr(g) = (2^g - 1)/16: ERR@5 = (3/16)/4 + (1/16)/5 (13/16) = 73/1280; the ideal list e, b, h, d (b and
    # h tie: Pr 3/16): 7/16 + (1/2)(9/16)(3/16) + (1/3)(9/16)(13/16)(3/16) + (1/4)(9/16)(13/16)(13/16)(1/16)
    ideal_err = 7 / 16 + (9 / 16) * (3 / 16) / 2 + (9 / 16) * (13 / 16) * (3 / 16) / 3
    ideal_err += (9 / 16) * (13 / 16) ** 2 * (1 / 16) / 4
    cases = {
        "P@2": 0.0,  # a, f
        "P(judged_only=True)@2": 0.5,  # c, f removed: a1 b2 d3 g4
        "AP(judged_only=True)": (1 / 2 + 2 / 3) / 4,
        "Bpref": (0.5 + 0.5) / 4,  # b and d: a above each, 1 - min(1, 4) / min(4, 2) = 1/2
        "IPrec@0.0": 0.4,  # max(P at b = 1/4, P at d = 2/5)
        "IPrec@1.0": 0.0,  # floor(4 + 0.9) = 4 hits never retrieved
        # b: i = 4, r = 0, n = 1 (a), u = 1 (f): 1/4 + (3/4)(2/3)(eps / (1 + 2 eps)); d: i = 5, r = n = u = 1:
        # 1/5 + (4/5)(3/4)((1 + eps) / (2 + 2 eps)) = 1/2
        "infAP": (1 / 4 + 0.5 * eps / (1 + 2 * eps) + 0.5) / 4,
        "DCG(ties='average')@3": 1 / 2,  # c and b tie at 3, 4: mean gain (0 + 2) / 2 = 1 at position 3
        "DCG@3": 0.0,  # c (no gain) at 3
        # c removed: b alone in its group, at 2; IDCG@2 = e (3) + b (2) / log2(3)
        "nDCG(judged_only=True, ties='average')@2": (2 / log2_3) / (3 + 2 / log2_3),
        "nERR@5": (73 / 1280) / ideal_err,
        "SetF": 2 * (2 / 6) * (2 / 4) / (2 / 6 + 2 / 4),  # P = 2/6, R = 2/4
        "RBP(p=0.5)@5": 0.5 * (0.5**3 + 0.5**4),  # hits at 4 and 5
        "NumRel": 4.0,
        "NumRet@3": 3.0,
        "Judged@3": 2 / 3,  # a and f have grades, c none
    }
    got = _run(df, rankframe.sql.render(list(cases), dialect="duckdb", per_query=True, order_by="score"))
    q = got[got["query"] == "q"].set_index("metric")["value"]
    assert q.to_dict() == pytest.approx(cases, abs=1e-12)
    z = got[got["query"] == "z"].set_index("metric")["value"]
    # nothing retrieved, no_retrieved='zero': the counts keep their value (trec_eval -c), the others are 0
    assert z["NumRel"] == 2.0 and z["P@2"] == 0.0 and z["NumRet@3"] == 0.0


def test_no_window_partitions_by_the_score():
    # BigQuery refuses a FLOAT64 PARTITION BY: tie groups are numbered along the ranking, never partitioned by score
    sql = rankframe.sql.render(["nDCG(ties='average', judged_only=True)@3"], dialect="bigquery", order_by="score")
    windows = list(sqlglot.parse_one(sql, read="bigquery").find_all(sqlglot.exp.Window))
    assert windows
    for window in windows:
        assert "RF__KEY" not in " ".join(p.sql().upper() for p in window.args.get("partition_by") or [])


@pytest.mark.slow  # sqlglot parses the whole portable SQL of every metric per dialect (~3-10 s each)
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
    got = con.execute(sql).df()
    assert_same(rankframe.evaluate(df, ["P@1", "AP"], by=evil, per_query=True, columns=cols), got)
    assert con.execute('SELECT count(*) FROM "my ""runs"""').fetchall() == [(3,)]  # still there
