"""Files and DuckDB relations through the DuckDB engine, without a pandas copy of the input (issue 10).

``rankframe.evaluate("runs.parquet", ...)`` (a path, a ``Path``, a ``.csv``/``.tsv`` file or a
``duckdb.DuckDBPyRelation``) and ``rankframe evaluate runs.parquet`` read the rows in DuckDB only: a view renames
the columns to the macros' names (query, item, rank|score, relevance, segments ``rf_s0``...), one more scan checks
the table's rules (the rules of ``rf_validate`` and of the pandas schema, in one GROUP BY with grouping sets), and
the evaluation is the engine's one query (``duckdb_engine.build_sql``). Only the per-query values come back to
pandas. A fresh in-memory database per call carries the settings (``memory_limit``, ``threads``,
``temp_directory``): DuckDB spills its sorts and hash tables to the temporary directory instead of failing.
"""

from __future__ import annotations

import atexit
import csv as csv_module
import gzip
import os
import re
import shutil
import tempfile
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from .. import sql as rf_sql
from ..columns import Columns
from ..errors import ParameterError, ValidationError, check_unique_names, missing_columns_error
from ..names import Measure
from ..schema import nested_failure, not_numeric_failure
from ..units import duplicate_item_rule, segment_guesses
from .aggregate import metric_labels
from .duckdb_engine import build_sql, translate_error

#: file names read as long tables (as ``rankframe.io.read_long``)
PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".csv.gz", ".tsv.gz")
#: DuckDB's memory limit when none is given: with DuckDB's own overhead the whole process stays under ~2 GB
DEFAULT_MEMORY_LIMIT = "1GB"
_SRC = "rf__src"
_NUMBER_TYPES = (
    *("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"),
    *("UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"),
    *("FLOAT", "DOUBLE", '"NULL"', "NULL"),
)
_FLOAT_TYPES = ("FLOAT", "DOUBLE")


#: the largest ``threads`` setting: 4 × the machine's cores (``os.cpu_count()``); DuckDB starts every thread it
#: is given (``threads=10**6`` did not finish a 616-row file in 10 minutes), and more threads than cores only
#: add memory for their buffers
THREADS_PER_CORE = 4


def max_threads() -> int:
    """The largest ``threads`` setting on this machine (:data:`THREADS_PER_CORE` × ``os.cpu_count()``)."""
    return THREADS_PER_CORE * (os.cpu_count() or 1)


@dataclass(frozen=True)
class Settings:
    """DuckDB settings of one evaluation: ``SET memory_limit``, ``SET threads``, ``SET temp_directory``.

    ``memory_limit`` is DuckDB's text such as ``"1GB"`` or ``"500MB"`` (default :data:`DEFAULT_MEMORY_LIMIT`),
    ``threads`` an int in 1..:func:`max_threads` (default: DuckDB's, the number of cores), ``temp_directory``
    where DuckDB spills (default: a fresh folder under the system's temporary directory, removed afterwards).
    Made and checked by :func:`settings_from`.
    """

    memory_limit: str | None = None
    threads: int | None = None
    temp_directory: str | None = None


#: how the settings are named in messages: the Python parameter (``duckdb_config['threads']``) by default; the
#: command line passes its option names (``--threads``)
PYTHON_NAMES = {k: f"duckdb_config[{k!r}]" for k in ("memory_limit", "threads", "temp_directory")}


