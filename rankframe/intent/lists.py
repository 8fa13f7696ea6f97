"""The arithmetic the intent-aware measures share: judgments per subtopic, the run's gains, the greedy ideal list.

Everything is a segment reduction over flat arrays, never a Python loop per query. ``IntentLists`` holds the ranked
lists of every unit (item codes in rankframe's order, or pyndeval's for ``like='ndeval'``) and the subtopic
judgments; the measures read:

- ``judgments(rel)``: the relevant (query, subtopic, item) pairs (grade >= rel), the number S of subtopics with a
  relevant item per query (ndeval's "actual subtopics") and the relevant items per (query, subtopic);
- ``run(like, rel, alpha)``: each ranked element's novelty-discounted gain g = sum over its subtopics s of
  (1 - alpha)^(the items of s ranked above it) (Clarke et al. 2008), and the (element, subtopic) pairs;
- ``ideal(rel, alpha, depth)``: the greedy ideal list of each query (ndeval's ``idealResult``): at each position the
  item of the largest gain given the items above it, ties to the largest item id (strcmp, as ndeval). The loop is
  over positions, each step vectorised across every query; exact ideals are NP-hard (docs/decisions/0021).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError
from ..tables.prepare import _text_order, ranked_rows
from ..tables.units.order import lexsort_codes, offsets_from_counts, positions_in_lists

#: the largest number of terms of the "ideal ideal" normaliser with alpha = 0 (its terms never vanish)
MAX_TERMS = 10**7


@dataclass
class Judgments:
    """The relevant (query, subtopic, item) pairs at one threshold, sorted by (query, item, subtopic)."""

    key: np.ndarray  # query code * n_items + item code of each pair (sorted)
    slot: np.ndarray  # the (query, subtopic) slot of each pair
    n_slots: int
    n_sub: np.ndarray  # S: subtopics with a relevant item, per query (float)
    slot_nrel: np.ndarray  # relevant items per slot (float)


@dataclass
class Gains:
    """Ranked elements of lists (unit of each, 1-based position, gain) and their relevant (element, slot) pairs."""

    n: int  # units (of the run) or queries (of an ideal)
    group: np.ndarray
    pos: np.ndarray
    gain: np.ndarray
    pair_element: np.ndarray | None = None
    pair_slot: np.ndarray | None = None
    pair_seen: np.ndarray | None = None  # items of the same subtopic above the pair's element

    def total(self, values: np.ndarray, k: int | None, pos: np.ndarray | None = None) -> np.ndarray:
        """Sum per list of per-element ``values`` within the top k."""
        group = self.group
        if k is not None:
            keep = (self.pos if pos is None else pos) <= k
            values, group = values[keep], group[keep]
        return np.bincount(group, weights=values, minlength=self.n)

    def dcg(self, k: int | None) -> np.ndarray:
        """The sum of g / log2(p + 1) (ndeval's discount log 2 / log(p + 1))."""
        return self.total(self.gain / np.log2(self.pos + 1.0), k)

    def err(self, k: int | None) -> np.ndarray:
        """The sum of g / p (ndeval's ERR-IA before its normalisation)."""
        return self.total(self.gain / self.pos, k)

    def rbp(self, k: int | None, beta: float) -> np.ndarray:
        """The sum of g beta^(p - 1)."""
        return self.total(self.gain * np.power(beta, self.pos - 1.0), k)


@dataclass
class IntentLists:
    """The ranked lists of every unit and the subtopic judgments of their queries, as flat arrays."""

    n: int
    unit_query: np.ndarray  # query code of each unit
    n_queries: int
    n_items: int
    item_rank: np.ndarray  # the text order of each item code (strcmp: ndeval's docno order)
    sub: pd.DataFrame  # query code, subtopic code, item code, grade of each subtopic judgment
    n_retrieved: np.ndarray
    row_item: np.ndarray  # the item code of each row of the table (in its row order)
    _orders: dict[str, tuple[np.ndarray, np.ndarray]]  # item_ties -> (item code per element, offsets)
    _order_of: Callable[[str], tuple[np.ndarray, np.ndarray]] = field(repr=False)
    _memo: dict = field(default_factory=dict, repr=False)

    def memo(self, key: tuple, make: Callable[[], Any]) -> Any:
        """Compute a derived array once per call (shared by the measures)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def order(self, like: str | None) -> tuple[np.ndarray, np.ndarray]:
        """(item code of each ranked element, CSR offsets): tied scores by item id ascending under ndeval."""
        ties = "ascending" if like == "ndeval" else "descending"
        if ties not in self._orders:
            self._orders[ties] = self._order_of(ties)
        return self._orders[ties]

    def judgments(self, rel: float) -> Judgments:
        """The relevant pairs at threshold ``rel`` (grade >= rel; an unjudged grade never is)."""

        def make() -> Judgments:
            s = self.sub
            keep = s["grade"].to_numpy() >= rel
            q = s["query"].to_numpy()[keep]
            item = s["item"].to_numpy()[keep]
            subtopic = s["subtopic"].to_numpy()[keep]
            n_sub_codes = int(subtopic.max(initial=-1)) + 1
            slot_key = q.astype(np.int64) * max(n_sub_codes, 1) + subtopic
            slots, slot = np.unique(slot_key, return_inverse=True)
            key = q.astype(np.int64) * self.n_items + item
            order = np.lexsort((subtopic, key))
            slot_query = slots // max(n_sub_codes, 1)
            return Judgments(
                key=key[order],
                slot=slot.reshape(-1)[order],
                n_slots=len(slots),
                n_sub=np.bincount(slot_query, minlength=self.n_queries).astype(np.float64),
                slot_nrel=np.bincount(slot.reshape(-1), minlength=len(slots)).astype(np.float64),
            )

        return self.memo(("judgments", rel), make)

    def run(self, like: str | None, rel: float, alpha: float) -> Gains:
        """The run's elements with their novelty-discounted gains (one value per element, pairs kept)."""

        def make() -> Gains:
            items, offsets = self.order(like)
            j = self.judgments(rel)
            group = np.repeat(np.arange(self.n, dtype=np.intp), np.diff(offsets))
            pos = positions_in_lists(offsets)
            key = self.unit_query[group].astype(np.int64) * self.n_items + items
            lo = np.searchsorted(j.key, key, "left")
            count = np.searchsorted(j.key, key, "right") - lo
            element = np.repeat(np.arange(len(key), dtype=np.intp), count)
            within = np.arange(len(element)) - np.repeat(offsets_from_counts(count)[:-1], count)
            slot = j.slot[lo[element] + within]
            seen = _seen_before(group[element], slot, self.n, j.n_slots)
            gain = np.bincount(element, weights=(1.0 - alpha) ** seen, minlength=len(key))
            return Gains(self.n, group, pos, gain, element, slot, seen)

        return self.memo(("run", like, rel, alpha), make)

    def ideal(self, rel: float, alpha: float, depth: int | None) -> Gains:
        """The greedy ideal list of every query to ``depth`` positions (None: every relevant item)."""
        full = self._memo.get(("ideal", rel, alpha, None))
        if full is not None:
            return full
        return self.memo(("ideal", rel, alpha, depth), lambda: _greedy(self, self.judgments(rel), alpha, depth))

    def ideal_ideal(self, like: str | None, rel: float, alpha: float, k: int | None, discount: str) -> np.ndarray:
        """The "ideal ideal" of ndeval per unit: S sum_{j < d} (1 - alpha)^j w(j + 1), d = k or the list's length.

        Every subtopic covered by every position (w = 1/log2(p + 1) for alpha-DCG, 1/p for ERR-IA). Under
        ``like='ndeval'`` a depth of 1 is not normalised (ndeval divides from its second position on).
        """
        depth = self.n_retrieved if k is None else np.full(self.n, k, dtype=np.int64)
        longest = series_terms(alpha, int(self.n_retrieved.max(initial=0)), k)
        depth = np.minimum(depth, longest)
        p = np.arange(1, longest + 1, dtype=np.float64)
        w = 1.0 / np.log2(p + 1.0) if discount == "log" else 1.0 / p
        series = np.concatenate(([0.0], np.cumsum(np.power(1.0 - alpha, p - 1.0) * w)))
        out = self.n_sub(rel) * series[depth]
        if like == "ndeval":
            out = np.where(depth == 1, 1.0, out)
        return out

    def n_sub(self, rel: float) -> np.ndarray:
        """S per unit: the subtopics of its query with a relevant item (ndeval's actual subtopics)."""
        return self.judgments(rel).n_sub[self.unit_query]


def series_terms(alpha: float, longest_list: int, k: int | None) -> int:
    """The number of terms of the "ideal ideal" series: k, or the longest list, cut where its terms vanish.

    With alpha > 0 past this many terms (1 - alpha)^j no longer changes a double's sum; with alpha = 0 k must be
    <= :data:`MAX_TERMS`. The one rule of the numpy kernel (:meth:`IntentLists.ideal_ideal`) and the SQL one
    (``sql/intent.sql``, whose depths are clamped to it).
    """
    longest = longest_list if k is None else k
    if alpha > 0:  # past this many terms (1 - alpha)^j no longer changes a double's sum
        return min(longest, max(longest_list, _vanishing(alpha)))
    if longest > MAX_TERMS:
        raise ParameterError(
            f"with alpha=0 the intent-aware measures normalise by a sum of k terms: k must be <= {MAX_TERMS}, "
            f"got k={k}",
            parameter="k",
            expected=f"an int <= {MAX_TERMS} with alpha=0",
            got=k,
        )
    return longest


def _vanishing(alpha: float) -> int:
    """Terms after which (1 - alpha)^j < 2^-60 (alpha in (0, 1]): the rest of a convergent sum is below rounding."""
    if alpha >= 1:
        return 1
    return int(math.ceil(60.0 / -math.log2(1.0 - alpha))) + 1


def _seen_before(group: np.ndarray, slot: np.ndarray, n: int, n_slots: int) -> np.ndarray:
    """For pairs in (unit, position) order: how many earlier pairs of the same (unit, slot) there are."""
    if not len(slot):
        return np.zeros(0, dtype=np.float64)
    order = lexsort_codes((slot, group), (max(n_slots, 1), max(n, 1)))
    g, s = group[order], slot[order]
    start = np.ones(len(order), dtype=bool)
    start[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    first = np.maximum.accumulate(np.where(start, np.arange(len(order)), 0))
    seen = np.empty(len(order), dtype=np.float64)
    seen[order] = np.arange(len(order)) - first
    return seen


def _greedy(lists: IntentLists, j: Judgments, alpha: float, depth: int | None) -> Gains:
    """The greedy ideal list of ndeval for every query, one position per step, every query at once.

    The candidates are each query's relevant items (an item of no relevant subtopic adds nothing wherever it
    stands). At each step every candidate's gain is the sum of its subtopics' current weights (one bincount); each
    query takes its largest gain, ties to the largest item id (ndeval's strcmp); the chosen items' subtopics are
    weighted by (1 - alpha) once more and they leave the candidates.
    """
    cand_key, pair_cand = np.unique(j.key, return_inverse=True)
    pair_cand = pair_cand.reshape(-1)
    cand_query = cand_key // lists.n_items
    cand_rank = lists.item_rank[cand_key % lists.n_items]
    weight = np.ones(j.n_slots)
    active = np.arange(len(cand_key))  # candidates still to place (sorted by query: cand_key is sorted)
    pairs = np.arange(len(pair_cand))  # their pairs
    local = pair_cand.copy()  # each pair's candidate, as an index into ``active``
    out_query, out_pos, out_gain = [], [], []
    step = 0
    while len(active) and (depth is None or step < depth):
        step += 1
        score = np.bincount(local, weights=weight[j.slot[pairs]], minlength=len(active))
        query = cand_query[active]
        start = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
        segment = np.repeat(np.arange(len(start)), np.diff(np.append(start, len(query))))
        best = score == np.maximum.reduceat(score, start)[segment]
        rank = np.where(best, cand_rank[active], -1)
        chosen = best & (rank == np.maximum.reduceat(rank, start)[segment])
        out_query.append(query[chosen])
        out_pos.append(np.full(int(chosen.sum()), step, dtype=np.int64))
        out_gain.append(score[chosen])
        taken = chosen[local]
        weight[j.slot[pairs[taken]]] *= 1.0 - alpha  # one item per query: no slot twice
        renumber = np.cumsum(~chosen) - 1
        active, pairs, local = active[~chosen], pairs[~taken], renumber[local[~taken]]
    if not out_query:
        empty = np.zeros(0)
        return Gains(lists.n_queries, empty.astype(np.intp), empty.astype(np.int64), empty)
    q, pos, gain = np.concatenate(out_query), np.concatenate(out_pos), np.concatenate(out_gain)
    order = np.lexsort((pos, q))  # each query's list contiguous, in position order
    return Gains(lists.n_queries, q[order].astype(np.intp), pos[order], gain[order])


def build(df: pd.DataFrame, sub: pd.DataFrame, columns: Columns, by: list[str]) -> IntentLists:
    """The lists of a validated (joined) table and its subtopic judgments (columns query, subtopic, item, relevance)."""
    c = columns
    groups, rows, offsets = ranked_rows(df, c, by)
    keys = groups.keys
    query_codes, _ = pd.factorize(pd.concat([keys[c.query], sub[c.query]], ignore_index=True), use_na_sentinel=False)
    item_codes, item_uniques = pd.factorize(pd.concat([df[c.item], sub[c.item]], ignore_index=True))
    item_rank = np.empty(len(item_uniques), dtype=np.int64)
    item_rank[_text_order(np.asarray(item_uniques, dtype=object))] = np.arange(len(item_uniques))
    subtopic_codes, _ = pd.factorize(sub[c.subtopic])
    grade = pd.to_numeric(sub[c.relevance], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    n_rows = len(df)
    table = pd.DataFrame(
        {
            "query": query_codes[len(keys) :],
            "subtopic": subtopic_codes,
            "item": item_codes[n_rows:],
            "grade": grade,
        }
    )
    run_items = item_codes[:n_rows]

    def order_of(ties: str) -> tuple[np.ndarray, np.ndarray]:
        if ties == "descending":
            return run_items[rows], offsets
        _, r, o = ranked_rows(df, c, by, item_ties=ties)
        return run_items[r], o

    return IntentLists(
        n=groups.n,
        unit_query=query_codes[: len(keys)].astype(np.intp),
        n_queries=int(query_codes.max(initial=-1)) + 1,
        n_items=max(len(item_uniques), 1),
        item_rank=item_rank,
        sub=table,
        n_retrieved=np.diff(offsets),
        row_item=run_items,
        _orders={"descending": (run_items[rows], offsets)},
        _order_of=order_of,
    )


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """The ratio num / den, 0 where den is 0 (no relevant subtopic: the no_relevant policy decides the value)."""
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


def pair_pos(run: Gains) -> np.ndarray:
    """The position of each (element, subtopic) pair's element."""
    assert run.pair_element is not None
    return run.pos[run.pair_element]


def pair_group(run: Gains) -> np.ndarray:
    """The unit of each (element, subtopic) pair's element."""
    assert run.pair_element is not None
    return run.group[run.pair_element]


def pair_total(run: Gains, values: np.ndarray, k: int | None, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum per unit of per-pair ``values`` within the top k (and ``mask``)."""
    keep = np.ones(len(values), dtype=bool) if mask is None else mask.copy()
    if k is not None:
        keep &= pair_pos(run) <= k
    return np.bincount(pair_group(run)[keep], weights=values[keep], minlength=run.n)
