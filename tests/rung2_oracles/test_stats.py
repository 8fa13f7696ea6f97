"""rankframe.stats kernels against scipy / statsmodels oracles and hand derivations.

Layout reminder: ``x``, ``y`` are (rows, columns) with rows grouped by segment (``offsets``); NaN = the query takes
no part in that column's comparison. Oracles run one (segment, column) at a time on the valid values only.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from stats_oracle import wilcoxon_p

from rankframe import stats
from rankframe.stats import randomization, tukey

OFFSETS = np.array([0, 9, 21, 60])  # three segments: 9, 12 and 39 queries


def _paired_data(seed: int, offsets=OFFSETS, n_cols: int = 4, discrete: bool = False, holes: bool = True):
    """Random per-query values of a system (x) and a baseline (y), with a few queries left out per column."""
    rng = np.random.default_rng(seed)
    n = offsets[-1]
    if discrete:  # values in steps of 0.1 like P@10: ties and zero differences are common
        x = rng.integers(0, 11, size=(n, n_cols)) / 10
        y = rng.integers(0, 11, size=(n, n_cols)) / 10
    else:
        y = rng.random((n, n_cols))
        x = np.clip(y + rng.normal(0.05, 0.2, size=(n, n_cols)), 0, 1)
    if holes:
        x[rng.random((n, n_cols)) < 0.1] = np.nan
    return x, y


def _cells(x, y, offsets):
    """(segment, column, x values, y values) of every comparison, valid values only."""
    for s in range(len(offsets) - 1):
        for c in range(x.shape[1]):
            a, b = x[offsets[s] : offsets[s + 1], c], y[offsets[s] : offsets[s + 1], c]
            ok = ~np.isnan(a) & ~np.isnan(b)
            yield s, c, a[ok], b[ok]


# --------------------------------------------------------------------------- paired summary and t-test


@pytest.mark.parametrize("discrete", [False, True])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_ttest_matches_scipy_ttest_rel(discrete, level):
    x, y = _paired_data(1, discrete=discrete)
    summary = stats.summarize(x, y, OFFSETS)
    res = stats.ttest(summary, level)
    for s, c, a, b in _cells(x, y, OFFSETS):
        ref = sps.ttest_rel(a, b)
        ci = ref.confidence_interval(level)
        d = a - b
        assert summary.n[s, c] == len(a)
        assert summary.delta[s, c] == pytest.approx(d.mean(), abs=1e-13)
        assert summary.mean_x[s, c] == pytest.approx(a.mean(), abs=1e-13)
        assert summary.mean_y[s, c] == pytest.approx(b.mean(), abs=1e-13)
        assert summary.effect_size[s, c] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-10)
        assert (summary.wins[s, c], summary.ties[s, c], summary.losses[s, c]) == (
            (d > 0).sum(),
            (d == 0).sum(),
            (d < 0).sum(),
        )
        assert res.statistic[s, c] == pytest.approx(ref.statistic, rel=1e-10)
        assert res.df[s, c] == ref.df
        assert res.pvalue[s, c] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
        assert res.ci_low[s, c] == pytest.approx(ci.low, abs=1e-12)
        assert res.ci_high[s, c] == pytest.approx(ci.high, abs=1e-12)


def test_ttest_edge_cases_follow_scipy():
    # column 0: every difference +0.5 (sd 0) -> t = inf, p = 0, zero-width interval (scipy: same)
    # column 1: all differences 0 -> t, p NaN, interval [0, 0] (scipy: same)
    # segment 1 holds one query: n = 1 -> everything sd-based is NaN
    x = np.array([[1.0, 0.3], [0.75, 0.3], [0.5, 0.3], [0.9, 0.2]])
    y = np.array([[0.5, 0.3], [0.25, 0.3], [0.0, 0.3], [0.1, 0.1]])
    summary = stats.summarize(x, y, np.array([0, 3, 4]))
    res = stats.ttest(summary)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        ref0 = sps.ttest_rel(x[:3, 0], y[:3, 0])
    assert res.statistic[0, 0] == ref0.statistic == np.inf
    assert res.pvalue[0, 0] == ref0.pvalue == 0.0
    assert res.ci_low[0, 0] == res.ci_high[0, 0] == 0.5
    assert np.isnan(res.pvalue[0, 1]) and res.ci_low[0, 1] == res.ci_high[0, 1] == 0.0
    assert summary.effect_size[0, 0] == np.inf and np.isnan(summary.effect_size[0, 1])
    assert summary.n[1].tolist() == [1, 1]
    assert np.isnan(summary.sd[1]).all() and np.isnan(res.pvalue[1]).all() and np.isnan(res.ci_low[1]).all()
    assert summary.delta[1].tolist() == pytest.approx([0.8, 0.1])


def test_summary_of_an_empty_comparison():
    x = np.array([[np.nan, 1.0], [np.nan, 0.0]])
    y = np.array([[0.5, 0.0], [0.5, 0.0]])
    s = stats.summarize(x, y, np.array([0, 2]))
    assert s.n.tolist() == [[0, 2]]
    assert np.isnan(s.delta[0, 0]) and np.isnan(s.mean_x[0, 0]) and s.wins[0, 0] == 0


# --------------------------------------------------------------------------- Wilcoxon signed-rank


def _wilcoxon_cases():
    rng = np.random.default_rng(7)
    # permutation (<= 13, ties), exact (<= 50, untied), normal (> 50, or ties > 13)
    sizes = [6, 9, 14, 20, 50, 51, 80]
    cols = []
    for n in sizes:
        cols.append((rng.normal(0.2, 1, n), rng.normal(0, 1, n)))  # untied, no zeros
        cols.append((rng.integers(0, 6, n).astype(float), rng.integers(0, 6, n).astype(float)))  # exact ties, zeros
    return cols


def test_wilcoxon_matches_scipy_on_every_method():
    # scipy with the method of the documented rule named (its "auto" changed across versions: stats_oracle)
    cases = _wilcoxon_cases()
    n_max = max(len(a) for a, _ in cases)
    x = np.full((n_max, len(cases)), np.nan)
    y = np.full((n_max, len(cases)), np.nan)
    for c, (a, b) in enumerate(cases):
        x[: len(a), c], y[: len(b), c] = a, b
    res = stats.wilcoxon_test(x, y, np.array([0, n_max]))
    methods = set()
    for c, (a, b) in enumerate(cases):
        d = a - b
        r = sps.rankdata(np.abs(d[d != 0]))
        w_plus = r[d[d != 0] > 0].sum()
        assert res.statistic[0, c] == pytest.approx(min(w_plus, r.sum() - w_plus), abs=1e-12), c
        assert res.pvalue[0, c] == pytest.approx(wilcoxon_p(d), rel=1e-9, abs=1e-14), (c, len(a))
        methods.add(int(res.method[0, c]))
    assert methods == {1, 2, 3}  # exact, permutation and normal approximation were all exercised


def test_wilcoxon_ties_within_tolerance_hand_derived():
    # x - y = 0.3-0.2, 0.4-0.3, 0.5-0.3, 0.2-0.3 = 0.1, 0.1, 0.2, -0.1 in exact arithmetic; in floats
    # 0.09999999999999998, 0.10000000000000003, 0.2, -0.09999999999999998.
    # Tied: |d| = 0.1, 0.1, 0.1, 0.2 get ranks 2, 2, 2, 4; W+ = 2 + 2 + 4 = 8, W- = 2; n = 4 with ties: every
    # one of the 16 sign patterns. Sums of the sub-multisets of {2, 2, 2, 4}: 0 (1), 2 (3), 4 (4), 6 (4), 8 (3),
    # 10 (1). P(W+ >= 8) = 4/16, P(W+ <= 8) = 15/16, p = 2 * 4/16 = 0.5.
    # (Float noise splits the ties: ranks 1.5, 3, 4 and 1.5, W+ = 8.5, p = 2 * 3/16 = 0.375.)
    x = np.array([0.3, 0.4, 0.5, 0.2])
    y = np.array([0.2, 0.3, 0.3, 0.3])
    res = stats.wilcoxon_test(x, y, np.array([0, 4]))
    assert (float(res.statistic[0, 0]), float(res.pvalue[0, 0]), int(res.method[0, 0])) == (2.0, 0.5, 2)


@pytest.mark.parametrize("n", [12, 40, 120])  # permutation, normal (ties), normal
def test_wilcoxon_p_at_10_equals_hits_at_10_and_scipy_on_exact_ties(n):
    # P@10 = Hits@10 / 10: the same ranking of the differences, so the same p-value; scipy on the integer Hits
    # (exact ties) is the oracle. Float noise in hits/10 - hits'/10 used to rank equal differences apart.
    rng = np.random.default_rng(n)
    hits_x = rng.integers(0, 11, size=(n, 3)).astype(float)
    hits_y = np.clip(hits_x - rng.integers(-2, 4, size=(n, 3)), 0, 10)
    offsets = np.array([0, n])
    p_at_10 = stats.wilcoxon_test(hits_x / 10, hits_y / 10, offsets)
    hits = stats.wilcoxon_test(hits_x, hits_y, offsets)
    np.testing.assert_array_equal(p_at_10.pvalue, hits.pvalue)
    np.testing.assert_array_equal(p_at_10.statistic, hits.statistic)
    for c in range(3):
        assert p_at_10.pvalue[0, c] == pytest.approx(wilcoxon_p(hits_x[:, c] - hits_y[:, c]), rel=1e-9, abs=1e-14)


def test_wilcoxon_method_boundaries():
    # scipy's "auto": untied and no zeros -> exact up to n = 50; with ties/zeros -> permutation up to n = 13
    def method(a, b):
        return int(stats.wilcoxon_test(a, b, np.array([0, len(a)])).method[0, 0])

    tied13, tied14 = np.r_[np.arange(1.0, 13.0), 12.0], np.r_[np.arange(1.0, 14.0), 13.0]
    assert method(tied13, np.zeros(13)) == 2 and method(tied14, np.zeros(14)) == 3
    assert method(np.arange(1.0, 51.0), np.zeros(50)) == 1 and method(np.arange(1.0, 52.0), np.zeros(51)) == 3


def test_wilcoxon_per_segment_with_holes():
    offsets = np.array([0, 20, 45, 70])  # >= 14 valid values per comparison: scipy's slow permutation path unused
    x, y = _paired_data(3, offsets, discrete=True)
    res = stats.wilcoxon_test(x, y, offsets)
    for s, c, a, b in _cells(x, y, offsets):
        if np.all(a == b):
            continue
        d = np.round(a - b, 12)  # steps of 0.1: rounding the differences makes their ties exact for scipy
        assert res.pvalue[s, c] == pytest.approx(wilcoxon_p(d), rel=1e-9, abs=1e-14)


# --------------------------------------------------------------------------- randomization (sign flip)


def _stat_mean_diff(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


@pytest.mark.parametrize("discrete", [False, True])
def test_randomization_exact_matches_scipy_permutation_test(discrete):
    # segments of 6, 9 and 11 queries: 2**n <= 4096 resamples, so both enumerate every sign pattern
    offsets = np.array([0, 6, 15, 26])
    x, y = _paired_data(5, offsets, n_cols=3, discrete=discrete, holes=False)
    res = stats.sign_flip_test(x, y, offsets, n_resamples=4096, seed=0)
    assert res.exact.all()
    for s, c, a, b in _cells(x, y, offsets):
        ref = sps.permutation_test(
            (a, b),
            _stat_mean_diff,
            permutation_type="samples",
            n_resamples=4096,
            alternative="two-sided",
            vectorized=True,
        )
        assert res.pvalue[s, c] == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomization_random_mode_agrees_with_scipy_in_distribution():
    # 40 queries: 2**40 patterns, both sample. p is an estimate; each has Monte Carlo sd sqrt(p(1-p)/B).
    offsets = np.array([0, 40])
    rng = np.random.default_rng(11)
    y = rng.random((40, 3))
    x = y + rng.normal([0.02, 0.05, 0.1], 0.25, size=(40, 3))
    B = 20_000
    res = stats.sign_flip_test(x, y, offsets, n_resamples=B, seed=3)
    assert not res.exact.any()
    for c in range(3):
        ref = sps.permutation_test(
            (x[:, c], y[:, c]),
            _stat_mean_diff,
            permutation_type="samples",
            n_resamples=B,
            vectorized=True,
            rng=np.random.default_rng(4),
        )
        p = ref.pvalue
        # scipy's two-sided p is 2 * min(one-sided); for the symmetric sign-flip null it estimates the same p
        assert abs(res.pvalue[0, c] - p) < 5 * np.sqrt(2 * p * (1 - p) / B) + 3 / B, (c, res.pvalue[0, c], p)


def _naive_sign_flip(x, y, offsets, n_resamples, seed):
    """One resample and one comparison at a time, signs read bit by bit from the documented stream."""
    children = np.random.SeedSequence(seed).spawn(len(offsets) - 1)
    p = np.full((len(offsets) - 1, x.shape[1]), np.nan)
    for s in range(len(offsets) - 1):
        d = np.nan_to_num(x[offsets[s] : offsets[s + 1]] - y[offsets[s] : offsets[s + 1]], nan=0.0)
        n = d.shape[0]
        words = -(-n // 64)
        bitgen = np.random.PCG64(children[s])
        hits = np.zeros(d.shape[1], dtype=int)
        for _ in range(n_resamples):
            raw = [int(w) for w in bitgen.random_raw(words)]
            signs = np.array([-1.0 if (raw[i // 64] >> (i % 64)) & 1 else 1.0 for i in range(n)])
            for c in range(d.shape[1]):
                t_obs = abs(d[:, c].sum())
                tol = randomization.TOLERANCE * np.abs(d[:, c]).sum()
                hits[c] += abs(float(np.sum(signs * d[:, c]))) >= t_obs - tol
        p[s] = (hits + 1) / (n_resamples + 1)
    return p


@pytest.mark.parametrize("discrete", [False, True])
def test_randomization_chunked_equals_naive_loop_exactly(monkeypatch, discrete):
    # segments of 12, 15 and 70 queries (70 needs two 64-bit words per pattern); 2**12 > 300: random mode
    offsets = np.array([0, 12, 27, 97])
    x, y = _paired_data(8, offsets, n_cols=3, discrete=discrete)
    naive = _naive_sign_flip(x, y, offsets, 300, seed=42)
    whole = stats.sign_flip_test(x, y, offsets, n_resamples=300, seed=42).pvalue
    monkeypatch.setattr(randomization, "CHUNK_ELEMENTS", 200)  # a few resamples per chunk
    chunked = stats.sign_flip_test(x, y, offsets, n_resamples=300, seed=42).pvalue
    np.testing.assert_array_equal(chunked, naive)
    np.testing.assert_array_equal(whole, naive)


def test_randomization_p_values_are_uniform_under_the_null():
    # 300 segments x 2 comparisons of 30 queries with a true difference of zero (d symmetric about 0)
    n_seg, n_q = 300, 30
    offsets = np.arange(0, n_seg * n_q + 1, n_q)
    rng = np.random.default_rng(2024)
    y = rng.random((n_seg * n_q, 2))
    x = y + rng.normal(0, 0.2, size=y.shape)
    p = stats.sign_flip_test(x, y, offsets, n_resamples=999, seed=7).pvalue.ravel()
    assert sps.kstest(p, "uniform").pvalue > 0.01
    for alpha in (0.05, 0.1, 0.5):  # P(p <= alpha) = alpha, within 4 binomial sd
        assert abs((p <= alpha).mean() - alpha) < 4 * np.sqrt(alpha * (1 - alpha) / p.size)


def test_randomization_seed_reproduces_and_differs():
    x, y = _paired_data(9)
    a = stats.sign_flip_test(x, y, OFFSETS, 500, seed=1)
    b = stats.sign_flip_test(x, y, OFFSETS, 500, seed=1)
    c = stats.sign_flip_test(x, y, OFFSETS, 500, seed=2)
    fresh = stats.sign_flip_test(x, y, OFFSETS, 500, seed=None)
    again = stats.sign_flip_test(x, y, OFFSETS, 500, seed=fresh.entropy)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
    assert not np.array_equal(a.pvalue[2], c.pvalue[2])
    np.testing.assert_array_equal(fresh.pvalue, again.pvalue)


def test_randomization_all_zero_differences_give_one():
    x = np.zeros((20, 1))
    res = stats.sign_flip_test(x, x, np.array([0, 20]), 100, seed=0)
    assert res.pvalue[0, 0] == 1.0  # every flip ties the observed 0 (the caller reports it as "no p-value")


# --------------------------------------------------------------------------- paired bootstrap


def test_bootstrap_percentile_matches_scipy_in_distribution():
    offsets = np.array([0, 25, 85])
    x, y = _paired_data(12, offsets, n_cols=2)
    B = 20_000
    res = stats.bootstrap_ci(x, y, offsets, 0.95, n_resamples=B, seed=5)
    for s, c, a, b in _cells(x, y, offsets):
        ref = sps.bootstrap(
            (a, b),
            _stat_mean_diff,
            paired=True,
            vectorized=True,
            n_resamples=B,
            method="percentile",
            confidence_level=0.95,
            rng=np.random.default_rng(6),
        )
        se = (a - b).std(ddof=1) / np.sqrt(len(a))
        # each bound's Monte Carlo sd is ~0.02 se at B = 20000; 0.15 se is > 5 sd for the difference of two
        assert res.ci_low[s, c] == pytest.approx(ref.confidence_interval.low, abs=0.15 * se)
        assert res.ci_high[s, c] == pytest.approx(ref.confidence_interval.high, abs=0.15 * se)


def test_bootstrap_is_seeded_and_handles_tiny_comparisons():
    x, y = _paired_data(13)
    a = stats.bootstrap_ci(x, y, OFFSETS, n_resamples=300, seed=3)
    b = stats.bootstrap_ci(x, y, OFFSETS, n_resamples=300, seed=3)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)
    one = stats.bootstrap_ci(np.array([1.0, np.nan]), np.array([0.0, 0.0]), np.array([0, 2]), n_resamples=50, seed=1)
    assert np.isnan(one.ci_low[0, 0])  # n = 1: no interval


# --------------------------------------------------------------------------- corrections


@pytest.mark.parametrize("method,sm", [("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")])
def test_corrections_match_statsmodels(method, sm):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    p = np.concatenate([rng.random(30) ** 3, [0.01, 0.01, 0.2, 0.2], [np.nan, np.nan]])  # ties and NaNs
    groups = rng.integers(0, 3, p.size)
    out = stats.adjust(p, method, groups)
    for g in range(3):
        idx = (groups == g) & ~np.isnan(p)
        np.testing.assert_allclose(out[idx], multipletests(p[idx], method=sm)[1], rtol=1e-12)
    assert np.isnan(out[np.isnan(p)]).all()
    whole = stats.adjust(p, method)
    ok = ~np.isnan(p)
    np.testing.assert_allclose(whole[ok], multipletests(p[ok], method=sm)[1], rtol=1e-12)


def test_no_correction_returns_p():
    p = np.array([0.2, np.nan, 0.01])
    np.testing.assert_array_equal(stats.adjust(p, None), p)


# --------------------------------------------------------------------------- blocked Tukey HSD

# Hand table: 4 queries x 3 systems (A, B, C), one segment.
#
#        A  B  C | row mean
#   q1   1  4  4 |  3
#   q2   3  5  7 |  5
#   q3   2  6  1 |  3
#   q4   2  5  8 |  5
#   ------------ grand mean 48 / 12 = 4
#   col  2  5  5
#
# residual = x - row mean - col mean + grand mean:
#   q1   0  0  0
#   q2   0 -1  1
#   q3   1  2 -3
#   q4  -1 -1  2        (rows and columns sum to 0)
# SSE = 1 + 1 + 1 + 4 + 9 + 1 + 1 + 4 = 22, df = (4 - 1)(3 - 1) = 6, MSE = 22 / 6 = 11 / 3.
# se = sqrt(MSE / n) = sqrt(11 / 12). Pairs: B - A = 3, C - A = 3, C - B = 0.
# q(B - A) = 3 / sqrt(11 / 12) = 3.1334; Tukey's table: q_0.05(3, 6) = 4.34, so p > 0.05 and the
# simultaneous 95% interval is 3 -+ 4.339 * sqrt(11 / 12) = 3 -+ 4.154.
HAND = np.array([[1, 4, 4], [3, 5, 7], [2, 6, 1], [2, 5, 8]], dtype=float)
HAND_PAIRS = np.array([[1, 0], [2, 0], [2, 1]])


def test_blocked_tukey_hand_derivation():
    anova = stats.blocked_anova(HAND[:, None, :], np.array([0, 4]))
    assert anova.n[0, 0] == 4 and anova.k[0, 0] == 3 and anova.df[0, 0] == 6
    assert anova.mse[0, 0] == pytest.approx(11 / 3, rel=1e-14)
    np.testing.assert_allclose(anova.means[0, 0], [2, 5, 5])
    r = stats.tukey_hsd(anova, HAND_PAIRS, 0.95)
    se = np.sqrt(11 / 12)
    np.testing.assert_allclose(r.delta[0, 0], [3, 3, 0], atol=1e-14)
    np.testing.assert_allclose(r.q[0, 0], [3 / se, 3 / se, 0], rtol=1e-12)
    assert r.q[0, 0, 0] == pytest.approx(3.1334, abs=5e-5)
    assert sps.studentized_range.ppf(0.95, 3, 6) == pytest.approx(4.339, abs=1e-3)  # the printed table value
    half = 4.339 * se
    assert r.ci_high[0, 0, 0] - 3 == pytest.approx(half, abs=2e-3)
    np.testing.assert_allclose(r.pvalue[0, 0], sps.studentized_range.sf([3 / se, 3 / se, 0], 3, 6), rtol=1e-12)
    assert 0.05 < r.pvalue[0, 0, 0] < 0.2 and r.pvalue[0, 0, 2] == pytest.approx(1.0)


def test_blocked_tukey_per_segment_and_absent_system():
    # segment 0: the hand table; segment 1: the same table with 10 added to system C and a fourth query
    # removed (n = 3); segment 2: system C absent -> its pairs are NaN, A-B uses k = 2.
    seg1 = HAND[:3].copy()
    seg1[:, 2] += 10
    seg2 = HAND.copy()
    seg2[:, 2] = np.nan
    values = np.concatenate([HAND, seg1, seg2])[:, None, :]
    anova = stats.blocked_anova(values, np.array([0, 4, 7, 11]))
    # segment 1 by hand: rows (1,4,14) (3,5,17) (2,6,11), col means 2, 5, 14, row means 19/3, 25/3, 19/3,
    # grand 7; residuals row 1: 1-19/3-2+7 = -1/3, 4-19/3-5+7 = -1/3, 14-19/3-14+7 = 2/3;
    # row 2: 3-25/3-2+7 = -1/3, 5-25/3-5+7 = -4/3, 17-25/3-14+7 = 5/3; row 3: 2/3, 5/3, -7/3.
    # SSE = (1+1+4 + 1+16+25 + 4+25+49) / 9 = 126 / 9 = 14, df = 2 * 2 = 4, MSE = 3.5
    assert anova.mse[1, 0] == pytest.approx(3.5, rel=1e-13)
    assert anova.k.ravel().tolist() == [3, 3, 2]
    r = stats.tukey_hsd(anova, HAND_PAIRS, 0.95)
    assert r.delta[1, 0].tolist() == pytest.approx([3, 12, 9])
    assert np.isnan(r.pvalue[2, 0, 1:]).all() and not np.isnan(r.pvalue[2, 0, 0])
    # k = 2: the studentized range of 2 means is sqrt(2) |t|: Tukey equals the paired t-test here
    t = sps.ttest_rel(HAND[:, 1], HAND[:, 0])
    assert r.pvalue[2, 0, 0] == pytest.approx(t.pvalue, rel=1e-6)


@pytest.mark.parametrize("df", [1, 2, 5, 30, 300, 5000, 50_000, np.inf])
def test_studentized_range_k2_is_the_t_distribution(df):
    # Q(2, df) = sqrt(2) |T_df|: an exact oracle in every tail, for every df
    q = np.array([0.01, 0.5, 2.0, 4.0, 6.0, 8.0, 10.0, 14.0])
    exact = 2 * (sps.t.sf(q / np.sqrt(2), df) if np.isfinite(df) else sps.norm.sf(q / np.sqrt(2)))
    got = tukey.studentized_range_sf(q, 2, df)
    keep = exact > 1e-14
    np.testing.assert_allclose(got[keep], exact[keep], rtol=1e-9)


@pytest.mark.parametrize("k", [3, 5, 10, 20])
@pytest.mark.parametrize("df", [1, 4, 30, 300])
def test_studentized_range_matches_scipy(k, df):
    # scipy's adaptive quadrature (~20 ms a value) is accurate where p is not tiny and df not huge
    q = np.array([0.05, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0])
    ref = sps.studentized_range.sf(q, k, df)
    got = tukey.studentized_range_sf(q, k, df)
    keep = ref > 1e-6
    np.testing.assert_allclose(got[keep], ref[keep], rtol=1e-7)
    assert tukey.studentized_range_ppf(0.95, k, df) == pytest.approx(sps.studentized_range.ppf(0.95, k, df), rel=1e-7)


def test_blocked_anova_mse_matches_statsmodels_ols():
    import pandas as pd
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(21)
    n, k = 12, 4
    table = rng.random((n, k)) + np.linspace(0, 0.3, k) + rng.random((n, 1))
    anova = stats.blocked_anova(table[:, None, :], np.array([0, n]))
    long = pd.DataFrame({"v": table.ravel(), "q": np.repeat(np.arange(n), k), "s": np.tile(np.arange(k), n)})
    fit = smf.ols("v ~ C(q) + C(s)", data=long).fit()
    assert anova.df[0, 0] == fit.df_resid
    assert anova.mse[0, 0] == pytest.approx(fit.mse_resid, rel=1e-10)


# --------------------------------------------------------------------------- alignment


def test_align_policies():
    # one segment, 3 queries, 1 metric, 2 systems: q2 lacks system 1 (no row), q3 is NaN for both (unused)
    values = np.array([[[0.5, 0.4]], [[0.7, np.nan]], [[np.nan, np.nan]]])
    exists = np.array([[True, True], [True, False], [True, True]])
    off = np.array([0, 3])
    err = stats.align(values, exists, off, "error")
    assert [a.tolist() for a in err.misaligned] == [[1], [0], [1]]
    zero = stats.align(values, exists, off, "zero")
    assert zero.values[1, 0].tolist() == [0.7, 0.0] and zero.n_filled == 1
    assert np.isnan(zero.values[2]).all()
    drop = stats.align(values, exists, off, "drop")
    assert np.isnan(drop.values[1]).all() and drop.n_dropped == 1 and drop.values[0, 0].tolist() == [0.5, 0.4]


def test_align_system_absent_from_a_segment_is_not_misaligned():
    values = np.array([[[0.5, 0.4, 0.1]], [[0.7, 0.2, np.nan]]])
    exists = np.array([[True, True, True], [True, True, False]])
    a = stats.align(values, exists, np.array([0, 1, 2]), "error")
    assert a.misaligned[0].size == 0
    assert a.present.tolist() == [[True, True, True], [True, True, False]]


def test_pivot_rejects_repeated_cells():
    with pytest.raises(ValueError, match="more than once"):
        stats.pivot(np.array([0, 0]), np.array([0, 0]), np.array([1, 1]), np.array([0.1, 0.2]), (1, 1, 2))


# --------------------------------------------------------------------------- bounded work, progress


def test_n_resamples_above_the_limit_is_a_parameter_error():
    from rankframe.core.errors import ParameterError

    x, y = _paired_data(2)
    for n in (10**30, randomization.MAX_RESAMPLES + 1, 0, 2.5):
        with pytest.raises(ParameterError, match="'n_resamples' parameter of bootstrap_ci"):
            stats.bootstrap_ci(x, y, OFFSETS, n_resamples=n, seed=0)
        with pytest.raises(ParameterError, match="'n_resamples' parameter of sign_flip_test"):
            stats.sign_flip_test(x, y, OFFSETS, n_resamples=n, seed=0)


def test_resampling_loops_report_all_their_work_to_the_progress_bar():
    from rankframe.core import progress

    x, y = _paired_data(4)  # holes: several query sets per segment for the bootstrap
    offsets = np.array([0, 5, 21, 60])  # segment 0: 2**5 = 32 <= 100, enumerated; the others sampled
    with progress.bar("flips", progress=True) as bar:
        res = stats.sign_flip_test(x, y, offsets, n_resamples=100, seed=0)
    assert res.exact.tolist() == [True, False, False]
    assert bar.total == bar.n == 32 + 100 + 100
    with progress.bar("bootstrap", progress=True) as bar:
        stats.bootstrap_ci(x, y, offsets, n_resamples=100, seed=0)
    assert bar.n == bar.total and bar.total % 100 == 0 and bar.total >= 300
