"""rankframe.spark.evaluate with separate judgments (qrels=, qrels_columns=) equals rankframe.evaluate, and
rankframe.spark.fuse applies the long table's rules of rankframe.fuse (the same RankframeError class and rules).

Expected values are pandas rankframe.evaluate / rankframe.fuse on the same tables: the oracle of the Spark face
(tests/rung4_faces/test_spark.py); pandas' own values are held to trec_eval and the peers elsewhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sparkutil import assert_same_rows, collect, session, to_spark

import rankframe
import rankframe.spark as rs
from rankframe.core.errors import RankframeError

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

COLUMNS = {"query": "user_id", "item": "item_id", "rank": "position"}
QRELS_COLUMNS = {"relevance": "rating"}
METRICS = ["P@2", "R@3", "AP", "nDCG@3", "nDCG(like='rectools')@2", "RR", "NumRel"]


@pytest.fixture(scope="module")
def spark():
    return session()


def run() -> pd.DataFrame:
    # two systems; user 3 is retrieved by system B only; user 4 is judged but never retrieved (a unit of nothing
    # retrieved for each system); user 5 is retrieved but never judged (skipped by no_judged); B lists item 'z'
    # with a null rank (listed, not retrieved)
    rows = [
        ("A", 1, "a", 1), ("A", 1, "b", 2), ("A", 1, "c", 3),
        ("A", 2, "a", 1), ("A", 2, "d", 2),
        ("A", 5, "a", 1),
        ("B", 1, "c", 1), ("B", 1, "a", 2),
        ("B", 2, "d", 1), ("B", 2, "z", None),
        ("B", 3, "b", 1), ("B", 3, "e", 2),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["system", "user_id", "item_id", "position"])


def qrels() -> pd.DataFrame:
    rows = [(1, "a", 2.0), (1, "c", 1.0), (1, "x", 3.0), (2, "d", 0.0), (2, "y", 1.0), (3, "e", 1.0), (4, "a", 1.0)]
    return pd.DataFrame(rows, columns=["user_id", "item_id", "rating"])


@pytest.mark.parametrize("spark_qrels", [True, False], ids=["spark-qrels", "pandas-qrels"])
def test_evaluate_with_qrels_equals_pandas(spark, spark_qrels):
    sdf = to_spark(spark, run())
    q = to_spark(spark, qrels()) if spark_qrels else qrels()
    kw = dict(by="system", columns=COLUMNS, qrels_columns=QRELS_COLUMNS)
    got = collect(rs.evaluate(sdf, METRICS, qrels=q, per_query=True, **kw))
    expected = rankframe.evaluate(run(), METRICS, qrels=qrels(), per_query=True, **kw)
    assert len(expected) and 4 in set(expected["user_id"])  # the judged, never retrieved user is a unit
    assert_same_rows(got, expected, ["system", "user_id", "metric"])
    means = rs.evaluate(sdf, METRICS, qrels=q, **kw)
    pd.testing.assert_frame_equal(means, rankframe.evaluate(run(), METRICS, qrels=qrels(), **kw), rtol=1e-12)


def test_qrels_columns_default_to_columns(spark):
    # qrels_columns= omitted: the judgments take the run's names (columns=), as rankframe.evaluate
    named = qrels().rename(columns={"rating": "relevance"})
    kw = dict(by="system", columns=COLUMNS)
    got = collect(rs.evaluate(to_spark(spark, run()), METRICS, qrels=to_spark(spark, named), per_query=True, **kw))
    expected = rankframe.evaluate(run(), METRICS, qrels=named, per_query=True, **kw)
    assert_same_rows(got, expected, ["system", "user_id", "metric"])


def _error(call) -> tuple[type, object]:
    """The error's class and its broken rules, or its text.

    A ValidationError's examples may come in another order, and a rule's fix is in the face's words (Spark: ``cast
    it with F.col(...)``, pandas: ``df[...].astype``): the rule is compared up to its "; found dtype" part.
    """
    with pytest.raises(RankframeError) as info:
        call()
    err = info.value
    if isinstance(err, rankframe.ValidationError):
        return type(err), {(f["column"], f["rule"].split("; found dtype")[0], f["count"]) for f in err.failures}
    return type(err), str(err)


@pytest.mark.parametrize(
    "case", ["missing qrels column", "qrels_columns without qrels", "duplicate judgment", "id kinds", "graded run"]
)
def test_qrels_errors_as_pandas(spark, case):
    r, q, kw = run(), qrels(), dict(by="system", columns=COLUMNS, qrels_columns=QRELS_COLUMNS)
    if case == "missing qrels column":
        q = q.rename(columns={"rating": "grade"})
    elif case == "qrels_columns without qrels":
        q = None
    elif case == "duplicate judgment":
        q = pd.concat([q, q.head(1)], ignore_index=True)
    elif case == "id kinds":
        q = q.assign(user_id=q["user_id"].astype(str))
    else:
        r = r.assign(relevance=1.0)  # the run's own relevance column (columns= names none: 'relevance')
    sq = None if q is None else to_spark(spark, q)
    spark_error = _error(lambda: rs.evaluate(to_spark(spark, r), "AP", qrels=sq, **kw))
    assert spark_error == _error(lambda: rankframe.evaluate(r, "AP", qrels=q, **kw))


# --------------------------------------------------------------------------------------------------- fuse's rules
def runs() -> pd.DataFrame:
    rows = [
        ("bm25", "q1", "a", 1, 3.0), ("bm25", "q1", "b", 2, 2.0), ("bm25", "q2", "a", 1, 1.0),
        ("dense", "q1", "b", 1, 0.9), ("dense", "q1", "c", 2, 0.5), ("dense", "q2", "c", 1, 0.7),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "score"])


HOSTILE = {
    "null query": lambda d: d.assign(query=d["query"].where(d.index != 1, None)),
    "null item": lambda d: d.assign(item=d["item"].where(d.index != 2, None)),
    "null system": lambda d: d.assign(system=d["system"].where(d.index != 0, None)),
    "bool rank": lambda d: d.assign(rank=d["rank"] > 1),
    "text rank": lambda d: d.assign(rank=d["rank"].astype(str)),
    "text score": lambda d: d.drop(columns="rank").assign(score=d["score"].astype(str)),
    "bool score": lambda d: d.drop(columns="rank").assign(score=d["score"] > 1),
    "infinite score": lambda d: d.drop(columns="rank").assign(score=d["score"].where(d.index != 3, np.inf)),
    "repeated rank": lambda d: d.assign(rank=d["rank"].where(d.index != 1, 1)),
    "rank 0": lambda d: d.assign(rank=d["rank"] - 1),
    "repeated item": lambda d: d.assign(item=d["item"].where(d.index != 1, "a")),
}


@pytest.mark.parametrize("method", ["rrf", "combsum"])
@pytest.mark.parametrize("case", list(HOSTILE))
def test_fuse_applies_the_long_tables_rules(spark, case, method):
    table = HOSTILE[case](runs())
    expected = _error(lambda: rankframe.fuse(table, method))
    assert _error(lambda: collect(rs.fuse(to_spark(spark, table), method))) == expected


def test_fuse_of_a_clean_table_is_unchanged(spark):
    got = collect(rs.fuse(to_spark(spark, runs()), "combsum", norm="min-max"))
    expected = rankframe.fuse(runs(), "combsum", norm="min-max")
    assert_same_rows(got, expected, ["system", "query", "item"], cols=("score",))


def test_compare_with_qrels_equals_pandas(spark):
    kw = dict(baseline="A", columns=COLUMNS, qrels_columns=QRELS_COLUMNS)
    metrics = ["AP", "nDCG@3"]
    got = rs.compare(to_spark(spark, run()), metrics, qrels=to_spark(spark, qrels()), **kw)
    expected = rankframe.compare(run(), metrics, qrels=qrels(), test="t", **kw)
    keys = ["metric", "system", "baseline", "n", "mean", "baseline_mean", "delta", "p_value"]
    pd.testing.assert_frame_equal(got[keys].reset_index(drop=True), expected[keys].reset_index(drop=True), rtol=1e-9)
