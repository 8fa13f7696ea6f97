"""The intent-aware engine: read a subtopic qrels, collapse it for the other metrics, run the family's kernels.

``split_qrels`` is the one reading of a ``qrels=`` table with a subtopic column: its rules (a subtopic id on every
row, one judgment per (query, subtopic, item)) and its collapsed form (the largest grade of each (query, item): what
every other metric reads). ``evaluate`` returns per-query values (the contract of the other engines), with the
query-set policies of :func:`rankframe.engines.numpy_engine.apply_policies`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, ValidationError
from ..intent import history
from ..intent.declare import from_history, from_qrels, intent, needs_subtopics
from ..intent.lists import build
from ..measures.names import Measure
from ..measures.registry import INTENT_KERNELS
from ..tables.prepare import prepare
from ..tables.schema import not_numeric, numbers_as_float
from .numpy_engine import apply_policies

#: the rows (run rows + subtopic judgments) of one block of whole queries: a call whose tables have more is evaluated
#: block by block (:func:`query_blocks`), so its peak memory is bounded by a block's, not the table's (docs/speed.md)
BLOCK_ROWS = 2_000_000

#: the two rules of a subtopic qrels (every face's words: the pandas reading below, ``rankframe.spark.intent``)
NULL_SUBTOPIC = "a subtopic id on every row of a subtopic qrels (null found)"
REPEATED_SUBTOPIC = "one judgment per (query, subtopic, item) (repeated rows found)"


def blockable(df: pd.DataFrame, qrels: pd.DataFrame, measures: Sequence[Measure], by: Sequence[str]) -> bool:
    """Whether a call is evaluated in blocks of whole queries (:func:`query_blocks`).

    It is when its tables have more than :data:`BLOCK_ROWS` rows, it asks intent-aware measures read from a subtopic
    qrels, no ``by`` and no beyond-accuracy or recommender-form measure. Every value of these measures is a
    function of one query's rows and judgments alone, so a block of whole queries gives each query the value the
    whole table gives. ``by`` (segments, systems) is left whole: the join adds the judged queries a system did not
    retrieve from the systems of the whole run.
    """
    from ..beyond import arguments as beyond_arguments

    rest, asked = split(measures)
    return (
        not by
        and len(df) + len(qrels) > BLOCK_ROWS
        and bool(from_qrels(asked))
        and not any(from_history(m) for m in asked)
        and not beyond_arguments.split(rest)[1]
    )


def query_blocks(
    df: pd.DataFrame, qrels: pd.DataFrame, query: str, qrels_query: str, rows: int | None = None
) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """(run rows, judgments) of blocks of whole queries of about ``rows`` rows (:data:`BLOCK_ROWS`) each.

    The queries are numbered in their sorted order (in the order met where their ids do not sort); a block is a run
    of consecutive numbers, so a table sorted by query is cut into slices (no copy) and any other order is gathered
    by one stable sort of the block numbers, and the blocks' per-query rows follow each other in query order. A null
    query id is a query of its own (the table rules then name it). The codes are int32 (a million queries: 4 MB per
    million rows).
    """
    rows = BLOCK_ROWS if rows is None else rows
    codes, found = pd.factorize(df[query], use_na_sentinel=False)
    uniques = pd.Index(found)
    q_codes = uniques.get_indexer(qrels[qrels_query])
    unseen = q_codes < 0
    if unseen.any():  # judged queries the run never names
        extra, extra_uniques = pd.factorize(qrels[qrels_query][unseen], use_na_sentinel=False)
        q_codes[unseen] = len(uniques) + extra
        uniques = uniques.append(pd.Index(extra_uniques))
    number = np.arange(len(uniques), dtype=np.int32)
    try:
        number[uniques.argsort()] = number.copy()
    except TypeError:  # ids of kinds that do not compare: the order met
        pass
    run_numbers, q_numbers = number[codes], number[q_codes]
    del codes, q_codes, unseen
    n = len(uniques)
    size = np.bincount(run_numbers, minlength=n) + np.bincount(q_numbers, minlength=n)
    # a query starts in the block of its first row
    block_of_query = ((np.cumsum(size) - size) // max(rows, 1)).astype(np.int32)
    n_blocks = int(block_of_query[-1]) + 1 if n else 0
    cuts: list[tuple[np.ndarray | None, np.ndarray]] = []  # (gathering order or None: slices, block starts)
    for numbers in (run_numbers, q_numbers):
        block = block_of_query[numbers]
        if not (block[1:] >= block[:-1]).all():
            order = np.argsort(block, kind="stable")
            cuts.append((order, np.searchsorted(block[order], np.arange(n_blocks + 1))))
        else:
            cuts.append((None, np.searchsorted(block, np.arange(n_blocks + 1))))
        del block
    del run_numbers, q_numbers, numbers
    for b in range(n_blocks):
        if cuts[0][1][b] == cuts[0][1][b + 1] and cuts[1][1][b] == cuts[1][1][b + 1]:
            continue  # no query starts in this block (the one before holds a query of more rows than a block)
        parts = []
        for frame, (gather, at) in zip((df, qrels), cuts):
            lo, hi = int(at[b]), int(at[b + 1])
            parts.append(frame.iloc[lo:hi] if gather is None else frame.take(gather[lo:hi]))
        yield parts[0], parts[1]


def in_order(blocks: Sequence[pd.DataFrame], query: str) -> bool:
    """Whether each block's last query sorts before the next block's first (blocks of per-query rows in order)."""
    ids = [(b[query].iloc[0], b[query].iloc[-1]) for b in blocks if len(b)]
    try:
        return all(bool(last < first) for (_, last), (first, _) in zip(ids, ids[1:]))
    except TypeError:  # ids that do not compare: the rows are sorted as any per-query rows
        return False


def split(measures: Sequence[Measure]) -> tuple[list[Measure], list[Measure]]:
    """(the other measures, the intent-aware measures) of a list of measures, each in the order asked."""
    asked = intent(measures)
    return [m for m in measures if m not in asked], asked


def split_qrels(
    qrels: pd.DataFrame, columns: Columns, measures: Sequence[Measure]
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(the qrels every other metric reads, the subtopic judgments or None) of a ``qrels=`` table.

    Without the subtopic column the table is returned as it is (an intent-aware measure asked is then an error).
    With it, each (query, item) keeps its largest grade across subtopics (docs/diversity.md, "Other metrics on a
    subtopic qrels"): a table without a repeated (query, item), which the join and the table rules then read as
    any qrels. A null subtopic id, a repeated (query, subtopic, item) or a grade column that is not numeric (text:
    the "relevance must be numeric" rule of every road, its unparsable values named; a null grade is unjudged) is a
    :class:`ValidationError`.
    """
    c = columns
    if c.subtopic not in qrels.columns:
        if from_qrels(measures):
            raise needs_subtopics(measures, c.subtopic, [str(x) for x in qrels.columns])
        return qrels, None
    qrels = numbers_as_float(qrels, c)  # a decimal grade is a number (a copy when it converts: never the caller's)
    failures = []
    if c.relevance in qrels.columns:  # a text grade is refused as on every road (never coerced to unjudged)
        text = not_numeric(qrels, c.relevance, "relevance")
        if text is not None:
            failures.append(text)
    null = qrels[c.subtopic].isna()
    if null.any():
        failures.append(
            {
                "column": c.subtopic,
                "rule": NULL_SUBTOPIC,
                "count": int(null.sum()),
                "examples": qrels[null].head(5),
            }
        )
    keys = [x for x in (c.query, c.subtopic, c.item) if x in qrels.columns]
    repeated = qrels.duplicated(keys, keep=False) if len(keys) == 3 else pd.Series(False, index=qrels.index)
    if repeated.any():
        failures.append(
            {
                "column": c.subtopic,
                "rule": REPEATED_SUBTOPIC,
                "count": int(repeated.sum()),
                "examples": qrels[repeated].head(5),
            }
        )
    if failures:
        raise ValidationError(failures, table="qrels table")
    if len(keys) < 3 or c.relevance not in qrels.columns:
        return qrels.drop(columns=[c.subtopic]), None  # the join names the missing column in its words
    sub = qrels[[c.query, c.subtopic, c.item, c.relevance]]
    others = [x for x in qrels.columns if x not in (c.subtopic, c.relevance)]
    collapsed = qrels.groupby(others, sort=False, dropna=False)[c.relevance].max().reset_index()
    return collapsed[[x for x in qrels.columns if x != c.subtopic]], sub


