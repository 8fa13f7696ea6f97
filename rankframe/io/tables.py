"""Read and write ranking files: TREC runs and qrels, Parquet/CSV long tables.

Every reader returns a pandas DataFrame in rankframe's long format (one row per (query, item)), with ids kept
as strings. Files are parsed by pyarrow's multi-threaded CSV reader, never line by line in Python, and joined
by DuckDB. Malformed input raises :class:`InputFileError` naming the file, the line number and the line.

TREC run lines are ``qid Q0 docno rank score tag`` and qrels lines ``qid iteration docno relevance``, fields
separated by any run of spaces or tabs. Blank lines and lines starting with ``#`` are skipped (trec_eval 10).
Gzipped files are recognised by their content, whatever their name.

Like trec_eval, :func:`read_trec` orders each query's documents by **score** descending, ties by docno
descending, and ignores the run's rank column: the long table it returns has a ``score`` column and no
``rank`` column, so rankframe derives exactly trec_eval's order.

Examples
--------
>>> import rankframe.io as rio
>>> df = rio.read_trec("examples/tiny.run", "examples/tiny.qrels")  # doctest: +SKIP
>>> df.rank_metrics.evaluate(["nDCG@10", "AP"], by=["system"])  # doctest: +SKIP
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import stat
import warnings
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ..columns import Columns
from ..errors import RankframeError, check_unique_names

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
]

PathLike = str | os.PathLike

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iteration", "docno", "relevance")

_SHOW = 120  # characters of an offending line shown in an error message
_BLOCK = 1 << 22  # pyarrow CSV block size: small enough to keep both cores busy on mid-size files
_NUMBER = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)$"
_INTEGER = r"^[+-]?\d+$"
_STR = pa.large_string()  # what pandas' ``str`` dtype holds: parsing straight into it avoids a copy


class InputFileError(RankframeError):
    """A file that cannot be read or does not follow its format.

    The message is one line: ``<file>, line <n>: <what is wrong>: '<the offending line>'``. The parts are
    kept as attributes ``path``, ``line`` (1-based, or None) and ``text`` (the offending line, or None).
    """

    def __init__(self, path: PathLike, problem: str, line: int | None = None, text: str | None = None):
        self.path = str(path)
        self.line = line
        self.text = text
        self.problem = problem
        where = self.path if line is None else f"{self.path}, line {line}"
        msg = f"{where}: {problem}"
        if text is not None:
            shown = text if len(text) <= _SHOW else text[:_SHOW] + "..."
            msg += f": {shown!r}"
        super().__init__(msg)


# ----------------------------------------------------------------------------------------------------------
# raw bytes


#: the content of the non-seekable inputs read so far (a pipe such as ``/dev/stdin``, a FIFO), by the pipe's
#: (device, inode): a pipe gives its bytes once, so a second look (the format sniffing of ``peek``, an error
#: message that quotes a line) reads them from here
_PIPED: dict[tuple[int, int], bytes] = {}


def _raw(f, p: Path) -> bytes:
    """The whole content of the open file ``f``: read once, and kept when it cannot be read again (a pipe)."""
    st = os.fstat(f.fileno())
    if stat.S_ISREG(st.st_mode):
        return _read_all(f, p)
    key = (st.st_dev, st.st_ino)
    if key not in _PIPED:
        _PIPED[key] = _read_all(f, p)
    return _PIPED[key]


def peek(path: PathLike, n: int = 4) -> bytes:
    """The first ``n`` bytes of a file (not gunzipped), to tell its format; a pipe is read whole, once.

    Raises OSError as ``open`` does.
    """
    with open(Path(path), "rb") as f:
        if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return f.read(n)
        return _raw(f, Path(path))[:n]


def is_regular_file(path: PathLike) -> bool:
    """True for a regular file (one that can be read again), False for a pipe, a device, or a missing file."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read_bytes(path: PathLike) -> bytes:
    """Return the file's content, gunzipped if it is gzip; a missing or unreadable file is an error.

    A pipe (``cat run | rankframe evaluate /dev/stdin ...``) is read once: see :data:`_PIPED`.
    """
    p = Path(path)
    try:
        with open(p, "rb") as f:
            data = _raw(f, p)
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except IsADirectoryError:
        raise InputFileError(path, "is a directory, not a file") from None
    except OSError as e:
        raise InputFileError(path, f"cannot read file ({e.strerror or e})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise _gzip_error(path, data, e) from None
    return data


_READ_CHUNK = 64 << 20


def _read_all(f, p: Path) -> bytes:
    """The whole file, read in 64 MiB blocks under a progress bar (``rankframe.progress``)."""
    from .. import progress

    size = os.fstat(f.fileno()).st_size
    if size <= _READ_CHUNK:
        return f.read()
    parts = []
    with progress.bar(f"reading {p.name}", total=size, unit="B", unit_scale=True):
        while block := f.read(_READ_CHUNK):
            parts.append(block)
            progress.advance(len(block))
    return b"".join(parts)


def _gzip_error(path: PathLike, raw: bytes, error: Exception) -> InputFileError:
    """Describe a gzip stream that ends early or is corrupt: the line where the readable text stops."""
    text = b""
    try:
        text = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw)
    except zlib.error:
        pass
    what = (
        "truncated gzip data (the file ends before the compressed stream does)"
        if isinstance(error, EOFError)
        else f"corrupt gzip data ({error})"
    )
    line = text.count(b"\n") + 1
    last = text[text.rfind(b"\n") + 1 :].decode("utf-8", "replace")
    return InputFileError(path, f"{what}; the readable text stops in this line", line, last)


