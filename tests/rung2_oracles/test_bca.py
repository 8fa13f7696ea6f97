"""BCa bootstrap interval (ci_method="bca", rankframe.stats.bootstrap_ci(method="bca")).

Oracles: (1) the BCa formulas written out here (Efron & Tibshirani 1993, 14.3: bias correction z0 from the share of
resampled means below the estimate, acceleration from the jackknife) on the very resamples rankframe draws (the
documented streams, regenerated here), equal to 1e-12; (2) scipy.stats.bootstrap(method="BCa") on its own
resamples, equal within the Monte Carlo error of 100,000 resamples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankframe import compare, stats
from rankframe.core.errors import ParameterError
from rankframe.stats.bootstrap import SPAWN_KEY
from rankframe.stats.randomization import CHUNK_ELEMENTS

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


def _resampled_means(d: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """The (B, columns) resampled means of one segment, drawn as rankframe documents: child 0 of
    SeedSequence(seed, spawn_key=(0xB007,)), n indices per resample, in chunks of CHUNK_ELEMENTS // n resamples."""
    n = d.shape[0]
    child = np.random.SeedSequence(seed, spawn_key=SPAWN_KEY).spawn(1)[0]
    rng = np.random.Generator(np.random.PCG64(child))
    step = max(1, CHUNK_ELEMENTS // n)
    idx = np.concatenate(
        [rng.integers(0, n, size=(min(step, n_resamples - a), n)) for a in range(0, n_resamples, step)]
    )
    # the mean as a count-weighted sum (rankframe's arithmetic): at small n many resamples hold every query once, and
    # their mean must equal the estimate exactly, as in exact arithmetic, for z0's count of means below it
    counts = np.stack([np.bincount(row, minlength=n) for row in idx]).astype(np.float64)
    return counts @ d / n


def _bca_by_hand(d: np.ndarray, means: np.ndarray, level: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    n, b = d.shape[0], means.shape[0]
    theta = np.ones(n) @ d / n  # = a resample drawing every query once
    z0 = sps.norm.ppf(((means < theta).sum(0) + (means <= theta).sum(0)) / (2 * b))
    jack = np.stack([np.delete(d, i, axis=0).mean(axis=0) for i in range(n)])  # leave-one-out means
    u = jack.mean(axis=0) - jack
    acc = (u**3).sum(0) / (6 * (u**2).sum(0) ** 1.5)
    alpha = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    za = sps.norm.ppf(alpha)
    a1 = sps.norm.cdf(z0 + (z0 + za) / (1 - acc * (z0 + za)))
    a2 = sps.norm.cdf(z0 + (z0 - za) / (1 - acc * (z0 - za)))
    low = np.array([np.quantile(means[:, c], a1[c]) for c in range(d.shape[1])])
    high = np.array([np.quantile(means[:, c], a2[c]) for c in range(d.shape[1])])
    return low, high


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("n", [6, 13, 40, 300])
def test_bca_equals_the_formulas_on_the_same_resamples(n, alternative):
    rng = np.random.default_rng(n)
    d = np.column_stack([rng.exponential(size=n) - 0.4, rng.normal(size=n), rng.gamma(0.5, size=n)])
    res = stats.bootstrap_ci(d, np.zeros_like(d), np.array([0, n]), 0.9, 3001, seed=5, alternative=alternative,
                             method="bca")  # fmt: skip
    low, high = _bca_by_hand(d, _resampled_means(d, 3001, 5), 0.9, alternative)
    if alternative != "less":
        np.testing.assert_allclose(res.ci_low[0], low, rtol=1e-12, atol=1e-14)
    else:
        assert (res.ci_low[0] == -np.inf).all()
    if alternative != "greater":
        np.testing.assert_allclose(res.ci_high[0], high, rtol=1e-12, atol=1e-14)
    else:
        assert (res.ci_high[0] == np.inf).all()


@pytest.mark.parametrize("n", [8, 25, 120])
def test_bca_agrees_with_scipy(n):
    rng = np.random.default_rng(100 + n)
    d = rng.exponential(size=n) - 0.5  # skewed: BCa moves away from the percentile interval
    ours = stats.bootstrap_ci(d, np.zeros(n), np.array([0, n]), 0.95, 100_000, seed=1, method="bca")
    ref = sps.bootstrap((d,), np.mean, n_resamples=100_000, method="BCa", rng=np.random.default_rng(2))
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert ours.ci_low[0, 0] == pytest.approx(ref.confidence_interval.low, abs=0.02 * width)
    assert ours.ci_high[0, 0] == pytest.approx(ref.confidence_interval.high, abs=0.02 * width)
    pct = stats.bootstrap_ci(d, np.zeros(n), np.array([0, n]), 0.95, 100_000, seed=1)
    # the correction is larger than the Monte Carlo error: BCa is not the percentile interval here
    assert abs(pct.ci_high[0, 0] - ours.ci_high[0, 0]) > 0.02 * width


def test_constant_one_query_and_several_segments():
    # constant differences: every resampled mean is 0.25, the acceleration is 0/0 -> the interval [0.25, 0.25];
    # one query: NaN; segments with NaN (queries outside a comparison) take their own draws
    x = np.array([[0.5], [0.75], [0.5], [1.0], [0.2], [0.4], [0.1], [np.nan], [0.3]])
    y = np.array([[0.25], [0.5], [0.25], [0.9], [0.0], [0.0], [0.3], [0.2], [0.3]])
    res = stats.bootstrap_ci(x, y, np.array([0, 3, 4, 9]), seed=0, method="bca")
    assert (res.ci_low[0, 0], res.ci_high[0, 0]) == (0.25, 0.25)
    assert np.isnan(res.ci_low[1, 0]) and np.isnan(res.ci_high[1, 0])
    assert res.ci_low[2, 0] < res.ci_high[2, 0]


def test_compare_ci_method_bca():
    df = pd.read_parquet(PAIRED)
    out = compare(df, ["nDCG@5", "AP"], baseline="bm25", ci_method="bca", seed=3, n_resamples=2000)
    assert out.attrs["ci_method"] == "bca" and out.attrs["seed"] == 3 and out.attrs["n_resamples"] == 2000
    assert (out.ci_low <= out.delta).all() and (out.delta <= out.ci_high).all()
    pct = compare(df, ["nDCG@5", "AP"], baseline="bm25", ci_method="bootstrap", seed=3, n_resamples=2000)
    assert not np.allclose(out.ci_low, pct.ci_low)  # the same resamples, read at other levels
    with pytest.raises(ParameterError, match="ci_method"):
        compare(df, "AP", baseline="bm25", ci_method="BCA-t")


def test_docs_example_is_current():
    doc = (PAIRED.parents[1] / "docs" / "comparing.md").read_text()
    df = pd.read_parquet(PAIRED)
    out = compare(df, "RR", baseline="bm25", by="length", ci_method="bca", seed=7)
    for line in (
        out[["length", "system", "n", "delta", "ci_low", "ci_high"]].round(4).to_string(index=False).splitlines()
    ):
        assert "\n" + line + "\n" in doc, line
    pct = compare(df, "RR", baseline="bm25", by="length", ci_method="bootstrap", seed=7)
    r = pct[(pct["length"] == "short") & (pct["system"] == "hybrid")].iloc[0]
    assert f"gives `[{r.ci_low:.4f}, {r.ci_high:.4f}]` for that row" in doc
