"""Wilcoxon signed-rank test, two-sided, for every (segment, comparison) at once.

For a comparison on ``n`` queries with differences ``d_i = x_i - y_i``: zero differences (``x_i == y_i``, the
queries counted in ``ties``) are dropped (Wilcoxon's "wilcox" treatment), the remaining ``n'`` values are
ranked by ``|d_i|`` (ties get their average rank), and ``W+`` is the sum of the ranks of the positive
differences.

**Ties within a tolerance.** Two absolute differences are tied when they are equal to within a relative
tolerance of :data:`TIE_RTOL` = 1e-9 (``math.isclose``'s default): in the sorted ``|d|`` of a comparison, a new
group of tied values starts where ``|d|_(j) - |d|_(j-1) > TIE_RTOL * |d|_(j)``. Differences that are equal in
exact arithmetic are often not equal in floating point: P@10 = 0.3 - 0.2 is ``0.09999999999999998`` and
0.4 - 0.3 is ``0.10000000000000003``, so exact comparison (``scipy.stats.wilcoxon``, and PyTerrier, which calls
it) ranks them apart by rounding noise, leaves out the tie correction and may pick a different method: P@10
and Hits@10 (= 10 * P@10) of the same runs get different p-values. The noise of a difference of metric values
is a few units of 2**-52 (2.2e-16) of the values; 1e-9 is far above it and far below the gaps between distinct
differences of rank metrics (multiples of 1/k for P@k, of 1/R for recall), so it ties the differences that are
equal in exact arithmetic. Two genuinely different differences closer than that (possible in principle for AP
or nDCG) share their average rank, which moves ``W+`` by at most half a rank each. A chain of values each within
the tolerance of the next forms one group. Zero differences are the pairs of equal values by the one rule of
:func:`rankframe.stats.paired.equal` (``|x_i - y_i| <= 1e-12 * max(1, |x_i|, |y_i|)``): AP = 0.7 computed two ways
is a zero difference, not a tiny ranked one, under both zero methods, and the zeros stay the ``ties`` that
``compare`` reports.

**The p-value** (rankframe's own rule, independent of the installed scipy; it is the rule of
``scipy.stats.wilcoxon``'s ``method="auto"`` since scipy 1.13, with ties found as above):

- **exact** null distribution of ``W+`` when ``n <= 50`` and there are no ties and no zeros:
  ``p = 2 * min(P(W+ <= w), P(W+ >= w))``, capped at 1;
- **permutation** (all ``2**n'`` sign assignments of the average ranks enumerated) when ``n <= 13`` and there
  are ties or zeros, with the same two-sided rule;
- **normal approximation** otherwise, with the tie correction of the variance and no continuity correction:
  ``z = (W+ - n'(n'+1)/4) / sqrt((n'(n'+1)(2n'+1) - sum(t^3 - t)/2) / 24)`` (``t``: the sizes of the groups
  of tied ``|d_i|``), ``p = 2 * Phi(-|z|)``; NaN when every difference is 0.

**Pratt's zeros** (``zero_method="pratt"``, Pratt 1959): the zero differences are ranked with the others (they
take the smallest ranks) and then dropped, so every non-zero difference's rank grows by the number of zeros
``n0``; the normal approximation uses ``mean = (n(n+1) - n0(n0+1)) / 4`` and ``var = (n(n+1)(2n+1) -
n0(n0+1)(2n0+1) - sum(t^3 - t)/2) / 24`` (Cureton 1967), the permutation method the same ranks;
``scipy.stats.wilcoxon(..., zero_method="pratt")``. Without zeros it is the default ``"wilcox"``.

**One-sided** (``alternative="greater"``: the system above the baseline, large ``W+``; ``"less"``: small ``W+``):
``p = P(W+ >= w)`` or ``P(W+ <= w)`` by the same three methods (normal: ``Phi(-z)`` or ``Phi(z)``), as
``scipy.stats.wilcoxon(..., alternative=...)``.

The statistic reported is scipy's: ``min(W+, W-)`` two-sided, ``W+`` one-sided. Ranking is one sort of all
comparisons' differences together (by comparison, then ``|d|``); no loop runs per comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

import numpy as np

from ._segments import paired_layout, segment_of_row
from .paired import differences
from .randomization import exact_bits

EXACT_MAX_N = 50
PERMUTATION_MAX_N = 13
TIE_RTOL = 1e-9  # |d| values this close (relative) are tied: the module docstring says why


@dataclass(frozen=True)
class WilcoxonResult:
    """Per (segment, comparison): statistic ``min(W+, W-)``, p-value and the method used.

    ``method`` codes: 0 = no test (fewer than 1 difference), 1 = exact, 2 = permutation, 3 = normal.
    ``n_nonzero`` (the non-zero differences ranked) and ``tie_term`` (``sum(t^3 - t)`` over the groups of tied
    ``|d|``) are what the Hodges-Lehmann interval (:mod:`.hodges_lehmann`) takes from the test.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    method: np.ndarray
    n_nonzero: np.ndarray
    tie_term: np.ndarray


