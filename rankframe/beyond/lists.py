"""The recommendation lists and the extra inputs as flat arrays over one item index (what every kernel reads).

Every ranked row carries its unit (segment values, query), its 1-based position and an item code into one index
shared with ``catalog=`` and ``train=``; ``train=`` is reduced once to per-item arrays (popularity, known). No
Python loop per query or per item: counts are ``np.bincount`` / ``np.unique`` over combined codes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd


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
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    def cut(self, k: int | None) -> Lists:
        """The rows at positions <= k (every row when k is None)."""
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
            )
        return self._memo[key]

    @property
    def segment(self) -> np.ndarray:
        """Segment code of each ranked row."""
        return self.unit_segment[self.unit]

    def segment_items(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(segment, item, count) of every distinct (segment, item) pair of the rows, sorted by segment then item."""
        key = self.segment.astype(np.int64) * self.n_items + self.item
        pairs, counts = count_distinct(key)
        return pairs // self.n_items, pairs % self.n_items, counts.astype(np.float64)

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
        seg = self.segment if rows is None else self.segment[rows]
        values = values if rows is None else values[rows]
        total = np.bincount(seg, weights=values, minlength=self.n_segments)
        count = np.bincount(seg, minlength=self.n_segments)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)

    def per_unit(self, values: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Mean of ``values`` over each unit's rows (``rows``: a mask of the rows that count); NaN without rows."""
        unit = self.unit if rows is None else self.unit[rows]
        values = values if rows is None else values[rows]
        total = np.bincount(unit, weights=values, minlength=self.n_units)
        count = np.bincount(unit, minlength=self.n_units)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def gather(starts: np.ndarray, counts: np.ndarray, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of a CSR layout (``starts``/``counts`` per key) of each owner's key: (entry index, owner row).

    Row r of ``owners`` (a key) expands into its ``counts[key]`` entries; no Python loop (a ragged ``arange``).
    """
    n = counts[owners]
    row = np.repeat(np.arange(len(owners)), n)
    first = np.repeat(np.cumsum(n) - n, n)
    return np.repeat(starts[owners], n) + (np.arange(len(row)) - first), row


def count_distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of an int64 array, sorted, and how often each occurs (a hash, then a sort of the few)."""
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
