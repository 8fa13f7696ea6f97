"""Paired percentile bootstrap interval of the mean difference, for every (segment, comparison) at once.

For a comparison on ``n`` queries: draw ``n`` queries with replacement (the same draw for the system and the
baseline: the pairing is kept), take the mean difference, repeat ``n_resamples`` times; the interval at
``level`` is the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles (numpy's default linear interpolation)
of those means (Efron & Tibshirani 1993, ch. 13); one-sided (``alternative="greater"``) the bound
``[q_(1 - level), inf)``, (``"less"``) ``(-inf, q_level]``. This is ``scipy.stats.bootstrap((x, y), statistic,
paired=True, method="percentile")`` with ``statistic = mean(x - y)``; equal in distribution, not draw for draw.

**BCa** (``method="bca"``, Efron 1987; Efron & Tibshirani 1993, 14.3 and eq. 14.15): the same resampled means
``m_1..m_B``, read at corrected levels. With ``theta`` the mean difference, the bias correction
``z0 = Phi^-1((#{m_b < theta} + #{m_b <= theta}) / (2B))`` and the acceleration from the jackknife of the mean,
``theta_(i) = (sum(d) - d_i) / (n - 1)``, ``a = sum(U_i^3) / (6 (sum(U_i^2))^(3/2))`` with ``U_i = mean(theta_(.)) -
theta_(i)``, the interval is the ``alpha_1 = Phi(z0 + (z0 + z_a) / (1 - a (z0 + z_a)))`` and ``alpha_2`` (the same
with ``z_(1-a)``) quantiles, ``a = (1 - level) / 2`` (one-sided: ``1 - level`` and the one end). This is
``scipy.stats.bootstrap(..., paired=True, method="BCa")`` (its ``_bca_interval``). Constant differences (``a`` =
0/0) give the zero-width interval ``[theta, theta]``, as the percentile method.

Comparisons of a segment that use the same queries share their draws (a draw is a vector of counts per query,
then one matrix product gives every comparison's resampled mean). The random stream of segment ``s`` is child
``s`` of ``SeedSequence(entropy=seed, spawn_key=(0xB007,))`` (distinct from the randomization test's streams).
Segments or comparisons with fewer than 2 queries get NaN.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import progress
from ._segments import paired_layout
from .randomization import CHUNK_ELEMENTS, N_RESAMPLES, check_n_resamples, seed_sequence

SPAWN_KEY = (0xB007,)
#: the ``method=`` values of :func:`bootstrap_ci`: percentile, and bias-corrected and accelerated
METHODS = ("percentile", "bca")


@dataclass(frozen=True)
class BootstrapResult:
    """Percentile interval bounds per (segment, comparison)."""

    ci_low: np.ndarray
    ci_high: np.ndarray
    n_resamples: int
    entropy: int | Sequence[int] | None  # the root SeedSequence entropy: reproduces the draws


def bootstrap_ci(
    x: np.ndarray,
    y: np.ndarray,
    offsets: np.ndarray,
    level: float = 0.95,
    n_resamples: int = N_RESAMPLES,
    seed: int | np.random.SeedSequence | None = None,
    alternative: str = "two-sided",
    method: str = "percentile",
) -> BootstrapResult:
    """Paired percentile (or BCa) bootstrap interval of ``mean(x - y)`` per segment and column (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> r = bootstrap_ci(np.array([1.0, 1.0, 1.0]), np.array([0.5, 0.5, 0.5]), np.array([0, 3]), seed=0)
    >>> float(r.ci_low[0, 0]), float(r.ci_high[0, 0])   # every resample of 0.5, 0.5, 0.5 has mean 0.5
    (0.5, 0.5)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    x, y, offsets = paired_layout(x, y, offsets)
    n_resamples = check_n_resamples(n_resamples, "bootstrap_ci")
    root = seed_sequence(seed)
    n_seg = offsets.size - 1
    d = x - y
    low = np.full((n_seg, d.shape[1]), np.nan)
    high = np.full((n_seg, d.shape[1]), np.nan)
    q = {
        "two-sided": np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]),
        "greater": np.array([1.0 - level, 1.0]),  # the upper "bound" is replaced by inf below
        "less": np.array([0.0, level]),
    }[alternative]
    for s, cols, sample, means in resampled_means(d, offsets, n_resamples, root):
        if method == "bca":
            bounds = _bca_bounds(means, sample, level, alternative)
        else:
            bounds = np.quantile(means, q, axis=0)
        low[s, cols], high[s, cols] = bounds[0], bounds[1]
    if alternative == "greater":
        high[~np.isnan(low)] = np.inf
    elif alternative == "less":
        low[~np.isnan(high)] = -np.inf
    return BootstrapResult(ci_low=low, ci_high=high, n_resamples=int(n_resamples), entropy=root.entropy)


