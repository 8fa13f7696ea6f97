"""``rankframe.sql.render_compare``: the paired t-test's statistics as one plain SELECT, against scipy's ttest_rel
(the oracle) and ``rankframe.compare(test="t")`` on DuckDB; parsing in the other dialects; bad arguments.
PostgreSQL: tests/sql/test_warehouse_postgres.py."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
import scipy.stats
import sqlglot
from portable_cases import DUCKDB_ONLY, paired_runs

import rankframe
import rankframe.sql
from rankframe import ParameterError, RankframeError

METRICS = ["P@5", "AP", "nDCG@10", "RR"]


def run(df: pd.DataFrame, sql: str) -> pd.DataFrame:
    con = duckdb.connect()
    con.register("runs", df)
    return con.execute(sql).df()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equals_scipy_ttest_rel_per_segment(seed):
    df = paired_runs(seed)
    got = run(df, rankframe.sql.render_compare(METRICS, baseline="base", by="seg", dialect="duckdb"))
    per = rankframe.evaluate(df, METRICS, by=["seg", "system"], per_query=True)
    assert len(got) == 2 * len(METRICS) * 2
    for row in got.itertuples(index=False):
        one = per[(per.seg == row.seg) & (per.metric == row.metric)].pivot(
            index="query", columns="system", values="value"
        )
        x, y = one[row.system].to_numpy(), one["base"].to_numpy()
        t = scipy.stats.ttest_rel(x, y)
        assert row.n == len(x) and row.df == len(x) - 1
        assert row.mean == pytest.approx(x.mean(), abs=1e-12)
        assert row.baseline_mean == pytest.approx(y.mean(), abs=1e-12)
        assert row.delta == pytest.approx((x - y).mean(), abs=1e-12)
        assert row.sd_diff == pytest.approx(np.std(x - y, ddof=1), abs=1e-12)
        assert row.statistic == pytest.approx(t.statistic, rel=1e-9)
        # the docs' one-line finish gives scipy's p-value
        assert 2 * scipy.stats.t.sf(abs(row.statistic), row.df) == pytest.approx(t.pvalue, rel=1e-9)


def test_same_columns_and_numbers_as_compare():
    df = paired_runs(4)
    got = run(df, rankframe.sql.render_compare(METRICS, baseline="base", by="seg", dialect="duckdb"))
    want = rankframe.compare(df, METRICS, baseline="base", by="seg", test="t")
    cols = ["seg", "metric", "system", "baseline", "n", "mean", "baseline_mean", "delta", "sd_diff", "statistic", "df"]
    assert list(got.columns) == cols
    m = want[cols].merge(got, on=["seg", "metric", "system", "baseline"], suffixes=("", "_sql"))
    assert len(m) == len(want) == len(got)
    for c in ["n", "mean", "baseline_mean", "delta", "sd_diff", "statistic", "df"]:
        np.testing.assert_allclose(m[c].astype(float), m[f"{c}_sql"].astype(float), rtol=1e-9, atol=1e-12)


def test_a_query_one_system_lacks_is_left_out_of_that_pair():
    df = paired_runs(5, gaps=True)
    got = run(df, rankframe.sql.render_compare(["AP"], baseline="base", dialect="duckdb"))
    want = rankframe.compare(df, ["AP"], baseline="base", test="t", missing="drop")
    assert got.set_index("system")["n"].to_dict() == {"s1": 30, "s2": 30 - 4}  # s2 lacks queries 3, 10, 17, 24
    s2 = want[want.system == "s2"]
    assert got.loc[got.system == "s2", "statistic"].item() == pytest.approx(s2["statistic"].item(), rel=1e-9)


def test_hand_case_with_no_spread():
    # two queries; a ranks the relevant x first, b ranks it second: P@1 is 1 for a and 0 for b in both queries,
    # differences (0 - 1, 0 - 1): delta -1, sd 0, t undefined (NULL), df 1
    runs = pd.DataFrame({"system": ["a", "a", "b", "b"] * 2, "query": [1, 1, 1, 1, 2, 2, 2, 2],
                         "item": ["x", "y"] * 4, "rank": [1, 2, 2, 1] * 2, "relevance": [1, 0] * 4})  # fmt: skip
    got = run(runs, rankframe.sql.render_compare("P@1", baseline="a", dialect="duckdb"))
    assert got.iloc[0][["system", "n", "mean", "baseline_mean", "delta", "sd_diff", "df"]].tolist() == [
        "b", 2, 0.0, 1.0, -1.0, 0.0, 1
    ]  # fmt: skip
    assert pd.isna(got.iloc[0]["statistic"])


def test_integer_systems_compare_as_text():
    df = paired_runs(6, systems=(10, 20))
    got = run(df, rankframe.sql.render_compare(["AP"], baseline="10", dialect="duckdb"))
    assert got["system"].tolist() == ["20"] and got["baseline"].tolist() == ["10"]


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake", "spark", "trino", "postgres"])
def test_parses_in_each_dialect(dialect):
    sql = rankframe.sql.render_compare(METRICS, baseline="bm25", by=["seg", "day"], dialect=dialect)
    assert isinstance(sqlglot.parse_one(sql, read=dialect), sqlglot.exp.Query)
    assert not [w for w in DUCKDB_ONLY if w in sql.upper()]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"baseline": 3}, "'baseline' parameter of render_compare"), ({"baseline": ""}, "'baseline'"),
     ({"baseline": "a", "system": 5}, "'system' parameter"), ({"baseline": "a", "by": "system"}, "system column"),
     ({"baseline": "a", "by": "delta"}, "output column of render_compare"), ({"baseline": "a", "by": "value"}, "value"),
     ({"baseline": "a", "system": "query"}, "query column"), ({"baseline": "a", "dialect": "mysqll"}, "dialect")],
)  # fmt: skip
def test_bad_arguments(kwargs, words):
    with pytest.raises(RankframeError, match=words):
        rankframe.sql.render_compare(["AP"], **kwargs)


def test_metric_errors_are_renders():
    with pytest.raises(RankframeError, match="not portable|portable"):
        rankframe.sql.render_compare(["Coverage@5"], baseline="a")
    with pytest.raises(ParameterError):
        rankframe.sql.render_compare(["AP"], baseline="a", no_relevant="sometimes")


def test_the_same_query_in_two_segments_pairs_within_each():
    # each query is asked on two days with other results: units are (day, query), as in rankframe.compare
    df = pd.concat([paired_runs(7).assign(day=1), paired_runs(8).assign(day=2)], ignore_index=True).drop(columns="seg")
    got = run(df, rankframe.sql.render_compare(["AP", "P@5"], baseline="base", by="day", dialect="duckdb"))
    want = rankframe.compare(df, ["AP", "P@5"], baseline="base", by="day", test="t")
    m = want.merge(got, on=["day", "metric", "system"], suffixes=("", "_sql"))
    assert len(m) == len(got) == 8 and (m["n_sql"] == 30).all()
    np.testing.assert_allclose(m["statistic_sql"], m["statistic"], rtol=1e-9)