def _check_text(data: bytes, path: PathLike, what: str) -> None:
    """Reject binary content before parsing (one memchr pass over the data).

    A NUL byte is never part of a text file; trec_eval's C strings would silently cut the line there.
    """
    i = data.find(b"\x00")
    if i >= 0:
        line = data.count(b"\n", 0, i) + 1
        raise InputFileError(path, f"binary data (a NUL byte), not a text {what} file", line, _line_text(data, line))


# ----------------------------------------------------------------------------------------------------------
# whitespace-separated tables (TREC formats)


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
    try:
        out = col.cast(typ)
    except pa.ArrowInvalid:
        pattern = _NUMBER if floating else _INTEGER
        i = _first_bad(col, pattern)
        if i is None:  # matches the pattern yet does not cast, e.g. an integer too large for int64
            i = next(k for k, v in enumerate(col.to_pylist()) if v is not None and not _castable(v, typ))
        return col, (i, col[i].as_py(), kind)
    if floating:
        finite = pc.fill_null(pc.is_finite(out), True)
        if not pc.all(finite).as_py():
            i = int(np.flatnonzero(~finite.to_numpy(zero_copy_only=False))[0])
            nan = pc.is_nan(out[i]).as_py()
            return col, (i, col[i].as_py(), kind if nan else "a finite number")
    return out, None


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


def _last_data_line(data: bytes) -> str:
    """Return the last line that is neither blank nor a comment (trec_eval keeps the run tag of that line).

    Its whitespace-separated fields are trec_eval's: the 6th is the tag, any after it are ignored.
    """
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end].strip()
        if line and not line.startswith(b"#"):
            return line.decode("utf-8", "replace")
        end = start - 1
    return ""


# ----------------------------------------------------------------------------------------------------------
# TREC run


def _as_paths(path_or_paths: PathLike | Iterable[PathLike]) -> list[PathLike]:
    if isinstance(path_or_paths, (str, os.PathLike)):
        return [path_or_paths]
    paths = list(path_or_paths)
    if not paths:
        raise RankframeError("no run file given")
    return paths


def _read_one_run(path: PathLike, with_rank: bool, keep_first_duplicate: bool) -> tuple[pa.Table, str, np.ndarray]:
    data = _read_bytes(path)
    keep: dict[int, pa.DataType] = {0: _STR, 2: _STR, 4: pa.float64()}
    if with_rank:
        keep[3] = pa.int64()
    table, _ = _parse(data, path, RUN_FIELDS, dict(sorted(keep.items())), "run")
    names = {"f0": "query", "f2": "item", "f3": "rank", "f4": "score"}
    table = table.rename_columns([names[n] for n in table.column_names])
    table, h = _check_duplicates(table, ["query", "item"], path, "run", "docno", keep_first_duplicate)
    tag = _last_data_line(data).split()[RUN_FIELDS.index("tag")]  # fields after the tag are ignored
    return table, tag, h


