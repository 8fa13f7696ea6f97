"""rankframe.fuse_train by hand: the grid, the tie rule, judgments in a column or a qrels table."""

from __future__ import annotations

import pandas as pd
import pytest

import rankframe
from rankframe.fusion import TRAINING
from rankframe.fusion.train import grid_values, weight_vectors

# min-max: a gives x 1, y 0; b gives y 1, x 0. Weights (wa, wb): y scores wb, x scores wa; y (relevant) is first
# when wb > wa, and at wb = wa (the tie is broken by item id descending: y before x). nDCG = 1 with y first,
# 1 / log2(3) = 0.6309 with y second.
RUNS = pd.DataFrame(
    {"system": ["a", "a", "b", "b"], "query": 1, "item": ["x", "y", "y", "x"], "score": [0.9, 0.1, 0.8, 0.2],
     "relevance": [0, 1, 1, 0]}
)  # fmt: skip


def test_the_last_of_the_best_weights_wins():
    best, report = rankframe.fuse_train(RUNS, method="wsum", norm="min-max", metric="nDCG", report=True)
    assert best == {"weights": {"a": 0.5, "b": 0.5}}
    assert [w["a"] for w in report["weights"]] == [i / 10 for i in range(11)]
    assert report["value"].tolist() == pytest.approx([1.0] * 6 + [1 / 1.5849625007211563] * 5)
    assert report["best"].tolist() == [False] * 5 + [True] + [False] * 5


def test_a_separate_qrels_table_gives_the_same():
    qrels = RUNS[["query", "item", "relevance"]].drop_duplicates(["query", "item"])
    got = rankframe.fuse_train(RUNS.drop(columns="relevance"), qrels, "wsum", norm="min-max", metric="nDCG")
    assert got == {"weights": {"a": 0.5, "b": 0.5}}


def test_rrf_k_on_the_default_grid():
    # every k ranks y first (y: 1/(k+2) + 1/(k+1) > x: 1/(k+1) + 1/(k+2)? equal: a tie, broken for y): all k
    # give nDCG 1, and the last, k = 100, wins
    best, report = rankframe.fuse_train(RUNS, method="rrf", metric="nDCG", report=True)
    assert report["k"].tolist() == list(range(10, 101, 10))
    assert best == {"k": 100}


def test_the_grids():
    assert grid_values(TRAINING["rbc"], None, None) == [round(i / 100, 2) for i in range(1, 100)]
    assert grid_values(TRAINING["combgmnz"], 0.25, (0.5, 1.5)) == [0.5, 0.75, 1.0, 1.25, 1.5]
    assert grid_values(TRAINING["rrf"], 5, (1, 20)) == [1, 6, 11, 16]
    # 3 systems, step 0.5: the weight vectors summing to 1, in itertools.product order
    assert weight_vectors(3, grid_values(TRAINING["wsum"], 0.5, None)) == [
        (0.0, 0.0, 1.0), (0.0, 0.5, 0.5), (0.0, 1.0, 0.0), (0.5, 0.0, 0.5), (0.5, 0.5, 0.0), (1.0, 0.0, 0.0)
    ]  # fmt: skip


def test_the_best_configuration_fuses_to_the_reported_mean():
    df = pd.read_parquet("examples/paired.parquet")
    best, report = rankframe.fuse_train(df, method="rrf", metric="AP", report=True)
    fused = rankframe.fuse(df, "rrf", **best)
    value = rankframe.evaluate(fused[fused.system == "rrf"], "AP")["value"].item()
    assert value == pytest.approx(report.loc[report["best"], "value"].item(), abs=1e-12)
