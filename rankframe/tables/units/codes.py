"""Dense integer codes of the evaluation unit (segment columns..., query) and of the items, memoised per call.

Codes are ordered like the sorted keys; integer ids spanning a short range are numbered by counting
(:func:`dense_codes`) instead of the hash table ``pd.factorize(sort=True)`` builds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._memo import _cached, _resolve
from .values import int_values


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


def short_span(lo: int, hi: int, n: int) -> bool:
    """Whether ``n`` integers in ``lo..hi`` are counted (a ``bincount`` over the range) rather than hashed or sorted.

    The range is at most about twice their count: the one rule of :func:`dense_codes` and ``any_repeat``.
    """
    return hi - lo + 1 <= 2 * n + 4096


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
    if not short_span(lo, hi, len(values)):
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


def column_codes(df: pd.DataFrame, col: str) -> tuple[np.ndarray, pd.Index, np.ndarray | None]:
    """Sorted codes, unique values and (when counted on the way) counts of one column (memoised per call).

    A null is a value of its own here (callers check the rule on nulls first).
    """
    df = _resolve(df)
    return _cached(("column", id(df), col), (df,), lambda: _factorize(df[col]))


def _group_codes(df: pd.DataFrame, cols: tuple[str, ...]) -> Groups:
    parts = [column_codes(df, c) for c in cols]
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


def item_factors(df: pd.DataFrame, item_col: str) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of the item ids and their unique values (hashing strings is costly: done once per call)."""
    df = _resolve(df)
    return _cached(("items", id(df), item_col), (df,), lambda: _factorize_items(df[item_col]))


def _factorize_items(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    return codes, pd.Index(uniques)
