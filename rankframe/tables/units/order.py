"""The ranked order: retrieved rows grouped by unit and ordered by rank (a CSR layout), and its helpers.

When every unit's ranks are exactly 1..n the order is one scatter (no sort), which also proves the rank rules;
otherwise a lexsort, which finds the rows sharing a (unit, rank) on the way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._memo import _cached, _resolve
from .codes import Groups
from .values import rank_values


@dataclass(frozen=True)
class RankedOrder:
    """Retrieved rows grouped by unit and ordered by rank: a CSR layout of the ranked lists."""

    rows: np.ndarray  # row index (into the frame) of each ranked element, CSR order
    offsets: np.ndarray  # int64, len n + 1
    duplicate_rank_rows: np.ndarray  # row indices sharing a (unit, rank) with another row
    dense: bool = False  # every unit's ranks are exactly 1..n (ranks are then positions)
    unranked: np.ndarray | None = None  # rows with a null rank (judged, not retrieved), in row order


def ranked_order(df: pd.DataFrame, groups: Groups, rank_col: str) -> RankedOrder:
    """Order retrieved rows by (unit, rank); scatter without sorting when ranks are 1..n in every unit."""
    df = _resolve(df)
    return _cached(("ranked", id(df), rank_col, id(groups)), (df, groups), lambda: _ranked_order(df, groups, rank_col))


def offsets_from_counts(counts: np.ndarray) -> np.ndarray:
    """CSR offsets (len n + 1) of consecutive blocks with the given sizes."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def positions_in_lists(offsets: np.ndarray) -> np.ndarray:
    """The 1-based position (int64) of every element of consecutive lists with these CSR offsets."""
    sizes = np.diff(offsets)
    pos = np.arange(offsets[-1], dtype=np.int64)
    pos -= np.repeat(offsets[:-1], sizes)
    pos += 1
    return pos


def lexsort_codes(keys: tuple[np.ndarray, ...], sizes: tuple[int, ...]) -> np.ndarray:
    """``np.lexsort(keys)`` (last key most significant, stable) for integer codes with ``0 <= keys[i] < sizes[i]``.

    When the codes pack into one int64 (the product of the sizes below 2**63) this is one stable argsort of the
    packed keys, 3-4x faster than lexsort's one indirect sort per key; otherwise it is lexsort itself.
    """
    span = 1
    for size in sizes:
        span *= max(int(size), 1)
    if span >= 2**63 or not len(keys):
        return np.lexsort(keys)
    packed = np.zeros(len(keys[0]), dtype=np.int64)
    for key, size in zip(reversed(keys), reversed(sizes)):
        packed *= max(int(size), 1)
        packed += key
    return np.argsort(packed, kind="stable")


