"""Westfall-Young max-|t| step-down adjustment over the sign flips of the randomization test.

The resampling multiple-testing adjustment of Westfall & Young (1993, *Resampling-Based Multiple Testing*,
Algorithm 4.1, the step-down "maxT"; Ge, Dudoit & Speed 2003, Box 2), as Boytsov, Belova & Westfall (2013,
"Deciding on an adjustment for multiplicity in IR experiments", SIGIR) apply it to paired IR comparisons. It
controls the family-wise error rate, like Holm, but uses the joint distribution of the comparisons' statistics:
comparisons of correlated metrics and systems (nDCG@10 and AP@10 of the same runs) count as much less than
independent ones, so it is much less conservative than Holm or Bonferroni there.

For one family of ``m`` comparisons of one segment (they share its queries, hence its sign flips):

1. Each comparison's statistic is the paired t statistic ``t = mean(d) / (sd(d) / sqrt(n))``, oriented by the
   alternative (``|t|`` two-sided, ``t`` for "greater", ``-t`` for "less"). Under a sign flip ``sum d_i^2`` does
   not change, so the flipped ``t*`` follows from the flipped sum alone. t, not the mean difference, because the
   maximum must compare comparisons on one scale (metrics of different spreads).
2. Order the comparisons by observed statistic, largest first: ``t_(1) >= ... >= t_(m)``.
3. For every sign pattern ``b`` (the *same* patterns as :func:`rankframe.stats.sign_flip_test` draws for the
   segment: same seed, same stream, same exact enumeration), the successive maxima from the bottom:
   ``u_(j),b = max(t*_(j),b, ..., t*_(m),b)``.
4. ``hits_(j)`` = the patterns with ``u_(j),b >= t_(j)``; ``p~_(j) = (hits + 1) / (B + 1)`` for random flips,
   ``hits / 2**n`` for an exactly enumerated segment (the randomization test's own p-value rules).
5. Monotonicity: ``p_adj_(j) = max(p~_(1), ..., p~_(j))``.

The comparison with the own flipped statistic (``t*_(j) >= t_(j)``) is decided exactly as the randomization test
decides it (on the flipped sums, with its tolerance), so ``p_adjusted >= p_value`` holds row by row; the maxima over
the other comparisons count a tie within a relative 1e-9 as a hit (conservative).

**Simultaneous interval.** The single-step max-|t| critical value ``c`` of a family is the value of the maxima
``M_b = u_(1),b`` above which an observed ``t`` gets a single-step adjusted p-value below ``alpha = 1 - level``;
``delta -+ c * sd / sqrt(n)`` (one-sided: the one bound) is the family's simultaneous interval. The single-step
p-value is never below the step-down one, so an interval that excludes 0 marks a row whose ``p_adjusted <
alpha`` (the converse can fail: the step-down is more powerful; the same relation as Bonferroni intervals and
Holm's p-values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core import progress
from ._segments import segment_sum
from .randomization import (
    N_RESAMPLES,
    TOLERANCE,
    _orient,
    exact_bits,
    flip_bits,
    flip_inputs,
    seed_sequence,
)

TIE_RTOL = 1e-9  # the maxima over the other comparisons: a tie within this (relative) counts as a hit
CHUNK_ELEMENTS = 1 << 21  # sign-matrix elements per chunk (float64)


@dataclass(frozen=True)
class WestfallYoungResult:
    """Adjusted p-values and the family's max-|t| critical value, per (segment, comparison); NaN off the family."""

    p_adjusted: np.ndarray
    critical: np.ndarray
    n_resamples: int
    entropy: int | Sequence[int] | None


