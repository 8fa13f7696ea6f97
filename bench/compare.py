"""Time ``rankframe.compare`` on top of evaluation: 5 systems x 100k queries x 5 metrics x 10 segments.

Usage:  python bench/compare.py [--queries 100000] [--depth 20] [--resamples 10000] [--scipy]

The table: five systems (``sys0`` is the baseline) ranking the same queries; each system's rows come from the
shared generator (``../shared/bench/gen.py``, ``depth`` ranked rows plus 1-5 judged-unretrieved rows per query)
with its own seed, and ``segment = query % 10``. Reported separately:

1. evaluation: ``rankframe.evaluate(df, METRICS, by=["segment", "system"], per_query=True)``;
2. the comparison step after evaluation (alignment, paired t-tests, t intervals, Holm over all 200
   comparisons), timed on the per-query frame of step 1, and the whole ``rankframe.compare`` call;
3. the randomization test with ``--resamples`` sign flips for all 200 comparisons (comparison step only);
4. with ``--scipy``: ``scipy.stats.permutation_test`` on ONE comparison (one segment, one metric, one system,
   n = 10,000 queries) with 1,000 resamples, scaled to 10,000.

Peak RSS (``ru_maxrss``) is printed at the end. Not a test; on a shared machine the numbers vary from run to run.

``python bench/compare.py --issue25`` runs issue 25's design instead: 10 systems x 10,000 queries x 3 metrics
(27 comparisons against ``sys0``, one segment), 10,000 sign flips / bootstrap resamples, and times on the per-query
frame: (a) today's call (randomization test, t intervals, Holm); (b) the same with ``correction="westfall-young"``;
(a2) (a) with ``ci_method="bootstrap"``; (c) (b) with
``ci_method="bootstrap"``; then the direct way: (d) Westfall-Young in plain numpy (a +-1 sign matrix,
one float64 matrix product, the step-down) and (e) ``scipy.stats.bootstrap`` (paired, percentile) on one comparison,
scaled to 27. The issue asks (c) within 2x of (a). Then (f) the t-test step (with ``hedges_gz``, closed form) and (g) the
Wilcoxon test step (with the Hodges-Lehmann estimate and interval), the two kernels alone, and the direct
Hodges-Lehmann way (every Walsh average of one comparison, then ``np.median``).
"""

from __future__ import annotations

import argparse
import importlib.util
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

import rankframe  # noqa: F401
from rankframe.compare import _check_parameters, _compare_per_query, compare

GEN = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen.py"
METRICS = ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10"]
N_SYSTEMS, N_SEGMENTS = 5, 10


