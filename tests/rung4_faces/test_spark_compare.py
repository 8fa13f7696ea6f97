"""rankframe.spark.compare equals rankframe.compare (test="t"): deltas, intervals and effect sizes to 1e-9,
p-values to 1e-6, the same notes and counts, on random multi-system tables with segments and every missing policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sparkutil import session, to_spark

import rankframe
import rankframe.spark as rs

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]
SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
METRICS = ["AP@5", "nDCG@3", "RR", "P@2"]
NUMERIC = [
    *("n", "mean", "baseline_mean", "delta", "ci_low", "ci_high", "statistic", "df", "sd_diff", "effect_size"),
    *("hedges_gz", "hedges_gz_low", "hedges_gz_high", "mde", "wins", "ties", "losses", "n_filled", "n_dropped"),
]


@pytest.fixture(scope="module")
def spark():
    return session()


def assert_same_comparison(got: pd.DataFrame, expected: pd.DataFrame, keys: list[str]):
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected), (got, expected)
    # one output assembly (compare.result_frame): the label columns have the pandas face's dtypes too
    labels = ["metric", "system", "baseline"]
    assert got[labels].dtypes.tolist() == expected[labels].dtypes.tolist()
    for k in keys:
        assert [None if pd.isna(v) else str(v) for v in got[k]] == [None if pd.isna(v) else str(v) for v in expected[k]]
    for c, tol in [*[(c, 1e-9) for c in NUMERIC], ("p_value", 1e-6), ("p_adjusted", 1e-6)]:
        a, b = got[c].to_numpy(np.float64), expected[c].to_numpy(np.float64)
        both_nan = np.isnan(a) & np.isnan(b)
        same_inf = np.isinf(a) & (a == b)
        close = np.abs(a - b) <= tol * np.maximum(1.0, np.abs(b))  # relative beyond 1 (t of a tiny sd)
        assert (both_nan | same_inf | close).all(), (c, got[[*keys, c]], expected[[*keys, c]])
    assert got["note"].tolist() == expected["note"].tolist()
    for key in (
        "test",
        "ci_method",
        "ci",
        "correction",
        "family",
        "pairs",
        "baseline",
        "missing",
        "alternative",
        "margin",
    ):
        assert got.attrs[key] == expected.attrs[key], key


@st.composite
def runs(draw):
    """3 systems x up to 8 queries x 2 segments; some systems miss some queries (misaligned on purpose)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_q = draw(st.integers(2, 8))
    rows = []
    for system in ["bm25", "dense", "rerank"]:
        for q in range(n_q):
            if system != "bm25" and draw(st.integers(0, 9)) == 9:
                continue  # this system has no row for the query
            seg = "long" if q % 3 else "short"
            for i in range(4):
                rows.append(
                    (system, seg, f"q{q}", f"d{i}", i + 1 if rng.random() < 0.9 else None, int(rng.integers(0, 3)))
                )
    df = pd.DataFrame(rows, columns=["system", "length", "query", "item", "rank", "relevance"])
    return df


@settings(max_examples=4, deadline=None, suppress_health_check=SUPPRESS, derandomize=True)
@given(
    df=runs(),
    missing=st.sampled_from(["zero", "drop"]),
    pairs=st.sampled_from(["baseline", "all"]),
    several=st.booleans(),
)
def test_compare_equals_pandas(spark, df, missing, pairs, several):
    baseline = ["rerank", "bm25"] if several and pairs == "baseline" else "bm25"
    kw = dict(baseline=baseline, by="length", missing=missing, pairs=pairs, test="t", correction="holm")
    got = rs.compare(to_spark(spark, df), METRICS, **kw)
    expected = rankframe.compare(df, METRICS, **kw)
    assert_same_comparison(got, expected, ["length", "metric", "system", "baseline"])


