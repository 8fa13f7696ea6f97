"""fuse_train(by=segment) learns each segment's configuration from its queries alone: the same answer (and report
values) as training on that segment's rows only, for every trained method, with ties, judgments apart or inline."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fusion_tables import SYSTEMS, random_table

import rankframe

CASES = [("wsum", "min-max", 0.25), ("rrf", None, None), ("rbc", None, 0.1), ("w_bordafuse", None, 0.5),
         ("combgmnz", "sum", 0.25)]  # fmt: skip


@pytest.mark.parametrize(("method", "norm", "step"), CASES, ids=[m for m, _, _ in CASES])
@pytest.mark.parametrize("seed", [3, 4])
def test_each_segment_as_if_alone(method, norm, step, seed):
    runs, qrels = random_table(seed, SYSTEMS, ties=True, n_queries=9)
    seg = {q: ("long", "short", "mid")[int(q[1:]) % 3] for q in runs["query"].unique()}
    runs = runs.assign(kind=runs["query"].map(seg))
    options = {"method": method, "norm": norm or "none", "step": step, "metric": "nDCG@10", "report": True}
    best, report = rankframe.fuse_train(runs, qrels, by="kind", **options)
    assert sorted(best) == ["long", "mid", "short"]
    for kind in best:
        alone = runs[runs["kind"] == kind].drop(columns="kind")
        mine = qrels[qrels["query"].map(seg) == kind]
        want, want_report = rankframe.fuse_train(alone, mine, **options)
        assert best[kind] == want
        got = report[report["kind"] == kind].drop(columns="kind").reset_index(drop=True)
        np.testing.assert_allclose(got["value"], want_report["value"], rtol=0, atol=1e-12)
        assert got["best"].tolist() == want_report["best"].tolist()


def test_two_segment_columns_give_tuples():
    runs, qrels = random_table(5, SYSTEMS, ties=False, n_queries=8)
    n = runs["query"].str[1:].astype(int)
    runs = runs.assign(a=np.where(n % 2 == 0, "even", "odd"), b=np.where(n < 4, "low", "high"))
    best = rankframe.fuse_train(runs, qrels, method="rrf", by=["a", "b"], metric="AP")
    assert sorted(best) == [("even", "high"), ("even", "low"), ("odd", "high"), ("odd", "low")]
    alone = runs[(runs["a"] == "odd") & (runs["b"] == "low")].drop(columns=["a", "b"])
    assert best[("odd", "low")] == rankframe.fuse_train(alone, qrels, method="rrf", metric="AP")


def test_without_by_nothing_changes():
    runs, qrels = random_table(6, SYSTEMS, ties=True, n_queries=6)
    best, report = rankframe.fuse_train(runs, qrels, method="rrf", report=True)
    assert set(report.columns) == {"k", "metric", "value", "best"} and report["best"].sum() == 1
    assert isinstance(pd.Series(best)["k"], (int, np.integer))
