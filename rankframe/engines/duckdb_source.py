"""Files and DuckDB relations through the DuckDB engine, without a pandas copy of the input (issue 10).

``rankframe.evaluate("runs.parquet", ...)`` (a path, a ``Path``, a ``.csv``/``.tsv`` file or a
``duckdb.DuckDBPyRelation``) and ``rankframe evaluate runs.parquet`` read the rows in DuckDB only: a view renames
the columns to the macros' names (query, item, rank|score, relevance, segments ``rf_s0``...), one more scan checks
the table's rules (both in :mod:`rankframe.engines.duckdb_view`, with the words of :mod:`rankframe.table_rules`), and
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
from ..core.columns import Columns
from ..core.errors import ParameterError, ValidationError, check_unique_names
from ..measures.names import Measure
from ..stats.aggregate import metric_labels
from ..tables.io._files import file_errors
from ..tables.io.tables import (  # noqa: F401 - the suffixes stay importable here
    CSV_SUFFIXES,
    EMPTY_PARQUET,
    PARQUET_SUFFIXES,
    csv_delimiter,
    file_kind,
    suffix_kind,
)
from ..tables.rules import nested_failure
from .duckdb_engine import build_sql, translate_error

# the view and its rule checks (importable from here as before)
from .duckdb_view import (  # noqa: F401
    _FLOAT_TYPES,
    _NUMBER_TYPES,
    _SRC,
    _dense,
    _describe,
    _examples,
    _nested,
    _not_numeric,
    _numeric,
    _quote,
    _separating_column,
    prepare_view,
    validate_source,
    value_sql,
)

#: DuckDB's memory limit when none is given: with DuckDB's own overhead the whole process stays under ~2 GB
DEFAULT_MEMORY_LIMIT = "1GB"


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


def _refused(name: str, expected: str, got: object, detail: str = "") -> ParameterError:
    """A DuckDB setting refused, named as the caller names it (``duckdb_config['threads']``, ``--threads``)."""
    text = f"{name} must be {expected}. Got {got!r} instead{detail}."
    return ParameterError(text, parameter="duckdb_config", expected=expected, got=got)


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
            parameter="duckdb_config", expected=f"a dict with keys among {list(PYTHON_NAMES)}", got=config
        )
    unknown = [k for k in config if k not in PYTHON_NAMES]
    if unknown:
        from ..core.errors import did_you_mean

        hint = did_you_mean(str(unknown[0]), PYTHON_NAMES)
        raise ParameterError(
            f"The 'duckdb_config' parameter has an unknown key {unknown[0]!r}{hint}; the keys are "
            f"{list(PYTHON_NAMES)}.",
            parameter="duckdb_config",
            got=unknown[0],
        )
    memory, threads, temp = (config.get(k) for k in PYTHON_NAMES)
    if memory is not None:
        _check_memory_limit(memory, names["memory_limit"])
    if threads is not None:
        top = max_threads()
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= top:
            cores = f"({THREADS_PER_CORE} x the {os.cpu_count() or 1} cores of this machine)"
            raise _refused(names["threads"], f"an int in 1..{top} {cores}", threads)
        threads = int(threads)
    if temp is not None:
        temp = _check_temp_directory(temp, names["temp_directory"])
    return Settings(memory, threads, temp)


def _check_memory_limit(value: object, name: str) -> None:
    expected = "a size such as '1GB', '500MB' or '80%' (of the machine's memory)"
    if not isinstance(value, str):
        raise _refused(name, expected, value)
    con = duckdb.connect()
    try:
        con.execute(f"SET memory_limit = {_text(value)}")
    except duckdb.Error as e:
        raise _refused(name, expected, value, f" ({str(e).splitlines()[0]})") from None
    finally:
        con.close()


def _check_temp_directory(value: object, name: str) -> str:
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise _refused(name, "a directory path (str or Path)", value)
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
        raise ParameterError(
            f"{name} {str(value)!r} {problem}; DuckDB spills its sorts and hash tables there.",
            parameter="duckdb_config",
            got=value,
        )
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
            f"folder ({e.strerror or e}).",
            parameter="duckdb_config",
            got=s.temp_directory,
        ) from None


def out_of_memory(error: Exception, s: Settings) -> ParameterError:
    """DuckDB's out-of-memory error in words: the limit that was hit and how to give it more room."""
    detail = str(error).strip().splitlines()[0]
    detail = detail.removeprefix("Out of Memory Error: ")
    return ParameterError(
        f"DuckDB ran out of memory under its memory limit of {s.memory_limit or DEFAULT_MEMORY_LIMIT} "
        f"({'the default; ' if s.memory_limit is None else ''}duckdb_config['memory_limit'], --memory-limit on the "
        f"command line): {detail}. Raise the limit, or give fewer threads (each one holds its own buffers).",
        parameter="duckdb_config",
        got=s.memory_limit,
    )


def _error(error: duckdb.Error, s: Settings) -> Exception:
    """A DuckDB error of a call with settings ``s`` as rankframe's exception."""
    if isinstance(error, duckdb.OutOfMemoryException):
        return out_of_memory(error, s)
    return translate_error(error)


def is_source(obj: object) -> bool:
    """True for what this module reads: a path (str or ``os.PathLike``) or a DuckDB relation."""
    return isinstance(obj, (str, os.PathLike)) or type(obj).__name__ == "DuckDBPyRelation"


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
_DATABASES: dict[tuple[str, int | None, str | None, int], tuple[duckdb.DuckDBPyConnection, str]] = {}
_LOCK = threading.Lock()


def _database(s: Settings) -> duckdb.DuckDBPyConnection:
    """A cursor on the process's database for these settings (made on first use, closed at exit)."""
    # the SQL kernels' version: a metric registered at run time (rankframe.sql.register) needs a new database
    key = (s.memory_limit or DEFAULT_MEMORY_LIMIT, s.threads, s.temp_directory, rf_sql.version())
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
    from ..tables.io import InputFileError

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
    with file_errors(str(source)), open(path, "rb") as f:
        head = f.read(4)
    file_type = file_kind(path, head)  # the one file-kind rule (rankframe.io.tables), as read_long reads it
    if file_type == "parquet":
        if not head:
            raise InputFileError(str(source), EMPTY_PARQUET)
        check_unique_names(_parquet_names(path), "ranking table")
        reader = f"read_parquet({_text(literal_path(path))})"
    elif file_type == "csv":
        delim = csv_delimiter(path)
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
    csv = label != "DuckDB relation" and suffix_kind(label) == "csv"
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
    from ..tables.io import read_long

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
                types = {n: str(t) for n, t in zip(source.columns, source.types)}

                def run(sql: str) -> Any:
                    return source.query("rf__src_rel", sql.replace("rf__raw", "rf__src_rel"))

            else:
                assert con is not None  # noqa: S101 - a path has its own connection
                con.execute("SET preserve_insertion_order = true")  # 'the first row' is the file's first row
                _, rel = _open(con, source)
                types = _describe(con, rel)
                names = list(types)

                def run(sql: str) -> Any:
                    return con.execute(sql)

            if system not in names:
                return Systems(names, [], None, 0, None)
            if _nested(types[system]):  # lists, structs, maps: the long table's rule of ids (not unhashable values)
                raise ValidationError([nested_failure(system, types[system])], table="ranking table")
            col = value_sql(system, types[system])  # a float NaN is no system, as on every road
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
