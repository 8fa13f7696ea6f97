"""Hodges-Lehmann estimate and interval (rankframe.stats.hodges_lehmann, compare's hl_* columns).

Oracles: the Walsh averages written out here by brute force (O(n^2), one comparison at a time), and the interval as
the set of shifts theta that scipy.stats.wilcoxon does not reject on d - theta (the inversion that defines it), with
scipy's exact test where rankframe's rule is exact and its normal approximation (no continuity correction) beyond.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankframe import compare, stats
from rankframe.stats.hodges_lehmann import walsh_order_statistics

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


def walsh(d: np.ndarray) -> np.ndarray:
    """Every (d_i + d_j) / 2, i <= j, of the non-zero differences, sorted: the definition, by brute force."""
    d = np.sort(d[d != 0])
    out = [(d[i] + d[j]) / 2 for i in range(d.size) for j in range(i, d.size)]
    return np.sort(np.array(out))


def _hl(d: np.ndarray, level: float = 0.95, alternative: str = "two-sided") -> stats.HodgesLehmannResult:
    off = np.array([0, d.size])
    z = np.zeros_like(d)
    return stats.hodges_lehmann(d, z, off, stats.wilcoxon_test(d, z, off, alternative), level, alternative)


def _sample(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "continuous":
        return rng.normal(0.1, 1.0, size=n)
    if kind == "grid":  # P@10-like: ties everywhere, some zeros
        return rng.integers(-4, 6, size=n) / 10
    return np.round(rng.exponential(1.0, size=n) - 0.5, 2)  # skewed, a few ties


@pytest.mark.parametrize("kind", ["continuous", "grid", "skewed"])
def test_order_statistics_and_estimate_equal_brute_force(kind):
    rng = np.random.default_rng(25)
    for n in [*range(1, 61), 97, 250]:
        d = _sample(rng, n, kind)
        w = walsh(d)
        if w.size == 0:
            continue
        ks = np.unique(np.concatenate([[1, w.size, (w.size + 1) // 2], rng.integers(1, w.size + 1, size=6)]))
        a = np.sort(d[d != 0])
        got = walsh_order_statistics(a, np.zeros(ks.size, int), np.full(ks.size, a.size), ks)
        assert np.array_equal(got, w[ks - 1]), (kind, n)  # exact: the very floats of the brute force
        assert _hl(d).estimate[0, 0] == np.median(w), (kind, n)


def test_many_comparisons_at_once_equal_one_at_a_time():
    # segments x columns with NaN (a query outside a comparison) and zeros, all in one call
    rng = np.random.default_rng(7)
    offsets = np.array([0, 1, 9, 40, 41, 120])
    x = np.round(rng.random((120, 4)), 1)
    y = np.round(rng.random((120, 4)), 1)
    x[rng.random(x.shape) < 0.1] = np.nan
    wx = stats.wilcoxon_test(x, y, offsets)
    got = stats.hodges_lehmann(x, y, offsets, wx)
    for s in range(offsets.size - 1):
        for c in range(4):
            d = (x - y)[offsets[s] : offsets[s + 1], c]
            w = walsh(d[~np.isnan(d)])
            if w.size == 0:
                assert np.isnan(got.estimate[s, c])
                continue
            assert got.estimate[s, c] == np.median(w)
            one = _hl(d[~np.isnan(d)])
            assert (got.ci_low[s, c], got.ci_high[s, c]) == (one.ci_low[0, 0], one.ci_high[0, 0])


def _not_rejected(d, theta, alternative, method, alpha):
    kw = {"correction": False} if method != "exact" else {}
    for name in [method] if method == "exact" else ["asymptotic", "approx"]:
        try:
            return sps.wilcoxon(d - theta, alternative=alternative, method=name, **kw).pvalue >= alpha
        except ValueError:
            continue
    raise AssertionError("no asymptotic method in scipy.stats.wilcoxon")


def _inside_outside(w: np.ndarray, value: float) -> tuple[float, float]:
    """Two shifts just either side of a Walsh average (a tenth of the gap to its neighbours)."""
    i = np.flatnonzero(w == value)
    below = w[i[0] - 1] if i[0] > 0 else value - 1.0
    above = w[i[-1] + 1] if i[-1] + 1 < w.size else value + 1.0
    return value - (value - below) / 10, value + (above - value) / 10


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_interval_is_the_inverted_signed_rank_test(alternative, level):
    # the interval holds exactly the shifts theta that the test of d - theta does not reject at alpha = 1 - level:
    # exact test up to 50 untied differences (rankframe's rule), normal approximation beyond
    rng = np.random.default_rng(3)
    alpha = 1.0 - level
    for n in [6, 9, 15, 30, 50, 51, 80, 150]:
        d = rng.normal(0.2, 1.0, size=n)
        method = "exact" if n <= 50 else "approx"
        r = _hl(d, level, alternative)
        w = walsh(d)
        if alternative != "less":
            low = r.ci_low[0, 0]
            out, inside = _inside_outside(w, low)
            assert not _not_rejected(d, out, alternative, method, alpha), (n, "below the low end is rejected")
            assert _not_rejected(d, inside, alternative, method, alpha), (n, "just inside is not")
        if alternative != "greater":
            high = r.ci_high[0, 0]
            inside, out = _inside_outside(w, high)
            assert not _not_rejected(d, out, alternative, method, alpha), (n, "above the high end is rejected")
            assert _not_rejected(d, inside, alternative, method, alpha), (n, "just inside is not")
        if alternative == "greater":
            assert r.ci_high[0, 0] == np.inf
        if alternative == "less":
            assert r.ci_low[0, 0] == -np.inf


def test_hand_case_depression_data():
    # R's ?wilcox.test example data (Hollander & Wolfe 1973, p. 29: Hamilton depression scale before (x) and after
    # (y) a tranquilizer, 9 patients). d = x - y = 0.952, -0.147, 1.022, 0.43, 0.62, 0.59, 0.49, -0.08, 0.01;
    # no ties, no zeros, n = 9: exact. The Wilcoxon table for n = 9 gives P(W+ <= 5) = 10/512 = 0.0195 and
    # P(W+ <= 6) = 14/512 = 0.0273, so k = qsignrank(0.025, 9) = 6 and the 95% interval is [W_(6), W_(40)] of the
    # M = 45 Walsh averages. The 6 smallest: -0.147, (-0.147 - 0.08)/2 = -0.1135, -0.08, (-0.147 + 0.01)/2 = -0.0685,
    # (-0.08 + 0.01)/2 = -0.035, 0.01; the 6 largest: 1.022, 0.987, 0.952, 0.821, 0.806, (0.62 + 0.952)/2 = 0.786.
    # The median, the 23rd: (0.43 + 0.49)/2 = 0.46 (22 averages below it, 22 above).
    x = np.array([1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30])
    y = np.array([0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29])
    off = np.array([0, 9])
    r = stats.hodges_lehmann(x, y, off, stats.wilcoxon_test(x, y, off))
    assert r.estimate[0, 0] == pytest.approx(0.46, abs=1e-12)
    assert r.ci_low[0, 0] == pytest.approx(0.01, abs=1e-12)
    assert r.ci_high[0, 0] == pytest.approx(0.786, abs=1e-12)


def test_hand_case_three_differences():
    # d = 1, 2, 4: Walsh averages 1, 1.5, 2, 2.5, 3, 4; median (2 + 2.5)/2 = 2.25. n = 3: P(W+ <= 0) = 1/8 > 0.025,
    # so k = 1 (R's "if (qu == 0) qu <- 1") and the interval is all of them: [1, 4]
    r = _hl(np.array([1.0, 2.0, 4.0]))
    assert (r.estimate[0, 0], r.ci_low[0, 0], r.ci_high[0, 0]) == (2.25, 1.0, 4.0)


# ------------------------------------------------------------------------------------------------ through compare


def _table(d_by_query: dict[str, float]) -> pd.DataFrame:
    """Two systems, one item per query: RR of B is 1 or 1/2 or 1/3 ..., A always 1/2 (differences chosen)."""
    rows = []
    for q, rank_b in d_by_query.items():
        rows += [("A", q, "rel", 2, 1), ("A", q, "x", 1, 0)]
        rows += [("B", q, "rel", rank_b, 1)] + [("B", q, f"x{i}", i, 0) for i in range(1, 6) if i != rank_b]
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])


def test_compare_wilcoxon_rows_have_hl_and_other_tests_do_not():
    df = pd.read_parquet(PAIRED)
    per = compare(df, "nDCG@10", baseline="bm25", test="t")
    assert per[["hl_estimate", "hl_low", "hl_high"]].isna().all().all()
    out = compare(df, ["nDCG@10", "AP"], baseline="bm25", test="wilcoxon", by="length")
    ev = pd.DataFrame(__import__("rankframe").evaluate(df, ["nDCG@10", "AP"], by=["length", "system"], per_query=True))
    for r in out.itertuples():
        a = ev[(ev.length == r.length) & (ev.metric == r.metric) & (ev.system == r.system)].set_index("query").value
        b = ev[(ev.length == r.length) & (ev.metric == r.metric) & (ev.system == "bm25")].set_index("query").value
        assert r.hl_estimate == np.median(walsh((a - b.reindex(a.index)).to_numpy()))
        assert r.hl_low <= r.hl_estimate <= r.hl_high


def test_compare_hostile_one_query_all_zero_and_one_sided():
    # one query: no test, no interval, no estimate (note says why)
    one = compare(_table({"q1": 1}), "RR", baseline="A", test="wilcoxon")
    assert one[["hl_estimate", "hl_low", "hl_high"]].isna().all().all() and one.note[0].startswith("only 1 query")
    # every difference 0 (B ranks the relevant item 2nd, as A): no non-zero difference, NaN
    zero = compare(_table({f"q{i}": 2 for i in range(5)}), "RR", baseline="A", test="wilcoxon")
    assert zero[["hl_estimate", "hl_low", "hl_high"]].isna().all().all()
    # d = 1/2 (rank 1), 0 (rank 2), -1/6 (rank 3), 1/2, 1/2: zeros left out, Walsh averages of 1/2, 1/2, 1/2, -1/6
    d = {"q1": 1, "q2": 2, "q3": 3, "q4": 1, "q5": 1}
    out = compare(_table(d), "RR", baseline="A", test="wilcoxon", alternative="greater")
    w = walsh(np.array([0.5, 0.0, 1 / 3 - 0.5, 0.5, 0.5]))
    assert out.hl_estimate[0] == pytest.approx(np.median(w), abs=1e-15)
    assert out.hl_high[0] == np.inf and out.hl_low[0] == pytest.approx(w[0], abs=1e-15)  # n' = 4 tied: k = 1


def test_docs_example_is_current():
    doc = (PAIRED.parents[1] / "docs" / "comparing.md").read_text()
    out = compare(pd.read_parquet(PAIRED), "nDCG@5", baseline="bm25", test="wilcoxon")
    cols = ["system", "n", "delta", "ci_low", "ci_high", "hl_estimate", "hl_low", "hl_high", "p_value"]
    for line in out[cols].round(4).to_string(index=False).splitlines():
        assert "\n" + line + "\n" in doc, line


def test_compare_missing_drop_and_nan_values():
    # dense has no row for q01 (missing="drop" leaves q01 out of that comparison only): the estimate is the brute
    # force over the 31 queries both systems have
    df = pd.read_parquet(PAIRED)
    holes = df[~((df.system == "dense") & (df["query"] == "q01"))]
    out = compare(holes, "AP", baseline="bm25", test="wilcoxon", missing="drop")
    per = __import__("rankframe").evaluate(holes, "AP", by="system", per_query=True)
    wide = per.pivot(index="query", columns="system", values="value")
    d = (wide["dense"] - wide["bm25"]).dropna().to_numpy()
    row = out[out.system == "dense"].iloc[0]
    assert row.n == 31 and row.hl_estimate == np.median(walsh(d))
    assert row.hl_low <= row.hl_estimate <= row.hl_high
