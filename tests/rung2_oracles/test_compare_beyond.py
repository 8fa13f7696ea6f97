"""rankframe.compare and rankframe.anova on the per-list beyond-accuracy metrics (ARP, APLT, Novelty): their
per-query values take the paired tests as they are; the set-level metrics are compared by a paired bootstrap
(tests/rung2_oracles/test_set_level_bootstrap.py) and anova refuses them with the reason.

Oracle: scipy's ttest_rel on evaluate's per-query values, and a hand case.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from scipy import stats as sps

import rankframe
from rankframe.core.errors import ParameterError

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
LIST_METRICS = ["ARP@10", "APLT@10", "Novelty(cold='zero')@10"]


@pytest.fixture(scope="module")
def paired():
    df = pd.read_parquet(PAIRED)
    train = df.loc[df["relevance"].fillna(0) > 0, ["query", "item"]].drop_duplicates()
    return df, train


def test_per_list_metrics_match_scipy_on_their_per_query_values(paired):
    df, train = paired
    out = rankframe.compare(df, LIST_METRICS, baseline="bm25", by="length", train=train)
    per = rankframe.evaluate(df, LIST_METRICS, by=["length", "system"], per_query=True, train=train)
    wide = per.pivot(index=["length", "metric", "query"], columns="system", values="value")
    assert len(out) == 2 * 3 * 2
    for r in out.itertuples():
        block = wide.xs((r.length, r.metric), level=["length", "metric"])
        d = block[r.system] - block[r.baseline]
        assert r.delta == pytest.approx(d.mean(), abs=1e-12)
        if d.std() > 0:
            assert r.p_value == pytest.approx(sps.ttest_rel(block[r.system], block[r.baseline]).pvalue, rel=1e-9)


def test_hand_case_arp():
    # two systems, two users; train: item x seen by users u1 and u2 (pop 2), item y by u1 (pop 1), z by nobody (cold,
    # popularity 0 with cold='zero'). A recommends x, y to u1 (ARP 3/2) and x, z to u2 (1); B recommends y, z to u1
    # (1/2) and y, z to u2 (1/2). Differences B - A: -1, -1/2: delta -3/4.
    recs = pd.DataFrame(
        {
            "system": ["A"] * 4 + ["B"] * 4,
            "query": ["u1", "u1", "u2", "u2"] * 2,
            "item": ["x", "y", "x", "z", "y", "z", "y", "z"],
            "rank": [1, 2] * 4,
        }
    )
    train = pd.DataFrame({"query": ["u1", "u2", "u1"], "item": ["x", "x", "y"]})
    out = rankframe.compare(recs, "ARP", baseline="A", train=train)
    assert out["delta"].iloc[0] == pytest.approx(-0.75) and out["n"].iloc[0] == 2


@pytest.mark.parametrize("metric", ["Gini@10", "Coverage@10", "Entropy@10", "Personalization@10"])
def test_set_level_metrics_are_refused_by_anova_with_the_reason(paired, metric):
    df, train = paired
    catalog = {"catalog": list(df["item"].unique())} if metric.startswith(("Gini", "Coverage")) else {}
    with pytest.raises(ParameterError, match="a set-level metric has no value per query"):
        rankframe.anova(df, [metric], train=train, **catalog)
    out = rankframe.compare(df, [metric, "ARP@10"], baseline="bm25", train=train, n_resamples=200, **catalog)
    assert list(out["metric"].unique()) == [metric, "ARP@10"]


def test_rows_aggregate_is_set_level_and_compared_by_the_bootstrap(paired):
    df, train = paired
    out = rankframe.compare(df, ["ARP(aggregate='rows')@10"], baseline="bm25", train=train, n_resamples=200)
    assert out.attrs["test"] == "bootstrap" and out["note"].str.startswith("set-level metric").all()


def test_anova_takes_per_list_metrics(paired):
    df, train = paired
    out = rankframe.anova(df, ["ARP@10"], train=train)
    per = rankframe.evaluate(df, ["ARP@10"], by=["system"], per_query=True, train=train)
    from statsmodels.stats.anova import AnovaRM

    res = AnovaRM(per, "value", "query", within=["system"]).fit().anova_table
    assert out["statistic"].iloc[0] == pytest.approx(res["F Value"].iloc[0], rel=1e-9)


def test_calibration_matches_scipy_on_its_per_query_values(paired):
    # Calibration reads each query's history (train=) and item genres (features=): its per-query values are compared
    # like any per-list metric; a list without a known history is NaN on both sides and left out of the pairs
    df, train = paired
    items = pd.unique(df["item"])
    features = pd.DataFrame({"item": items, "feature": [f"g{i % 5}" for i in range(len(items))]})
    metric = "Calibration(divergence='js')@10"
    out = rankframe.compare(df, metric, baseline="bm25", train=train, features=features)
    per = rankframe.evaluate(df, metric, by="system", per_query=True, train=train, features=features)
    wide = per.pivot(index="query", columns="system", values="value").dropna()
    assert len(out) == 2
    for r in out.itertuples():
        d = wide[r.system] - wide[r.baseline]
        assert r.delta == pytest.approx(d.mean(), abs=1e-12) and r.n == len(d)
        assert r.p_value == pytest.approx(sps.ttest_rel(wide[r.system], wide[r.baseline]).pvalue, rel=1e-9)
