"""Adjusted intervals agree with the adjusted p-values (docs/decisions/0017-adjusted-intervals.md).

For every row: "the adjusted interval excludes 0" == "p_adjusted < alpha" (paired t-test; Bonferroni and BH
exactly, Holm and Westfall-Young one way: an interval that excludes 0 marks a significant row). The Bonferroni
interval itself is scipy's ``ttest_rel(...).confidence_interval(1 - alpha / m)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankframe import compare, evaluate


def _frame(seed: int, n: int = 60, systems: int = 7) -> pd.DataFrame:
    """Graded judgments, 5 items a query; system s sorts by relevance with a chance growing with s (even s: best
    first, odd s: worst first), else shuffles: effects of both signs and every size."""
    rng = np.random.default_rng(seed)
    rel = rng.integers(0, 4, size=(n, 5))
    rows = []
    for s in range(systems):
        for q in range(n):
            order = rng.permutation(5)
            if rng.random() < 0.15 * s:
                order = np.argsort((1 if s % 2 else -1) * rel[q] + rng.random(5) * 0.5)
            for r, i in enumerate(order, start=1):
                rows.append((f"s{s}", q, "ab"[q % 2], f"i{i}", r, int(rel[q, i])))
    return pd.DataFrame(rows, columns=["system", "query", "half", "item", "rank", "relevance"])


def _excludes_zero(out: pd.DataFrame) -> np.ndarray:
    return ((out["ci_low_adjusted"] > 0) | (out["ci_high_adjusted"] < 0)).to_numpy()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("correction", ["bonferroni", "bh", "holm", None])
def test_adjusted_interval_agrees_with_p_adjusted(seed, alternative, correction):
    df = _frame(seed)
    out = compare(df, ["nDCG@5", "AP@5"], baseline="s0", by="half", alternative=alternative, correction=correction)
    ok = out["p_value"].notna().to_numpy()
    sig = (out["p_adjusted"] < 0.05).to_numpy()[ok]
    excl = _excludes_zero(out)[ok]
    if correction == "holm":  # Bonferroni-level intervals: excludes 0 => Holm-significant (not the converse)
        assert (sig | ~excl).all()
    else:
        np.testing.assert_array_equal(excl, sig)
    assert sig.any() and (~sig).any()  # both kinds of rows are there
    if correction is None:
        np.testing.assert_array_equal(out["ci_low_adjusted"], out["ci_low"])


def test_bonferroni_interval_is_scipys_at_alpha_over_m():
    df = _frame(3, n=20, systems=4)
    out = compare(df, ["nDCG@5", "AP@5"], baseline="s0", correction="bonferroni")
    per = evaluate(df, ["nDCG@5", "AP@5"], by="system", per_query=True)
    m = len(out)  # one family: every comparison of the call
    for r in out.itertuples():
        a = per[(per["metric"] == r.metric) & (per["system"] == r.system)].sort_values("query")["value"]
        b = per[(per["metric"] == r.metric) & (per["system"] == "s0")].sort_values("query")["value"]
        ci = sps.ttest_rel(a.to_numpy(), b.to_numpy()).confidence_interval(1 - 0.05 / m)
        np.testing.assert_allclose([r.ci_low_adjusted, r.ci_high_adjusted], [ci.low, ci.high], rtol=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_westfall_young_interval_marks_only_significant_rows(alternative):
    df = _frame(4)
    out = compare(
        df,
        ["nDCG@5", "AP@5"],
        baseline="s0",
        test="randomization",
        correction="westfall-young",
        alternative=alternative,
        n_resamples=999,
        seed=3,
    )
    ok = out["p_value"].notna().to_numpy()
    sig = (out["p_adjusted"] < 0.05).to_numpy()[ok]
    excl = _excludes_zero(out)[ok]
    assert (sig | ~excl).all() and excl.any()
