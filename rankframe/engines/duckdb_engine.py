"""The DuckDB engine: the same per-query values as the numpy engine, computed by rankframe's SQL macros.

One query per call: ``rf_prepare`` numbers the ranked positions of every unit (segments..., query) in one
window pass (from ``rank``, or from ``score`` with trec_eval's tie-break), then one GROUP BY evaluates every
requested measure with the aggregate building blocks ``rf_agg_<metric>`` (``sql/<metric>.sql``) and applies the
query-set policies with ``rf__apply_policy`` (``sql/evaluate.sql``). Skipped units give NULL and are dropped;
the policy ``"nan"`` gives NaN and is kept.

DuckDB sees one integer code per unit (``keys.group_codes``, the grouping the numpy engine uses) instead of the
id columns, and the output takes the unit's ids from the input frame: ids keep their exact values and dtype
(categoricals, pyarrow dictionaries, mixed widths) on both engines. A ``duckdb.Error`` never escapes: the
macros' own errors become a ``ParameterError`` / ``ValidationError`` with their text, anything else a
``RankframeError`` that names the engine.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from .. import keys
from .. import sql as rf_sql
from ..columns import Columns
from ..errors import ParameterError, RankframeError, ValidationError
from ..names import Measure
from ..registry import GainMap

_INPUT = "rf__input_df"
_VIEW = "rf__input"
_DB: duckdb.DuckDBPyConnection | None = None
_LOCK = threading.Lock()


def _cursor() -> duckdb.DuckDBPyConnection:
    """A fresh connection to one private in-memory database that has the macros installed (installed once)."""
    global _DB
    with _LOCK:
        if _DB is None:
            _DB = rf_sql.install(duckdb.connect())
        return _DB.cursor()


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, GainMap):  # gains={grade: gain}: a DuckDB MAP of doubles
        pairs = ", ".join(f"{_literal(float(g))}: {_literal(float(v))}" for g, v in value)
        return f"MAP {{{pairs}}}" if pairs else "CAST(MAP {} AS MAP(DOUBLE, DOUBLE))"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    v = float(value)
    if not math.isfinite(v):
        raise ParameterError(f"a metric parameter must be finite, got {value!r}")
    return repr(v)


def measure_sql(m: Measure, pos: str = "rf_pos", grade: str = "rf_g") -> str:
    """The aggregate expression ``rf_agg_<name>(pos, grade, param := value, ...)`` of one bound measure.

    ``judged_only=True`` reads the positions among the judged retrieved rows (``rf_jpos``, see :func:`build_sql`)
    instead of passing the flag, whose list form in the macro is slower.
    """
    params = tuple((n, v) for n, v in m.params if n != "judged_only")
    if m.kw.get("judged_only"):
        pos = "rf_jpos"
    args = [pos, grade] + [f"{name} := {_literal(v)}" for name, v in params]
    return f"rf_agg_{m.spec.name}({', '.join(args)})"


def nothing_relevant_sql(m: Measure, pos: str = "rf_pos", grade: str = "rf_g") -> str:
    """SQL for the no_relevant test of a measure (``false`` for metrics that do not need relevant items)."""
    if not m.spec.needs_relevant:
        return "false"
    kw = m.kw
    if m.spec.name == "ndcg" and kw["gains"] is not None:  # mapped gains: no ideal gain at all
        return f"{measure_sql(m, pos, grade).replace('rf_agg_ndcg(', 'rf_agg_idcg(', 1)} = 0"
    if m.spec.name in ("ndcg", "nerr"):
        rel = kw.get("rel") if m.spec.name == "ndcg" else None
        return (
            f"rf_agg_nothing_relevant({pos}, {grade}, rel := {_literal(rel)}, graded := true, "
            f"ideal := {_literal(kw['ideal'])})"
        )
    return f"rf_agg_nothing_relevant({pos}, {grade}, rel := {_literal(kw['rel'])})"


def build_sql(measures: Sequence[Measure], order_by: str, policies: dict[str, str]) -> str:
    """The whole evaluation as one SQL query over the view ``rf__input`` (columns query = unit code, item, ...)."""
    values = ",\n  ".join(
        f"{measure_sql(m)} AS m{i}, {nothing_relevant_sql(m)} AS r{i}" for i, m in enumerate(measures)
    )
    pol = ", ".join(_literal(policies[p]) for p in ("no_relevant", "no_retrieved", "no_judged"))
    applied = ",\n  ".join(
        f"rf__apply_policy(m{i}, n_judged, n_ret, r{i}, {pol}) AS m{i}" for i in range(len(measures))
    )
    source = f"rf_prepare('{_VIEW}', order_by := {_literal(order_by)})"
    if any(m.kw.get("judged_only") for m in measures):
        # judged_only=True (trec_eval -J): the position among the judged retrieved rows of the unit (NULL for the
        # unjudged ones, which the measure then does not see as retrieved); n_ret and the policies keep rf_pos
        source = (
            "(SELECT *, CASE WHEN rf_pos IS NOT NULL AND rf_g IS NOT NULL THEN count(rf_g) OVER (PARTITION BY query "
            f"ORDER BY rf_pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) END AS rf_jpos FROM {source})"
        )
    return f"""
