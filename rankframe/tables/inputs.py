"""The one input layer: any table a user has → the pandas frame the engines read, and results back out.

Accepted (``docs/inputs.md``):

* a pandas DataFrame: used as it is (never copied, never modified);
* a pyarrow ``Table``, ``RecordBatch`` or ``RecordBatchReader``, and any object that exports the Arrow PyCapsule
  stream interface (``__arrow_c_stream__``: polars, DuckDB relations, nanoarrow, ...);
* a polars ``DataFrame`` or ``LazyFrame`` (collected first), read through Arrow;
* a ``str`` / ``os.PathLike`` path to a Parquet or CSV file (read with :func:`rankframe.read_long`).

Arrow data becomes pandas with ``Table.to_pandas(split_blocks=True)``: the same dtypes as the default
``to_pandas()`` (so a table and its ``to_pandas()`` give identical results, ids and dtypes included), and
numeric columns without nulls are handed over without a copy. Every rule and message then comes from the one
pandas validation (:func:`rankframe.validate`), whatever the input.

Nothing here imports polars: a polars object is recognised by its type's module, and polars is imported only to
give a polars result (``output="polars"``), with an error that names the extra when it is absent.
"""

from __future__ import annotations

import os
from typing import Any, Literal, cast, get_args

import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, RankframeError, install_extra
from .schema import numbers_as_float  # the decimal rule is a table rule (rankframe.schema)

#: what ``output=`` accepts (the type of every public ``output=``)
Output = Literal["pandas", "arrow", "polars"]
OUTPUTS: tuple[Output, ...] = get_args(Output)
#: the accepted input kinds, as the error message lists them
ACCEPTED = (
    "a pandas DataFrame, a pyarrow Table/RecordBatchReader, a polars DataFrame/LazyFrame, a DuckDB relation, "
    "any object with __arrow_c_stream__, or a path to a Parquet/CSV file"
)


def _module(obj: object) -> str:
    return type(obj).__module__.split(".", 1)[0]