@lru_cache(maxsize=64)
def _exact_cdf(n: int) -> np.ndarray:
    """CDF of W+ for n untied non-zero differences: counts of subsets of {1..n} by their sum, over 2**n."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return np.cumsum(counts) / 2.0**n


def _tails(below: np.ndarray, above: np.ndarray, alternative: str) -> np.ndarray:
    """The p-value from the two tails ``P(W+ <= w)`` and ``P(W+ >= w)`` under ``alternative``."""
    if alternative == "greater":
        return np.clip(above, 0.0, 1.0)
    if alternative == "less":
        return np.clip(below, 0.0, 1.0)
    return np.clip(2.0 * np.minimum(below, above), 0.0, 1.0)


#: the Wilcoxon test's treatment of zero differences (the type of ``zero_method=``)
ZeroMethod = Literal["wilcox", "pratt"]
ZERO_METHODS: tuple[ZeroMethod, ...] = get_args(ZeroMethod)


def wilcoxon_test(
    x: np.ndarray, y: np.ndarray, offsets: np.ndarray, alternative: str = "two-sided", zero_method: str = "wilcox"
) -> WilcoxonResult:
    """Wilcoxon signed-rank test of ``x - y`` per segment and column (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> # d = 1..6, all positive, no ties: exact, P(W+ >= 21) = 1/64 on each side, p = 2/64
    >>> r = wilcoxon_test(np.arange(1.0, 7.0), np.zeros(6), np.array([0, 6]))
    >>> float(r.statistic[0, 0]), float(r.pvalue[0, 0])
    (0.0, 0.03125)
    """
    from scipy import stats  # imported here: `import rankframe` stays light

    x, y, offsets = paired_layout(x, y, offsets)
    n_seg, n_col = offsets.size - 1, x.shape[1]
    n_comp = n_seg * n_col
    d = differences(x, y)  # equal values (the one rule, paired.equal) are a zero difference for both zero methods
    row, col = np.nonzero(~np.isnan(d))
    comp_all = segment_of_row(offsets)[row] * n_col + col
    n_all = np.bincount(comp_all, minlength=n_comp)
    vals = d[row, col]
    nz = vals != 0
    comp, vals = comp_all[nz], vals[nz]
    n_nz = np.bincount(comp, minlength=n_comp)
    n_zero = n_all - n_nz

    order = np.lexsort((np.abs(vals), comp))
    comp, vals = comp[order], vals[order]
    absd = np.abs(vals)
    m = comp.size
    start_of_comp = np.concatenate([[0], np.cumsum(n_nz)])[:-1]
    pos = np.arange(m) - start_of_comp[comp] + 1.0  # 1-based position within the comparison
    new_group = np.ones(m, dtype=bool)
    if m:
        new_group[1:] = (comp[1:] != comp[:-1]) | (absd[1:] - absd[:-1] > TIE_RTOL * absd[1:])
    gid = np.cumsum(new_group) - 1
    g_first = pos[new_group]
    g_size = np.bincount(gid).astype(np.float64) if m else np.zeros(0)
    rank = (g_first + (g_size - 1.0) / 2.0)[gid]
    pratt = zero_method == "pratt"
    if pratt:  # the zeros ranked with the others (the n0 smallest |d|), then dropped: every rank moves up by n0
        rank = rank + n_zero[comp]
    g_comp = comp[new_group]
    tie_term = np.bincount(g_comp, weights=g_size**3 - g_size, minlength=n_comp)
    has_ties = np.bincount(g_comp, weights=(g_size > 1).astype(np.float64), minlength=n_comp) > 0
    r_plus = np.bincount(comp, weights=np.where(vals > 0, rank, 0.0), minlength=n_comp)
    nf = n_nz.astype(np.float64)
    if pratt:  # Cureton (1967): the sums over ranks 1..n less the zeros' ranks 1..n0 (scipy's zero_method="pratt")
        na, n0 = n_all.astype(np.float64), n_zero.astype(np.float64)
        r_minus = na * (na + 1.0) / 2.0 - n0 * (n0 + 1.0) / 2.0 - r_plus
        mean = (na * (na + 1.0) - n0 * (n0 + 1.0)) / 4.0
        var24 = na * (na + 1.0) * (2.0 * na + 1.0) - n0 * (n0 + 1.0) * (2.0 * n0 + 1.0)
    else:
        r_minus = nf * (nf + 1.0) / 2.0 - r_plus
        mean = nf * (nf + 1.0) / 4.0
        var24 = nf * (nf + 1.0) * (2.0 * nf + 1.0)

    method = np.full(n_comp, 3, dtype=np.int8)
    untied = ~has_ties & (n_zero == 0)
    method[(n_all <= EXACT_MAX_N) & untied] = 1
    method[(n_all <= PERMUTATION_MAX_N) & ~untied] = 2
    method[n_all == 0] = 0

    p = np.full(n_comp, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt((var24 - tie_term / 2.0) / 24.0)
        z = (r_plus - mean) / se
    normal = method == 3
    p[normal] = _tails(stats.norm.cdf(z[normal]), stats.norm.sf(z[normal]), alternative)
    for n in np.unique(n_all[method == 1]):  # one CDF table per distinct n (at most 50)
        idx = np.flatnonzero((method == 1) & (n_all == n))
        cdf = _exact_cdf(int(n))
        w = r_plus[idx]
        below = cdf[np.ceil(w).astype(np.int64)]
        above = 1.0 - np.where(w >= 1, cdf[np.maximum(np.floor(w).astype(np.int64) - 1, 0)], 0.0)
        p[idx] = _tails(below, above, alternative)
    for k in np.unique(n_nz[method == 2]):  # one sign-pattern matrix per distinct n' (at most 14)
        idx = np.flatnonzero((method == 2) & (n_nz == k))
        k = int(k)
        ranks = rank[start_of_comp[idx][:, None] + np.arange(k)].T  # (k, comparisons)
        null = exact_bits(k, 0, 2**k).astype(np.float64) @ ranks if k else np.zeros((1, idx.size))
        w = r_plus[idx]
        less = (null <= w).mean(axis=0)
        greater = (null >= w).mean(axis=0)
        p[idx] = _tails(less, greater, alternative)
    shape = (n_seg, n_col)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    return WilcoxonResult(
        statistic=statistic.reshape(shape),
        pvalue=p.reshape(shape),
        method=method.reshape(shape),
        n_nonzero=n_nz.reshape(shape),
        tie_term=tie_term.reshape(shape),
    )
