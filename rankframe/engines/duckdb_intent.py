"""The intent-aware measures on the DuckDB engine: the set-based kernel ``rf__intent_values`` of ``sql/intent.sql``.

The same contract as :func:`rankframe.engines.intent_engine.evaluate` (per-query values ``[*by, query, metric,
value]`` with the query-set policies applied by the numpy engine's one rule), the arithmetic done by DuckDB. The
input is read by the family's one reading (``intent_engine.split_qrels`` before, :func:`rankframe.intent.lists.build`
for the codes): DuckDB sees integer codes for the units, queries, items and subtopics, each item's rank in the text
order (the tie rule of the ranking and of the greedy ideal), and the rank or score as it is. One query per call: one
``rf__intent_values`` per distinct (k, alpha, beta, rel, like) of the measures asked, every measure of the family a
column of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..intent.declare import ALPHA, BETA, from_qrels
from ..intent.lists import build, series_terms
from ..measures.names import Measure
from ..tables import units
from ..tables.prepare import prepare
from ..tables.rules import ranking_column
from .duckdb_engine import _cursor, _literal, translate_error
from .numpy_engine import apply_policies

_RUN = "rf__intent_run"
_SUB = "rf__intent_sub"
_PARAMS = "rf__intent_params"


def _group(m: Measure) -> tuple:
    """The parameter group ``(k, alpha, beta, rel, like)`` of a measure (k None: 0; a default for an unread one).

    A measure without ``alpha`` or ``beta`` takes the declared default (:data:`ALPHA`, :data:`BETA`), never read.
    """
    kw = m.kw
    return (kw["k"] or 0, kw.get("alpha", ALPHA.default), kw.get("beta", BETA.default), kw["rel"], kw["like"])


def values_sql(order_by: str) -> str:
    """The one query: ``rf__intent_values`` of every parameter group of the registered params table."""
    return f"SELECT * FROM rf__intent_values('{_RUN}', '{_SUB}', '{_PARAMS}', {_literal(order_by)})"


def evaluate(
    df: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    policies: dict[str, str],
    sub: pd.DataFrame,
) -> pd.DataFrame:
    """Per-query values ``[*by, query, metric, value]`` of the intent-aware measures on a validated, joined table."""
    c = columns
    asked = from_qrels(measures)
    prep = prepare(df, c, by)  # the units and the counts the query-set policies read
    lists = build(df, sub, c, list(by))
    codes = units.group_codes(df, [*by, c.query]).codes
    order_col = ranking_column(list(df.columns), c)
    order_by = "rank" if order_col == c.rank else "score"
    item_rank = lists.item_rank
    run = pd.DataFrame(
        {
            "unit": codes.astype(np.int64),
            "query": lists.unit_query[codes].astype(np.int64),
            "item": lists.row_item.astype(np.int64),
            "trank": item_rank[lists.row_item].astype(np.int64),
            "ord": units.as_float(df[order_col]),
        }
    )
    s = lists.sub
    judged = pd.DataFrame(
        {
            "query": s["query"].to_numpy(dtype=np.int64),
            "subtopic": s["subtopic"].to_numpy(dtype=np.int64),
            "item": s["item"].to_numpy(dtype=np.int64),
            "trank": item_rank[s["item"].to_numpy()].astype(np.int64),
            "grade": s["grade"].to_numpy(dtype=np.float64),
        }
    )
    groups = list(dict.fromkeys(_group(m) for m in asked))
    longest = int(lists.n_retrieved.max(initial=0))
    params = pd.DataFrame(groups, columns=["k", "alpha", "beta", "rel", "lk"]).astype(
        {"k": np.int64, "alpha": np.float64, "beta": np.float64, "rel": np.float64, "lk": object}
    )
    params["lk"] = params["lk"].fillna("").astype(str)  # '' = no preset: a column of text for every DuckDB version
    params.insert(0, "g", np.arange(len(groups), dtype=np.int64))
    params["terms"] = np.asarray([series_terms(a, longest, k or None) for k, a, *_ in groups], dtype=np.int64)
    con = _cursor()
    try:
        con.register(_RUN, run)
        con.register(_SUB, judged)
        con.register(_PARAMS, params)
        res = con.execute(values_sql(order_by)).df()
    except duckdb.Error as e:
        raise translate_error(e) from None
    finally:
        con.close()
    frames = []
    for m in asked:
        rows = res[res["g"] == groups.index(_group(m))]
        unit = rows["unit"].to_numpy(dtype=np.int64)
        values = np.zeros(lists.n)
        values[unit] = rows[m.spec.name].to_numpy(dtype=np.float64)
        n_sub = np.zeros(lists.n)
        n_sub[unit] = rows["n_sub"].to_numpy(dtype=np.float64)
        values, keep = apply_policies(prep, values, n_sub == 0, policies)
        frames.append(prep.units.iloc[keep].assign(metric=str(m), value=values[keep]))
    return pd.concat(frames, ignore_index=True)
