"""The DuckDB engine: the same per-query values as the numpy engine, computed by rankframe's SQL macros.

One query per call: ``rf_prepare`` numbers the ranked positions of every unit (segments..., query) in one
window pass (from ``rank``, or from ``score`` with trec_eval's tie-break), then one GROUP BY evaluates every
requested measure with the aggregate building blocks ``rf_agg_<metric>`` (``sql/<metric>.sql``) and applies the
query-set policies with ``rf__apply_policy`` (``sql/evaluate.sql``). Skipped units give NULL and are dropped;
the policy ``"nan"`` gives NaN and is kept.

DuckDB sees one integer code per unit (``units.group_codes``, the grouping the numpy engine uses) instead of the
id columns, and the output takes the unit's ids from the input frame: ids keep their exact values and dtype
(categoricals, pyarrow dictionaries, mixed widths) on both engines. A ``duckdb.Error`` never escapes: the
macros' own errors become a ``ParameterError`` / ``ValidationError`` with their text, by the stable code that
starts it (``SQL_ERROR_CODES``), anything else a ``RankframeError`` that names the engine.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from .. import progress, units
from .. import sql as rf_sql
from ..columns import Columns
from ..declare import ENGINE_PARAMS, NOTHING_RELEVANT, SCORE_PARAMS, GainMap
from ..errors import ParameterError, RankframeError, ValidationError
from ..names import Measure
from ..table_rules import ranking_column
from .aggregate import metric_labels

_INPUT = "rf__input_df"
_VIEW = "rf__input"
_DB: dict[int, duckdb.DuckDBPyConnection] = {}  # by rf_sql.version(): a metric registered since needs a new one
_LOCK = threading.Lock()


def _cursor() -> duckdb.DuckDBPyConnection:
    """A fresh connection to one private in-memory database that has the macros installed (installed once)."""
    with _LOCK:
        version = rf_sql.version()
        if version not in _DB:
            _DB.clear()
            _DB[version] = rf_sql.install(duckdb.connect())
        return progress.configure_duckdb(_DB[version].cursor())


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

    The aggregates take no ``judged_only``: with ``judged_only=True`` they read the positions among the judged
    retrieved rows (``rf_jpos``, a window of :func:`build_sql`) instead.
    """
    params = tuple((n, v) for n, v in m.params if n not in ENGINE_PARAMS + SCORE_PARAMS)
    if m.kw.get("judged_only"):
        pos = "rf_jpos"
    args = [pos, grade] + [f"{name} := {_literal(v)}" for name, v in params]
    return f"rf_agg_{m.spec.name}({', '.join(args)})"


def nothing_relevant_sql(m: Measure, pos: str = "rf_pos", grade: str = "rf_g") -> str:
    """SQL for the no_relevant test of a measure, from its declared ``nothing_relevant`` (``false`` without one)."""
    if m.spec.nothing_relevant is None:
        return "false"
    kw = m.kw
    if kw.get("gains") is not None:  # mapped gains (nDCG gains=): nothing relevant = no ideal gain at all
        if kw.get("judged_only"):  # the ideal of the value's own rows: judged_only drops rows a map may give a gain
            pos = "rf_jpos"
        params = ", ".join(
            # like: nDCG's preset, already spread over gain and ideal (rf_agg_idcg takes no preset)
            f"{n} := {_literal(v)}"
            for n, v in m.params
            if n not in ("k", "like", *ENGINE_PARAMS, *SCORE_PARAMS)
        )
        return f"rf_agg_idcg({pos}, {grade}, {params}) = 0"
    template = NOTHING_RELEVANT[m.spec.nothing_relevant][1]
    return template.format(pos=pos, grade=grade, rel=_literal(kw.get("rel")), ideal=_literal(kw.get("ideal")))


def _windows(measures: Sequence[Measure], part: str) -> tuple[list[str], dict[int, str]]:
    """The window columns of the windowed measures over the unit ``part``, and the aggregate of each.

    A measure is windowed when its metric declares ``MetricSpec.sql_windows`` (ERR, nERR). One column per distinct
    window expression (ERR's running products per max_grade are shared by every cutoff and by nERR), ``rf__w<n>``.
    """
    cols: dict[str, str] = {}
    aggregates: dict[int, str] = {}
    for i, m in enumerate(measures):
        if m.spec.sql_windowed is None:
            continue
        literals = {name: _literal(v) for name, v in m.params}
        names = {}
        for key, template in m.spec.sql_windows:
            expr = template.format(part=part, **literals)
            names[key] = next((n for n, e in cols.items() if e == expr), f"rf__w{len(cols)}")
            cols[names[key]] = expr
        aggregates[i] = m.spec.sql_windowed.format(**literals, **names)
    return [f"{expr} AS {name}" for name, expr in cols.items()], aggregates