def _line_text(data: bytes, number: int) -> str:
    """Line ``number`` (1-based) of ``data`` (error paths only)."""
    start = 0
    for _ in range(number - 1):
        start = data.index(b"\n", start) + 1
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)].rstrip(b"\r").decode("utf-8", "replace")


def _system_names(paths: Sequence[PathLike], tags: Sequence[str]) -> list[str]:
    """One system name per run file: its run tag, or the file name when tags collide, or the path."""
    if len(set(tags)) == len(tags):
        return list(tags)
    names = [Path(p).name for p in paths]
    if len(set(names)) == len(names):
        return names
    return [str(p) for p in paths]


def _duckdb():
    import duckdb

    from .. import progress

    return progress.configure_duckdb(duckdb.connect())


def _duplicate_error(path: PathLike, query: str, item: str, what: str, field: str) -> InputFileError:
    """Locate the first repeated (query, item) pair of a file and describe it (error path only)."""
    data = _read_bytes(path)
    fields = RUN_FIELDS if what == "run" else QRELS_FIELDS
    table, lines = _robust_parse(data, path, fields, {0: _STR, 2: _STR}, what)
    hit = pc.and_(pc.equal(table.column(0), query), pc.equal(table.column(1), item))
    where = lines[np.flatnonzero(hit.to_numpy(zero_copy_only=False))]
    first, second = int(where[0]), int(where[1])
    return InputFileError(
        path,
        f"duplicate {field} {item!r} for query {query!r} (first on line {first}); "
        f"keep_first_duplicate=True (--keep-first-duplicate) keeps the first",
        second,
        _line_text(data, second),
    )


def _key_hash(con, keys: list[str]) -> np.ndarray:
    """Return a 64-bit hash of the key columns of the registered table ``t`` per row (DuckDB, parallel)."""
    cols = ", ".join(f'"{k}"' for k in keys)
    return np.asarray(con.execute(f"SELECT hash({cols}) AS h FROM t").fetchnumpy()["h"], dtype=np.uint64)


def _repeated_values(h: np.ndarray) -> np.ndarray:
    """Return the values occurring more than once in ``h``, sorted."""
    s = np.sort(h)
    return np.unique(s[1:][s[1:] == s[:-1]])


def _find_duplicate(con, keys: list[str], h: np.ndarray) -> tuple | None:
    """Return the first repeated key of the registered table ``t``, or None.

    The rows' key hashes ``h`` are sorted in numpy: adjacent equal hashes are the only candidates, which an
    exact GROUP BY over just those rows confirms (hash collisions are then harmless). About twice as fast as
    an exact GROUP BY over every row.
    """
    candidates = _repeated_values(h)
    if not len(candidates):
        return None
    cols = ", ".join(f'"{k}"' for k in keys)
    con.register("cand", pa.table({"h": pa.array(candidates)}))
    rows = con.execute(
        f"SELECT {cols}, count(*) AS n FROM t WHERE hash({cols}) IN (SELECT h FROM cand) "
        f"GROUP BY ALL HAVING n > 1 LIMIT 1"
    ).fetchall()
    return rows[0] if rows else None


def _check_duplicates(
    table: pa.Table, keys: list[str], path: PathLike, what: str, field: str, keep_first: bool
) -> tuple[pa.Table, np.ndarray]:
    """Raise on a repeated (query, docno) of one file, or keep the first line of each with a warning.

    Returns the table and the rows' key hashes (reused to match runs with qrels).
    """
    con = _duckdb()
    con.register("t", table)
    h = _key_hash(con, keys)
    dup = _find_duplicate(con, keys, h)
    if dup is None:
        return table, h
    if not keep_first:
        raise _duplicate_error(path, dup[0], dup[1], what, field)
    cols = ", ".join(f'"{k}"' for k in keys)
    con.register("t", table.append_column("__row", pa.array(np.arange(table.num_rows))))
    out = (
        con.sql(
            f"SELECT * EXCLUDE (__row) FROM t QUALIFY row_number() OVER (PARTITION BY {cols} ORDER BY __row) = 1 "
            f"ORDER BY __row"
        )
        .to_arrow_table()
        .cast(table.schema)
    )  # DuckDB hands back string, not large_string
    warnings.warn(
        f"{path}: kept the first of repeated {field}s: dropped {table.num_rows - out.num_rows} duplicate line(s)",
        stacklevel=4,
    )
    con.register("t", out)
    return out, _key_hash(con, keys)


