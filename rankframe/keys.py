"""Evaluation-unit codes and ranked order, computed once per call and shared by validation and engines.

The unit of evaluation is (segment columns..., query). Both the schema checks (duplicate items, duplicate
ranks) and the numpy engine need integer codes for that unit and the rows' order within it; computing them
twice would double the cost at 10M rows, so a call opens :func:`shared` and the results are memoised for the
duration of that call only (never across calls: a DataFrame may change between them).

The memo lives in a :class:`contextvars.ContextVar`, so concurrent calls in other threads (or asyncio tasks)
never see each other's entries, and every entry keeps a reference to the frame it was computed from: an
``id()`` can only be reused after its object is freed, which the reference prevents while the memo lives.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import pandas as pd

_T = TypeVar("_T")
_memo: contextvars.ContextVar[dict | None] = contextvars.ContextVar("rankframe_keys_memo", default=None)


@contextlib.contextmanager
def shared() -> Iterator[None]:
    """Memoise codes and orders for the duration of one call (per thread / task)."""
    token = _memo.set({} if _memo.get() is None else _memo.get())
    try:
        yield
    finally:
        _memo.reset(token)


def _cached(key: tuple, owners: tuple, make: Callable[[], _T]) -> _T:
    """``make()`` memoised under ``key`` for the current call; ``owners`` are the objects the key's ids name."""
    memo = _memo.get()
    if memo is None:
        return make()
    entry = memo.get(key)
    if entry is None or any(a is not b for a, b in zip(entry[0], owners)):
        entry = (owners, make())
        memo[key] = entry
    return entry[1]


def alias(view: pd.DataFrame, frame: pd.DataFrame) -> None:
    """Let ``view``, a shallow copy of ``frame`` (same columns, same row order), share ``frame``'s memo entries.

    Validation runs on such a view (a fresh 0..n-1 index for the example rows); without this the checks and
    the engine would each compute the unit codes and the ranked order (twice the work at 10M rows).
    """
    memo = _memo.get()
    if memo is not None:
        memo[("alias", id(view))] = ((view,), frame)


def _resolve(df: pd.DataFrame) -> pd.DataFrame:
    memo = _memo.get()
    entry = None if memo is None else memo.get(("alias", id(df)))
    return entry[1] if entry is not None and entry[0][0] is df else df


@dataclass(frozen=True)
class Groups:
    """Dense integer code per row for the evaluation unit, codes ordered like the sorted keys."""

    codes: np.ndarray  # integer per row, 0..n-1 (intp, or the unit column itself when its ids are 0..n-1)
    n: int
    keys: pd.DataFrame  # one row per code, the unit's column values
    counted: np.ndarray | None = None  # rows per unit when the coding counted them anyway

    @functools.cached_property
    def sizes(self) -> np.ndarray:
        """Rows per unit (computed once: preparation and the duplicate check both need it)."""
        return self.counted if self.counted is not None else np.bincount(self.codes, minlength=self.n)


def _factorize(col: pd.Series) -> tuple[np.ndarray, pd.Index, np.ndarray | None]:
    """Sorted codes, unique values and (when counted on the way) the count of each value of one column."""
    direct = _direct_codes(col)
    if direct is not None:
        return direct
    codes, uniques = pd.factorize(col, sort=True, use_na_sentinel=False)
    return codes.astype(np.int64, copy=False), pd.Index(uniques), None


def int_values(col: pd.Series) -> tuple[np.ndarray, np.ndarray | None] | None:
    """(integer values, null mask or None) of a numpy or pandas-nullable integer column without a copy; else None.

    A nullable column's values under its nulls are arbitrary: read them only where the mask is False.
    """
    dtype = col.dtype
    if isinstance(dtype, np.dtype):
        return (col.to_numpy(), None) if dtype.kind in "iu" else None
    arr = col.array
    if isinstance(arr, pd.arrays.IntegerArray) and hasattr(arr, "_data") and hasattr(arr, "_mask"):
        return arr._data, arr._mask  # BaseMaskedArray's buffers (pandas 2.x and 3.x): no conversion pass
    return None


def _direct_codes(col: pd.Series) -> tuple[np.ndarray, pd.Index, np.ndarray] | None:
    """``pd.factorize(col, sort=True)`` of an integer column without nulls by :func:`dense_codes` (else None)."""
    found = int_values(col)
    if found is None or found[1] is not None and found[1].any():
        return None
    dense = dense_codes(found[0])
    if dense is None:
        return None
    codes, uniques, counts = dense
    if isinstance(col.dtype, np.dtype):
        return codes, pd.Index(uniques.astype(col.dtype)), counts
    return codes, pd.Index(uniques).astype(col.dtype), counts


