"""The interval of Sakai's effect size delta / sqrt(MSE) after the ANOVA (anova(pairs=True)).

Oracle: the pair's t statistic t = effect * sqrt(n / 2) on the ANOVA's error df, with the noncentrality bounds found
by scipy's brentq on scipy.stats.nct.cdf (written here, independently of rankframe's secant steps), divided by
sqrt(n / 2); the ANOVA's MSE and df_error come from statsmodels' AnovaRM through the existing oracle tests.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as sps

import rankframe
from rankframe.core.errors import ParameterError


def _design(seed: int, n: int, s: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(s):
        for q in range(n):
            for i in range(4):
                rows.append((f"s{j}", f"q{q}", f"d{i}", i + 1, int(rng.random() < 0.3 + 0.1 * j)))
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])


def _bound(t: float, nu: float, p: float) -> float:
    f = lambda lam: sps.nct.cdf(t, nu, lam) - p  # noqa: E731 - decreasing in lam
    lo, hi = t - 1.0, t + 1.0
    while f(lo) < 0:  # widen the bracket step by step (nct.cdf is NaN far out for small df)
        lo -= 1.0
    while f(hi) > 0:
        hi += 1.0
    return optimize.brentq(f, lo, hi, xtol=1e-13)


@pytest.mark.parametrize(("seed", "n", "s", "ci"), [(1, 5, 2, 0.95), (2, 12, 3, 0.9), (3, 40, 4, 0.99), (4, 3, 3, 0.8)])
def test_effect_interval_is_the_noncentral_t_inversion(seed, n, s, ci):
    df = _design(seed, n, s)
    pairs = rankframe.anova(df, "AP", pairs=True, ci=ci)
    table = rankframe.anova(df, "AP")
    nu = float(table["df_error"].iloc[0])
    assert nu == (n - 1) * (s - 1)
    for r in pairs.itertuples():
        if not np.isfinite(r.effect_size):
            continue
        scale = np.sqrt(r.n / 2.0)
        t = r.effect_size * scale
        low = _bound(t, nu, (1 + ci) / 2) / scale
        high = _bound(t, nu, (1 - ci) / 2) / scale
        assert r.effect_low == pytest.approx(low, rel=1e-8, abs=1e-10)
        assert r.effect_high == pytest.approx(high, rel=1e-8, abs=1e-10)
        assert r.effect_low < r.effect_size < r.effect_high
    assert pairs.attrs["ci"] == ci


def test_large_df_is_close_to_the_normal_interval():
    # many queries: the noncentral t is nearly normal with sd 1 on the t scale, so the bounds are
    # effect -+ z_{0.975} * sqrt(2 / n)
    df = _design(5, 400, 2)
    r = rankframe.anova(df, "AP", pairs=True).iloc[0]
    half = sps.norm.ppf(0.975) * np.sqrt(2 / r["n"])
    assert r["effect_low"] == pytest.approx(r["effect_size"] - half, abs=5e-3)
    assert r["effect_high"] == pytest.approx(r["effect_size"] + half, abs=5e-3)


@pytest.mark.parametrize("ci", [1.5, 0, True, "0.95", None])
def test_bad_levels_are_parameter_errors(ci):
    with pytest.raises(ParameterError, match="'ci' parameter of anova"):
        rankframe.anova(_design(1, 4, 2), "AP", pairs=True, ci=ci)
