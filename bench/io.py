"""Reading speed: a 10M-line TREC run into rankframe's long table, next to pandas.read_csv.

Writes (once) ``/tmp/rankframe-bench/run10m.txt``: 10,000 queries x 1,000 documents, single-space separated
as written by Anserini/Pyserini/trec_eval tools (~440 MB), plus a qrels file (50 judgments per query, about
half of them retrieved). With ``--messy`` also a copy separated by tabs and runs of spaces (the layout of
trec_eval's own test files), which takes the general whitespace-splitting path.

Usage: python bench/io.py [--lines 10000000] [--repeat 3] [--messy] [--no-pandas]
Nothing is written inside the repository.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import duckdb
import pandas as pd

import rankframe.tables.io as rio

OUT = Path("/tmp/rankframe-bench")


def make_files(lines: int) -> tuple[Path, Path, Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    run, qrels, messy = OUT / f"run{lines}.txt", OUT / f"qrels{lines}.txt", OUT / f"run{lines}-messy.txt"
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    if not run.exists():
        con.execute(f"""COPY (
            SELECT (i // 1000)::VARCHAR AS q, 'Q0' AS z,
                   'DOC-' || lpad(((i * 7919) % 10000000)::VARCHAR, 8, '0') AS d, (i % 1000) + 1 AS r,
                   round(100 - (i % 1000) * 0.0731 + (hash(i) % 1000) / 1e6, 6) AS s, 'benchrun' AS t
            FROM range({lines}) t(i)) TO '{run}' (HEADER false, DELIMITER ' ', QUOTE '')""")
    if not qrels.exists():
        nq = max(lines // 1000, 1)
        con.execute(f"""COPY (
            SELECT (j // 50)::VARCHAR AS q, '0' AS z,
                   'DOC-' || lpad(
                       ((((j // 50) * 1000 + (j % 50) * 40) * 7919 + (j % 2) * 3) % 10000000)::VARCHAR, 8, '0'
                   ) AS d, (hash(j) % 3)::INT AS r
            FROM range({nq * 50}) t(j)) TO '{qrels}' (HEADER false, DELIMITER ' ', QUOTE '')""")
    return run, qrels, messy


def make_messy(run: Path, messy: Path) -> None:
    if messy.exists():
        return
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"""COPY (SELECT column0 || chr(9) || column1 || '  ' || column2 || chr(9) || column3
                    || chr(9) || '  ' || column4 || ' ' || chr(9) || column5
                    FROM read_csv('{run}', delim=' ', header=false, all_varchar=true, quote='', escape=''))
                    TO '{messy}' (HEADER false, QUOTE '', DELIMITER '\\x01')""")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--messy", action="store_true")
    ap.add_argument("--no-pandas", action="store_true")
    a = ap.parse_args()
    run, qrels, messy = make_files(a.lines)
    print(f"{a.lines:,} lines, {run.stat().st_size / 1e6:.0f} MB; best / median of {a.repeat}")
    cases = [
        ("rankframe.read_trec_run (run -> query, item, score, system)", lambda: rio.read_trec_run(run)),
        ("rankframe.read_trec (run + qrels -> long table)", lambda: rio.read_trec(run, qrels)),
    ]
    if a.messy:
        make_messy(run, messy)
        cases.append(("rankframe.read_trec_run, tabs + runs of spaces", lambda: rio.read_trec_run(messy)))
    if not a.no_pandas:
        names = ["query", "Q0", "item", "rank", "score", "tag"]
        dtype = {"query": str, "Q0": str, "item": str, "rank": "int64", "score": "float64", "tag": str}
        cases += [
            (
                'pandas.read_csv(sep=r"\\s+")',
                lambda: pd.read_csv(run, sep=r"\s+", header=None, names=names, dtype=dtype),
            ),
            (
                'pandas.read_csv(sep=" ", engine="c")',
                lambda: pd.read_csv(run, sep=" ", header=None, names=names, dtype=dtype, engine="c"),
            ),
            (
                'pandas.read_csv(sep=" ", engine="pyarrow")',
                lambda: pd.read_csv(run, sep=" ", header=None, names=names, dtype=dtype, engine="pyarrow"),
            ),
        ]
    load = open("/proc/loadavg").read().split()[0]
    print(f"load average before: {load}  (2 cores; > 1 means other work ran)")
    # rounds: every reader once per round, so that each sees the same background load; best round wins
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in cases}
    rows: dict[str, int] = {}
    for _ in range(a.repeat):
        for name, fn in cases:
            t0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            results[name].append((time.perf_counter() - t0, time.process_time() - c0))
            rows[name] = len(out)
            del out
    print(f"{'reader':<64} {'best s':>7} {'median s':>9} {'cpu s':>6} {'M lines/s':>10}")
    for name, _ in cases:
        walls = [w for w, _ in results[name]]
        best = min(walls)
        cpu = results[name][walls.index(best)][1]
        print(
            f"{name:<64} {best:7.2f} {statistics.median(walls):9.2f} {cpu:6.2f} {a.lines / best / 1e6:10.2f}"
            f"   ({rows[name]:,} rows)"
        )
    load = open("/proc/loadavg").read().split()[0]
    print(f"load average after: {load}")


if __name__ == "__main__":
    main()