def _count_values(values: np.ndarray, span: int) -> np.ndarray:
    """``np.bincount(values, minlength=span)`` without an int64 copy of a narrower column (counted in blocks)."""
    if values.dtype == np.intp:
        return np.bincount(values, minlength=span)
    block = max(1 << 20, span)  # few blocks, each adding a span-long count
    counts = np.zeros(span, dtype=np.int64)
    for start in range(0, len(values), block):
        counts += np.bincount(values[start : start + block], minlength=span)
    return counts


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Sorted codes, unique values and their counts for integers that span a short range, without hashing.

    None when the values span too wide a range (or there are none).

    When the values span a range not much wider than their count (query ids 0..N), ``bincount`` over the range
    marks the values present and a running count numbers them in sorted order: a few sequential passes instead
    of the hash table ``pd.factorize(sort=True)`` builds, with the same codes and uniques (int64).
    """
    if not len(values) or values.dtype == np.uint64 and int(values.max()) >= 2**63:
        return None
    lo, hi = int(values.min()), int(values.max())
    span = hi - lo + 1
    if span > 2 * len(values) + 4096:
        return None
    counts: np.ndarray | None = None
    if lo == 0 and (values.dtype.kind == "i" or values.dtype.kind == "u" and values.dtype.itemsize < 8):
        counts = _count_values(values, span)
        if counts.all():  # ids 0..N-1, none missing: the column itself holds the sorted codes (no copy)
            return values, np.arange(span, dtype=np.int64), counts
    shifted = values.astype(np.int64)  # bincount and indexing take int64 (intp) without another conversion
    if lo:
        shifted -= lo
    if counts is None:  # (counted above when the ids start at 0)
        counts = np.bincount(shifted, minlength=span)
    present = counts > 0
    if present.all():  # every value of lo..hi occurs (query ids 0..N-1): the shifted values are the codes
        return shifted, np.arange(lo, hi + 1, dtype=np.int64), counts
    number: np.ndarray = np.cumsum(present, dtype=np.intp)
    number -= 1
    return number[shifted], np.flatnonzero(present) + lo, counts[present]


def group_codes(df: pd.DataFrame, cols: Sequence[str]) -> Groups:
    """Codes of the unit ``cols`` (segment columns then the query column), sorted by key."""
    cols = tuple(cols)
    df = _resolve(df)
    return _cached(("groups", id(df), cols), (df,), lambda: _group_codes(df, cols))


def _group_codes(df: pd.DataFrame, cols: tuple[str, ...]) -> Groups:
    parts = [_factorize(df[c]) for c in cols]
    if len(parts) == 1:
        codes, uniques, counts = parts[0]
        if codes.dtype.kind not in "iu":
            codes = codes.astype(np.intp)
        return Groups(codes, len(uniques), pd.DataFrame({cols[0]: uniques}), counts)
    combined = np.zeros(len(df), dtype=np.int64)
    for codes, uniques, _ in parts:
        combined = combined * len(uniques) + codes
    dense = dense_codes(combined)
    counts = None
    if dense is not None:
        codes, uniq_combined, counts = dense
    else:
        codes, uniq_combined = pd.factorize(combined, sort=True)
    uniq_combined = np.asarray(uniq_combined, dtype=np.int64)
    columns = {}
    rest = uniq_combined
    for col, (_, uniques, _) in reversed(list(zip(cols, parts))):
        rest, digit = np.divmod(rest, len(uniques))
        columns[col] = uniques.take(digit)
    keys = pd.DataFrame({c: columns[c] for c in cols})
    return Groups(codes.astype(np.intp, copy=False), len(uniq_combined), keys, counts)


def as_float(col: pd.Series) -> np.ndarray:
    """A numeric column as float64 with NaN for nulls (works for numpy, nullable and arrow dtypes)."""
    return col.to_numpy(dtype=np.float64, na_value=np.nan)


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


def index_dtype(n: int) -> type:
    """The smallest integer type that indexes ``n`` rows (int32 halves the memory of 10M-row arrays)."""
    return np.int32 if n < 2**31 - 1 else np.int64


def rank_values(col: pd.Series) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, null mask or None when nothing is null) of a numeric rank column, copied only when it must be.

    Integer columns (numpy or nullable ``Int64``) keep their integers (a nullable column's values under its nulls
    are arbitrary); float and other numeric columns are read as float64 with NaN for nulls.
    """
    found = int_values(col)
    if found is not None:
        values, null = found
    else:
        values = col.to_numpy() if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f" else as_float(col)
        values = values.astype(np.float64, copy=False)
        null = np.isnan(values)
    return values, null if null is not None and null.any() else None


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


