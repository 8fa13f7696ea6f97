"""rankframe.spark.anova equals rankframe.anova: the ANOVA table, the interaction and Sakai's pairs, from Spark
sufficient statistics, on random multi-system tables with segments, groups and every missing policy."""

from __future__ import annotations

import numpy as np
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
METRICS = ["AP@5", "nDCG@3", "P@2"]


@pytest.fixture(scope="module")
def spark():
    return session()


def _table(seed: int, holes: bool) -> pd.DataFrame:
    """3 systems x 12 queries, segments 'site' (a, b) and groups 'length' (short, long); with ``holes``, dense lacks
    queries 1 and 7 and rerank query 7 (misaligned on purpose)."""
    rng = np.random.default_rng(seed)
    rows = []
    for system in ["bm25", "dense", "rerank"]:
        for q in range(12):
            if holes and ((system == "dense" and q in (1, 7)) or (system == "rerank" and q == 7)):
                continue
            site, length = ("a" if q < 6 else "b"), ("short" if q % 2 else "long")
            for i in range(5):
                rank = i + 1 if rng.random() < 0.9 else None
                rows.append((system, site, length, f"q{q}", f"d{i}", rank, int(rng.integers(0, 3))))
    return pd.DataFrame(rows, columns=["system", "site", "length", "query", "item", "rank", "relevance"])


def assert_same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected)
    for c in got.columns:
        a, b = got[c], expected[c]
        if pd.api.types.is_float_dtype(b):
            a, b = a.to_numpy(np.float64), b.to_numpy(np.float64)
            same = (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b))
            close = np.abs(a - b) <= 1e-9 * np.maximum(1.0, np.abs(b))
            assert (same | close).all(), (c, got, expected)
        else:
            assert [None if pd.isna(v) else v for v in a] == [None if pd.isna(v) else v for v in b], c
    for key in ("missing", "interaction", "filled", "dropped", "effect_size"):
        assert got.attrs.get(key) == expected.attrs.get(key), key


@pytest.mark.parametrize(
    "seed, kw",
    [
        (1, dict()),
        (2, dict(by="site")),
        (3, dict(interaction="length")),
        (4, dict(by="site", interaction="length", missing="zero")),
        (5, dict(interaction="length", missing="drop")),
        (6, dict(by="site", pairs=True, missing="zero")),
        (7, dict(by="site", random="query")),
        (8, dict(interaction="length", random="query", missing="drop")),
    ],
)
def test_anova_equals_pandas(spark, seed, kw):
    df = _table(seed, holes="missing" in kw)
    got = rs.anova(to_spark(spark, df), METRICS, **kw)
    expected = rankframe.anova(df, METRICS, **kw)
    assert_same(got, expected)
    assert expected["note"].isna().all()  # every term has a value: the case compares numbers, not notes


def test_equal_systems_and_too_few_queries_are_the_same_notes(spark):
    # two identical systems on 2 queries (every value equal: no test), in segment a; one query in segment b
    rows = [(s, "a", q, "d", 1, q % 2) for s in "AB" for q in (1, 2)] + [(s, "b", 3, "d", 1, 1) for s in "AB"]
    df = pd.DataFrame(rows, columns=["system", "site", "query", "item", "rank", "relevance"])
    got = rs.anova(to_spark(spark, df), ["RR"], by="site")
    expected = rankframe.anova(df, ["RR"], by="site")
    assert_same(got, expected)
    assert expected["note"].notna().all()


def test_the_same_errors(spark):
    df = _table(1, holes=True)
    for kw, error in [
        (dict(), rankframe.ValidationError),  # misaligned queries
        (dict(interaction="site", by="site"), rankframe.ParameterError),
        (dict(missing="fill"), rankframe.ParameterError),
    ]:
        with pytest.raises(error) as pandas_err:
            rankframe.anova(df, ["AP"], **kw)
        with pytest.raises(error) as spark_err:
            rs.anova(to_spark(spark, df), ["AP"], **kw)
        assert str(spark_err.value).split("\n")[0] == str(pandas_err.value).split("\n")[0]
    twice = _table(1, holes=False)
    twice.loc[(twice["system"] == "dense") & (twice["query"] == "q0"), "length"] = "short"  # q0 in two groups
    with pytest.raises(rankframe.ValidationError) as pandas_err:
        rankframe.anova(twice, ["AP"], interaction="length", missing="zero")
    with pytest.raises(rankframe.ValidationError) as spark_err:
        rs.anova(to_spark(spark, twice), ["AP"], interaction="length", missing="zero")
    assert spark_err.value.failures[0]["rule"] == pandas_err.value.failures[0]["rule"]
    assert spark_err.value.failures[0]["count"] == pandas_err.value.failures[0]["count"] == 1
