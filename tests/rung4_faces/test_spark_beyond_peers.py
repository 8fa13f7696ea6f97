"""The peers' own published values of issue 21, reproduced with their presets on Spark (``rankframe.spark.evaluate``).

The same fixtures and values as the pandas and DuckDB tests of ``tests/rung2_oracles/`` (test_beyond_peers_more.py,
test_beyond_serendipity.py, test_beyond_calibration.py), each with its source file named; Microsoft Recommenders'
Spark evaluation tests are in ``test_spark_beyond.py``. One Spark call per fixture, the inputs as Spark DataFrames.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sparkutil import collect, session, to_spark

import rankframe.spark as rs

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def spark():
    return session()


def _values(spark, recs: pd.DataFrame, metrics, per_query=False, **kw) -> list[float]:
    inputs = {k: to_spark(spark, v) if isinstance(v, pd.DataFrame) else v for k, v in kw.pop("inputs", {}).items()}
    got = rs.evaluate(to_spark(spark, recs), metrics, per_query=per_query, **inputs, **kw)
    got = collect(got) if not isinstance(got, pd.DataFrame) else got
    if per_query:
        got = got.sort_values(kw.get("columns", {}).get("query", "query"))
    return got["value"].astype(float).tolist()


def _table(rows: list[list]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query", "item", "rank"])


def test_rectools_avg_rec_popularity_and_mean_inv_user_freq(spark):
    # MobileTeleSystems/RecTools tests/metrics/test_popularity.py (TestAvgRecPopularity): k = 3 -> [2.5, 2.0, 1.5],
    # normalize=True -> [5/12, 1/3, 1/4]
    train = pd.DataFrame({"query": ["u1", "u1", "u2", "u2", "u3", "u3"], "item": ["i1", "i2", "i1", "i3", "i1", "i2"]})
    recs = _table([["u1", "i1", 1], ["u1", "i2", 2], ["u2", "i3", 1], ["u2", "i1", 2], ["u2", "i2", 3],
                   ["u3", "i3", 1], ["u3", "i2", 2]])  # fmt: skip
    got = _values(spark, recs, "ARP(like='rectools')@3", per_query=True, inputs={"train": train})
    assert got == pytest.approx([2.5, 2.0, 1.5], abs=1e-12)
    got = _values(
        spark, recs, "ARP(like='rectools', popularity_norm='total')@3", per_query=True, inputs={"train": train}
    )
    assert got == pytest.approx([5 / 12, 1 / 3, 0.25], abs=1e-12)
    # tests/metrics/test_novelty.py (TestMeanInvUserFreq), k = 2: [-log2(1/3), -log2(1/3), -log2(1/3) / 2]
    train = pd.DataFrame({"query": ["u1", "u1", "u2", "u3"], "item": ["i1", "i2", "i1", "i1"]})
    recs = _table([["u1", "i3", 1], ["u2", "i2", 1], ["u2", "i3", 2], ["u3", "i1", 1], ["u3", "i2", 2]])
    got = _values(spark, recs, "Novelty(like='rectools')@2", per_query=True, inputs={"train": train})
    assert got == pytest.approx([math.log2(3), math.log2(3), math.log2(3) / 2], abs=1e-12)


def test_evidently_popularity_bias_and_novelty(spark):
    # evidentlyai/evidently tests/metrics/recsys/test_popularity_bias.py test_curr_rank (apr 1.5, coverage 1.0,
    # gini 0.2 at k = 3) and test_novelty.py test_curr_rank (1.18872199999)
    curr = pd.DataFrame({"user_id": [1, 2, 2, 3, 3], "item_id": [3, 2, 3, 1, 2], "rank": [1, 1, 2, 1, 2]})
    train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [1, 2, 1, 1]})
    metrics = ["ARP(like='evidently')@3", "Coverage(like='evidently')@3", "Gini(like='evidently')@3",
               "Novelty(like='evidently')@3"]  # fmt: skip
    got = _values(spark, curr, metrics, columns={"query": "user_id", "item": "item_id"}, inputs={"train": train})
    assert got == pytest.approx([1.5, 1.0, 0.2, 1.18872199999], abs=1e-6)  # its np.isclose of a rounded value
    assert got[3] == pytest.approx((math.log2(3) + math.log2(3) / 2) / 2, abs=1e-12)  # hand: item 3 cold (user 1
    # out of the mean), item 2 -log2(1/3), item 1 -log2(3/3) = 0


def test_replay_coverage_and_lenskit_ils(spark):
    # sb-ai-lab/RePlay tests/metrics/test_metrics.py test_coverage_metric: Coverage(3)(recs, recs) == 0.9
    recs = pd.DataFrame(
        [(1, 3, 0.6), (1, 7, 0.5), (1, 10, 0.4), (1, 11, 0.3), (1, 2, 0.2), (2, 5, 0.6), (2, 8, 0.5), (2, 11, 0.4),
         (2, 1, 0.3), (2, 3, 0.2), (3, 4, 1.0), (3, 9, 0.5), (3, 2, 0.1)],
        columns=["query", "item", "score"],
    )  # fmt: skip
    got = _values(spark, recs, "Coverage(like='replay')@3", inputs={"train": recs[["query", "item"]]})
    assert got == pytest.approx([0.9], abs=1e-12)
    # lenskit/lkpy tests/eval/test_ils.py test_ils_partial_overlap: vectors (1, 0), (1, 0), (0, 1) -> 0.333 (abs 0.01)
    vectors = [[1, 0], [1, 0], [0, 1]]
    recs = _table([[1, i, i + 1] for i in range(len(vectors))])
    features = pd.DataFrame(
        [(i, f"c{j}", float(v)) for i, vec in enumerate(vectors) for j, v in enumerate(vec)],
        columns=["item", "feature", "value"],
    )
    got = _values(spark, recs, "ILD(like='lenskit')", inputs={"features": features})
    assert got == pytest.approx([0.333], abs=0.01)
    assert got == pytest.approx([1 / 3], abs=1e-12)  # hand: pairs (1, 0)·(1, 0) = 1, the two others 0: 1 / 3


def test_serendipity_presets(spark):
    # recommenders-team/recommenders tests/unit/recommenders/evaluation/test_python_evaluation.py
    # test_user_serendipity ([0.363915, 0.53455, 0.403775], TOL 1e-4) on conftest.py's diversity_data
    train = pd.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})
    reco = pd.DataFrame({"UserId": [1, 1, 2, 2, 3, 3], "ItemId": [3, 5, 2, 5, 1, 2], "Relevance": [1, 0, 1, 1, 1, 0]})
    reco["rank"] = reco.groupby("UserId").cumcount() + 1
    ms = {"query": "UserId", "item": "ItemId", "relevance": "Relevance"}
    got = _values(spark, reco, "Serendipity(like='recommenders')", per_query=True, columns=ms, inputs={"train": train})
    assert got == pytest.approx([0.363915, 0.53455, 0.403775], abs=1e-4)


def test_informfully_calibration(spark):
    # Informfully/Recommenders tests/cornac/metrics/test_diversity.py test_calibration: 3.039184897133893 (its
    # comment's unrounded value), one category per item
    recs = pd.DataFrame({"query": [1] * 5, "item": [1, 2, 3, 4, 5], "rank": [1, 2, 3, 4, 5]})
    train = pd.DataFrame({"query": [1] * 12, "item": [1, 2, 3, 4, 5, 9, 8, 7, 6, 2, 2, 3]})
    features = pd.DataFrame({"item": list(range(1, 10)), "feature": [str(i) for i in range(1, 10)]})
    got = _values(spark, recs, "Calibration(like='informfully')", inputs={"train": train, "features": features})
    assert got == pytest.approx([3.039184897133893], abs=1e-12)
    assert np.isfinite(got).all()