def settings_from(config: object, names: dict[str, str] | None = None) -> Settings:
    """``duckdb_config={"memory_limit": "1GB", "threads": 2, "temp_directory": "/tmp/x"}`` as checked Settings.

    The one check of the DuckDB settings, for ``duckdb_config=`` and the command's ``--memory-limit``,
    ``--threads``, ``--temp-directory`` (``names`` says how to name each one in messages; None values are
    left out): known keys only; ``memory_limit`` a size DuckDB reads (``"500MB"``, ``"4GB"``, ``"80%"``);
    ``threads`` an int in 1..:func:`max_threads`; ``temp_directory`` a writable directory, or one that can be
    made (its first existing parent is a writable directory). Raises ParameterError naming the setting.
    """
    if config is None:
        return Settings()
    names = {**PYTHON_NAMES, **(names or {})}
    if not isinstance(config, dict):
        raise ParameterError(
            f"The 'duckdb_config' parameter must be a dict with keys among {list(PYTHON_NAMES)}. "
            f"Got {config!r} instead."
        )
    unknown = [k for k in config if k not in PYTHON_NAMES]
    if unknown:
        from ..errors import did_you_mean

        hint = did_you_mean(str(unknown[0]), PYTHON_NAMES)
        raise ParameterError(
            f"The 'duckdb_config' parameter has an unknown key {unknown[0]!r}{hint}; the keys are {list(PYTHON_NAMES)}."
        )
    memory, threads, temp = (config.get(k) for k in PYTHON_NAMES)
    if memory is not None:
        _check_memory_limit(memory, names["memory_limit"])
    if threads is not None:
        top = max_threads()
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= top:
            raise ParameterError(
                f"{names['threads']} must be an int in 1..{top} ({THREADS_PER_CORE} x the {os.cpu_count() or 1} "
                f"cores of this machine). Got {threads!r} instead."
            )
        threads = int(threads)
    if temp is not None:
        temp = _check_temp_directory(temp, names["temp_directory"])
    return Settings(memory, threads, temp)


def _check_memory_limit(value: object, name: str) -> None:
    expected = f"{name} must be a size such as '1GB', '500MB' or '80%' (of the machine's memory)"
    if not isinstance(value, str):
        raise ParameterError(f"{expected}. Got {value!r} instead.")
    con = duckdb.connect()
    try:
        con.execute(f"SET memory_limit = {_text(value)}")
    except duckdb.Error as e:
        raise ParameterError(f"{expected}. Got {value!r} instead ({str(e).splitlines()[0]}).") from None
    finally:
        con.close()


def _check_temp_directory(value: object, name: str) -> str:
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise ParameterError(f"{name} must be a directory path (str or Path). Got {value!r} instead.")
    path = Path(value).expanduser()
    where = path
    while not where.exists() and where != where.parent:  # the first existing parent
        where = where.parent
    problem = None
    if not where.is_dir():
        problem = (
            "is a file, not a directory" if where == path else f"cannot be made: {str(where)!r} is not a directory"
        )
    else:  # made if need be (as DuckDB would), and written to: a probe folder, removed at once
        try:
            path.mkdir(parents=True, exist_ok=True)
            os.rmdir(tempfile.mkdtemp(prefix="rankframe-probe-", dir=path))
        except OSError as e:
            problem = f"is not a writable directory ({e.strerror or e})"
    if problem:
        raise ParameterError(f"{name} {str(value)!r} {problem}; DuckDB spills its sorts and hash tables there.")
    return str(path)


def _spill_folder(s: Settings) -> str:
    """A fresh folder for DuckDB's spill files, under ``temp_directory`` (made if need be) or the system's."""
    try:
        if s.temp_directory is not None:
            os.makedirs(s.temp_directory, exist_ok=True)
        return tempfile.mkdtemp(prefix="rankframe-spill-", dir=s.temp_directory)
    except OSError as e:
        raise ParameterError(
            f"the temporary directory {s.temp_directory or tempfile.gettempdir()!r} cannot hold DuckDB's spill "
            f"folder ({e.strerror or e})."
        ) from None


def out_of_memory(error: Exception, s: Settings) -> ParameterError:
    """DuckDB's out-of-memory error in words: the limit that was hit and how to give it more room."""
    detail = str(error).strip().splitlines()[0]
    detail = detail.removeprefix("Out of Memory Error: ")
    return ParameterError(
        f"DuckDB ran out of memory under its memory limit of {s.memory_limit or DEFAULT_MEMORY_LIMIT} "
        f"({'the default; ' if s.memory_limit is None else ''}duckdb_config['memory_limit'], --memory-limit on the "
        f"command line): {detail}. Raise the limit, or give fewer threads (each one holds its own buffers)."
    )


def _error(error: duckdb.Error, s: Settings) -> Exception:
    """A DuckDB error of a call with settings ``s`` as rankframe's exception."""
    if isinstance(error, duckdb.OutOfMemoryException):
        return out_of_memory(error, s)
    return translate_error(error)


