"""ranx as the oracle of rankframe.fuse_train: ranx's optimize_fusion (its grid search, its fusion, its metric)
finds the same best configuration, with the same mean to 1e-9.

Two ways to ask ranx:
- ``ranx.optimize_fusion`` itself, on runs whose fused scores do not tie (distinct random scores, the same items
  in every run, two systems, where ranx's weight grid is rankframe's), for the score methods it trains;
- ranx's loop written out (ranx.fuse + ranx.evaluate for every configuration of the grid, best = the last of the
  equally good, ranx's ``score >= best_score``) for every trained method, on runs with three systems, tied
  scores and partial overlap. There each fused run is handed to ranx.evaluate in rankframe's documented order
  (fused score descending, ties by item id descending): ranx breaks ties of fused scores by an unstable numba
  argsort, so equal fused scores would otherwise rank differently on the two sides. Every configuration's mean
  is compared, not only the best.
ranx orders an input run by its scores; the rank methods read each run's rankframe order given as distinct scores.
w_bordafuse is trained on ranx's own 0.1 grid: Borda points are half-integers, and with weights 0.1, 0.2, ... two
mathematically equal fused scores may differ in their last bit (rankframe adds the points in another order than
ranx); rankframe rounds fused scores to 12 significant digits before ordering them (decision 0015) and the oracle's
order above does the same, so such ties go to the item-id tie-break on both sides (on the 0.1 grid this test failed
before the rounding rule; it used a 0.25 grid, where the sums are exact).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fusion_tables import SYSTEMS, random_table
from loading import Later

import rankframe
from rankframe.fusion import METHODS, TRAINING
from rankframe.fusion.train import grid_values, weight_vectors

pytestmark = pytest.mark.oracle  # ranx (numba): compiled once per run, on one worker (tests/tiers.py)
ranx = Later("ranx")  # imported by the first test that uses it (tests/loading.py)


def positions_as_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run with score = 100 - position in rankframe's order (score desc, item id desc)."""
    d = runs.sort_values(["system", "query", "score", "item"], ascending=[True, True, False, False])
    return d.assign(score=(100.0 - d.groupby(["system", "query"]).cumcount()).astype(float))


def to_ranx_runs(runs: pd.DataFrame, systems: list[str]) -> list:
    return [
        ranx.Run({q: dict(zip(g["item"], g["score"])) for q, g in runs[runs.system == s].groupby("query")}, name=s)
        for s in systems
    ]


def to_ranx_qrels(qrels: pd.DataFrame):
    return ranx.Qrels({q: dict(zip(g["item"], g["relevance"].astype(int))) for q, g in qrels.groupby("query")})


def in_rankframe_order(fused) -> object:
    """ranx's fused run with its scores replaced by distinct ones in rankframe's order (ties: item id desc).

    rankframe's rule (decision 0015, "Ties"): scores rounded to 12 significant digits, then equal ones by item id
    descending; here the rounding is Python's own decimal formatting (``.12g``).
    """
    out = {}
    for q, docs in fused.to_dict().items():
        ordered = sorted(docs.items(), key=lambda kv: (float(f"{kv[1]:.12g}"), kv[0]), reverse=True)
        out[q] = {d: float(len(ordered) - i) for i, (d, _) in enumerate(ordered)}
    return ranx.Run(out)


def grid(method: str, n_systems: int, step: float | None = None) -> list:
    g = TRAINING[method]
    values = grid_values(g, step, None)
    return weight_vectors(n_systems, values) if g.param == "weights" else values


#: the step of each method's grid in these tests (None: ranx's default)
STEPS: dict = {}


def ranx_loop(runs, qrels, method, norm, configs, metric):
    """ranx's optimize_* loop: fuse, evaluate, keep the last of the best (score >= best_score)."""
    best_score, best, values = 0.0, None, []
    for config in configs:
        if TRAINING[method].param == "weights":
            params = {"weights": list(config)}
        else:
            params = {TRAINING[method].param: config}
        fused = ranx.fuse(runs, norm=norm, method=METHODS[method].ranx, params=params)
        score = ranx.evaluate(qrels, in_rankframe_order(fused), metric, save_results_in_run=False)
        values.append(score)
        if score >= best_score:
            best_score, best = score, config
    return best, np.array(values)


CASES = [
    ("wsum", "min-max"),
    ("wmnz", "max"),
    ("mixed", "zmuv"),
    ("w_bordafuse", None),
    ("rrf", None),
    ("rbc", None),
    ("logn_isr", None),
    ("combgmnz", "sum"),
]


@pytest.mark.parametrize(("method", "norm"), CASES, ids=[m for m, _ in CASES])
def test_every_trained_method_finds_ranx_best_on_three_tied_systems(method, norm):
    runs, qrels = random_table(11, SYSTEMS, ties=True)
    reads_rank = METHODS[method].reads == "rank"
    ranx_runs = to_ranx_runs(positions_as_scores(runs) if reads_rank else runs, SYSTEMS)
    param = TRAINING[method].param
    configs = grid(method, len(SYSTEMS), STEPS.get(method))
    best, values = ranx_loop(ranx_runs, to_ranx_qrels(qrels), method, norm, configs, "ndcg@10")
    got, report = rankframe.fuse_train(
        runs, qrels, method, metric="nDCG@10", norm=norm or "none", step=STEPS.get(method), report=True
    )
    np.testing.assert_allclose(report["value"].to_numpy(), values, rtol=0, atol=1e-9)
    expected = {"weights": dict(zip(SYSTEMS, best))} if param == "weights" else {param: best}
    assert got == expected
    assert report.loc[report["best"], "value"].item() == pytest.approx(values.max(), abs=1e-9)