def _constant(value: str, n: int) -> pa.Array:
    """Return a large_string array of ``n`` copies of ``value``, built from its buffers (fast)."""
    raw = value.encode("utf-8")
    offsets = np.arange(n + 1, dtype=np.int64) * len(raw)
    return pa.Array.from_buffers(_STR, n, [None, pa.py_buffer(offsets), pa.py_buffer(raw * n)])


def _read_runs(
    path_or_paths: PathLike | Iterable[PathLike], keep_first_duplicate: bool, with_rank: bool
) -> tuple[pa.Table, list[str], list[int], np.ndarray]:
    """All runs in one table with a ``system`` column; also each run's name and size, and the key hashes."""
    paths = _as_paths(path_or_paths)
    seen: set[str] = set()
    for p in paths:  # the same file twice would be one system with every line repeated
        if str(p) in seen:
            raise InputFileError(p, "the same run file is given twice")
        seen.add(str(p))
    tables, tags, hashes = [], [], []
    for p in paths:
        t, tag, h = _read_one_run(p, with_rank, keep_first_duplicate)
        tables.append(t)
        tags.append(tag)
        hashes.append(h)
    systems = _system_names(paths, tags)
    parts = [t.append_column("system", _constant(s, t.num_rows)) for t, s in zip(tables, systems)]
    table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    return table, systems, [t.num_rows for t in tables], np.concatenate(hashes)


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    return table.to_pandas()


def read_trec_run(
    path_or_paths: PathLike | Iterable[PathLike], *, keep_first_duplicate: bool = False, with_rank: bool = False
) -> pd.DataFrame:
    """Read one or more TREC run files (``qid Q0 docno rank score tag``).

    Parameters
    ----------
    path_or_paths : path or list of paths
        Run files; gzipped files are recognised by their content.
    keep_first_duplicate : bool, default False
        A docno repeated within a query of a run is an error (as in trec_eval). With True, the first line
        is kept and the others are dropped with a warning.
    with_rank : bool, default False
        Also return the file's rank column as ``rank``. trec_eval ignores it (it orders by score, ties by
        docno descending); with a ``rank`` column rankframe would use it instead of the score.

    Returns
    -------
    DataFrame with columns ``query``, ``item`` (strings), ``rank`` (int64, only with ``with_rank``),
    ``score`` (float64) and ``system``: the run tag (the tag of the file's last line, as trec_eval), or the
    file name when two files have the same tag.
    """
    table, _, _, _ = _read_runs(path_or_paths, keep_first_duplicate, with_rank)
    order = ["query", "item", *(["rank"] if with_rank else []), "score", "system"]
    return _to_pandas(table.select(order))


# ----------------------------------------------------------------------------------------------------------
# TREC qrels


def _read_qrels_table(path: PathLike) -> tuple[pa.Table, np.ndarray]:
    data = _read_bytes(path)
    table, _ = _parse(data, path, QRELS_FIELDS, {0: _STR, 2: _STR, 3: pa.int64()}, "qrels")
    table = table.rename_columns(["query", "item", "relevance"])
    con = _duckdb()
    con.register("t", table)
    h = _key_hash(con, ["query", "item"])
    dup = _find_duplicate(con, ["query", "item"], h)
    if dup is not None:
        err = _duplicate_error(path, dup[0], dup[1], "qrels", "judgment of docno")
        raise InputFileError(err.path, err.problem.split(";")[0], err.line, err.text)
    return table, h


def read_trec_qrels(path: PathLike) -> pd.DataFrame:
    """Read a TREC qrels file (``qid iteration docno relevance``).

    Returns a DataFrame with columns ``query``, ``item`` (strings) and ``relevance`` (int64). The iteration
    field is checked to be there and ignored, as in trec_eval. A docno judged twice for a query is an error.
    """
    return _to_pandas(_read_qrels_table(path)[0])


# ----------------------------------------------------------------------------------------------------------
# run + qrels -> the long table


