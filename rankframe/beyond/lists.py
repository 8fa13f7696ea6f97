"""The recommendation lists and the extra inputs as flat arrays over one item index (what every kernel reads).

Every ranked row carries its unit (segment values, query), its 1-based position and an item code into one index
shared with ``catalog=`` and ``train=``; ``train=`` is reduced once to per-item arrays (popularity, known). No
Python loop per query or per item: counts are ``np.bincount`` / ``np.unique`` over combined codes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..tables.units.codes import short_span

if TYPE_CHECKING:
    from scipy import sparse  # imported where used: scipy.sparse is not needed by import rankframe


@dataclass(frozen=True)
class Train:
    """``train=`` reduced to one entry per item code of the shared index."""

    known: np.ndarray  # bool: the item has a row in train (any weight)
    users: np.ndarray  # float: distinct train queries with a positive weight
    interactions: np.ndarray  # float: sum of the weights (1 per row without a weight column)
    n_users: int  # distinct queries of train
    order: np.ndarray  # rank of each item code in the sorted order of the item ids (RecBole's tie-break)
    pair_query: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # distinct (query, item) pairs
    pair_item: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # with a positive weight
    # every row of train=: its query's code in the index shared with the lists' queries (Lists.unit_user), its item
    # code and weight (1 without a weight column): a query's own history (Calibration)
    row_user: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    row_item: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    row_weight: np.ndarray = field(default_factory=lambda: np.empty(0, np.float64))

    def popularity(self, kind: str) -> np.ndarray:
        """The popularity of every item code: ``"users"`` or ``"interactions"``."""
        return self.users if kind == "users" else self.interactions


@dataclass(frozen=True)
class Features:
    """``features=`` as sparse rows over the shared item index: (item code, feature code, value), one per pair."""

    item: np.ndarray  # item code of each (item, feature) row
    feature: np.ndarray  # feature code of each row (0 .. n_features - 1)
    value: np.ndarray  # float value of each row (1 without a value column)
    n_features: int
    known: np.ndarray  # bool per item code: the item has at least one row (an item without rows is unknown)


@dataclass(frozen=True)
class Lists:
    """Ranked rows of every unit (in rankframe's order), their segments, and the inputs, over one item index."""

    n_units: int
    unit_segment: np.ndarray  # segment code of each unit
    n_segments: int
    unit: np.ndarray  # unit code of each ranked row
    pos: np.ndarray  # 1-based position of each ranked row in its list
    item: np.ndarray  # item code of each ranked row
    n_items: int  # size of the item index (recommended, catalog and train items)
    catalog: np.ndarray | None  # bool per item code: in catalog= (None: not given)
    train: Train | None  # None: not given
    features: Features | None = None  # None: not given
    grade: np.ndarray | None = None  # float grade of each ranked row (NaN: unjudged), for the metrics reading it
    unit_history: np.ndarray | None = None  # per unit: the code of its query among train='s queries (-1: none)
    unit_user: np.ndarray | None = None  # code of each unit's query in the index of Train.row_user (train= given)
    #: (B, n_units) multiplicity of each unit in each of B resamples of the units (a bootstrap over queries); None =
    #: every unit once. The set-level kernels read it (one row of values per resample); the per-list ones do not
    weights: np.ndarray | None = None
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    def with_weights(self, weights: np.ndarray | None) -> Lists:
        """The same lists with these unit multiplicities (the structure's memo shared: cut once, weigh per chunk)."""
        return replace(self, weights=weights, _memo=self._memo)

    def unit_weights(self) -> np.ndarray:
        """The (B, n_units) multiplicities: ``weights``, or one row of ones (the point estimate: each unit once)."""
        return np.ones((1, self.n_units)) if self.weights is None else self.weights

    def out(self, values: np.ndarray) -> np.ndarray:
        """A set-level kernel's (B, n_segments) values as it returns them: row 0 alone without ``weights``."""
        return values[0] if self.weights is None else values

    def memo(self, key: object, make: Callable[[], Any]) -> Any:
        """``make()`` once per key (shared by the weighted copies of these lists)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def cut(self, k: int | None) -> Lists:
        """The rows at positions <= k (every row when k is None), with the same ``weights``."""
        if k is None:
            return self
        key = ("cut", k)
        if key not in self._memo:
            keep = self.pos <= k
            self._memo[key] = Lists(
                self.n_units,
                self.unit_segment,
                self.n_segments,
                self.unit[keep],
                self.pos[keep],
                self.item[keep],
                self.n_items,
                self.catalog,
                self.train,
                self.features,
                None if self.grade is None else self.grade[keep],
                self.unit_history,
                unit_user=self.unit_user,
            )
        top: Lists = self._memo[key]
        return top if self.weights is None else top.with_weights(self.weights)

    @property
    def segment(self) -> np.ndarray:
        """Segment code of each ranked row."""
        return self.unit_segment[self.unit]

    def segment_items(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(segment, item, count) of every distinct (segment, item) pair of the rows, sorted by segment then item."""
        key = self.segment.astype(np.int64) * self.n_items + self.item
        pairs, counts = count_distinct(key)
        return pairs // self.n_items, pairs % self.n_items, counts.astype(np.float64)

    def item_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The distinct (unit, item) pairs and the distinct (segment, item) columns they fall in.

        Returns ``(pair_unit, pair_count, pair_column, column_segment, column_item)``: each (unit, item) pair once
        with its number of rows, and its column among the (segment, item) pairs sorted by segment then item (the
        order of :meth:`segment_items`). Memoized: the structure every weighted count is laid on.
        """

        def make() -> tuple[np.ndarray, ...]:
            pairs, counts = count_distinct(self.unit.astype(np.int64) * self.n_items + self.item)
            unit, item = pairs // self.n_items, pairs % self.n_items
            columns, column = np.unique(
                self.unit_segment[unit].astype(np.int64) * self.n_items + item, return_inverse=True
            )
            return unit, counts.astype(np.float64), column.ravel(), columns // self.n_items, columns % self.n_items

        return self.memo("item_columns", make)

    def weighted_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(B, columns) counts ``c_i = sum_u w_u c_{u,i}`` of each (segment, item) column, with its segment and item.

        ``w_u`` the unit's multiplicity in each resample (:attr:`weights`; 1 without), ``c_{u,i}`` the unit's rows
        of item i: a sparse (B x units) @ (units x columns) product. Without weights: the counts of
        :meth:`segment_items`, as one row.
        """
        if self.weights is None:  # the point estimate: no (unit, item) layout to build
            seg, item, count = self.memo("segment_items", self.segment_items)
            return count[None, :], seg, item
        unit, count, column, seg, item = self.item_columns()
        return self.weigh("counts", unit, column, count, len(seg)), seg, item

    def weigh(self, key: str, unit: np.ndarray, column: np.ndarray, values: np.ndarray, n_columns: int) -> np.ndarray:
        """:func:`weigh` with these lists' weights, the sparse layout built once per ``key`` (shared by the chunks)."""
        layout = self.memo(("layout", key), lambda: transposed_layout(unit, column, values, self.n_units, n_columns))
        return np.asarray((layout @ self.unit_weights().T).T)

    def by_segment(self, values: np.ndarray, seg: np.ndarray) -> np.ndarray:
        """(B, n_segments) sums of the (B, columns) ``values`` over the columns of each segment (``seg``)."""
        if len(values) == 1:  # the point estimate: one bincount, no sparse matrix
            return np.bincount(seg, weights=np.asarray(values[0], dtype=np.float64), minlength=self.n_segments)[None]
        from scipy import sparse

        ones = sparse.csr_matrix((np.ones(len(seg)), (np.arange(len(seg)), seg)), shape=(len(seg), self.n_segments))
        return np.asarray((ones.T @ np.asarray(values, dtype=np.float64).T).T)

    def universe(self, name: str) -> np.ndarray:
        """Bool per item code: the items of ``catalog=`` or of ``train=`` (the engine checked it was given)."""
        found = self.catalog if name == "catalog" else None if self.train is None else self.train.known
        if found is None:  # the engine checks the inputs each metric needs before any kernel runs
            raise RuntimeError(f"{name}= was not checked before the kernel")
        return found

    def mean(self, values: np.ndarray, rows: np.ndarray | None, aggregate: str) -> np.ndarray:
        """Per unit (``aggregate='per_list'``) or per segment (``'rows'``): the mean of ``values`` over the rows."""
        if aggregate == "per_list":
            return self.per_unit(values, rows)
        unit = self.unit if rows is None else self.unit[rows]
        values = values if rows is None else values[rows]
        w = self.unit_weights()  # each row weighs its unit's multiplicity: the point estimate is w = 1
        seg = self.unit_segment[unit]
        total = weigh(w, unit, seg, values, self.n_segments)
        count = weigh(w, unit, seg, np.ones(len(unit)), self.n_segments)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.out(np.where(count > 0, total / np.maximum(count, 1), np.nan))

    def per_unit(self, values: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Mean of ``values`` over each unit's rows (``rows``: a mask of the rows that count); NaN without rows."""
        unit = self.unit if rows is None else self.unit[rows]
        values = values if rows is None else values[rows]
        total = np.bincount(unit, weights=values, minlength=self.n_units)
        count = np.bincount(unit, minlength=self.n_units)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def weigh(weights: np.ndarray, unit: np.ndarray, column: np.ndarray, values: np.ndarray, n_columns: int) -> np.ndarray:
    """(B, n_columns): ``sum_r weights[:, unit[r]] * values[r]`` into ``column[r]`` (a sparse matrix product)."""
    layout = transposed_layout(unit, column, values, weights.shape[1], n_columns)
    return np.asarray((layout @ weights.T).T)


def transposed_layout(
    unit: np.ndarray, column: np.ndarray, values: np.ndarray, n_units: int, n_columns: int
) -> sparse.csr_matrix:
    """The (n_columns x n_units) sparse matrix of ``values`` at (column, unit), repeated pairs summed."""
    from scipy import sparse

    return sparse.csr_matrix((np.asarray(values, dtype=np.float64), (column, unit)), shape=(n_columns, n_units))


def gather(starts: np.ndarray, counts: np.ndarray, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of a CSR layout (``starts``/``counts`` per key) of each owner's key: (entry index, owner row).

    Row r of ``owners`` (a key) expands into its ``counts[key]`` entries; no Python loop (a ragged ``arange``).
    """
    n = counts[owners]
    row = np.repeat(np.arange(len(owners)), n)
    first = np.repeat(np.cumsum(n) - n, n)
    return np.repeat(starts[owners], n) + (np.arange(len(row)) - first), row


def count_distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an int64 array, sorted, and how often each occurs (a hash, then a sort of the few).

    Keys spanning a short range (:func:`rankframe.units.codes.short_span`) are counted over it instead: one pass.
    """
    if len(keys):
        lo, hi = int(keys.min()), int(keys.max())
        if short_span(lo, hi, len(keys)):
            counts = np.bincount(keys - lo)
            present = np.flatnonzero(counts)
            return present.astype(np.int64) + lo, counts[present]
    codes, uniques = pd.factorize(keys, sort=False)
    counts = np.bincount(codes, minlength=len(uniques))
    order = np.argsort(uniques, kind="stable")
    return np.asarray(uniques)[order], counts[order]


def item_index(*columns: pd.Series | np.ndarray) -> tuple[list[np.ndarray], int, np.ndarray]:
    """Codes of several id columns in one shared index, its size, and each code's rank in the sorted ids."""
    parts = [np.asarray(c) for c in columns]
    if not parts or not all(p.dtype.kind in "iuf" for p in parts):  # numbers stay numbers (a fast hash)
        parts = [p.astype(object) for p in parts]
    codes, uniques = pd.factorize(np.concatenate(parts) if parts else np.empty(0, dtype=object))
    try:
        order = np.argsort(np.argsort(np.asarray(uniques), kind="stable"), kind="stable")
    except TypeError:  # ids of several types (checked before): no sorted order, the first-seen order
        order = np.arange(len(uniques))
    out, start = [], 0
    for part in parts:
        out.append(codes[start : start + len(part)].astype(np.int64))
        start += len(part)
    return out, len(uniques), order
