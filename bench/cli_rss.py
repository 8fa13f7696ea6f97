"""Benchmark: ``rankframe evaluate big.parquet`` (the SQL road) — wall time and peak RSS of the whole process.

    python bench/cli_rss.py                        # the 100M-row file of bench/sql.py (generated once into /tmp)
    python bench/cli_rss.py --queries 100000       # 10M rows
    python bench/cli_rss.py --memory-limit 500MB   # also a run under a lower DuckDB limit (spills)

Runs the CLI in a child process under ``/usr/bin/time -v`` (falls back to the child's VmHWM through
``resource.getrusage``), 5 metrics per segment (AP@10, nDCG@10, P@10, R@100, RR@10 by segment), and records
the load average next to every number (the machine may be busy: say so when reporting). The file is read by
DuckDB only (validation scan + evaluation); the per-query values are the only rows that reach pandas.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path("/tmp/rankframe-bench")
METRICS = ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10"]


def _bench_sql():
    spec = importlib.util.spec_from_file_location("rankframe_bench_sql", ROOT / "bench" / "sql.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(path: Path, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "rankframe", "evaluate", str(path), *sum((["-m", m] for m in METRICS), [])]
    cmd += ["--by", "segment", "--no-progress", "--format", "csv", *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    timer = ["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []
    load = os.getloadavg()
    t0 = time.perf_counter()
    proc = subprocess.run([*timer, *cmd], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    rss_mb = int(peak.group(1)) / 1024 if peak else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {
        "options": " ".join(extra) or "(defaults)",
        "returncode": proc.returncode,
        "seconds": round(seconds, 1),
        "peak_rss_mb": round(rss_mb),
        "load_before": [round(x, 1) for x in load],
        "load_after": [round(x, 1) for x in os.getloadavg()],
        "output_head": proc.stdout.splitlines()[:3],
        "error": proc.stderr.strip().splitlines()[-1:] if proc.returncode else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--memory-limit", help="an extra run with this DuckDB limit")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "cli_rss.txt"))
    a = ap.parse_args()
    path = OUT / f"bench_{a.queries}.parquet"
    if not path.exists():
        rows = _bench_sql().generate(a.queries, path)
        print(f"generated {path}: {rows:,} rows", flush=True)
    lines = [f"rankframe bench/cli_rss.py  {time.strftime('%Y-%m-%d %H:%M')}  cores={os.cpu_count()}  file={path}"]
    runs = [[]] + ([["--memory-limit", a.memory_limit]] if a.memory_limit else [])
    for extra in runs:
        res = run(path, extra)
        lines.append(str(res))
        print(lines[-1], flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