def _tied(measures: Sequence[Measure], order_by: str, keys: str) -> tuple[list[str], dict[int, str]]:
    """The tie-averaged gain columns of DCG/nDCG with ``ties="average"`` and the aggregate of each such measure.

    One window ``rf__tie_gain`` (``sql/dcg.sql``) per (rel, gain, gains, judged_only): the mean gain of the rows of
    the unit with the same score (with judged_only, of the rows it keeps: ``rf__judged_kept``). Ranks never tie:
    ordered by rank, the measures keep their plain aggregate.
    """
    cols: dict[str, str] = {}
    aggregates: dict[int, str] = {}
    if order_by != "score":
        return [], aggregates
    for i, m in enumerate(measures):
        kw = m.kw
        if kw.get("ties") != "average":
            continue
        judged = bool(kw.get("judged_only"))
        part = f"row({keys}, NOT rf__judged_kept(rf_g))" if judged else (f"row({keys})" if "," in keys else keys)
        args = ", ".join(_literal(kw[n]) for n in ("rel", "gain", "gains"))
        expr = f"rf__tie_gain({part}, score, rf_g, {args})"
        name = next((n for n, e in cols.items() if e == expr), f"rf__tg{len(cols)}")  # one window per expression
        cols[name] = expr
        pos = "rf_jpos" if judged else "rf_pos"
        k, base = _literal(kw["k"]), _literal(kw["log_base"])
        dcg = f"rf__agg_dcg({pos}, {name}, {k}, NULL, 'linear', {base}, NULL)"
        if m.spec.name == "ndcg":
            ideal = ", ".join(_literal(kw[n]) for n in ("rel", "gain", "ideal", "log_base", "gains"))
            dcg = f"rf__ratio({dcg}, rf__agg_idcg({pos}, rf_g, {k}, {ideal}))"
        aggregates[i] = dcg
    return [f"{expr} AS {name}" for name, expr in cols.items()], aggregates


def build_sql(
    measures: Sequence[Measure],
    order_by: str,
    policies: dict[str, str],
    source: str = _VIEW,
    segments: Sequence[str] = (),
) -> str:
    """The whole evaluation as one SQL query over the view ``source`` (columns query, item, rank|score, ...).

    The unit is (segments..., query); the DuckDB engine passes one integer code per unit as ``query``.
    A metric declared windowed (``MetricSpec.sql_windows``: ERR, nERR) takes its running products from windows
    over the prepared rows, every other metric is an aggregate ``rf_agg_<name>`` of one GROUP BY.
    """
    keys = ", ".join([*segments, "query"])
    part = "query" if not segments else f"row({keys})"
    windows, aggregates = _windows(measures, part)
    tie_windows, tie_aggregates = _tied(measures, order_by, keys)
    aggregates.update(tie_aggregates)
    values = ",\n  ".join(
        f"{aggregates.get(i) or measure_sql(m)} AS m{i}, {nothing_relevant_sql(m)} AS r{i}"
        for i, m in enumerate(measures)
    )
    pol = ", ".join(_literal(policies[p]) for p in ("no_relevant", "no_retrieved", "no_judged"))
    # a count (NumRel, ...) keeps its value on an empty list under no_retrieved='zero' (as the numpy engine)
    keeps = policies["no_retrieved"] == "zero"
    applied = ",\n  ".join(
        f"rf__apply_policy(m{i}, n_judged, {'greatest(n_ret, 1)' if m.spec.count and keeps else 'n_ret'}, r{i}, "
        f"{pol}) AS m{i}"
        for i, m in enumerate(measures)
    )
    seg_list = "[" + ", ".join(_literal(c) for c in segments) + "]"
    rows = (
        f"SELECT {keys}, rf_pos, rf_g{', score' if tie_windows else ''} "
        f"FROM rf_prepare('{source}', segments := {seg_list}, order_by := {_literal(order_by)})"
    )
    if any(m.kw.get("judged_only") for m in measures):
        # judged_only=True (trec_eval -J): the position among the kept retrieved rows of the unit (sql/prepare.sql
        # rf__judged_pos: NULL for a null or negative grade, which the measure then does not see as retrieved);
        # n_ret and the policies keep rf_pos
        windows = [*windows, f"rf__judged_pos({part}, rf_pos, rf_g) AS rf_jpos"]
    if windows:
        rows = f"SELECT *, {', '.join(windows)} FROM ({rows})"
    if tie_windows:
        rows = f"SELECT *, {', '.join(tie_windows)} FROM ({rows})"
    return f"""
WITH raw AS (
  SELECT {keys}, count(rf_g) AS n_judged, rf_agg_n_retrieved(rf_pos, order_by := {_literal(order_by)}) AS n_ret,
  {values}
  FROM ({rows})
  GROUP BY {keys}
), applied AS (
  SELECT {keys},
  {applied}
  FROM raw
)
UNPIVOT applied ON {", ".join(f"m{i}" for i in range(len(measures)))} INTO NAME rf__metric VALUE rf__value
"""


