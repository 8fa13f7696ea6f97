"""Segment reductions over the rows of the segmented paired layout."""

from __future__ import annotations

import numpy as np


def check_offsets(offsets: np.ndarray, n_rows: int) -> np.ndarray:
    """Return ``offsets`` as int64 after checking that they start at 0, end at ``n_rows`` and never decrease."""
    offsets = np.asarray(offsets, dtype=np.int64)
    if (
        offsets.ndim != 1
        or offsets.size < 2
        or offsets[0] != 0
        or offsets[-1] != n_rows
        or np.any(np.diff(offsets) < 0)
    ):
        raise ValueError(f"offsets must rise from 0 to the number of rows ({n_rows}); got {offsets!r}")
    return offsets


def paired_layout(x: object, y: object, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The segmented paired layout every paired test reads, checked once: x, y and offsets.

    ``x``, ``y`` as float64 columns (a 1-D pair is one column) and ``offsets`` checked (:func:`check_offsets`).
    """
    x, y = (np.asarray(a, dtype=np.float64) for a in (x, y))
    x, y = (a[:, None] if a.ndim == 1 else a for a in (x, y))
    return x, y, check_offsets(offsets, x.shape[0])


def segment_sum(a: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum the rows of ``a`` per segment: shape ``(n_segments, *a.shape[1:])``; an empty segment sums to 0.

    Few, large segments are summed slice by slice (numpy's pairwise sum, 2-3x faster than ``reduceat`` on
    2-D arrays); many small ones with one ``np.add.reduceat``.
    """
    a = np.asarray(a)
    n_seg = offsets.size - 1
    if a.shape[0] == 0:
        return np.zeros((n_seg, *a.shape[1:]), dtype=np.result_type(a.dtype, np.int64))
    if n_seg <= 1024 and a.shape[0] >= 64 * n_seg:
        if a.dtype == bool:
            return np.stack([np.count_nonzero(a[offsets[s] : offsets[s + 1]], axis=0) for s in range(n_seg)]).astype(
                np.int64
            )
        return np.stack([a[offsets[s] : offsets[s + 1]].sum(axis=0) for s in range(n_seg)])
    starts = np.minimum(offsets[:-1], a.shape[0] - 1)
    if a.dtype == bool:
        a = a.astype(np.int64)
    out = np.add.reduceat(a, starts, axis=0)
    empty = offsets[1:] == offsets[:-1]
    if empty.any():  # reduceat returns the row at an empty segment's start instead of 0
        out[empty] = 0
    return out


def segment_of_row(offsets: np.ndarray) -> np.ndarray:
    """The segment index of every row."""
    return np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
