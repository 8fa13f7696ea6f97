"""rankframe.spark.agreement equals rankframe.agreement (two coders): the same table, notes and errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sparkutil import session, to_spark

import rankframe
import rankframe.spark as rs

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.mark.spark
def test_spark_agreement_equals_pandas():
    spark = session()
    rng = np.random.default_rng(11)
    n = 200
    df = pd.DataFrame({"query": rng.integers(0, 30, n), "item": np.arange(n), "topic": rng.choice(["a", "b", "c"], n),
                       "human": rng.choice([0.0, 1, 2, 3], n), "llm": rng.choice([0.0, 1, 2, 3], n)})  # fmt: skip
    df.loc[rng.random(n) < 0.05, "llm"] = np.nan
    df.loc[df["topic"] == "c", ["human", "llm"]] = 2.0  # one label: kappa undefined there
    sdf = to_spark(spark, df)
    for kwargs in ({}, {"weights": "quadratic"}, {"weights": "linear", "rel": 2}, {"labels": [0, 1, 2, 3, 4]}):
        got = rs.agreement(sdf, by="topic", **kwargs)
        want = rankframe.agreement(df, by="topic", **kwargs)
        assert got["topic"].tolist() == want["topic"].tolist() and got["n"].tolist() == want["n"].tolist()
        for c in ("agreement", "kappa"):
            np.testing.assert_allclose(got[c].to_numpy(float), want[c].to_numpy(float), rtol=0, atol=1e-12)
        assert got["note"].tolist() == want["note"].tolist()
        assert got.attrs == want.attrs
    with pytest.raises(rankframe.ValidationError, match="outside the scale") as err:
        rs.agreement(sdf, labels=[0, 1])
    assert err.value.failures[0]["column"] == "human"
    with pytest.raises(rankframe.ValidationError, match="item must be unique"):
        rs.agreement(to_spark(spark, pd.concat([df, df.iloc[:1]])))
    with pytest.raises(rankframe.ParameterError, match="did you mean 'quadratic'"):
        rs.agreement(sdf, weights="quadratik")


@pytest.mark.spark
def test_spark_rbp_residual_equals_pandas():
    # the residual (issue 37) on Spark: rankframe.spark.evaluate runs the numpy kernels per bucket of queries, so every
    # tail= convention gives the pandas engine's per-query values (tests/rung2_oracles/test_rbp_residual.py holds those
    # to trec_eval's, cwl_eval's and trectools' own numbers); unjudged rows (null relevance) are the holes
    spark = session()
    rng = np.random.default_rng(5)
    n_q, depth = 12, 15
    df = pd.DataFrame({"query": np.repeat(np.arange(n_q), depth), "item": np.tile(np.arange(depth), n_q),
                       "rank": np.tile(np.arange(1, depth + 1), n_q), "seg": np.repeat(np.arange(n_q) % 3, depth),
                       "relevance": rng.choice([0.0, 1.0, 2.0, np.nan], n_q * depth)})  # fmt: skip
    metrics = [f"RBP(p=0.8, residual=True, tail='{t}')@10" for t in ("cwl", "trec_eval", "trectools")]
    metrics += ["RBP(p=0.5, residual=True)", "Judged@10"]
    got = rs.evaluate(to_spark(spark, df), metrics, by="seg", per_query=True).toPandas()
    want = rankframe.evaluate(df, metrics, by="seg", per_query=True)
    key = ["seg", "query", "metric"]
    got, want = got.sort_values(key).reset_index(drop=True), want.sort_values(key).reset_index(drop=True)
    assert got[key].astype(str).equals(want[key].astype(str))
    np.testing.assert_allclose(got["value"].to_numpy(float), want["value"].to_numpy(float), rtol=0, atol=1e-12)
