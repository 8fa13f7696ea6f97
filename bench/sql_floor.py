"""Benchmark: today's DuckDB macros against the floor, the unordered macros of an older commit (issue 35).

    nice -n -10 python bench/sql_floor.py --queries 300000            # ~30.9M rows, floor b9d7b63
    nice -n -10 python bench/sql_floor.py --queries 30000 --rounds 1  # a quick look (~3M rows)

Times bench/sql.py's statement (AP@10, nDCG@10, P@10, R@100, RR@10 per query, then means per segment) with today's
macros (sql/ of this checkout) and with the floor's (``git show <floor>:sql/...``, bundled by that commit's own
rankframe/sql.py, in a temporary folder removed at the end), for ``order_by := 'rank'`` and ``'position'``. Rounds
are interleaved (round r runs every (order_by, macros) pair, the two macro sets in alternating order), each run in a
fresh child process so its peak RSS (VmHWM) is its own; reports the median over the rounds of CPU seconds (the
statement's user + system time, first: the 2 cores are shared), wall seconds and peak RSS, the ratio of today's to
the floor's, the 1-minute load average at each run, and whether every run's per-segment means agree with the first to
1e-12. The floor's macros are unordered (a float sum whose last bits depend on the order in which DuckDB's threads
feed it); today's must give the same answer in any order (docs/sql.md "Same answer on every run"). Appends the
report to bench/results/sql.txt.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path("/tmp/rankframe-bench")
sys.path.insert(0, str(ROOT / "bench"))

from sql import SEGMENT_SQL, generate, peak_rss_mb, timed_statement  # noqa: E402  (bench/sql.py: the one statement)


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def today_bundle(dest: Path) -> Path:
    """The macros of this checkout as one script (rankframe.sql.text(), stdlib only: loaded by path)."""
    dest.write_text(_load("rankframe_sql_today", ROOT / "rankframe" / "sql.py").text(ROOT / "sql"), encoding="utf-8")
    return dest


def floor_bundle(commit: str, dest: Path) -> Path:
    """The macros of ``commit`` as one script, bundled by that commit's own rankframe/sql.py (read-only: git show)."""

    def show(path: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
        ).stdout

    names = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "--name-only", commit, "sql/"], check=True, capture_output=True, text=True
    ).stdout.split()
    with tempfile.TemporaryDirectory(prefix=f"rankframe-floor-{commit}-") as tmp:
        folder = Path(tmp) / "sql"
        folder.mkdir()
        for name in names:
            if name.endswith(".sql"):
                (folder / Path(name).name).write_text(show(name), encoding="utf-8")
        (Path(tmp) / "sql.py").write_text(show("rankframe/sql.py"), encoding="utf-8")
        dest.write_text(_load(f"rankframe_sql_{commit}", Path(tmp) / "sql.py").text(folder), encoding="utf-8")
    return dest


