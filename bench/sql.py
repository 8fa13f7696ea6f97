"""Benchmark: rankframe's DuckDB macros over a 100M-row Parquet file (1M queries x 100, ../shared/bench/gen.py).

    python bench/sql.py --queries 1000000            # full size (writes /tmp/rankframe-bench/*.parquet)
    python bench/sql.py --queries 100000 --skip-compare

Times AP@10, nDCG@10, P@10, R@100, RR@10 per query and per segment (segment = query % 7) in DuckDB over the
Parquet file (2 threads), reports rows/s and peak RSS, for order_by := 'rank' (a window numbers the positions) and
'position' (ranks taken as positions); then both again with DuckDB's perfect_ht_threshold raised so that the 1M
query ids fit its perfect hash aggregate (a setting users can make, docs/sql.md "Performance"); repeats the window
path under a low memory_limit with a temp_directory to show that DuckDB spills instead of failing; then compares
with the pandas engine (rankframe.evaluate) and ranx on a smaller slice. Each measurement runs in a fresh subprocess
so its peak RSS (VmHWM) is its own.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GEN = ROOT.parent / "shared" / "bench" / "gen.py"
OUT = Path("/tmp/rankframe-bench")
METRICS_SQL = """
CREATE OR REPLACE VIEW bench AS SELECT * FROM read_parquet('{path}');
CREATE OR REPLACE TEMP TABLE per_query AS
SELECT query, any_value(segment) AS segment,
       rf_agg_ap(rf_pos, rf_g, k := 10) AS "AP@10",
       rf_agg_ndcg(rf_pos, rf_g, k := 10) AS "nDCG@10",
       rf_agg_precision(rf_pos, rf_g, k := 10) AS "P@10",
       rf_agg_recall(rf_pos, rf_g, k := 100) AS "R@100",
       rf_agg_rr(rf_pos, rf_g, k := 10) AS "RR@10"
FROM rf_prepare('bench', order_by := '{order_by}')
GROUP BY query
HAVING count(rf_g) > 0 AND rf_agg_n_retrieved(rf_pos, order_by := '{order_by}') >= 0;
"""
SEGMENT_SQL = """SELECT segment, count(*) AS n, avg("AP@10"), avg("nDCG@10"), avg("P@10"), avg("R@100"), avg("RR@10")
FROM per_query GROUP BY segment ORDER BY segment"""


def load_gen():
    spec = importlib.util.spec_from_file_location("rankframe_bench_gen", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def generate(n_queries: int, path: Path, chunk: int = 100_000) -> int:
    """Write n_queries x 100 rows (+ judged-unretrieved rows) in chunks of queries; returns the row count."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    gen = load_gen()
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = 0
    writer = None
    for i, start in enumerate(range(0, n_queries, chunk)):
        n = min(chunk, n_queries - start)
        t = gen.generate(n, seed=42 + i)
        q = pc.add(t["query"], pa.scalar(start, pa.int32()))
        t = t.set_column(0, "query", q).append_column("segment", pc.cast(pc.divide(q, 1), pa.int32()))
        t = t.set_column(4, "segment", pc.cast(pc.subtract(q, pc.multiply(pc.divide(q, 7), 7)), pa.int8()))
        if writer is None:
            writer = pq.ParquetWriter(path, t.schema)
        writer.write_table(t, row_group_size=1_000_000)
        rows += t.num_rows
        del t, q
    writer.close()
    return rows


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed_statement(con, path: str, order_by: str) -> tuple[float, float, float]:
    """Run METRICS_SQL on ``con`` to completion: (CPU seconds of this process, wall seconds, 1-minute load before)."""
    load = os.getloadavg()[0]
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    con.execute(METRICS_SQL.format(path=path, order_by=order_by))
    if hasattr(con, "complete"):
        con.complete()
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall, load


