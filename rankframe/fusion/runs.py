"""The runs to fuse as flat numpy arrays: one entry per (system, query, item) retrieved, with its position.

Positions come from the one ordering rule of rankframe (``table_rules.ranking_column``: rank wins over score;
by score, ties by item id descending as a string: ``prepare._order_by_score``; by rank: ``units.ranked_order``),
computed once for every (system, query) list at the same time. ``depth`` cuts each list here, and
``norm='borda'`` fills every list with every candidate of its query (:func:`fill_candidates`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ValidationError
from ..tables import units
from ..tables.prepare import score_order, text_ranks
from ..tables.rules import ranking_column


@dataclass(frozen=True)
class Runs:
    """Every run's retrieved entries, grouped by (system, query) in list order (CSR)."""

    systems: list  # the system values, sorted; entry codes index this list
    n_queries: int
    sys: np.ndarray  # system code per entry
    unit: np.ndarray  # query code per entry (codes ordered like the sorted query ids)
    item: np.ndarray  # item code per entry (into ``items``)
    pos: np.ndarray  # 1-based position of the entry in its (system, query) list
    value: np.ndarray  # the entry's score (NaN when the runs are ranked by a rank column only)
    lengths: np.ndarray  # (systems, queries) list lengths
    query_codes: np.ndarray  # query code of every input row
    item_codes: np.ndarray  # item code of every input row
    items: pd.Index  # item ids by code
    has_scores: bool
    rows: np.ndarray  # the input row of every entry (``-1`` for the entries ``norm='borda'`` adds)
    cand: np.ndarray  # candidate code of every entry: its (query, item) pair's place among the runs' pairs, sorted
    cand_keys: np.ndarray  # the candidates' (query, item) keys, query code * max(len(items), 1) + item code, sorted
    text_rank: np.ndarray  # each item code's place in the items' string order (:func:`item_text_rank`)


def read_runs(df: pd.DataFrame, c: Columns, depth: int | None, systems: list | None = None) -> Runs:
    """The entries of every run of ``df`` (system column ``c.system``), cut at ``depth``.

    ``systems``: the sorted systems of the whole table when ``df`` is a part of it holding whole queries
    (rankframe.spark.fuse's buckets, whose whole-table checks ran before); a system may then have no entries here.
    """
    given = systems is not None
    if systems is None:  # (the callers refused null systems first: check_table)
        sys_codes, found, _ = units.column_codes(df, c.system)  # validation's codes of the column, when it made them
        systems = list(found)
    else:
        sys_codes = pd.Categorical(df[c.system], categories=systems).codes
        if (sys_codes < 0).any():
            raise _failure(c.system, "the system column must not be null", df.loc[sys_codes < 0])
    queries = units.group_codes(df, [c.query])
    item_codes, items = units.item_factors(df, c.item)
    text_rank = item_text_rank(items)
    n_sys, n_q = len(systems), queries.n
    groups = units.Groups(sys_codes.astype(np.intp) * n_q + queries.codes, n_sys * n_q, pd.DataFrame())
    order_col = ranking_column(list(df.columns), c)
    if order_col == c.rank:
        ranked = units.ranked_order(df, groups, c.rank)
        if len(ranked.duplicate_rank_rows):
            raise _failure(
                c.rank, "ranks must be unique within each (system, query)", df.iloc[ranked.duplicate_rank_rows]
            )
        rows, offsets = ranked.rows, ranked.offsets
        value = units.as_float(df[c.score])[rows] if c.score in df.columns else np.full(len(rows), np.nan)
        has_scores = c.score in df.columns and not np.isnan(value).any()
    else:
        score = units.as_float(df[c.score])
        if np.isinf(score).any():
            raise _failure(c.score, "scores must be finite (null = not retrieved)", df.loc[np.isinf(score)])
        missing = np.isnan(score)
        if missing.any():
            retrieved = np.flatnonzero(~missing)
            g = groups.codes[retrieved]
            rows = retrieved[score_order(g, groups.n, score[retrieved], item_codes[retrieved], text_rank, "descending")]
        else:  # every row retrieved: no copy of the columns
            g = groups.codes
            rows = score_order(g, groups.n, score, item_codes, text_rank, "descending")
        offsets = units.offsets_from_counts(np.bincount(g, minlength=groups.n))
        value, has_scores = score[rows], True
    lengths = np.diff(offsets)
    empty = np.flatnonzero(lengths.reshape(n_sys, n_q).sum(axis=1) == 0)
    if len(empty) and not given:
        bad = [str(systems[int(i)]) for i in empty]
        raise _failure(
            c.system,
            f"system(s) {bad} rank nothing: every row has a null {order_col!r} (a run needs a score or a rank)",
        )
    sys, unit = sys_codes[rows], queries.codes[rows]
    item = item_codes[rows]
    # the (query, item) pairs numbered once, in sorted order: the candidates, and (with the system) the uniqueness
    # of the items of each run, without a sort when the pairs span a short range (units.dense_codes)
    cand, cand_keys = sorted_codes(unit.astype(np.int64) * max(len(items), 1) + item)
    cand = cand.astype(units.index_dtype(len(cand_keys)), copy=False)  # int32 below 2**31 candidates: half the memory
    rows = rows.astype(units.index_dtype(len(df)), copy=False)
    if units.any_repeat(sys.astype(np.int64) * max(len(cand_keys), 1) + cand):
        raise _failure(c.item, "items must be unique within each (system, query) run")
    pos = units.positions_in_lists(offsets)
    runs = Runs(
        list(systems), n_q, sys, unit, item, pos, value.astype(np.float64, copy=False), lengths.reshape(n_sys, n_q),
        queries.codes, item_codes, items, has_scores, rows, cand, cand_keys, text_rank,
    )  # fmt: skip
    return runs if depth is None else cut(runs, depth)