def is_source(obj: object) -> bool:
    """True for what this module reads: a path (str or ``os.PathLike``) or a DuckDB relation."""
    return isinstance(obj, (str, os.PathLike)) or type(obj).__name__ == "DuckDBPyRelation"


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def connect(settings: Settings | None, spill_dir: str, macros: bool = True) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory database with the settings applied and (unless ``macros=False``) the macros installed."""
    s = settings or Settings()  # checked by settings_from
    con = duckdb.connect()
    con.execute(f"SET memory_limit = {_text(s.memory_limit or DEFAULT_MEMORY_LIMIT)}")
    if s.threads is not None:
        con.execute(f"SET threads = {int(s.threads)}")
    con.execute(f"SET temp_directory = {_text(spill_dir)}")
    con.execute("SET preserve_insertion_order = false")
    return rf_sql.install(con) if macros else con


#: one database per settings, with the macros installed once (installing them takes ~0.5 s); each call works in
#: its own cursor (its temporary views and tables are its own) and the database spills to a folder of its own
_DATABASES: dict[tuple[str, int | None, str | None], tuple[duckdb.DuckDBPyConnection, str]] = {}
_LOCK = threading.Lock()


def _database(s: Settings) -> duckdb.DuckDBPyConnection:
    """A cursor on the process's database for these settings (made on first use, closed at exit)."""
    key = (s.memory_limit or DEFAULT_MEMORY_LIMIT, s.threads, s.temp_directory)
    with _LOCK:
        if key not in _DATABASES:
            spill = _spill_folder(s)
            try:
                _DATABASES[key] = (connect(s, spill), spill)
            except BaseException:
                shutil.rmtree(spill, ignore_errors=True)
                raise
        return _DATABASES[key][0].cursor()


@atexit.register
def _close_databases() -> None:
    with _LOCK:
        for con, spill in _DATABASES.values():
            con.close()
            shutil.rmtree(spill, ignore_errors=True)
        _DATABASES.clear()


def literal_path(path: str | os.PathLike) -> str:
    """A path DuckDB reads as exactly that one file: absolute, each glob character ``*``, ``?``, ``[`` as a class.

    DuckDB's readers take a path as a glob pattern (``x[1].parquet`` reads ``x1.parquet``, ``w*.parquet`` every
    match, ``~`` is the home folder); ``[*]``, ``[?]`` and ``[[]`` match only the character itself.
    """
    return re.sub(r"([*?\[])", r"[\1]", os.path.abspath(path))


