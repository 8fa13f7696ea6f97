"""The rule "items unique per unit": which rows repeat a (unit, item), and the guess of a forgotten segment.

Repeated rows are found from the packed lists or a padded matrix per unit when the shape suits it (a small
sort per unit), else by hashing; the forgotten-segment guess
(:func:`segment_guesses`, :func:`separating_column`) are shared by the pandas schema, DuckDB files and Spark.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..rules import duplicate_item_rule as duplicate_item_rule  # the words are declared there
from ._memo import _cached, _resolve
from .codes import Groups, item_factors, short_span
from .order import ranked_order
from .packed import DenseLists


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
    return _repeated_keys(key)


def any_repeat(key: np.ndarray) -> bool:
    """Whether any value of the integer key repeats.

    Keys spanning a short range (:func:`short_span`, as :func:`dense_codes` decides) are counted (one pass, no sort);
    otherwise one sort: 3M int64 keys ~0.2 s, where hashing them with pandas' ``duplicated`` took ~0.7 s.
    """
    if len(key) > 1:
        lo, hi = int(key.min()), int(key.max())
        if short_span(lo, hi, len(key)):
            return bool(np.bincount((key - lo if lo else key).astype(np.intp, copy=False)).max() > 1)
    ordered = np.sort(key)
    return bool((ordered[1:] == ordered[:-1]).any())


def _repeated_keys(key: np.ndarray) -> np.ndarray:
    """Rows whose key repeats (every one of them, as ``duplicated(keep=False)``), in row order.

    :func:`any_repeat` first answers the usual case, no repeat at all (the fusion bench's input check); only then
    the rows are found.
    """
    if not any_repeat(key):
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(pd.Series(key, copy=False).duplicated(keep=False).to_numpy())


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
