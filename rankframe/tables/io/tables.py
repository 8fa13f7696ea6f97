"""Long tables in files: read and write Parquet and CSV, and THE rule that tells the two (and TREC) apart.

The file-kind rule is written once, here (:func:`file_kind`): a name ending in one of :data:`PARQUET_SUFFIXES`
or content starting with Parquet's magic bytes ``PAR1`` is Parquet (the content wins over a ``.csv`` name);
otherwise a name ending in one of :data:`CSV_SUFFIXES` is CSV (tab-separated for ``.tsv``, see
:func:`csv_delimiter`); anything else is not a long table (the command line reads it as a TREC run). Case is
ignored. :func:`read_long`, :func:`write_long`, the command line and the DuckDB file road
(``rankframe.engines.duckdb_source``) all ask this module.

Every reader returns a pandas DataFrame in rankframe's long format (one row per (query, item)); CSV ids are read
as text. Files are parsed by pyarrow's multi-threaded CSV reader, never line by line in Python. Malformed input
raises :class:`InputFileError` naming the file, the line number and the line.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ...core.columns import Columns
from ...core.errors import check_unique_names
from ._files import (
    _STR,
    InputFileError,
    PathLike,
    _check_text,
    _open_text,
    _read_bytes,
    file_errors,
    is_regular_file,
    peek,
)
from ._whitespace import _to_number, beyond_decimal

#: file names read as Parquet (whatever their content) and written as Parquet
PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
#: file names read and written as CSV (``.tsv``: tab-separated; ``.gz``: gzipped) unless the content is Parquet
CSV_SUFFIXES = (".csv", ".tsv", ".csv.gz", ".tsv.gz")
#: every name that says "a long table" (the rest is a TREC file unless its content is Parquet)
LONG_SUFFIXES = PARQUET_SUFFIXES + CSV_SUFFIXES
#: the first bytes of every Parquet file
PARQUET_MAGIC = b"PAR1"
#: a Parquet file of 0 bytes (no footer): the words of every reader
EMPTY_PARQUET = "empty file: 0 bytes, not a Parquet file"

FileKind = Literal["parquet", "csv"]


def suffix_kind(path: PathLike) -> FileKind | None:
    """What a file's name alone says it is: ``"parquet"``, ``"csv"`` or None (case ignored; no file is read).

    For writing (where there is no content yet) and where only the name may decide; reading asks
    :func:`file_kind`.
    """
    name = str(path).lower()
    if name.endswith(PARQUET_SUFFIXES):
        return "parquet"
    if name.endswith(CSV_SUFFIXES):
        return "csv"
    return None


def file_kind(path: PathLike, head: bytes | None = None) -> FileKind | None:
    """The kind of long table a file holds: ``"parquet"``, ``"csv"``, or None when it is not one.

    Parquet by its name or by its first four bytes (``PAR1``, even under a ``.csv`` name), else CSV by its
    name. ``head`` is the file's first bytes when the caller has them; otherwise they are read with :func:`peek`
    (only when the name is not already a Parquet name; a pipe is read once, whole, and kept for its reader). A
    file that cannot be opened has no content to tell: its name decides.

    >>> file_kind("run.PARQ"), file_kind("t.tsv.gz", head=b"q,i,"), file_kind("x.csv", head=b"PAR1")
    ('parquet', 'csv', 'parquet')
    >>> file_kind("run.txt", head=b"1 Q0") is None
    True
    """
    by_name = suffix_kind(path)
    if by_name == "parquet":
        return by_name
    if head is None:
        try:
            head = peek(path, len(PARQUET_MAGIC))
        except OSError:
            head = b""
    if head[: len(PARQUET_MAGIC)] == PARQUET_MAGIC:
        return "parquet"
    return by_name


def is_long(path: PathLike) -> bool:
    """Whether a file is a long table (Parquet or CSV, :func:`file_kind`) rather than a TREC file."""
    return file_kind(path) is not None


def csv_delimiter(path: PathLike) -> str:
    """The delimiter of a CSV file by its name: a tab for ``.tsv`` (also ``.tsv.gz``), else a comma."""
    return "\t" if str(path).lower().removesuffix(".gz").endswith(".tsv") else ","


# ----------------------------------------------------------------------------------------------------------
# reading


def read_long(
    path: PathLike, *, columns: Columns | None = None, numeric: Sequence[str] = (), **names: str
) -> pd.DataFrame:
    """Read a long-format table from Parquet or CSV (also ``.csv.gz``, ``.tsv``).

    Parquet keeps the file's column types. In CSV every column is read as **text** (ids such as ``"007"``
    stay strings, segment values too) except the rank, relevance and score columns (named by ``columns`` or
    the keyword arguments ``query=``, ``item=``, ``rank=``, ``relevance=``, ``score=``) and the columns
    listed in ``numeric``: those must hold finite numbers (int64 when every value is an integer, float64
    otherwise) or be empty (null). Anything else (``abc``, ``NA``, ``nan``, ``inf``, ``1e400``), a row with
    the wrong number of cells, binary data or an empty file (not even a header) raises :class:`InputFileError`
    naming the file and the line. A header without data lines (or a Parquet file without rows) is a table
    without rows; a column name given twice is a :class:`~rankframe.ValidationError`, as on every input road
    (``docs/inputs.md``). ``path`` names exactly one file: ``x[1].parquet`` is that file, never a pattern.
    A pipe (``/dev/stdin``, a FIFO) is read once, whole (see :func:`peek`); a cell may be longer than
    Python's csv limit of 131,072 characters.
    """
    c = (columns or Columns()).with_(**names)
    with file_errors(path):
        head = peek(path, len(PARQUET_MAGIC))
    if file_kind(path, head) == "parquet":  # anything else is read as CSV, whatever its name
        return _read_parquet(path, empty=not head)
    data = _read_bytes(path)
    if not data.strip():
        raise InputFileError(path, "empty file: no header line")
    _check_text(data, path, "CSV")
    delim = csv_delimiter(path)
    body = data.lstrip(b"\r\n")  # pyarrow skips blank lines, also before the header
    header_line = data[: len(data) - len(body)].count(b"\n") + 1
    cut = min((i for i in (body.find(b"\n"), body.find(b"\r")) if i >= 0), default=len(body))
    header = body[:cut]
    # the names exactly as pyarrow reads them (a UTF-8 byte-order mark dropped, quotes undone, spaces kept), so
    # that every column is typed as text below: a name read differently would be type-inferred ('007' -> 7)
    cols = _csv_cells(header.decode("utf-8-sig", "replace"), delim)
    check_unique_names(cols, "ranking table")  # the rule of every road (docs/inputs.md)
    numbers = {c.rank, c.relevance, c.score, *numeric}
    # pyarrow parses the number columns itself (only an empty cell is null); when that leaves anything but
    # finite numbers, they are read again as text and checked one by one, which names the first bad cell
    # a header without data lines is a table without rows: the empty answer on every road (docs/inputs.md)
    table = _read_csv(data, path, delim, cols, {h: _STR for h in cols if h not in numbers})
    inferred = [f.name for f in table.schema if f.type != _STR and f.name not in numbers]
    if inferred:  # never silently: the header was read differently from the way pyarrow read it
        raise InputFileError(
            path, f"could not read column {inferred[0]!r} as text", header_line, header.decode("utf-8", "replace")
        )
    numeric_cols = [h for h in table.column_names if h in numbers]
    # pyarrow reads '0x10' as the integer 16, which is not a number as text (_whitespace.NUMBER_TEXT): a file with
    # such a cell reads every column as text, and _csv_number refuses it as it refuses any other text
    hexed = b"0x" in data or b"0X" in data
    if hexed or not all(_finite_numbers(table.column(h)) for h in numeric_cols):
        table = _read_csv(data, path, delim, cols, {h: _STR for h in cols})
    for h in numeric_cols:
        col = table.column(h)
        if pa.types.is_null(col.type):
            col = col.cast(pa.float64())  # every cell empty
        elif col.type == _STR:
            col = _csv_number(col.combine_chunks(), h, data, path)
        table = table.set_column(table.column_names.index(h), h, col)
    return table.to_pandas()


def _read_csv(data: bytes, path: PathLike, delim: str, cols: list[str], types: dict[str, pa.DataType]) -> pa.Table:
    try:
        return pcsv.read_csv(
            pa.py_buffer(data),
            parse_options=pcsv.ParseOptions(delimiter=delim),
            # an empty cell is null in every column, text too (a null id, as DuckDB's CSV road and pandas read it)
            convert_options=pcsv.ConvertOptions(column_types=types, strings_can_be_null=True, null_values=[""]),
        )
    except pa.ArrowException as e:
        raise _csv_error(data, path, delim, len(cols), e) from None


def _finite_numbers(col: pa.ChunkedArray) -> bool:
    """Whether pyarrow read a column as numbers (or all nulls), all of them finite."""
    if pa.types.is_null(col.type) or pa.types.is_integer(col.type):
        return True
    if pa.types.is_floating(col.type):
        return bool(pc.all(pc.fill_null(pc.is_finite(col), True)).as_py())
    return False


def _read_parquet(path: PathLike, *, empty: bool) -> pd.DataFrame:
    import pyarrow.parquet as pq

    if empty:
        raise InputFileError(path, EMPTY_PARQUET)
    piped = None if is_regular_file(path) else _read_bytes(path)  # a pipe (not seekable): the bytes read once
    try:
        parquet = pq.ParquetFile(Path(path) if piped is None else pa.BufferReader(piped))  # one footer read
        check_unique_names(parquet.schema_arrow.names, "ranking table")  # the rule of every road
        table = parquet.read()  # (pq.read_table stops on a repeated name with its own "Multiple matches")
    except (pa.ArrowException, OSError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputFileError(path, f"not a readable Parquet file ({first})") from None
    return table.to_pandas()  # no rows: an empty table, the empty answer on every road (docs/inputs.md)


def _csv_number(col: pa.Array, name: str, data: bytes, path: PathLike) -> pa.Array:
    """Cast a CSV text column to int64 (all integers) or float64; empty cells are nulls, all else finite."""
    trimmed = pc.utf8_trim_whitespace(col)
    values = pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, trimmed.type), trimmed)
    if not beyond_decimal(values):  # else the float cast below names the '0x10' (_whitespace.NUMBER_TEXT)
        try:
            return values.cast(pa.int64())
        except pa.ArrowInvalid:
            pass
    out, bad = _to_number(values, pa.float64())
    if bad is None:
        return out
    i, value, kind = bad
    line, text = _csv_row_line(data, i)
    raise InputFileError(
        path, f"{name} is not {kind}: {value!r} (leave the cell empty for a missing value)", line, text
    )


def _csv_row_line(data: bytes, row: int) -> tuple[int, str]:
    """Line number and text of data row ``row`` (0-based) of a CSV file (error paths only).

    pyarrow reads one row per line (no newlines inside values) and skips empty lines; line breaks are
    LF, CRLF or CR, as in ``bytes.splitlines``.
    """
    lines = data.splitlines()
    filled = [k for k, line in enumerate(lines) if line]
    k = filled[row + 1]  # after the header
    return k + 1, lines[k].decode("utf-8", "replace")


def _csv_cells(line: str, delim: str) -> list[str]:
    """The cells of one CSV line, by Python's csv module, without its cap of 131,072 characters per cell.

    (pyarrow reads any cell length; a longer cell here raised a bare ``_csv.Error``.) The cap is raised to the
    line's length for this line only, then put back.
    """
    limit = csv.field_size_limit()
    if len(line) < limit:
        return next(csv.reader([line], delimiter=delim), [])
    csv.field_size_limit(len(line) + 1)
    try:
        return next(csv.reader([line], delimiter=delim), [])
    finally:
        csv.field_size_limit(limit)


def _csv_error(data: bytes, path: PathLike, delim: str, ncols: int, error: Exception) -> InputFileError:
    """Find the line pyarrow's CSV reader stumbled on, with Python's csv module (error path only)."""
    for k, raw in enumerate(data.splitlines()):
        if not raw:
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            return InputFileError(path, "not valid UTF-8 text", k + 1, raw.decode("utf-8", "replace"))
        n = len(_csv_cells(line, delim))
        if n != ncols:
            return InputFileError(path, f"expected {ncols} columns, found {n}", k + 1, line)
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return InputFileError(path, f"cannot parse CSV ({first})")


# ----------------------------------------------------------------------------------------------------------
# writing


def write_long(df: pd.DataFrame, path: PathLike) -> None:
    """Write a long table as Parquet (``.parquet``, ``.pq``) or CSV (``.csv``, ``.tsv``, also ``.gz``)."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    if suffix_kind(path) == "parquet":  # no content to sniff yet: the name decides (any other name is CSV)
        import pyarrow.parquet as pq

        pq.write_table(table, path)
        return
    with _open_text(path) as f:
        pcsv.write_csv(table, f, pcsv.WriteOptions(delimiter=csv_delimiter(path)))
