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