def descending_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code per value, the distinct values largest first as float64): code 0 is the largest value.

    Gains are mostly small integers (linear gains of grades 1..3): those are numbered by their distance from the
    largest, without hashing; other values (scores) go through ``pd.factorize``: a hash pass and a sort of the
    distinct values only (``np.unique`` sorted every value: 1.8 of fusion's 4.6 CPU-s on 3M rows). NaN-free.
    """
    if len(values):
        lo, hi = float(values.min()), float(values.max())
        if hi - lo < 4096 and -(2.0**52) <= lo and hi <= 2.0**52:  # (False for NaN)
            as_int = values.astype(np.int64)
            if np.array_equal(as_int, values):
                codes = int(hi) - as_int
                present = np.bincount(codes) > 0
                distinct = hi - np.flatnonzero(present).astype(np.float64)
                if not present.all():
                    number = np.cumsum(present) - 1
                    codes = number[codes]
                return codes, distinct
    if _mostly_distinct(values):
        return _codes_by_sort(values)
    codes, uniques = pd.factorize(-values, sort=True)
    return codes, -np.asarray(uniques, dtype=np.float64)


def _mostly_distinct(values: np.ndarray) -> bool:
    """Whether the values are mostly distinct (then one sort numbers them fastest), judged on an evenly spaced sample.

    Both ways give the same codes: this only picks the cheaper. ``pd.factorize(sort=True)`` hashes every value and
    sorts the distinct ones (0.11 CPU-s for 3M values with 1,000 distinct ones, 0.47 s for 1.3M distinct ones);
    one sort of the values costs ~0.25 s per 1.3M whatever they are. A sample of 65,536 values 90% distinct means
    at least ~300,000 distinct values (fused scores); 3M scores rounded to 3 digits (17,700 distinct) give ~26%.
    """
    n = len(values)
    if n < 4 * SAMPLE:
        return False
    sample = values[:: n // SAMPLE][:SAMPLE]
    return len(np.unique(sample)) > 0.9 * len(sample)


#: the values :func:`_mostly_distinct` looks at
SAMPLE = 65536


def _codes_by_sort(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`descending_codes` by one sort of the values (largest first); equal values (0.0 and -0.0) share a code."""
    order = np.argsort(-values)
    ordered = values[order]
    new = np.empty(len(values), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    codes = np.empty(len(values), dtype=np.intp)
    codes[order] = np.cumsum(new) - 1
    return codes, ordered[new].astype(np.float64, copy=False)


def index_dtype(n: int) -> type:
    """The smallest integer type that indexes ``n`` rows (int32 halves the memory of 10M-row arrays)."""
    return np.int32 if n < 2**31 - 1 else np.int64


def _ranked_order(df: pd.DataFrame, groups: Groups, rank_col: str) -> RankedOrder:
    values, null = rank_values(df[rank_col])
    idx = np.intp
    retrieved: np.ndarray
    unranked: np.ndarray
    if null is None:
        retrieved = np.arange(len(df), dtype=idx)
        unranked = np.empty(0, dtype=idx)
        g, r = groups.codes, values
    else:
        retrieved = np.flatnonzero(~null).astype(idx, copy=False)
        unranked = np.flatnonzero(null).astype(idx, copy=False)
        g, r = groups.codes[retrieved], values[retrieved]
    del values, null
    counts = groups.sizes if not len(unranked) else np.bincount(g, minlength=groups.n)
    offsets = offsets_from_counts(counts)
    dense = _dense_order(g, r, offsets, retrieved)
    if dense is not None:
        return RankedOrder(dense, offsets, np.empty(0, dtype=np.int64), dense=True, unranked=unranked)
    order = np.lexsort((r, g))
    rows = retrieved[order]
    rs, gs = r[order], g[order]
    same = (rs[1:] == rs[:-1]) & (gs[1:] == gs[:-1])
    dup = np.zeros(len(rows), dtype=bool)
    dup[1:] |= same
    dup[:-1] |= same
    return RankedOrder(rows, offsets, rows[dup], unranked=unranked)


def _dense_order(g: np.ndarray, r: np.ndarray, offsets: np.ndarray, retrieved: np.ndarray) -> np.ndarray | None:
    """The rows in (unit, rank) order when every unit's ranks are exactly 1..n (else None), by one scatter.

    (unit, rank) is then the slot ``offsets[unit] + rank - 1`` itself. Ranks that are integers in [1, N] give
    slots >= 0; numpy's bounds check on the scatter rejects slots >= N; N writes into N slots fill every slot
    iff no two rows share one, and such a bijection also proves every rank lies within its unit's range
    (counting from the last unit: the rows of units >= u exactly fill the slots >= offsets[u]).
    """
    n_ret = len(r)
    if not n_ret:
        return retrieved
    if not (r.min() >= 1 and r.max() <= n_ret):  # also False for NaN
        return None
    idx = np.intp
    slot: np.ndarray = r.astype(idx)
    if r.dtype.kind == "f" and not np.array_equal(slot, r):  # a fractional rank
        return None
    slot -= 1
    slot += offsets[:-1].astype(idx)[g]
    rows = np.full(n_ret, -1, dtype=retrieved.dtype)
    try:
        rows[slot] = retrieved
    except IndexError:  # a slot past the end: a rank longer than its list
        return None
    return rows if rows.min() >= 0 else None
