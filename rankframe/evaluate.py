"""``rankframe.evaluate``: validate, join judgments, pick an engine, aggregate — for any engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from . import keys
from .columns import Columns
from .errors import ParameterError, parameter_error
from .names import Measure, parse
from .registry import bind_policies
from .schema import validate as validate_table

ENGINES = ("pandas", "duckdb")


def _as_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    return list(by)


def _measures(metrics: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    if isinstance(metrics, (str, Measure)):
        metrics = [metrics]
    out = [parse(m) for m in metrics]
    if not out:
        raise ParameterError("The 'metrics' parameter of evaluate must name at least one metric. Got [] instead.")
    return out


def evaluate(
    df: pd.DataFrame,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    columns: Columns | None = None,
    qrels: pd.DataFrame | None = None,
    validate: bool = True,
    engine: str = "pandas",
    allow_duplicates: bool = False,
    no_relevant: str = "zero",
    no_retrieved: str = "zero",
    no_judged: str = "skip",
) -> pd.DataFrame:
    """Evaluate ranking metrics on a long-format table; return a tidy frame.

    Parameters
    ----------
    df : DataFrame
        One row per (query, item) with ``query``, ``item``, ``rank`` (or ``score``), ``relevance`` columns
        (names configurable through ``columns``). Rows with a null rank are judged but not retrieved; rows with a
        null relevance are unjudged. Never modified.
    metrics : str or list of str
        Metric names such as ``"AP@10"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"map@10"``, ``"RR"``
        (see ``docs/metrics.md``).
    by : str or list of str, optional
        Segment columns; the unit of evaluation becomes (segment values, query).
    per_query : bool, default False
        Return one value per (segment, query) instead of the mean per segment.
    columns : Columns, optional
        Column names of ``df`` (and ``qrels``).
    qrels : DataFrame, optional
        Separate judgments (query, item, relevance) for a run table without a relevance column; gives the same
        results as the single-table form. Queries only in ``qrels`` count as "nothing retrieved" when ``by`` is
        not given; with ``by`` they belong to no segment and are left out.
    validate : bool, default True
        Check the table first (all rules at once, one :class:`~rankframe.ValidationError`).
    engine : {"pandas", "duckdb"}
        Where to compute; both give the same frame.
    allow_duplicates : bool, default False
        Keep repeated (query, item) rows as separate list entries instead of rejecting them.
    no_relevant, no_retrieved, no_judged : {"zero", "nan", "skip"}
        Query-set policies (defaults: "zero", "zero", "skip"); see ``docs/metrics.md``.

    Returns
    -------
    DataFrame
        Columns ``[*by, <query column> (only with per_query), "metric", "value"]``; ``metric`` is the canonical
        metric string. Means leave NaN values out.

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 2, 3],
    ...                    "relevance": [0, 1, 1]})
    >>> rankframe.evaluate(df, ["P@2", "AP"])
      metric     value
    0    P@2  0.500000
    1     AP  0.583333
    """
    columns = columns or Columns()
    by = _as_list(by)
    measures = _measures(metrics)
    policies = bind_policies(no_relevant=no_relevant, no_retrieved=no_retrieved, no_judged=no_judged)
    if engine not in ENGINES:
        raise parameter_error("evaluate", "engine", "one of " + ", ".join(map(repr, ENGINES)), engine)
    if qrels is not None:
        df = join_qrels(df, qrels, columns, by, validate=validate, allow_duplicates=allow_duplicates)
    with keys.shared():
        if validate:
            validate_table(df, columns, by=by, allow_duplicates=allow_duplicates)
        if engine == "duckdb":
            from .engines import duckdb_engine as eng
        else:
            from .engines import numpy_engine as eng
        values = eng.evaluate(df, measures, columns, by, per_query, policies)
    from .engines.aggregate import mean_per_segment, order_per_query

    names = [str(m) for m in measures]
    if per_query:
        return order_per_query(values, by, columns.query, names)
    return mean_per_segment(values, by, names)


def join_qrels(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    columns: Columns | None = None,
    by: Sequence[str] = (),
    *,
    validate: bool = True,
    allow_duplicates: bool = False,
) -> pd.DataFrame:
    """Join a run (query, item, rank or score[, segments]) with judgments (query, item, relevance).

    Returns the single long table of the data model: retrieved rows with their relevance (null = unjudged)
    plus one row with a null rank/score per judged item that a unit did not retrieve. Without ``by``, queries
    that only the judgments have become units with nothing retrieved.
    """
    c = columns or Columns()
    by = list(by)
    if c.relevance in run.columns:
        raise ParameterError(f"the run table already has a relevance column {c.relevance!r}; pass either a single "
                             "table with judgments or a run plus qrels=, not both")
    if validate:
        validate_table(run, c, by=by, allow_duplicates=allow_duplicates, require_relevance=False)
        validate_table(qrels.assign(**{c.rank: float("nan")}), c,
                       allow_duplicates=False)
    judgments = qrels[[c.query, c.item, c.relevance]]
    retrieved = run.merge(judgments, on=[c.query, c.item], how="left")
    units = run[[*by, c.query]].drop_duplicates()
    judged_units = units.merge(judgments, on=c.query, how="inner")
    seen = run[[*by, c.query, c.item]].assign(_seen=True)
    missing = judged_units.merge(seen, on=[*by, c.query, c.item], how="left")
    missing = missing[missing["_seen"].isna()].drop(columns="_seen")
    parts = [retrieved, missing]
    if not by:
        parts.append(judgments[~judgments[c.query].isin(run[c.query].unique())])
    out = pd.concat(parts, ignore_index=True)
    return out
