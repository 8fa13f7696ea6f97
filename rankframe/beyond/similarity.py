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
history sums sum_i |Q_i|² (quadratic in the popular items' popularity). :func:`cooccurrence` computes instead the
item x item Gram matrix C = X^T X of the binary train query x item matrix X once (C_ij = |Q_i ∩ Q_j|, the cosine
C_ij / sqrt(C_ii C_jj)), its rows restricted to the items of the lists: sum over the train queries of |H_u ∩ L|
x |H_u| products (history lengths, not popularities), bounded by :data:`COOCCURRENCE_BUDGET`. The metrics then
look up the pairs they need (a list's pairs, a row's item against its history) in chunks of
:data:`PAIRS_PER_CHUNK`: linear in rows x k (ILD) or rows x |H| (Serendipity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import ParameterError
from .lists import Lists

if TYPE_CHECKING:
    from scipy import sparse  # imported where used: scipy.sparse is not needed by import rankframe

#: the input each similarity reads
READS = {"cosine": "features", "hamming": "features", "cooccurrence": "train"}

#: the most multiply-adds the co-occurrence Gram matrix may take: sum over the train queries u of |H_u ∩ L| x |H_u|
#: (H_u the query's distinct train items, L the recommended items). 400M is ~25 s and at most ~5 GB of matrix
#: (bench/cooccurrence.py); beyond it :func:`cooccurrence` raises a ParameterError naming the longest histories.
#: Raise it at your own risk (``rankframe.beyond.similarity.COOCCURRENCE_BUDGET = ...``)
COOCCURRENCE_BUDGET = 400_000_000

#: pairs looked up at once (memory: ~40 bytes each)
PAIRS_PER_CHUNK = 4_000_000


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
    """The co-occurrence cosines of the recommended items (rows) with every item (columns), a sparse matrix."""

    #: n_items x n_items: C_ij / sqrt(C_ii C_jj), C = X^T X (C_ij = |Q_i ∩ Q_j|), for the rows i of recommended items
    matrix: sparse.csr_matrix

    def cosine(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The cosine of each pair (i a recommended item): 0 when they share no query (a binary search per pair)."""
        return np.asarray(self.matrix[i, j], dtype=np.float64).ravel() if len(i) else np.zeros(0)


def cooccurrence(lists: Lists, owner: str) -> Cooccurrence:
    """The co-occurrence Gram matrix of ``train=`` for the items of ``lists`` (memoized; ``owner`` names the metric).

    Raises ParameterError (parameter ``similarity``) when its cost, sum over the train queries of
    |H_u ∩ L| x |H_u|, exceeds :data:`COOCCURRENCE_BUDGET`, naming the longest histories of ``train=``.
    """
    from scipy import sparse

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
    length = np.bincount(query, minlength=n_queries).astype(np.float64)
    in_lists = np.bincount(query, weights=listed[item].astype(np.float64), minlength=n_queries)
    work = float(length @ in_lists)
    if work > COOCCURRENCE_BUDGET:
        longest = np.sort(length)[::-1][:3].astype(np.int64).tolist()
        raise ParameterError(
            f"The 'similarity' parameter of {owner}: similarity='cooccurrence' needs sum over train='s queries of "
            f"|history| x |history items among the recommended| = {work:,.0f} multiply-adds, beyond the budget of "
            f"{COOCCURRENCE_BUDGET:,} (rankframe.beyond.similarity.COOCCURRENCE_BUDGET); the longest histories of "
            f"train= have {longest} distinct items. Use similarity='cosine' with features=, or keep fewer items per "
            "query in train= (e.g. the most recent)",
            owner=owner,
            parameter="similarity",
        )
    ones = np.ones(len(query))
    x = sparse.csr_matrix((ones, (query, item)), shape=(n_queries, lists.n_items))
    keep = listed[item]
    x_listed = sparse.csr_matrix((ones[keep], (query[keep], item[keep])), shape=(n_queries, lists.n_items))
    matrix = (x_listed.T.tocsr() @ x).tocsr()
    matrix.sum_duplicates()  # canonical: sorted indices, so each look-up is a binary search in its row
    users = np.bincount(item, minlength=lists.n_items).astype(np.float64)  # |Q_i| = C_ii
    row = np.repeat(np.arange(lists.n_items), np.diff(matrix.indptr))
    matrix.data = matrix.data / np.sqrt(users[row] * users[matrix.indices])  # C_ij > 0: both > 0
    found = Cooccurrence(matrix)
    lists._memo[key] = found
    return found


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
