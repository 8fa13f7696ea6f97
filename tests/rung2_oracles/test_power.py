"""rankframe.power (minimum detectable effect) and rankframe.topic_set_size, held to statsmodels' TTestPower.

Oracle: ``statsmodels.stats.power.TTestPower`` (the one-sample / paired t-test, df = n - 1, exact noncentral t):
its ``power(effect_size, nobs, alpha, alternative)`` at our answer must be the target (our bisection is finer than
its ``solve_power``, whose brentq stops at ~1e-6 relative and, for ``alternative="smaller"`` at large n, fails), and
its ``solve_power`` agrees within its own tolerance. Cohen's (1988) table for a hand check: d = 0.2 needs 199 pairs
(two-sided 0.05, power 0.8); 50 pairs detect d = 0.40.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestPower

import rankframe
from rankframe.compare import compare
from rankframe.core.errors import ParameterError

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
SM = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


@pytest.mark.parametrize("alternative", list(SM))
@pytest.mark.parametrize("alpha, power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_mde_has_the_target_power_in_statsmodels(alternative, alpha, power):
    n = np.array([2, 3, 4, 7, 16, 50, 200, 1000, 5000])
    mde = rankframe.power(0.3, n, alpha=alpha, power=power, alternative=alternative)
    sign = -1.0 if alternative == "less" else 1.0
    checked = 0
    for size, count in zip(mde, n):
        got = TTestPower().power(sign * size / 0.3, int(count), alpha, alternative=SM[alternative])
        if np.isnan(got):  # statsmodels' two-sided lower tail (scipy nct.cdf far out) is NaN at tiny n, alpha 0.01
            assert alternative == "two-sided" and count <= 3
            continue
        assert got == pytest.approx(power, abs=1e-9)
        checked += 1
    assert checked >= len(n) - 2
    ref = [TTestPower().solve_power(nobs=int(k), alpha=alpha, power=power, alternative=SM["greater"]) for k in n[:6]]
    if alternative == "greater":
        np.testing.assert_allclose(mde[:6] / 0.3, ref, rtol=1e-5)


def test_cohens_table_and_scalars():
    assert rankframe.power(1.0, 50) == pytest.approx(0.4042, abs=1e-4)  # Cohen: 0.40 for n = 50
    assert rankframe.topic_set_size(0.02, 0.1) == 199  # Cohen: d = 0.2 needs 199 pairs
    assert isinstance(rankframe.topic_set_size(0.02, 0.1), int)
    assert isinstance(rankframe.power(0.1, 30), float)
    assert rankframe.power(0.0, 30) == 0.0  # no spread: any difference is detected


@pytest.mark.parametrize("alternative", list(SM))
def test_topic_set_size_is_the_ceiling_of_statsmodels_solve_power(alternative):
    delta = np.array([0.01, 0.03, 0.05, 0.1, 0.2, 0.5])
    got = rankframe.topic_set_size(delta, 0.25, alternative=alternative)
    sign = -1.0 if alternative == "less" else 1.0
    for d, n in zip(delta, got):
        es = sign * d / 0.25
        # n is the smallest count with enough power: n reaches the target, n - 1 does not (or n = 2)
        assert TTestPower().power(es, int(n), 0.05, alternative=SM[alternative]) >= 0.8
        if n > 2:
            assert TTestPower().power(es, int(n) - 1, 0.05, alternative=SM[alternative]) < 0.8
        if alternative != "less":
            frac = TTestPower().solve_power(effect_size=es, alpha=0.05, power=0.8, alternative=SM[alternative])
            assert n == int(np.ceil(frac - 1e-6))
    # arrays broadcast: one delta per sd
    both = rankframe.topic_set_size(0.05, np.array([0.25, 0.25]), alternative=alternative)
    np.testing.assert_array_equal(both, [got[2], got[2]])


def test_compare_mde_column_is_power_of_its_rows():
    df = pd.read_parquet(PAIRED)
    for kw in (dict(), dict(alternative="less", ci=0.9)):
        out = compare(df, ["AP", "nDCG@5"], baseline="bm25", by="length", **kw)
        alt = out.attrs["alternative"]
        want = rankframe.power(
            out["sd_diff"].to_numpy(), out["n"].to_numpy(), alpha=1 - out.attrs["ci"], alternative=alt
        )
        np.testing.assert_allclose(out["mde"], want, rtol=1e-12)
        sign = -1.0 if alt == "less" else 1.0
        for r in out.itertuples():  # statsmodels: power 0.8 at the row's mde
            p = TTestPower().power(sign * r.mde / r.sd_diff, r.n, 1 - out.attrs["ci"], alternative=SM[alt])
            assert p == pytest.approx(0.8, abs=1e-9)
    assert "80% power" in out.attrs["mde"]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: rankframe.power(0.1, 1), r"The 'n' parameter of power must be an int >= 2"),
        (lambda: rankframe.power(0.1, 2.5), r"The 'n' parameter of power"),
        (lambda: rankframe.power(0.1, [10, 1]), r"Got \[1.0\] instead"),
        (lambda: rankframe.power(-0.1, 10), r"The 'sd_diff' parameter of power must be a finite number >= 0"),
        (lambda: rankframe.power("x", 10), r"The 'sd_diff' parameter of power"),
        (lambda: rankframe.power(0.1, 10, alpha=1.5), r"The 'alpha' parameter of power must be a float in the open"),
        (lambda: rankframe.power(0.1, 10, power=0.01), r"The 'power' parameter of power must be above alpha"),
        (lambda: rankframe.power(0.1, 10, power=True), r"The 'power' parameter of power must be a float"),
        (lambda: rankframe.power(0.1, 10, alternative="larger"), r"The 'alternative' parameter of power must be one"),
        (lambda: rankframe.power(0.1, []), r"The 'n' parameter of power"),
        (
            lambda: rankframe.topic_set_size(0, 0.1),
            r"The 'delta' parameter of topic_set_size must be a finite non-zero",
        ),
        (
            lambda: rankframe.topic_set_size(0.1, 0),
            r"The 'sd_diff' parameter of topic_set_size must be a finite number > 0",
        ),
        (lambda: rankframe.topic_set_size(np.nan, 0.1), r"The 'delta' parameter"),
        (lambda: rankframe.topic_set_size(1e-12, 1.0), r"would need more than"),
    ],
)
def test_bad_arguments_are_parameter_errors(call, match):
    with pytest.raises(ParameterError, match=match):
        call()