def read_trec(
    run_paths: PathLike | Iterable[PathLike], qrels_path: PathLike, *, keep_first_duplicate: bool = False
) -> pd.DataFrame:
    """Read TREC run file(s) and a qrels file into one long table, ready for ``df.rank_metrics``.

    Parameters
    ----------
    run_paths : path or list of paths
        One or more runs (``qid Q0 docno rank score tag``); several are evaluated side by side.
    qrels_path : path
        The judgments (``qid iteration docno relevance``).
    keep_first_duplicate : bool, default False
        See :func:`read_trec_run`.

    Returns
    -------
    DataFrame with columns ``query``, ``item`` (strings), ``score`` (float64, NaN = judged but not
    retrieved), ``relevance`` (float64, NaN = retrieved but unjudged) and ``system`` (the run tag, see
    :func:`read_trec_run`). The run and the judgments are joined by :func:`rankframe.join_qrels`, the one join
    of ``evaluate(qrels=...)`` too: every system is scored on every judged query, so each system gets its own
    judged-but-not-retrieved rows. There is deliberately no ``rank`` column: rankframe then orders by score
    descending, ties by item descending, exactly as trec_eval (which ignores the run's rank column). Row order
    is unspecified.

    Examples
    --------
    >>> df = read_trec("examples/tiny.run", "examples/tiny.qrels")  # doctest: +SKIP
    >>> rankframe.evaluate(df, ["AP", "nDCG@10"], by=["system"])  # doctest: +SKIP
    """
    from ..join import join_qrels

    run = _read_runs(run_paths, keep_first_duplicate, with_rank=False)[0]
    qrels = _read_qrels_table(qrels_path)[0]
    # both files are already checked (fields, numbers, duplicates) by the readers: join without re-validating
    joined = join_qrels(
        _to_pandas(run.select(["query", "item", "score", "system"])), _to_pandas(qrels), by=["system"], validate=False
    )
    return joined[["query", "item", "score", "relevance", "system"]]


# ----------------------------------------------------------------------------------------------------------
# long tables: Parquet / CSV


def _is_parquet(path: PathLike, head: bytes) -> bool:
    name = str(path).lower()
    return head[:4] == b"PAR1" or name.endswith((".parquet", ".pq", ".parq"))


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
    try:
        head = peek(path, 4)
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except IsADirectoryError:
        raise InputFileError(path, "is a directory, not a file") from None
    except OSError as e:
        raise InputFileError(path, f"cannot read file ({e.strerror or e})") from None
    if _is_parquet(path, head):
        return _read_parquet(path, empty=not head)
    data = _read_bytes(path)
    if not data.strip():
        raise InputFileError(path, "empty file: no header line")
    _check_text(data, path, "CSV")
    name = str(path).lower().removesuffix(".gz")
    delim = "\t" if name.endswith(".tsv") else ","
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
    if not all(_finite_numbers(table.column(h)) for h in numeric_cols):
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
        raise InputFileError(path, "empty file: 0 bytes, not a Parquet file")
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
# writers


def _open_text(path: PathLike):
    if str(path).endswith(".gz"):
        return gzip.open(path, "wb")
    return open(path, "wb")


def _check_ids(values: pa.ChunkedArray | pa.Array, what: str) -> None:
    if pc.any(pc.match_substring_regex(values, r"\s|^$")).as_py():
        raise RankframeError(f"{what} ids must be non-empty and contain no whitespace to be written in TREC format")


def _write_lines(path: PathLike, cols: list[pa.Array]) -> None:
    table = pa.table(cols, names=[f"c{i}" for i in range(len(cols))])
    with _open_text(path) as f:
        pcsv.write_csv(table, f, pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))