def run(path: str, bundle: str, order_by: str, threads: int) -> dict:
    """One timed run of bench/sql.py's statement with the macros of ``bundle`` (in a child process)."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    con.execute("SET preserve_insertion_order = false")
    con.execute(Path(bundle).read_text(encoding="utf-8"))
    if hasattr(con, "complete"):
        con.complete()
    cpu, wall, load = timed_statement(con, path, order_by)
    seg = con.execute(SEGMENT_SQL).fetchall()
    n_q = con.execute("SELECT count(*) FROM per_query").fetchall()[0][0]
    return {
        "duckdb": duckdb.__version__,
        "queries": n_q,
        "cpu_s": cpu,
        "wall_s": wall,
        "peak_rss_mb": peak_rss_mb(),
        "load_1min": load,
        "segments": [list(r) for r in seg],
    }


def child(python: str, **kw) -> dict:
    proc = subprocess.run(
        [python, __file__, "--child", json.dumps(kw)], capture_output=True, text=True, env={**os.environ}
    )
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({kw}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def agree(a: list, b: list, tol: float = 1e-12) -> float | None:
    """The largest difference between two runs' per-segment rows, or None when their shapes differ."""
    if len(a) != len(b) or any(len(x) != len(y) for x, y in zip(a, b)):
        return None
    return max(abs(float(u) - float(v)) for x, y in zip(a, b) for u, v in zip(x, y))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=300_000, help="300000 gives ~30.9M rows")
    ap.add_argument("--floor", default="b9d7b63", help="the commit whose (unordered) macros are the floor")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--python", default=sys.executable, help="the interpreter of the runs (its duckdb is timed)")
    ap.add_argument("--order-by", nargs="+", default=["rank", "position"])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "sql.txt"), help="appended to ('' = none)")
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(run(**json.loads(a.child))))
        return
    path = OUT / f"bench_{a.queries}.parquet"
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    lines = [
        f"# {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, code at {head} (+ work tree), nice {os.nice(0)}: "
        f"python bench/sql_floor.py --queries {a.queries} --floor {a.floor} --rounds {a.rounds}"
    ]

    def log(s: str) -> None:
        print(s, flush=True)
        lines.append(s)

    if not path.exists():
        t0 = time.perf_counter()
        rows = generate(a.queries, path)
        log(f"generated {path}: {rows:,} rows in {time.perf_counter() - t0:.0f}s")
    OUT.mkdir(parents=True, exist_ok=True)
    bundles = {
        "today": str(today_bundle(OUT / "macros_today.sql")),
        a.floor: str(floor_bundle(a.floor, OUT / f"macros_{a.floor}.sql")),
    }
    res: dict[tuple[str, str], list[dict]] = {}
    for r in range(a.rounds):
        for order_by in a.order_by:
            names = list(bundles) if r % 2 == 0 else list(bundles)[::-1]
            for name in names:
                out = child(a.python, path=str(path), bundle=bundles[name], order_by=order_by, threads=a.threads)
                res.setdefault((order_by, name), []).append(out)
                print(
                    f"  round {r + 1} {order_by:8} {name:8} cpu {out['cpu_s']:6.2f} s  wall {out['wall_s']:6.2f} s  "
                    f"rss {out['peak_rss_mb']:5.0f} MB  load {out['load_1min']:.2f}",
                    flush=True,
                )
    first = next(iter(res.values()))[0]
    log(
        f"statement of bench/sql.py on {path.name} ({first['queries']:,} queries), DuckDB {first['duckdb']}, "
        f"threads={a.threads}; median of {a.rounds} interleaved rounds, each run a fresh process"
    )
    for order_by in a.order_by:
        med = {}
        for name in bundles:
            runs = res[(order_by, name)]
            med[name] = {k: statistics.median(x[k] for x in runs) for k in ("cpu_s", "wall_s", "peak_rss_mb")}
            loads = ", ".join(f"{x['load_1min']:.1f}" for x in runs)
            cpus = ", ".join(f"{x['cpu_s']:.2f}" for x in runs)
            log(
                f"  order_by := '{order_by}', {'today' if name == 'today' else 'floor ' + name + ' (unordered)'}: "
                f"CPU {med[name]['cpu_s']:.2f} s (runs {cpus}), "
                f"wall {med[name]['wall_s']:.2f} s, peak RSS {med[name]['peak_rss_mb']:.0f} MB, load {loads}"
            )
        t, f = med["today"], med[a.floor]
        log(
            f"  order_by := '{order_by}': today / floor = {t['cpu_s'] / f['cpu_s']:.2f}x CPU, "
            f"{t['wall_s'] / f['wall_s']:.2f}x wall, {t['peak_rss_mb'] / f['peak_rss_mb']:.2f}x RSS (target <= 1.15x)"
        )
    segs = [x["segments"] for runs in res.values() for x in runs]
    diffs = [agree(segs[0], s) for s in segs]
    worst = None if None in diffs else max(diffs)
    log(
        f"  per-segment means of all {len(segs)} runs agree to 1e-12: {worst is not None and worst <= 1e-12} "
        f"(largest difference {worst!r})"
    )
    if a.out:
        with open(a.out, "a", encoding="utf-8") as fh:
            fh.write("\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
