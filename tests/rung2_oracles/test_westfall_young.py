"""Westfall-Young max-|t| step-down: a slow direct oracle, a hand case, and the properties the method guarantees.

The oracle follows Westfall & Young (1993), Algorithm 4.1 (step-down maxT), as Ge, Dudoit & Speed (2003, Box 2)
write it, one resample and one comparison at a time: the sign patterns are read bit by bit from the stream the
randomization test documents (rankframe/stats/randomization.py), each flipped t is scipy's ``ttest_1samp``, the
successive maxima run in a plain Python loop.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from rankframe import compare, stats
from rankframe.core.errors import ParameterError


def _patterns(n: int, n_resamples: int, child: np.random.SeedSequence) -> list[np.ndarray]:
    """The randomization test's sign patterns of a segment of ``n`` rows (exact enumeration or the random stream)."""
    if n < 63 and 2**n <= n_resamples:
        return [np.array([-1.0 if (j >> i) & 1 else 1.0 for i in range(n)]) for j in range(2**n)]
    bitgen = np.random.PCG64(child)
    words = -(-n // 64)
    out = []
    for _ in range(n_resamples):
        raw = [int(w) for w in bitgen.random_raw(words)]
        out.append(np.array([-1.0 if (raw[i // 64] >> (i % 64)) & 1 else 1.0 for i in range(n)]))
    return out


def _t(d: np.ndarray, side: str) -> float:
    t = float(sps.ttest_1samp(d, 0.0).statistic) if np.ptp(d) > 0 else np.sign(d.mean()) * np.inf
    return {"two-sided": abs(t), "greater": t, "less": -t}[side]


def _naive_westfall_young(
    d: np.ndarray, n_resamples: int, seed: int, side: str = "two-sided", segment: int = 0, n_segments: int = 1
) -> np.ndarray:
    """Step-down maxT over the columns of one segment ``d`` (queries x comparisons), the slow obvious way."""
    n, m = d.shape
    pats = _patterns(n, n_resamples, np.random.SeedSequence(seed).spawn(n_segments)[segment])
    exact = len(pats) == 2**n and 2**n <= n_resamples
    ok = ~np.isnan(d)  # a NaN: the query takes no part in that comparison (missing="drop")
    t_obs = [_t(d[ok[:, j], j], side) for j in range(m)]
    order = sorted(range(m), key=lambda j: -t_obs[j])  # largest observed statistic first
    hits = [0] * m
    for sgn in pats:
        t_star = [_t((sgn * d[:, j])[ok[:, j]], side) for j in range(m)]
        u = -np.inf
        for j in reversed(order):  # successive maxima from the bottom of the order
            u = max(u, t_star[j])
            hits[j] += u >= t_obs[j] - 1e-9 * abs(t_obs[j])
    raw = [h / len(pats) if exact else (h + 1) / (n_resamples + 1) for h in hits]
    p = np.empty(m)
    running = 0.0
    for j in order:  # monotone in the step-down order
        running = max(running, raw[j])
        p[j] = min(1.0, running)
    return p


def _design(seed: int, n: int, m: int, rho: float = 0.0, shift: float = 0.3) -> np.ndarray:
    """Per-query differences of ``m`` comparisons, correlation ``rho`` between them, effects 0..shift."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=(n, 1))
    own = rng.normal(size=(n, m))
    return np.sqrt(rho) * common + np.sqrt(1 - rho) * own + np.linspace(0, shift, m)


@pytest.mark.parametrize(
    ("n", "m", "side", "seed"),
    [(25, 4, "two-sided", 1), (9, 3, "two-sided", 2), (70, 3, "greater", 3), (12, 5, "less", 4)],
)
def test_westfall_young_equals_the_direct_step_down(n, m, side, seed):
    d = _design(seed, n, m, rho=0.5)
    got = stats.westfall_young(d, np.zeros_like(d), np.array([0, n]), np.zeros((1, m), int), 120, seed, side)
    np.testing.assert_allclose(got.p_adjusted[0], _naive_westfall_young(d, 120, seed, side), rtol=0, atol=1e-15)


def test_westfall_young_with_queries_left_out():
    d = _design(21, 30, 4, rho=0.5)
    d[np.random.default_rng(0).random(d.shape) < 0.15] = np.nan  # each comparison on its own queries
    got = stats.westfall_young(d, np.zeros_like(d), np.array([0, 30]), np.zeros((1, 4), int), 120, 5)
    np.testing.assert_allclose(got.p_adjusted[0], _naive_westfall_young(d, 120, 5), rtol=0, atol=1e-15)


def test_westfall_young_hand_case():
    # 3 queries, exact (2**3 = 8 patterns). A: d = (1, 2, 3); B: d = (1, -2, 3), i.e. A with query 2 flipped.
    # Flipped sums S of A over the 8 patterns: +-6 (t = 3.46), +-4 (t = 1.11), +-2 (t = 0.46), 0 twice; t depends
    # on |S| only (sum d^2 = 14 is fixed): t = (S/3) / sqrt((14 - S^2/3) / 2 / 3).
    # Observed: t_A = 3.46 (S = 6), t_B = 0.46 (S = 2). Order: A, then B.
    # A: max(|t*_A|, |t*_B|) >= 3.46 when |S_A| = 6 (no flip, flip all) or |S_B| = 6 (flip query 2, flip 1 and 3):
    #    4 of 8 -> 0.5 (raw: 2/8 = 0.25).
    # B: |t*_B| >= 0.46 unless S_B = 0: 6 of 8 -> 0.75; max(0.5, 0.75) = 0.75.
    d = np.array([[1.0, 1.0], [2.0, -2.0], [3.0, 3.0]])
    got = stats.westfall_young(d, np.zeros_like(d), np.array([0, 3]), np.zeros((1, 2), int), 1000, 0)
    np.testing.assert_allclose(got.p_adjusted, [[0.5, 0.75]], rtol=0, atol=1e-15)


def _paired_frame(seed: int, n: int, systems: int, rho: float) -> pd.DataFrame:
    """A long ranking table: ``systems`` systems whose relevant item's rank is correlated across systems."""
    rng = np.random.default_rng(seed)
    base = rng.integers(1, 6, size=n)
    rows = []
    for s in range(systems):
        noise = rng.integers(-1, 2, size=n) * (rng.random(n) > rho)
        better = (rng.random(n) < 0.15 * s).astype(int)
        rank = np.clip(base + noise - better, 1, 5)
        for q in range(n):
            for r in range(1, 6):
                rows.append((f"s{s}", q, f"i{r}", r, int(r == rank[q])))
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])


def _props(out: pd.DataFrame, holm: pd.DataFrame) -> None:
    ok = out["p_value"].notna()
    p, adj = out["p_value"][ok].to_numpy(), out["p_adjusted"][ok].to_numpy()
    assert (adj >= p).all()  # never below the comparison's own randomization p-value
    t = np.abs(out["delta"][ok] / (out["sd_diff"][ok] / np.sqrt(out["n"][ok]))).to_numpy()
    order = np.argsort(-t, kind="stable")
    assert (np.diff(adj[order]) >= -1e-15).all()  # monotone in the step-down order
    assert (adj <= holm["p_adjusted"][ok].to_numpy() + 1e-15).all()  # correlated comparisons: never above Holm


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_westfall_young_properties_on_correlated_comparisons(seed):
    df = _paired_frame(seed, 60, 4, rho=0.8)
    metrics = ["RR", "nDCG@5", "P@1", "nDCG@3"]  # strongly correlated metrics of the same runs
    kw = dict(baseline="s0", test="randomization", n_resamples=500, seed=seed)
    wy = compare(df, metrics, correction="westfall-young", **kw)
    holm = compare(df, metrics, correction="holm", **kw)
    _props(wy, holm)
    assert (wy["p_adjusted"] < holm["p_adjusted"] - 1e-9).any()  # strictly less conservative somewhere
    again = compare(df, metrics, correction="westfall-young", **kw)  # seeded: the same numbers
    pd.testing.assert_frame_equal(pd.DataFrame(wy), pd.DataFrame(again))


def test_westfall_young_families_within_segments():
    # two segments (their own flip streams), the second split into two families (columns 0-1 and 2)
    d1, d2 = _design(11, 15, 3, rho=0.6), _design(12, 20, 3, rho=0.6)
    d = np.vstack([d1, d2])
    families = np.array([[0, 0, 0], [1, 1, 2]])
    got = stats.westfall_young(d, np.zeros_like(d), np.array([0, 15, 35]), families, 120, 9).p_adjusted
    np.testing.assert_allclose(got[0], _naive_westfall_young(d1, 120, 9, segment=0, n_segments=2), atol=1e-15)
    np.testing.assert_allclose(
        got[1, :2], _naive_westfall_young(d2[:, :2], 120, 9, segment=1, n_segments=2), atol=1e-15
    )
    np.testing.assert_allclose(
        got[1, 2:], _naive_westfall_young(d2[:, 2:], 120, 9, segment=1, n_segments=2), atol=1e-15
    )


def test_westfall_young_refusals():
    df = _paired_frame(5, 40, 3, rho=0.7)
    df["half"] = np.where(df["query"] < 20, "a", "b")
    kw = dict(baseline="s0", by="half", test="randomization", n_resamples=200, seed=7)
    out = compare(df, ["RR", "P@1"], correction="westfall-young", family="half", **kw)
    assert out["p_adjusted"].notna().all()
    with pytest.raises(ParameterError, match="family="):  # a family across segments has no joint resampling
        compare(df, ["RR"], correction="westfall-young", **kw)
    with pytest.raises(ParameterError, match="test='randomization'"):
        compare(df, ["RR"], baseline="s0", correction="westfall-young")
    with pytest.raises(ParameterError, match="test='randomization'"):
        compare(df, ["RR"], pairs="all", test="tukey", correction="westfall-young")
    with pytest.raises(ParameterError, match="'correction' parameter of compare"):  # misspelled: the choices listed
        compare(df, ["RR"], baseline="s0", test="randomization", correction="westfall_young")
    with pytest.raises(ValueError, match="not a p-value correction|expected one of"):  # needs the flips, not p
        stats.adjust(np.array([0.1, 0.2]), "westfall-young")
    # any case, the accessor, a single resample (nothing can be significant: infinite adjusted intervals)
    acc = df.rank_metrics.compare(["RR"], baseline="s0", test="randomization", correction="Westfall-Young",
                                  n_resamples=1, seed=0)  # fmt: skip
    assert acc.attrs["correction"] == "westfall-young" and (acc["p_adjusted"] >= 0.5).all()  # (hits + 1) / 2
    assert np.isinf(acc["ci_low_adjusted"]).all()


def test_docs_examples_are_current():
    """The two transcripts of docs/comparing.md (choosing a correction; adjusted intervals) show real output."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "comparing.md").read_text()
    df = pd.read_parquet(root / "examples" / "paired.parquet")
    kw = dict(baseline="bm25", by="length", family="length", test="randomization", seed=1)
    holm = compare(df, ["nDCG@5", "AP", "P@5"], correction="holm", **kw)
    wy = compare(df, ["nDCG@5", "AP", "P@5"], correction="westfall-young", **kw)
    table = holm[["length", "metric", "system", "p_value"]].assign(
        holm=holm["p_adjusted"], westfall_young=wy["p_adjusted"]
    )
    out = compare(df, "AP", baseline="bm25", by="length", correction="bonferroni")
    cols = ["length", "system", "delta", "ci_low", "ci_high", "p_value", "p_adjusted"]
    adjusted = out[[*cols, "ci_low_adjusted", "ci_high_adjusted"]]
    for frame in (table, adjusted):
        for line in pd.DataFrame(frame).round(4).to_string(index=False).splitlines():
            assert line in doc, line
