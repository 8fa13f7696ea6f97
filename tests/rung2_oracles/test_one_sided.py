"""One-sided tests and the non-inferiority margin, held to scipy and statsmodels on random paired designs.

t-test: ``scipy.stats.ttest_rel(alternative=...)`` (statistic, p-value, ``confidence_interval`` one-sided bound);
margin: ``statsmodels.stats.weightstats.ttost_paired`` (its lower test is H0 delta <= low = -margin) and
``scipy.stats.ttest_1samp(d, -margin, alternative="greater")``; Wilcoxon: ``scipy.stats.wilcoxon(alternative=...)``
with the method named; randomization: ``scipy.stats.permutation_test(alternative=...)`` (exact enumeration);
bootstrap: ``scipy.stats.bootstrap(alternative=..., method="percentile")`` in distribution.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.weightstats import ttost_paired

import rankframe
from rankframe import stats
from rankframe.compare import compare
from rankframe.core.errors import ParameterError

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
SIDES = ["two-sided", "greater", "less"]


def _design(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """3 comparisons of n queries: continuous, P@10-like (tenths) and a system slightly above the baseline."""
    rng = np.random.default_rng(seed)
    x, y = rng.random((n, 3)), rng.random((n, 3))
    x[:, 1], y[:, 1] = np.round(x[:, 1], 1), np.round(y[:, 1], 1)
    x[:, 2] = np.clip(y[:, 2] + rng.normal(0.05, 0.2, n), 0, 1)
    return x, y


@pytest.mark.parametrize("n", [2, 3, 7, 40, 500, 5000])
@pytest.mark.parametrize("alternative", SIDES)
def test_ttest_alternative_matches_scipy(n, alternative):
    x, y = _design(n, n)
    res = stats.ttest(stats.summarize(x, y, np.array([0, n])), 0.9, alternative)
    for c in range(3):
        if np.all(x[:, c] == y[:, c]):
            continue
        ref = sps.ttest_rel(x[:, c], y[:, c], alternative=alternative)
        ci = ref.confidence_interval(0.9)
        assert res.statistic[0, c] == pytest.approx(ref.statistic, rel=1e-9)
        assert res.pvalue[0, c] == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)
        assert res.ci_low[0, c] == pytest.approx(ci.low, rel=1e-9, abs=1e-12)
        assert res.ci_high[0, c] == pytest.approx(ci.high, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n", [2, 5, 30, 2000])
@pytest.mark.parametrize("margin", [0.0, 0.01, 0.1])
def test_margin_is_the_lower_test_of_statsmodels_ttost_paired(n, margin):
    x, y = _design(n, 100 + n)
    res = stats.ttest(stats.summarize(x, y, np.array([0, n])), 0.95, "greater", margin)
    for c in range(3):
        _, (t1, p1, df1), _ = ttost_paired(x[:, c], y[:, c], -margin, 1.0)
        assert res.statistic[0, c] == pytest.approx(t1, rel=1e-9)
        assert res.pvalue[0, c] == pytest.approx(p1, rel=1e-8)
        assert res.df[0, c] == df1
        one = sps.ttest_1samp(x[:, c] - y[:, c], -margin, alternative="greater")
        assert res.pvalue[0, c] == pytest.approx(one.pvalue, rel=1e-8)
        # non-inferiority shown at level 0.95 <=> the one-sided 95% lower bound of delta lies above -margin
        assert (res.pvalue[0, c] < 0.05) == (res.ci_low[0, c] > -margin)


def _wilcoxon_oracle(d: np.ndarray, alternative: str) -> float:
    """scipy's signed-rank p-value with rankframe's method rule (tests/stats_oracle.py), for any alternative."""
    nz = d[d != 0]
    tied = np.unique(np.abs(nz)).size < nz.size
    if not tied and nz.size == d.size and d.size <= 50:
        return float(sps.wilcoxon(d, method="exact", alternative=alternative).pvalue)
    if d.size <= 13:
        ranks = sps.rankdata(np.abs(nz))
        return float(
            sps.permutation_test(
                (nz,),
                lambda v, axis: np.sum(np.where(v > 0, ranks, 0.0), axis=axis),
                permutation_type="samples",
                n_resamples=np.inf,
                vectorized=True,
                alternative=alternative,
            ).pvalue
        )
    return float(sps.wilcoxon(d, method="asymptotic", correction=False, alternative=alternative).pvalue)


@pytest.mark.parametrize("n", [5, 12, 30, 80, 400])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_wilcoxon_alternative_matches_scipy(n, alternative):
    x, y = _design(n, 200 + n)
    res = stats.wilcoxon_test(x, y, np.array([0, n]), alternative)
    for c in range(3):
        d = np.round(x[:, c] - y[:, c], 12)
        assert res.pvalue[0, c] == pytest.approx(_wilcoxon_oracle(d, alternative), rel=1e-9)
        # one-sided, scipy reports W+ (the sum of the ranks of the positive differences)
        assert res.statistic[0, c] == pytest.approx(sps.wilcoxon(d, alternative=alternative).statistic)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_randomization_alternative_matches_scipy_permutation_test_exactly(alternative):
    n = 9  # 2**9 = 512 <= n_resamples: both enumerate every sign pattern
    x, y = _design(n, 7)
    res = stats.sign_flip_test(x, y, np.array([0, n]), n_resamples=1000, seed=0, alternative=alternative)
    assert res.exact[0]
    for c in range(3):
        ref = sps.permutation_test(
            (x[:, c], y[:, c]),
            lambda a, b, axis: np.mean(a - b, axis=axis),
            permutation_type="samples",
            vectorized=True,
            n_resamples=1000,
            alternative=alternative,
        )
        assert res.pvalue[0, c] == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomization_one_sided_random_flips_agree_with_scipy_in_distribution():
    # n = 60: random sign flips. The null distribution of sum(d) under sign flips is symmetric, so on the side of
    # the observed sum the one-sided p is half the two-sided one; on the other side it is at least 1 - that (more
    # by P(T* = T) when the values are discrete). B = 20000 gives a Monte Carlo sd < 0.004
    x, y = _design(60, 8)
    off = np.array([0, 60])
    two = stats.sign_flip_test(x, y, off, n_resamples=20_000, seed=1).pvalue[0]
    d = (x - y).mean(axis=0)
    for alternative in ("greater", "less"):
        one = stats.sign_flip_test(x, y, off, n_resamples=20_000, seed=2, alternative=alternative).pvalue[0]
        right = (d > 0) == (alternative == "greater")
        np.testing.assert_allclose(one[right], two[right] / 2, atol=0.02)
        assert (one[~right] >= 1 - two[~right] / 2 - 0.02).all()


def test_bootstrap_one_sided_bound_matches_scipy_in_distribution():
    x, y = _design(40, 9)
    B = 20_000
    for alternative in ("greater", "less"):
        res = stats.bootstrap_ci(x, y, np.array([0, 40]), 0.9, n_resamples=B, seed=5, alternative=alternative)
        for c in range(3):
            a, b = x[:, c], y[:, c]
            ref = sps.bootstrap(
                (a, b),
                lambda u, v, axis: np.mean(u - v, axis=axis),
                paired=True,
                vectorized=True,
                n_resamples=B,
                method="percentile",
                confidence_level=0.9,
                alternative=alternative,
                rng=np.random.default_rng(6),
            ).confidence_interval
            se = (a - b).std(ddof=1) / np.sqrt(len(a))
            assert res.ci_low[0, c] == pytest.approx(ref.low, abs=0.15 * se)  # inf == inf, -inf == -inf
            assert res.ci_high[0, c] == pytest.approx(ref.high, abs=0.15 * se)


# ----------------------------------------------------------------------------------------- through compare


@pytest.fixture(scope="module")
def paired() -> pd.DataFrame:
    return pd.read_parquet(PAIRED)


def test_compare_rows_match_scipy_for_each_alternative_and_the_margin(paired):
    per = rankframe.evaluate(paired, ["AP"], by=["length", "system"], per_query=True)
    wide = per.pivot(index=["length", "query"], columns="system", values="value")
    for kw in (dict(alternative="greater"), dict(alternative="less"), dict(margin=0.05)):
        out = compare(paired, "AP", baseline="bm25", by="length", ci=0.9, **kw)
        assert out.attrs["alternative"] == kw.get("alternative", "greater")
        assert out.attrs["margin"] == kw.get("margin")
        for r in out.itertuples():
            a, b = wide.loc[r.length][r.system].to_numpy(), wide.loc[r.length]["bm25"].to_numpy()
            if "margin" in kw:
                ref = sps.ttest_1samp(a - b, -0.05, alternative="greater")
            else:
                ref = sps.ttest_rel(a, b, alternative=kw["alternative"])
            ci = sps.ttest_rel(a, b, alternative=out.attrs["alternative"]).confidence_interval(0.9)
            assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
            assert r.p_value == pytest.approx(ref.pvalue, rel=1e-9)
            assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-10)


def test_identical_systems_are_non_inferior_with_a_margin():
    # B = A on both queries: every difference is 0. Without a margin there is no p-value (no evidence either
    # way); with margin 0.1 the test of delta + 0.1 > 0 has t = 0.1 / 0 = +inf and p = 0 (scipy's ttest_1samp of
    # two zeros against -0.1 says the same), so the gate passes for an unchanged system.
    df = pd.DataFrame(
        {
            "system": ["A", "B"] * 2,
            "query": ["q1", "q1", "q2", "q2"],
            "item": ["a"] * 4,
            "rank": [1] * 4,
            "relevance": [1, 1, 0, 0],
        }
    )
    plain = compare(df, "P@1", baseline="A").iloc[0]
    assert np.isnan(plain["p_value"]) and plain["note"].startswith("identical on every query")
    gate = compare(df, "P@1", baseline="A", margin=0.1).iloc[0]
    assert gate["p_value"] == 0.0 and gate["statistic"] == np.inf
    assert gate["note"] == "every difference is the same (sd = 0)"
    assert sps.ttest_1samp([0.0, 0.0], -0.1, alternative="greater").pvalue == 0.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(alternative="grater"), r"The 'alternative' parameter of compare must be one of 'two-sided', 'greater'"),
        (dict(alternative=1), r"The 'alternative' parameter of compare must be one of"),
        (dict(margin=-0.01), r"The 'margin' parameter of compare must be None or a finite number >= 0"),
        (dict(margin=float("nan")), r"The 'margin' parameter of compare must be None or a finite number >= 0"),
        (dict(margin=float("inf")), r"The 'margin' parameter"),
        (dict(margin=True), r"The 'margin' parameter"),
        (dict(margin="0.01"), r"The 'margin' parameter"),
        (dict(margin=0.01, alternative="less"), r"margin= tests non-inferiority .* got alternative='less'"),
        (dict(margin=0.01, alternative="two-sided"), r"got alternative='two-sided'"),
        (dict(margin=0.01, test="wilcoxon"), r"test='wilcoxon' takes no margin"),
        (dict(margin=0.01, test="randomization"), r"test='randomization' takes no margin"),
        (dict(alternative="greater", pairs="all"), r"alternative='greater': the blocked Tukey HSD .* two-sided"),
    ],
)
def test_bad_alternative_and_margin_are_parameter_errors(paired, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        compare(paired, "AP", baseline="bm25", **kwargs)
