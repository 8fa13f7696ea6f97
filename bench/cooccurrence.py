"""Time the co-occurrence forms of ILD and Serendipity beside their feature forms, in one run (issue 35).

Usage:  python bench/cooccurrence.py [--users 3000] [--k 100] [--items 20000] [--history 20] [--genres 20]
                                     [--before /work/main] [--engine pandas|duckdb]

The data are bench/beyond.py's (the same Zipf popularity, seed 7): ``users`` x ``k`` recommendation rows (300,000
by default), ``history`` train rows per user, 1..3 genres per item. Each metric runs alone in a child process of
its own (one ``rankframe.evaluate`` call, ``engine='pandas'`` or ``--engine duckdb``), so the peak RSS printed is that call's with the
inputs read: ``ILD@k`` and ``Serendipity@k`` (the feature forms: ``similarity='cosine'`` of ``features=``) beside
``ILD(like='recommenders')@k`` and ``Serendipity(like='recommenders')@k`` (co-occurrence of ``train=``). CPU-s is
user + system time of the call, every thread. ``--before DIR`` runs the co-occurrence forms a second time with
the rankframe of DIR (e.g. a checkout of main) on PYTHONPATH: before and after on the same data.

Not a test: on a shared machine the numbers vary from run to run (the load average is printed beside each).
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

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from beyond import cpu_seconds, write_data  # noqa: E402

FORMS = ("ILD@{k}", "ILD(like='recommenders')@{k}", "Serendipity@{k}", "Serendipity(like='recommenders')@{k}")


def child(folder: Path, metric: str, engine: str) -> dict:
    import rankframe

    recs = pd.read_parquet(folder / "recs.parquet")
    inputs = {
        "train": pd.read_parquet(folder / "train.parquet"),
        "features": pd.read_parquet(folder / "features.parquet"),
    }
    parsed = rankframe.parse(metric)
    given = {k: v for k, v in inputs.items() if k in parsed.spec.needed(parsed.kw)}
    start, cpu = time.perf_counter(), cpu_seconds()
    out = rankframe.evaluate(recs, metric, columns={"query": "user"}, engine=engine, **given)
    return {
        "seconds": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
        "value": round(float(out["value"].iloc[0]), 9),
        "where": str(Path(rankframe.__file__).parent.parent),
        "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def run(folder: Path, metric: str, tree: str, engine: str) -> dict:
    env = {**os.environ, "PYTHONPATH": tree}
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(folder), metric, engine], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=3_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--history", type=int, default=20)
    parser.add_argument("--genres", type=int, default=20)
    parser.add_argument("--before", default="", help="a rankframe checkout to time the co-occurrence forms with too")
    parser.add_argument("--engine", default="pandas", choices=("pandas", "duckdb"))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1], args.child[2])))
        return
    here = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sizes = write_data(folder, args.users, args.k, args.items, args.history, args.genres)
        print(
            f"{sizes['recs']:,} recommendation rows ({args.users:,} users x {args.k}), {sizes['train']:,} train rows, "
            f"{sizes['features']:,} feature rows, {args.items:,} items; cores {os.cpu_count()}; engine={args.engine}"
        )
        runs = [(here, m.format(k=args.k)) for m in FORMS]
        if args.before:
            runs += [(args.before, m.format(k=args.k)) for m in FORMS if "like=" in m]
        for tree, metric in runs:
            got = run(folder, metric, tree, args.engine)
            label = f"{metric} [{'this tree' if tree == here else tree}]"
            if "error" in got:
                print(f"{label:<60} failed: {got['error']}")
                continue
            print(
                f"{label:<60} {got['cpu']:7.2f} CPU-s {got['seconds']:7.2f} s  peak RSS {got['rss_kb'] / 1024:7,.0f} MB"
                f"  load {os.getloadavg()[0]:.1f}  value {got['value']}"
            )


if __name__ == "__main__":
    main()