@pytest.mark.parametrize(
    ("method", "norm", "metric", "ranx_metric"),
    [("wsum", "min-max", "nDCG@10", "ndcg@10"), ("wmnz", "min-max", "AP", "map"), ("mixed", "max", "P@5", "precision@5"),
     ("combgmnz", "min-max", "nDCG@10", "ndcg@10")],
)  # fmt: skip
def test_optimize_fusion_itself_on_two_systems_without_ties(method, norm, metric, ranx_metric):
    runs, qrels = random_table(5, SYSTEMS[:2], ties=False, n_queries=15)
    ranx_qrels, ranx_runs = to_ranx_qrels(qrels), to_ranx_runs(runs, SYSTEMS[:2])
    best, ranx_report = ranx.optimize_fusion(
        ranx_qrels, ranx_runs, norm=norm, method=METHODS[method].ranx, metric=ranx_metric,
        return_optimization_report=True, show_progress=False,
    )  # fmt: skip
    got, report = rankframe.fuse_train(runs, qrels, method, metric=metric, norm=norm, report=True)
    np.testing.assert_allclose(report["value"].to_numpy(), ranx_report.results, rtol=0, atol=1e-9)
    param = TRAINING[method].param
    # ranx keeps the last configuration whose mean is >= the best so far, comparing floats exactly; rankframe
    # treats means within 1e-12 as equal. Where P@5's means of 15 queries are the same number summed in another
    # order (0.17333333333333337 vs 0.1733333333333334 here) ranx's choice follows the last bit: the rule is
    # applied to ranx's own means, and it is ranx's choice whenever the best mean is one float.
    results = np.asarray(ranx_report.results)
    near = results >= results.max() - 1e-12
    if near.sum() == (results == results.max()).sum():  # the best mean is one float: ranx's own choice
        expected = {"weights": dict(zip(SYSTEMS[:2], best["weights"]))} if param == "weights" else best
    else:  # ranx's best means differ in their last bits only: the last of them (the grids are the same)
        expected = {param: report[param].iloc[np.flatnonzero(near)[-1]]}
    assert got == expected


@pytest.fixture(scope="module")
def paired() -> tuple[pd.DataFrame, pd.DataFrame, list]:
    df = pd.read_parquet("examples/paired.parquet")
    runs = df[df["rank"].notna()]
    systems = sorted(runs.system.unique())
    # ranx reads scores: each run's rank r as the distinct score 1000 - r (the same order)
    as_scores = runs.assign(score=1000.0 - runs["rank"].astype(float))
    qrels = df[df.relevance.notna()][["query", "item", "relevance"]].drop_duplicates(["query", "item"])
    return df, to_ranx_qrels(qrels), to_ranx_runs(as_scores, systems)


@pytest.mark.parametrize(("method", "norm"), [("wsum", "rank"), ("rrf", None), ("w_bordafuse", None)])
def test_the_bundled_example_gives_ranx_best(paired, method, norm):
    df, ranx_qrels, ranx_runs = paired
    param = TRAINING[method].param
    configs = grid(method, len(ranx_runs), STEPS.get(method))
    best, values = ranx_loop(ranx_runs, ranx_qrels, method, norm, configs, "ndcg@10")
    got, report = rankframe.fuse_train(df, method=method, norm=norm, step=STEPS.get(method), report=True)
    np.testing.assert_allclose(report["value"].to_numpy(), values, rtol=0, atol=1e-9)
    systems = [r.name for r in ranx_runs]
    assert got == ({"weights": dict(zip(systems, best))} if param == "weights" else {param: best})


def test_the_weight_grid_is_ranx_grid_without_its_float_sum_gaps():
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

    for step, n in [(0.1, 2), (0.1, 3), (0.2, 3), (0.25, 4), (0.05, 3)]:
        ours = weight_vectors(n, grid_values(TRAINING["wsum"], step, None))
        theirs = get_trial_configs(get_possible_weights(step), n)
        assert [c for c in ours if c in set(theirs)] == [tuple(c) for c in theirs]  # same order
        # ranx's `sum(seq) == 1.0` on floats drops vectors that do sum to 1 in whole steps
        assert all(abs(sum(round(w / step) for w in c) * step - 1) < 1e-9 for c in ours)
    dropped = set(weight_vectors(3, grid_values(TRAINING["wsum"], 0.1, None))) - set(
        get_trial_configs(get_possible_weights(0.1), 3)
    )
    assert dropped == {(0.2, 0.7, 0.1), (0.3, 0.6, 0.1), (0.6, 0.3, 0.1), (0.7, 0.2, 0.1)}
