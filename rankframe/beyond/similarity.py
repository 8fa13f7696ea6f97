"""Item vectors for the similarity-based metrics (ILD, Serendipity), as sparse rows over the shared item index.

Every similarity these metrics offer is a sum over dimensions, so a list's (or a history's) pairwise sums come from
one GROUP BY (list, dimension) — never a join of pairs of items:

- ``cosine``: the rows of ``features=``, each item's vector divided by its L2 norm (a known item whose values are
  all 0 has the zero vector: similarity 0 with every item);
- ``cooccurrence``: the item's queries in ``train=`` (distinct, positive weight), each 1 / sqrt(their number) — the
  cosine of the binary item x query vectors, Microsoft Recommenders' ``item_cooccurrence_count``;
- ``hamming``: the raw values of ``features=`` (a pair not listed is 0), compared coordinate by coordinate.

An item is *known* when ``features=`` has a row for it (``train=`` for ``cooccurrence``, any weight); the metrics'
``unknown`` option says whether an unknown item is left out (``'drop'``) or counted as the zero vector (``'zero'``,
similarity 0 with everything; Microsoft Recommenders fills a missing pair's similarity with 0).

The co-occurrence vectors are never summed over their dimensions on pandas: an item's vector has one entry per
train query that holds it, so a sum over a list's (or a history's) items costs the items' popularity, and the
history sums sum_i |Q_i|² (quadratic in the popular items' popularity). :func:`cooccurrence` counts instead the
item x item co-occurrences C = X^T X of the binary train query x item matrix X once (C_ij = |Q_i ∩ Q_j|, the
cosine C_ij / sqrt(C_ii C_jj)), its rows restricted to the items of the lists: sum over the train queries of
|H_u ∩ L| x |H_u| increments (history lengths, not popularities), bounded by :data:`COOCCURRENCE_BUDGET`. The
items are renumbered, the most looked-up first: the counts among the first of them are a dense block of at most
:data:`PAIR_TABLE_BYTES` (a look-up is a gather), the others a hash index of their pairs (no scipy). The metrics then
look up the pairs they need (a list's pairs, a row's item against its history) in chunks of
:data:`PAIRS_PER_CHUNK`: linear in rows x k (ILD) or rows x |H| (Serendipity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import ParameterError
from .lists import Lists, gather

#: the input each similarity reads
READS = {"cosine": "features", "hamming": "features", "cooccurrence": "train"}

#: the most multiply-adds the co-occurrence Gram matrix may take: sum over the train queries u of |H_u ∩ L| x |H_u|
#: (H_u the query's distinct train items, L the recommended items). 400M is ~25 s and at most ~5 GB of matrix
#: (bench/cooccurrence.py); beyond it :func:`cooccurrence` raises a ParameterError naming the longest histories.
#: Raise it at your own risk (``rankframe.beyond.similarity.COOCCURRENCE_BUDGET = ...``; the DuckDB engine passes
#: it to its SQL, and the SQL macros read it from ``SET VARIABLE rf__cooccurrence_budget = ...``, else the value
#: generated from this one into sql/beyond.sql)
COOCCURRENCE_BUDGET = 400_000_000

#: pairs looked up at once (memory: ~40 bytes each)
PAIRS_PER_CHUNK = 4_000_000

#: the most bytes of the dense block of co-occurrence counts among the most looked-up items (64 MB: 5,792 items
#: with counts below 65,536); the other nonzero counts are found by a hash look-up of their pair
PAIR_TABLE_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Vectors:
    """Sparse item vectors in CSR order by item code: entries ``starts[i] .. starts[i] + counts[i]``."""

    starts: np.ndarray  # first entry of each item code
    counts: np.ndarray  # number of entries of each item code
    dim: np.ndarray  # dimension code of each entry
    value: np.ndarray  # value of each entry (normalized for cosine and cooccurrence)
    n_dims: int
    known: np.ndarray  # bool per item code
    norm2: np.ndarray  # squared norm of each item's vector (1 or 0 once normalized)


def known_items(lists: Lists, similarity: str) -> np.ndarray:
    """Bool per item code: the item has a row in the input ``similarity`` reads (the engine checked it was given)."""
    found = lists.train if similarity == "cooccurrence" else lists.features
    if found is None:
        raise RuntimeError(f"{READS[similarity]}= was not checked before the kernel")
    return found.known


def item_vectors(lists: Lists, similarity: str) -> Vectors:
    """The vectors of every item code for ``similarity`` (the engine checked the input it reads was given)."""
    key = ("vectors", similarity)
    if key in lists._memo:
        return lists._memo[key]
    if similarity == "cooccurrence":
        train = lists.train
        if train is None:
            raise RuntimeError("train= was not checked before the kernel")
        item, dim = train.pair_item, train.pair_query
        value = 1.0 / np.sqrt(train.users[item])
        n_dims, known = (int(dim.max()) + 1 if len(dim) else 0), train.known
    else:
        features = lists.features
        if features is None:
            raise RuntimeError("features= was not checked before the kernel")
        item, dim, value, n_dims, known = (
            features.item,
            features.feature,
            features.value,
            features.n_features,
            features.known,
        )
        if similarity == "cosine":
            value = unit_rows(item, value, lists.n_items)
    order = np.argsort(item, kind="stable")
    item, dim, value = item[order], dim[order], value[order]
    counts = np.bincount(item, minlength=lists.n_items)
    starts = np.cumsum(counts) - counts
    with np.errstate(over="ignore"):  # hamming's raw values (never read there): squares may overflow to inf
        norm2 = np.bincount(item, weights=value * value, minlength=lists.n_items)
    found = Vectors(starts, counts, dim, value, n_dims, known, norm2)
    lists._memo[key] = found
    return found


def unit_rows(item: np.ndarray, value: np.ndarray, n_items: int) -> np.ndarray:
    """Each row's value over its item's L2 norm (0 for a zero vector), scaled first so that no square overflows.

    Each item's values are divided by their largest magnitude before squaring: the cosine is scale-invariant, and
    finite values beyond ~1e154 (whose squares are inf) give the same unit vectors as the values x 1e-200.
    """
    biggest = np.zeros(n_items)
    np.maximum.at(biggest, item, np.abs(value))
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.where(biggest[item] > 0, value / biggest[item], 0.0)
        norm = np.sqrt(np.bincount(item, weights=scaled * scaled, minlength=n_items))
        return np.where(norm[item] > 0, scaled / norm[item], 0.0)


@dataclass(frozen=True)
class Cooccurrence:
    """The co-occurrence counts C_ij = |Q_i ∩ Q_j| of the recommended items i with every item j, for pair look-ups.

    Items are renumbered (``code``; -1: no train query with a positive weight, cosine 0 with every item), the most
    looked-up first: the counts among the first ``hot`` codes are a dense block (a look-up is one gather), the other
    nonzero counts a hash index of their pair keys. No scipy, no sort of the pairs looked up.
    """

    code: np.ndarray  # per item code: its code here (-1: the zero vector)
    scale: np.ndarray  # 1 / sqrt(|Q_i|) per code here (|Q_i| = C_ii > 0)
    hot: int  # codes < hot have their counts in ``table``
    table: np.ndarray  # hot x hot counts, flat (unsigned ints)
    cold_keys: pd.Index  # a * n + b of the nonzero counts outside the table
    cold_counts: np.ndarray
    n: int  # codes here

    def cosine(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """C_ab / sqrt(C_aa C_bb) of each pair of codes (>= 0, broadcast; ``a`` recommended): 0 when disjoint."""
        a, b = np.broadcast_arrays(a, b)
        flat = a * self.hot + b
        cold = None if self.hot == self.n else np.maximum(a, b) >= self.hot
        if cold is None or not cold.any():
            count = self.table[flat]
        else:
            count = self.table[np.where(cold, 0, flat)] if self.hot else np.zeros(a.shape, self.table.dtype)
            at = self.cold_keys.get_indexer(a[cold] * self.n + b[cold])
            count[cold] = np.where(at >= 0, self.cold_counts[at], 0)
        return count * self.scale[a] * self.scale[b]

    def pair_sums(self, rows: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """The sum of the cosines of the pairs of columns (``left``, ``right``) of each row of ``rows`` (codes).

        Each row sorted ascending, a pair is outside the dense block when its right code is; the products are formed
        per row once (one gather per pair for the block's index and two for the scales), not per pair.
        """
        b = np.take(rows, right, axis=1)
        flat = np.take(rows * self.hot, left, axis=1)
        flat += b
        if self.hot < self.n and len(rows) and int(rows[:, -1].max()) >= self.hot:
            cold = b >= self.hot
            flat[cold] = 0
            count = self.table[flat] if self.hot else np.zeros(flat.shape, self.table.dtype)
            at = self.cold_keys.get_indexer(np.take(rows, left, axis=1)[cold] * self.n + b[cold])
            count[cold] = np.where(at >= 0, self.cold_counts[at], 0)
        else:
            count = self.table[flat]
        scale = self.scale[rows]
        weight = np.take(scale, left, axis=1)
        weight *= np.take(scale, right, axis=1)
        weight *= count
        return weight.sum(axis=1)


def cooccurrence(lists: Lists, owner: str) -> Cooccurrence:
    """The co-occurrence counts of ``train=`` for the items of ``lists`` (memoized; ``owner`` names the metric).

    Each train query u adds 1 to C_ij for each of its items i that is recommended and each of its items j: sum over
    the train queries of |H_u ∩ L| x |H_u| increments, in chunks of about :data:`PAIRS_PER_CHUNK`. Raises
    ParameterError (parameter ``similarity``) when that cost exceeds :data:`COOCCURRENCE_BUDGET`, naming the
    longest histories of ``train=`` (:func:`check_budget`).
    """
    key = ("cooccurrence",)
    if key in lists._memo:
        return lists._memo[key]
    train = lists.train
    if train is None:
        raise RuntimeError("train= was not checked before the kernel")
    query, item = train.pair_query, train.pair_item
    listed = np.zeros(lists.n_items, dtype=bool)
    listed[lists.item] = True
    n_queries = int(query.max()) + 1 if len(query) else 0
    length = np.bincount(query, minlength=n_queries)
    in_lists = np.bincount(query, weights=listed[item].astype(np.float64), minlength=n_queries)
    check_budget(length, in_lists, owner)
    # codes: the items with a train query, the most looked-up first (rows of the lists, then train queries)
    users = train.users
    trained = np.flatnonzero(users > 0)
    often = np.bincount(lists.item, minlength=lists.n_items)[trained] * float(max(n_queries, 1)) + users[trained]
    by_use = trained[np.argsort(-often, kind="stable")]
    code = np.full(lists.n_items, -1, dtype=np.int64)
    code[by_use] = np.arange(len(by_use))
    n = len(by_use)
    biggest = int(users.max()) if len(users) else 0
    dtype = np.uint16 if biggest < 2**16 else np.uint32
    hot = min(n, math.isqrt(PAIR_TABLE_BYTES // np.dtype(dtype).itemsize))
    table = np.zeros(hot * hot, dtype=dtype)
    order = np.argsort(query, kind="stable")
    q_query, q_item = query[order], code[item[order]]  # each query's entries (all with a code: a positive weight)
    q_first = (np.cumsum(length) - length).astype(np.int64)
    q_listed = listed[item[order]]
    keys_parts, count_parts = [], []
    for start, stop in chunks((length * in_lists).astype(np.int64)):
        lo, hi = int(q_first[start]), int(q_first[stop - 1] + length[stop - 1])
        rows = lo + np.flatnonzero(q_listed[lo:hi])  # the recommended entries of these queries
        entry, at = gather(q_first, length, q_query[rows])
        pair_a, pair_b = q_item[rows][at], q_item[entry]
        in_table = np.maximum(pair_a, pair_b) < hot
        np.add.at(table, pair_a[in_table] * hot + pair_b[in_table], dtype(1))  # dtype(1): numpy's fast path
        keys, counts = np.unique(pair_a[~in_table] * n + pair_b[~in_table], return_counts=True)
        keys_parts.append(keys)
        count_parts.append(counts)
    keys = np.concatenate(keys_parts) if keys_parts else np.zeros(0, dtype=np.int64)
    counts = np.concatenate(count_parts) if count_parts else np.zeros(0, dtype=np.int64)
    if len(keys_parts) > 1:  # the same pair from several chunks: one count
        keys, inverse = np.unique(keys, return_inverse=True)
        counts = np.bincount(inverse, weights=counts, minlength=len(keys)).astype(np.int64)
    found = Cooccurrence(code, 1.0 / np.sqrt(users[by_use]), hot, table, pd.Index(keys), counts.astype(dtype), n)
    lists._memo[key] = found
    return found


#: the words of the co-occurrence budget's error, on every face (sql/beyond.sql's ``rf__cooccurrence_over`` is
#: generated from them by ``python -m rankframe.beyond.sqlgen``): the metric, the work, the budget and the three
#: longest histories
BUDGET_WORDS = (
    "The 'similarity' parameter of {owner}: similarity='cooccurrence' needs sum over train='s queries of "
    "|history| x |history items among the recommended| = {work} multiply-adds, beyond the budget of {budget} "
    "(rankframe.beyond.similarity.COOCCURRENCE_BUDGET; in SQL: SET VARIABLE rf__cooccurrence_budget = ...); "
    "the longest histories of train= have {longest} distinct items. Use similarity='cosine' with features=, or "
    "keep fewer items per query in train= (e.g. the most recent)"
)


def check_budget(length: np.ndarray, in_lists: np.ndarray, owner: str) -> None:
    """ParameterError (parameter ``similarity``) when sum over the train queries of |H_u| x |H_u ∩ L| is too large.

    ``length``: |H_u| of each train query, ``in_lists``: |H_u ∩ L| (L the recommended items).
    """
    work = float(np.asarray(length, dtype=np.float64) @ np.asarray(in_lists, dtype=np.float64))
    if work > COOCCURRENCE_BUDGET:
        longest = np.sort(np.asarray(length))[::-1][:3].astype(np.int64).tolist()
        words = BUDGET_WORDS.format(
            owner=owner, work=f"{work:,.0f}", budget=f"{COOCCURRENCE_BUDGET:,}", longest=str(longest)
        )
        raise ParameterError(words, owner=owner, parameter="similarity")


def chunks(size: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) runs of owners holding about :data:`PAIRS_PER_CHUNK` of their ``size`` pairs each.

    A loop per chunk of pairs (memory), never per list; an owner with more pairs than a chunk is a chunk alone.
    """
    ends = np.cumsum(size)
    if not len(ends):
        return []
    cuts = np.searchsorted(ends, np.arange(PAIRS_PER_CHUNK, int(ends[-1]), PAIRS_PER_CHUNK)) + 1
    bounds = np.unique(np.concatenate([[0], cuts, [len(size)]])).clip(0, len(size)).tolist()
    return list(zip(bounds[:-1], bounds[1:], strict=True))
