"""Time rank fusion: rankframe.fuse (pandas/numpy), rf_fuse (DuckDB SQL) and ranx.fuse, side by side, in one run.

Usage:  python bench/fusion.py [--queries 100000] [--depth 100] [--methods rrf,combmnz:min-max] [--no-ranx]

The table: 3 systems, each ranking ``depth`` items per query out of a pool of ``1.5 * depth`` candidates (so the
runs overlap partly), with float scores (ties possible: rounded to 3 digits). Each tool runs in its own child
process, so the peak RSS printed next to each time is that tool's alone (``ru_maxrss`` of the child, which includes
reading the Parquet input). ranx gets its input as its own ``Run`` objects (built from the same table by
``Run.from_df``); the build and ranx's first call (numba compiles then) are printed apart; its time is the second
call. The issue's scale (3 runs x 1M queries x 100 items,
300M rows) does not fit this 24 GB machine in any of the three; the default is 3 x 100k x 100 = 30M rows. Not a
test; on a shared machine the numbers vary from run to run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

SYSTEMS = ("bm25", "dense", "splade")


def make_table(n_queries: int, depth: int, seed: int = 7) -> pd.DataFrame:
    """3 runs of ``depth`` items per query from a pool of 1.5 * depth; score = noisy shared signal, 3 digits."""
    rng = np.random.default_rng(seed)
    pool = int(depth * 1.5)
    frames = []
    for s, name in enumerate(SYSTEMS):
        # each system keeps the depth best of the pool by its own noisy view of a shared relevance signal
        signal = rng.random((n_queries, pool))
        noisy = signal + rng.normal(0, 0.3, (n_queries, pool))
        picked = np.argsort(-noisy, axis=1, kind="stable")[:, :depth]
        score = np.round(np.take_along_axis(noisy, picked, axis=1) * (10.0 if s == 1 else 1.0), 3)
        frames.append(
            pd.DataFrame(
                {
                    "system": name,
                    "query": np.repeat(np.arange(n_queries, dtype=np.int64), depth).astype(str),
                    "item": picked.reshape(-1).astype(str),
                    "score": score.reshape(-1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def run_rankframe(path: str, method: str, norm: str | None) -> dict:
    import rankframe

    df = pd.read_parquet(path)
    start = time.perf_counter()
    out = rankframe.fuse(df, method, norm=norm or "none")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "rows": int((out["system"] == method).sum())}


def run_duckdb(path: str, method: str, norm: str | None) -> dict:
    import duckdb

    import rankframe.sql

    con = rankframe.sql.install(duckdb.connect())
    con.execute(f"CREATE TABLE runs AS SELECT * FROM read_parquet('{path}')")
    norm_sql = f"'{norm}'" if norm else "'none'"
    start = time.perf_counter()
    rows = con.execute(
        f"SELECT count(*) FROM (SELECT * FROM rf_fuse('runs', method := '{method}', norm := {norm_sql}))"
    ).fetchone()[0]
    return {"seconds": time.perf_counter() - start, "rows": int(rows)}


def run_ranx(path: str, method: str, norm: str | None) -> dict:
    from ranx import Run, fuse

    df = pd.read_parquet(path)
    start = time.perf_counter()
    runs = []
    for name in SYSTEMS:
        part = df[df["system"] == name].rename(columns={"query": "q_id", "item": "doc_id"})
        part = part.astype({"q_id": object, "doc_id": object})  # ranx asserts object dtype (pandas 3 reads str)
        runs.append(Run.from_df(part, q_id_col="q_id", doc_id_col="doc_id", score_col="score", name=name))
    built = time.perf_counter() - start
    ranx_method = {"combsum": "sum", "combmnz": "mnz"}.get(method, method)
    start = time.perf_counter()
    fuse(runs, norm=norm, method=ranx_method)  # the first call compiles ranx's numba kernels
    first = time.perf_counter() - start
    start = time.perf_counter()
    fused = fuse(runs, norm=norm, method=ranx_method)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "first_seconds": first,
        "build_seconds": built,
        "rows": sum(len(v) for v in fused.run.values()),
    }


TOOLS = {"rankframe (pandas)": run_rankframe, "rf_fuse (DuckDB)": run_duckdb, "ranx": run_ranx}


def child(tool: str, path: str, method: str, norm: str | None) -> None:
    result = TOOLS[tool](path, method, norm)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--methods", default="rrf,combmnz:min-max", help="method[:norm], comma-separated")
    parser.add_argument("--no-ranx", action="store_true", help="leave ranx out (its numba compile takes ~1 min)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tool, path, method, norm = args.child
        child(tool, path, method, None if norm == "-" else norm)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "runs.parquet")
        make_table(args.queries, args.depth).to_parquet(path)
        n_rows = args.queries * args.depth * len(SYSTEMS)
        print(f"{len(SYSTEMS)} runs x {args.queries:,} queries x {args.depth} items = {n_rows:,} rows")
        for spec in args.methods.split(","):
            method, _, norm = spec.partition(":")
            for tool in TOOLS:
                if tool == "ranx" and args.no_ranx:
                    continue
                cmd = [sys.executable, __file__, "--child", tool, path, method, norm or "-"]
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
                if done.returncode:
                    print(f"{method:<8} {norm or 'none':<8} {tool:<20} failed: {done.stderr.strip().splitlines()[-1]}")
                    continue
                r = json.loads(done.stdout.strip().splitlines()[-1])
                extra = (
                    f" (first call, numba compile included: {r['first_seconds']:.1f} s; building its Runs: "
                    f"{r['build_seconds']:.1f} s)"
                    if "build_seconds" in r
                    else ""
                )
                print(
                    f"{method:<8} {norm or 'none':<8} {tool:<20} {r['seconds']:7.2f} s{extra}, "
                    f"peak RSS {r['peak_rss_mb']:,.0f} MB, {r['rows']:,} fused rows"
                )


if __name__ == "__main__":
    main()