def sorted_codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(code of every key, the distinct keys sorted): ``np.unique(keys, return_inverse=True)`` of integer keys.

    By counting when the keys span a short range (:func:`rankframe.units.dense_codes`), else by hashing and sorting
    the distinct keys only (``pd.factorize(sort=True)``): never a sort of every key.
    """
    dense = units.dense_codes(keys)
    if dense is not None:
        return dense[0], dense[1]
    codes, uniques = pd.factorize(keys, sort=True)
    return codes, np.asarray(uniques, dtype=np.int64)


def cut(runs: Runs, depth: int) -> Runs:
    """Each list cut to its first ``depth`` entries (the candidates numbered again: those of the cut lists)."""
    keep = runs.pos <= depth
    present = np.zeros(len(runs.cand_keys), dtype=bool)
    kept = runs.cand[keep]
    present[kept] = True
    number = np.cumsum(present) - 1
    return replace(
        runs,
        sys=runs.sys[keep],
        unit=runs.unit[keep],
        item=runs.item[keep],
        pos=runs.pos[keep],
        value=runs.value[keep],
        lengths=np.minimum(runs.lengths, depth),
        rows=runs.rows[keep],
        cand=number[kept],
        cand_keys=runs.cand_keys[present],
    )


@dataclass(frozen=True)
class Candidates:
    """The items of each query retrieved by at least one run: the fused run's rows."""

    code: np.ndarray  # candidate code of every entry
    unit: np.ndarray  # query code per candidate (candidates sorted by query, then item code)
    item: np.ndarray  # item code per candidate
    per_query: np.ndarray  # number of candidates of each query (N)


def candidates(runs: Runs) -> Candidates:
    """The distinct (query, item) pairs of the entries (numbered by :func:`read_runs`)."""
    unit, item = np.divmod(runs.cand_keys, max(len(runs.items), 1))
    return Candidates(runs.cand, unit, item, np.bincount(unit, minlength=runs.n_queries))


def item_text_rank(items: pd.Index) -> np.ndarray:
    """Each item code's place in the items' string order (trec_eval's docno order, as ``prepare`` sorts)."""
    return text_ranks(items.to_numpy())


def fill_candidates(runs: Runs, cand: Candidates) -> tuple[Runs, Candidates]:
    """Every run holds every candidate of its query (ranx's Borda): the missing ones after its list.

    The added entries follow the run's own list, ordered by item id descending (rankframe's tie-break), and
    carry the value NaN (the normalisation gives them theirs). A query a run does not have at all is then a
    list made only of added entries.
    """
    n_sys, n_cand = len(runs.systems), len(cand.unit)
    present = np.zeros(n_sys * n_cand, dtype=bool)
    present[runs.sys.astype(np.int64) * n_cand + cand.code] = True
    s_add, c_add = np.divmod(np.flatnonzero(~present), n_cand)
    u_add, i_add = cand.unit[c_add], cand.item[c_add]
    g = s_add * runs.n_queries + u_add
    order = np.lexsort((-runs.text_rank[i_add], g))
    s_add, c_add, u_add, i_add, g = s_add[order], c_add[order], u_add[order], i_add[order], g[order]
    added = np.bincount(g, minlength=n_sys * runs.n_queries)
    pos_add = units.positions_in_lists(units.offsets_from_counts(added)) + runs.lengths.reshape(-1)[g]
    filled = replace(
        runs,
        sys=np.concatenate([runs.sys, s_add]),
        unit=np.concatenate([runs.unit, u_add]),
        item=np.concatenate([runs.item, i_add]),
        pos=np.concatenate([runs.pos, pos_add]),
        value=np.concatenate([runs.value, np.full(len(s_add), np.nan)]),
        lengths=np.broadcast_to(cand.per_query, runs.lengths.shape).copy(),
        rows=np.concatenate([runs.rows, np.full(len(s_add), -1, dtype=runs.rows.dtype)]),
        cand=np.concatenate([runs.cand, c_add]),
    )
    return filled, replace(cand, code=np.concatenate([cand.code, c_add]))


def _failure(column: str, rule: str, examples: pd.DataFrame | None = None) -> ValidationError:
    rows = 0 if examples is None else len(examples)
    shown = None if examples is None else examples.head(5)
    return ValidationError(
        [{"column": column, "rule": rule, "count": rows, "examples": shown}],
        table="runs to fuse",
    )