#: The stable code that starts the message of every ``error()`` call of rankframe's macros (``sql/*.sql``) and the
#: exception class it becomes in Python; the one place that maps the one to the other. A table rule may name its
#: column in brackets (``rf:table[item]: ``, else the failure's column is ``<table>``). The code is a promise to SQL
#: users (docs/sql.md "Errors"): rewording a message never changes its class;
#: tests/hostile/test_sql_error_codes.py holds every error() call of sql/ to a code of this table.
SQL_ERROR_CODES: dict[str, type[RankframeError]] = {
    "rf:param": ParameterError,  # a macro parameter outside its declared constraint
    "rf:table": ValidationError,  # the table (or list) breaks a rule of the data model
}

#: ``rf:<kind>[<column>]: `` at the start of a message (the column part optional)
SQL_ERROR_CODE = re.compile(r"(?P<code>rf:[a-z]+)(?:\[(?P<column>[^\]]*)\])?: ")

_INPUT_ERROR = "Invalid Input Error: "


def split_sql_error(text: str) -> tuple[str | None, str | None, str]:
    """``(code, column, message)`` of a macro's error text (DuckDB's ``Invalid Input Error: `` prefix allowed).

    ``code`` is None (and ``message`` the text as given) when the text does not start with a code of
    :data:`SQL_ERROR_CODES`.
    """
    body = text.removeprefix(_INPUT_ERROR)
    m = SQL_ERROR_CODE.match(body)
    if m is None or m["code"] not in SQL_ERROR_CODES:
        return None, None, text
    return m["code"], m["column"], body[m.end() :]


def translate_error(err: Exception) -> RankframeError:
    """A ``duckdb.Error`` as rankframe's exception (the macros' errors by their code, others naming the engine).

    A macro's message loses its code and keeps its text, in the class :data:`SQL_ERROR_CODES` gives the code; any
    other error (no code, or not an ``error()`` of the macros) is a ``RankframeError`` that names the engine.
    """
    text = str(err).strip()
    if isinstance(err, duckdb.InvalidInputException) and text.startswith(_INPUT_ERROR):
        code, column, message = split_sql_error(text)
        if code is not None:
            kind = SQL_ERROR_CODES[code]
            if issubclass(kind, ValidationError):
                return kind([{"column": column or "<table>", "rule": message, "count": 0, "examples": None}])
            return kind(message)
        text = text.removeprefix(_INPUT_ERROR)
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
    order_col = ranking_column(list(table.columns), columns)
    if order_col is None:
        raise ParameterError(f"the table needs a rank column {columns.rank!r} or a score column {columns.score!r}")
    order_name = "rank" if order_col == columns.rank else "score"
    groups = units.group_codes(table, [*by, columns.query])
    order_by = order_name
    dense = order_name == "rank" and (
        units.dense_lists(table, groups, columns.rank, columns.relevance, columns.item) is not None  # (validation's)
        or units.ranked_order(table, groups, columns.rank).dense
    )
    if dense:
        order_by = "position"  # ranks are already 1..n in every unit: skip the window sort
    try:
        src = pd.DataFrame(
            {
                "query": groups.codes,
                "item": table[columns.item],
                order_name: units.as_float(table[order_col]),
                "relevance": units.as_float(table[columns.relevance]),
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
        con.execute(f"CREATE TEMP VIEW {_VIEW} AS SELECT * FROM {_INPUT}")
        # execute, not sql(): a relation binds the query once more before it runs (planning is most of a small call)
        res = con.execute(build_sql(measures, order_by, policies)).df()
    except duckdb.Error as e:
        raise translate_error(e) from None
    finally:
        con.close()
    index = res["rf__metric"].str.slice(1).astype(np.int64).to_numpy()
    names = np.asarray([str(m) for m in measures], dtype=object)
    codes = res["query"].to_numpy(dtype=np.int64)
    order = np.lexsort((index, codes))  # units in key order (the codes are sorted keys), then metrics as asked
    out = groups.keys.take(codes[order]).reset_index(drop=True)
    out["metric"] = metric_labels(names[index[order]], out.index)
    out["value"] = res["rf__value"].to_numpy(dtype=np.float64)[order]
    return out[out_cols]
