"""Hodges-Lehmann estimate and interval beside the Wilcoxon signed-rank test, for every comparison at once.

For a comparison whose test ranked the ``n'`` non-zero differences ``d_1 <= ... <= d_n'`` (the zero differences
are left out, as the test leaves them out; R's ``wilcox.test(conf.int=TRUE)`` does the same), the ``M = n'(n'+1)/2``
**Walsh averages** are ``(d_i + d_j) / 2`` for ``i <= j``, and with ``W_(1) <= ... <= W_(M)`` their order:

- ``hl_estimate`` = the median of the Walsh averages (``W_((M+1)/2)``, or the mean of the two middle ones when
  ``M`` is even): the Hodges-Lehmann estimate of the pseudomedian of the differences (Hodges & Lehmann 1963);
- the interval at ``level`` is ``[W_(k), W_(M+1-k)]`` (Tukey; Hollander, Wolfe & Chicken, *Nonparametric
  Statistical Methods*, 3rd ed., section 3.3): the values ``theta`` that the signed-rank test of ``d - theta``
  does not reject at ``alpha = 1 - level``. ``k`` comes from the null distribution of ``W+`` by the **same rule
  as the test's method** (:mod:`.wilcoxon`):

  - the test was **exact** (no ties, no zeros, ``n <= 50``): ``k = qsignrank(alpha / 2, n')`` (the smallest ``w``
    with ``P(W+ <= w) >= alpha / 2``), at least 1: this is R's ``wilcox.test(x, y, paired=TRUE, conf.int=TRUE)``
    exactly;
  - otherwise (permutation or normal approximation): the normal approximation of the same distribution with the
    test's tie-corrected variance and no continuity correction, ``k = ceil(M/2 - z_{1 - alpha/2} * sigma)``
    (at least 1), ``sigma = sqrt((n'(n'+1)(2n'+1) - sum(t^3 - t)/2) / 24)`` (Hollander, Wolfe & Chicken eq.
    3.29). R inverts the asymptotic statistic numerically instead (``uniroot``, with a continuity correction),
    so its interval there differs from this one by about one Walsh average.

  One-sided (``alternative="greater"``): ``[W_(k), inf)`` with ``k`` at ``alpha`` instead of ``alpha / 2``;
  ``"less"``: ``(-inf, W_(M+1-k)]``.

The interval is of the pseudomedian, not of ``delta`` (the mean difference): compare shows it in its own columns
``hl_low``/``hl_high`` and keeps ``ci_low``/``ci_high`` for ``delta`` (docs/comparing.md, "Hodges-Lehmann").

**Algorithm** (exact, no ``O(n^2)`` memory): the ``k``-th Walsh average is found by bisection on the value, over
the ordered bit patterns of float64 (at most 64 steps), where each step counts, for every target of every
comparison at once, the Walsh averages ``<= theta`` with one vectorized binary search per sorted difference
(``(d_i + d_j) * 0.5`` is computed exactly as a direct computation computes it, so the result is that float). The
search window of every row shrinks with the bracket, so later steps cost a few passes over the differences. Time
``O(64 * m * log n)`` and memory ``O(m)`` for ``m`` differences in all comparisons; no loop over comparisons or
queries.
"""

from __future__ import annotations

import numpy as np

from ._segments import paired_layout, segment_of_row
from .effect_size import EstimateInterval
from .paired import differences
from .wilcoxon import WilcoxonResult, _exact_cdf

_MASK = np.int64(0x7FFF_FFFF_FFFF_FFFF)


#: per (segment, comparison): the Hodges-Lehmann estimate and its interval (NaN without a non-zero difference)
HodgesLehmannResult = EstimateInterval


def _ordered(v: np.ndarray) -> np.ndarray:
    """float64 -> int64 keys in the same order (-0.0 and 0.0 share the key 0)."""
    bits = v.view(np.int64)
    return np.where(bits >= 0, bits, -(bits & _MASK))