WITH raw AS (
  SELECT query, count(rf_g) AS n_judged, rf_agg_n_retrieved(rf_pos, order_by := {_literal(order_by)}) AS n_ret,
  {values}
  FROM {source}
  GROUP BY query
), applied AS (
  SELECT query,
  {applied}
  FROM raw
)
UNPIVOT applied ON {", ".join(f"m{i}" for i in range(len(measures)))} INTO NAME rf__metric VALUE rf__value
"""


#: the first words of the messages of the macros' own error() calls that are about the table, not a parameter
_TABLE_RULES = {
    "item must be unique": "item",
    "order_by := 'position' needs ranks": "rank",
    "The table has column(s) named like": "<table>",
}


def translate_error(err: Exception) -> RankframeError:
    """A ``duckdb.Error`` as rankframe's exception: the macros' messages keep their text, others name the engine."""
    text = str(err).strip()
    prefix = "Invalid Input Error: "
    if isinstance(err, duckdb.InvalidInputException) and text.startswith(prefix):
        text = text[len(prefix) :]
        if text.startswith("The '") and " parameter of " in text or text.startswith("gain := 'exponential'"):
            return ParameterError(text)
        for start, column in _TABLE_RULES.items():
            if text.startswith(start):
                return ValidationError([{"column": column, "rule": text, "count": 0, "examples": None}])
    return RankframeError(f"the DuckDB engine (engine='duckdb') failed: {text}")


def evaluate(
    table: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    per_query: bool,  # noqa: ARG001 - the caller aggregates; accepted for the shared engine interface
    policies: dict[str, str],
) -> pd.DataFrame:
    """Per-query values as a tidy frame ``[*by, query, metric, value]`` (see ``docs/metrics.md``)."""
    by = list(by)
    measures = list(measures)
    out_cols = [*by, columns.query, "metric", "value"]
    if not measures:
        return pd.DataFrame(columns=out_cols)
    has_rank = columns.rank in table.columns
    if not has_rank and columns.score not in table.columns:
        raise ParameterError(f"the table needs a rank column {columns.rank!r} or a score column {columns.score!r}")
    order_col = columns.rank if has_rank else columns.score
    order_name = "rank" if has_rank else "score"
    groups = keys.group_codes(table, [*by, columns.query])
    order_by = order_name
    if has_rank and keys.ranked_order(table, groups, columns.rank).dense:
        order_by = "position"  # ranks are already 1..n in every unit: skip the window sort
    try:
        src = pd.DataFrame(
            {
                "query": groups.codes,
                "item": table[columns.item],
                order_name: keys.as_float(table[order_col]),
                "relevance": keys.as_float(table[columns.relevance]),
            },
            copy=False,
        )
    except (TypeError, ValueError) as e:  # only reachable with validate=False
        raise RankframeError(
            f"the DuckDB engine (engine='duckdb') needs numeric {order_col!r} and {columns.relevance!r} columns: {e}"
        ) from None
    con = _cursor()
    try:
        con.register(_INPUT, src)
        con.sql(f"CREATE TEMP VIEW {_VIEW} AS SELECT * FROM {_INPUT}")
        res = con.sql(build_sql(measures, order_by, policies)).df()
    except duckdb.Error as e:
        raise translate_error(e) from None
    finally:
        con.close()
    index = res["rf__metric"].str.slice(1).astype(np.int64).to_numpy()
    names = np.asarray([str(m) for m in measures], dtype=object)
    codes = res["query"].to_numpy(dtype=np.int64)
    order = np.lexsort((index, codes))  # units in key order (the codes are sorted keys), then metrics as asked
    out = groups.keys.take(codes[order]).reset_index(drop=True)
    out["metric"] = names[index[order]]
    out["value"] = res["rf__value"].to_numpy(dtype=np.float64)[order]
    return out[out_cols]