def evaluate(
    df: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    policies: dict[str, str],
    sub: pd.DataFrame,
) -> pd.DataFrame:
    """Per-query values ``[*by, query, metric, value]`` of the intent-aware measures on a validated, joined table."""
    prep = prepare(df, columns, by)  # the units and the counts the query-set policies read
    lists = build(df, sub, columns, list(by))
    frames = []
    for m in from_qrels(measures):
        values, nothing_relevant = INTENT_KERNELS[m.spec.name](lists, **m.kw)
        values, keep = apply_policies(prep, values, nothing_relevant, policies)
        frames.append(prep.units.iloc[keep].assign(metric=str(m), value=values[keep]))
    return pd.concat(frames, ignore_index=True)


def evaluate_history(
    df: pd.DataFrame, measures: Sequence[Measure], columns: Columns, by: Sequence[str], train: object, features: object
) -> pd.DataFrame:
    """Per-query values of the recommender form (``like='informfully'``) from ``train=`` and ``features=``.

    The inputs are read and checked by the beyond-accuracy family's one reading (``beyond_engine.lists_of``); no
    query-set policy applies (no judgments: a query without history genres is NaN, as the family's metrics).
    """
    from . import beyond_engine

    asked = [m for m in measures if from_history(m)]
    thresholds = [str(m) for m in asked if m.kw["rel"] != 1]
    if thresholds:  # no grades in this form: a genre of the history counts when its features= value is > 0
        raise ParameterError(
            f"{', '.join(thresholds)}: rel= is a grade threshold of a subtopic qrels; like='informfully' reads no "
            "grades (a history genre counts when its features= value is > 0)",
            owner=next(m.spec.canonical for m in asked if m.kw["rel"] != 1),
            parameter="rel",
            got=next(m.kw["rel"] for m in asked if m.kw["rel"] != 1),
        )
    lists, groups, _ = beyond_engine.lists_of(df, columns, by, train=train, features=features, measures=asked)
    frames = [
        groups.keys.assign(metric=str(m), value=history.alpha_ndcg(lists, k=m.kw["k"], alpha=m.kw["alpha"]))
        for m in asked
    ]
    return pd.concat(frames, ignore_index=True)
