"""All-pairs comparison that respects the pairing by query: the blocked Tukey HSD.

Within one segment and metric, the per-query values ``x[i, j]`` (query ``i = 1..n``, system ``j = 1..k``) form
a randomized complete block design: queries are blocks, systems are treatments, one value per cell. The
two-way ANOVA without replication (``x[i, j] = mu + query_i + system_j + e[i, j]``) removes the query effect
from the error term:

- ``residual[i, j] = x[i, j] - mean_i(x[i, :]) - mean_j(x[:, j]) + mean(x)``;
- ``MSE = sum(residual**2) / ((n - 1) * (k - 1))`` with ``df = (n - 1)(k - 1)``.

Tukey's honestly significant difference for systems ``a`` and ``b``, with ``delta = mean(x[:, a]) -
mean(x[:, b])``: ``q = |delta| / sqrt(MSE / n)``, ``p = P(Q_{k, df} >= q)`` from the studentized range
distribution (``scipy.stats.studentized_range``), and the simultaneous interval ``delta -+
Q_{k, df}^{-1}(level) * sqrt(MSE / n)``. The p-values and intervals hold simultaneously for the ``k(k - 1)/2``
pairs of the segment and metric (family-wise error rate over the pairs).

A one-way Tukey HSD (what ranx runs) puts the query-to-query spread into the error term and loses most of the
power of a paired design; the blocked form is the one recommended for IR experiments (Sakai 2018, ch. 4;
Carterette 2012). References: J. W. Tukey, "The problem of multiple comparisons" (1953); D. C. Montgomery,
*Design and Analysis of Experiments*, randomized complete block design, multiple comparisons; B. Carterette,
"Multiple testing in statistical analysis of systems-based information retrieval experiments", ACM TOIS 30(1),
2012; T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 4 and 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._segments import check_offsets, segment_of_row, segment_sum


@dataclass(frozen=True)
class BlockedAnova:
    """Two-way ANOVA without replication per (segment, block column), e.g. per (segment, metric).

    ``n``, ``k``, ``mse``, ``df``: shape (n_segments, n_blocks); ``means``: (n_segments, n_blocks, n_systems),
    NaN for a system with no value there.
    """

    n: np.ndarray
    k: np.ndarray
    means: np.ndarray
    mse: np.ndarray
    df: np.ndarray


def blocked_anova(values: np.ndarray, offsets: np.ndarray) -> BlockedAnova:
    """The ANOVA terms of the module docstring for ``values`` of shape (n_rows, n_blocks, n_systems).

    ``values`` must be aligned (``rankframe.stats.align``): within a segment and block column, each row has a
    value either for every system that has one somewhere in that segment and block, or for none.
    """
    values = np.asarray(values, dtype=np.float64)
    offsets = check_offsets(offsets, values.shape[0])
    seg = segment_of_row(offsets)
    mask = ~np.isnan(values)
    used = mask.any(axis=2)  # (rows, blocks)
    has_system = segment_sum(mask, offsets) > 0  # (segments, blocks, systems)
    k = has_system.sum(axis=2)
    if np.any(used & (mask.sum(axis=2) != k[seg])):
        raise ValueError("values are not aligned: a row lacks a value for a system present in its block")
    n = segment_sum(used, offsets)
    v0 = np.where(mask, values, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = segment_sum(v0, offsets) / n[:, :, None]
        means[~has_system] = np.nan
        row_mean = v0.sum(axis=2) / mask.sum(axis=2)
        grand = segment_sum(np.where(used, row_mean, 0.0), offsets) / n
        col = np.where(has_system, means, 0.0)[seg]
        resid = np.where(mask, values - row_mean[:, :, None] - col + grand[seg][:, :, None], 0.0)
        df = (n - 1.0) * (k - 1.0)
        mse = segment_sum((resid * resid).sum(axis=2), offsets) / df
    mse[df < 1] = np.nan
    return BlockedAnova(n=n, k=k, means=means, mse=mse, df=df)


@dataclass(frozen=True)
class TukeyResult:
    """Per (segment, block, pair): ``delta`` (mean of a minus mean of b), ``q``, ``pvalue``, interval."""

    delta: np.ndarray
    q: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


def tukey_hsd(anova: BlockedAnova, pairs: np.ndarray, level: float = 0.95) -> TukeyResult:
    """Blocked Tukey HSD for ``pairs`` (array of (a, b) system indices); results (n_segments, n_blocks, n_pairs).

    Examples
    --------
    >>> import numpy as np
    >>> # 3 queries x 2 systems: delta = mean(0.2, 0.6, 0.7) - mean(0.1, 0.5, 0.3) = 0.5 - 0.3
    >>> v = np.array([[0.1, 0.2], [0.5, 0.6], [0.3, 0.7]])[:, None, :]
    >>> r = tukey_hsd(blocked_anova(v, np.array([0, 3])), np.array([[1, 0]]))
    >>> round(float(r.delta[0, 0, 0]), 12)
    0.2
    """
    from scipy import stats  # imported here: `import rankframe` stays light

    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    a, b = pairs[:, 0], pairs[:, 1]
    delta = anova.means[:, :, a] - anova.means[:, :, b]
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(anova.mse / anova.n)[:, :, None]
        q = np.abs(delta) / se
    k = np.broadcast_to(anova.k[:, :, None], delta.shape).astype(np.float64)
    df = np.broadcast_to(anova.df[:, :, None], delta.shape)
    ok = ~np.isnan(delta) & ~np.isnan(se) & (k >= 2) & (df >= 1)
    p = np.full(delta.shape, np.nan)
    half = np.full(delta.shape, np.nan)
    finite = ok & np.isfinite(q)
    p[finite] = stats.studentized_range.sf(q[finite], k[finite], df[finite])
    p[ok & np.isposinf(q)] = 0.0
    if ok.any():  # one quantile per distinct (k, df): the ppf is a root search, the costly part
        kd, which = np.unique(np.stack([k[ok], df[ok]], axis=1), axis=0, return_inverse=True)
        qcrit = stats.studentized_range.ppf(level, kd[:, 0], kd[:, 1])
        half[ok] = qcrit[which.ravel()] * np.broadcast_to(se, delta.shape)[ok]
    return TukeyResult(delta=delta, q=np.where(ok, q, np.nan), pvalue=p, ci_low=delta - half, ci_high=delta + half)