def _tstat(total: np.ndarray, n: np.ndarray, ss: np.ndarray) -> np.ndarray:
    """The paired t of differences with sum ``total``, count ``n`` and sum of squares ``ss`` (any sign pattern)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / n
        var = np.maximum(ss - total * mean, 0.0) / (n - 1.0)
        return mean / np.sqrt(var / n)


def critical_value(maxima: np.ndarray, alpha: float, exact: bool) -> float:
    """The smallest ``c`` with ``t > c`` => single-step p < alpha, from the maxima of every pattern.

    Random flips: ``p = (1 + #{M_b >= t}) / (B + 1) < alpha`` iff ``#{M_b >= t} <= K = ceil(alpha (B + 1) - 1) -
    1`` iff ``t > M_[K]`` (the maxima in decreasing order, from 0). Exact: ``p = #{M_b >= t} / 2**n``, ``K =
    ceil(alpha 2**n) - 1``. ``inf`` when no ``t`` can reach it.
    """
    total = maxima.size
    k = int(np.ceil(alpha * total)) - 1 if exact else int(np.ceil(alpha * (total + 1) - 1)) - 1
    if k < 0:
        return float("inf")
    desc = -np.sort(-maxima)
    return float(desc[min(k, total - 1)])


def westfall_young(
    x: np.ndarray,
    y: np.ndarray,
    offsets: np.ndarray,
    families: np.ndarray,
    n_resamples: int = N_RESAMPLES,
    seed: int | np.random.SeedSequence | None = None,
    alternative: str = "two-sided",
    level: float = 0.95,
) -> WestfallYoungResult:
    """Westfall-Young step-down adjusted p-values per (segment, comparison) (module docstring).

    ``families`` (shape ``(n_segments, n_cols)``): the family code of each comparison, ``-1`` for those in none
    (NaN p-value); a family lies within one segment (codes may repeat across segments: they are read per segment).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.9, 0.9], [0.8, 0.7], [0.7, 0.8], [0.6, 0.6]])
    >>> y = np.full((4, 2), 0.5)
    >>> r = westfall_young(x, y, np.array([0, 4]), np.zeros((1, 2), dtype=int), n_resamples=1000, seed=0)
    >>> r.p_adjusted.round(4).tolist()   # 16 patterns: only "no flip" and "flip all" reach t = 3.87 on either column
    [[0.125, 0.125]]
    """
    d, n, offsets, n_resamples = flip_inputs(x, y, offsets, n_resamples, "westfall_young")
    n = n.astype(np.float64)
    ss = segment_sum(d * d, offsets)
    root = seed_sequence(seed)
    n_seg = offsets.size - 1
    children = root.spawn(n_seg)  # the randomization test's streams: child s for segment s
    families = np.asarray(families).reshape(n_seg, d.shape[1])
    p_adj = np.full((n_seg, d.shape[1]), np.nan)
    critical = np.full((n_seg, d.shape[1]), np.nan)
    for s in range(n_seg):  # a loop over segments; the work is the matrix products inside
        member = np.flatnonzero(families[s] >= 0)
        if member.size == 0:
            continue
        block = np.ascontiguousarray(d[offsets[s] : offsets[s + 1]][:, member])
        n_rows = block.shape[0]
        n_c, ss_c = n[s, member], ss[s, member]
        total = block.sum(axis=0)
        threshold = _orient(total, alternative) - TOLERANCE * np.abs(block).sum(axis=0)
        t_obs = _orient(_tstat(total, n_c, ss_c), alternative)
        t_obs = np.where(np.isnan(t_obs), -np.inf, t_obs)
        fam = families[s, member]
        groups = [np.flatnonzero(fam == f) for f in np.unique(fam)]
        orders = [g[np.argsort(-t_obs[g], kind="stable")] for g in groups]  # largest observed t first
        bound = np.where(np.isinf(t_obs), t_obs, t_obs - TIE_RTOL * np.abs(t_obs))
        exact = n_rows < 63 and 2**n_rows <= n_resamples
        n_patterns = 2**n_rows if exact else n_resamples
        hits = np.zeros(member.size, dtype=np.int64)
        maxima = [np.empty(n_patterns) for _ in orders]
        bitgen = None if exact else np.random.PCG64(children[s])
        step = max(1, CHUNK_ELEMENTS // max(n_rows, 1))
        progress.expect(n_patterns)
        for a in range(0, n_patterns, step):
            b = min(n_patterns, a + step)
            bits = exact_bits(n_rows, a, b) if exact else flip_bits(bitgen, n_rows, b - a)  # type: ignore[arg-type]
            flipped = total - 2.0 * (bits.astype(np.float64) @ block)  # (patterns, comparisons)
            own = _orient(flipped, alternative) >= threshold  # the randomization test's own decision
            t_star = _orient(_tstat(flipped, n_c, ss_c), alternative)
            t_star = np.where(np.isnan(t_star), -np.inf, t_star)
            for i, order in enumerate(orders):  # a loop over the families of the segment (a handful)
                u = np.maximum.accumulate(t_star[:, order[::-1]], axis=1)[:, ::-1]  # successive maxima from the bottom
                later = np.concatenate([u[:, 1:], np.full((b - a, 1), -np.inf)], axis=1)
                hit = own[:, order] | (later >= bound[order])
                hits[order] += hit.sum(axis=0)
                maxima[i][a:b] = u[:, 0]
            progress.advance(b - a)
        raw = hits / n_patterns if exact else (hits + 1.0) / (n_resamples + 1.0)
        out = np.empty(member.size)
        crit = np.empty(member.size)
        for i, order in enumerate(orders):
            out[order] = np.minimum(1.0, np.maximum.accumulate(raw[order]))
            crit[order] = critical_value(maxima[i], 1.0 - level, exact)
        p_adj[s, member] = out
        critical[s, member] = crit
    return WestfallYoungResult(p_adjusted=p_adj, critical=critical, n_resamples=int(n_resamples), entropy=root.entropy)
