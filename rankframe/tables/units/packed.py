"""The ranked lists read from one sort of packed ``unit | rank | item | grade`` keys (docs/decisions/0014).

A faster road than :mod:`rankframe.units.order` for the usual table (dense ranks, integer grades on a short
scale): one vectorised sort orders the lists, carries the grades and groups the items by unit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._memo import _cached, _resolve
from .codes import Groups
from .order import offsets_from_counts
from .values import int_values, rank_values


@dataclass(frozen=True)
class DenseLists:
    """The ranked lists of a dense rank order (ranks 1..n in every unit), read from one sort of packed keys.

    Shuffled rows make every "reorder a column by rank" a random memory access (a scatter for the order, a
    gather per column), the slowest step at 10M rows. Here every row becomes one uint64
    ``unit | rank - 1 | item key | grade code`` (a null rank: all bits set), and one vectorised sort of those
    keys orders the lists, carries the grades into list order and groups the items by unit. No column is
    compressed to the retrieved rows and no per-row offset is gathered: the unranked rows simply sort last.
    """

    offsets: np.ndarray  # CSR offsets of the ranked lists, len n + 1
    grade_codes: np.ndarray  # uint8 grade code of each ranked element in list order (grade - lowest_grade; 255 = null)
    lowest_grade: float
    item_keys: np.ndarray | None  # key of each ranked element's item in list order (None: items not integers)
    item_key: Callable[[np.ndarray], np.ndarray] | None  # item values -> keys (equal items, equal keys)
    item_exact: bool  # keys are equal only for equal items (else a hash: equal keys are checked again)
    item_bits: int  # keys lie in [0, 2**item_bits)
    unranked: np.ndarray  # rows with a null rank (judged, not retrieved), in row order
    pos: np.ndarray  # int64 1-based position of each ranked element in its list


#: bits of the grade code in a packed key (code 255 = null grade)
_GRADE_BITS = 8
#: item keys are read back as int32 (half the memory of the duplicate check's matrix)
_MAX_ITEM_BITS = 31


def dense_lists(df: pd.DataFrame, groups: Groups, rank_col: str, grade_col: str, item_col: str) -> DenseLists | None:
    """The :class:`DenseLists` of the table (memoised per call), or None when the packed sort does not apply.

    It applies when the ranks are dense (every unit's ranks exactly 1..n) and the grades are integers spanning
    fewer than 255 values (the usual 0..3 or 0..4 scale); the callers then use :func:`ranked_order`.
    """
    df = _resolve(df)
    return _cached(
        ("dense_lists", id(df), rank_col, grade_col, item_col, id(groups)),
        (df, groups),
        lambda: _dense_lists(df, groups, rank_col, grade_col, item_col),
    )


def _grade_codes(col: pd.Series) -> tuple[np.ndarray, float, bool] | None:
    """(uint8 code per row = grade - lo, lo, any null) of an integer column spanning < 255 values; 255 = null."""
    found = int_values(col)
    if found is None or not len(col):
        return None
    values, null = found
    lo, hi = values.min(), values.max()  # (under a nullable column's nulls: arbitrary values, only widening this)
    if int(hi) - int(lo) >= 255:
        return None
    codes = values.astype(np.uint8)  # wraps modulo 256: minus lo (also wrapped) is exact for a span < 256
    if lo:
        codes -= np.uint8(int(lo) % 256)
    has_null = null is not None and bool(null.any())
    if has_null:
        codes[null] = 255
    return codes, float(lo), has_null


def _item_key_function(values: np.ndarray, bits: int) -> tuple[Callable[[np.ndarray], np.ndarray], bool]:
    """A map of integer item ids to keys in [0, 2**bits), and whether equal keys mean equal ids.

    The ids themselves when they lie in [0, 2**bits) (no copy), the offset from the minimum when they span fewer
    than 2**bits values (exact), else a multiplicative hash (equal ids, equal keys; rare collisions, checked
    again by value).
    """
    lo, hi = int(values.min()), int(values.max())
    if 0 <= lo and hi < 2**bits:
        return (lambda v: v.astype(np.int64, copy=False).view(np.uint64)), True
    if hi - lo < 2**bits:
        if values.dtype == np.uint64:
            return (lambda v: v - np.uint64(lo)), True
        return (lambda v: (v.astype(np.int64, copy=False) - lo).view(np.uint64)), True
    shift = np.uint64(64 - bits)
    golden = np.uint64(0x9E3779B97F4A7C15)
    return (lambda v: (v.astype(np.int64, copy=False).view(np.uint64) * golden) >> shift), False


def _rank_source(col: pd.Series) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """(rank values as :func:`rank_values` reads them, rows with a null rank, lowest and highest non-null rank).

    None when a rank cannot be an int64.
    """
    values, null = rank_values(col)
    if values.dtype == np.uint64 and len(values) and int(values.max()) >= 2**63:
        return None
    if null is None:
        return values, np.empty(0, dtype=np.intp), float(values.min()), float(values.max())
    unranked = np.flatnonzero(null)
    if len(unranked) == len(values):
        return values, unranked, np.nan, np.nan
    if values.dtype.kind == "f":  # nulls are NaN, which fmin / fmax skip
        return values, unranked, float(np.fmin.reduce(values)), float(np.fmax.reduce(values))
    limits = np.iinfo(values.dtype)  # a nullable integer column: its values under the nulls are arbitrary
    valid = ~null
    lo = values.min(where=valid, initial=limits.max)
    return values, unranked, float(lo), float(values.max(where=valid, initial=limits.min))


#: rows per block of the key construction: the blocks' temporaries stay in cache and are reused
_BLOCK = 1 << 16


def _dense_lists(df: pd.DataFrame, groups: Groups, rank_col: str, grade_col: str, item_col: str) -> DenseLists | None:
    if rank_col not in df.columns or grade_col not in df.columns or not len(df) or not np.little_endian:
        return None  # (the keys are read back through little-endian byte views)
    grades = _grade_codes(df[grade_col])
    source = _rank_source(df[rank_col])
    if grades is None or source is None:
        return None
    grade_codes, lowest_grade, grade_nulls = grades
    ranks, unranked, lo, hi = source
    n_rows = len(ranks)
    n_ret = n_rows - len(unranked)
    counts = (
        groups.sizes if not len(unranked) else groups.sizes - np.bincount(groups.codes[unranked], minlength=groups.n)
    )
    if not n_ret or not (lo >= 1 and hi <= int(counts.max())):
        return None  # a rank below 1 or longer than every list: not dense
    rank_bits = (int(hi) - 1).bit_length()
    unit_bits = (groups.n - 1).bit_length()
    # key = unit | rank - 1 | item key (field_bits) | grade code (the lowest byte: read back through a view)
    field_bits = min(32, 64 - _GRADE_BITS - rank_bits - unit_bits)
    if field_bits < 16:
        return None
    found = int_values(df[item_col]) if item_col in df.columns else None
    item_key, exact, item_bits = None, False, min(field_bits, _MAX_ITEM_BITS)
    items = None
    if found is not None and (found[1] is None or not found[1].any()):
        items = found[0]
        item_key, exact = _item_key_function(items, item_bits)
    codes = groups.codes
    float_ranks = ranks.dtype.kind == "f"
    not_integral = 0
    key = np.empty(n_rows, dtype=np.uint64)
    shifts = np.uint64(rank_bits), np.uint64(field_bits), np.uint64(_GRADE_BITS)
    with np.errstate(invalid="ignore"):  # null (NaN) ranks cast to garbage: their keys are replaced below
        for start in range(0, n_rows, _BLOCK):  # blocks, not queries: each step is vectorised over 64k rows
            block = slice(start, start + _BLOCK)
            part = key[block]
            np.left_shift(codes[block].astype(np.uint64), shifts[0], out=part)
            rank = ranks[block]
            as_int = rank.astype(np.int64)
            if float_ranks:
                not_integral += int(np.count_nonzero(as_int != rank))  # fractional, and NaN (null) ranks
            as_int -= 1
            part |= as_int.view(np.uint64)
            part <<= shifts[1]
            if item_key is not None and items is not None:
                part |= item_key(items[block])
            part <<= shifts[2]
            part |= grade_codes[block]
    if float_ranks and not_integral != len(unranked):
        return None  # a fractional rank
    del grade_codes
    if len(unranked):
        key[unranked] = np.uint64(2**64 - 1)  # above every key: the retrieved rows come first
    key.sort()
    # Read the sorted keys back block by block (each block is in cache once): the grade code is the lowest byte,
    # the item key the next 32 bits when field_bits is 32, and what is left after the shift is (unit, rank - 1).
    # Dense iff no (unit, rank) repeats and each unit's highest rank is its length: unit u's rows are exactly the
    # block offsets[u]..offsets[u + 1] (sorted by unit first, counts[u] of them), their ranks are >= 1 and
    # distinct, so a largest rank of counts[u] leaves room for nothing but 1..counts[u].
    ranked = key[:n_ret]
    list_codes = np.empty(n_ret, dtype=np.uint8)
    codes_in_keys = ranked.view(np.uint8)[:: ranked.itemsize]  # little-endian: the lowest byte
    item_keys = None if item_key is None else np.empty(n_ret, dtype=np.int32)  # keys < 2**31 (item_bits <= 31)
    fields = None
    if item_keys is not None and field_bits == 32:  # bytes 1-4 of each key, read unaligned
        fields = np.ndarray((n_ret,), dtype="<u4", buffer=ranked, offset=1, strides=(ranked.itemsize,))
    field_mask, rank_mask = np.uint64(2**field_bits - 1), np.uint64(2**rank_bits - 1)
    previous = None
    for start in range(0, n_ret, _BLOCK):
        block = slice(start, start + _BLOCK)
        part = ranked[block]
        list_codes[block] = codes_in_keys[block]
        if item_keys is not None:
            item_keys[block] = fields[block] if fields is not None else (part >> shifts[2]) & field_mask
        part >>= np.uint64(_GRADE_BITS + field_bits)
        if (part[1:] == part[:-1]).any() or (previous is not None and part[0] == previous):
            return None  # a (unit, rank) repeats
        previous = part[-1]
        part &= rank_mask
        part += np.uint64(1)
    pos = ranked.view(np.int64)  # the key's buffer, now each element's rank = its position
    offsets = offsets_from_counts(counts)
    listed = counts > 0
    if not np.array_equal(pos[offsets[1:][listed] - 1], counts[listed]):
        return None
    return DenseLists(offsets, list_codes, lowest_grade, item_keys, item_key, exact, item_bits, unranked, pos)