def test_compare_docstring_example_and_family(spark):
    # RR: A = 1/2, 1/2, 1; B = 1, 1, 1/2 (rankframe.compare's own doctest)
    df = pd.DataFrame(
        {
            "system": ["A"] * 6 + ["B"] * 6,
            "query": [1, 1, 2, 2, 3, 3] * 2,
            "item": ["a", "b"] * 6,
            "rank": [1, 2] * 6,
            "relevance": [0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1],
        }
    )
    kws = [dict(), dict(family="metric", correction="bh", ci=0.9), dict(alternative="less"), dict(margin=0.25)]
    for kw in kws:
        got = rs.compare(to_spark(spark, df), ["RR", "P@1"], baseline="A", **kw)
        expected = rankframe.compare(df, ["RR", "P@1"], baseline="A", **kw)
        assert_same_comparison(got, expected, ["metric", "system", "baseline"])
    assert got.loc[got["metric"] == "RR", "delta"].iloc[0] == pytest.approx(1 / 6)


def test_misaligned_queries_are_the_same_error(spark):
    df = pd.DataFrame(
        {
            "system": ["A", "A", "B"],
            "query": [1, 2, 1],
            "item": ["a", "a", "a"],
            "rank": [1, 1, 1],
            "relevance": [1, 0, 1],
        }
    )
    with pytest.raises(rankframe.ValidationError) as pandas_err:
        rankframe.compare(df, "RR", baseline="A")
    with pytest.raises(rankframe.ValidationError) as spark_err:
        rs.compare(to_spark(spark, df), "RR", baseline="A")
    assert spark_err.value.failures[0]["rule"] == pandas_err.value.failures[0]["rule"]
    assert spark_err.value.failures[0]["count"] == pandas_err.value.failures[0]["count"]


def test_tests_that_need_every_value_say_so(spark):
    df = pd.DataFrame({"system": ["A", "B"], "query": [1, 1], "item": ["a", "a"], "rank": [1, 1], "relevance": [1, 0]})
    sdf = to_spark(spark, df)
    for kw in [
        dict(test="wilcoxon"),
        dict(test="randomization"),
        dict(ci_method="bootstrap"),
        dict(pairs="all", test="tukey"),
    ]:
        with pytest.raises(rankframe.ParameterError, match="filter one segment"):
            rs.compare(sdf, "RR", baseline="A", **kw)
    with pytest.raises(rankframe.ParameterError, match="needs baseline="):
        rs.compare(sdf, "RR")
    for wrong in ["a", "AB"]:  # the same message as rankframe.compare (with its hint when one is close)
        with pytest.raises(rankframe.ParameterError) as pandas_err:
            rankframe.compare(df, "RR", baseline=wrong)
        with pytest.raises(rankframe.ParameterError) as spark_err:
            rs.compare(sdf, "RR", baseline=wrong)
        assert str(spark_err.value) == str(pandas_err.value)


def test_by_is_read_by_the_one_rule(spark):
    # rankframe.columns.column_list, as rankframe.compare: a repeated segment names compare, before any Spark job
    df = pd.DataFrame({"system": ["A", "B"], "query": [1, 1], "item": ["a", "a"], "rank": [1, 1], "relevance": [1, 0]})
    with pytest.raises(rankframe.ParameterError, match=r"The 'by' parameter of compare names column 'query' twice"):
        rs.compare(to_spark(spark, df), "RR", baseline="A", by=["query", "query"])


@pytest.mark.parametrize("missing", ["zero", "drop"])
def test_several_baselines_and_missing_counts_equal_pandas(spark, missing):
    rng = np.random.default_rng(7)
    rows = [
        (system, "long" if q % 3 else "short", f"q{q}", f"d{i}", i + 1, int(rng.integers(0, 3)))
        for system in ["bm25", "dense", "rerank"]
        for q in range(9)
        if not (system == "dense" and q in (1, 4)) and not (system == "rerank" and q in (4, 5))
        for i in range(4)
    ]
    df = pd.DataFrame(rows, columns=["system", "length", "query", "item", "rank", "relevance"])
    kw = dict(baseline=["rerank", "bm25"], by="length", missing=missing)
    got = rs.compare(to_spark(spark, df), METRICS, **kw)
    expected = rankframe.compare(df, METRICS, **kw)
    assert_same_comparison(got, expected, ["length", "metric", "system", "baseline"])
    counted = "n_filled" if missing == "zero" else "n_dropped"
    assert expected[counted].sum() > 0  # the case exercises the counts
