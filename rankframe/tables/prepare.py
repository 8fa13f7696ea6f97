"""The numpy engine's one preparation step: ranked lists as CSR arrays, then cutoff, threshold and gain.

Every kernel in ``rankframe/metrics`` reads a :class:`Prepared` and returns one value per evaluation unit
(segment values, query). Nothing here loops over queries in Python: rows are scattered (or sorted once) into
rank order and every per-query quantity is a segment reduction (``np.bincount``) or a segment-wise scan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..core.columns import Columns
from . import units
from .rules import ranking_column


@dataclass
class Prepared:
    """Ranked lists and judgments of every evaluation unit, as flat arrays."""

    n: int  # number of units
    units: pd.DataFrame  # one row per unit: segment columns then the query column
    offsets: np.ndarray  # CSR offsets of the ranked lists, len n + 1
    _group: np.ndarray | None  # unit code of each ranked element (None: made from the offsets when first read)
    pos: np.ndarray  # 1-based position of each ranked element within its list
    _grade: np.ndarray | None  # grade of each ranked element, NaN = unjudged (None: read from grade_codes)
    judged_group: np.ndarray  # unit code of every judged row with a non-zero grade (retrieved or not)
    judged_grade: np.ndarray  # its grade
    n_judged: np.ndarray  # judged rows per unit
    n_judged_zero: np.ndarray  # judged rows with grade 0 per unit (kept as counts: they are most rows)
    #: makes the score of each ranked element when the lists are ordered by score (None when ordered by rank:
    #: ranks never tie); read through ``score`` only by ties="average", so other calls never gather the scores.
    #: Only uncut lists carry it (a cut reads its tie groups from ``root``)
    scores: Callable[[], np.ndarray] | None = field(default=None, repr=False)
    _memo: dict = field(default_factory=dict, repr=False)
    root: Prepared | None = field(default=None, repr=False)  # the uncut lists, for judged-side quantities
    #: the grades as uint8 codes (grade - lowest_grade; 255 = unjudged) when they came from the packed sort
    #: (units.dense_lists): the float grades are then only laid out if a metric reads them all
    grade_codes: np.ndarray | None = field(default=None, repr=False)
    lowest_grade: float = field(default=0.0, repr=False)

    @property
    def grade(self) -> np.ndarray:
        """Grade of each ranked element as float64, NaN = unjudged (from the codes the first time it is read)."""
        if self._grade is None:
            self._grade = self.grade_at(slice(None))
        return self._grade

    def grade_at(self, rows: np.ndarray | slice) -> np.ndarray:
        """The float64 grades of some ranked elements (from the codes without laying out every grade)."""
        if self._grade is not None or self.grade_codes is None:
            return self.grade[rows]
        codes = self.grade_codes[rows]
        out = codes.astype(np.float64)
        out += self.lowest_grade
        out[codes == 255] = np.nan
        return out

    def at_least(self, rel: float) -> np.ndarray:
        """Mask of the ranked elements with a grade >= rel (never the unjudged ones)."""
        if self._grade is not None or self.grade_codes is None:
            return self.grade >= rel
        lowest_code = max(0.0, float(np.ceil(rel - self.lowest_grade)))  # code + lowest >= rel, codes integers
        if lowest_code > 254:
            return np.zeros(len(self.grade_codes), dtype=bool)
        mask = self.grade_codes >= int(lowest_code)
        mask &= self.grade_codes != 255
        return mask

    @property
    def group(self) -> np.ndarray:
        """Unit code of each ranked element (intp), laid out from the offsets the first time it is read.

        Counting metrics over whole lists (hits per list) need no per-element unit code: the lists' offsets say it,
        so a call that never reads this spares a 10M-element array.
        """
        if self._group is None:
            self._group = np.repeat(np.arange(self.n, dtype=np.intp), np.diff(self.offsets))
        return self._group

    @property
    def n_retrieved(self) -> np.ndarray:
        """Length of each ranked list."""
        return np.diff(self.offsets)

    def cut(self, k: int | None) -> Prepared:
        """The same units with each ranked list cut to its top k (itself when k is None).

        Most metrics only read the top k, so cutting once makes every later step touch k rows per query.
        """
        if k is None or k >= self.longest:
            return self

        def make() -> Prepared:
            # the kept rows are the first min(k, n) of each list: indexed directly (touches ~k rows per list
            # instead of a mask over every row)
            lengths = np.diff(self.offsets)
            kept = np.minimum(lengths, k)
            offsets = units.offsets_from_counts(kept)
            pos = units.positions_in_lists(offsets)
            rows = pos - 1
            rows += np.repeat(self.offsets[:-1], kept)
            return Prepared(
                self.n,
                self.units,
                offsets,
                None,  # unit codes: laid out from the offsets if a metric reads them
                pos,
                self.grade_at(rows),
                self.judged_group,
                self.judged_grade,
                self.n_judged,
                self.n_judged_zero,
                root=self.root or self,
            )

        return self.memo(("cut", k), make)

    def judged_only(self) -> Prepared:
        """The same units with the unjudged items removed from each ranked list (trec_eval -J).

        Unjudged here means a null **or negative** grade: trec_eval -J keeps the retrieved items whose qrels
        label is >= 0 and reads a negative label as "in the pool but not judged" (``form_res_rels.c``), and
        ir_measures' ``judged_only=`` follows it. The items below a removed one move up; the judgments, and so
        |R| and the ideal lists, stay as they are.
        """

        def make() -> Prepared:
            keep = self.at_least(0.0)  # grade >= 0: never a null or negative grade
            group = self.group[keep]
            offsets = units.offsets_from_counts(np.bincount(group, minlength=self.n))
            pos = units.positions_in_lists(offsets)
            return Prepared(
                self.n,
                self.units,
                offsets,
                group,
                pos,
                self.grade[keep],
                self.judged_group,
                self.judged_grade,
                self.n_judged,
                self.n_judged_zero,
                scores=None if self.scores is None else lambda: self.score[keep],
            )

        return self.memo(("judged_only",), make)

    @property
    def longest(self) -> int:
        """Length of the longest ranked list."""
        return self.memo(("longest",), lambda: int(self.n_retrieved.max(initial=0)))

    def memo(self, key: tuple, make: Callable[[], Any]) -> Any:
        """Compute a derived array once per preparation (shared by the metrics of one call)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def tie_average(self, values: np.ndarray) -> np.ndarray:
        """Each ranked element's ``values`` replaced by their mean over its tie group (equal scores in a unit).

        Called on uncut lists (a cut reads the tie groups of its ``root``). Tied elements are adjacent (the lists
        are sorted by score), so a tie group is a run of equal (unit, score): one segment mean, no loop. Without
        scores (lists ordered by rank, which never tie) the values are returned as they are.
        """
        if self.scores is None or len(values) == 0:
            return values
        tie = self.memo(("tie_groups",), self._tie_groups)
        size = np.bincount(tie)
        return (np.bincount(tie, weights=values) / size)[tie]

    @property
    def score(self) -> np.ndarray:
        """The score of each ranked element (lists ordered by score only; computed once, when first asked)."""
        if self.scores is None:
            raise TypeError("these lists are ordered by rank: they have no scores")
        return self.memo(("score",), self.scores)

    def _tie_groups(self) -> np.ndarray:
        s = self.score
        start = np.empty(len(s), dtype=bool)
        start[:1] = True
        start[1:] = (self.group[1:] != self.group[:-1]) | (s[1:] != s[:-1])
        return np.cumsum(start) - 1

    # -- shared building blocks -------------------------------------------------------------------------
    def segment_sum(self, values: np.ndarray | None, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum per unit of ranked-element ``values`` (1 when None), optionally only where ``mask``."""
        if values is None and mask is not None and self._group is None:
            # a count per list: the masked elements before each list's offset, differenced (lists are contiguous)
            return np.diff(np.searchsorted(np.flatnonzero(mask), self.offsets)).astype(np.float64)
        g = self.group if mask is None else self.group[mask]
        if values is not None:
            values = values if mask is None else values[mask]
        return np.bincount(g, weights=values, minlength=self.n).astype(np.float64, copy=False)

    def hits(self, rel: float) -> np.ndarray:
        """1.0 where a ranked element is relevant (grade >= rel; unjudged never is)."""
        return self.memo(("hits", rel), lambda: self.at_least(rel).astype(np.float64))

    def n_hits(self, rel: float) -> np.ndarray:
        """Number of relevant ranked elements per unit (hits in each list), as float64.

        Counted over the relevant elements alone (about a tenth of a list) instead of summing a 0/1 weight per
        element: the same integers, without a float array the length of every list.
        """
        return self.memo(("n_hits", rel), lambda: self.segment_sum(None, self.at_least(rel)))

    def n_relevant(self, rel: float) -> np.ndarray:
        """|R|: number of judged rows (retrieved or not) with grade >= rel, per unit."""
        if self.root is not None:
            return self.root.n_relevant(rel)
        return self.memo(("n_rel", rel), lambda: self.count_judged(lambda g: g >= rel))

    def count_judged(self, condition: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """Number of judged rows per unit whose grade meets ``condition`` (applied to grades as an array)."""
        nonzero = np.bincount(self.judged_group[condition(self.judged_grade)], minlength=self.n)
        zeros = self.n_judged_zero if condition(np.zeros(1))[0] else 0
        return (nonzero + zeros).astype(np.float64)

    def cumsum_in_list(self, values: np.ndarray) -> np.ndarray:
        """Inclusive running sum of ``values`` along each ranked list.

        For integer-valued inputs (hit counts) the global cumsum minus the list's starting value is exact.
        """
        total = np.cumsum(values)
        start = np.concatenate(([0.0], total))[self.offsets[:-1]]
        return total - start[self.group]


def cumprod_in_lists(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Inclusive running product of ``values`` along lists labelled by ``group`` (exact, segment-wise)."""
    return pd.Series(values, copy=False).groupby(group, sort=False).cumprod().to_numpy()


def gain_of(grades: np.ndarray, gain: str, rel: float | None, gains: Sequence | None = None) -> np.ndarray:
    """Gain of each grade: linear max(g, 0), exponential 2^max(g, 0) - 1 or binary 1 (g > 0); 0 for null, below rel.

    ``gains`` ((grade, value) pairs, ``gains=`` of DCG/IDCG/nDCG) first replaces each listed grade by its value;
    ``rel`` compares the grade itself.
    """
    values = grades
    if gains:
        values = grades.copy()
        for grade, value in gains:  # one pass per listed grade, never per query
            values[grades == grade] = value
    g = np.where(np.isnan(values), 0.0, np.maximum(values, 0.0))
    if rel is not None:
        g = np.where(grades >= rel, g, 0.0)
    if gain == "binary":
        return (g > 0).astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exponential" else g


def discount(pos: np.ndarray, log_base: float = 2.0) -> np.ndarray:
    """1 / log_b(position + 1) (b = 2: 1 / log2(position + 1))."""
    if log_base == 2.0:
        return 1.0 / np.log2(pos + 1.0)
    return 1.0 / (np.log2(pos + 1.0) / np.log2(log_base))  # as the SQL macros: log2(i + 1) / log2(b)


def positive_value_codes(
    group: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(unit, value, code, distinct values largest first) of the positive values (code 0: the largest value).

    Zero gains add nothing to an ideal list, so ideal lists are made of these.
    """
    keep = values > 0
    g, v = group[keep], values[keep]
    codes, distinct = units.descending_codes(v)
    return g, v, codes, distinct


def unit_value_counts(g: np.ndarray, codes: np.ndarray, n: int, n_values: int) -> np.ndarray | None:
    """The (n, n_values) matrix of how many values of each code every unit has.

    None when the matrix would be much larger than the values themselves (many distinct values).
    """
    if n * n_values > 2 * len(g) + 65536:
        return None
    return np.bincount(g.astype(np.intp) * n_values + codes, minlength=n * n_values).reshape(n, n_values)


def sorted_desc_in_unit(group: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort values descending within each unit; return (group, values, 1-based position) of the ideal lists."""
    g, v, value_codes, uniques = positive_value_codes(group, values)
    n_values = max(len(uniques), 1)
    counted = unit_value_counts(g, value_codes, n, n_values) if len(uniques) else None
    if counted is not None:
        # few distinct gains (grades 1..3): count each (unit, gain) and lay the blocks out in order, no sort
        counts = counted.reshape(-1)
        sizes = counted.sum(axis=1)
        g = np.repeat(np.arange(n, dtype=np.intp), sizes)
        v = np.repeat(np.tile(uniques, n), counts)
        return g, v, units.positions_in_lists(units.offsets_from_counts(sizes))
    order = np.argsort(g.astype(np.intp) * n_values + value_codes, kind="stable")
    g, v = g[order], v[order]
    return g, v, units.positions_in_lists(units.offsets_from_counts(np.bincount(g, minlength=n)))


def prepare(df: pd.DataFrame, columns: Columns, by: Sequence[str] = ()) -> Prepared:
    """Build the ranked lists of every (segment..., query) unit of a validated long table."""
    c = columns
    unit_cols = [*by, c.query]
    groups = units.group_codes(df, unit_cols)
    order_col = ranking_column(list(df.columns), c)
    relevance = df[c.relevance]
    values = relevance.to_numpy() if _plain_numpy(relevance) else units.as_float(relevance)
    lists = units.dense_lists(df, groups, c.rank, c.relevance, c.item) if order_col == c.rank else None
    scores = None  # ordered by rank: ranks never tie
    grade: np.ndarray | None = None
    if lists is not None:  # the grades come in list order from the packed sort (no gather by row)
        offsets = lists.offsets
    else:
        if order_col == c.rank:
            ranked = units.ranked_order(df, groups, c.rank)
            rows, offsets = ranked.rows, ranked.offsets
        else:
            rows, offsets, score = _order_by_score(df, groups, c)
            scores = lambda: score[rows]  # noqa: E731 - for ties="average" only (tie groups of equal scores)
        grade = np.take(values, rows).astype(np.float64, copy=False)
    pos = lists.pos if lists is not None else units.positions_in_lists(offsets)
    judged_mask, nonzero = _judged_masks(values)
    n_judged = groups.sizes if judged_mask is None else np.bincount(groups.codes[judged_mask], minlength=groups.n)
    nonzero_rows = np.flatnonzero(nonzero)
    judged_group = groups.codes[nonzero_rows]
    return Prepared(
        n=groups.n,
        units=groups.keys,
        offsets=offsets,
        _group=None,
        pos=pos,
        _grade=grade,
        judged_group=judged_group,
        judged_grade=values[nonzero_rows].astype(np.float64, copy=False),
        n_judged=n_judged,
        n_judged_zero=n_judged - np.bincount(judged_group, minlength=groups.n),
        scores=scores,
        grade_codes=None if lists is None else lists.grade_codes,
        lowest_grade=0.0 if lists is None else lists.lowest_grade,
    )


def _plain_numpy(col: pd.Series) -> bool:
    return isinstance(col.dtype, np.dtype) and col.dtype.kind in "iuf"


def _judged_masks(values: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """(judged mask or None when every row is judged, mask of judged rows with a non-zero grade)."""
    if values.dtype.kind in "iu":
        return None, values != 0
    judged = ~np.isnan(values)
    return judged, judged & (values != 0)


def _text_order(values) -> np.ndarray:
    """Indices that sort ``values`` by their text, byte-wise like C's strcmp (trec_eval's docno order)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        text = pa.array(np.asarray(values), from_pandas=True).cast(pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        text = pa.array([str(v) for v in values], type=pa.string())
    return pc.sort_indices(text).to_numpy()


def _order_by_score(
    df: pd.DataFrame, groups: units.Groups, c: Columns, item_ties: str = "descending"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """trec_eval order: score descending, then item id descending compared as strings (rows, offsets, scores).

    ``item_ties="ascending"`` orders tied scores by item id ascending instead (pyndeval's, ``like='ndeval'``).
    """
    score = units.as_float(df[c.score])
    retrieved = np.flatnonzero(~np.isnan(score))
    all_codes, uniques = units.item_factors(df, c.item)
    order = score_order(
        groups.codes[retrieved], groups.n, score[retrieved], all_codes[retrieved], text_ranks(uniques), item_ties
    )
    offsets = units.offsets_from_counts(np.bincount(groups.codes[retrieved], minlength=groups.n))
    return retrieved[order], offsets, score


def text_ranks(items) -> np.ndarray:
    """Each item code's place in the items' string order (trec_eval's docno order: byte-wise, like strcmp)."""
    rank = np.empty(len(items), dtype=np.int64)
    rank[_text_order(np.asarray(items))] = np.arange(len(items))
    return rank


def score_order(
    g: np.ndarray, n_groups: int, score: np.ndarray, item: np.ndarray, text_rank: np.ndarray, item_ties: str
) -> np.ndarray:
    """The indices that put entries in rankframe's score order (prepare's and fusion's one order).

    By group ``g``, score descending, then item id descending as a string (``item_ties="ascending"``: ascending).
    ``item`` codes index ``text_rank`` (:func:`text_ranks` of the items); the scores are NaN-free.
    """
    score_code, distinct_scores = units.descending_codes(score)
    n_items = len(text_rank)
    tie = n_items - 1 - text_rank[item] if item_ties == "descending" else text_rank[item]
    # = np.lexsort((-text_rank[item], -score, g)), by one sort of packed codes
    return units.lexsort_codes((tie, score_code, g), (n_items, len(distinct_scores), n_groups))


def ranked_rows(
    df: pd.DataFrame, columns: Columns, by: Sequence[str] = (), item_ties: str = "descending"
) -> tuple[units.Groups, np.ndarray, np.ndarray]:
    """The units, and the rows of every ranked list in rankframe's order with their CSR offsets.

    The order of :func:`prepare`: by rank, or by score descending then item id descending (trec_eval's order).
    For kernels that read the rows' other columns (the beyond-accuracy metrics read the item ids).
    ``item_ties="ascending"``: tied scores by item id ascending (pyndeval's order, the intent-aware ``like='ndeval'``).
    """
    c = columns
    groups = units.group_codes(df, [*by, c.query])
    if ranking_column(list(df.columns), c) == c.rank:
        ranked = units.ranked_order(df, groups, c.rank)
        return groups, ranked.rows, ranked.offsets
    rows, offsets, _ = _order_by_score(df, groups, c, item_ties)
    return groups, rows, offsets
