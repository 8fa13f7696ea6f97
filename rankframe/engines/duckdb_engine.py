"""The DuckDB engine: the same per-query values as the numpy engine, computed by rankframe's SQL macros.

One query per call: ``rf_prepare`` numbers the ranked positions of every unit (segments..., query) in one
window pass (from ``rank``, or from ``score`` with trec_eval's tie-break), then one GROUP BY evaluates every
requested measure with the aggregate building blocks ``rf_agg_<metric>`` (``sql/<metric>.sql``) and applies the
query-set policies with ``rf__apply_policy`` (``sql/evaluate.sql``). Skipped units give NULL and are dropped;
the policy ``"nan"`` gives NaN and is kept.
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
from ..errors import ParameterError
from ..names import Measure

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


def _ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
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
    """The aggregate expression ``rf_agg_<name>(pos, grade, param := value, ...)`` of one bound measure."""
    args = [pos, grade] + [f"{name} := {_literal(v)}" for name, v in m.params]
    return f"rf_agg_{m.spec.name}({', '.join(args)})"


def nothing_relevant_sql(m: Measure, pos: str = "rf_pos", grade: str = "rf_g") -> str:
    """SQL for the no_relevant test of a measure (``false`` for metrics that do not need relevant items)."""
    if not m.spec.needs_relevant:
        return "false"
    kw = m.kw
    if m.spec.name in ("ndcg", "nerr"):
        rel = kw.get("rel") if m.spec.name == "ndcg" else None
        return (f"rf_agg_nothing_relevant({pos}, {grade}, rel := {_literal(rel)}, graded := true, "
                f"ideal := {_literal(kw['ideal'])})")
    return f"rf_agg_nothing_relevant({pos}, {grade}, rel := {_literal(kw['rel'])})"


def build_sql(measures: Sequence[Measure], n_by: int, order_by: str, policies: dict[str, str]) -> str:
    """The whole evaluation as one SQL query over the view ``rf__input`` (columns rf__by<i>, query, ...)."""
    segs = [f"rf__by{i}" for i in range(n_by)]
    seg_list = "[" + ", ".join(_literal(s) for s in segs) + "]"
    keys = ", ".join([*(_ident(s) for s in segs), "query"])
    values = ",\n  ".join(f"{measure_sql(m)} AS m{i}, {nothing_relevant_sql(m)} AS r{i}"
                          for i, m in enumerate(measures))
    pol = ", ".join(_literal(policies[p]) for p in ("no_relevant", "no_retrieved", "no_judged"))
    applied = ",\n  ".join(f"rf__apply_policy(m{i}, n_judged, n_ret, r{i}, {pol}) AS m{i}"
                           for i in range(len(measures)))
    return f"""
WITH raw AS (
  SELECT {keys}, count(rf_g) AS n_judged, rf_agg_n_retrieved(rf_pos, order_by := {_literal(order_by)}) AS n_ret,
  {values}
  FROM rf_prepare('{_VIEW}', segments := {seg_list}, order_by := {_literal(order_by)})
  GROUP BY ALL
), applied AS (
  SELECT {keys},
  {applied}
  FROM raw
)
UNPIVOT applied ON {', '.join(f'm{i}' for i in range(len(measures)))} INTO NAME rf__metric VALUE rf__value
"""


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
    order_by = order_name
    if has_rank and keys.ranked_order(table, keys.group_codes(table, [*by, columns.query]), columns.rank).dense:
        order_by = "position"  # ranks are already 1..n in every unit: skip the window sort
    src = pd.DataFrame({**{f"rf__by{i}": table[c] for i, c in enumerate(by)},
                        "query": table[columns.query], "item": table[columns.item],
                        order_name: table[order_col], "relevance": table[columns.relevance]}, copy=False)
    # relevance must be numeric for DuckDB: nullable/object columns become float64 with NaN -> NULL
    src["relevance"] = pd.to_numeric(src["relevance"], errors="raise").astype("float64")
    src[order_name] = pd.to_numeric(src[order_name], errors="raise").astype("float64")
    con = _cursor()
    try:
        con.register(_INPUT, src)
        con.sql(f"CREATE TEMP VIEW {_VIEW} AS SELECT * FROM {_INPUT}")
        res = con.sql(build_sql(measures, len(by), order_by, policies)).df()
    finally:
        con.close()
    index = res["rf__metric"].str.slice(1).astype(np.int64).to_numpy()
    names = np.asarray([str(m) for m in measures], dtype=object)
    out = pd.DataFrame({**{c: res[f"rf__by{i}"] for i, c in enumerate(by)}, columns.query: res["query"]})
    for c in [*by, columns.query]:
        try:
            out[c] = out[c].astype(table[c].dtype)
        except (TypeError, ValueError):
            pass
    out["metric"] = names[index]
    out["value"] = res["rf__value"].astype("float64").to_numpy()
    out["_m"] = index
    out = out.sort_values([*by, columns.query, "_m"], kind="stable", na_position="last")
    return out.drop(columns="_m").reset_index(drop=True)[out_cols]
