"""Read and write ranking files: TREC runs and qrels, Parquet/CSV long tables; trec_eval's output lines.

Every reader returns a pandas DataFrame in rankframe's long format (one row per (query, item)), with ids kept
as strings. Files are parsed by pyarrow's multi-threaded CSV reader, never line by line in Python. Malformed
input raises :class:`InputFileError` naming the file, the line number and the line. The package has one
module per job: ``_files`` (bytes, gzip, pipes, error lines), ``_whitespace`` (the TREC formats' parsers),
``trec`` (runs and qrels), ``tables`` (Parquet/CSV and the one file-kind rule) and ``trec_eval`` (its names
and output lines).

:func:`read_trec` (a run joined with its qrels) is a join, so it lives in :mod:`rankframe.join` with the one
join rule; ``rankframe.io.read_trec`` is that same function, looked up on first use so that this package never
imports the join (which would close the circle io -> join -> schema -> inputs -> io).

Like trec_eval, :func:`read_trec` orders each query's documents by **score** descending, ties by docno
descending, and ignores the run's rank column: the long table it returns has a ``score`` column and no
``rank`` column, so rankframe derives exactly trec_eval's order.

Examples
--------
>>> import rankframe.io as rio
>>> df = rio.read_trec("examples/tiny.run", "examples/tiny.qrels")  # the bundled files (from the repository root)
>>> df.rank_metrics.evaluate(["nDCG@10", "AP"], by=["system"]).round(4)
  system   metric   value  n
0   tiny  nDCG@10  0.3675  3
1   tiny       AP  0.3889  3
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._files import InputFileError, PathLike, is_regular_file, peek
from .tables import (
    CSV_SUFFIXES,
    LONG_SUFFIXES,
    PARQUET_MAGIC,
    PARQUET_SUFFIXES,
    csv_delimiter,
    file_kind,
    is_long,
    read_long,
    suffix_kind,
    write_long,
)
from .trec import QRELS_FIELDS, RUN_FIELDS, read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run
from .trec_eval import TREC_COUNTS, TREC_ORDER, trec_line, trec_lines, trec_name

if TYPE_CHECKING:
    from ..join import read_trec

__all__ = [
    "InputFileError",
    "read_trec_run",
    "read_trec_qrels",
    "read_trec",
    "read_long",
    "write_trec_run",
    "write_trec_qrels",
    "write_long",
    "RUN_FIELDS",
    "QRELS_FIELDS",
    # the one file-kind rule (rankframe.io.tables)
    "PARQUET_SUFFIXES",
    "CSV_SUFFIXES",
    "LONG_SUFFIXES",
    "PARQUET_MAGIC",
    "file_kind",
    "suffix_kind",
    "is_long",
    "csv_delimiter",
    # trec_eval's names and output (rankframe.io.trec_eval)
    "TREC_COUNTS",
    "TREC_ORDER",
    "trec_line",
    "trec_lines",
    "trec_name",
    # file helpers the command line uses
    "PathLike",
    "is_regular_file",
    "peek",
]


def __getattr__(name: str) -> Any:
    # read_trec is the join's (rankframe.join.read_trec); importing it only when asked for keeps this package
    # below the join in the import graph (no circle io -> join -> ... -> io at import time)
    if name == "read_trec":
        from ..join import read_trec

        return read_trec
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
