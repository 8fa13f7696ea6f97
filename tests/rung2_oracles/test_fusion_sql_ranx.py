"""rf_fuse (sql/fuse.sql) = ranx 0.3.21's ``fuse`` on random runs: every method x applicable normalisation (issue 22).

Three systems over the same queries with partial item overlap and tied scores. ranx breaks score ties by its own
(unstable) sort, rankframe by item id descending as a string (decision 2); so the runs given to ranx for a method or a
normalisation that reads the order are rankframe's order written as strictly decreasing scores, which makes both
read the same positions. ranx's order of the items that borda fills in depends on Python's hash seed, so the
rank-based methods under norm='borda' are held to hand derivations instead (tests/rung1_hand/test_fusion_sql_hand.py).
The ranx calls (numba: the first is slow) run once, in one module fixture.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

pytestmark = pytest.mark.oracle  # ranx (numba): compiled once per run, on one worker (tests/tiers.py)

SYSTEMS = ["bm25", "dense", "splade"]
WEIGHTS = {"bm25": 0.5, "dense": 1.25, "splade": 0.8}
#: rankframe's method name -> (ranx's name, ranx's params, rf_fuse's extra arguments)
SCORE_METHODS = {
    "combsum": ("sum", {}, ""),
    "combmnz": ("mnz", {}, ""),
    "combanz": ("anz", {}, ""),
    "combmax": ("max", {}, ""),
    "combmin": ("min", {}, ""),
    "combmed": ("med", {}, ""),
    "combgmnz": ("gmnz", {"gamma": 1.5}, ", gamma := 1.5"),
    "wsum": (
        "wsum",
        {"weights": [WEIGHTS[s] for s in SYSTEMS]},
        ", weights := MAP {'bm25': 0.5, 'dense': 1.25, 'splade': 0.8}",
    ),
    "wmnz": (
        "wmnz",
        {"weights": [WEIGHTS[s] for s in SYSTEMS]},
        ", weights := MAP {'bm25': 0.5, 'dense': 1.25, 'splade': 0.8}",
    ),
    "mixed": (
        "mixed",
        {"weights": [WEIGHTS[s] for s in SYSTEMS]},
        ", weights := MAP {'bm25': 0.5, 'dense': 1.25, 'splade': 0.8}",
    ),
}
RANK_METHODS = {
    "rrf": ("rrf", {"k": 60}, ""),
    "isr": ("isr", {}, ""),
    "log_isr": ("log_isr", {}, ""),
    "logn_isr": ("logn_isr", {"sigma": 0.01}, ""),
    "bordafuse": ("bordafuse", {}, ""),
    "rbc": ("rbc", {"phi": 0.8}, ""),
    "w_bordafuse": (
        "w_bordafuse",
        {"weights": [WEIGHTS[s] for s in SYSTEMS]},
        ", weights := MAP {'bm25': 0.5, 'dense': 1.25, 'splade': 0.8}",
    ),
}
NORMS = [None, "min-max", "max", "sum", "zmuv", "rank", "borda"]
#: every method x the normalisations that change it (a rank-based method reads only the order, which a score
#: normalisation keeps; borda's filled order is ranx's hash order, see the docstring)
CASES = [(m, n) for m in SCORE_METHODS for n in NORMS] + [(m, n) for m in RANK_METHODS for n in (None, "rank")]


def random_runs(seed: int = 22) -> pd.DataFrame:
    """3 systems x 8 queries; each run holds 1-9 of the query's 12 items, scores on a 0.1 grid (ties) in (0, 1]."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(8):
        for system in SYSTEMS:
            n = int(rng.integers(1, 10))
            items = rng.choice([f"d{q}-{i:02d}" for i in range(12)], size=n, replace=False)
            scores = np.round(rng.integers(1, 8, size=n) / 10, 1)
            if n > 1 and len(set(scores)) == 1:  # ranx's 1e-9 floor for tied runs is not rankframe's 0: keep them out
                scores[0] += 0.1
            rows += [(system, f"q{q}", str(i), float(s)) for i, s in zip(items, scores)]
    return pd.DataFrame(rows, columns=["system", "query", "item", "score"])


def rankframe_order(df: pd.DataFrame) -> pd.DataFrame:
    """Each run in rankframe's order (score descending, item descending as a string) with its position."""
    out = df.sort_values(["system", "query", "item"], ascending=[True, True, False], kind="stable")
    out = out.sort_values(["system", "query", "score"], ascending=[True, True, False], kind="stable")
    return out.assign(pos=out.groupby(["system", "query"]).cumcount() + 1)


def ranx_runs(df: pd.DataFrame, ordered: bool) -> list:
    from ranx import Run

    ranked = rankframe_order(df)
    runs = []
    for system in SYSTEMS:
        part = ranked[ranked.system == system]
        d: dict[str, dict[str, float]] = {}
        for q, item, score, pos in zip(part["query"], part["item"], part["score"], part["pos"]):
            d.setdefault(q, {})[item] = 1000.0 - pos if ordered else score
        runs.append(Run(d, name=system))
    return runs


@pytest.fixture(scope="module")
def results() -> dict:
    from ranx import fuse

    df = random_runs()
    con = macro_connection()
    con.register("runs", df)
    plain, ordered = ranx_runs(df, False), ranx_runs(df, True)
    out = {}
    for method, norm in CASES:
        name, params, extra = {**SCORE_METHODS, **RANK_METHODS}[method]
        by_order = method in RANK_METHODS or norm in ("rank", "borda")
        want = fuse(ordered if by_order else plain, norm=norm, method=name, params=params).to_dict()
        norm_sql = "NULL" if norm is None else f"'{norm}'"
        got = con.execute(f"SELECT * FROM rf_fuse('runs', method := '{method}', norm := {norm_sql}{extra})").df()
        out[(method, norm)] = (got, want)
    con.close()
    return out


@pytest.mark.parametrize(("method", "norm"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_fused_scores_equal_ranx(results, method, norm):
    got, want = results[(method, norm)]
    want_rows = {(q, item): s for q, items in want.items() for item, s in items.items()}
    got_rows = {(q, item): s for q, item, s in zip(got["query"], got["item"], got["score"])}
    assert set(got_rows) == set(want_rows)  # every item of any run, once per query
    bad = [(key, got_rows[key], v) for key, v in want_rows.items() if not math.isclose(got_rows[key], v, abs_tol=1e-9)]
    assert not bad, bad[:5]


@pytest.mark.parametrize(("method", "norm"), CASES[:: len(NORMS)], ids=[m for m, _ in CASES[:: len(NORMS)]])
def test_fused_ranks_are_1_to_n_by_score_then_item(results, method, norm):
    got, _ = results[(method, norm)]
    for _, g in got.groupby("query"):
        assert sorted(g["rank"]) == list(range(1, len(g) + 1))
        order = g.sort_values("rank")
        keys = list(zip(-order["score"], order["item"].map(lambda s: [-ord(c) for c in s])))
        assert keys == sorted(keys)  # score non-increasing, ties by item descending as a string
