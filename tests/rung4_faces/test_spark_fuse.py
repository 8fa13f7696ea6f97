"""rankframe.spark.fuse = rankframe.fuse (issue 22): the same input and fused rows, scores and ranks to 1e-12, on
random runs (3 systems, partial overlap, tied scores, a query one system lacks, a judged item no run retrieved)
whose queries are split across partitions; bad input raises the same RankframeError class and words."""

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
WEIGHTS = {"bm25": 0.5, "dense": 1.25, "splade": 0.8}
CASES = [
    ("rrf", {}),
    ("combsum", {"norm": "min-max"}),
    ("combmnz", {"norm": "zmuv"}),
    ("bordafuse", {}),
    ("wsum", {"weights": WEIGHTS}),
    ("rbc", {"phi": 0.6}),
    ("combsum", {"norm": "borda", "depth": 4}),
    ("combsum", {"depth": 3}),
]


def runs(seed: int = 3) -> pd.DataFrame:
    """3 systems x 8 queries, 1-8 of 10 items per run, scores on a 0.1 grid (ties); q7 only in bm25 and dense;
    an item judged in q0 that no run retrieved."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(8):
        for system in WEIGHTS if q < 7 else ["bm25", "dense"]:
            n = int(rng.integers(1, 9))
            items = rng.choice([f"d{i}" for i in range(10)], size=n, replace=False)
            scores = rng.integers(1, 8, size=n) / 10
            if n > 1 and len(set(scores)) == 1:
                scores[0] += 0.1
            # one judgment per (query, item), as in a real table (which row's a fused row takes follows row order)
            rows += [(system, f"q{q}", str(i), float((q + int(i[1:])) % 3), float(s)) for i, s in zip(items, scores)]
    rows.append(("bm25", "q0", "unretrieved", 2.0, np.nan))
    return pd.DataFrame(rows, columns=["system", "query", "item", "relevance", "score"])


@pytest.fixture(scope="module")
def spark():
    return session()


@pytest.fixture(scope="module")
def table():
    return runs()


@pytest.fixture(scope="module")
def sdf(spark, table):
    return to_spark(spark, table).repartition(3)  # round-robin: every query's rows spread over partitions


@pytest.mark.parametrize(("method", "kw"), CASES, ids=[f"{m}-{kw}" for m, kw in CASES])
def test_equals_pandas(sdf, table, method, kw):
    got = collect(rs.fuse(sdf, method, buckets=3, **kw))
    expected = rankframe.fuse(table, method, **kw)
    assert_same_rows(got, expected, ["system", "query", "item"], cols=("score", "relevance"), msg=method)


def test_rank_column_and_conventions(spark, table):
    # a rank column: the fused rows carry ranks 1..n as pandas (Qdrant's k=2, 0-based ranks)
    ranked = table.dropna(subset=["score"]).assign(
        rank=lambda d: (
            d.sort_values("item", ascending=False, kind="stable")
            .groupby(["system", "query"])["score"]
            .rank(method="first", ascending=False)
            .astype("int64")
        )
    )
    got = collect(rs.fuse(to_spark(spark, ranked).repartition(2), "rrf", k=2, rank_base=0, name="hybrid"))
    expected = rankframe.fuse(ranked, "rrf", k=2, rank_base=0, name="hybrid")
    assert_same_rows(got, expected, ["system", "query", "item"], cols=("score", "rank"))
    assert str(got["rank"].dtype) in ("int64", "Int64")


def _error(call) -> tuple[type, str]:
    with pytest.raises(RankframeError) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize(
    ("method", "kw", "edit"),
    [
        ("rfr", {}, None),  # unknown method (no job)
        ("rrf", {}, "one system"),
        ("wsum", {"weights": {**WEIGHTS, "colbert": 1.0}}, None),
        ("combsum", {}, "scales"),
        ("rrf", {"name": "dense"}, None),
    ],
)
def test_bad_input_same_error(spark, table, method, kw, edit):
    if edit == "one system":
        table = table[table["system"] == "bm25"]
    elif edit == "scales":
        table = table.assign(score=np.where(table["system"] == "dense", table["score"] * 100, table["score"]))
    sdf = to_spark(spark, table)
    assert _error(lambda: rs.fuse(sdf, method, **kw)) == _error(lambda: rankframe.fuse(table, method, **kw))