def _header_names(path: Path, delim: str) -> list[str]:
    """The names of a CSV file's header line, as written (DuckDB renames a repeated name ``a`` to ``a_1``)."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as f:
            return next(csv_module.reader(f, delimiter=delim), [])
    except (OSError, UnicodeDecodeError, EOFError, csv_module.Error):
        return []  # DuckDB's reader names what is wrong with the file


def _parquet_names(path: Path) -> list[str]:
    """The column names a Parquet file declares, as written (DuckDB renames a repeated name ``a`` to ``a_1``)."""
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(path).names)
    except Exception:  # noqa: BLE001 - DuckDB's reader names what is wrong with the file
        return []


def _open(con: duckdb.DuckDBPyConnection, source: Any) -> tuple[str, str]:
    """Make the relation ``rf__raw`` over the source; return (a label for messages, its SQL).

    A path names exactly one file (never a glob pattern, :func:`literal_path`); column names must be unique
    (:func:`~rankframe.errors.check_unique_names`, the rule of every other input road).
    """
    from ..io import InputFileError

    if type(source).__name__ == "DuckDBPyRelation":
        check_unique_names(list(source.columns), "ranking table")
        # another connection's relation: stream its rows once (Arrow batches) into a temporary table of ours,
        # which DuckDB spills to disk under the memory limit
        # DuckDB >= 1.5 names it to_arrow_reader, 1.4 record_batch (the lowest DuckDB the project allows)
        batches = getattr(source, "to_arrow_reader", None) or source.record_batch
        con.register("rf__reader", batches(100_000))
        con.execute("CREATE TEMP TABLE rf__raw AS SELECT * FROM rf__reader")
        con.unregister("rf__reader")
        return "DuckDB relation", "rf__raw"
    path = Path(source)
    if not path.exists():
        raise InputFileError(str(source), "file not found")
    if path.is_dir():
        raise InputFileError(str(source), "is a directory, not a file")
    name = path.name.lower()
    with open(path, "rb") as f:
        head = f.read(4)
    if name.endswith(PARQUET_SUFFIXES) or head == b"PAR1":
        if not head:
            raise InputFileError(str(source), "empty file: 0 bytes, not a Parquet file")
        check_unique_names(_parquet_names(path), "ranking table")
        reader = f"read_parquet({_text(literal_path(path))})"
    elif name.endswith(CSV_SUFFIXES):
        delim = "\t" if name.removesuffix(".gz").endswith(".tsv") else ","
        check_unique_names(_header_names(path, delim), "ranking table")
        # ids and segments as text (as rankframe.io.read_long: '007' stays '007'); numbers are cast in the view
        reader = f"read_csv({_text(literal_path(path))}, header = true, delim = {_text(delim)}, all_varchar = true)"
    else:
        raise InputFileError(str(source), "not a long table: give a .parquet, .csv or .tsv file")
    try:
        con.execute(f"CREATE TEMP VIEW rf__raw AS SELECT * FROM {reader}")
        _describe(con, "rf__raw")
    except duckdb.OutOfMemoryException:
        raise  # not a property of the file: the caller names the memory limit
    except duckdb.Error as e:
        kind = "a readable Parquet file" if reader.startswith("read_parquet") else "a readable CSV file"
        raise InputFileError(str(source), f"not {kind} ({str(e).splitlines()[0]})") from None
    return str(source), "rf__raw"


def _describe(con: duckdb.DuckDBPyConnection, rel: str) -> dict[str, str]:
    return dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {rel})").fetchall())


def _nested(type_name: str) -> bool:
    """A DuckDB type holding several values: a list or array (``INTEGER[]``), STRUCT, MAP or UNION."""
    return type_name.endswith("]") or type_name.startswith(("STRUCT", "MAP", "UNION"))


def _numeric(type_name: str) -> bool:
    return type_name in _NUMBER_TYPES or type_name.startswith("DECIMAL")


def prepare_view(
    con: duckdb.DuckDBPyConnection, rel: str, columns: Columns, by: Sequence[str], csv: bool
) -> tuple[str, dict[str, str]]:
    """The view ``rf__src`` with the macros' column names; returns the order column ('rank'/'score') and types.

    Missing columns raise the ValidationError of the pandas path (same message, did-you-mean hint).
    """
    types = _describe(con, rel)
    present = list(types)
    order = "rank" if columns.rank in types else "score" if columns.score in types else None
    required = [columns.query, columns.item, *by, columns.relevance]
    missing = [c for c in dict.fromkeys(required) if c not in types]
    if missing or order is None:
        err = missing_columns_error(missing, present)
        if order is None:
            from ..errors import did_you_mean

            err.failures.append(
                {
                    "column": columns.rank,
                    "rule": f"neither a rank column {columns.rank!r} nor a score column {columns.score!r} in "
                    f"dataframe{did_you_mean(columns.rank, present)}. Columns in dataframe: {present}",
                    "count": 0,
                }
            )
        raise ValidationError(err.failures)
    order_col = columns.rank if order == "rank" else columns.score

    ids = dict.fromkeys([columns.query, columns.item, *by])
    nested = [nested_failure(c, types[c]) for c in ids if _nested(types[c])]
    if nested:
        raise ValidationError(nested)

    def value(col: str) -> str:
        # the rules of every road (docs/inputs.md): a float NaN is null, a DECIMAL is read as a float
        if types[col] in _FLOAT_TYPES:
            # not nullif(x, 'nan') nor isnan(x): a Parquet file's statistics leave NaN out of min/max, and DuckDB
            # (2.0) then folds those tests to false; isfinite is not folded (a NaN is neither finite nor inf)
            q = _quote(col)
            return f"CASE WHEN isfinite({q}) OR isinf({q}) THEN {q} END"
        return _quote(col)

    def number(col: str) -> str:
        # CSV cells are text: empty = null, anything else must parse (a bad cell is a validation failure)
        if csv:
            return f"TRY_CAST(nullif(trim({_quote(col)}), '') AS DOUBLE)"
        return f"CAST({_quote(col)} AS DOUBLE)" if types[col].startswith("DECIMAL") else value(col)

    parts = [
        f"{value(columns.query)} AS query",
        f"{value(columns.item)} AS item",
        f"{number(order_col)} AS {order}",
        f"{number(columns.relevance)} AS relevance",
        *(f"{value(b)} AS rf_s{i}" for i, b in enumerate(by)),
    ]
    if csv:  # the text itself, for the rule "must be numeric"
        parts += [f"{_quote(order_col)} AS rf_ord_txt", f"{_quote(columns.relevance)} AS rf_rel_txt"]
    con.execute(f"CREATE OR REPLACE TEMP VIEW {_SRC} AS SELECT {', '.join(parts)} FROM {rel}")
    if csv:
        types = {**types, order_col: "DOUBLE", columns.relevance: "DOUBLE"}
    return order, types


def validate_source(
    con: duckdb.DuckDBPyConnection,
    columns: Columns,
    by: Sequence[str],
    order: str,
    types: dict[str, str],
    allow_duplicates: bool,
    csv: bool,
) -> bool:
    """Check the rules of the long table in one scan; raise ValidationError; return True when ranks are 1..n.

    The rules and their words are the pandas schema's (``rankframe.schema``): ids not null, relevance and the
    order column numeric and finite, ranks integers >= 1 and unique per unit, items unique per unit unless
    ``allow_duplicates``. One GROUP BY with grouping sets (unit, item), (unit, rank) and (unit) counts them all
    (DuckDB spills its hash tables under the memory limit); example rows are fetched only for a broken rule.
    """
    unit_names = [*by, columns.query]
    unit_cols = [*(f"rf_s{i}" for i in range(len(by))), "query"]
    unit = ", ".join(unit_cols)
    unit_words = ", ".join(unit_names)
    failures: list[dict] = []
    order_col = columns.rank if order == "rank" else columns.score
    for col, word in ((columns.relevance, "relevance"), (order_col, order)):
        if not _numeric(types[col]):
            failures.append(_not_numeric(con, col, word, types[col], by, columns))
    if failures:
        raise ValidationError(failures)
    rank_checks = order == "rank"
    row_rules = {
        "null_query": (columns.query, "must not be null", "query IS NULL"),
        "null_item": (columns.item, "must not be null", "item IS NULL"),
        "bad_rel": (columns.relevance, "relevance must be finite (null = unjudged)", "NOT isfinite(relevance)"),
    }
    if rank_checks:
        row_rules["bad_rank"] = (
            columns.rank,
            "rank must be an integer >= 1 (null = judged but not retrieved)",
            "NOT isfinite(rank) OR rank < 1 OR rank <> floor(rank)",
        )
    else:
        row_rules["bad_score"] = (columns.score, "score must be finite", "NOT isfinite(score)")
    if csv:
        row_rules["text_rel"] = (
            columns.relevance,
            "relevance must be numeric (null = unjudged)",
            "relevance IS NULL AND nullif(trim(rf_rel_txt), '') IS NOT NULL",
        )
        row_rules["text_ord"] = (
            order_col,
            f"{order} must be numeric (null = " + ("judged but not retrieved)" if rank_checks else "not retrieved)"),
            f"{order} IS NULL AND nullif(trim(rf_ord_txt), '') IS NOT NULL",
        )
    keys = list(row_rules)
    # pass 1, one GROUP BY over the units (no hash table of the size of the table): the row rules, and whether
    # each unit's ranks are exactly 1..n. For a unit with n ranks, all integers in 1..n, the ranks are a
    # permutation of 1..n when their sum and their sum of 64-bit hashes equal those of 1..n (from a table of
    # prefix sums over 1..max n); a repeated rank passes that test only if two sums of hashes coincide (odds
    # about 2**-64 per unit). Every other unit (gaps, or a failed test) gets the exact check below.
    rint = (
        "CASE WHEN rank >= 1 AND rank < 2147483648 AND rank = floor(rank) THEN CAST(rank AS BIGINT) END"
        if rank_checks
        else "CAST(NULL AS BIGINT)"
    )
    odd = "count(*) FILTER (WHERE rank IS NOT NULL AND rf__r IS NULL)" if rank_checks else "0"
    counts = ", ".join(f"count(*) FILTER (WHERE {cond}) AS {key}" for key, (_, _, cond) in row_rules.items())
    query = f"""