def kind(data: object) -> str:
    """The kind of a table: pandas, arrow, polars, polars-lazy, relation, stream, path or spark.

    ``unknown`` for anything else (a list, a dict, a Series, None, ...).
    """
    if isinstance(data, pd.DataFrame):
        return "pandas"
    if isinstance(data, (pd.Series, pd.Index)):
        return "unknown"  # a column (pandas 3 Series export an Arrow stream of one array, not a table)
    if isinstance(data, (str, os.PathLike)):
        return "path"
    module = _module(data)
    if module == "pyarrow":
        import pyarrow as pa

        if isinstance(data, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
            return "arrow"
        return "unknown"  # an Array/ChunkedArray/Schema is not a table
    if module == "polars":
        name = type(data).__name__
        if name == "DataFrame":
            return "polars"
        if name == "LazyFrame":
            return "polars-lazy"
        return "unknown"  # a polars Series is a column, not a table
    if module == "duckdb" and hasattr(data, "arrow"):
        return "relation"
    if module == "pyspark":
        return "spark"  # a Spark (or pandas-on-Spark) DataFrame: rankframe.spark keeps the job on the cluster
    if hasattr(data, "__arrow_c_stream__"):
        return "stream"
    return "unknown"


def type_error(data: object, owner: str, name: str) -> ParameterError:
    """The error for a table argument of an unsupported type (a Spark DataFrame gets a pointer to rankframe.spark)."""
    if kind(data) == "spark":
        # collecting a Spark table to the driver is exactly what a Spark user must not do by accident
        return ParameterError(
            f"The {name!r} parameter of {owner} is a Spark DataFrame ({type(data).__name__}); rankframe.{owner} "
            f"reads tables on one machine. Use rankframe.spark.{owner}(sdf, ...) to compute on Spark with the same "
            f"definitions (docs/spark.md), or pass sdf.toPandas() if the table is small.",
            owner=owner,
            parameter=name,
        )
    return ParameterError(
        f"The {name!r} parameter of {owner} must be a table: {ACCEPTED}. Got {type(data).__name__} instead.",
        owner=owner,
        parameter=name,
    )


def to_pandas(
    data: object, *, owner: str = "evaluate", name: str = "df", columns: Columns | None = None
) -> pd.DataFrame:
    """The table ``data`` as a pandas DataFrame (the same object for a pandas input).

    Raises
    ------
    ParameterError
        ``data`` is not a table (a list, a dict, a Series, None, ...), or an Arrow/polars table that cannot be
        read (a column type pandas cannot hold), naming the parameter.
    """
    k = kind(data)
    if k == "pandas":
        frame = data
    elif k in ("unknown", "spark"):
        raise type_error(data, owner, name)
    elif k == "path":
        # SQLFAST's file road (DuckDB, without pandas) replaces this where the caller can take it
        from .io.tables import read_long

        frame = read_long(data, columns=columns)  # type: ignore[arg-type]
    else:
        frame = arrow_to_pandas(to_arrow(data, owner=owner, name=name), owner=owner, name=name)
    return numbers_as_float(frame, columns or Columns())  # type: ignore[arg-type]


def to_arrow(data: object, *, owner: str = "evaluate", name: str = "df"):
    """An Arrow-backed table (``pa.Table``) for any non-pandas table kind (read fully into memory)."""
    import pyarrow as pa

    k = kind(data)
    if k == "spark":
        raise type_error(data, owner, name)
    try:
        if k == "polars-lazy":
            data = data.collect()  # type: ignore[attr-defined]
            k = "polars"
        if k == "polars":
            # polars exports Object columns as raw pointers (fixed_size_binary): ids would be silently wrong
            objects = [c for c, t in data.schema.items() if str(t) == "Object"]  # type: ignore[attr-defined]
            if objects:
                raise ParameterError(
                    f"The {name!r} parameter of {owner}: column {objects[0]!r} is a polars Object column, which "
                    "Arrow cannot carry (mixed Python values); cast it to pl.String or an integer type first.",
                    owner=owner,
                    parameter=name,
                )
            return data.to_arrow()  # type: ignore[attr-defined]
        if k == "relation":
            out = data.arrow()  # type: ignore[attr-defined]
            return out.read_all() if isinstance(out, pa.RecordBatchReader) else out
        if isinstance(data, pa.Table):
            return data
        if isinstance(data, pa.RecordBatch):
            return pa.Table.from_batches([data])
        if isinstance(data, pa.RecordBatchReader):
            return data.read_all()
        if k == "stream":
            return pa.RecordBatchReader.from_stream(data).read_all()
    except RankframeError:
        raise
    except Exception as e:  # noqa: BLE001 - a foreign library's failure, reported as ours
        raise ParameterError(
            f"The {name!r} parameter of {owner}: could not read the {type(data).__name__} as an Arrow table "
            f"({type(e).__name__}: {e})",
            owner=owner,
            parameter=name,
        ) from None
    raise type_error(data, owner, name)


def arrow_to_pandas(table: Any, *, owner: str = "evaluate", name: str = "df") -> pd.DataFrame:
    """``table.to_pandas()`` (same dtypes), without copying numeric columns that have no nulls."""
    import pyarrow as pa

    try:
        return table.to_pandas(split_blocks=True)
    except (pa.ArrowException, TypeError, ValueError) as e:
        column = next((f for f in table.schema if not _converts(table.column(f.name))), None)
        where = f"column {column.name!r} ({column.type})" if column is not None else "the table"
        raise ParameterError(
            f"The {name!r} parameter of {owner}: {where} has no pandas equivalent ({type(e).__name__}: {e}); "
            "cast it to a numeric or string type first.",
            owner=owner,
            parameter=name,
        ) from None


def _converts(column: Any) -> bool:
    import pyarrow as pa

    try:
        column.slice(0, 1).to_pandas()
    except (pa.ArrowException, TypeError, ValueError):
        return False
    return True


def check_output(output: object, owner: str = "evaluate") -> Output:
    """``output=`` checked: one of :data:`OUTPUTS`."""
    if not isinstance(output, str) or output.lower() not in OUTPUTS:
        raise ParameterError.of(owner, "output", f"one of {', '.join(map(repr, OUTPUTS))}", output)
    return cast("Output", output.lower())


def from_pandas(frame: pd.DataFrame, output: str):
    """A result frame as ``output`` asks: itself, a ``pyarrow.Table``, or a ``polars.DataFrame``."""
    if output == "pandas":
        return frame
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if output == "arrow":
        return table
    pl = import_polars()
    return pl.from_arrow(table)


def import_polars():
    """Import polars, or raise the error that names the extra to install."""
    try:
        import polars as pl
    except ImportError:
        raise RankframeError(
            'polars is not installed; output="polars" and the polars rank_metrics namespace need it: '
            + install_extra("polars")
        ) from None
    return pl
