"""Time rank fusion: rankframe.fuse (pandas/numpy), rf_fuse (DuckDB SQL) and ranx.fuse, side by side, in one run.

Usage:  python bench/fusion.py [--queries 1000000] [--depth 100] [--ranx-queries 20000] [--chunk 50000]
                               [--methods rrf,combmnz:min-max] [--no-ranx] [--no-whole]

The table: 3 systems, each ranking ``depth`` items per query out of a pool of ``1.5 * depth`` candidates (so the
runs overlap partly), with float scores rounded to 3 digits (ties), integer query and item ids. It is written to a
Parquet file in row groups of ``--chunk`` whole queries, then each tool fuses it in its own child process, so the
peak RSS printed next to each time is that tool's alone (``ru_maxrss`` of the child, reading included); each time is
printed as wall seconds and CPU seconds (user + system of the child, every thread: steadier than wall time on a shared
machine), with the load average:

- ``rf_fuse (DuckDB)``: ``COPY (SELECT * FROM rf_fuse('runs', ...)) TO 'fused.parquet'`` over a view of the
  Parquet file: the whole table in one statement, with ``memory_limit`` 6GB (DuckDB spills the rest to disk; its
  default, 80% of RAM, reached 20 GB of RSS at 300M rows).
- ``rankframe.fuse (pandas, whole)``: the whole table in memory (skipped above 40M rows: it does not fit 24 GB at
  the issue's 300M rows — ~80 GB by extrapolation; ``--no-whole`` skips it at any size).
- ``rankframe.fuse (pandas, by chunk)``: one ``fuse`` call per row group of whole queries (fusion is per query, so
  the chunks' fused rows are the whole table's), fused rows appended to a Parquet file: a loop per chunk, never per
  query. This is how the pandas face reaches the issue's scale.
- ``ranx``: its own ``Run`` objects (built from the first ``--ranx-queries`` queries: ranx keeps every run in
  numba dicts, ~160 GB at 300M rows); the build and its first call (numba compiles then) are printed apart; its time
  is the second call.

The issue's scale is ``--queries 1000000`` (3 x 1M x 100 = 300M rows). Not a test; on a shared machine the numbers
vary from run to run (the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

SYSTEMS = ("bm25", "dense", "splade")
WHOLE_LIMIT = 40_000_000
MEMORY_LIMIT = "6GB"


def clock() -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process: user + system, every thread) now."""
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> dict:
    """The wall and CPU seconds since ``start`` (a :func:`clock` reading)."""
    wall, cpu = clock()
    return {"seconds": wall - start[0], "cpu_seconds": cpu - start[1]}


def make_chunk(first_query: int, n_queries: int, depth: int, rng: np.random.Generator) -> pd.DataFrame:
    """3 runs for queries first_query.. : each system keeps the depth best of a pool of 1.5 * depth items by its own
    noisy view of a shared relevance signal; scores rounded to 3 digits (ties); system 'dense' on a 10x scale."""
    pool = int(depth * 1.5)
    signal = rng.random((n_queries, pool))
    query = np.repeat(np.arange(first_query, first_query + n_queries, dtype=np.int64), depth)
    frames = []
    for s, name in enumerate(SYSTEMS):
        noisy = signal + rng.normal(0, 0.3, (n_queries, pool))
        picked = np.argsort(-noisy, axis=1, kind="stable")[:, :depth]
        score = np.round(np.take_along_axis(noisy, picked, axis=1) * (10.0 if s == 1 else 1.0), 3)
        frames.append(
            pd.DataFrame({"system": name, "query": query, "item": picked.reshape(-1).astype(np.int64),
                          "score": score.reshape(-1)})
        )  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def write_table(path: str, n_queries: int, depth: int, chunk: int, seed: int = 7) -> int:
    """The benchmark table as Parquet, one row group per ``chunk`` whole queries; returns its number of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    rows, writer = 0, None
    for first in range(0, n_queries, chunk):
        table = pa.Table.from_pandas(make_chunk(first, min(chunk, n_queries - first), depth, rng), preserve_index=False)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=len(table))
        rows += len(table)
    assert writer is not None
    writer.close()
    return rows


def _tiny(empty: pd.DataFrame) -> pd.DataFrame:
    """A 2-system, 1-query table of the benchmark's columns (a warm-up call)."""
    return make_chunk(0, 1, 3, np.random.default_rng(0)).astype(empty.dtypes.to_dict())


def run_whole(path: str, method: str, norm: str | None, _: int) -> dict:
    import rankframe

    df = pd.read_parquet(path)
    # a warm-up call on a tiny table: lazy imports and first-use costs out of the time
    rankframe.fuse(_tiny(df.head(0)), method, norm=norm or "none")
    start = clock()
    out = rankframe.fuse(df, method, norm=norm or "none")
    return {**since(start), "rows": int((out["system"] == method).sum())}


def run_chunked(path: str, method: str, norm: str | None, _: int) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import rankframe

    source = pq.ParquetFile(path)
    start = clock()
    rows, writer = 0, None
    with tempfile.TemporaryDirectory() as tmp:
        for group in range(source.num_row_groups):
            df = source.read_row_group(group).to_pandas()
            fused = rankframe.fuse(df, method, norm=norm or "none").iloc[len(df) :]
            table = pa.Table.from_pandas(fused, preserve_index=False)
            if writer is None:
                writer = pq.ParquetWriter(str(Path(tmp) / "fused.parquet"), table.schema)
            writer.write_table(table)
            rows += len(fused)
        assert writer is not None
        writer.close()
        took = since(start)
    return {**took, "rows": rows}