def _unordered(k: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_ordered`."""
    mag = np.abs(k).view(np.float64)
    return np.where(k >= 0, mag, -mag)


def _first_above(a: np.ndarray, a_i: np.ndarray, theta: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per row: the first ``j`` in ``[lo, hi)`` with ``(a_i + a[j]) * 0.5 > theta`` (``hi`` if none).

    One binary search of every row at once, on the rows still open only.
    """
    lo, hi = lo.copy(), hi.copy()
    while True:  # every row at once while most are open (no index arrays), then only the open ones
        open_ = lo < hi
        n_open = np.count_nonzero(open_)
        if n_open < open_.size // 2:
            break
        mid = (lo + hi) >> 1
        below = (a_i + a[np.minimum(mid, a.size - 1)]) * 0.5 <= theta
        lo = np.where(open_ & below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)
    idx = np.flatnonzero(lo < hi)
    while idx.size:
        mid = (lo[idx] + hi[idx]) >> 1
        below = (a_i[idx] + a[mid]) * 0.5 <= theta[idx]
        lo[idx[below]] = mid[below] + 1
        hi[idx[~below]] = mid[~below]
        idx = idx[lo[idx] < hi[idx]]
    return lo


_SAMPLE = 1024  # candidates drawn per target and step to place the pivots (Floyd & Rivest 1975)


def _pivots(
    a: np.ndarray,
    a_i: np.ndarray,
    jl: np.ndarray,
    jh: np.ndarray,
    row_t: np.ndarray,
    t_act: np.ndarray,
    rank: np.ndarray,
    cand: np.ndarray,
    rng: np.random.Generator,
    step: int,
) -> np.ndarray:
    """One pivot key per active target: a quantile of a sample of its candidates near the sought rank.

    Just below it on even steps, just above on odd ones, so that two steps leave a few percent of the candidates.
    """
    width = jh - jl
    cum = np.cumsum(width)
    before = cum - width
    n_act = t_act.size
    first = np.searchsorted(row_t, t_act, side="left")  # the first row of each active target (rows sorted by target)
    total = cand[t_act]
    pick = before[first][:, None] + (rng.random((n_act, _SAMPLE)) * total[:, None]).astype(np.int64)
    r = np.searchsorted(cum, pick, side="right")
    sample = np.sort((a_i[r] + a[jl[r] + pick - before[r]]) * 0.5, axis=1)
    q = (rank[t_act] - 0.5) / total
    spread = 3.0 * np.sqrt(q * (1.0 - q) / _SAMPLE) + 1.0 / _SAMPLE
    q = q - spread if step % 2 == 0 else q + spread
    at = np.clip(np.floor(q * _SAMPLE), 0, _SAMPLE - 1).astype(np.int64)
    return _ordered(np.ascontiguousarray(sample[np.arange(n_act), at]))


def walsh_order_statistics(a: np.ndarray, start: np.ndarray, size: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The ``k``-th smallest (1-based) Walsh average ``(a_i + a_j) * 0.5``, ``i <= j``, of each target.

    ``a`` holds the groups' values, each group sorted ascending at ``a[start[g]:start[g] + size[g]]``; ``start``,
    ``size`` and ``k`` have one entry per target (several targets may share a group); ``1 <= k <= size(size+1)/2``.

    Selection in the sorted matrix of pair sums (Monahan 1984): each target keeps a bracket ``lo < w_(k) <= hi``
    and, per row ``i``, the window ``[jl_i, jh_i)`` of the ``j`` whose average lies in ``(lo, hi]``; a step takes a
    pivot among those candidates (a fixed-seed random one: the result is exact whatever the draw, the draw only
    spreads the work), counts the averages ``<= pivot`` by a binary search within every window, and moves one end of
    the bracket. When at most ``4 * size`` candidates are left they are gathered and sorted; when the bracket holds
    one float (ties), that float is the answer. Every target and row at once in each step.
    """
    a = np.asarray(a, dtype=np.float64)
    start, size, k = (np.asarray(v, dtype=np.int64) for v in (start, size, k))
    n_t = k.size
    if n_t == 0:
        return np.zeros(0)
    rng = np.random.default_rng(0x4C)
    rows_t = np.repeat(np.arange(n_t), size)
    first_row = np.concatenate([[0], np.cumsum(size)[:-1]])
    i_glob = np.repeat(start - first_row, size) + np.arange(rows_t.size)
    a_i = a[i_glob]
    lo_key = _ordered(a[start]) - 1  # below every Walsh average: count(lo) = 0 < k
    hi_key = _ordered(a[start + size - 1])  # the largest one: count(hi) = M >= k
    jl = i_glob.copy()  # per row, the first j whose average is > lo: all j >= i
    jh = np.repeat(start + size, size)  # the first j whose average is > hi: none
    count_lo = np.zeros(n_t, dtype=np.int64)
    count_hi = size * (size + 1) // 2
    gather_max = np.maximum(size, 64)
    step = 0
    while True:
        active = (count_hi - count_lo > gather_max) & (hi_key - 1 > lo_key)  # (hi - lo > 1 overflows int64)
        if not active.any():
            break
        t_act = np.flatnonzero(active)
        rows = np.flatnonzero(active[rows_t])
        pivot_key = _pivots(
            a, a_i[rows], jl[rows], jh[rows], rows_t[rows], t_act, k - count_lo, count_hi - count_lo, rng, step
        )
        step += 1
        pivot_key = np.where(pivot_key >= hi_key[t_act], hi_key[t_act] - 1, pivot_key)  # all ties at hi: step below
        pivot_key = np.maximum(pivot_key, lo_key[t_act] + 1)
        theta_t = np.zeros(n_t)
        theta_t[t_act] = _unordered(pivot_key)
        j_new = _first_above(a, a_i[rows], theta_t[rows_t[rows]], jl[rows], jh[rows])
        count = np.bincount(rows_t[rows], weights=(j_new - i_glob[rows]).astype(np.float64), minlength=n_t)
        count = count.astype(np.int64)[t_act]
        up = count >= k[t_act]
        hi_key[t_act[up]], count_hi[t_act[up]] = pivot_key[up], count[up]
        lo_key[t_act[~up]], count_lo[t_act[~up]] = pivot_key[~up], count[~up]
        up_row = np.zeros(n_t, dtype=bool)
        up_row[t_act[up]] = True
        up_r = up_row[rows_t[rows]]
        jh[rows[up_r]] = j_new[up_r]
        jl[rows[~up_r]] = j_new[~up_r]
    out = _unordered(hi_key)  # a bracket holding one float: that float (every candidate is hi)
    gather = (hi_key - 1 > lo_key) & (count_hi > count_lo)
    if gather.any():  # few candidates left: gather the Walsh averages in (lo, hi] and take the right one
        rows = np.flatnonzero(gather[rows_t] & (jh > jl))
        width = jh[rows] - jl[rows]
        which = np.repeat(rows, width)
        j = np.repeat(jl[rows] - np.concatenate([[0], np.cumsum(width)[:-1]]), width) + np.arange(which.size)
        w = (a_i[which] + a[j]) * 0.5
        t_of = rows_t[which]
        order = np.lexsort((w, t_of))
        first = np.concatenate([[0], np.cumsum(np.bincount(t_of, minlength=n_t))[:-1]])
        t_g = np.flatnonzero(gather)
        out[t_g] = w[order][first[t_g] + k[t_g] - count_lo[t_g] - 1]
    return out


def hodges_lehmann(
    x: np.ndarray,
    y: np.ndarray,
    offsets: np.ndarray,
    wilcoxon: WilcoxonResult,
    level: float = 0.95,
    alternative: str = "two-sided",
) -> HodgesLehmannResult:
    """Hodges-Lehmann estimate and interval of ``x - y`` per segment and column (module docstring).

    ``wilcoxon`` is the test's result on the same ``x``, ``y``, ``offsets``: its method picks the interval's rule.

    Examples
    --------
    >>> import numpy as np
    >>> from rankframe.stats.wilcoxon import wilcoxon_test
    >>> d = np.array([1.0, 2.0, 4.0])   # Walsh averages 1, 1.5, 2, 2.5, 3, 4: median (2 + 2.5) / 2
    >>> off = np.array([0, 3])
    >>> r = hodges_lehmann(d, np.zeros(3), off, wilcoxon_test(d, np.zeros(3), off))
    >>> float(r.estimate[0, 0]), float(r.ci_low[0, 0]), float(r.ci_high[0, 0])   # n = 3: k = 1, all of them
    (2.25, 1.0, 4.0)
    """
    from scipy import stats  # imported here: `import rankframe` stays light

    x, y, offsets = paired_layout(x, y, offsets)
    n_seg, n_col = offsets.size - 1, x.shape[1]
    n_comp = n_seg * n_col
    d = differences(x, y)  # the Wilcoxon test's zeros (paired.equal)
    row, col = np.nonzero(~np.isnan(d) & (d != 0))
    comp = segment_of_row(offsets)[row] * n_col + col
    vals = d[row, col]
    order = np.lexsort((vals, comp))
    vals = vals[order]
    n_nz = np.bincount(comp, minlength=n_comp)
    start = np.concatenate([[0], np.cumsum(n_nz)[:-1]])
    nf = n_nz.astype(np.float64)
    m_walsh = n_nz * (n_nz + 1) // 2
    method = wilcoxon.method.ravel()
    alpha = 1.0 - level
    a_side = alpha / 2.0 if alternative == "two-sided" else alpha
    k = np.ones(n_comp, dtype=np.int64)
    exact = (method == 1) & (n_nz > 0)
    for n in np.unique(n_nz[exact]):  # one null CDF per distinct n (at most 50), as the test
        idx = np.flatnonzero(exact & (n_nz == n))
        k[idx] = max(int(np.searchsorted(_exact_cdf(int(n)), a_side, side="left")), 1)
    normal = ~exact & (n_nz > 0)
    with np.errstate(invalid="ignore"):
        sigma = np.sqrt((nf * (nf + 1.0) * (2.0 * nf + 1.0) - wilcoxon.tie_term.ravel() / 2.0) / 24.0)
        approx = np.ceil(m_walsh / 2.0 - stats.norm.isf(a_side) * sigma - 1e-9)
    k[normal] = np.maximum(np.nan_to_num(approx[normal], nan=1.0), 1.0).astype(np.int64)
    k = np.minimum(k, np.maximum(m_walsh, 1))

    has = np.flatnonzero(n_nz > 0)
    m_h = m_walsh[has]
    targets = np.stack([(m_h + 1) // 2, m_h // 2 + 1, k[has], m_h + 1 - k[has]])  # median (1 or 2), low, high
    got = walsh_order_statistics(vals, np.tile(start[has], 4), np.tile(n_nz[has], 4), targets.ravel())
    got = got.reshape(4, has.size)
    estimate, low, high = (np.full(n_comp, np.nan) for _ in range(3))
    estimate[has] = (got[0] + got[1]) * 0.5
    low[has], high[has] = got[2], got[3]
    if alternative == "greater":
        high[has] = np.inf
    elif alternative == "less":
        low[has] = -np.inf
    shape = (n_seg, n_col)
    return HodgesLehmannResult(estimate=estimate.reshape(shape), ci_low=low.reshape(shape), ci_high=high.reshape(shape))
