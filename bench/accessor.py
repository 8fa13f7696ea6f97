"""Time ``df.rank_metrics.evaluate`` against ranx and pytrec_eval on the shared synthetic table shape.

Usage:  python bench/accessor.py [--queries 10000 100000] [--skip-others] [--repeat 5] [--rank float Int64]
        [--profile]

For each size: the same five metrics (AP@10, nDCG@10, P@10, R@100, RR@10) computed
- by rankframe (pandas engine, validation included, from the DataFrame),
- by ranx (``Qrels.from_df`` / ``Run.from_df`` + ``evaluate``; numba warmed up first),
- by pytrec_eval (DataFrame -> dicts + ``RelevanceEvaluator.evaluate``; trec_eval's recip_rank has no cutoff),
and rankframe's peak extra memory (tracemalloc) relative to the input frame's size. rankframe is timed
``--repeat`` times (wall clock and CPU time of the process, best and median, and the range of its kernel time:
fresh memory's page faults, which vary from call to call on this VM) with the rank column as
float64 (NaN = not retrieved) and as pandas' nullable Int64; the load average is printed next to every number
(a shared machine inflates wall times; CPU time is less sensitive to it). ``--profile`` prints a cProfile of one
rankframe call. Not a test.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import os
import pstats
import resource
import statistics
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

import rankframe  # noqa: F401  (registers df.rank_metrics)

GEN = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen.py"
METRICS = ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10"]


def load_generator():
    spec = importlib.util.spec_from_file_location("gen", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.generate


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run_rankframe(df):
    return df.rank_metrics.evaluate(METRICS)


def run_ranx(df):
    from ranx import Qrels, Run, evaluate

    judged = df[df["relevance"] > 0]
    qrels = Qrels.from_df(
        judged.assign(
            q=judged["query"].astype(str).astype(object),
            d=judged["item"].astype(str).astype(object),
            s=judged["relevance"].astype(np.int64),
        ),
        q_id_col="q",
        doc_id_col="d",
        score_col="s",
    )
    ret = df[df["rank"].notna()]
    run = Run.from_df(
        ret.assign(
            q=ret["query"].astype(str).astype(object),
            d=ret["item"].astype(str).astype(object),
            s=(1.0 / ret["rank"]).astype(np.float64),
        ),
        q_id_col="q",
        doc_id_col="d",
        score_col="s",
    )
    return evaluate(qrels, run, ["map@10", "ndcg@10", "precision@10", "recall@100", "mrr@10"])


def run_pytrec(df):
    import pytrec_eval

    judged = df[df["relevance"].notna()]
    qrels: dict = {}
    for q, d, r in zip(judged["query"].astype(str), judged["item"].astype(str), judged["relevance"].astype(int)):
        qrels.setdefault(q, {})[d] = r
    ret = df[df["rank"].notna()]
    run: dict = {}
    for q, d, s in zip(ret["query"].astype(str), ret["item"].astype(str), -ret["rank"].astype(float)):
        run.setdefault(q, {})[d] = s
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut_10", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"})
    res = ev.evaluate(run)
    names = ["map_cut_10", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]
    return {n: float(np.mean([v[n] for v in res.values()])) for n in names}


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def repeated(fn, n: int) -> tuple[list[float], list[float], list[float]]:
    """Wall, CPU and kernel ("sys": mostly page faults on fresh memory) seconds of ``n`` calls."""
    walls, cpus, kernel = [], [], []
    for _ in range(n):
        w, c, k = time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_stime
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
        kernel.append(resource.getrusage(resource.RUSAGE_SELF).ru_stime - k)
    return walls, cpus, kernel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--skip-others", action="store_true", help="time rankframe only")
    ap.add_argument("--repeat", type=int, default=5, help="rankframe calls per size and rank dtype")
    ap.add_argument("--rank", nargs="+", default=["float", "Int64"], choices=["float", "Int64"])
    ap.add_argument("--profile", action="store_true", help="cProfile one rankframe call per size")
    args = ap.parse_args()
    generate = load_generator()
    if not args.skip_others:
        run_ranx(generate(50).to_pandas())  # numba compilation is not part of the comparison
    rows = []
    for nq in args.queries:
        df = generate(nq).to_pandas()
        size = df.memory_usage(deep=True).sum()
        tracemalloc.start()
        _, res = timed(lambda: run_rankframe(df))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        row = {"rows": len(df), "queries": nq, "peak_mem_x_input": peak / size}
        print(
            f"{len(df):,} rows ({load()}): peak extra memory {peak / size:.2f}x the {size / 2**20:.0f} MiB frame\n"
            f"{res.to_string(index=False)}",
            flush=True,
        )
        for kind in args.rank:
            frame = df if kind == "float" else df.assign(rank=df["rank"].astype("Int64"))
            walls, cpus, kernel = repeated(lambda: run_rankframe(frame), args.repeat)  # noqa: B023
            best, median = min(walls), statistics.median(walls)
            row |= {f"rankframe_{kind}_best_s": best, f"rankframe_{kind}_median_s": median}
            print(
                f"  rankframe, {kind} ranks: wall best {best:.2f}s median {median:.2f}s, CPU best {min(cpus):.2f}s "
                f"median {statistics.median(cpus):.2f}s (of which kernel time {min(kernel):.2f}-{max(kernel):.2f}s) "
                f"over {args.repeat} calls ({load()})",
                flush=True,
            )
            frame = None
        t_rf = row[f"rankframe_{args.rank[0]}_best_s"]
        row["rankframe_s"] = t_rf
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(run_rankframe, df)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        if not args.skip_others:
            t_ranx, r = timed(lambda: run_ranx(df))
            print(f"  ranx {t_ranx:.2f}s {r} ({load()})", flush=True)
            t_trec, r = timed(lambda: run_pytrec(df))
            print(f"  pytrec_eval {t_trec:.2f}s {r} ({load()})", flush=True)
            row |= {
                "ranx_s": t_ranx,
                "pytrec_eval_s": t_trec,
                "x_vs_ranx": t_ranx / t_rf,
                "x_vs_pytrec_eval": t_trec / t_rf,
            }
        rows.append(row)
        df = None  # free the frame before the next size
    print()
    print(
        pd.DataFrame(rows).to_markdown(index=False, floatfmt=".2f")
        if _has_tabulate()
        else pd.DataFrame(rows).round(2).to_string(index=False)
    )


def _has_tabulate() -> bool:
    return importlib.util.find_spec("tabulate") is not None


if __name__ == "__main__":
    main()
