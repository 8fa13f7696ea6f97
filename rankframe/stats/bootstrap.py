"""Paired percentile bootstrap interval of the mean difference, for every (segment, comparison) at once.

For a comparison on ``n`` queries: draw ``n`` queries with replacement (the same draw for the system and the
baseline: the pairing is kept), take the mean difference, repeat ``n_resamples`` times; the interval at
``level`` is the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles (numpy's default linear interpolation)
of those means (Efron & Tibshirani 1993, ch. 13); one-sided (``alternative="greater"``) the bound
``[q_(1 - level), inf)``, (``"less"``) ``(-inf, q_level]``. This is ``scipy.stats.bootstrap((x, y), statistic,
paired=True, method="percentile")`` with ``statistic = mean(x - y)``; equal in distribution, not draw for draw.

Comparisons of a segment that use the same queries share their draws (a draw is a vector of counts per query,
then one matrix product gives every comparison's resampled mean). The random stream of segment ``s`` is child
``s`` of ``SeedSequence(entropy=seed, spawn_key=(0xB007,))`` (distinct from the randomization test's streams).
Segments or comparisons with fewer than 2 queries get NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import progress
from ._segments import check_offsets
from .randomization import CHUNK_ELEMENTS, check_n_resamples, seed_sequence

SPAWN_KEY = (0xB007,)


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
    n_resamples: int = 10_000,
    seed: int | np.random.SeedSequence | None = None,
    alternative: str = "two-sided",
) -> BootstrapResult:
    """Paired percentile bootstrap interval of ``mean(x - y)`` per segment and column (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> r = bootstrap_ci(np.array([1.0, 1.0, 1.0]), np.array([0.5, 0.5, 0.5]), np.array([0, 3]), seed=0)
    >>> float(r.ci_low[0, 0]), float(r.ci_high[0, 0])   # every resample of 0.5, 0.5, 0.5 has mean 0.5
    (0.5, 0.5)
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim == 1:
        x, y = x[:, None], y[:, None]
    offsets = check_offsets(offsets, x.shape[0])
    n_resamples = check_n_resamples(n_resamples, "bootstrap_ci")
    root = seed_sequence(seed)
    n_seg = offsets.size - 1
    children = np.random.SeedSequence(root.entropy, spawn_key=SPAWN_KEY).spawn(n_seg)
    d = x - y
    low = np.full((n_seg, d.shape[1]), np.nan)
    high = np.full((n_seg, d.shape[1]), np.nan)
    q = {
        "two-sided": np.array([(1.0 - level) / 2.0, (1.0 + level) / 2.0]),
        "greater": np.array([1.0 - level, 1.0]),  # the upper "bound" is replaced by inf below
        "less": np.array([0.0, level]),
    }[alternative]
    for s in range(n_seg):  # a loop over segments and their distinct query sets; the work is vectorized inside
        block = d[offsets[s] : offsets[s + 1]]
        valid = ~np.isnan(block)
        patterns, which = np.unique(np.packbits(valid, axis=0).T, axis=0, return_inverse=True)
        rng = np.random.Generator(np.random.PCG64(children[s]))
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
                draws = rng.integers(0, n, size=(c, n)) + (np.arange(c) * n)[:, None]
                counts = np.bincount(draws.ravel(), minlength=c * n).reshape(c, n)
                means[a : a + c] = (counts.astype(np.float64) @ sample) / n
                progress.advance(c)
            bounds = np.quantile(means, q, axis=0)
            low[s, cols], high[s, cols] = bounds[0], bounds[1]
    if alternative == "greater":
        high[~np.isnan(low)] = np.inf
    elif alternative == "less":
        low[~np.isnan(high)] = -np.inf
    return BootstrapResult(ci_low=low, ci_high=high, n_resamples=int(n_resamples), entropy=root.entropy)
