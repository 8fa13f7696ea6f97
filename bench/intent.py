"""Time the intent-aware measures: rankframe's pandas engine against pyndeval (ndeval's C code), one run.

Usage:  python bench/intent.py --queries 100000 [--queries 10000 ...]
        [--tools rankframe,rankframe-andcg10,rankframe-duckdb,pyndeval] [--keep-data FOLDER]

The data (seeded, generated here): ``--queries`` queries, each with a run of 100 distinct items (``d000`` ..
``d199``, distinct random scores) and 5 subtopics, each subtopic judging 20 random items of the 200 with a grade
0-2 (so about 100 subtopic judgments per query, ~60% of them relevant at rel=1). Both tables go to Parquet; each
measurement runs in a fresh child process, whose peak RSS (VmHWM, reading the Parquet files included, read when the
tool returns: the bench's own reshaping of the values after it is not counted; "read" is the peak after reading the
two tables, before the tool starts) is printed beside its time (the time
excludes reading the Parquet files; pyndeval's time includes turning the frames into its tuples):

- ``rankframe``: ``rankframe.evaluate(per_query=True, no_relevant="nan")`` of the nine measures with
  ``like='ndeval'`` (ERR_IA, nERR_IA, alpha_DCG, alpha_nDCG, P_IA, StRecall at @5, @10, @20; NRBP, nNRBP, AP_IA);
- ``rankframe-andcg10``: ``alpha_nDCG@10`` alone (the default convention);
- ``rankframe-duckdb``: the nine measures of ``rankframe`` with ``engine='duckdb'`` (``sql/intent.sql``'s kernel);
- ``pyndeval``: ``pyndeval.RelevanceEvaluator(...).evaluate(...)`` of the same 21 values.

The parent then checks that rankframe (each engine run) and pyndeval give the same per-query values to 1e-9. The issue's scale is
1M queries (100M run rows, 100M judgments). Not a test; on a shared machine the numbers vary from run to run
(``uptime``'s load is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CUT = {"ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG",
       "P_IA": "P-IA", "StRecall": "strec"}  # fmt: skip
WHOLE = {"NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA"}
CUTOFFS = (5, 10, 20)
ITEMS, POOL, SUBTOPICS, JUDGED = 100, 200, 5, 20


def measures() -> dict[str, str]:
    """rankframe's metric string -> pyndeval's measure name."""
    out = {f"{name}(like='ndeval')@{k}": f"{theirs}@{k}" for name, theirs in CUT.items() for k in CUTOFFS}
    out.update({f"{name}(like='ndeval')": theirs for name, theirs in WHOLE.items()})
    return out


def write_data(folder: Path, n_queries: int, chunk: int = 50_000) -> tuple[int, int]:
    """Write run.parquet and qrels.parquet in chunks of queries; returns (run rows, judgment rows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(38)
    names = np.array([f"d{i:03d}" for i in range(POOL)], dtype=object)
    writers: dict[str, pq.ParquetWriter] = {}
    sizes = {"run": 0, "qrels": 0}
    for start in range(0, n_queries, chunk):
        n = min(chunk, n_queries - start)
        qid = np.array([f"q{i:07d}" for i in range(start, start + n)], dtype=object)
        # each query's run: the first 100 of a random permutation of the pool, distinct scores
        items = np.argsort(rng.random((n, POOL)), axis=1)[:, :ITEMS]
        run = pd.DataFrame(
            {
                "query": np.repeat(qid, ITEMS),
                "item": names[items.ravel()],
                "score": rng.permutation(n * ITEMS).astype(np.float64) / (n * ITEMS),
            }
        )
        judged = np.argsort(rng.random((n * SUBTOPICS, POOL)), axis=1)[:, :JUDGED]
        qrels = pd.DataFrame(
            {
                "query": np.repeat(qid, SUBTOPICS * JUDGED),
                "subtopic": np.repeat(np.tile(np.arange(SUBTOPICS), n), JUDGED).astype(str).astype(object),
                "item": names[judged.ravel()],
                "relevance": rng.choice(np.array([0, 1, 2], dtype=np.int64), n * SUBTOPICS * JUDGED, p=[0.4, 0.4, 0.2]),
            }
        )
        for name, frame in (("run", run), ("qrels", qrels)):
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if name not in writers:
                writers[name] = pq.ParquetWriter(folder / f"{name}.parquet", table.schema)
            writers[name].write_table(table)
            sizes[name] += len(frame)
    for w in writers.values():
        w.close()
    return sizes["run"], sizes["qrels"]


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(folder: Path, tool: str) -> dict:
    run = pd.read_parquet(folder / "run.parquet")
    qrels = pd.read_parquet(folder / "qrels.parquet")
    read = peak_rss_mb()  # the input tables (and the interpreter): what every tool holds before it starts
    asked = measures()
    if tool == "pyndeval":
        import pyndeval

        start, cpu = time.perf_counter(), time.process_time()
        evaluator = pyndeval.RelevanceEvaluator(
            list(zip(qrels["query"], qrels["subtopic"], qrels["item"], qrels["relevance"].tolist())),
            list(asked.values()),
        )
        result = evaluator.evaluate(zip(run["query"], run["item"], run["score"].tolist()))
        seconds, cpu, peak = time.perf_counter() - start, time.process_time() - cpu, peak_rss_mb()
        values = pd.DataFrame.from_dict(result, orient="index").rename(columns={v: k for k, v in asked.items()})
    else:
        sys.path.insert(0, str(ROOT))
        import rankframe

        names = ["alpha_nDCG@10"] if tool == "rankframe-andcg10" else list(asked)
        engine = "duckdb" if tool == "rankframe-duckdb" else "pandas"
        start, cpu = time.perf_counter(), time.process_time()
        out = rankframe.evaluate(run, names, qrels=qrels, per_query=True, no_relevant="nan", engine=engine)
        seconds, cpu, peak = time.perf_counter() - start, time.process_time() - cpu, peak_rss_mb()
        values = out.pivot(index="query", columns="metric", values="value")
    values.sort_index().to_parquet(folder / f"values-{tool}.parquet")
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_rss_mb": peak, "read_rss_mb": read, "queries": len(values)}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, action="append", help="repeatable; default 10000")
    parser.add_argument("--tools", default="rankframe,rankframe-andcg10,rankframe-duckdb,pyndeval")
    parser.add_argument("--keep-data", help="a folder to write the data to (or reuse it from): one --queries only")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child[0]), args.child[1])))
        return
    print(f"cores {os.cpu_count()}; {uptime()}")
    sizes = args.queries or [10_000]
    if args.keep_data and len(sizes) > 1:
        parser.error("--keep-data takes one --queries")
    for n_queries in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(args.keep_data or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            if (folder / "run.parquet").exists() and (folder / "qrels.parquet").exists():
                import pyarrow.parquet as pq

                run_rows = pq.ParquetFile(folder / "run.parquet").metadata.num_rows
                judgments = pq.ParquetFile(folder / "qrels.parquet").metadata.num_rows
                how = f"reused from {folder}"
            else:
                run_rows, judgments = write_data(folder, n_queries)
                how = f"generated in {time.perf_counter() - start:.0f} s"
            print(f"{n_queries:,} queries: {run_rows:,} run rows, {judgments:,} subtopic judgments ({how})")
            for tool in args.tools.split(","):
                proc = subprocess.run(
                    [sys.executable, __file__, "--child", str(folder), tool],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if proc.returncode != 0:
                    print(f"  {tool:18s} failed (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
                    continue
                r = json.loads(proc.stdout.strip().splitlines()[-1])
                print(
                    f"  {tool:18s} {r['seconds']:8.2f} s ({r['cpu_seconds']:.0f} CPU-s)  peak RSS {r['peak_rss_mb']:7,.0f} MB (read {r['read_rss_mb']:,.0f})  "
                    f"{r['queries']:,} queries  ({uptime().split('load average: ')[-1]})",
                    flush=True,
                )
            theirs = folder / "values-pyndeval.parquet"
            for tool in ("rankframe", "rankframe-duckdb"):
                ours = folder / f"values-{tool}.parquet"
                if not (ours.exists() and theirs.exists()):
                    continue
                a, b = pd.read_parquet(ours), pd.read_parquet(theirs)
                b = b.loc[a.index, a.columns]
                both_nan = a.isna().to_numpy() & (b.isna().to_numpy() | (b.to_numpy() == 0))
                diff = np.where(both_nan, 0.0, np.abs(a.to_numpy() - b.to_numpy()))
                worst = float(np.nanmax(diff)) if diff.size else 0.0
                same = worst <= 1e-9 and not np.isnan(diff).any() and len(a) == len(b)
                print(
                    f"  {tool} vs pyndeval: {a.size:,} values ({len(a):,} queries x {a.shape[1]} measures), "
                    f"largest difference {worst:.2e}: {'same to 1e-9' if same else 'DIFFERENT'}"
                )


if __name__ == "__main__":
    main()