def item_factors(df: pd.DataFrame, item_col: str) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of the item ids and their unique values (hashing strings is costly: done once per call)."""
    df = _resolve(df)
    return _cached(("items", id(df), item_col), (df,), lambda: _factorize_items(df[item_col]))


def _factorize_items(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    return codes, pd.Index(uniques)


def duplicate_item_rows(
    df: pd.DataFrame,
    groups: Groups,
    item_col: str,
    rank_col: str | None = None,
    lists: DenseLists | None = None,
) -> np.ndarray:
    """Row indices whose (unit, item) appears more than once (``lists``: the items already grouped by unit)."""
    df = _resolve(df)

    def make() -> np.ndarray:
        if lists is not None and lists.item_keys is not None:
            found = _duplicates_in_lists(df, groups, item_col, lists)
            if found is not None:
                return found
        return _duplicate_item_rows(df, groups, item_col, rank_col)

    return _cached(("dupitems", id(df), item_col, id(groups), rank_col), (df, groups), make)


#: how many other columns the rule "items unique per unit" tries as a forgotten segment (``by=``), on every road
SEGMENT_GUESSES = 8


def segment_guesses(present: Sequence[object], roles: Sequence[str], by: Sequence[str], system: str) -> list[str]:
    """The columns that may be a forgotten segment: not a role (query, item, rank, ...) nor in ``by``.

    The system column comes first; at most :data:`SEGMENT_GUESSES` of them (each costs a pass over the
    repeated rows, on the error path only).
    """
    taken = {*roles, *by}
    names = [c for c in present if isinstance(c, str) and c not in taken]
    names.sort(key=lambda n: n != system)
    return names[:SEGMENT_GUESSES]


def duplicate_item_rule(item: str, by: Sequence[str], query: str, segment: str | None = None) -> str:
    """The words of the rule "items unique per unit" on every road (pandas schema, DuckDB files, Spark).

    ``segment`` is a column in which the repeated (unit, item) rows differ, and which would make them unique
    (:func:`separating_column`): the message then suggests ``by=`` that column instead of ``allow_duplicates``.
    The CLI rewrites both keyword arguments as its flags (``--by``, ``--allow-duplicates``).
    """
    unit = [*by, query]
    text = f"{item} must be unique within each ({', '.join(unit)})"
    if segment is None:
        return text + " (pass allow_duplicates=True to keep repeated rows)"
    fix = repr(segment) if not by else repr([*by, segment])
    return (
        f"{text}: rows repeat ({', '.join([*unit, item])}) but differ in column {segment!r}: did you mean "
        f"by={fix}? (or pass allow_duplicates=True to keep repeated rows)"
    )


def separating_column(df: pd.DataFrame, rows: np.ndarray, key: Sequence[str], guesses: Sequence[str]) -> str | None:
    """The first of ``guesses`` that makes the rows ``rows`` (repeating ``key``) unique, or None."""
    part = df.iloc[rows]
    for name in guesses:
        try:
            if not part.duplicated(subset=[*key, name], keep=False).any():
                return name
        except TypeError:  # unhashable values (lists): not a segment
            continue
    return None


def _duplicates_in_lists(df: pd.DataFrame, groups: Groups, item_col: str, lists: DenseLists) -> np.ndarray | None:
    """Duplicate (unit, item) rows from the item keys of :class:`DenseLists`: one padded matrix sorted by row.

    Units whose sorted keys repeat hold a duplicate item or (hashed keys) a collision; only their rows are
    then compared by value. None when the shape does not suit a matrix.
    """
    if lists.item_keys is None or lists.item_key is None:
        return None
    width = int(groups.sizes.max(initial=0))
    if groups.n * width > 2 * len(df) + 1024:
        return None
    dtype = np.int32 if lists.item_bits <= 31 else np.int64
    padding = (-1 - np.arange(width)).astype(dtype)  # a value no key has (keys are >= 0), distinct per column
    matrix = np.empty((groups.n, width), dtype=dtype)
    n_ret = np.diff(lists.offsets)
    depth = int(n_ret[0]) if len(n_ret) else 0
    if len(n_ret) and (n_ret == depth).all():  # lists of one length (the usual shape): a block copy
        matrix[:, :depth] = lists.item_keys.reshape(groups.n, depth)
        matrix[:, depth:] = padding[depth:]
    else:
        matrix[:] = padding
        target = np.arange(len(lists.item_keys), dtype=np.int64)
        target += np.repeat(np.arange(groups.n, dtype=np.int64) * width - lists.offsets[:-1], n_ret)
        matrix.reshape(-1)[target] = lists.item_keys
        del target
    values = df[item_col].to_numpy()
    rest_rows = lists.unranked
    if len(rest_rows):  # the unranked rows go after each list, in the order they come
        rg = groups.codes[rest_rows].astype(np.int64)
        order = np.argsort(rg)  # (any order within a unit will do)
        rest_rows, rg = rest_rows[order], rg[order]
        starts = np.searchsorted(rg, rg, side="left")
        place = rg * width + n_ret[rg] + (np.arange(len(rg)) - starts)
        matrix.reshape(-1)[place] = lists.item_key(values[rest_rows])
    matrix.sort(axis=1)
    same = matrix[:, 1:] == matrix[:, :-1]
    if not same.any():
        return np.empty(0, dtype=np.int64)
    return _duplicates_among_units(groups, values, np.flatnonzero(same.any(axis=1)))


def _duplicates_among_units(groups: Groups, values: np.ndarray, units: np.ndarray) -> np.ndarray:
    """Rows of the given units whose (unit, item) value repeats (exact, by hashing the few rows involved)."""
    rows = np.flatnonzero(np.isin(groups.codes, units))
    pairs = pd.DataFrame({"unit": groups.codes[rows], "item": values[rows]})
    return rows[pairs.duplicated(keep=False).to_numpy()]


def _duplicate_item_rows(df: pd.DataFrame, groups: Groups, item_col: str, rank_col: str | None) -> np.ndarray:
    item = df[item_col]
    if pd.api.types.is_integer_dtype(item.dtype) and not item.hasnans and len(item):
        values = item.to_numpy(dtype=np.int64)
        found = _duplicates_by_row_sort(df, groups, values, rank_col)
        if found is not None:
            return found
        lo, hi = int(values.min()), int(values.max())
        span = hi - lo + 1
        if groups.n * span < 2**62:
            key = groups.codes.astype(np.int64) * span + (values - lo)
        else:
            codes, _ = pd.factorize(values)
            key = groups.codes.astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    else:
        item_codes, _ = item_factors(df, item_col)
        key = groups.codes.astype(np.int64) * (int(item_codes.max(initial=0)) + 1) + item_codes
    dup = pd.Series(key, copy=False).duplicated(keep=False).to_numpy()
    return np.flatnonzero(dup)


def _duplicates_by_row_sort(df, groups, values, rank_col) -> np.ndarray | None:
    """Duplicate (unit, item) rows found by sorting each unit's items in a padded matrix.

    Much cheaper than hashing 10M distinct keys when units are short lists of similar length (the usual
    shape): each row of the matrix is a small sort. The rows come grouped by unit from the ranked order that
    preparation uses anyway (one gather of the items). Returns None when the shape does not suit it.
    """
    if rank_col is None:
        return None
    ranked = ranked_order(df, groups, rank_col)
    width = int(groups.sizes.max(initial=0))
    if groups.n * width > 2 * len(df) + 1024:
        return None
    lo, hi = int(values.min()), int(values.max())
    if hi + width >= 2**62 or lo < -(2**62):
        return None
    small = hi - lo + width < 2**31
    dtype = np.int32 if small else np.int64
    base = lo if small else 0
    # padding gets values no item can have, distinct per column
    padding = (hi - base + 1 + np.arange(width)).astype(dtype)
    matrix = np.empty((groups.n, width), dtype=dtype)
    flat = matrix.reshape(-1)
    # retrieved rows fill each matrix row from the left in rank order
    n_ret = np.diff(ranked.offsets)
    items = values[ranked.rows]
    if base:
        items -= base
    depth = int(n_ret[0]) if len(n_ret) else 0
    if len(n_ret) and (n_ret == depth).all():  # lists of one length (the usual shape): a block copy
        matrix[:, :depth] = items.reshape(groups.n, depth)
        matrix[:, depth:] = padding[depth:]
    else:
        matrix[:] = padding
        target = np.arange(len(ranked.rows), dtype=np.int64)
        target += np.repeat(np.arange(groups.n, dtype=np.int64) * width - ranked.offsets[:-1], n_ret)
        flat[target] = items
        del target
    del items
    # the other rows (null rank) go after them, in the order they come
    rest_rows = ranked.unranked
    if rest_rows is not None and len(rest_rows):
        rg = groups.codes[rest_rows].astype(np.int64)
        order = np.argsort(rg)  # (any order within a unit will do)
        rest_rows, rg = rest_rows[order], rg[order]
        starts = np.searchsorted(rg, rg, side="left")
        flat[rg * width + n_ret[rg] + (np.arange(len(rg)) - starts)] = values[rest_rows] - base
    matrix.sort(axis=1)
    same = matrix[:, 1:] == matrix[:, :-1]
    if not same.any():
        return np.empty(0, dtype=np.int64)
    # (unit, item) compared as a pair: unit * span + item could overflow int64 for wide item ids
    return _duplicates_among_units(groups, values, np.flatnonzero(same.any(axis=1)))