def resampled_means(
    d: np.ndarray, offsets: np.ndarray, n_resamples: int, root: np.random.SeedSequence
) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """The bootstrap means of every segment: ``(segment, columns, sample, means)`` per segment and query set.

    ``sample`` is the (n, columns) block of the queries the columns share (NaN rows left out), ``means`` the
    (``n_resamples``, columns) resampled means; segments or query sets with fewer than 2 queries are skipped. The
    draws of segment ``s`` come from child ``s`` of ``SeedSequence(root.entropy, spawn_key=SPAWN_KEY)``, in chunks
    of ``CHUNK_ELEMENTS // n`` resamples of ``n`` indices each (module docstring).
    """
    n_seg = offsets.size - 1
    rngs = segment_generators(root, n_seg)
    for s in range(n_seg):  # a loop over segments and their distinct query sets; the work is vectorized inside
        block = d[offsets[s] : offsets[s + 1]]
        valid = ~np.isnan(block)
        patterns, which = np.unique(np.packbits(valid, axis=0).T, axis=0, return_inverse=True)
        rng = rngs[s]
        for g in range(patterns.shape[0]):
            cols = np.flatnonzero(which.ravel() == g)
            rows = np.flatnonzero(valid[:, cols[0]])
            n = rows.size
            if n < 2:
                continue
            sample = np.ascontiguousarray(block[np.ix_(rows, cols)])
            means = np.empty((n_resamples, cols.size))
            step = max(1, CHUNK_ELEMENTS // n)
            progress.expect(n_resamples)
            for a in range(0, n_resamples, step):
                c = min(step, n_resamples - a)
                means[a : a + c] = (draw_counts(rng, n, c) @ sample) / n
                progress.advance(c)
            yield s, cols, sample, means


def segment_generators(root: np.random.SeedSequence, n_segments: int) -> list[np.random.Generator]:
    """The random stream of each segment: child ``s`` of ``SeedSequence(root.entropy, spawn_key=SPAWN_KEY)``.

    The one seeding rule of every bootstrap over queries (compare's intervals, the set-level metrics' intervals
    and paired comparisons): the same seed gives the same draws for a segment of the same queries.
    """
    children = np.random.SeedSequence(root.entropy, spawn_key=SPAWN_KEY).spawn(n_segments)
    return [np.random.Generator(np.random.PCG64(child)) for child in children]


def draw_counts(rng: np.random.Generator, n: int, c: int) -> np.ndarray:
    """The next ``c`` resamples of ``n`` queries as multiplicities: a (c, n) float array, each row summing to n.

    Resample b draws ``rng.integers(0, n, size=(c, n))[b]`` (n query positions with replacement); the stream is
    consumed in resample order, so drawing in chunks or at once gives the same resamples.
    """
    draws = rng.integers(0, n, size=(c, n)) + (np.arange(c) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=c * n).reshape(c, n).astype(np.float64)


def bca_levels(z0: np.ndarray, accel: np.ndarray, level: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """The BCa levels ``alpha_1, alpha_2`` of the bias correction ``z0`` and acceleration ``accel`` (per column)."""
    from scipy import special

    a = (1.0 - level) / 2.0 if alternative == "two-sided" else 1.0 - level
    z_a = special.ndtri(a)
    out = []
    for z in (z_a, -z_a):
        num = z0 + z
        out.append(special.ndtr(z0 + num / (1.0 - accel * num)))
    return out[0], out[1]


def quantile_at(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Numpy's linear quantile of each column of ``values`` (B, columns) at its own level (columns,)."""
    ordered = np.sort(values, axis=0)
    n_res = values.shape[0]
    pos = np.clip(np.nan_to_num(levels, nan=0.5), 0.0, 1.0) * (n_res - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n_res - 1)
    cols = np.arange(values.shape[1])
    return ordered[lo, cols] + (pos - lo) * (ordered[hi, cols] - ordered[lo, cols])


def bias_correction(means: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """BCa's ``z0``: ``Phi^-1`` of the share of resampled statistics below the estimate (ties count half)."""
    from scipy import special

    below = np.count_nonzero(means < theta, axis=0) + np.count_nonzero(means <= theta, axis=0)
    return special.ndtri(below / (2.0 * means.shape[0]))


def jackknife_terms(sample: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sum U^3, sum U^2)`` per column of the jackknife of the mean (Efron & Tibshirani 1993, eq. 14.15).

    ``U_i`` = the mean of the leave-one-out means minus the mean without row ``i``.
    """
    n = sample.shape[0]
    jack = (sample.sum(axis=0) - sample) / (n - 1)
    u = jack.mean(axis=0) - jack
    return (u**3).sum(axis=0), (u**2).sum(axis=0)


def _bca_bounds(means: np.ndarray, sample: np.ndarray, level: float, alternative: str) -> np.ndarray:
    """The BCa bounds (2, columns) from the resampled means (B, columns) of the sample (n, columns)."""
    n = sample.shape[0]
    z0 = bias_correction(means, np.ones(n) @ sample / n)  # theta: the arithmetic of a resample of every query once
    cube, square = jackknife_terms(sample)
    with np.errstate(divide="ignore", invalid="ignore"):
        accel = cube / (6.0 * square**1.5)
    accel = np.where(np.isfinite(accel), accel, 0.0)  # constant differences: no acceleration (a zero-width interval)
    low, high = bca_levels(z0, accel, level, alternative)
    return np.stack([quantile_at(means, low), quantile_at(means, high)])
