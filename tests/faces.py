"""Small adapters that run one evaluation through each face of rankframe and return ``{metric: mean}``.

Faces: ``evaluate`` on the pandas and the DuckDB engine, the accessor, the CLI (in-process, on a Parquet copy of
the table) and the SQL table macro ``rf_means`` (DuckDB, on the registered frame). Errors come back as an
``Outcome`` with the exception (Python faces), or the exit code and stderr (CLI), or the DuckDB error (SQL), so
one test body can hold every face to the same expectation.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

import rankframe
from rankframe import cli

PY_FACES = ("pandas", "duckdb", "accessor")


@dataclass
class Outcome:
    """What a face gave: means per metric, or an error (type name and message)."""

    means: dict | None = None
    error: str | None = None  # class name of the exception, "exit 2", or the DuckDB error class
    message: str = ""
    exception: BaseException | None = None


def _means(frame: pd.DataFrame) -> dict:
    frame = frame.drop(columns=[c for c in ("n", "std_err", "ci_low", "ci_high") if c in frame.columns])
    if "metric" in frame.columns and len(frame.columns) == 2:
        return dict(zip(frame["metric"], frame["value"]))
    return {tuple(r[:-2]) + (r[-2],): r[-1] for r in frame.itertuples(index=False)}


def run_python(face: str, df, metrics, **kw) -> Outcome:
    """evaluate on the pandas or DuckDB engine, or the accessor's evaluate."""
    try:
        if face == "accessor":
            res = df.rank_metrics.evaluate(metrics, **kw)
        else:
            res = rankframe.evaluate(df, metrics, engine=face, **kw)
    except rankframe.RankframeError as e:
        return Outcome(error=type(e).__name__, message=str(e), exception=e)
    return Outcome(means=_means(res))


def run_cli(tmp_path: Path, df: pd.DataFrame, metrics: list[str], extra: tuple[str, ...] = ()) -> Outcome:
    """``rankframe evaluate table.parquet -m ... --format csv`` in-process; means from its CSV output."""
    path = tmp_path / "table.parquet"
    df.to_parquet(path)
    args = ["evaluate", str(path), *[a for m in metrics for a in ("-m", m)], "--format", "csv", "--no-progress", *extra]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(args)
        except SystemExit as e:  # argparse usage errors
            code = int(e.code or 0)
    if code != 0:
        return Outcome(error=f"exit {code}", message=err.getvalue())
    table = pd.read_csv(io.StringIO(out.getvalue()))
    if "metric" in table.columns:
        return Outcome(means=dict(zip(table["metric"], table["value"])))
    return Outcome(means={m: float(table[m].iloc[0]) for m in table.columns})


@functools.lru_cache(maxsize=1)
def _macro_database(version: int) -> duckdb.DuckDBPyConnection:
    return rankframe.sql.install(duckdb.connect())


def macro_connection() -> duckdb.DuckDBPyConnection:
    """A new connection to one in-memory database per process where rankframe's macros are installed once.

    Installing the macros takes ~0.7 CPU-s; a cursor takes none. Each cursor has its own registered frames and
    temporary views; the catalog (the macros, and any table or view created) is shared: create no table or
    persistent view on it, change no global setting (threads, memory), close it when done. A metric registered
    since (``rankframe.sql.version()``: tests/project/test_add_a_metric.py) gets a database of its own.
    """
    return _macro_database(rankframe.sql.version()).cursor()


def run_sql(df: pd.DataFrame, sql_args: str = "", columns: str = "*") -> Outcome:
    """``SELECT <columns> FROM rf_means('t', <sql_args>)`` on the registered frame; one row per segment."""
    con = macro_connection()
    try:
        con.register("t", df)
        sep = ", " if sql_args else ""
        res = con.execute(f"SELECT {columns} FROM rf_means('t'{sep}{sql_args})").df()
    except duckdb.Error as e:
        return Outcome(error=type(e).__name__, message=str(e))
    finally:
        con.close()
    return Outcome(means=res.to_dict("list"))


def assert_error(outcome: Outcome, kinds: tuple[str, ...], pattern: str, face: str) -> None:
    """The face failed with one of the expected error kinds and a message matching ``pattern``."""
    assert outcome.error is not None, f"{face}: expected an error matching {pattern!r}, got {outcome.means}"
    assert outcome.error in kinds, f"{face}: expected {kinds}, got {outcome.error}: {outcome.message}"
    assert re.search(pattern, outcome.message, flags=re.S), (
        f"{face}: message does not match {pattern!r}:\n{outcome.message}"
    )
