"""The beyond-accuracy metrics on the DuckDB engine: the SQL table macros ``rf_<name>`` of ``sql/<name>.sql``.

The same contract as :func:`rankframe.engines.beyond_engine.evaluate` (per-list values, set-level rows), with the
inputs checked by the same Python rules first. DuckDB sees one integer code per segment (``seg``) and per unit
(``query``), as the accuracy metrics' DuckDB engine does, so segment and query ids keep their exact values and
dtypes; the item ids, the ranking column and ``train=`` / ``catalog=`` are passed as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import duckdb
import numpy as np
import pandas as pd

from ..beyond import arguments as beyond_arguments
from ..beyond import similarity
from ..beyond.declare import BeyondSpec
from ..beyond.lists import item_index
from ..beyond.sqlgen import given_names
from ..core.columns import Columns
from ..core.errors import RankframeError
from ..measures.names import Measure
from ..tables import units
from ..tables.rules import ranking_column
from . import beyond_engine
from .duckdb_engine import _cursor, _literal, translate_error

_NAMES = {
    "recs": "rf__beyond_recs",
    "train": "rf__beyond_train_df",
    "catalog": "rf__beyond_catalog_df",
    "features": "rf__beyond_features_df",
}


#: the ranked rows of the call's table (``rf__beyond_ranked``), stored once per engine call: every metric reads them
BASE = "rf__beyond_prepared"


def prepare_sql(segments: Sequence[str], order_by: str) -> str:
    """The statement storing the ranked rows of the call's table once (``rf__beyond_ranked``: one window, one sort).

    Every metric of the call then reads them (``base :=``) instead of ranking the table again; the table and the
    options are checked in Python first, so the SQL's checks are not run again (``ok := true``).
    """
    segs = "[" + ", ".join(f"'{s}'" for s in segments) + "]"
    return (
        f"CREATE TEMP TABLE {BASE} AS SELECT * FROM rf__beyond_ranked('{_NAMES['recs']}', {segs}, '{order_by}', true)"
    )


def call_sql(
    m: Measure,
    segments: Sequence[str],
    order_by: str,
    train: bool,
    catalog: bool,
    lists: bool,
    features: bool = False,
    bind: Callable[[str], str] | None = None,
    base: str | None = None,
) -> str:
    """The SQL of one measure: its public table macro, or its internal macro over checked inputs.

    ``lists``: its per-list values (``rf__beyond_lists`` or the metric's own ``lists_macro``), else (with ``base``)
    its set-level rows (``rf__<name>``, as the public macro ``rf_<name>`` calls it). ``base``: the name of the
    table of ranked rows prepared once per call (:func:`prepare_sql`); without it and ``lists`` false, the public
    macro (which checks everything again). ``bind`` turns the options' expression into a constant (DuckDB copies a
    macro argument into every use: a constant plans ten times faster than the options' checks repeated; on 2M rows
    ARP, APLT and Novelty went from 3-6 s to 0.5 s a call, ILD and Calibration from 5 s to 1 s).
    """
    spec = m.spec
    if not isinstance(spec, BeyondSpec):
        raise TypeError(f"{m} is not a beyond-accuracy metric")
    name = spec.name
    needed = spec.needed(m.kw)
    segs = "[" + ", ".join(f"'{s}'" for s in segments) + "]"
    if not lists and base is None:
        options = {p.name: m.kw[p.name] for p in m.spec.params if p.name != "like"}  # resolved: preset in them
        tables = "".join(
            f", {t} := '{_NAMES[t]}'"
            for t, given in (("train", train), ("catalog", catalog), ("features", features))
            if given and t in needed
        )
        args = ", ".join(f"{k} := {_literal(v)}" for k, v in options.items())
        return (
            f"SELECT * FROM rf_{name}('{_NAMES['recs']}'{tables}, segments := {segs}, order_by := '{order_by}', {args})"
        )
    positional = ", ".join("NULL" if p.name == "like" else _literal(m.kw[p.name]) for p in m.spec.params)
    flags = {"train_given": train, "catalog_given": catalog, "features_given": features}
    given = ", ".join(str(flags[f]).lower() for f in given_names(spec).split(", "))
    opts = f"rf__{name}_options({positional}, {given}, 'evaluate')"
    opts = opts if bind is None else bind(opts)
    train_arg = f"'{_NAMES['train']}'" if train else "NULL"
    keys = "".join(f"{s}, " for s in segments)
    on_base = "" if base is None else f", base := '{base}'"
    if not lists and spec.level == "list":  # aggregate='rows': one mean over the rows, as rf_<name> computes it
        return (
            f"SELECT * FROM rf__beyond_list_means('{_NAMES['recs']}', {train_arg}, {segs}, '{order_by}', '{name}', "
            f"'{spec.canonical}', {opts}, true{on_base})"
        )
    if not lists:
        catalog_arg = f"'{_NAMES['catalog']}'" if catalog and "catalog" in needed else "NULL"
        return (
            f"SELECT * FROM rf__{name}('{_NAMES['recs']}', {train_arg}, {catalog_arg}, {segs}, '{order_by}', {opts}, "
            f"true{on_base})"
        )
    if not spec.row_values:  # its own lists macro (ILD, Serendipity, Calibration)
        features_arg = f"'{_NAMES['features']}'" if features else "NULL"
        catalog_arg = f", catalog := '{_NAMES['catalog']}'" if catalog and "catalog" in needed else ""
        return (
            f"SELECT {keys}query, value FROM {spec.lists_macro}('{_NAMES['recs']}', {train_arg}, {features_arg}, "
            f"{segs}, '{order_by}', {opts}, true{catalog_arg}{on_base})"
        )
    return (
        f"SELECT {keys}query, value FROM rf__beyond_lists('{_NAMES['recs']}', {train_arg}, {segs}, '{order_by}', "
        f"'{name}', {opts}, true{on_base})"
    )


def _constants(con: duckdb.DuckDBPyConnection, expressions: Sequence[str]) -> list[str]:
    """Constant SQL expressions evaluated once and written back as typed literals (structs of options).

    One statement for every metric of the call: each statement is bound and planned (10-25 ms apiece).
    """
    if not expressions:
        return []
    columns = ", ".join(f"{e} AS v{i}, typeof({e}) AS t{i}" for i, e in enumerate(expressions))
    row = con.execute(f"SELECT {columns}").fetchall()[0]
    return [f"CAST({_literal(row[2 * i])} AS {row[2 * i + 1]})" for i in range(len(expressions))]


def evaluate(
    df: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    *,
    train: object = None,
    catalog: object = None,
    features: object = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(per-list values [*by, query, metric, value], set-level rows [*by, metric, value, n])`` by the SQL macros."""
    # the options' and the inputs' rules, as the pandas engine checks them (the macros' own checks are skipped: ok)
    catalog_ids, train_frame, feature_frame = beyond_engine.check_inputs(
        df, columns, measures, train=train, catalog=catalog, features=features
    )
    items = df[columns.item]
    groups = units.group_codes(df, [*by, columns.query])
    seg_of_unit, seg_keys = beyond_engine.segments(groups.keys, by)
    # DuckDB sees a list as (seg, query) with query = a code of the query id, shared with train='s queries: a query
    # finds its own history (Calibration) and ids keep their dtypes
    parts = [df[columns.query].to_numpy()]
    parts += [] if train_frame is None else [train_frame[beyond_engine.QUERY].to_numpy()]
    query_codes, n_queries, _ = item_index(*parts)
    unit_key = np.zeros(groups.n, dtype=np.int64)
    unit_key[groups.codes] = seg_of_unit[groups.codes] * np.int64(max(n_queries, 1)) + query_codes[0]
    key_order = np.argsort(unit_key, kind="stable")
    order_col = ranking_column(list(df.columns), columns)
    order_by = "rank" if order_col == columns.rank else "score"
    recs = pd.DataFrame(
        {
            "seg": seg_of_unit[groups.codes],
            "query": query_codes[0],
            "item": items.to_numpy(),
            order_by: units.as_float(df[order_col]),
        },
        copy=False,
    )
    segments = ["seg"] if by else []
    con = _cursor()
    per_list, sets = [], []
    try:
        # the co-occurrence budget of the SQL (rf__cooccurrence_budget()) is this call's Python constant
        con.execute(f"SET VARIABLE rf__cooccurrence_budget = {float(similarity.COOCCURRENCE_BUDGET)!r}")
        grade = beyond_engine.grades(df, columns, measures)  # Serendipity's relevance (None: no metric reads it)
        con.register(_NAMES["recs"], recs if grade is None else recs.assign(relevance=grade))
        if train_frame is not None:  # the macros' column names (weight 1 per row without the user's weight column)
            con.register(
                _NAMES["train"],
                pd.DataFrame(
                    {
                        "query": query_codes[1],
                        "item": train_frame[beyond_engine.ITEM].to_numpy(),
                        "weight": train_frame[beyond_engine.WEIGHT].to_numpy(np.float64),
                    }
                ),
            )
        if feature_frame is not None:
            con.register(
                _NAMES["features"],
                pd.DataFrame(
                    {
                        "item": feature_frame[beyond_engine.ITEM].to_numpy(),
                        "feature": feature_frame[beyond_engine.FEATURE].to_numpy(),
                        "value": feature_frame[beyond_engine.VALUE].to_numpy(np.float64),
                    }
                ),
            )
        if catalog_ids is not None:
            con.register(_NAMES["catalog"], pd.DataFrame({"item": catalog_ids.to_numpy()}))
        n_units = np.bincount(seg_of_unit, minlength=len(seg_keys)).astype(np.int64)
        con.execute(prepare_sql(segments, order_by))  # the ranked rows once: every metric below reads them
        options: list[str] = []  # each metric's options expression, evaluated below as constants in one statement

        def placeholder(expression: str) -> str:
            options.append(expression)
            return f"/*rf:options {len(options) - 1}*/"

        calls = [
            call_sql(
                m,
                segments,
                order_by,
                train_frame is not None,
                catalog_ids is not None,
                not beyond_arguments.is_set_level(m),
                features=feature_frame is not None,
                bind=placeholder,
                base=BASE,
            )
            for m in measures
        ]
        constants = _constants(con, options)  # the options as constants (DuckDB plans a constant faster)
        for m, sql in zip(measures, calls, strict=True):
            set_level = beyond_arguments.is_set_level(m)
            for i, constant in enumerate(constants):
                sql = sql.replace(f"/*rf:options {i}*/", constant)
            res = con.execute(sql).df()  # not sql(): a relation would bind the query twice
            if set_level:
                value = np.full(len(seg_keys), np.nan)
                code = res["seg"].to_numpy(np.int64) if by else np.zeros(len(res), dtype=np.int64)
                value[code] = res["value"].to_numpy(np.float64)
                sets.append(seg_keys.assign(metric=str(m), value=value, n=n_units))
            else:
                value = np.full(groups.n, np.nan)
                seg = res["seg"].to_numpy(np.int64) if by else np.zeros(len(res), dtype=np.int64)
                key = seg * np.int64(max(n_queries, 1)) + res["query"].to_numpy(np.int64)
                value[key_order[np.searchsorted(unit_key[key_order], key)]] = res["value"].to_numpy(np.float64)
                per_list.append(groups.keys.assign(metric=str(m), value=value))
    except duckdb.Error as e:
        raise translate_error(e) from None
    except (TypeError, ValueError) as e:  # only reachable with validate=False
        raise RankframeError(f"the DuckDB engine (engine='duckdb') could not read the table: {e}") from None
    finally:
        con.close()
    empty = {c: groups.keys[c].iloc[:0] for c in groups.keys.columns}
    pq = pd.concat(per_list, ignore_index=True) if per_list else pd.DataFrame({**empty, "metric": [], "value": []})
    st = pd.concat(sets, ignore_index=True) if sets else pd.DataFrame()
    return pq, st
