"""Time agreement between human and LLM labels: rankframe.agreement (pandas), rf_agreement (DuckDB) and scikit-learn.

Usage:  python bench/agreement.py [--rows 10000000] [--segments 20] [--per-query 20] [--resamples 1000]

The table: ``--rows`` judged (query, item) rows, ``--per-query`` items per query, each query in one of
``--segments`` segments; a human grade 0-3 and an LLM grade that copies it 60% of the time (else a random grade),
with 1% null LLM labels. It is written to a Parquet file, then each tool runs in its own child process (the peak RSS
printed is that tool's alone: ``ru_maxrss`` of the child, reading included; the time excludes reading):

- ``rankframe.agreement``: quadratic weighted kappa per segment, plain and with ``ci=0.95`` (``--resamples``
  bootstrap resamples over queries);
- ``rf_agreement (DuckDB)``: the same kappa over a view of the Parquet file (no interval: pandas-only);
- ``scikit-learn``: ``cohen_kappa_score(weights="quadratic")`` looped per segment (a groupby), no interval.

The issue's scale is ``--rows 10000000 --segments 20``. Not a test; on a shared machine the numbers vary from run
to run (the load average is printed).
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


def write_data(path: Path, rows: int, segments: int, per_query: int) -> None:
    rng = np.random.default_rng(0)
    n_q = max(1, rows // per_query)
    query = np.repeat(np.arange(n_q), per_query)[:rows]
    seg = rng.integers(0, segments, n_q)[query]
    human = rng.integers(0, 4, rows).astype(np.int8)
    llm = np.where(rng.random(rows) < 0.6, human, rng.integers(0, 4, rows)).astype(np.float64)
    llm[rng.random(rows) < 0.01] = np.nan
    pd.DataFrame({"segment": seg.astype(np.int16), "query": query, "item": np.tile(np.arange(per_query), n_q)[:rows],
                  "human": human, "llm": llm}).to_parquet(path)  # fmt: skip


def child(path: Path, tool: str, resamples: int) -> dict:
    if tool == "duckdb":
        import duckdb

        import rankframe.sql

        con = rankframe.sql.install(duckdb.connect())
        con.execute(f"CREATE VIEW labels AS SELECT * FROM read_parquet('{path}')")
        start = time.perf_counter()
        out = con.execute("SELECT * FROM rf_agreement('labels', segments := ['segment'], weights := 'quadratic')").df()
        return {"seconds": time.perf_counter() - start, "kappa_0": float(out["kappa"].iloc[0])}
    from sklearn.metrics import cohen_kappa_score

    import rankframe

    df = pd.read_parquet(path)
    start = time.perf_counter()
    if tool == "sklearn":
        kept = df.dropna(subset=["human", "llm"])
        labels = np.unique(np.concatenate([kept["human"].to_numpy(float), kept["llm"].to_numpy(float)]))
        values = [
            cohen_kappa_score(g["human"].to_numpy(float), g["llm"].to_numpy(float), weights="quadratic", labels=labels)
            for _, g in kept.groupby("segment", sort=True)
        ]
        return {"seconds": time.perf_counter() - start, "kappa_0": float(values[0])}
    ci = {"ci": 0.95, "n_resamples": resamples, "seed": 1} if tool == "pandas-ci" else {}
    out = rankframe.agreement(df, by="segment", weights="quadratic", **ci)
    return {"seconds": time.perf_counter() - start, "kappa_0": float(out["kappa"].iloc[0])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--segments", type=int, default=20)
    parser.add_argument("--per-query", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = child(Path(args.child[0]), args.child[1], args.resamples)
        result["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "labels.parquet"
        write_data(path, args.rows, args.segments, args.per_query)
        print(f"{args.rows:,} rows, {args.segments} segments, load average {os.getloadavg()[0]:.2f}")
        for tool in ("pandas", "pandas-ci", "duckdb", "sklearn"):
            proc = subprocess.run(
                [sys.executable, __file__, "--child", str(path), tool, "--resamples", str(args.resamples)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if proc.returncode != 0:
                print(f"{tool:10s} failed: {proc.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"{tool:10s} {r['seconds']:8.3f} s  peak RSS {r['rss_kb'] / 1024:7.0f} MB  kappa[0] {r['kappa_0']:.12f}"
            )


if __name__ == "__main__":
    main()
