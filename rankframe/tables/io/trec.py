"""TREC runs and qrels: read them (fields, numbers, repeated docnos, system names) and write them.

TREC run lines are ``qid Q0 docno rank score tag`` and qrels lines ``qid iteration docno relevance``, fields
separated by any run of spaces or tabs. Blank lines and lines starting with ``#`` are skipped (trec_eval 10).
Gzipped files are recognised by their content, whatever their name. The readers return pandas DataFrames with
ids kept as strings; joining a run with its qrels is :func:`rankframe.join.read_trec` (a join, so it lives
with the one join rule).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ...core.columns import Columns
from ...core.errors import RankframeError
from ._files import _STR, InputFileError, PathLike, _line_text, _open_text, _read_bytes
from ._whitespace import _parse, _robust_parse

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iteration", "docno", "relevance")


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

    from ...core import progress

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


def _subtopic_duplicate_error(path: PathLike, query: str, subtopic: str, item: str) -> InputFileError:
    """The first repeated (query, subtopic, item) of a subtopic qrels, located (error path only)."""
    table, lines = _robust_parse(_read_bytes(path), path, QRELS_FIELDS, {0: _STR, 1: _STR, 2: _STR}, "qrels")
    hit = pc.and_(
        pc.and_(pc.equal(table.column(0), query), pc.equal(table.column(1), subtopic)),
        pc.equal(table.column(2), item),
    )
    where = lines[np.flatnonzero(hit.to_numpy(zero_copy_only=False))]
    return InputFileError(
        path,
        f"duplicate judgment of docno {item!r} for query {query!r}, subtopic {subtopic!r} (first on line "
        f"{int(where[0])})",
        int(where[1]),
        _line_text(_read_bytes(path), int(where[1])),
    )


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


def read_runs(
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
    table, _, _, _ = read_runs(path_or_paths, keep_first_duplicate, with_rank)
    order = ["query", "item", *(["rank"] if with_rank else []), "score", "system"]
    return _to_pandas(table.select(order))


# ----------------------------------------------------------------------------------------------------------
# TREC qrels


def read_qrels_table(path: PathLike, subtopics: bool = False) -> tuple[pa.Table, np.ndarray]:
    """A qrels file as an Arrow table (query, item, relevance) and its rows' key hashes; checked, no duplicates.

    ``subtopics=True``: the second field is a subtopic id (ndeval's ``topic subtopic docno judgment``), kept as the
    column ``subtopic``; a docno judged twice for one (query, subtopic) is the duplicate then.
    """
    data = _read_bytes(path)
    types = {0: _STR, 1: _STR, 2: _STR, 3: pa.int64()} if subtopics else {0: _STR, 2: _STR, 3: pa.int64()}
    table, _ = _parse(data, path, QRELS_FIELDS, types, "qrels")
    names = ["query", "subtopic", "item", "relevance"] if subtopics else ["query", "item", "relevance"]
    table = table.rename_columns(names)
    key = ["query", "subtopic", "item"] if subtopics else ["query", "item"]
    con = _duckdb()
    con.register("t", table)
    h = _key_hash(con, key)
    dup = _find_duplicate(con, key, h)
    if dup is not None and subtopics:
        raise _subtopic_duplicate_error(path, *dup[:3])
    if dup is not None:
        err = _duplicate_error(path, dup[0], dup[1], "qrels", "judgment of docno")
        raise InputFileError(err.path, err.problem.split(";")[0], err.line, err.text)
    return table, h


def read_trec_qrels(path: PathLike, *, subtopics: bool = False) -> pd.DataFrame:
    """Read a TREC qrels file (``qid iteration docno relevance``).

    Returns a DataFrame with columns ``query``, ``item`` (strings) and ``relevance`` (int64). The iteration
    field is checked to be there and ignored, as in trec_eval. A docno judged twice for a query is an error.

    ``subtopics=True`` reads a subtopic qrels (``qid subtopic docno relevance``, ndeval's and the TREC Web track's
    diversity judgments) with the columns ``query``, ``subtopic``, ``item``, ``relevance`` (a docno judged twice for
    one subtopic is the error). The two forms have the same four fields, and a subtopic id can be ``0`` like an
    iteration, so the caller says which it is: nothing is guessed from the values (docs/diversity.md).
    """
    return _to_pandas(read_qrels_table(path, subtopics)[0])


# ----------------------------------------------------------------------------------------------------------
# writers


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
