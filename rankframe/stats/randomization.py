"""Paired randomization (sign-flip) test, for every (segment, comparison) at once.

Under the null hypothesis that the system and the baseline are exchangeable on every query, each difference
``d_i`` is as likely to be ``+d_i`` as ``-d_i``. The statistic is ``T = sum_i d_i`` (equivalent to the mean
difference: ``n`` is fixed), the test is two-sided (``|T*| >= |T|``) or one-sided (``alternative="greater"``:
``T* >= T``, the system above the baseline; ``"less"``: ``T* <= T``, as ``scipy.stats.permutation_test``'s
``alternative``; below, ``|.|`` stands for the side's orientation), and a resample flips the sign of each difference
independently with probability 1/2.

- **Random sign flips** (the usual case): ``B = n_resamples`` sign patterns, ``hits`` = the number of patterns
  with ``|T*| >= |T|``, and ``p = (hits + 1) / (B + 1)`` (the observed pattern counts as one of the ``B + 1``:
  never 0, and valid at every level; Phipson & Smyth 2010).
- **Exact** (when a segment has so few queries that ``2**n_rows <= n_resamples``): every one of the ``2**n``
  patterns is enumerated and ``p = hits / 2**n`` (the identity pattern included). This is what
  ``scipy.stats.permutation_test(..., permutation_type="samples")`` does in that case.

``|T*| >= |T|`` is checked with a tolerance of ``1e-12 * sum_i |d_i|`` so that resamples that tie the observed
statistic exactly (common with discrete metrics such as P@10) are not lost to floating-point rounding.

**Speed without losing exactness.** The resampled sums ``sum_i b_i d_i`` (``b_i`` = 1 when row ``i`` is
flipped) are matrix products of the 0/1 sign patterns with the differences. They run in float32 over blocks of
``BLOCK`` rows (half the memory traffic of float64, which is what limits them), and the block sums are added in
float64. A rigorous bound on the float32 error (``gamma_BLOCK + 3u`` times ``sum_i |d_i|``, ``u = 2**-24``)
decides every resample that is clearly above or below the threshold; the few within the bound of it are
recomputed in float64. The hit counts are therefore those of a float64 computation.

**Random stream.** ``numpy.random.SeedSequence(seed)`` spawns one child per segment (in segment order); the
child seeds a ``PCG64`` bit generator whose raw 64-bit words give the signs: resample ``b`` of a segment with
``n`` rows uses the next ``ceil(n / 64)`` words, and bit ``i`` (least significant first) of that run of words
is 1 when the sign of row ``i`` is flipped. All comparisons of a segment (every metric and system pair) share
these signs; rows that take no part in a comparison have difference 0 and do not change its statistic. Because
the words are drawn in resample order, processing the resamples in chunks (to bound memory) or one at a time
gives exactly the same p-values for a given seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import progress
from ..core.numeric import check_number
from ._segments import paired_layout, segment_sum

TOLERANCE = 1e-12  # relative to sum(|d|): resamples this close to |T| count as ties
#: the most resamples (sign flips, bootstrap resamples) a call may ask for: a p-value resolution of 1e-7, finer
#: than any correction needs (Bonferroni over 10,000 comparisons at 0.05 is 5e-6), within minutes and memory
MAX_RESAMPLES = 10_000_000
#: the default number of resamples of every face (evaluate's set-level bootstrap, compare's randomization test and
#: bootstrap, segment_means, agreement, the report, the command line): one default, declared once
N_RESAMPLES = 10_000
CHUNK_ELEMENTS = 1 << 19  # sign-matrix elements per chunk (2 MB as float32: stays in cache)
BLOCK = 512  # rows summed in float32 before the float64 total
_U32 = 2.0**-24  # unit roundoff of float32


@dataclass(frozen=True)
class RandomizationResult:
    """p-values per (segment, comparison); ``exact[s]`` says whether segment ``s`` was enumerated exactly."""

    pvalue: np.ndarray
    exact: np.ndarray
    n_resamples: int
    entropy: int | Sequence[int] | None  # the root SeedSequence entropy: reproduces the draws


def check_n_resamples(n_resamples: object, owner: str) -> int:
    """``n_resamples`` as an int in ``1..MAX_RESAMPLES``, or the ParameterError that says so (before any work)."""
    return int(
        check_number(
            owner, "n_resamples", n_resamples, integer=True, low=1, high=MAX_RESAMPLES,
            expected=f"an int from 1 to {MAX_RESAMPLES:,} (10**7: a p-value resolution of 1e-7, finer than any "
            "correction needs, and a bounded run time)",
        )
    )  # fmt: skip


def check_seed(seed: object, owner: str) -> int | None:
    """``seed``: None or an int >= 0 (any size: a SeedSequence's 128-bit entropy reproduces its draws)."""
    if seed is None:
        return None
    return int(check_number(owner, "seed", seed, integer=True, low=0, expected="None or an int >= 0", largest=None))


def call_seed(seed: int | None) -> int:
    """The seed of a whole call: ``seed`` itself, or fresh entropy drawn once when None.

    Every random method of the call (randomization test, bootstrap) derives its streams from this one number, so
    recording it reproduces every p-value and interval of the call.
    """
    return int(np.random.SeedSequence(seed).entropy)  # type: ignore[arg-type]


def seed_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of a call (``None`` draws fresh entropy; its ``entropy`` reproduces it)."""
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)


def flip_bits(bitgen: np.random.BitGenerator, n_rows: int, n_flips: int) -> np.ndarray:
    """The next ``n_flips`` sign patterns of a segment with ``n_rows`` rows: a (n_flips, n_rows) 0/1 uint8 array.

    Each pattern consumes ``ceil(n_rows / 64)`` raw 64-bit words; bit ``i`` (least significant bit first, words
    in order) is 1 when row ``i`` is flipped.
    """
    words = -(-n_rows // 64)
    raw = bitgen.random_raw(n_flips * words).astype("<u8", copy=False)
    bits = np.unpackbits(raw.view(np.uint8), bitorder="little").reshape(n_flips, words * 64)
    return bits[:, :n_rows]


def exact_bits(n_rows: int, start: int, stop: int) -> np.ndarray:
    """Sign patterns ``start..stop-1`` of the ``2**n_rows`` enumeration (pattern ``j`` flips the set bits of j)."""
    j = np.arange(start, stop, dtype=np.uint64)
    return ((j[:, None] >> np.arange(n_rows, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def _orient(v: np.ndarray, alternative: str) -> np.ndarray:
    """The statistic as the side of the test reads it: ``|T|`` two-sided, ``T`` for "greater", ``-T`` for "less"."""
    if alternative == "greater":
        return v
    if alternative == "less":
        return -v
    return np.abs(v)


def _chunks(total: int, n_rows: int) -> Iterator[tuple[int, int]]:
    step = max(1, CHUNK_ELEMENTS // max(n_rows, 1))
    for start in range(0, total, step):
        yield start, min(total, start + step)


def _random_hits(
    block: np.ndarray,
    total: np.ndarray,
    abs_sum: np.ndarray,
    threshold: np.ndarray,
    bitgen: np.random.BitGenerator,
    n_resamples: int,
    alternative: str = "two-sided",
) -> np.ndarray:
    """Count, per column, the random sign patterns with ``|T*| >= threshold`` (float32 sums, certified).

    ``|.|`` is :func:`_orient`'s (1-Lipschitz on every side, so the float32 error bound holds for each).
    """
    n_rows, n_cols = block.shape
    width = min(BLOCK, n_rows)
    n_blocks = -(-n_rows // width)
    padded = n_blocks * width
    d32 = np.zeros((padded, n_cols), dtype=np.float32)
    d32[:n_rows] = block
    d32 = d32.reshape(n_blocks, width, n_cols)
    gamma = width * _U32 / (1.0 - width * _U32)
    margin = 2.0 * (gamma + 3.0 * _U32) * abs_sum * (1.0 + 1e-6) + 1e-11 * abs_sum
    step = max(1, CHUNK_ELEMENTS // padded)
    buf = np.zeros((min(step, n_resamples), padded), dtype=np.float32)
    hits = np.zeros(n_cols, dtype=np.int64)
    for a, b in _chunks(n_resamples, padded):
        c = b - a
        bits = flip_bits(bitgen, n_rows, c)
        signs = buf[:c]
        signs[:, :n_rows] = bits
        partial = np.matmul(signs.reshape(c, n_blocks, width).transpose(1, 0, 2), d32)  # (blocks, c, cols)
        flipped = _orient(total - 2.0 * partial.sum(axis=0, dtype=np.float64), alternative)
        above = flipped >= threshold + margin
        hits += above.sum(axis=0)
        unsure = ~above & (flipped > threshold - margin)
        if unsure.any():  # within the float32 error bound of the threshold: decide in float64
            rows, cols = np.nonzero(unsure)
            per = max(1, CHUNK_ELEMENTS // n_rows)
            for i in range(0, rows.size, per):
                r, k = rows[i : i + per], cols[i : i + per]
                sums = np.einsum("ij,ji->i", bits[r].astype(np.float64), block[:, k])
                hit = _orient(total[k] - 2.0 * sums, alternative) >= threshold[k]
                hits += np.bincount(k[hit], minlength=n_cols)
        progress.advance(c)
    return hits


def flip_inputs(
    x: np.ndarray, y: np.ndarray, offsets: np.ndarray, n_resamples: int, owner: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The inputs of both sign-flip kernels (this test and :func:`rankframe.stats.westfall_young`), prepared once.

    ``(d, n, offsets, n_resamples)``: the differences x - y with a missing one as 0, the count of the present ones per
    (segment, comparison), the checked offsets and the checked number of resamples (in ``owner``'s words).
    """
    x, y, offsets = paired_layout(x, y, offsets)
    n_resamples = check_n_resamples(n_resamples, owner)
    d = x - y
    n = segment_sum(~np.isnan(d), offsets)
    return np.nan_to_num(d, nan=0.0), n, offsets, n_resamples


def sign_flip_test(
    x: np.ndarray,
    y: np.ndarray,
    offsets: np.ndarray,
    n_resamples: int = N_RESAMPLES,
    seed: int | np.random.SeedSequence | None = None,
    alternative: str = "two-sided",
) -> RandomizationResult:
    """Paired sign-flip test of ``mean(x - y) = 0`` per segment and column (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.array([0.9, 0.8, 0.7, 0.6]), np.array([0.1, 0.2, 0.3, 0.4])
    >>> # 4 rows, 2**4 = 16 <= 1000 patterns: exact. Only "no flip" and "flip all" reach |T| = 2.0: p = 2/16
    >>> float(sign_flip_test(x, y, np.array([0, 4]), n_resamples=1000, seed=0).pvalue[0, 0])
    0.125
    """
    d, n, offsets, n_resamples = flip_inputs(x, y, offsets, n_resamples, "sign_flip_test")
    root = seed_sequence(seed)
    n_seg = offsets.size - 1
    children = root.spawn(n_seg)
    pvalue = np.full((n_seg, d.shape[1]), np.nan)
    exact = np.zeros(n_seg, dtype=bool)
    for s in range(n_seg):  # a loop over segments; the work is the matrix products inside
        block = np.ascontiguousarray(d[offsets[s] : offsets[s + 1]])
        n_rows = block.shape[0]
        total = block.sum(axis=0)
        abs_sum = np.abs(block).sum(axis=0)
        threshold = _orient(total, alternative) - TOLERANCE * abs_sum
        exact[s] = n_rows < 63 and 2**n_rows <= n_resamples
        if exact[s]:
            n_patterns = 2**n_rows
            progress.expect(n_patterns)
            hits = np.zeros(block.shape[1], dtype=np.int64)
            for a, b in _chunks(n_patterns, n_rows):
                flipped = total - 2.0 * (exact_bits(n_rows, a, b).astype(np.float64) @ block)
                hits += (_orient(flipped, alternative) >= threshold).sum(axis=0)
                progress.advance(b - a)
            pvalue[s] = hits / n_patterns
        else:
            progress.expect(int(n_resamples))
            bitgen = np.random.PCG64(children[s])
            hits = _random_hits(block, total, abs_sum, threshold, bitgen, int(n_resamples), alternative)
            pvalue[s] = (hits + 1.0) / (n_resamples + 1.0)
    pvalue[n < 2] = np.nan
    return RandomizationResult(pvalue=pvalue, exact=exact, n_resamples=int(n_resamples), entropy=root.entropy)