def load_generator():
    spec = importlib.util.spec_from_file_location("gen", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.generate


def table(n_queries: int, depth: int) -> pd.DataFrame:
    generate = load_generator()
    parts = []
    for s in range(N_SYSTEMS):
        part = generate(n_queries, depth=depth, seed=100 + s, shuffle=False).to_pandas()
        part["system"] = f"sys{s}"
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    df["system"] = df["system"].astype("category")
    df["segment"] = (df["query"] % N_SEGMENTS).astype(np.int8)
    return df


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def step_parameters(**kw):
    base = dict(
        pairs="baseline",
        test=None,
        ci_method=None,
        ci=0.95,
        correction="holm",
        missing="error",
        n_resamples=10_000,
        seed=0,
        engine="pandas",
        options={},
    )
    base.update(kw)
    p = _check_parameters(base)
    p["family"] = []
    return p


def issue25(resamples: int) -> None:
    """Issue 25's design (module docstring): Westfall-Young and the bootstrap against today's call and the direct way."""
    from scipy import stats

    metrics = ["AP@10", "nDCG@10", "P@10"]
    generate = load_generator()
    parts = []
    for s in range(10):
        part = generate(10_000, depth=20, seed=200 + s, shuffle=False).to_pandas()
        part["system"] = f"sys{s}"
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    per = rankframe.evaluate(df, metrics, by="system", per_query=True)
    print(f"table: {len(df):,} rows (10 systems x 10,000 queries); {len(per):,} per-query values", flush=True)

    def run(**kw):
        p = step_parameters(test="randomization", n_resamples=resamples, seed=1, **kw)
        return _compare_per_query(per, metrics, [], "query", "system", "sys0", p)

    rows = {}
    for name, kw in [
        ("a. today: randomization + t interval + Holm", {}),
        ("a2. today with the bootstrap interval", dict(ci_method="bootstrap")),
        ("b. randomization + Westfall-Young", dict(correction="westfall-young")),
        ("c. randomization + Westfall-Young + bootstrap", dict(correction="westfall-young", ci_method="bootstrap")),
    ]:
        best, out = min((timed(lambda: run(**kw)) for _ in range(2)), key=lambda r: r[0])
        rows[name] = (best, out)
        print(f"{name}: {best:.2f} s", flush=True)
    base = rows["a. today: randomization + t interval + Holm"][0]
    wy = rows["c. randomization + Westfall-Young + bootstrap"][1]
    c = rows["c. randomization + Westfall-Young + bootstrap"][0]
    print(
        f"   ratios: b / a = {rows['b. randomization + Westfall-Young'][0] / base:.2f}, c / a = {c / base:.2f} "
        f"(issue: <= 2), c / a2 = {c / rows['a2. today with the bootstrap interval'][0]:.2f}"
    )

    # the Wilcoxon test with its Hodges-Lehmann estimate and interval, and the t-test (hedges_gz: closed form)
    for name, kw in [
        ("f. t-test + t interval + Holm (with hedges_gz)", dict(test="t")),
        ("g. Wilcoxon + t interval + Holm (with hl_*)", dict(test="wilcoxon")),
    ]:
        p = step_parameters(**kw)
        best, _ = min(
            (timed(lambda: _compare_per_query(per, metrics, [], "query", "system", "sys0", p)) for _ in range(2)),
            key=lambda r: r[0],
        )
        print(f"{name}: {best:.2f} s", flush=True)

    wide = per.pivot_table(index="query", columns=["metric", "system"], values="value")
    d = np.stack(
        [wide[(m, f"sys{s}")].to_numpy() - wide[(m, "sys0")].to_numpy() for m in metrics for s in range(1, 10)], 1
    )

    def direct_wy():
        n = d.shape[0]
        rng = np.random.default_rng(0)
        t_obs = np.abs(d.mean(0) / (d.std(0, ddof=1) / np.sqrt(n)))
        order = np.argsort(-t_obs)
        ss = (d * d).sum(0)
        hits = np.zeros(d.shape[1])
        for a in range(0, resamples, 500):  # 500 sign patterns at a time (memory)
            signs = rng.choice([-1.0, 1.0], size=(min(500, resamples - a), n))
            tot = signs @ d
            t = np.abs((tot / n) / np.sqrt((ss - tot * tot / n) / (n - 1) / n))
            u = np.maximum.accumulate(t[:, order[::-1]], axis=1)[:, ::-1]
            hits[order] += (u >= t_obs[order]).sum(0)
        return np.maximum.accumulate(((hits + 1) / (resamples + 1))[order])

    from rankframe.stats import hodges_lehmann, wilcoxon_test

    zero, off = np.zeros_like(d), np.array([0, d.shape[0]])
    t_w, wx = timed(lambda: wilcoxon_test(d, zero, off))
    t_hl, _ = timed(lambda: hodges_lehmann(d, zero, off, wx))
    print(f"   kernels: wilcoxon_test {t_w:.2f} s, hodges_lehmann {t_hl:.2f} s (27 comparisons x 10,000 queries)")
    one = d[:, 0]

    def direct_hl():  # every Walsh average of one comparison, 500 rows at a time (the full matrix is 800 MB)
        nz = np.sort(one[one != 0])
        parts = [
            ((nz[i : i + 500, None] + nz[None, :]) / 2)[np.triu(np.ones((len(nz[i : i + 500]), len(nz)), bool), i)]
            for i in range(0, len(nz), 500)
        ]
        return np.median(np.concatenate(parts))

    t_dh, _ = timed(direct_hl)
    print(f"   direct: every Walsh average of one comparison and np.median: {t_dh:.2f} s (x27: ~{27 * t_dh:.0f} s)")

    t_d, _ = timed(direct_wy)
    print(f"d. direct numpy Westfall-Young (27 comparisons): {t_d:.2f} s", flush=True)
    one = d[:, 0]
    t_b, res = timed(
        lambda: stats.bootstrap(
            (one,), np.mean, n_resamples=resamples, method="percentile", vectorized=True, rng=np.random.default_rng(0)
        )
    )
    print(f"e. scipy.stats.bootstrap, one comparison: {t_b:.2f} s (x27: ~{27 * t_b:.1f} s)", flush=True)
    cols = ["metric", "system", "delta", "ci_low", "ci_high", "p_value", "p_adjusted", "ci_low_adjusted"]
    print(wy[cols].head(6).to_string(index=False))
    print(f"peak RSS: {peak_rss_mib():.0f} MiB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--issue25", action="store_true", help="issue 25's design: Westfall-Young and the bootstrap")
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=20)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--scipy", action="store_true", help="also time scipy.stats.permutation_test on one comparison")
    args = ap.parse_args()
    if args.issue25:
        issue25(args.resamples)
        return

    t_gen, df = timed(lambda: table(args.queries, args.depth))
    print(
        f"table: {len(df):,} rows ({N_SYSTEMS} systems x {args.queries:,} queries, depth {args.depth}, "
        f"{N_SEGMENTS} segments), {df.memory_usage(deep=True).sum() / 2**20:.0f} MiB, built in {t_gen:.1f} s; "
        f"peak RSS so far {peak_rss_mib():.0f} MiB",
        flush=True,
    )

    t_eval, per = timed(lambda: rankframe.evaluate(df, METRICS, by=["segment", "system"], per_query=True))
    print(f"1. evaluation (per query, {len(per):,} values): {t_eval:.2f} s", flush=True)

    names = METRICS
    p_t = step_parameters()
    times = []
    for _ in range(3):
        t, out = timed(lambda: _compare_per_query(per, names, ["segment"], "query", "system", "sys0", p_t))
        times.append(t)
    print(
        f"2. comparison step (align + t-tests + t intervals + Holm, {len(out)} comparisons): "
        f"best {min(times):.2f} s, runs {', '.join(f'{t:.2f}' for t in times)}",
        flush=True,
    )
    t_call, full = timed(lambda: compare(df, METRICS, baseline="sys0", by="segment"))
    pd.testing.assert_frame_equal(full, out)
    print(f"   whole compare() call (evaluation included): {t_call:.2f} s", flush=True)
    print(out.head(8).to_string(index=False), flush=True)

    p_r = step_parameters(test="randomization", n_resamples=args.resamples, seed=1)
    t_rand, rand = timed(lambda: _compare_per_query(per, names, ["segment"], "query", "system", "sys0", p_r))
    print(
        f"3. randomization test, {args.resamples:,} sign flips x {len(rand)} comparisons "
        f"(~{args.queries // N_SEGMENTS:,} queries each): {t_rand:.2f} s",
        flush=True,
    )
    print(rand[["segment", "metric", "system", "n", "delta", "p_value", "p_adjusted"]].head(5).to_string(index=False))

    if args.scipy:
        from scipy import stats

        one = per[(per["segment"] == 0) & (per["metric"] == "AP@10")]
        wide = one.pivot(index="query", columns="system", values="value")
        a, b = wide["sys1"].to_numpy(), wide["sys0"].to_numpy()
        t_sp, res = timed(
            lambda: stats.permutation_test(
                (a, b),
                lambda x, y, axis: np.mean(x - y, axis=axis),
                permutation_type="samples",
                vectorized=True,
                n_resamples=1_000,
                rng=np.random.default_rng(0),
            )
        )
        print(
            f"4. scipy.stats.permutation_test, one comparison, n = {len(a):,}, 1,000 resamples: {t_sp:.2f} s "
            f"(x10 for 10,000: ~{10 * t_sp:.0f} s); p = {res.pvalue:.4f}",
            flush=True,
        )
    print(f"peak RSS: {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
