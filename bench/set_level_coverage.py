"""Coverage of the set-level metrics' bootstrap intervals (evaluate's ``ci=`` and compare's deltas): a simulation.

Usage:  python bench/set_level_coverage.py [--reps 300 200 100] [--resamples 1000] [--sizes 60 500 5000]
        (writes bench/results/set_level_coverage.txt)

A population of ``--population`` users, each with a top-10 list from two systems over 1,000 items: system ``a``
draws its 10 items without replacement with probability ~ rank^-0.8 (a flatter popularity), system ``b`` ~
rank^-1.1 (a more concentrated one), so the two differ in level on every metric, as in issue 33's table. A design
is a sample of n users without replacement; its four set-level values (Coverage@10 and Gini@10 over the 1,000-item
catalog, Entropy@10, Personalization@10) per system and their deltas ``a - b`` get the library's bootstrap over
queries (``rankframe.engines.beyond_bootstrap.resample``: the draws of evaluate and compare) with ``--resamples``
resamples.

The target: the value expected from a sample of n users, ``theta_n = E[theta_hat(S_n)]`` (and the expected delta),
estimated by the mean over ``--truth`` further samples (their point estimates alone). A set-level value depends on n
(Coverage grows with the lists seen), so "the population's value" is the value at the sample's size; this is the
quantity a reader comparing two systems on n users means (decision 19).

Each design's interval is read off its own draws by five rules: the percentile interval, the normal one (value -/+
z * sd of the draws: evaluate's interval before issue 33), the basic one ``2 t - q``, the percentile interval
moved by the draws' median bias (``t + q - m*``), and the library's ``beyond_bootstrap.interval`` (the basic interval
with the median bias removed, ``t + m* - q``). Coverage is the share of designs whose interval holds the target; the
"holds t" column the share whose interval holds the design's own estimate.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtri

from rankframe.core.columns import Columns
from rankframe.engines import beyond_bootstrap as boot
from rankframe.engines.beyond_engine import lists_of
from rankframe.measures.names import parse

METRICS = ["Coverage@10", "Gini@10", "Entropy@10", "Personalization@10"]
N_ITEMS, K = 1000, 10
LEVELS = (0.90, 0.95)
RULES = ("percentile", "normal", "basic", "shifted percentile", "rankframe")


def population(n_users: int, seed: int) -> pd.DataFrame:
    """Two systems' top-10 lists for ``n_users`` users (Gumbel top-k: sampling without replacement ~ p)."""
    rng = np.random.default_rng(seed)
    rows = []
    for system, a in (("a", 0.8), ("b", 1.1)):
        logp = -a * np.log(np.arange(1, N_ITEMS + 1))
        keys = logp + rng.gumbel(size=(n_users, N_ITEMS))
        top = np.argpartition(-keys, K, axis=1)[:, :K]
        order = np.argsort(-np.take_along_axis(keys, top, axis=1), axis=1)
        items = np.take_along_axis(top, order, axis=1)
        rows.append(
            pd.DataFrame(
                {
                    "system": system,
                    "query": np.repeat(np.arange(n_users), K),
                    "item": items.ravel(),
                    "rank": np.tile(np.arange(1, K + 1), n_users),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def design(pop: pd.DataFrame, users: np.ndarray, b: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Estimates (metrics, 2 systems) and draws (B, metrics, 2) of one sample of users (B = 0: estimates only)."""
    sample = pop[pop["query"].isin(users)]
    measures = [parse(m) for m in METRICS]
    lists, units, keys = lists_of(sample, Columns(), ["system"], catalog=list(range(N_ITEMS)), measures=measures)
    query = pd.factorize(units.keys["query"], sort=True)[0].astype(np.int64)
    group = np.zeros(lists.n_units, dtype=np.int64)  # one resampling group: both systems share the draws (compare)
    got = boot.resample(lists, measures, group, query, 1, max(b, 1), np.random.SeedSequence(seed))
    est = np.stack([got[str(m)].estimate for m in measures])
    draws = np.stack([got[str(m)].draws for m in measures], axis=1)
    return est, draws


def rule_interval(rule: str, draws: np.ndarray, t: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The two-sided interval of each column of ``draws`` (B, columns) around the estimates ``t`` by one rule."""
    if rule == "rankframe":
        return boot.interval(draws, t, level)
    lo, hi = np.quantile(draws, [(1 - level) / 2, (1 + level) / 2], axis=0)
    m = np.median(draws, axis=0)
    if rule == "percentile":
        return lo, hi
    if rule == "normal":
        z = ndtri((1 + level) / 2) * draws.std(axis=0, ddof=1)
        return t - z, t + z
    if rule == "basic":
        return 2 * t - hi, 2 * t - lo
    return t + lo - m, t + hi - m  # shifted percentile


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[60, 500, 5000])
    ap.add_argument("--reps", type=int, nargs="+", default=[300, 200, 100])
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--truth", type=int, default=400)
    ap.add_argument("--population", type=int, default=50_000)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "set_level_coverage.txt"))
    args = ap.parse_args()
    started = time.perf_counter()
    pop = population(args.population, 0)
    rng = np.random.default_rng(1)
    lines = [
        "Coverage of the set-level bootstrap intervals (bench/set_level_coverage.py; the method in its docstring)",
        f"population {args.population} users x 2 systems, 1,000 items, top-10 lists (a ~ rank^-0.8, b ~ rank^-1.1);"
        f" {args.resamples} resamples a design; target: the mean over {args.truth} further samples of n users",
        "",
    ]
    for n, reps in zip(args.sizes, args.reps):
        truth = np.mean(
            [design(pop, rng.choice(args.population, n, replace=False), 0, 0)[0] for _ in range(args.truth)], 0
        )
        target = {"value a": truth[:, 0], "delta a-b": truth[:, 0] - truth[:, 1]}
        hits = {(w, r, lv): np.zeros(len(METRICS)) for w in target for r in RULES for lv in LEVELS}
        holds = {(w, r, lv): np.zeros(len(METRICS)) for w in target for r in RULES for lv in LEVELS}
        for rep in range(reps):
            est, draws = design(pop, rng.choice(args.population, n, replace=False), args.resamples, rep)
            cases = {
                "value a": (draws[:, :, 0], est[:, 0]),
                "delta a-b": (draws[:, :, 0] - draws[:, :, 1], est[:, 0] - est[:, 1]),
            }
            for w, (d, t) in cases.items():
                for r in RULES:
                    for lv in LEVELS:
                        lo, hi = rule_interval(r, d, t, lv)
                        hits[(w, r, lv)] += (lo <= target[w]) & (target[w] <= hi)
                        holds[(w, r, lv)] += (lo <= t) & (t <= hi)
        lines.append(f"n = {n} users, {reps} designs (binomial sd of a 90% coverage: {np.sqrt(0.09 / reps):.3f})")
        lines.append(
            f"  {'what':<10} {'rule':<19} {'level':>5}  " + "  ".join(f"{m:>18}" for m in METRICS) + "  holds t"
        )
        for w in target:
            for r in RULES:
                for lv in LEVELS:
                    cov = hits[(w, r, lv)] / reps
                    held = holds[(w, r, lv)].sum() / (reps * len(METRICS))
                    lines.append(
                        f"  {w:<10} {r:<19} {lv:>5.2f}  " + "  ".join(f"{c:>18.3f}" for c in cov) + f"  {held:7.3f}"
                    )
        lines.append("")
        print("\n".join(lines[-(3 + 2 * len(RULES) * len(LEVELS)) :]), flush=True)
    lines.append(f"total {time.perf_counter() - started:.0f} s")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(lines[-1])


if __name__ == "__main__":
    main()
