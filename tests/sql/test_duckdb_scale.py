"""No quadratic path in SQL: ERR, nERR and Bpref on one 100k-row query, on both engines and the table macros.

Before (issue 10) the SQL kernels compared every pair of rows of a query: ERR on 40k rows took 76 s and one
query of 1M rows ran out of memory. Now ERR/nERR take their running products from windows and Bpref counts the
judged non-relevant rows above each relevant one from one sort, so 100k rows take about a second. The oracle is
the pandas engine (cumulative products and sums, O(n)); the time bound is generous (a busy 2-core machine).
"""

from __future__ import annotations

import time

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql

pytestmark = pytest.mark.scale  # 100k-row queries on both engines and the table macros

N = 100_000
METRICS = ["ERR", "ERR@10", "ERR@5000", "nERR", "nERR@10", "nERR(ideal=retrieved)@20000", "Bpref", "Bpref(rel=2)"]
BOUND_S = 60.0  # each call on 100k rows: ~0.3 s (pandas) and ~1-3 s (DuckDB) on a quiet machine


@pytest.fixture(scope="module")
def one_long_query() -> pd.DataFrame:
    """One query of 100k rows: ranks with gaps (not 1..n), 10% judged but not retrieved, many tied grades."""
    rng = np.random.default_rng(7)
    rank = rng.permutation(N).astype(np.float64) * 3 + 1  # unique, not dense: the window path
    rank[rng.choice(N, N // 10, replace=False)] = np.nan
    grade = rng.choice([np.nan, 0, 1, 2, 3, 4], size=N, p=[0.3, 0.4, 0.15, 0.1, 0.04, 0.01])
    return pd.DataFrame({"query": "q", "item": np.arange(N), "rank": rank, "relevance": grade})


@pytest.fixture(scope="module")
def pandas_values(one_long_query) -> pd.DataFrame:
    return rankframe.evaluate(one_long_query, METRICS, per_query=True, engine="pandas")


@pytest.fixture(scope="module")
def con(one_long_query) -> duckdb.DuckDBPyConnection:
    """A connection with the macros installed and the query registered as ``runs``."""
    connection = macro_connection()
    connection.register("runs", one_long_query)
    return connection


@pytest.fixture(scope="module")
def want(pandas_values) -> dict:
    """The pandas engine's value of each metric."""
    return dict(zip(pandas_values["metric"], pandas_values["value"]))


def test_duckdb_engine_equals_pandas_on_one_100k_row_query(one_long_query, pandas_values):
    t0 = time.perf_counter()
    got = rankframe.evaluate(one_long_query, METRICS, per_query=True, engine="duckdb")
    assert time.perf_counter() - t0 < BOUND_S
    assert got["metric"].tolist() == pandas_values["metric"].tolist()
    np.testing.assert_allclose(got["value"], pandas_values["value"], rtol=0, atol=1e-12)
    assert (pandas_values["value"] > 0).all()  # a real test: every metric has something to score


def test_table_macros_equal_pandas_on_one_100k_row_query(con, want):
    t0 = time.perf_counter()
    got = con.execute('SELECT "ERR", "nERR", "Bpref" FROM rf_per_query(runs)').fetchall()
    assert got[0] == pytest.approx((want["ERR"], want["nERR"], want["Bpref"]), abs=1e-12)
    got = con.execute('SELECT "ERR", "nERR" FROM rf_per_query(runs, k := 10)').fetchall()  # Bpref@10 is trec_eval -M
    assert got[0] == pytest.approx((want["ERR@10"], want["nERR@10"]), abs=1e-12)
    assert time.perf_counter() - t0 < BOUND_S


def test_bpref_aggregate_and_list_macros_on_one_100k_row_query(con, want):
    t0 = time.perf_counter()
    agg = con.execute(
        "SELECT rf_agg_bpref(rf_pos, rf_g), rf_agg_bpref(rf_pos, rf_g, rel := 2) FROM rf_prepare(runs)"
    ).fetchall()[0]
    assert agg == pytest.approx((want["Bpref"], want["Bpref(rel=2)"]), abs=1e-12)
    listed = con.execute(
        "SELECT rf_bpref(list(relevance ORDER BY rank) FILTER (WHERE rank IS NOT NULL), "
        "count(*) FILTER (WHERE relevance >= 1), count(*) FILTER (WHERE relevance >= 0 AND relevance < 1)) "
        "FROM runs"
    ).fetchall()[0][0]
    assert listed == pytest.approx(want["Bpref"], abs=1e-12)
    assert time.perf_counter() - t0 < BOUND_S


def test_err_nerr_aggregates_and_list_macros_on_one_100k_row_query(con, want):
    # before (issue 10): the aggregates and list macros took a product over a slice of the list per element,
    # O(n^2): 11.6 s for one 3,000-row query, far beyond any bound at 100k rows
    t0 = time.perf_counter()
    agg = con.execute(
        "SELECT rf_agg_err(rf_pos, rf_g), rf_agg_nerr(rf_pos, rf_g), rf_agg_err(rf_pos, rf_g, k := 10), "
        "rf_agg_nerr(rf_pos, rf_g, k := 10), rf_agg_nerr(rf_pos, rf_g, k := 20000, ideal := 'retrieved') "
        "FROM rf_prepare(runs)"
    ).fetchall()[0]
    assert agg == pytest.approx(
        (want["ERR"], want["nERR"], want["ERR@10"], want["nERR@10"], want["nERR(ideal='retrieved')@20000"]), abs=1e-12
    )
    listed = con.execute(
        "SELECT rf_err(list(relevance ORDER BY rank) FILTER (WHERE rank IS NOT NULL)), "
        "rf_nerr(list(relevance ORDER BY rank) FILTER (WHERE rank IS NOT NULL), list(relevance)) FROM runs"
    ).fetchall()[0]
    assert listed == pytest.approx((want["ERR"], want["nERR"]), abs=1e-12)
    assert time.perf_counter() - t0 < BOUND_S
