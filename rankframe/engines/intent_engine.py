"""The intent-aware engine: read a subtopic qrels, collapse it for the other metrics, run the family's kernels.

``split_qrels`` is the one reading of a ``qrels=`` table with a subtopic column: its rules (a subtopic id on every
row, one judgment per (query, subtopic, item)) and its collapsed form (the largest grade of each (query, item): what
every other metric reads). ``evaluate`` returns per-query values (the contract of the other engines), with the
query-set policies of :func:`rankframe.engines.numpy_engine.apply_policies`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..columns import Columns
from ..errors import ParameterError, ValidationError
from ..intent import history
from ..intent.declare import from_history, from_qrels, intent, needs_subtopics
from ..intent.lists import build
from ..names import Measure
from ..prepare import prepare
from ..registry import INTENT_KERNELS
from ..schema import not_numeric, numbers_as_float
from .numpy_engine import apply_policies

#: the two rules of a subtopic qrels (every face's words: the pandas reading below, ``rankframe.spark.intent``)
NULL_SUBTOPIC = "a subtopic id on every row of a subtopic qrels (null found)"
REPEATED_SUBTOPIC = "one judgment per (query, subtopic, item) (repeated rows found)"


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
            "grades (a history genre counts when its features= value is > 0)"
        )
    lists, groups, _ = beyond_engine.lists_of(df, columns, by, train=train, features=features, measures=asked)
    frames = [
        groups.keys.assign(metric=str(m), value=history.alpha_ndcg(lists, k=m.kw["k"], alpha=m.kw["alpha"]))
        for m in asked
    ]
    return pd.concat(frames, ignore_index=True)
