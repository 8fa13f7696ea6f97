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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .lists import Lists

#: the input each similarity reads
READS = {"cosine": "features", "hamming": "features", "cooccurrence": "train"}


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
