"""The intent-aware diversity family on ``rankframe.spark.evaluate`` (issue 38): equal to ``rankframe.evaluate(...,
engine='pandas')`` to 1e-12 on seeded tables (tied scores, by=, the default convention and like='ndeval' /
like='tf_ranking', alpha/beta/rel, the query-set policies, a NaN grade, an unjudged run query, a judged query no run
retrieves), the qrels as a Spark or a pandas frame; hostile inputs raise the pandas face's error class and rule;
the caller's frames are left as they were; rankframe.spark.compare and rankframe.spark.anova equal rankframe.compare
and rankframe.anova. Expected values are the pandas face's, itself checked against ndeval
and hand derivations (tests/rung2_oracles/test_intent_ndeval.py, tests/rung1_hand/test_intent_hand.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sparkutil import assert_same_rows, collect, session, to_spark

import rankframe
import rankframe.spark as rs
from rankframe.core.errors import ParameterError, RankframeError, ValidationError

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

#: every measure of the family, both presets, the parameters, and an accuracy metric read from the collapsed qrels
METRICS = [
    "alpha_nDCG@5",
    "alpha_nDCG(alpha=0.3, like='ndeval')@3",
    "alpha_DCG(like='tf_ranking')@4",
    "alpha_DCG",
    "ERR_IA(like='ndeval')@5",
    "nERR_IA@5",
    "NRBP(beta=0.8)",
    "nNRBP(like='ndeval')",
    "P_IA(rel=2)@5",
    "P_IA(like='tf_ranking')@3",
    "AP_IA",
    "StRecall@2",
    "nDCG@5",
]


@pytest.fixture(scope="module")
def spark():
    return session()


def tables(seed: int, ids: type = str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run of two systems over queries 0..5 (scores on a 0.1 grid: ties) and a subtopic qrels of queries 0..4 and
    6: query 5 is unjudged, query 6 retrieved by no system, query 4 has no relevant item; one grade is NaN."""
    rng = np.random.default_rng(seed)
    rows = []
    for system in ("s1", "s2"):
        for q in range(6):
            for item in rng.choice(10, size=int(rng.integers(1, 7)), replace=False):
                rows.append((system, q, item, float(rng.integers(1, 5)) / 10))
    run = pd.DataFrame(rows, columns=["system", "query", "item", "score"])
    judged = []
    for q in (0, 1, 2, 3, 4, 6):
        for subtopic in range(1, int(rng.integers(2, 4)) + 1):
            for item in rng.choice(10, size=int(rng.integers(1, 5)), replace=False):
                judged.append((q, subtopic, item, float(rng.integers(0, 3))))
    # the top item of (s1, query 0): relevant on subtopic 8, NaN (unjudged) on 9, so its largest grade is 2 (NaN
    # skipped, as pandas' max skips it); the other metrics read that grade
    top = run[(run["system"] == "s1") & (run["query"] == 0)].sort_values("score").iloc[-1]["item"]
    judged += [(0, 8, top, 2.0), (0, 9, top, np.nan)]
    qrels = pd.DataFrame(judged, columns=["query", "aspect", "item", "relevance"])
    qrels.loc[1, "relevance"] = np.nan
    qrels.loc[qrels["query"] == 4, "relevance"] = 0.0  # judged, nothing relevant: the no_relevant policy's query
    if ids is str:
        run = run.assign(query="q" + run["query"].astype(str), item="d" + run["item"].astype(str))
        qrels = qrels.assign(query="q" + qrels["query"].astype(str), item="d" + qrels["item"].astype(str))
    return run, qrels


@pytest.mark.spark
@pytest.mark.slow
def test_per_query_equals_pandas_by_system_spark_qrels(spark):
    """One Spark call: per query, by=['system'], no_relevant='nan', a Spark qrels with a renamed subtopic column."""
    run, qrels = tables(1)
    kw = dict(by=["system"], per_query=True, qrels_columns={"subtopic": "aspect"}, no_relevant="nan")
    expected = rankframe.evaluate(run, METRICS, qrels=qrels, engine="pandas", **kw)
    from pyspark.sql import functions as F

    # pandas' NaN arrives as a null: made a real NaN here (NaN and null are both unjudged)
    judged = to_spark(spark, qrels).withColumn("relevance", F.coalesce("relevance", F.lit(float("nan"))))
    got = collect(rs.evaluate(to_spark(spark, run), METRICS, qrels=judged, buckets=3, **kw))
    assert_same_rows(got, expected, ["system", "query", "metric"])
    assert set(expected["metric"]) == set(METRICS)
    assert expected["value"].isna().any()  # the policy is exercised (query q4 has no relevant subtopic)


@pytest.mark.spark
@pytest.mark.slow
def test_means_equal_pandas_pandas_qrels(spark):
    """Two Spark calls: the means (frame, dtypes and all) with a pandas qrels of integer ids, the policies set."""
    run, qrels = tables(2, ids=int)
    run_before, qrels_before = run.copy(), qrels.copy()
    one = run[run["system"] == "s1"].drop(columns="system")
    for table, kw in (
        (one, dict(no_relevant="skip", no_retrieved="zero")),
        (run, dict(by="system", no_relevant="zero", ci=0.9)),
    ):
        expected = rankframe.evaluate(table, METRICS, qrels=qrels, qrels_columns={"subtopic": "aspect"}, **kw)
        got = rs.evaluate(to_spark(spark, table), METRICS, qrels=qrels, qrels_columns={"subtopic": "aspect"}, **kw)
        pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12, atol=1e-12)
    pd.testing.assert_frame_equal(run, run_before)  # the caller's frames, unchanged
    pd.testing.assert_frame_equal(qrels, qrels_before)