WITH units AS (
  SELECT {counts}, count(rf__r) AS n, min(rf__r) AS lo, max(rf__r) AS hi, sum(rf__r) AS s1,
         sum(hash(rf__r)) FILTER (WHERE rf__r IS NOT NULL) AS sh, {odd} AS odd
  FROM (SELECT *, {rint} AS rf__r FROM {_SRC})
  GROUP BY {unit}
), prefix AS (
  SELECT i AS n, sum(hash(i)) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sh
  FROM range(1, (SELECT coalesce(max(n), 0) + 1 FROM units)) AS t(i)
), checked AS (
  SELECT u.*, u.odd = 0 AND (u.n = 0 OR (u.lo = 1 AND u.hi = u.n AND u.s1 = u.n * (u.n + 1) // 2
                                         AND u.sh = p.sh)) AS ok
  FROM units AS u LEFT JOIN prefix AS p ON u.n = p.n
)
SELECT {", ".join(f"sum({k})" for k in keys)}, count(*) FILTER (WHERE NOT ok), coalesce(bool_and(ok), true)
FROM checked"""
    try:
        row = con.execute(query).fetchone()
        values = list(row) if row is not None else []
        # pass 2: repeated (unit, item) keys, one slim hash aggregation (DuckDB spills it under the memory limit)
        dup_items = dup_item_rows = 0
        if not allow_duplicates:
            item_row = con.execute(
                f"SELECT count(*), sum(n) FROM (SELECT count(*) AS n FROM {_SRC} WHERE item IS NOT NULL "
                f"GROUP BY {unit}, item HAVING count(*) > 1)"
            ).fetchone()
            dup_items, dup_item_rows = item_row if item_row is not None else (0, 0)
        dup_ranks = dup_rank_rows = 0
        if rank_checks and values[len(keys)]:
            # some unit's ranks are not 1..n (gaps, a repeat, a rank that is not an integer): the exact check of
            # repeated (unit, rank) keys, counting their rows as pandas does
            rank_row = con.execute(
                f"SELECT count(*), sum(n) FROM (SELECT count(*) AS n FROM {_SRC} WHERE rank IS NOT NULL "
                f"GROUP BY {unit}, rank HAVING count(*) > 1)"
            ).fetchone()
            dup_ranks, dup_rank_rows = rank_row if rank_row is not None else (0, 0)
    except duckdb.OutOfMemoryException:
        raise  # the caller names the memory limit that was hit
    except duckdb.Error as e:
        raise translate_error(e) from None
    for (col, rule, cond), count in zip(row_rules.values(), values):
        if count:
            examples = _examples(con, cond, by, columns)
            failures.append({"column": col, "rule": rule, "count": int(count), "examples": examples})
    dense = values[len(keys) + 1]
    if dup_ranks:
        failures.append(
            {
                "column": "rank",  # as the pandas schema names its frame-wide rank rule
                "rule": f"rank must be unique within each ({unit_words})",
                "count": int(dup_rank_rows),
                "examples": _examples(
                    con,
                    f"({unit}, rank) IN (SELECT ({unit}, rank) FROM {_SRC} WHERE rank IS NOT NULL "
                    f"GROUP BY ALL HAVING count(*) > 1)",
                    by,
                    columns,
                ),
            }
        )
    if dup_items:
        failures.append(
            {
                "column": columns.item,
                "rule": duplicate_item_rule(
                    columns.item, by, columns.query, _separating_column(con, columns, by, types)
                ),
                "count": int(dup_item_rows),
                "examples": _examples(
                    con,
                    f"({unit}, item) IN (SELECT ({unit}, item) FROM {_SRC} WHERE item IS NOT NULL "
                    f"GROUP BY ALL HAVING count(*) > 1)",
                    by,
                    columns,
                ),
            }
        )
    if failures:
        raise ValidationError(failures)
    return bool(dense) and rank_checks


def _not_numeric(
    con: duckdb.DuckDBPyConnection, column: str, word: str, type_name: str, by: Sequence[str], columns: Columns
) -> dict:
    """The "must be numeric" failure of a typed column, in the pandas schema's words.

    Its non-null rows are offending; those that do not parse as numbers are shown first.
    """
    # rf__src names the value column by its role (relevance, rank or score)
    unparsable = f"{word} IS NOT NULL AND TRY_CAST({word} AS DOUBLE) IS NULL"
    row = con.execute(f"SELECT count({word}), count(*) FILTER (WHERE {unparsable}) FROM {_SRC}").fetchone()
    count, bad = (int(row[0]), int(row[1])) if row is not None else (0, 0)
    examples = _examples(con, unparsable if bad else f"{word} IS NOT NULL", by, columns)
    return not_numeric_failure(column, word, type_name, count, bad, examples, f"CAST({_quote(column)} AS DOUBLE)")


def _separating_column(
    con: duckdb.DuckDBPyConnection, columns: Columns, by: Sequence[str], types: dict[str, str]
) -> str | None:
    """The first other column of the raw table that makes its repeated (unit, item) rows unique (the pandas rule)."""
    guesses = segment_guesses(
        list(types), [columns.query, columns.item, columns.rank, columns.relevance, columns.score], by, columns.system
    )
    key = ", ".join(_quote(c) for c in [*by, columns.query, columns.item])
    for name in guesses:
        row = con.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM rf__raw WHERE {_quote(columns.item)} IS NOT NULL "
            f"GROUP BY {key}, {_quote(name)} HAVING count(*) > 1)"
        ).fetchone()
        if row is not None and row[0] == 0:
            return name
    return None


def _dense(con: duckdb.DuckDBPyConnection, n_segments: int) -> bool:
    """True when every unit's ranks are 1..n, given unique ranks (one GROUP BY over the units, no sort)."""
    unit = ", ".join([*(f"rf_s{i}" for i in range(n_segments)), "query"])
    row = con.execute(
        f"SELECT bool_and(n = 0 OR (lo = 1 AND hi = n)) FROM (SELECT count(rank) AS n, min(rank) AS lo, "
        f"max(rank) AS hi FROM {_SRC} GROUP BY {unit})"
    ).fetchone()
    return bool(row and row[0])


