"""Hedges' g_z and its noncentral-t interval (rankframe.stats.effect_size, compare's hedges_gz* columns).

Oracles: J(nu) by hand at nu = 2, 3 and from math.gamma; the interval by brute-force root finding on
scipy.stats.nct.cdf (scipy.optimize.brentq, one comparison at a time), independent of the scipy.special.nctdtrinc
call the library makes.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as sps

from rankframe import compare, stats

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


def test_j_by_hand_and_from_gamma():
    # J(nu) = Gamma(nu/2) / (sqrt(nu/2) Gamma((nu-1)/2)); nu = 2: Gamma(1) / (1 * Gamma(1/2)) = 1/sqrt(pi);
    # nu = 3: Gamma(3/2) / (sqrt(3/2) Gamma(1)) = (sqrt(pi)/2) / sqrt(3/2)
    assert stats.hedges_j(2.0) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-14)
    assert stats.hedges_j(3.0) == pytest.approx(math.sqrt(math.pi) / 2 / math.sqrt(1.5), rel=1e-14)
    for nu in (4, 9, 30, 171, 5000):  # math.gamma overflows beyond 171: the ratio through lgamma
        want = math.exp(math.lgamma(nu / 2) - math.lgamma((nu - 1) / 2)) / math.sqrt(nu / 2)
        assert stats.hedges_j(float(nu)) == pytest.approx(want, rel=1e-11)  # lgamma's difference loses digits
        if nu >= 5:  # Hedges' approximation 1 - 3 / (4 nu - 1) within 0.1%
            assert stats.hedges_j(float(nu)) == pytest.approx(1 - 3 / (4 * nu - 1), rel=1e-3)
    assert stats.hedges_j(1.0) == 0.0 and np.isnan(stats.hedges_j(0.0))


def _ncp(t: float, nu: float, p: float) -> float:
    """The noncentrality lambda with nct.cdf(t, nu, lambda) = p, by bracketing and brentq."""
    f = lambda lam: sps.nct.cdf(t, nu, lam) - p  # noqa: E731
    lo, hi = t - 5.0, t + 5.0
    while f(lo) < 0:
        lo -= 10.0
    while f(hi) > 0:
        hi += 10.0
    return optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-14)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_interval_inverts_the_noncentral_t(alternative):
    rng = np.random.default_rng(11)
    level = 0.95
    for n in (3, 4, 7, 20, 100, 1000, 5000):
        d = rng.normal(0.3, 1.0, size=n)
        delta, sd = d.mean(), d.std(ddof=1)
        r = stats.hedges_gz(np.array([n]), np.array([delta]), np.array([sd]), level, alternative)
        nu, t = n - 1.0, delta / sd * math.sqrt(n)
        j = math.exp(math.lgamma(nu / 2) - math.lgamma((nu - 1) / 2)) / math.sqrt(nu / 2)
        assert r.estimate[0] == pytest.approx(j * delta / sd, rel=1e-10)  # lgamma's difference loses ~1e-12 at 5000
        p_low, p_high = ((1 + level) / 2, (1 - level) / 2) if alternative == "two-sided" else (level, 1 - level)
        scale = j / math.sqrt(n)
        if alternative != "less":
            assert r.ci_low[0] == pytest.approx(_ncp(t, nu, p_low) * scale, rel=1e-10, abs=1e-12), n
        else:
            assert r.ci_low[0] == -np.inf
        if alternative != "greater":
            assert r.ci_high[0] == pytest.approx(_ncp(t, nu, p_high) * scale, rel=1e-10, abs=1e-12), n
        else:
            assert r.ci_high[0] == np.inf
        assert r.ci_low[0] <= r.estimate[0] <= r.ci_high[0]


def test_edge_cases_n_2_and_constant_differences():
    # n = 2: J(1) = 0 (d_z has no mean): NaN; sd = 0: g infinite, no interval; n = 1: NaN
    r = stats.hedges_gz(np.array([2, 5, 5, 1]), np.array([0.5, 0.2, 0.0, 0.3]), np.array([0.1, 0.0, 0.0, np.nan]))
    assert np.isnan(r.estimate[0]) and np.isnan(r.ci_low[0]) and np.isnan(r.ci_high[0])
    assert r.estimate[1] == np.inf and np.isnan(r.ci_low[1]) and np.isnan(r.ci_high[1])
    assert np.isnan(r.estimate[2]) and np.isnan(r.estimate[3])


def test_compare_columns():
    df = pd.read_parquet(PAIRED)
    out = compare(df, ["nDCG@10", "AP"], baseline="bm25", by="length", ci=0.9, alternative="greater")
    nu = out.n - 1.0
    j = np.exp([math.lgamma(v / 2) - math.lgamma((v - 1) / 2) for v in nu]) / np.sqrt(nu / 2)
    assert np.allclose(out.hedges_gz, j * out.effect_size, rtol=1e-12, atol=1e-15)
    assert (out.hedges_gz_high == np.inf).all()
    for r in out.itertuples():
        t = r.effect_size * math.sqrt(r.n)
        assert r.hedges_gz_low == pytest.approx(_ncp(t, r.n - 1.0, 0.9) * j[r.Index] / math.sqrt(r.n), rel=1e-10)


def test_docs_example_is_current():
    doc = (PAIRED.parents[1] / "docs" / "comparing.md").read_text()
    out = compare(pd.read_parquet(PAIRED), "AP", baseline="bm25", by="length")
    r = out[(out["length"] == "short") & (out["system"] == "dense")].iloc[0]
    line = f"d_z = {r.effect_size:.2f}, Hedges' g_z = {r.hedges_gz:.2f}, 95% CI [{r.hedges_gz_low:.2f}, {r.hedges_gz_high:.2f}]"
    assert "\n" + line + "\n" in doc
