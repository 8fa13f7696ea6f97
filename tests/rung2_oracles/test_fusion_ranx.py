"""ranx as the oracle of rankframe.fuse: every method x every normalisation on random runs (3 systems, partial
overlap, tied scores), fused scores equal to 1e-9.

ranx orders a run by its dict order, and breaks score ties in an order of its own; rankframe orders by score,
ties by item id descending. Where the order matters (the rank methods; the 'rank' and 'borda' normalisations)
ranx is given each run's rankframe order as distinct scores (n - position + 1), so both read the same lists and
only the fusion is compared. The rank methods after norm='borda' are left out: ranx's order of the filled
candidates comes from a Python set (the hash seed), rankframe's is item id descending (docs/fusion.md).
All ranx results are computed once (numba compiles each function on first use).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from loading import Later

import rankframe
from rankframe.fusion import METHODS

pytestmark = pytest.mark.oracle  # ranx (numba): compiled once per run, on one worker (tests/tiers.py)
ranx = Later("ranx")  # imported by the first test that uses it (tests/loading.py)

NORMS = [None, "min-max", "max", "sum", "zmuv", "rank", "borda"]
WEIGHTS = {"bm25": 0.5, "dense": 1.5, "splade": 1.0}
PARAMS = {"gamma": 0.5, "phi": 0.7}
CASES = [(m, n) for m in METHODS for n in NORMS if not (METHODS[m].reads == "rank" and n == "borda")]


def random_runs(seed: int = 7) -> pd.DataFrame:
    """3 systems x 25 queries; each run draws 3..12 items from a pool of 15, scores rounded (many ties)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in WEIGHTS:
        for q in range(25):
            n = rng.integers(3, 13)
            items = rng.choice(15, size=n, replace=False)
            scores = np.round(rng.uniform(0.05, 1.0, size=n), 1)
            rows += [(s, f"q{q:02d}", f"d{i}", float(v)) for i, v in zip(items, scores)]
    return pd.DataFrame(rows, columns=["system", "query", "item", "score"])


def positions_as_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run with score = n - position + 1 in rankframe's order (score desc, item id desc)."""
    d = runs.sort_values(["system", "query", "score", "item"], ascending=[True, True, False, False])
    pos = d.groupby(["system", "query"]).cumcount()
    return d.assign(score=(100.0 - pos).astype(float))


def to_ranx(runs: pd.DataFrame) -> list:
    out = []
    for s in WEIGHTS:
        d = runs[runs.system == s]
        as_dict = {q: dict(zip(g["item"], g["score"])) for q, g in d.groupby("query")}
        out.append(ranx.Run(as_dict, name=s))
    return out


def ranx_params(method: str) -> dict:
    m = METHODS[method]
    params = {}
    if m.weighted:
        params["weights"] = list(WEIGHTS.values())
    if "gamma" in m.params or method == "combgmnz":
        params["gamma"] = PARAMS["gamma"]
    if "phi" in m.params:
        params["phi"] = PARAMS["phi"]
    return params


def reads_order(method: str, norm: str | None) -> bool:
    return METHODS[method].reads == "rank" or norm in ("rank", "borda")


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return random_runs()


@pytest.fixture(scope="module")
def ranx_results(runs) -> dict:
    from ranx import fuse

    as_runs = {False: to_ranx(runs), True: to_ranx(positions_as_scores(runs))}
    out = {}
    for method, norm in CASES:
        fused = fuse(as_runs[reads_order(method, norm)], norm=norm, method=METHODS[method].ranx,
                     params=ranx_params(method))  # fmt: skip
        out[method, norm] = {(q, d): v for q, docs in fused.to_dict().items() for d, v in docs.items()}
    qdrant = fuse(as_runs[True], norm=None, method="rrf", params={"k": 1})
    out["qdrant"] = {(q, d): v for q, docs in qdrant.to_dict().items() for d, v in docs.items()}
    return out


def ours(runs: pd.DataFrame, method: str, norm: str | None, **kw) -> dict:
    m = METHODS[method]
    options = dict(kw)
    if m.weighted:
        options["weights"] = WEIGHTS
    options.update({p: PARAMS[p] for p in ("gamma", "phi") if p in m.params})
    fused = rankframe.fuse(runs, method, norm="none" if norm is None else norm, **options)
    rows = fused[fused.system == method]
    return dict(zip(zip(rows["query"], rows["item"]), rows["score"]))


def assert_same(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    keys = sorted(expected)
    a = np.array([got[k] for k in keys])
    b = np.array([expected[k] for k in keys])
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize(("method", "norm"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_fused_scores_equal_ranx(runs, ranx_results, method, norm):
    assert_same(ours(runs, method, norm), ranx_results[method, norm])


def test_qdrant_convention_is_ranx_rrf_with_k_minus_one(runs, ranx_results):
    # 1 / (2 + rank0) = 1 / (1 + rank1): Qdrant's k=2 on 0-based ranks is ranx's k=1
    assert_same(ours(runs, "rrf", None, k=2, rank_base=0), ranx_results["qdrant"])


def test_the_fused_run_is_ordered_by_score_then_item_descending(runs):
    fused = rankframe.fuse(runs, "combsum", norm="min-max")
    rows = fused[fused.system == "combsum"]
    assert fused.iloc[: len(runs)].equals(runs)
    order = rows.sort_values(["query", "score", "item"], ascending=[True, False, False]).index
    assert list(order) == list(rows.index)
