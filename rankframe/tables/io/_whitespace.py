"""Whitespace-separated text tables (the TREC formats): a fast parser and a robust one, both vectorised.

:func:`_parse` takes pyarrow's multi-threaded CSV reader when a file has exactly one kind of single-character
separator (:func:`_fast_parse`), and otherwise splits every line on runs of ASCII whitespace, trec_eval's rule
(:func:`_robust_parse`), which also produces the precise error messages. Nothing here loops over lines in
Python. :func:`_to_number` (text to finite numbers, naming the first bad value) serves the CSV reader too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ._files import _STR, InputFileError, PathLike, _check_text, _line_text

_BLOCK = 1 << 22  # pyarrow CSV block size: small enough to keep both cores busy on mid-size files
#: THE rule of a number written as text, on every road that reads text (CSV and TREC files through pyarrow, a CSV
#: file's view in DuckDB: ``engines.duckdb_view``): decimal digits, an optional point and exponent, or inf/infinity
#: (then refused as not finite). Text is not a grade: ``0x10`` (pyarrow's int64 cast read it as 16), ``1_000``
#: and ``+-1`` (DuckDB's CAST read them as 1000 and -1), ``nan``, ``1,5`` are not numbers. Surrounding whitespace
#: is trimmed first.
NUMBER_TEXT = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)$"
#: an integer written as text (the TREC files' ranks and grades)
INTEGER_TEXT = r"^[+-]?\d+$"
#: the only text outside :data:`NUMBER_TEXT` that pyarrow's casts and CSV reader take for a number (hexadecimal)
_PYARROW_EXTRA = "0x"


def _fast_parse(data: bytes, nfields: int, keep: dict[int, pa.DataType]) -> pa.Table | None:
    """Parse a file whose fields are separated by exactly one space (or one tab); None if it is not one.

    This is pyarrow's multi-threaded CSV reader with a one-character delimiter. It only accepts files where
    that reading and trec_eval's whitespace splitting agree: one kind of separator, no other whitespace
    character, exactly ``nfields`` fields a line (so no doubled, leading or trailing separator), no comment
    line. Anything else, including any error, returns None and the caller uses :func:`_robust_parse`, which
    also produces the precise error messages.
    """
    nl = data.find(b"\n")
    first = data[: nl if nl >= 0 else len(data)]
    delim, other = (b"\t", b" ") if b"\t" in first else (b" ", b"\t")
    if other in data or b"\x0b" in data or b"\x0c" in data:
        return None
    names = [f"f{i}" for i in range(nfields)]
    try:
        table = pcsv.read_csv(
            pa.py_buffer(data),
            read_options=pcsv.ReadOptions(column_names=names, block_size=_BLOCK),
            parse_options=pcsv.ParseOptions(delimiter=delim.decode(), quote_char=False, escape_char=False),
            convert_options=pcsv.ConvertOptions(
                include_columns=[names[i] for i in keep],
                column_types={names[i]: t for i, t in keep.items()},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, UnicodeDecodeError):
        return None
    if table.num_rows == 0:
        return None
    numbers = any(pa.types.is_integer(t) for t in keep.values())
    if numbers and (b"0x" in data or b"0X" in data):  # pyarrow's reader takes '0x10' for 16: NUMBER_TEXT decides
        return None
    first_col = table.column(0)
    if pa.types.is_large_string(first_col.type) and pc.any(pc.starts_with(first_col, "#")).as_py():
        return None  # a comment line that happened to have nfields words
    for col in table.columns:
        if pa.types.is_floating(col.type) and not pc.all(pc.is_finite(col)).as_py():
            return None
        if col.null_count:
            return None
    return table


def _lines(data: bytes, path: PathLike) -> list[pa.Array]:
    """Return the file's lines as chunks of a string column; row i of the concatenation is line i + 1."""
    if not data:
        return []
    i = data.find(b"\x1f")  # pyarrow splits fields on it below: a line holding one is not a TREC line
    if i >= 0:
        line = data.count(b"\n", 0, i) + 1
        raise InputFileError(path, "control character \\x1f in line", line, _line_text(data, line))
    table = pcsv.read_csv(
        pa.py_buffer(data),
        read_options=pcsv.ReadOptions(column_names=["line"], block_size=_BLOCK),
        parse_options=pcsv.ParseOptions(
            delimiter="\x1f", quote_char=False, escape_char=False, ignore_empty_lines=False
        ),
        convert_options=pcsv.ConvertOptions(
            column_types={"line": pa.binary()},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            null_values=[],
        ),
    )
    chunks = []
    offset = 0
    for chunk in table.column("line").chunks:
        try:
            chunks.append(chunk.cast(_STR))
        except pa.ArrowInvalid:
            for i, value in enumerate(chunk.to_pylist()):
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputFileError(
                        path, "not valid UTF-8 text", offset + i + 1, value.decode("utf-8", "replace")
                    ) from None
            raise
        offset += len(chunk)
    return chunks


def _first_bad(values: pa.Array, pattern: str) -> int | None:
    """Index of the first (non-null) value not matching the regex ``pattern``."""
    ok = pc.fill_null(pc.match_substring_regex(values, pattern), True)
    bad = np.flatnonzero(~ok.to_numpy(zero_copy_only=False))
    return int(bad[0]) if len(bad) else None


