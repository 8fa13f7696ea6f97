"""Time the beyond-accuracy metrics: rankframe.evaluate (pandas and DuckDB engines) and RecTools, in one run.

Usage:  python bench/beyond.py [--users 100000] [--k 100] [--items 20000] [--history 20] [--genres 20]
                               [--peer-ild-users 2000] [--no-peer] [--metrics Coverage,Gini,...]
                               [--repeat 3] [--per-metric] [--like rectools] [--data DIR]
                               [--no-duckdb] [--no-peer-ild]

The data (deterministic, seed 7), written to Parquet first:

- ``recs``: ``users`` x ``k`` recommendation rows (100,000 x 100 = the issue's 10M), each user's k distinct items
  drawn from a Zipf-like popularity over ``items`` (exponent 1.1: a long tail), ranks 1..k, a 0/1 relevance (10%
  of rows) for Serendipity. ``bench/gen.py``'s table is not used: its item ids are unique per query, so it has
  no popularity structure and every beyond-accuracy metric would be degenerate on it.
- ``train``: ``history`` past interactions per user from the same popularity (2M rows by default).
- ``features``: each catalog item in 1..3 of ``genres`` genres (value 1).
- ``catalog``: the ``items`` item ids.

Each tool runs in its own child process, so the peak RSS printed next to each time is that tool's alone
(``ru_maxrss`` of the child; reading the Parquet files is included in the RSS, not in the time):

- ``rankframe (pandas)`` / ``rankframe (duckdb)``: one ``rankframe.evaluate(recs, metrics, ...)`` call with every
  declared beyond-accuracy metric at ``@k`` (the registry's list: ten once Serendipity and Calibration exist),
  ``engine='pandas'`` or ``engine='duckdb'``.
- ``rectools``: RecTools 0.19 (the fastest peer that computes several of them: numpy/scipy, no pair joins) on the
  metrics it has — CatalogCoverage, AvgRecPopularity (ARP), MeanInvUserFreq (its novelty), Serendipity — through
  its ``calc_metrics``; its IntraListDiversity builds every pair of a list (k(k-1)/2 distances per user), so it
  runs on the first ``--peer-ild-users`` users only (Hamming distance on the genre vectors), in a child of its own
  (``rectools-ild``). RecTools needs numpy < 2: run
  this script from an environment that has it (``pip install rectools 'pyarrow<17'`` beside rankframe), else the
  peer is skipped with the reason.

``--like rectools`` runs rankframe's ``like='rectools'`` preset of each metric (``--metrics`` defaults to the four
RecTools has: ``Coverage(like='rectools')@k``, ``ARP(like='rectools')@k``, ``Novelty(like='rectools')@k``,
``Serendipity(like='rectools')@k``) and RecTools' CatalogCoverage with its default ``normalize=False`` (the
preset's count): both tools compute the same four numbers, printed side by side.

Not a test: on a shared machine the numbers vary from run to run (the load average is printed).
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


def popularity_draw(rng: np.random.Generator, n_items: int, size: tuple[int, int]) -> np.ndarray:
    """``size[0]`` rows of ``size[1]`` distinct item ids each, drawn by a Zipf-like popularity (Gumbel top-k)."""
    weights = 1.0 / np.arange(1, n_items + 1) ** 1.1
    log_w = np.log(weights / weights.sum())
    out = np.empty(size, dtype=np.int64)
    chunk = max(1, 5_000_000 // n_items)
    for first in range(0, size[0], chunk):  # a loop per chunk of users (memory), never per user
        rows = min(chunk, size[0] - first)
        keys = log_w + rng.gumbel(size=(rows, n_items))
        top = np.argpartition(-keys, size[1] - 1, axis=1)[:, : size[1]]
        order = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1)
        out[first : first + rows] = np.take_along_axis(top, order, axis=1)
    return out


def write_data(folder: Path, users: int, k: int, items: int, history: int, genres: int) -> dict[str, int]:
    rng = np.random.default_rng(7)
    recs_items = popularity_draw(rng, items, (users, k))
    user = np.repeat(np.arange(users, dtype=np.int64), k)
    recs = pd.DataFrame(
        {
            "user": user,
            "item": recs_items.reshape(-1),
            "rank": np.tile(np.arange(1, k + 1, dtype=np.int64), users),
            "relevance": (rng.random(users * k) < 0.1).astype(np.int64),
        }
    )
    recs.to_parquet(folder / "recs.parquet", index=False)
    hist = popularity_draw(rng, items, (users, history))
    train = pd.DataFrame({"user": np.repeat(np.arange(users, dtype=np.int64), history), "item": hist.reshape(-1)})
    train.to_parquet(folder / "train.parquet", index=False)
    n_genres = rng.integers(1, 4, size=items)
    item = np.repeat(np.arange(items, dtype=np.int64), n_genres)
    genre = rng.integers(0, genres, size=item.size)
    features = pd.DataFrame({"item": item, "feature": [f"g{g}" for g in genre], "value": 1.0})
    features = features.drop_duplicates(["item", "feature"])
    features.to_parquet(folder / "features.parquet", index=False)
    pd.DataFrame({"item": np.arange(items, dtype=np.int64)}).to_parquet(folder / "catalog.parquet", index=False)
    return {"recs": len(recs), "train": len(train), "features": len(features)}


#: the tables whose rows are counted
SIZES = ("recs", "train", "features")

#: the metrics RecTools has, by rankframe's canonical names
RECTOOLS = ("Coverage", "ARP", "Novelty", "Serendipity")


def declared_metrics(k: int, only: list[str] | None, like: str = "") -> list[str]:
    from rankframe.measures.registry import BEYOND

    names = [spec.canonical for spec in sorted(BEYOND, key=lambda s: s.order)]
    if like and not only:
        only = list(RECTOOLS)
    if only:
        names = [n for n in names if n in only]
    preset = f"(like={like!r})" if like else ""
    return [f"{n}{preset}@{k}" for n in names]


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far, every thread (DuckDB's too)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child_rankframe(folder: Path, engine: str, metrics: list[str], repeat: int = 1, per_metric: bool = False) -> dict:
    import rankframe

    recs = pd.read_parquet(folder / "recs.parquet")
    train = pd.read_parquet(folder / "train.parquet")
    features = pd.read_parquet(folder / "features.parquet")
    catalog = pd.read_parquet(folder / "catalog.parquet")
    inputs = {"train": train, "catalog": catalog, "features": features}

    def call(chosen: list[str]) -> tuple[float, float, pd.DataFrame]:
        needed = {name for m in chosen for name in rankframe.parse(m).spec.needed(rankframe.parse(m).kw)}
        given = {k: v for k, v in inputs.items() if k in needed}
        start, cpu = time.perf_counter(), cpu_seconds()
        out = rankframe.evaluate(recs, chosen, columns={"query": "user"}, engine=engine, **given)
        return time.perf_counter() - start, cpu_seconds() - cpu, out

    def median(chosen: list[str]) -> tuple[float, float, pd.DataFrame]:
        runs = [call(chosen) for _ in range(repeat)]
        out = runs[-1][2]
        return float(np.median([r[0] for r in runs])), float(np.median([r[1] for r in runs])), out

    seconds, cpu, out = median(metrics)
    result: dict = {"seconds": seconds, "cpu": cpu, "values": dict(zip(out["metric"], out["value"].round(6)))}
    result["where"] = str(Path(rankframe.__file__).parent.parent)  # the tree imported (PYTHONPATH)
    if per_metric:  # each metric alone, one call each: (wall, CPU) medians
        result["per_metric"] = {m: median([m])[:2] for m in metrics}
    return result


def child_rectools(folder: Path, k: int, ild_users: int, like: str = "") -> dict:
    from rectools import Columns
    from rectools.metrics import (
        AvgRecPopularity,
        CatalogCoverage,
        IntraListDiversity,
        MeanInvUserFreq,
        Serendipity,
        calc_metrics,
    )
    from rectools.metrics.distances import PairwiseHammingDistanceCalculator

    recs = pd.read_parquet(folder / "recs.parquet").rename(columns={"user": Columns.User, "item": Columns.Item})
    train = pd.read_parquet(folder / "train.parquet").rename(columns={"user": Columns.User, "item": Columns.Item})
    catalog = pd.read_parquet(folder / "catalog.parquet")["item"].to_numpy()
    relevant = recs.loc[recs["relevance"] > 0, [Columns.User, Columns.Item]].assign(**{Columns.Weight: 1.0})
    relevant[Columns.Datetime] = pd.Timestamp("2026-01-01")
    reco = recs[[Columns.User, Columns.Item, "rank"]].rename(columns={"rank": Columns.Rank})
    prev = train.assign(**{Columns.Weight: 1.0, Columns.Datetime: pd.Timestamp("2025-01-01")})
    metrics = {
        f"Coverage@{k}": CatalogCoverage(k=k, normalize=not like),  # like='rectools': RecTools' default, a count
        f"ARP@{k}": AvgRecPopularity(k=k),
        f"MeanInvUserFreq@{k}": MeanInvUserFreq(k=k),
        f"Serendipity@{k}": Serendipity(k=k),
    }
    if ild_users == 0:
        start, cpu = time.perf_counter(), cpu_seconds()
        values = calc_metrics(metrics, reco, interactions=relevant, prev_interactions=prev, catalog=catalog)
        return {
            "seconds": time.perf_counter() - start,
            "cpu": cpu_seconds() - cpu,
            "values": {m: round(v, 6) for m, v in values.items()},
        }
    # IntraListDiversity: every pair of each list; on the first ild_users users only, in a child of its own
    features = pd.read_parquet(folder / "features.parquet")
    genres = sorted(features["feature"].unique())
    matrix = np.zeros((int(catalog.max()) + 1, len(genres)))
    matrix[features["item"].to_numpy(), pd.Index(genres).get_indexer(features["feature"])] = 1.0
    frame = pd.DataFrame(matrix, index=np.arange(matrix.shape[0]))
    sub = reco[reco[Columns.User] < ild_users]
    start, cpu = time.perf_counter(), cpu_seconds()
    ild = IntraListDiversity(k=k, distance_calculator=PairwiseHammingDistanceCalculator(frame)).calc(sub)
    return {
        "seconds": time.perf_counter() - start,
        "cpu": cpu_seconds() - cpu,
        "values": {f"ILD(hamming)@{k} on {ild_users:,} users": round(ild, 6)},
    }


def run_child(args: list[str]) -> tuple[dict, int]:
    """Run this script as a child; its JSON result and its peak RSS in bytes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}, 0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of the children is the largest child so far: each child runs alone, so the max is its own when it
    # is larger than every earlier child, else an upper bound; the child reports its own exact value too
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return result, int(result.get("rss_kb", max(rss, before))) * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--history", type=int, default=20)
    parser.add_argument("--genres", type=int, default=20)
    parser.add_argument("--peer-ild-users", type=int, default=2_000)
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--metrics", default="", help="comma-separated canonical names (default: every one declared)")
    parser.add_argument("--repeat", type=int, default=1, help="calls per measurement (the median is printed)")
    parser.add_argument("--per-metric", action="store_true", help="also time each metric alone, one call each")
    parser.add_argument("--like", default="", help="run each metric's preset of this peer (rectools: RecTools' four)")
    parser.add_argument("--data", default="", help="a folder to keep the data in and reuse it from (same shape)")
    parser.add_argument("--no-duckdb", action="store_true", help="skip the DuckDB engine")
    parser.add_argument("--no-peer-ild", action="store_true", help="skip RecTools' IntraListDiversity")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    only = [m for m in args.metrics.split(",") if m] or None
    if args.child:
        folder, tool = Path(args.child[0]), args.child[1]
        if tool.startswith("rectools"):
            result = child_rectools(folder, args.k, args.peer_ild_users if tool == "rectools-ild" else 0, args.like)
        else:
            result = child_rankframe(
                folder, tool, declared_metrics(args.k, only, args.like), args.repeat, args.per_metric
            )
        result["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.data or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        shape = [args.users, args.k, args.items, args.history, args.genres]
        if args.data and (folder / "shape.json").exists() and json.loads((folder / "shape.json").read_text()) == shape:
            sizes = {name: len(pd.read_parquet(folder / f"{name}.parquet", columns=["item"])) for name in SIZES}
        else:
            sizes = write_data(folder, *shape)
            (folder / "shape.json").write_text(json.dumps(shape))
        metrics = declared_metrics(args.k, only, args.like)
        print(
            f"{sizes['recs']:,} recommendation rows ({args.users:,} users x {args.k}), {sizes['train']:,} train rows, "
            f"{sizes['features']:,} feature rows, {args.items:,} catalog items (written in "
            f"{time.perf_counter() - start:.0f} s); cores {os.cpu_count()}, load {os.getloadavg()[0]:.1f}"
        )
        print(f"metrics: {', '.join(metrics)}")
        common = ["--k", str(args.k), "--peer-ild-users", str(args.peer_ild_users), "--metrics", args.metrics]
        common += ["--repeat", str(args.repeat), "--like", args.like] + (["--per-metric"] if args.per_metric else [])
        tools = ["pandas"] + ([] if args.no_duckdb else ["duckdb"])
        tools += [] if args.no_peer else ["rectools"] + ([] if args.no_peer_ild else ["rectools-ild"])
        values: dict = {}
        timings: dict = {}
        for tool in tools:
            result, rss = run_child([*common, "--child", str(folder), tool])
            label = tool if tool.startswith("rectools") else f"rankframe ({tool})"
            if "error" in result:
                print(f"{label:<20} skipped: {result['error']}")
                continue
            where = f", rankframe from {result['where']}" if "where" in result else ""
            print(
                f"{label:<20} {result.get('cpu', float('nan')):7.2f} CPU-s {result['seconds']:7.2f} s, peak RSS "
                f"{rss / 2**20:,.0f} MB  (load {os.getloadavg()[0]:.1f}{where})"
            )
            values[label] = result["values"]
            timings[label] = result
        if args.per_metric and {"rankframe (pandas)", "rankframe (duckdb)"} <= set(timings):
            pandas, duck = timings["rankframe (pandas)"], timings["rankframe (duckdb)"]
            print(f"each metric alone, one call each (median of {args.repeat}: wall s / CPU-s, every thread):")
            print(f"  {'metric':<20} {'pandas':>15} {'duckdb':>15} {'duckdb / pandas (CPU)':>22}")
            rows = [(m, pandas["per_metric"][m], duck["per_metric"][m]) for m in metrics]
            rows.append(("all in one call", (pandas["seconds"], pandas["cpu"]), (duck["seconds"], duck["cpu"])))
            for m, (pw, pc), (dw, dc) in rows:
                print(f"  {m:<20} {pw:6.2f} / {pc:6.2f} {dw:6.2f} / {dc:6.2f} {dc / pc:21.1f}x")
        print("values:")
        for label, got in values.items():
            print(f"  {label}: " + ", ".join(f"{m} = {v}" for m, v in got.items()))


if __name__ == "__main__":
    main()