def _raised(call) -> Exception:
    with pytest.raises(Exception) as info:
        call()
    return info.value


def _rules(err: Exception) -> list[str]:
    return [f["rule"] for f in err.failures] if isinstance(err, ValidationError) else []


@pytest.mark.spark
@pytest.mark.slow
def test_hostile_inputs_raise_the_pandas_class(spark):
    """Each broken input: the pandas face's error class (and rule words), from a Spark and from a pandas qrels."""
    run, qrels = tables(3)
    qrels = qrels.rename(columns={"aspect": "subtopic"})
    null = qrels.astype({"subtopic": "float64"})
    null.loc[2, "subtopic"] = np.nan
    infinite = qrels.copy()
    infinite.loc[3, "relevance"] = np.inf
    cases = {
        "no subtopic column": (["alpha_nDCG@3"], qrels.drop(columns="subtopic").drop_duplicates(["query", "item"])),
        "null subtopic": (["P@2", "ERR_IA@3"], null),
        "repeated rows": (["alpha_nDCG@3"], pd.concat([qrels, qrels.iloc[:2]], ignore_index=True)),
        "infinite grade": (["StRecall@2"], infinite),
    }
    sdf = to_spark(spark, run)
    for case, (metrics, table) in cases.items():
        before = table.copy()
        expected = _raised(lambda: rankframe.evaluate(run, metrics, qrels=table))
        assert isinstance(expected, (ParameterError, ValidationError)), case
        for given in (table, to_spark(spark, table)):
            err = _raised(lambda: rs.evaluate(sdf, metrics, qrels=given))
            assert type(err) is type(expected), (case, err)
            assert _rules(err) == _rules(expected), case
        pd.testing.assert_frame_equal(table, before)
    # a grade that does not parse as a number: the "relevance must be numeric" rule naming the value, never an
    # unjudged row (a pandas object column on the driver, a Spark string column by a Spark job)
    text = qrels.astype({"relevance": object})
    text.loc[4, "relevance"] = "many"
    for given in (text, to_spark(spark, text.astype({"relevance": str}))):
        err = _raised(lambda: rs.evaluate(sdf, ["alpha_nDCG@3"], qrels=given))
        assert isinstance(err, ValidationError) and [f["column"] for f in err.failures] == ["relevance"], err
        rule = err.failures[0]["rule"]
        assert rule.startswith("relevance must be numeric (null = unjudged)") and "'many'" in rule, rule
    # argument rules: raised before any Spark job, in the pandas face's class
    for metrics, kw in (
        (["alpha_nDCG(alpha=1.5)@3"], dict(qrels=qrels)),
        (["NRBP(beta=-0.1)"], dict(qrels=qrels)),
        (["P_IA(alpha=0.2)@3"], dict(qrels=qrels)),
        (["ERR_IA@3"], {}),  # no qrels=
    ):
        expected = _raised(lambda: rankframe.evaluate(run.assign(relevance=1), metrics, **kw))
        err = _raised(lambda: rs.evaluate(sdf.withColumn("relevance", sdf["score"]), metrics, **kw))
        assert type(err) is type(expected), (metrics, err)
        assert isinstance(err, RankframeError), (metrics, err)
    # the face that still refuses the family: the recommender form (train=, features=: no Spark face serves it)
    with pytest.raises(ParameterError, match=r"alpha_nDCG.*@3: the intent-aware diversity measures"):
        rs.evaluate(sdf, ["alpha_nDCG(like='informfully')@3"], qrels=qrels)


@pytest.mark.spark
@pytest.mark.slow
def test_compare_and_anova_equal_pandas(spark):
    """rankframe.spark.compare and rankframe.spark.anova on a subtopic qrels: rankframe.compare's / rankframe.anova's
    frames, dtypes and all (2 systems; the qrels join scores both systems on the judged query q6 no run retrieves;
    no_relevant='zero' keeps q4 in both). Spark's statistics come from sufficient statistics: values to 1e-9."""
    run, qrels = tables(4)
    run_before, qrels_before = run.copy(), qrels.copy()
    kw = dict(qrels_columns={"subtopic": "aspect"}, no_relevant="zero")
    sdf, judged = to_spark(spark, run), to_spark(spark, qrels)
    expected = rankframe.compare(run, METRICS, qrels=qrels, baseline="s1", test="t", **kw)
    got = rs.compare(sdf, METRICS, qrels=judged, baseline="s1", **kw)
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-9, atol=1e-12)
    # q0..q4 and q6 (judged, retrieved by no system: a unit of each system); q5 is unjudged (no_judged skips it)
    assert set(expected["metric"]) == set(METRICS) and (expected["n"] == 6).all()
    expected = rankframe.anova(run, METRICS, qrels=qrels, **kw)
    got = rs.anova(sdf, METRICS, qrels=qrels, **kw)  # a pandas qrels, handed to the session
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-9, atol=1e-12)
    pd.testing.assert_frame_equal(run, run_before)  # the caller's frames, unchanged
    pd.testing.assert_frame_equal(qrels, qrels_before)
