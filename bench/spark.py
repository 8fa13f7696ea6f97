"""Benchmark: rankframe.spark on the ../shared/bench/gen.py table as Parquet, next to DuckDB's SQL macros.

    python bench/spark.py                                   # 10M rows: local[2] and local-cluster[2,1,2048]
    python bench/spark.py --queries 1000000 --masters 'local[2]'   # 100M rows

The Parquet file is the one bench/sql.py writes (/tmp/rankframe-bench/bench_<queries>.parquet: queries x 100
ranked rows + 1-5 judged-unretrieved rows each, segment = query % 7); it is generated here when missing. Each
measurement runs in a fresh subprocess (its own JVM): AP@10, nDCG@10, P@10, R@100, RR@10 means per segment with
rankframe.spark.evaluate (engine "pandas": grouped pandas over query buckets) or bench/spark_sql.py (engine "sql":
Spark SQL windows, retired from the library in issue 20),
validation off and on, then DuckDB (rankframe's SQL macros, 2 threads) on the same file. Reports wall time,
rows/s, the machine's load (uptime) next to every number, and checks that every engine gives the same means.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path("/tmp/rankframe-bench")
FIVE = ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10"]


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def run_spark(path: str, master: str, engine: str, validate: bool, partitions: int, memory: str) -> dict:
    import warnings

    warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
    sys.path.insert(0, str(ROOT))
    from pyspark.sql import SparkSession

    import rankframe.spark as rs

    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.driver.memory", memory)
        .config("spark.executor.memory", "1500m")
        .config("spark.executorEnv.PYTHONPATH", str(ROOT))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sdf = spark.read.parquet(path)
    rows = sdf.count()
    load_before = load()
    t0 = time.perf_counter()
    if engine == "sql":  # option (a) of decision 9, retired from the library: bench/spark_sql.py
        sys.path.insert(0, str(ROOT / "bench"))
        from spark_sql import evaluate_sql

        means = evaluate_sql(sdf, FIVE, by="segment", validate=validate)
    else:
        means = rs.evaluate(sdf, FIVE, by="segment", engine=engine, validate=validate)
    seconds = time.perf_counter() - t0
    spark.stop()
    return {
        "engine": f"spark/{engine}",
        "master": master,
        "validate": validate,
        "rows": rows,
        "seconds": round(seconds, 2),
        "rows_per_s": round(rows / seconds),
        "load": f"{load_before} -> {load()}",
        "means": {f"{r.segment}|{r.metric}": r.value for r in means.itertuples()},
    }


def run_duckdb(path: str) -> dict:
    sys.path.insert(0, str(ROOT / "bench"))
    import sql as bench_sql

    load_before = load()
    res = bench_sql.run_duckdb(path, threads=2, memory_limit=None, temp_dir=None)
    seconds = res["per_query_s"] + res["per_segment_s"]
    means = {}
    for seg, n, *vals in res["segments"]:
        for metric, v in zip(FIVE, vals):
            means[f"{seg}|{metric}"] = v
    return {
        "engine": "duckdb (SQL macros)",
        "master": "2 threads",
        "validate": False,
        "rows": res["rows"],
        "seconds": round(seconds, 2),
        "rows_per_s": round(res["rows"] / seconds),
        "load": f"{load_before} -> {load()}",
        "means": means,
    }


def child(kind: str, args: dict) -> dict:
    cmd = [sys.executable, __file__, "--child", kind, "--child-args", json.dumps(args)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"engine": kind, **args, "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=100_000, help="100000 = 10M rows, 1000000 = 100M rows")
    ap.add_argument("--masters", default="local[2];local-cluster[2,1,2048]", help="';'-separated Spark masters")
    ap.add_argument("--engines", default="pandas,sql")
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--memory", default="3g", help="spark.driver.memory")
    ap.add_argument("--validate", action="store_true", help="also time evaluate with validation on")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "spark.txt"))
    ap.add_argument("--child")
    ap.add_argument("--child-args")
    a = ap.parse_args()
    if a.child:
        kw = json.loads(a.child_args)
        print(json.dumps(run_spark(**kw) if a.child == "spark" else run_duckdb(**kw)))
        return
    path = OUT / f"bench_{a.queries}.parquet"
    if not path.exists():
        sys.path.insert(0, str(ROOT / "bench"))
        import sql as bench_sql

        bench_sql.generate(a.queries, path)
    results = [child("duckdb", {"path": str(path)})]
    print(json.dumps({k: v for k, v in results[-1].items() if k != "means"}), flush=True)
    for master in a.masters.split(";"):
        for engine in a.engines.split(","):
            # validation is timed once (local[2], grouped pandas): it is the same jobs for every engine
            for validate in (
                [False, True] if a.validate and engine == "pandas" and master.startswith("local[") else [False]
            ):
                kw = dict(path=str(path), master=master, engine=engine, validate=validate)
                results.append(child("spark", {**kw, "partitions": a.partitions, "memory": a.memory}))
                print(json.dumps({k: v for k, v in results[-1].items() if k != "means"}), flush=True)
    reference = results[0].get("means", {})
    lines = [f"# bench/spark.py --queries {a.queries} ({time.strftime('%Y-%m-%d %H:%M')} UTC, 2 cores, shared)"]
    lines.append(
        "| engine | master | validate | rows | seconds | rows/s | load (1 min, before -> after) | max diff vs duckdb (its means printed to 1e-6) |"
    )
    lines.append("|---|---|---|---:|---:|---:|---|---:|")
    for r in results:
        if "error" in r:
            lines.append(f"| {r['engine']} | {r.get('master', '')} | | | | | failed: {r['error']} | |")
            continue
        diff = max((abs(v - reference[k]) for k, v in r["means"].items() if k in reference), default=float("nan"))
        lines.append(
            f"| {r['engine']} | {r['master']} | {r['validate']} | {r['rows']:,} | {r['seconds']} | "
            f"{r['rows_per_s']:,} | {r['load']} | {diff:.1e} |"
        )
    text = "\n".join(lines)
    print(text)
    with open(a.out, "a") as f:
        f.write(text + "\n\n")


if __name__ == "__main__":
    main()