def run_duckdb(
    path: str,
    threads: int,
    memory_limit: str | None,
    temp_dir: str | None,
    order_by: str = "position",
    perfect_ht_bits: int | None = None,
) -> dict:
    """One timed run of METRICS_SQL; perfect_ht_bits sets DuckDB's perfect_ht_threshold (default 12: a perfect hash
    aggregate for at most 2**12 groups)."""
    import duckdb

    sys.path.insert(0, str(ROOT))
    import rankframe.sql as rf_sql

    con = duckdb.connect()
    con.sql(f"SET threads = {threads}")
    con.sql("SET preserve_insertion_order = false")
    if memory_limit:
        con.sql(f"SET memory_limit = '{memory_limit}'")
    if perfect_ht_bits:
        con.sql(f"SET perfect_ht_threshold = {perfect_ht_bits}")
    if temp_dir:
        Path(temp_dir).mkdir(parents=True, exist_ok=True)
        con.sql(f"SET temp_directory = '{temp_dir}'")
    rf_sql.install(con)
    spill = {"max_bytes": 0}
    stop = threading.Event()

    def watch():
        while not stop.is_set() and temp_dir:
            size = sum(f.stat().st_size for f in Path(temp_dir).rglob("*") if f.is_file())
            spill["max_bytes"] = max(spill["max_bytes"], size)
            time.sleep(0.2)

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    cpu, wall, load = timed_statement(con, path, order_by)
    t1 = time.perf_counter()
    seg = con.execute(SEGMENT_SQL).fetchall()
    t2 = time.perf_counter()
    stop.set()
    w.join()
    rows = con.execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0][0]
    n_q = con.execute("SELECT count(*) FROM per_query").fetchall()[0][0]
    return {
        "rows": rows,
        "queries": n_q,
        "per_query_s": wall,
        "per_segment_s": t2 - t1,
        "rows_per_s": rows / wall,
        "cpu_s": cpu,
        "rows_per_cpu_s_over_threads": rows / (cpu / threads),
        "load_1min": load,
        "peak_rss_mb": peak_rss_mb(),
        "spilled_mb": spill["max_bytes"] / 2**20,
        "segments": [list(map(lambda v: round(v, 6) if isinstance(v, float) else v, r)) for r in seg],
    }


def run_python(path: str, engine: str, n_queries: int) -> dict:
    """rankframe.evaluate (pandas or duckdb engine) or ranx on the first n_queries queries of the file."""
    import pyarrow.parquet as pq

    sys.path.insert(0, str(ROOT))
    tab = pq.read_table(path, filters=[("query", "<", n_queries)])
    df = tab.to_pandas()
    rows = len(df)
    metrics = ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10"]
    t0 = time.perf_counter()
    if engine == "ranx":
        from ranx import Qrels, Run, evaluate

        judged = df[df["relevance"] > 0]
        qrels = Qrels.from_df(
            judged.assign(
                q_id=judged["query"].astype(str).astype(object),
                doc_id=judged["item"].astype(str).astype(object),
                score=judged["relevance"].astype(int),
            ),
            q_id_col="q_id",
            doc_id_col="doc_id",
            score_col="score",
        )
        ret = df[df["rank"].notna()]
        run = Run.from_df(
            ret.assign(
                q_id=ret["query"].astype(str).astype(object),
                doc_id=ret["item"].astype(str).astype(object),
                score=-ret["rank"].astype(float),
            ),
            q_id_col="q_id",
            doc_id_col="doc_id",
            score_col="score",
        )
        t0 = time.perf_counter()  # the metric computation only (conversion excluded)
        evaluate(qrels, run, ["map@10", "ndcg@10", "precision@10", "recall@100", "mrr@10"])
    else:
        import rankframe

        rankframe.evaluate(df, metrics, by="segment", per_query=True, engine=engine, validate=False)
        rankframe.evaluate(df, metrics, by="segment", engine=engine, validate=False)
    t1 = time.perf_counter()
    return {
        "engine": engine,
        "rows": rows,
        "seconds": t1 - t0,
        "rows_per_s": rows / (t1 - t0),
        "peak_rss_mb": peak_rss_mb(),
    }


