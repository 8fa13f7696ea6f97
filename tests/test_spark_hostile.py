"""Hostile inputs on rankframe.spark: the same RankframeError (and wording) as the pandas face, raised from Spark
jobs (no collect of the table), never a raw pyspark exception."""

from __future__ import annotations

import pandas as pd
import pytest
from sparkutil import session, to_spark

import rankframe
import rankframe.spark as rs

pytestmark = [
    pytest.mark.xdist_group("spark"),  # one JVM when the suite runs with --dist loadgroup
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def spark():
    return session()


def good() -> pd.DataFrame:
    return pd.DataFrame(
        {"query": ["q1", "q1", "q2"], "item": ["a", "b", "a"], "rank": [1.0, 2.0, 1.0], "relevance": [1.0, 0.0, 2.0]}
    )


def rules(err: rankframe.ValidationError) -> set[tuple[str, str, int]]:
    return {(f["column"], f["rule"], f["count"]) for f in err.failures}


def test_every_broken_rule_at_once_with_the_pandas_wording(spark):
    # a null query, a duplicated (query, item) row, a duplicated rank, ranks 0 and 2.5, an infinite grade
    bad = pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", None, "q2", "q2"],
            "item": ["a", "a", "b", "c", "x", "y"],
            "rank": [1.0, 2.0, 2.0, 1.0, 0.0, 2.5],
            "relevance": [1.0, 0.0, float("inf"), 1.0, 0.0, None],
        }
    )
    with pytest.raises(rankframe.ValidationError) as pandas_err:
        rankframe.validate(bad)
    with pytest.raises(rankframe.ValidationError) as spark_err:
        rs.evaluate(to_spark(spark, bad), "AP")
    assert rules(spark_err.value) == rules(pandas_err.value)
    assert len(spark_err.value.failures) == 5
    # example rows come along (at most 5 per rule), as in the pandas message
    assert all(len(f["examples"]) for f in spark_err.value.failures if f["count"])
    assert "pass allow_duplicates=True" in str(spark_err.value)


def test_missing_columns_with_a_hint(spark):
    sdf = to_spark(spark, good().rename(columns={"relevance": "relevanse", "rank": "rnk"}))
    with pytest.raises(rankframe.ValidationError) as err:
        rs.evaluate(sdf, "AP")
    text = str(err.value)
    assert "column 'relevance' not in dataframe (did you mean 'relevanse'?)" in text
    assert "neither a rank column 'rank' nor a score column 'score'" in text
    with pytest.raises(rankframe.ValidationError, match="'country' not in dataframe"):
        rs.evaluate(to_spark(spark, good()), "AP", by="country")


def test_wrong_types_are_schema_errors_without_a_job(spark):
    df = good().assign(relevance=["1", "0", "2"], rank=[True, False, True])
    with pytest.raises(rankframe.ValidationError) as err:
        rs.evaluate(to_spark(spark, df), "AP")
    text = str(err.value)
    assert "relevance must be numeric (null = unjudged); found string" in text
    assert "rank must be numeric (null = judged but not retrieved); found boolean" in text
    nested = to_spark(spark, good()).selectExpr("array(query) AS query", "item", "rank", "relevance")
    with pytest.raises(
        rankframe.ValidationError, match="query holds nested values \\(array<string>\\), which are not allowed"
    ):
        rs.evaluate(nested, "AP")


def test_duplicates_rejected_unless_allowed(spark):
    df = pd.concat([good(), good().iloc[[0]].assign(rank=3.0)], ignore_index=True)
    sdf = to_spark(spark, df)
    with pytest.raises(rankframe.ValidationError) as err:
        rs.evaluate(sdf, "P@2")
    assert rules(err.value) == {
        ("item", "item must be unique within each (query) (pass allow_duplicates=True to keep repeated rows)", 2)
    }
    got = rs.evaluate(sdf, "P@2", allow_duplicates=True)
    assert got["value"].tolist() == rankframe.evaluate(df, "P@2", allow_duplicates=True)["value"].tolist()


def test_names_colliding_with_output_columns(spark):
    df = good().assign(metric="x", value=1)
    sdf = to_spark(spark, df)
    for by in ["metric", "value"]:
        with pytest.raises(rankframe.ParameterError) as pandas_err:
            rankframe.evaluate(df, "AP", by=by)
        with pytest.raises(rankframe.ParameterError) as spark_err:
            rs.evaluate(sdf, "AP", by=by)
        assert str(spark_err.value) == str(pandas_err.value)
    # a user column named like rankframe's internal bucket column does not collide
    odd = to_spark(spark, good().assign(__rankframe_bucket=7))
    assert rs.evaluate(odd, "AP")["value"].iloc[0] == rankframe.evaluate(good(), "AP")["value"].iloc[0]


def test_bad_parameters_and_inputs(spark):
    sdf = to_spark(spark, good())
    cases = [
        (dict(metrics="nDGC@10"), rankframe.UnknownMetricError, "did you mean"),
        (dict(metrics=[]), rankframe.ParameterError, "at least one metric"),
        (dict(metrics="AP", per_query="yes"), rankframe.ParameterError, "'per_query' parameter"),
        (dict(metrics="AP", per_query=True, ci=0.9), rankframe.ParameterError, "per_query"),
        (dict(metrics="AP", buckets=0), rankframe.ParameterError, "'buckets' parameter"),
        (dict(metrics="AP", engine="duckdb"), rankframe.ParameterError, "'engine' parameter"),
        (dict(metrics="ERR@5", engine="sql"), rankframe.ParameterError, "engine='pandas'"),
        (dict(metrics="AP(denominator='min_k')@5", engine="sql"), rankframe.ParameterError, "engine='pandas'"),
        (dict(metrics="AP", no_relevant="skipp"), rankframe.ParameterError, "no_relevant"),
        (dict(metrics="ERR(max_grade=1)"), rankframe.ParameterError, "max_grade=2"),
    ]
    for kw, error, text in cases:
        with pytest.raises(error, match=text):
            rs.evaluate(sdf, **kw)
    with pytest.raises(rankframe.ValidationError, match="expected a Spark DataFrame, got DataFrame"):
        rs.evaluate(good(), "AP")  # a pandas frame: use rankframe.evaluate


def test_empty_table(spark):
    empty = to_spark(spark, good()).limit(0)
    assert rs.evaluate(empty, "AP", per_query=True).count() == 0
    got = rs.evaluate(empty, ["AP", "RR"])
    expected = rankframe.evaluate(good().iloc[:0], ["AP", "RR"])
    assert got["metric"].tolist() == expected["metric"].tolist() and got["n"].tolist() == expected["n"].tolist()


@pytest.mark.parametrize("face", ["evaluate", "compare"])
def test_a_spark_frame_given_to_the_one_machine_face_points_to_rankframe_spark(spark, face):
    # collecting to the driver would be the silent trap: the error names the Spark face and the small-table escape
    sdf = to_spark(spark, good().assign(system="s"))
    call = {"evaluate": lambda: rankframe.evaluate(sdf, "AP"), "compare": lambda: rankframe.compare(sdf, "AP")}[face]
    with pytest.raises(rankframe.ParameterError) as err:
        call()
    text = str(err.value)
    assert f"rankframe.spark.{face}(sdf" in text and "toPandas()" in text and "'df'" in text
