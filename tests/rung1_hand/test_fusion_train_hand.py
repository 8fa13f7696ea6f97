"""rankframe.fuse_train by hand: the grid, the tie rule, judgments in a column or a qrels table."""

from __future__ import annotations

import math

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
    # a step coarser than the low end's decimals: rbc's default range 0.01..0.99 by 0.1 (was 0.0, 0.1, ...: phi = 0)
    assert grid_values(TRAINING["rbc"], 0.1, None) == [0.01, 0.11, 0.21, 0.31, 0.41, 0.51, 0.61, 0.71, 0.81, 0.91]
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


def test_one_configuration_per_segment():
    # Two queries, one per segment; a gives x the top score, b gives y (min-max: the top item 1, the other 0). With
    # weights (wa, wb), x scores wa and y scores wb; a tie (wa = wb) puts y first (item id descending).
    # seg "s1", query 1: y relevant -> nDCG 1 while wb >= wa, i.e. (0, 1) .. (0.5, 0.5): the last of the best (0.5, 0.5)
    # seg "s2", query 2: x relevant -> nDCG 1 while wa > wb, i.e. (0.6, 0.4) .. (1, 0): the last is (1, 0); below,
    # x is second: nDCG = 1 / log2(3) = 0.6309...
    one = pd.DataFrame({"system": ["a", "a", "b", "b"], "item": ["x", "y", "y", "x"], "score": [0.9, 0.1, 0.8, 0.2]})
    df = pd.concat([one.assign(query=1, seg="s1", relevance=[0, 1, 1, 0]),
                    one.assign(query=2, seg="s2", relevance=[1, 0, 0, 1])], ignore_index=True)  # fmt: skip
    best, report = rankframe.fuse_train(df, method="wsum", norm="min-max", metric="nDCG", by="seg", report=True)
    assert best == {"s1": {"weights": {"a": 0.5, "b": 0.5}}, "s2": {"weights": {"a": 1.0, "b": 0.0}}}
    s2 = report[report["seg"] == "s2"]
    assert s2["value"].round(12).tolist() == [round(1 / math.log2(3), 12)] * 6 + [1.0] * 5
    assert report.groupby("seg")["best"].sum().tolist() == [1, 1]
    assert list(report.columns) == ["seg", "weights", "metric", "value", "best"]