def sub(kind: str, **kw) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--child-args", json.dumps(kw)], capture_output=True, text=True
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:] or ["?"], "returncode": proc.returncode}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--memory-limit", default="500MB", help="low limit for the spill run")
    ap.add_argument("--compare-queries", type=int, default=100_000)
    ap.add_argument("--skip-compare", action="store_true")
    ap.add_argument(
        "--perfect-ht-bits", type=int, default=21, help="perfect_ht_threshold of the tuned runs (2**21 > 1M queries)"
    )
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "sql.txt"))
    ap.add_argument("--child")
    ap.add_argument("--child-args")
    a = ap.parse_args()
    if a.child:
        kw = json.loads(a.child_args)
        res = run_duckdb(**kw) if a.child == "duckdb" else run_python(**kw)
        print(json.dumps(res))
        return
    path = OUT / f"bench_{a.queries}.parquet"
    lines = [f"rankframe bench/sql.py  {time.strftime('%Y-%m-%d %H:%M')}  cores={os.cpu_count()} threads={a.threads}"]

    def log(s):
        print(s, flush=True)
        lines.append(s)

    if not path.exists():
        t0 = time.perf_counter()
        rows = generate(a.queries, path)
        log(
            f"generated {path}: {rows:,} rows in {time.perf_counter() - t0:.0f}s, {path.stat().st_size / 2**20:.0f} MiB"
        )
    log("metrics: AP@10, nDCG@10, P@10, R@100, RR@10 per query, then means per segment (query % 7)")
    # The generator's ranks are 1..n in every query: order_by 'position' takes them as positions (checked by
    # rf_agg_n_retrieved); 'rank' is the general path that numbers positions with a window. Both again with DuckDB's
    # perfect hash aggregate (perfect_ht_threshold raised so that the 1M query ids fit it).
    runs = [
        ("rank", None, "order_by := 'rank' (window)"),
        ("position", None, "order_by := 'position'"),
        ("rank", a.perfect_ht_bits, f"order_by := 'rank' (window), perfect_ht_threshold={a.perfect_ht_bits}"),
        ("position", a.perfect_ht_bits, f"order_by := 'position', perfect_ht_threshold={a.perfect_ht_bits}"),
    ]
    results = {}
    for order_by, bits, label in runs:
        r = sub(
            "duckdb",
            path=str(path),
            threads=a.threads,
            memory_limit=None,
            temp_dir=None,
            order_by=order_by,
            perfect_ht_bits=bits,
        )
        results[label] = r
        log(f"duckdb macros, {label}, default memory: {json.dumps({k: v for k, v in r.items() if k != 'segments'})}")
    segs = [r["segments"] for r in results.values() if "segments" in r]
    res = results["order_by := 'position'"]
    log(f"  same per-segment means on all {len(segs)} runs: {all(x == segs[0] for x in segs)}")
    if "segments" in res:
        log(f"  per-segment means (segment, n, AP@10, nDCG@10, P@10, R@100, RR@10): {res['segments'][:2]} ...")
    spill_dir = str(OUT / "spill")
    res2 = sub(
        "duckdb",
        path=str(path),
        threads=a.threads,
        memory_limit=a.memory_limit,
        temp_dir=spill_dir,
        order_by="rank",
    )
    log(
        f"duckdb macros, order_by := 'rank' (window), memory_limit={a.memory_limit}, "
        f"temp_directory={spill_dir}: "
        f"{json.dumps({k: v for k, v in res2.items() if k != 'segments'})}"
    )
    if "segments" in res and "segments" in res2:
        log(f"  same per-segment means as the unlimited run: {res['segments'] == res2['segments']}")
    if not a.skip_compare:
        n = min(a.compare_queries, a.queries)
        for engine in ("duckdb", "pandas", "ranx"):
            r = sub("python", path=str(path), engine=engine, n_queries=n)
            log(f"{n:,} queries, {engine}: {json.dumps(r)}")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
