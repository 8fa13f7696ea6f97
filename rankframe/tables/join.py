"""The one join of a run with its judgments (used by ``evaluate(qrels=...)``, ``read_trec`` and the CLI).

The rule (docs/decisions/0006-one-behaviour.md):

1. A retrieved row takes the grade of its (query, item) judgment; a row without one is unjudged (null).
2. The evaluation unit is (``by`` columns..., query). When ``by`` holds the system column (``Columns.system``,
   ``"system"`` by default, which ``read_trec`` writes), **every system is scored on every judged query**: a
   judged query a system did not retrieve is a unit with nothing retrieved (the ``no_retrieved`` policy decides
   what it counts as; the default ``"zero"`` is ``trec_eval -c``).
3. The other ``by`` columns describe queries: a unit keeps the segment values its query has in the run; a
   judged query that no run row mentions belongs to a null segment (shown as NaN), so it is never dropped
   silently.
4. Every unit gets one row per judged item it did not retrieve (null rank/score): what recall, AP's denominator
   and the ideal DCG need.

Nothing loops over queries: ids become integer codes once, judgments are laid out by query (CSR), and the
judged-but-not-retrieved rows of every unit are enumerated with ``np.repeat`` and marked off where retrieved.
:func:`read_trec` (TREC run files + a qrels file -> the long table) is this join over ``rankframe.io``'s readers;
it is also importable as ``rankframe.io.read_trec``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..core.columns import Columns, judgment_columns
from ..core.errors import ParameterError
from . import units
from .io._files import PathLike
from .io.trec import read_qrels_table, read_runs
from .schema import validate as validate_table


def _id_kind(col: pd.Series) -> str:
    """'number' or 'text' (or the dtype's name): run and qrels ids must be of the same kind to match."""
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return _id_kind(pd.Series(dtype.categories))
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_numeric_dtype(dtype):
        return "number"
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        if pd.api.types.is_object_dtype(dtype) and len(col):
            inferred = pd.api.types.infer_dtype(col, skipna=True)
            if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
                return "number"
        return "text"
    return str(dtype)


def check_id_kinds(run: pd.DataFrame, qrels: pd.DataFrame, run_cols: Columns, qrels_cols: Columns) -> None:
    """Raise when the run's and the qrels' query or item ids are of different kinds (1 never equals '1')."""
    if not len(run) or not len(qrels):
        return  # an empty side's dtype says nothing about its ids
    for what in ("query", "item"):
        a, b = getattr(run_cols, what), getattr(qrels_cols, what)
        ka, kb = _id_kind(run[a]), _id_kind(qrels[b])
        if ka != kb:
            raise ParameterError(
                f"the run's {what} ids (column {a!r}, {run[a].dtype}: e.g. {run[a].iloc[0]!r}) and the qrels' "
                f"{what} ids (column {b!r}, {qrels[b].dtype}: e.g. {qrels[b].iloc[0]!r}) are of different kinds "
                f"({ka} vs {kb}) and would never match; convert one side, e.g. "
                f"run[{a!r}].astype(str) or qrels[{b!r}].astype(run[{a!r}].dtype)",
                parameter="qrels",
                expected=f"{what} ids of the run's kind ({ka})",
                got=kb,
            )


def check_run_without_grades(present: Sequence[str], c: Columns) -> None:
    """A run joined with ``qrels=`` has no relevance column of its own (every face of the join)."""
    if c.relevance in present:
        raise ParameterError(
            f"the run table already has a relevance column {c.relevance!r}; pass either a single "
            "table with judgments or a run plus qrels=, not both",
            parameter="qrels",
            hint="pass either a single table with judgments or a run plus qrels=, not both",
        )


def join_qrels(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    columns: Columns | None = None,
    by: Sequence[str] = (),
    *,
    qrels_columns: Columns | None = None,
    validate: bool = True,
    allow_duplicates: bool = False,
) -> pd.DataFrame:
    """Join a run (query, item, rank or score[, segments]) with judgments (query, item, relevance).

    Returns the single long table of the data model (see the module docstring for the rule): the run's rows
    with their relevance (null = unjudged) plus one row with a null rank/score per judged item that a unit did
    not retrieve. Neither input is modified.

    Parameters
    ----------
    run : DataFrame
        The ranked lists: query, item, rank or score, and any segment/system columns. No relevance column.
    qrels : DataFrame
        The judgments: query, item, relevance (one row per judged (query, item)).
    columns : Columns, optional
        Column names of ``run`` (and of the output).
    by : sequence of str
        The segment columns of the evaluation; the system column among them is crossed with every judged query.
    qrels_columns : Columns or dict, optional
        Column names of ``qrels`` where they differ from the run's: the roles named replace ``columns``', the others
        are the run's (:func:`rankframe.columns.judgment_columns`); renamed to the run's in the output.
    validate, allow_duplicates : bool
        Check both tables first (duplicates are never allowed in the judgments).

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> run = pd.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "b", "a"], "rank": [1, 2, 1],
    ...                     "system": ["A", "A", "B"]})
    >>> qrels = pd.DataFrame({"query": ["q1", "q2"], "item": ["b", "c"], "relevance": [1, 1]})
    >>> out = rankframe.join_qrels(run, qrels, by=["system"])
    >>> print(out.sort_values(["system", "query", "item"]).to_string(index=False))
    query item  rank system  relevance
       q1    a   1.0      A        NaN
       q1    b   2.0      A        1.0
       q2    c   NaN      A        1.0
       q1    b   NaN      B        1.0
       q2    a   1.0      B        NaN
       q2    c   NaN      B        1.0
    """
    c = columns or Columns()
    qc = judgment_columns(c, qrels_columns, "join_qrels")
    by = list(by)
    check_run_without_grades(list(run.columns), c)
    if validate:
        validate_table(run, c, by=by, allow_duplicates=allow_duplicates, require_relevance=False, table="run table")
        validate_table(qrels, qc, allow_duplicates=False, table="qrels table", ranked=False)
    check_id_kinds(run, qrels, c, qc)
    judgments = pd.DataFrame(
        {c.query: qrels[qc.query], c.item: qrels[qc.item], c.relevance: qrels[qc.relevance]}
    ).reset_index(drop=True)
    return _join(run.reset_index(drop=True), judgments, c, by)


def _join(run: pd.DataFrame, judgments: pd.DataFrame, c: Columns, by: list[str]) -> pd.DataFrame:
    systems = [b for b in by if b == c.system]
    segments = [b for b in by if b != c.system]
    # judged queries, and the judgments laid out by query (CSR): judgment j of query q is row jrows[qstart[q] + t]
    judged_queries = pd.Index(pd.unique(judgments[c.query]))
    jq = judged_queries.get_indexer(pd.Index(judgments[c.query]))
    jrows = np.argsort(jq, kind="stable")
    qstart = units.offsets_from_counts(np.bincount(jq, minlength=len(judged_queries)))
    jpos = np.empty(len(jq), dtype=np.int64)
    jpos[jrows] = np.arange(len(jq)) - qstart[jq[jrows]]  # place of each judgment within its query's block

    # 1. grades of the retrieved rows: (query code, item code) keys, probed in the judgments' key index
    judged_items = pd.Index(pd.unique(judgments[c.item]))
    n_items = max(len(judged_items), 1)
    rq = judged_queries.get_indexer(pd.Index(run[c.query]))
    ri = judged_items.get_indexer(pd.Index(run[c.item]))
    jkey = pd.Index(jq.astype(np.int64) * n_items + judged_items.get_indexer(pd.Index(judgments[c.item])))
    hit = (rq >= 0) & (ri >= 0)
    matched = np.full(len(run), -1, dtype=np.int64)
    matched[hit] = jkey.get_indexer(pd.Index(rq[hit].astype(np.int64) * n_items + ri[hit]))
    grades = judgments[c.relevance].to_numpy(dtype=np.float64, na_value=np.nan)
    retrieved = run.assign(**{c.relevance: np.nan})
    if len(grades) == 0:
        return retrieved
    retrieved[c.relevance] = np.where(matched >= 0, grades[np.maximum(matched, 0)], np.nan)

    # 2. units: (system, described query) pairs; a described query is (segments..., query) as the run has it,
    #    plus each judged query no run row mentions, with null segments
    described_cols = [*segments, c.query]
    described = units.group_codes(run, described_cols) if len(run) else None
    a_keys = (
        described.keys if described is not None else pd.DataFrame({col: run[col].iloc[:0] for col in described_cols})
    )
    seen = np.zeros(len(judged_queries), dtype=bool)
    seen[rq[rq >= 0]] = True
    unseen = np.flatnonzero(~seen)
    if len(unseen):
        extra = pd.DataFrame(
            {
                **{
                    s: pd.Series([None] * len(unseen), dtype=run[s].dtype if _nullable(run[s]) else object)
                    for s in segments
                },
                c.query: judged_queries.take(unseen),
            }
        )
        a_keys = pd.concat([a_keys, extra], ignore_index=True)
    n_a = len(a_keys)
    a_query = judged_queries.get_indexer(pd.Index(a_keys[c.query]))  # -1: a query without judgments adds no rows
    a_of_row = described.codes.astype(np.int64) if described is not None else np.zeros(0, dtype=np.int64)
    if systems:
        sys_codes, sys_values = pd.factorize(run[c.system], sort=True)
        n_s = len(sys_values)
    else:
        sys_codes, sys_values, n_s = np.zeros(len(run), dtype=np.int64), None, 1
    unit_of_row = sys_codes.astype(np.int64) * n_a + a_of_row

    # 3. every (unit, judgment of its query) pair, minus the pairs the unit retrieved (or listed with a null rank)
    unit = np.arange(n_s * n_a, dtype=np.int64)
    unit_q = np.tile(a_query, n_s)
    unit = unit[unit_q >= 0]
    unit_q = unit_q[unit_q >= 0]
    n_j = (qstart[1:] - qstart[:-1])[unit_q]
    pair_start = units.offsets_from_counts(n_j)
    pair_unit = np.repeat(unit, n_j)
    pair_judgment = jrows[np.repeat(qstart[:-1][unit_q] - pair_start[:-1], n_j) + np.arange(pair_start[-1])]
    missing = np.ones(len(pair_unit), dtype=bool)
    found = matched >= 0
    if found.any():
        slot_of_unit = np.full(n_s * n_a, -1, dtype=np.int64)
        slot_of_unit[unit] = pair_start[:-1]
        missing[slot_of_unit[unit_of_row[found]] + jpos[matched[found]]] = False
    pair_unit, pair_judgment = pair_unit[missing], pair_judgment[missing]

    a_index = pair_unit % n_a
    added = {col: a_keys[col].take(a_index).reset_index(drop=True) for col in segments}
    if systems and sys_values is not None:
        added[c.system] = pd.Series(sys_values.take(pair_unit // n_a))
    added[c.query] = judgments[c.query].take(pair_judgment).reset_index(drop=True)
    added[c.item] = judgments[c.item].take(pair_judgment).reset_index(drop=True)
    added[c.relevance] = pd.Series(grades[pair_judgment])
    if not len(pair_judgment):
        return retrieved
    return pd.concat([retrieved, pd.DataFrame(added)], ignore_index=True)


def _nullable(col: pd.Series) -> bool:
    return not (isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub")


# ----------------------------------------------------------------------------------------------------------
# run + qrels files -> the long table


def read_trec(
    run_paths: PathLike | Iterable[PathLike], qrels_path: PathLike, *, keep_first_duplicate: bool = False
) -> pd.DataFrame:
    """Read TREC run file(s) and a qrels file into one long table, ready for ``df.rank_metrics``.

    Parameters
    ----------
    run_paths : path or list of paths
        One or more runs (``qid Q0 docno rank score tag``); several are evaluated side by side.
    qrels_path : path
        The judgments (``qid iteration docno relevance``).
    keep_first_duplicate : bool, default False
        See :func:`rankframe.io.read_trec_run`.

    Returns
    -------
    DataFrame with columns ``query``, ``item`` (strings), ``score`` (float64, NaN = judged but not
    retrieved), ``relevance`` (float64, NaN = retrieved but unjudged) and ``system`` (the run tag, see
    :func:`rankframe.io.read_trec_run`). The run and the judgments are joined by :func:`join_qrels`, the one join
    of ``evaluate(qrels=...)`` too: every system is scored on every judged query, so each system gets its own
    judged-but-not-retrieved rows. There is deliberately no ``rank`` column: rankframe then orders by score
    descending, ties by item descending, exactly as trec_eval (which ignores the run's rank column). Row order
    is unspecified.

    Examples
    --------
    >>> import rankframe
    >>> df = read_trec("examples/tiny.run", "examples/tiny.qrels")  # the bundled files (from the repository root)
    >>> rankframe.evaluate(df, ["AP", "nDCG@10"], by=["system"]).round(4)
      system   metric   value  n
    0   tiny       AP  0.3889  3
    1   tiny  nDCG@10  0.3675  3
    """
    run = read_runs(run_paths, keep_first_duplicate, with_rank=False)[0]
    qrels = read_qrels_table(qrels_path)[0]
    # both files are already checked (fields, numbers, duplicates) by the readers: join without re-validating
    joined = join_qrels(
        run.select(["query", "item", "score", "system"]).to_pandas(), qrels.to_pandas(), by=["system"], validate=False
    )
    return joined[["query", "item", "score", "relevance", "system"]]