def _robust_parse(
    data: bytes, path: PathLike, fields: Sequence[str], keep: dict[int, pa.DataType], what: str
) -> tuple[pa.Table, np.ndarray]:
    """Split every line on runs of ASCII whitespace (trec_eval's rule), vectorised with pyarrow compute.

    Returns the kept fields and the 1-based line number of each row. Raises InputFileError on the first
    malformed line: wrong number of fields, a number that does not parse, no data at all. A run line may
    have fields after the tag (trec_eval ignores them); a qrels line has exactly four. Blocks of lines are
    processed on all cores (pyarrow compute releases the GIL); the first error in file order wins.
    """
    chunks = _lines(data, path)
    starts = np.cumsum([0, *(len(c) for c in chunks)])[:-1]

    def one(k: int) -> tuple[pa.Table, np.ndarray] | None:
        return _parse_block(chunks[k], int(starts[k]), path, fields, keep, what == "run")

    if len(chunks) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max(1, min(len(chunks), os.cpu_count() or 1))) as pool:
            done = list(pool.map(one, range(len(chunks))))  # re-raises the first failing block's error
    else:
        done = [one(k) for k in range(len(chunks))]
    parts = [d for d in done if d is not None]
    if not parts:
        raise InputFileError(path, f"empty file: no {what} lines ({' '.join(fields)})")
    return pa.concat_tables([t for t, _ in parts]), np.concatenate([n for _, n in parts])


def _parse_block(
    chunk: pa.Array, offset: int, path: PathLike, fields: Sequence[str], keep: dict[int, pa.DataType], extra_ok: bool
) -> tuple[pa.Table, np.ndarray] | None:
    """Parse one block of lines (line ``offset + 1`` first); None when it holds no data line."""
    nfields = len(fields)
    trimmed = pc.ascii_trim_whitespace(chunk)
    data_mask = pc.invert(pc.or_(pc.equal(trimmed, ""), pc.starts_with(trimmed, "#")))
    rows = np.flatnonzero(data_mask.to_numpy(zero_copy_only=False))
    if len(rows) == 0:
        return None
    split = pc.ascii_split_whitespace(trimmed.filter(data_mask))
    counts = pc.list_value_length(split).to_numpy(zero_copy_only=False)
    wrong = np.flatnonzero((counts < nfields) if extra_ok else (counts != nfields))
    if len(wrong):
        i = int(wrong[0])
        least = "at least " if extra_ok else ""
        raise InputFileError(
            path,
            f"expected {least}{nfields} whitespace-separated fields ({' '.join(fields)}), found {int(counts[i])}",
            offset + int(rows[i]) + 1,
            chunk[int(rows[i])].as_py(),
        )
    cols = []
    for j, typ in keep.items():
        col = pc.list_element(split, j)
        if not pa.types.is_large_string(typ):
            col, bad = _to_number(col, typ)
            if bad is not None:
                i, value, kind = bad
                raise InputFileError(
                    path,
                    f"{fields[j]} is not {kind}: {value!r}",
                    offset + int(rows[i]) + 1,
                    chunk[int(rows[i])].as_py(),
                )
        cols.append(col)
    return pa.table(cols, names=[f"f{i}" for i in keep]), rows + offset + 1


def _to_number(col: pa.Array, typ: pa.DataType) -> tuple[pa.Array, tuple[int, str, str] | None]:
    """Cast text to ``typ``; on failure also the index and text of the first bad value, and what it is not.

    Nulls stay nulls. A float must be finite: ``nan`` is "not a number", ``inf``, ``-inf`` and values beyond
    the float range such as ``1e400`` are "not a finite number".
    """
    floating = pa.types.is_floating(typ)
    kind = "a number" if floating else "an integer"
    pattern = NUMBER_TEXT if floating else INTEGER_TEXT
    try:
        out = col.cast(typ)
    except pa.ArrowInvalid:
        i = _first_bad(col, pattern)
        if i is None:  # matches the pattern yet does not cast, e.g. an integer too large for int64
            i = next(k for k, v in enumerate(col.to_pylist()) if v is not None and not _castable(v, typ))
        return col, (i, col[i].as_py(), kind)
    if beyond_decimal(col):  # the cast took '0x10' for 16
        i = _first_bad(pc.utf8_trim_whitespace(col), pattern)
        if i is not None:
            return col, (i, col[i].as_py(), kind)
    if floating:
        finite = pc.fill_null(pc.is_finite(out), True)
        if not pc.all(finite).as_py():
            i = int(np.flatnonzero(~finite.to_numpy(zero_copy_only=False))[0])
            nan = pc.is_nan(out[i]).as_py()
            return col, (i, col[i].as_py(), kind if nan else "a finite number")
    return out, None


def beyond_decimal(col: pa.Array) -> bool:
    """Whether text may hold what pyarrow reads as a number and :data:`NUMBER_TEXT` does not (a cheap scan)."""
    return bool(pc.any(pc.match_substring(col, _PYARROW_EXTRA, ignore_case=True)).as_py())


def _castable(value: str, typ: pa.DataType) -> bool:
    try:
        pa.array([value]).cast(typ)
    except pa.ArrowInvalid:
        return False
    return True


def _parse(
    data: bytes,
    path: PathLike,
    fields: Sequence[str],
    keep: dict[int, pa.DataType],
    what: str,
    *,
    need_lines: bool = False,
) -> tuple[pa.Table, np.ndarray | None]:
    """Fast path when the file allows it, the robust whitespace split otherwise."""
    _check_text(data, path, what)
    if not need_lines:
        table = _fast_parse(data, len(fields), keep)
        if table is not None:
            return table.rename_columns([f"f{i}" for i in keep]), None
    return _robust_parse(data, path, fields, keep, what)