def _examples(con: duckdb.DuckDBPyConnection, cond: str, by: Sequence[str], columns: Columns) -> pd.DataFrame:
    """Up to 5 offending rows, with the caller's column names (only fetched when a rule is broken)."""
    shown = [("query", columns.query), ("item", columns.item)]
    shown += [(f"rf_s{i}", b) for i, b in enumerate(by)]
    cols = _describe(con, _SRC)
    for role in ("rank", "score"):
        if role in cols:
            shown.append((role, getattr(columns, role)))
    shown.append(("relevance", columns.relevance))
    sql = f"SELECT {', '.join(f'{c} AS {_quote(n)}' for c, n in shown)} FROM {_SRC} WHERE {cond} LIMIT 5"
    return con.execute(sql).df()


def per_query(
    source: Any,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    policies: dict[str, str],
    *,
    validate: bool = True,
    allow_duplicates: bool = False,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """Per-query values ``[*by, query, metric, value]`` of a file or relation, computed in DuckDB."""
    by = list(by)
    measures = list(measures)
    s = settings or Settings()
    con = _database(s)
    try:
        return _per_query(con, source, measures, columns, by, policies, validate, allow_duplicates)
    except duckdb.Error as e:
        raise _error(e, s) from None
    finally:
        con.close()


def _per_query(
    con: duckdb.DuckDBPyConnection,
    source: Any,
    measures: list[Measure],
    columns: Columns,
    by: list[str],
    policies: dict[str, str],
    validate: bool,
    allow_duplicates: bool,
) -> pd.DataFrame:
    label, rel = _open(con, source)
    csv = label != "DuckDB relation" and str(label).lower().endswith(CSV_SUFFIXES)
    order, types = prepare_view(con, rel, columns, by, csv)
    if validate:
        dense = validate_source(con, columns, by, order, types, allow_duplicates, csv)
    else:  # the caller vouches for the rules (unique ranks): one light scan finds whether ranks are 1..n
        dense = order == "rank" and _dense(con, len(by))
    order_by = "position" if dense else order
    segments = [f"rf_s{i}" for i in range(len(by))]
    sql = build_sql(measures, order_by, policies, source=_SRC, segments=segments)
    res = _fetch_pandas(con.execute(sql))
    index = res["rf__metric"].str.slice(1).astype(np.int64).to_numpy()
    names = np.asarray([str(m) for m in measures], dtype=object)
    out = pd.DataFrame({b: res[s] for b, s in zip(by, segments)})
    out[columns.query] = res["query"]
    out["metric"] = metric_labels(names[index], out.index)
    out["value"] = res["rf__value"].to_numpy(dtype=np.float64)
    return out


def _fetch_pandas(result: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """A result through Arrow, so text columns get the dtype a pandas input would have (``str`` on pandas 3)."""
    fetch = getattr(result, "to_arrow_table", None) or getattr(result, "fetch_arrow_table")  # DuckDB 2.x / 1.x
    with warnings.catch_warnings():  # the per-query result is small next to the input; the copy is fine
        warnings.filterwarnings("ignore", message="Arrow output on a DB-API result", category=UserWarning)
        return fetch().to_pandas()


def to_pandas(source: Any, columns: Columns) -> pd.DataFrame:
    """The whole source as a DataFrame (only for the cases the SQL path does not take: a separate qrels table)."""
    if type(source).__name__ == "DuckDBPyRelation":
        return source.df()
    from ..io import read_long

    return read_long(source, columns=columns)


def column_names(source: Any) -> list[str]:
    """The column names of a file or relation (no row is read); InputFileError when the file cannot be read."""
    con = duckdb.connect()
    try:
        _, rel = _open(con, source)
        return list(_describe(con, rel))
    except duckdb.Error as e:
        raise translate_error(e) from None
    finally:
        con.close()


@dataclass(frozen=True)
class Systems:
    """What ``compare`` needs to know of the system column of a file or relation, before evaluating it.

    ``columns``: the source's column names; ``found``: its distinct non-null systems (at most ``limit`` + 1 of
    them are fetched); ``first``: the system of the first row; ``nulls``: the number of rows without a system,
    with up to 5 of them in ``examples``.
    """

    columns: list[str]
    found: list[Any]
    first: Any
    nulls: int
    examples: pd.DataFrame | None


def systems(source: Any, system: str, settings: Settings | None = None) -> Systems:
    """The systems of a file or relation (one aggregate in DuckDB; no row but the examples reaches pandas)."""
    s = settings or Settings()
    spill = _spill_folder(s)
    try:
        is_relation = type(source).__name__ == "DuckDBPyRelation"
        con = None if is_relation else connect(s, spill, macros=False)
        try:
            if is_relation:
                names = list(source.columns)

                def run(sql: str) -> Any:
                    return source.query("rf__src_rel", sql.replace("rf__raw", "rf__src_rel"))

            else:
                assert con is not None  # noqa: S101 - a path has its own connection
                con.execute("SET preserve_insertion_order = true")  # 'the first row' is the file's first row
                _, rel = _open(con, source)
                names = list(_describe(con, rel))

                def run(sql: str) -> Any:
                    return con.execute(sql)

            if system not in names:
                return Systems(names, [], None, 0, None)
            col = _quote(system)
            first = run(f"SELECT {col} FROM rf__raw LIMIT 1").fetchall()
            ((nulls, found),) = run(
                f"SELECT count(*) FILTER (WHERE {col} IS NULL), list(DISTINCT {col}) FILTER (WHERE {col} IS NOT NULL) "
                "FROM rf__raw"
            ).fetchall()
            examples = None
            if nulls:
                examples = _fetch_pandas(run(f"SELECT * FROM rf__raw WHERE {col} IS NULL LIMIT 5"))
            found = sorted(found or [], key=lambda v: (str(type(v)), v))
            return Systems(names, found, first[0][0] if first else None, int(nulls or 0), examples)
        except duckdb.Error as e:
            raise _error(e, s) from None
        finally:
            if con is not None:
                con.close()
    finally:
        shutil.rmtree(spill, ignore_errors=True)
