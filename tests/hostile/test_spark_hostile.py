"""Hostile inputs on rankframe.spark: the same RankframeError (and wording) as the pandas face, raised from Spark
jobs (no collect of the table), never a raw pyspark exception."""

from __future__ import annotations

import pandas as pd
import pytest
from sparkutil import session, to_spark

import rankframe
import rankframe.spark as rs

pytestmark = [
    pytest.mark.spark,
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


def test_wrong_types_name_the_dtype_the_rows_and_the_fix(spark):
    # 3 non-null strings that all parse, 3 bools: every row offends in both columns (pandas counts the same)
    df = good().assign(relevance=["1", "0", "2"], rank=[True, False, True])
    with pytest.raises(rankframe.ValidationError) as err:
        rs.evaluate(to_spark(spark, df), "AP")
    text = str(err.value)
    assert (
        "relevance must be numeric (null = unjudged); found dtype string: convert the column with "
        "F.col('`relevance`').cast('double') (3 offending row(s))" in text
    )
    assert "rank must be numeric (null = judged but not retrieved); found dtype boolean: convert" in text
    with pytest.raises(rankframe.ValidationError) as pandas_err:
        rankframe.validate(df)
    counts = {(f["column"], f["rule"].split("; found")[0], f["count"]) for f in pandas_err.value.failures}
    assert {(f["column"], f["rule"].split("; found")[0], f["count"]) for f in err.value.failures} == counts
    # a value that does not parse: named, its row shown first, the count of non-null rows (2: None is a null)
    words = good().assign(relevance=["high", None, "2"])
    with pytest.raises(rankframe.ValidationError) as err:
        rs.evaluate(to_spark(spark, words), "AP")
    (failure,) = err.value.failures
    assert "1 value(s) do not parse as numbers (such as 'high')" in failure["rule"] and failure["count"] == 2
    assert failure["examples"]["relevance"].tolist() == ["high"]
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
        # engine='sql' (Spark SQL for five metrics) is retired (issue 20): the error says so and names the engine left
        (dict(metrics="AP", engine="sql"), rankframe.ParameterError, r"must be one of 'pandas'\. .*retired"),
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


def test_a_forgotten_by_is_named_as_on_pandas(spark):
    # the same rows for models m1 and m2: every (query, item) repeats, and 'model' tells the copies apart
    df = pd.concat([good().assign(model="m1"), good().assign(model="m2")], ignore_index=True)
    with pytest.raises(rankframe.ValidationError) as spark_err:
        rs.evaluate(to_spark(spark, df), "AP")
    with pytest.raises(rankframe.ValidationError) as pandas_err:
        rankframe.validate(df)
    assert "rows repeat (query, item) but differ in column 'model': did you mean by='model'?" in str(spark_err.value)
    assert rules(spark_err.value) == rules(pandas_err.value)


ODD = {"query": "q`x", "item": "a.b", "rank": "r`.k", "relevance": "g r.a`de"}


def odd_runs() -> pd.DataFrame:
    """Two systems; names with backticks, dots and spaces. Hand values (AP, grade >= 1 relevant):
    A: q1 a rank 1 grade 0, b rank 2 grade 1 -> AP = (1/2) / 1 = 1/2; q2 a rank 1 grade 2 -> AP = 1; mean 3/4.
    B: q1 b rank 1 grade 1, a rank 2 grade 0 -> AP = 1;                q2 as A -> AP = 1; mean 1. B - A = 1/4.
    """
    a = pd.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "b", "a"], "rank": [1.0, 2.0, 1.0]})
    a = a.assign(relevance=[0.0, 1.0, 2.0], **{"s.y`s": "A", "se`g.x": ["s", "s", "t"]})
    b = a.assign(rank=[2.0, 1.0, 1.0], **{"s.y`s": "B"})
    return pd.concat([a, b], ignore_index=True).rename(columns=ODD)


def test_column_names_with_backticks_and_dots(spark):
    df = odd_runs()
    sdf = to_spark(spark, df)
    got = rs.evaluate(sdf, "AP", by=["s.y`s", "se`g.x"], columns=ODD, per_query=True)
    got = got.toPandas() if hasattr(got, "toPandas") else got
    values = {(r["s.y`s"], r["q`x"]): r["value"] for _, r in got.iterrows()}
    assert values == pytest.approx({("A", "q1"): 0.5, ("A", "q2"): 1.0, ("B", "q1"): 1.0, ("B", "q2"): 1.0})
    means = rs.evaluate(sdf, "AP", by="s.y`s", columns=ODD)
    assert dict(zip(means["s.y`s"], means["value"])) == pytest.approx({"A": 0.75, "B": 1.0})


def test_odd_names_in_validation_and_compare(spark):
    df = odd_runs()
    sdf = to_spark(spark, df)
    cmp = rs.compare(sdf, "AP", baseline="A", columns={**ODD, "system": "s.y`s"}, system="s.y`s")
    assert cmp["delta"].tolist() == pytest.approx([0.25])
    # every rule on odd names: a forgotten system column, a bad rank, a null id, a non-numeric grade
    bad = df.assign(**{"r`.k": [1.0, 0.5, 1.0, 2.0, 1.0, 1.0]})
    with pytest.raises(rankframe.ValidationError) as err:
        rs.evaluate(to_spark(spark, bad), "AP", columns=ODD)
    text = str(err.value)
    assert "rank must be an integer >= 1" in text
    assert "differ in column 's.y`s': did you mean by='s.y`s'?" in text
    texty = df.assign(**{"g r.a`de": "x"})
    with pytest.raises(rankframe.ValidationError, match=r"found dtype string: 6 value\(s\) do not parse"):
        rs.evaluate(to_spark(spark, texty), "AP", columns=ODD, by="s.y`s")


def test_validate_reads_by_as_pandas_does(spark):
    # by="model" is one column (not its letters); the same ParameterError as rankframe.validate for a repeat
    df = pd.concat([good().assign(model="m1"), good().assign(model="m2")], ignore_index=True)
    rs.validate(to_spark(spark, df), by="model")
    with pytest.raises(rankframe.ParameterError, match=r"The 'by' parameter of validate names column 'model' twice"):
        rs.validate(to_spark(spark, df), by=["model", "model"])
