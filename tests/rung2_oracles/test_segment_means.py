"""rankframe.segment_means: intervals of per-segment means and of differences between segments (unpaired).

Oracles: evaluate(ci=)'s t interval and scipy.stats.ttest_ind(equal_var=False)'s Welch interval (to 1e-12);
the percentile interval of the difference recomputed here from the documented resample streams (to 1e-12);
scipy.stats.bootstrap (percentile and BCa, one and two samples) within the Monte Carlo error of 100,000 resamples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import rankframe
from rankframe import segment_means
from rankframe.core.errors import ParameterError
from rankframe.segments import _segment_intervals
from rankframe.stats.bootstrap import SPAWN_KEY
from rankframe.stats.randomization import CHUNK_ELEMENTS

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


def _per(groups: dict[str, np.ndarray]) -> pd.DataFrame:
    """A per-query frame (evaluate's per_query form) with one metric 'M' and one segment column 'g'."""
    parts = [pd.DataFrame({"g": g, "query": [f"{g}{i}" for i in range(len(v))], "metric": "M", "value": v})
             for g, v in groups.items()]  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def _skewed(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.minimum(rng.exponential(0.3, size=n), 1.0)


def test_t_method_is_evaluates_interval_and_welch():
    df = pd.read_parquet(PAIRED)
    out = segment_means(df, ["nDCG@5", "AP"], by=["system", "length"], versus={"length": "short"}, ci_method="t")
    ev = rankframe.evaluate(df, ["nDCG@5", "AP"], by=["system", "length"], ci=0.95)
    merged = out.merge(ev, on=["system", "length", "metric"], suffixes=("", "_ev"))
    np.testing.assert_allclose(merged["ci_low"], merged["ci_low_ev"], rtol=1e-12)
    np.testing.assert_allclose(merged["ci_high"], merged["ci_high_ev"], rtol=1e-12)
    per = rankframe.evaluate(df, ["nDCG@5", "AP"], by=["system", "length"], per_query=True)
    for r in out[out["length"] == "long"].itertuples():
        a = per[(per.system == r.system) & (per.length == "long") & (per.metric == r.metric)].value
        b = per[(per.system == r.system) & (per.length == "short") & (per.metric == r.metric)].value
        if a.std() == 0 and b.std() == 0:  # hybrid's RR is 1 everywhere: a zero-width interval at the difference
            continue
        ref = sps.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
        assert (r.delta_low, r.delta_high) == pytest.approx((ref.low, ref.high), rel=1e-12)
        assert r.delta == pytest.approx(a.mean() - b.mean(), abs=1e-15)
    assert out[out["length"] == "short"][["delta", "delta_low", "delta_high"]].isna().all().all()


def _means_of(values: np.ndarray, seg: int, n_seg: int, n_resamples: int, seed: int) -> np.ndarray:
    """Segment ``seg``'s resampled means, drawn as documented (child seg of SeedSequence(seed, (0xB007,)))."""
    n = values.size
    child = np.random.SeedSequence(seed, spawn_key=SPAWN_KEY).spawn(n_seg)[seg]
    rng = np.random.Generator(np.random.PCG64(child))
    step = max(1, CHUNK_ELEMENTS // n)
    idx = np.concatenate(
        [rng.integers(0, n, size=(min(step, n_resamples - a), n)) for a in range(0, n_resamples, step)]
    )
    return values[idx].mean(axis=1)


def test_percentile_difference_from_the_same_resamples():
    rng = np.random.default_rng(4)
    groups = {"a": _skewed(rng, 23), "b": _skewed(rng, 40), "c": _skewed(rng, 9)}
    out = _segment_intervals(_per(groups), ["M"], ["g"], "query", {"g": "b"}, 0.9, "bootstrap", 4001, 12)
    # the rows of a segment are its queries in sorted order ("a0", "a1", "a10", ...): the draws index them so
    groups = {g: v[np.argsort([f"{g}{i}" for i in range(v.size)])] for g, v in groups.items()}
    for s, g in enumerate(groups):
        if g == "b":
            continue
        diff = _means_of(groups[g], s, 3, 4001, 12) - _means_of(groups["b"], 1, 3, 4001, 12)
        row = out[out.g == g].iloc[0]
        assert row.delta_low == pytest.approx(np.quantile(diff, 0.05), rel=1e-12, abs=1e-14)
        assert row.delta_high == pytest.approx(np.quantile(diff, 0.95), rel=1e-12, abs=1e-14)
        one = _means_of(groups[g], s, 3, 4001, 12)
        assert row.ci_low == pytest.approx(np.quantile(one, 0.05), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("method", ["bootstrap", "bca"])
@pytest.mark.parametrize("sizes", [(10, 14), (30, 60)])
def test_agrees_with_scipy_bootstrap(method, sizes):
    rng = np.random.default_rng(sum(sizes))
    a, b = _skewed(rng, sizes[0]), _skewed(rng, sizes[1])
    out = _segment_intervals(_per({"a": a, "b": b}), ["M"], ["g"], "query", {"g": "b"}, 0.95, method, 100_000, 1)
    scipy_method = "BCa" if method == "bca" else "percentile"
    two = sps.bootstrap(
        (a, b), lambda u, v, axis: u.mean(axis) - v.mean(axis), n_resamples=100_000, method=scipy_method,
        rng=np.random.default_rng(2),
    ).confidence_interval  # fmt: skip
    one = sps.bootstrap((a,), np.mean, n_resamples=100_000, method=scipy_method, rng=np.random.default_rng(3))
    row = out[out.g == "a"].iloc[0]
    width = two.high - two.low
    assert (row.delta_low, row.delta_high) == pytest.approx((two.low, two.high), abs=0.02 * width)
    w1 = one.confidence_interval.high - one.confidence_interval.low
    assert (row.ci_low, row.ci_high) == pytest.approx(tuple(one.confidence_interval), abs=0.02 * w1)


def test_hostile_inputs_and_edge_cases():
    df = pd.read_parquet(PAIRED)
    df = df[df.system == "bm25"]  # one system: the length segments are a valid table
    before = df.copy()
    with pytest.raises(ParameterError, match="by="):
        segment_means(df, "AP", by=[])
    with pytest.raises(ParameterError, match="versus"):
        segment_means(df, "AP", by="length", versus={"lenght": "short"})
    with pytest.raises(ParameterError, match="names no segment"):
        segment_means(df, "AP", by="length", versus="medium")
    with pytest.raises(ParameterError, match="versus"):
        segment_means(df, "AP", by=["system", "length"], versus="short")  # several by columns: a dict
    with pytest.raises(ParameterError, match="ci_method"):
        segment_means(df, "AP", by="length", ci_method="tukey")
    with pytest.raises(ParameterError, match="'ci'"):
        segment_means(df, "AP", by="length", ci=95)
    with pytest.raises(ParameterError, match="output column"):
        segment_means(df.rename(columns={"length": "delta"}), "AP", by="delta")
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is untouched
    # one query in a segment: no interval; a segment without a reference: no difference
    per = _per({"a": np.array([0.5]), "b": np.array([0.2, 0.4, 0.9]), "c": np.array([0.1, 0.3])})
    per.loc[per.g == "c", "g"] = "c"
    out = _segment_intervals(per, ["M"], ["g"], "query", {"g": "b"}, 0.95, "bca", 500, 0)
    a = out[out.g == "a"].iloc[0]
    assert a.n == 1 and np.isnan(a.ci_low) and np.isnan(a.delta_low)
    c = out[out.g == "c"].iloc[0]
    assert c.delta == pytest.approx(0.2 - 0.5) and c.delta_low <= c.delta <= c.delta_high
    out = segment_means(df, "AP", by="length", seed=3, n_resamples=300)
    assert out.attrs["seed"] == 3 and out.attrs["ci_method"] == "bootstrap" and out["delta"].isna().all()


def test_bca_difference_from_the_same_resamples():
    # BCa of mean(a) - mean(b) written out (scipy.stats.bootstrap's _bca_interval for two independent samples):
    # z0 from the share of resampled differences below the estimate (ties half), the acceleration from the
    # jackknife of each sample in turn, U_ji = (n_j - 1) * (mean of theta_j(.) - theta_j(i)),
    # a = sum_j sum_i U_ji^3 / n_j^3 / (6 * (sum_j sum_i U_ji^2 / n_j^2)^(3/2))
    rng = np.random.default_rng(9)
    groups = {"a": _skewed(rng, 17), "b": _skewed(rng, 31)}
    out = _segment_intervals(_per(groups), ["M"], ["g"], "query", {"g": "b"}, 0.9, "bca", 3001, 5)
    groups = {g: v[np.argsort([f"{g}{i}" for i in range(v.size)])] for g, v in groups.items()}
    a, b = groups["a"], groups["b"]
    diff = _means_of(a, 0, 2, 3001, 5) - _means_of(b, 1, 2, 3001, 5)
    theta = a.mean() - b.mean()
    z0 = sps.norm.ppf(((diff < theta).sum() + (diff <= theta).sum()) / (2 * diff.size))
    num = den = 0.0
    for j, sample in enumerate((a, b)):
        n = sample.size
        th = np.array([
            (np.delete(a, i).mean() - b.mean()) if j == 0 else (a.mean() - np.delete(b, i).mean()) for i in range(n)
        ])  # fmt: skip
        u = (n - 1) * (th.mean() - th)
        num += (u**3).sum() / n**3
        den += (u**2).sum() / n**2
    acc = num / (6 * den**1.5)
    za = sps.norm.ppf(0.05)
    lev = [sps.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in (za, -za)]
    row = out[out.g == "a"].iloc[0]
    # z0 compares resampled and original means computed differently here (indexing): continuous data, no ties
    assert row.delta_low == pytest.approx(np.quantile(diff, lev[0]), rel=1e-9)
    assert row.delta_high == pytest.approx(np.quantile(diff, lev[1]), rel=1e-9)
    pct = _segment_intervals(_per(groups), ["M"], ["g"], "query", {"g": "b"}, 0.9, "bootstrap", 3001, 5)
    assert pct[pct.g == "a"].delta_low.iloc[0] != pytest.approx(row.delta_low, rel=1e-6)  # BCa moved it


def test_docs_example_is_current():
    doc = (PAIRED.parents[1] / "docs" / "comparing.md").read_text()
    df = pd.read_parquet(PAIRED)
    out = segment_means(df, "nDCG@5", by=["system", "length"], versus={"length": "short"}, seed=1)
    for line in out.round(4).to_string(index=False).splitlines():
        assert "\n" + line + "\n" in doc, line
    # the accessor is the same call
    via = df.rank_metrics.segment_means("nDCG@5", by=["system", "length"], versus={"length": "short"}, seed=1)
    pd.testing.assert_frame_equal(pd.DataFrame(via), pd.DataFrame(out))
