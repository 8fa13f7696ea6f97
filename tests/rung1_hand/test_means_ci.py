"""Means say how many queries they average, and ``ci=`` adds the t-interval of each mean.

Oracle: scipy.stats.ttest_1samp on the per-query values of each segment and metric (its standard error and
confidence_interval(level)); n by hand from the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe
from rankframe.core.constraints import LEVEL


def table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for q in range(40):
        seg = "short" if q < 25 else "long"
        grades = rng.integers(0, 3, 8)
        rows += [{"query": q, "item": i, "rank": i + 1, "relevance": int(g), "seg": seg} for i, g in enumerate(grades)]
    rows.append({"query": 99, "item": 0, "rank": 1, "relevance": 1, "seg": "single"})  # a one-query segment
    return pd.DataFrame(rows)


def test_n_counts_the_queries_of_each_mean(engine):
    got = rankframe.evaluate(table(), ["AP", "P@5"], by="seg", engine=engine)
    assert list(got.columns) == ["seg", "metric", "value", "n"]
    assert dict(zip(zip(got["seg"], got["metric"]), got["n"])) == {
        ("long", "AP"): 15,
        ("long", "P@5"): 15,
        ("short", "AP"): 25,
        ("short", "P@5"): 25,
        ("single", "AP"): 1,
        ("single", "P@5"): 1,
    }


def test_ci_equals_scipy_ttest_1samp_per_segment(engine):
    df = table()
    got = rankframe.evaluate(df, ["AP", "nDCG@5"], by="seg", ci=0.9, engine=engine)
    per_query = rankframe.evaluate(df, ["AP", "nDCG@5"], by="seg", per_query=True, engine=engine)
    assert list(got.columns) == ["seg", "metric", "value", "n", "std_err", "ci_low", "ci_high"]
    for row in got.itertuples(index=False):
        values = per_query.loc[(per_query["seg"] == row.seg) & (per_query["metric"] == row.metric), "value"]
        if len(values) < 2:
            assert row.n == 1 and np.isnan(row.std_err) and np.isnan(row.ci_low) and np.isnan(row.ci_high)
            continue
        res = stats.ttest_1samp(values.to_numpy(), 0.0)
        interval = res.confidence_interval(0.9)
        assert row.value == pytest.approx(values.mean(), abs=1e-12)
        assert row.std_err == pytest.approx(stats.sem(values), abs=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx((interval.low, interval.high), abs=1e-12)


def test_ci_through_the_accessor_and_bad_levels():
    df = table()
    one = df.rank_metrics.ap(ci=0.95)
    assert set(one.index) == {"value", "n", "std_err", "ci_low", "ci_high"} and one["n"] == 41
    per_seg = df.rank_metrics.ap(ci=0.95, by="seg")
    assert list(per_seg.index) == ["long", "short", "single"]
    for bad in (0, 1, 1.5, "0.95", True):
        with pytest.raises(
            rankframe.ParameterError, match=r"'ci' parameter of evaluate must be a float in the open"
        ) as e:
            rankframe.evaluate(df, ["AP"], ci=bad)
        # the one declared rule of a confidence level (compare's, anova's and segment_means' too): its words
        assert (e.value.parameter, e.value.expected) == ("ci", LEVEL.describe())
    with pytest.raises(rankframe.ParameterError, match=r"does not apply with per_query=True"):
        rankframe.evaluate(df, ["AP"], ci=0.95, per_query=True)


def test_every_query_skipped_gives_an_empty_frame_with_the_columns(engine):
    # one query with retrieved rows and no judgment: no_judged="skip" (the default) leaves no unit to average
    df = pd.DataFrame({"query": [1], "item": [1], "rank": [1], "relevance": [np.nan], "seg": ["a"]})
    got = rankframe.evaluate(df, ["AP"], by="seg", engine=engine, ci=0.95)
    assert list(got.columns) == ["seg", "metric", "value", "n", "std_err", "ci_low", "ci_high"] and got.empty
    overall = rankframe.evaluate(df, ["AP"], engine=engine)
    assert list(overall["n"]) == [0] and np.isnan(overall["value"].iloc[0])