def run_duckdb(path: str, method: str, norm: str | None, _: int) -> dict:
    import duckdb

    import rankframe.sql

    con = rankframe.sql.install(duckdb.connect())
    # bounded memory (DuckDB's default is 80% of RAM, and it took 20 GB here): the rest spills to a temporary directory
    spill = tempfile.mkdtemp(prefix="rf-fuse-spill-")
    con.execute(
        f"SET memory_limit = '{MEMORY_LIMIT}'; SET temp_directory = '{spill}'; SET preserve_insertion_order = false"
    )
    con.execute(f"CREATE VIEW runs AS SELECT * FROM read_parquet('{path}')")
    norm_sql = f"'{norm}'" if norm else "'none'"
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "fused.parquet")
        start = clock()
        con.execute(
            f"COPY (SELECT * FROM rf_fuse('runs', method := '{method}', norm := {norm_sql})) TO '{out}' (FORMAT parquet)"
        )
        took = since(start)
        rows = con.execute(f"SELECT count(*) FROM read_parquet('{out}')").fetchone()[0]
    return {**took, "rows": int(rows)}


def run_ranx(path: str, method: str, norm: str | None, n_queries: int) -> dict:
    import pyarrow.dataset as ds
    from ranx import Run, fuse

    df = ds.dataset(path).to_table(filter=ds.field("query") < n_queries).to_pandas()
    start = time.perf_counter()
    runs = []
    for name in SYSTEMS:
        part = df[df["system"] == name].rename(columns={"query": "q_id", "item": "doc_id"})
        part = part.astype({"q_id": str, "doc_id": str}).astype({"q_id": object, "doc_id": object})  # ranx: str ids
        runs.append(Run.from_df(part, q_id_col="q_id", doc_id_col="doc_id", score_col="score", name=name))
    built = time.perf_counter() - start
    ranx_method = {"combsum": "sum", "combmnz": "mnz"}.get(method, method)
    start = time.perf_counter()
    fuse(runs, norm=norm, method=ranx_method)  # the first call compiles ranx's numba kernels
    first = time.perf_counter() - start
    start = clock()
    fused = fuse(runs, norm=norm, method=ranx_method)
    took = since(start)
    return {
        **took,
        "first_seconds": first,
        "build_seconds": built,
        "rows": sum(len(v) for v in fused.run.values()),
        "queries": n_queries,
    }


TOOLS = {
    "rankframe.fuse (pandas, whole)": run_whole,
    "rankframe.fuse (pandas, by chunk)": run_chunked,
    "ranx": run_ranx,
    "rf_fuse (DuckDB)": run_duckdb,
}


def child(tool: str, path: str, method: str, norm: str | None, ranx_queries: int) -> None:
    result = TOOLS[tool](path, method, norm, ranx_queries)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--chunk", type=int, default=50_000, help="queries per Parquet row group (and pandas chunk)")
    parser.add_argument("--ranx-queries", type=int, default=20_000, help="the queries ranx fuses (it needs ~500 B/row)")
    parser.add_argument("--methods", default="rrf,combmnz:min-max", help="method[:norm], comma-separated")
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out (its numba compile takes ~1 min)")
    parser.add_argument("--no-whole", action="store_true", help="leave out the whole-table pandas call")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tool, path, method, norm, ranx_queries = args.child
        child(tool, path, method, None if norm == "-" else norm, int(ranx_queries))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "runs.parquet")
        start = time.perf_counter()
        n_rows = write_table(path, args.queries, args.depth, args.chunk)
        print(
            f"{len(SYSTEMS)} runs x {args.queries:,} queries x {args.depth} items = {n_rows:,} rows "
            f"(written in {time.perf_counter() - start:.0f} s, {os.path.getsize(path) / 2**20:,.0f} MiB Parquet); "
            f"cores {os.cpu_count()}, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
        ranx_queries = min(args.ranx_queries, args.queries)
        for spec in args.methods.split(","):
            method, _, norm = spec.partition(":")
            for tool in TOOLS:
                if (tool == "ranx" and args.no_ranx) or (
                    tool.endswith("whole)") and (args.no_whole or n_rows > WHOLE_LIMIT)
                ):
                    continue
                cmd = [sys.executable, __file__, "--child", tool, path, method, norm or "-", str(ranx_queries)]
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                if done.returncode:
                    print(f"{method:<8} {norm or 'none':<8} {tool:<34} failed: {done.stderr.strip().splitlines()[-1]}")
                    continue
                r = json.loads(done.stdout.strip().splitlines()[-1])
                extra = (
                    f" on its {r['queries']:,} queries (first call, numba compile included: {r['first_seconds']:.1f} s;"
                    f" building its Runs: {r['build_seconds']:.1f} s)"
                    if "build_seconds" in r
                    else ""
                )
                print(
                    f"{method:<8} {norm or 'none':<8} {tool:<34} {r['seconds']:8.2f} s wall, {r['cpu_seconds']:8.2f} CPU-s, peak RSS "
                    f"{r['peak_rss_mb']:,.0f} MB, {r['rows']:,} fused rows{extra}  (load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
