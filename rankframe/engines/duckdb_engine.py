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

import re
import threading
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from .. import sql as rf_sql
from ..core import progress
from ..core.columns import Columns
from ..core.declare import ENGINE_PARAMS, SCORE_PARAMS, sql_literal
from ..core.errors import ParameterError, RankframeError, ValidationError
from ..measures import registry
from ..measures.names import Measure
from ..stats.aggregate import metric_labels
from ..tables import units
from ..tables.rules import ranking_column

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


_literal = sql_literal  # the one writer of values into SQL (rankframe.declare.sql_literal)


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


#: an identifier of a declared expression: a quoted text (kept), ``<alias>.<column>`` (a prepared column), a call
#: (kept), a named argument (kept) or a bare name (a parameter of the table macros, replaced by the measure's value)
_TOKEN = re.compile(r"'(?:[^']|'')*'|(?P<alias>\b[wxyz]\.)?(?P<name>\b[A-Za-z_]\w*)(?P<call>\s*(?:\(|:=))?")


def _sql_value(param: Any, value: Any) -> str:
    """A parameter's value as a typed SQL literal: the type the table macros normalise it to (rf__per_query_ok)."""
    return param.constraint.sql_value(value)


class _Columns:
    """The columns one evaluation computes from the declared wiring, each distinct expression once.

    ``levels[0]``: the prepared windows (``rf:prep``), ``levels[1]``: the per-row terms (``rf:row``).
    """

    def __init__(self, part: str, order_by: str) -> None:
        self.part, self.order_by = part, order_by
        self.levels: list[dict[str, str]] = [{}, {}]
        self.score = False
        w = rf_sql.wiring()
        self.preps = {name: expr for _, name, expr in w.preps}
        self.rows = dict(w.rows)

    def _add(self, level: int, expr: str, stem: str) -> str:
        cols = self.levels[level]
        for name, e in cols.items():
            if e == expr:
                return name
        name = f"{stem}{len(cols)}"
        cols[name] = expr
        return name

    def env(self, m: Measure) -> dict[str, str]:
        """The table macros' parameters as this measure's values (its own, else the declared defaults)."""
        env = {name: _sql_value(p, p.default) for name, p, _ in registry.table_params()}
        for name, value in m.params:
            if name != "like":  # a preset is already spread over its options
                env[m.spec.table_param(name)] = _sql_value(m.spec.param(name), value)
        env["order_by"] = _literal(self.order_by)
        return env

    def expr(self, text: str, m: Measure, env: dict[str, str]) -> str:
        """A declared expression with the measure's parameter values and this evaluation's column names."""

        def sub(t: re.Match[str]) -> str:
            if t["name"] is None or t["call"] is not None:
                return t.group(0)
            if t["alias"]:
                return self.column(t["name"], m, env)
            return env.get(t["name"], t["name"])

        return _TOKEN.sub(sub, text)

    def column(self, name: str, m: Measure, env: dict[str, str]) -> str:
        """The column (or expression) that stands for the prepared column ``name`` for this measure."""
        kw = m.kw
        if name == "rf__part":
            return self.part
        if name == "rf__score":
            self.score = True
            return "score"
        if name in self.rows:
            return self._add(1, self.expr(self.rows[name], m, env), "rf__t")
        tied = kw.get("ties") == "average" and self.order_by == "score"
        # the default rows of rf__per_query_raw's first branch: without judged_only and ties := 'average' (with
        # order_by := 'score') rf__jp is rf_pos and the tie gains NULL; their windows are computed only when asked
        if name == "rf__jp" and not kw.get("judged_only"):
            return "rf_pos"
        if name in ("rf__tg", "rf__tgj") and not tied:
            return "CAST(NULL AS DOUBLE)"
        if name in self.preps:
            return self._add(0, self.expr(self.preps[name], m, env), "rf__w")
        return name

    def nothing_relevant(self, m: Measure, env: dict[str, str]) -> str:
        """The measure's "nothing relevant" test (its declared rule's ``rf:none`` line; false without one)."""
        if m.spec.nothing_relevant is None:
            return "false"
        return self.expr(rf_sql.wiring().nones[m.spec.nothing_relevant], m, env)

    def value(self, m: Measure, env: dict[str, str]) -> str | None:
        """The measure's value over the grouped rows: its table column's ``rf:value`` (None if it has none)."""
        col = rf_sql.wiring().column(m.spec.canonical) if m.spec.table_column else None
        if col is None:
            return None
        return self.expr(col.value, m, env)


def build_sql(
    measures: Sequence[Measure],
    order_by: str,
    policies: dict[str, str],
    source: str = _VIEW,
    segments: Sequence[str] = (),
) -> str:
    """The whole evaluation as one SQL query over the view ``source`` (columns query, item, rank|score, ...).

    The unit is (segments..., query); the DuckDB engine passes one integer code per unit as ``query``. A metric
    that is a column of the table macros takes its value from the same declarations as they do (its file's
    ``rf:value`` and ``rf:row`` lines, evaluate.sql's ``rf:prep`` windows), with the measure's own parameter values;
    any other metric is its public aggregate ``rf_agg_<name>``. One GROUP BY.
    """
    keys = ", ".join([*segments, "query"])
    part = "query" if not segments else f"row({keys})"
    cols = _Columns(part, order_by)
    envs = [cols.env(m) for m in measures]  # each measure's parameters as SQL, once
    values = ",\n  ".join(
        f"{cols.value(m, env) or measure_sql(m)} AS m{i}, {cols.nothing_relevant(m, env)} AS r{i}"
        for i, (m, env) in enumerate(zip(measures, envs))
    )
    pol = ", ".join(_literal(policies[p]) for p in ("no_relevant", "no_retrieved", "no_judged"))
    # a count (NumRel, ...) keeps its value on an empty list under no_retrieved='zero' (as the numpy engine):
    # sql/evaluate.sql's rf__count_n_ret, as the table macros
    kept = f"rf__count_n_ret(n_ret, {_literal(policies['no_retrieved'])})"
    applied = ",\n  ".join(
        f"rf__apply_policy(m{i}, n_judged, {kept if m.spec.count else 'n_ret'}, r{i}, {pol}) AS m{i}"
        for i, m in enumerate(measures)
    )
    seg_list = "[" + ", ".join(_literal(c) for c in segments) + "]"
    judged = any(m.kw.get("judged_only") for m in measures)
    rows = (
        f"SELECT {keys}, rf_pos, rf_g{', score' if cols.score else ''} "
        f"FROM rf_prepare('{source}', segments := {seg_list}, order_by := {_literal(order_by)})"
    )
    windows = [f"{expr} AS {name}" for name, expr in cols.levels[0].items()]
    if judged:
        # judged_only=True (trec_eval -J): the position among the kept retrieved rows of the unit (sql/prepare.sql
        # rf__judged_pos: NULL for a null or negative grade, which the measure then does not see as retrieved), for
        # the public aggregates and the "nothing relevant" tests; n_ret and the policies keep rf_pos
        windows.append(f"rf__judged_pos({part}, rf_pos, rf_g) AS rf_jpos")
    if windows:
        rows = f"SELECT *, {', '.join(windows)} FROM ({rows})"
    if cols.levels[1]:
        rows = f"SELECT *, {', '.join(f'{e} AS {n}' for n, e in cols.levels[1].items())} FROM ({rows})"
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
        raise ParameterError(
            f"the table needs a rank column {columns.rank!r} or a score column {columns.score!r}",
            parameter="columns",
            expected=f"a rank column {columns.rank!r} or a score column {columns.score!r} in the table",
            got=list(table.columns),
        )
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