def write_trec_run(
    df: pd.DataFrame,
    path: PathLike,
    *,
    tag: str | None = None,
    columns: Columns | None = None,
    system: str = "system",
    **names: str,
) -> None:
    """Write the retrieved rows of a long table as a TREC run (``qid Q0 docno rank score tag``).

    Rows are ordered by query, then by rank (or, without a rank column, by score descending, ties by item
    descending as trec_eval). Without a score column the score written is ``n - rank + 1`` so that trec_eval,
    which orders by score, sees the same order. Rows with a null rank (or score) are not part of the run and
    are left out. The tag is ``tag``, else the single value of the ``system`` column, else ``"rankframe"``.
    """
    c = (columns or Columns()).with_(**names)
    if tag is None:
        if system in df.columns:
            values = df[system].dropna().unique()
            if len(values) > 1:
                raise RankframeError(
                    f"the table holds {len(values)} systems; write one run per system "
                    f"(filter on {system!r}) or pass tag="
                )
            tag = str(values[0]) if len(values) else "rankframe"
        else:
            tag = "rankframe"
    if re.search(r"\s", tag) or not tag:
        raise RankframeError(f"the run tag must be non-empty without whitespace, got {tag!r}")
    has_rank, has_score = c.rank in df.columns, c.score in df.columns
    if not has_rank and not has_score:
        raise RankframeError(
            f"cannot write a run: neither a rank column {c.rank!r} nor a score column "
            f"{c.score!r}. Columns in dataframe: {list(df.columns)}"
        )
    key = c.rank if has_rank else c.score
    d = df.loc[df[key].notna()]
    q = d[c.query].astype(str)
    item = d[c.item].astype(str)
    if has_rank:
        order = np.lexsort((d[c.rank].to_numpy(dtype=float), q.to_numpy(dtype=object)))
        rank = d[c.rank].to_numpy(dtype=float)[order]
    else:
        order = np.lexsort((_desc_str_key(item), -d[c.score].to_numpy(dtype=float), q.to_numpy(dtype=object)))
        qs = q.to_numpy(dtype=object)[order]
        starts = np.r_[True, qs[1:] != qs[:-1]] if len(qs) else np.zeros(0, bool)
        idx = np.arange(len(qs))
        rank = idx - np.maximum.accumulate(np.where(starts, idx, 0)) + 1
    if has_score:
        score = d[c.score].to_numpy(dtype=float)[order]
    else:
        score = (np.nanmax(rank) if len(rank) else 0) - rank + 1
    qa = pa.array(q.to_numpy(dtype=object)[order], pa.string())
    ia = pa.array(item.to_numpy(dtype=object)[order], pa.string())
    _check_ids(qa, "query")
    _check_ids(ia, "item")
    rank_int = rank.astype(np.int64)
    if not np.array_equal(rank_int, rank):
        raise RankframeError("ranks must be whole numbers to be written in TREC format")
    n = len(qa)
    _write_lines(
        path,
        [
            qa,
            pa.repeat(pa.scalar("Q0"), n),
            ia,
            pa.array(rank_int).cast(pa.string()),
            pa.array(score, pa.float64()).cast(pa.string()),
            pa.repeat(pa.scalar(tag), n),
        ],
    )


def _desc_str_key(item: pd.Series) -> np.ndarray:
    """Return a numeric key whose ascending order is the items' descending string order."""
    codes, uniques = pd.factorize(item, sort=True)
    return -codes


def write_trec_qrels(df: pd.DataFrame, path: PathLike, *, columns: Columns | None = None, **names: str) -> None:
    """Write the judged rows of a long table as TREC qrels (``qid 0 docno relevance``).

    Rows with a null relevance (unjudged) are left out. Grades must be whole numbers (trec_eval reads them
    as integers). Rows are ordered by query, then item.
    """
    c = (columns or Columns()).with_(**names)
    d = df.loc[df[c.relevance].notna()]
    rel = d[c.relevance].to_numpy(dtype=float)
    if not np.array_equal(rel, np.round(rel)):
        raise RankframeError("relevance grades must be whole numbers to be written as TREC qrels")
    q = d[c.query].astype(str).to_numpy(dtype=object)
    item = d[c.item].astype(str).to_numpy(dtype=object)
    order = np.lexsort((item, q))
    qa, ia = pa.array(q[order], pa.string()), pa.array(item[order], pa.string())
    _check_ids(qa, "query")
    _check_ids(ia, "item")
    n = len(qa)
    _write_lines(path, [qa, pa.repeat(pa.scalar("0"), n), ia, pa.array(rel[order].astype(np.int64)).cast(pa.string())])


def write_long(df: pd.DataFrame, path: PathLike) -> None:
    """Write a long table as Parquet (``.parquet``, ``.pq``) or CSV (``.csv``, ``.tsv``, also ``.gz``)."""
    table = pa.Table.from_pandas(df, preserve_index=False)
    name = str(path).lower()
    if name.endswith((".parquet", ".pq", ".parq")):
        import pyarrow.parquet as pq

        pq.write_table(table, path)
        return
    delim = "\t" if name.removesuffix(".gz").endswith(".tsv") else ","
    with _open_text(path) as f:
        pcsv.write_csv(table, f, pcsv.WriteOptions(delimiter=delim))
