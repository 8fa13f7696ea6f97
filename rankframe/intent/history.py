"""The recommender form of alpha-nDCG (``like='informfully'``): the subtopics are the genres of the query's history.

Informfully (Informfully/Recommenders, cornac/metrics/diversity.py, ``Alpha_NDCG``) has no subtopic judgments: a
user's subtopics are the genres (``features=`` with a value > 0) of the items of its history (``train=``, the rows
with a positive weight), and a recommended item is relevant to each of those genres it has. Its conventions:

- ``@k`` cuts the list first; then an item without a ``features=`` row is dropped (the items after it move up);
- the gain of the item at position p is sum over its history genres g of (1 - alpha)^(items of g above it), the
  ideal is the list's own gains sorted in decreasing order (not a greedy list over judgments), and the value is
  alpha-DCG / ideal alpha-DCG (0 when the ideal is 0);
- a user without history genres, or whose list has no item with features, has no value (NaN, left out of means).

Flat arrays over the beyond-accuracy family's :class:`~rankframe.beyond.lists.Lists` (its one reading of train= and
features=); no Python loop per list.
"""

from __future__ import annotations

import numpy as np

from ..beyond.lists import Lists, gather
from .lists import _seen_before


def _csr(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, starts, counts): the rows sorted by ``keys`` and each key's slice of them."""
    order = np.argsort(keys, kind="stable")
    counts = np.bincount(keys, minlength=n)
    starts = np.cumsum(counts) - counts
    return order, starts, counts


def alpha_ndcg(lists: Lists, *, k: int | None, alpha: float) -> np.ndarray:
    """Informfully's alpha-nDCG per unit (NaN: no history genre, or nothing left of the list)."""
    assert lists.train is not None and lists.features is not None and lists.unit_user is not None
    train, feats = lists.train, lists.features
    top = lists.cut(k)  # @k first, as Informfully's pd_rank[:k]
    kept = feats.known[top.item]  # then the items without features are dropped
    unit, item = top.unit[kept], top.item[kept]
    n_kept = np.bincount(unit, minlength=lists.n_units)
    pos = np.arange(len(unit)) - np.repeat(np.cumsum(n_kept) - n_kept, n_kept) + 1  # positions after the drop
    has = feats.value > 0
    f_order, f_starts, f_counts = _csr(feats.item[has], lists.n_items)
    f_genre = feats.feature[has][f_order]
    # the history genres of each train= user: the genres of its items with a positive weight
    n_users = int(max(train.row_user.max(initial=-1), lists.unit_user.max(initial=-1))) + 1
    positive = train.row_weight > 0
    entry, row = gather(f_starts, f_counts, train.row_item[positive])
    history = np.unique(train.row_user[positive][row].astype(np.int64) * feats.n_features + f_genre[entry])
    users_with = np.zeros(n_users, dtype=bool)
    users_with[history // max(feats.n_features, 1)] = True
    # each kept element's genres that are history genres of its unit's user: the (element, slot) pairs
    entry, element = gather(f_starts, f_counts, item)
    user = lists.unit_user[unit[element]].astype(np.int64)
    key = user * feats.n_features + f_genre[entry]
    found = np.searchsorted(history, key)
    relevant = (found < len(history)) & (history[np.minimum(found, len(history) - 1)] == key)
    element, genre = element[relevant], f_genre[entry][relevant]
    slot = unit[element].astype(np.int64) * feats.n_features + genre  # one subtopic per (unit, genre)
    order = np.lexsort((genre, element))  # (unit, position) order: the elements are in list order
    element, slot = element[order], slot[order]
    slot_codes, slot_dense = np.unique(slot, return_inverse=True)
    seen = _seen_before(unit[element], slot_dense.reshape(-1), lists.n_units, len(slot_codes))
    gain = np.bincount(element, weights=(1.0 - alpha) ** seen, minlength=len(unit))
    dcg = np.bincount(unit, weights=gain / np.log2(pos + 1.0), minlength=lists.n_units)
    ranked = np.lexsort((-gain, unit))  # the ideal: each list's own gains sorted, decreasing
    ideal = np.bincount(unit, weights=gain[ranked] / np.log2(pos + 1.0), minlength=lists.n_units)
    value = np.divide(dcg, ideal, out=np.zeros(lists.n_units), where=ideal > 0)
    defined = users_with[lists.unit_user] & (n_kept > 0)
    return np.where(defined, value, np.nan)
