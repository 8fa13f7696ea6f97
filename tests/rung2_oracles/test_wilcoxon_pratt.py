"""Pratt's treatment of zero differences in the Wilcoxon test: scipy.stats.wilcoxon(zero_method="pratt") is the oracle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankframe import compare, stats
from rankframe.core.errors import ParameterError


def _cases():
    rng = np.random.default_rng(17)
    for n in (3, 5, 9, 14, 30, 200):  # permutation (n <= 13, zeros) and normal approximation
        for zeros in (1, 3):
            d = rng.integers(-5, 6, size=n).astype(float) / 10  # ties and zeros, as P@10 differences
            d[rng.permutation(n)[: min(zeros, n - 1)]] = 0.0
            if np.all(d == 0):
                d[0] = 0.3
            yield d


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_pratt_matches_scipy(alternative):
    for d in _cases():
        got = stats.wilcoxon_test(d, np.zeros_like(d), np.array([0, d.size]), alternative, zero_method="pratt")
        want = sps.wilcoxon(d, zero_method="pratt", alternative=alternative)
        assert got.pvalue[0, 0] == pytest.approx(want.pvalue, rel=1e-12, abs=1e-15), (d, alternative)
        assert got.statistic[0, 0] == pytest.approx(want.statistic, rel=1e-12), d


def test_pratt_hand_case():
    # d = 0, 1, -2, 3: Pratt ranks |d| with the zero: 0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4, then drops the zero.
    # W+ = 2 + 4 = 6, W- = 3; "wilcox" drops the zero first: ranks 1, 2, 3, W+ = 1 + 3 = 4, W- = 2.
    d = np.array([0.0, 1.0, -2.0, 3.0])
    off = np.array([0, 4])
    assert stats.wilcoxon_test(d, np.zeros(4), off, "greater", zero_method="pratt").statistic[0, 0] == 6.0
    assert stats.wilcoxon_test(d, np.zeros(4), off, "greater").statistic[0, 0] == 4.0
    # permutation (a zero, n = 4 <= 13): W+ over the 8 sign patterns of ranks 2, 3, 4: 0,2,3,4,5,6,7,9; P(W+ >= 6) = 3/8
    assert stats.wilcoxon_test(d, np.zeros(4), off, "greater", zero_method="pratt").pvalue[0, 0] == 3 / 8


def test_pratt_in_compare_and_refusals():
    df = pd.read_parquet("examples/paired.parquet")
    out = compare(df, "P@5", baseline="bm25", test="wilcoxon", zero_method="pratt")
    assert out.attrs["zero_method"] == "pratt"
    per = __import__("rankframe").evaluate(df, "P@5", by="system", per_query=True)
    wide = per.pivot(index="query", columns="system", values="value")
    for r in out.itertuples():
        # rounded: differences equal in exact arithmetic tie, as rankframe's 1e-9 rule ties them (wilcoxon.py)
        want = sps.wilcoxon(np.round(wide[r.system] - wide["bm25"], 12), zero_method="pratt")
        assert r.p_value == pytest.approx(want.pvalue, rel=1e-12)
    with pytest.raises(ParameterError, match="zero_method"):
        compare(df, "P@5", baseline="bm25", zero_method="pratt")  # the t-test has no zero treatment
    with pytest.raises(ParameterError, match="zero_method"):
        compare(df, "P@5", baseline="bm25", test="wilcoxon", zero_method="zsplit")
