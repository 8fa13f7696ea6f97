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

from .. import units
from ..columns import Columns
from ..errors import ValidationError
from ..prepare import _order_by_score, text_ranks
from ..table_rules import ranking_column


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


def read_runs(df: pd.DataFrame, c: Columns, depth: int | None, systems: list | None = None) -> Runs:
    """The entries of every run of ``df`` (system column ``c.system``), cut at ``depth``.

    ``systems``: the sorted systems of the whole table when ``df`` is a part of it holding whole queries
    (rankframe.spark.fuse's buckets, whose whole-table checks ran before); a system may then have no entries here.
    """
    given = systems is not None
    if systems is None:
        sys_codes, found = pd.factorize(df[c.system], sort=True)
        systems = list(found)
    else:
        sys_codes = pd.Categorical(df[c.system], categories=systems).codes
    if (sys_codes < 0).any():
        raise _failure(c.system, "the system column must not be null", df.loc[sys_codes < 0])
    queries = units.group_codes(df, [c.query])
    item_codes, items = units.item_factors(df, c.item)
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
        rows, offsets, _ = _order_by_score(df, groups, c)
        value, has_scores = score[rows], True
    lengths = np.diff(offsets)
    empty = np.flatnonzero(lengths.reshape(n_sys, n_q).sum(axis=1) == 0)
    if len(empty) and not given:
        bad = [str(systems[int(i)]) for i in empty]
        raise _failure(
            c.system,
            f"system(s) {bad} rank nothing: every row has a null {order_col!r} (a run needs a score or a rank)",
        )
    sys, unit = np.divmod(groups.codes[rows], n_q)
    item = item_codes[rows]
    key = groups.codes[rows].astype(np.int64) * max(len(items), 1) + item
    if units.any_repeat(key):
        raise _failure(c.item, "items must be unique within each (system, query) run")
    pos = units.positions_in_lists(offsets)
    runs = Runs(
        list(systems), n_q, sys, unit, item, pos, value.astype(np.float64, copy=False), lengths.reshape(n_sys, n_q),
        queries.codes, item_codes, items, has_scores,
    )  # fmt: skip
    return runs if depth is None else cut(runs, depth)


def cut(runs: Runs, depth: int) -> Runs:
    """Each list cut to its first ``depth`` entries."""
    keep = runs.pos <= depth
    return replace(
        runs,
        sys=runs.sys[keep],
        unit=runs.unit[keep],
        item=runs.item[keep],
        pos=runs.pos[keep],
        value=runs.value[keep],
        lengths=np.minimum(runs.lengths, depth),
    )


@dataclass(frozen=True)
class Candidates:
    """The items of each query retrieved by at least one run: the fused run's rows."""

    code: np.ndarray  # candidate code of every entry
    unit: np.ndarray  # query code per candidate (candidates sorted by query, then item code)
    item: np.ndarray  # item code per candidate
    per_query: np.ndarray  # number of candidates of each query (N)


def candidates(runs: Runs) -> Candidates:
    """Number the distinct (query, item) pairs of the entries."""
    n_items = max(len(runs.items), 1)
    keys, code = np.unique(runs.unit.astype(np.int64) * n_items + runs.item, return_inverse=True)
    unit, item = np.divmod(keys, n_items)
    return Candidates(code.reshape(-1), unit, item, np.bincount(unit, minlength=runs.n_queries))


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
    order = np.lexsort((-item_text_rank(runs.items)[i_add], g))
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
    )
    return filled, replace(cand, code=np.concatenate([cand.code, c_add]))


def _failure(column: str, rule: str, examples: pd.DataFrame | None = None) -> ValidationError:
    rows = 0 if examples is None else len(examples)
    shown = None if examples is None else examples.head(5)
    return ValidationError(
        [{"column": column, "rule": rule, "count": rows, "examples": shown}],
        table="runs to fuse",
    )
