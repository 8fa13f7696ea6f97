"""One fusion on two faces: rf_fuse (sql/fuse.sql) = rankframe.fuse (rankframe/fusion) for every method x norm (issue 22).

Random runs (3 systems, partial overlap, tied scores, a query one system lacks), default and non-default
parameters: the same fused scores to 1e-9 and the same rows, or an error on both faces.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
from rankframe.core.errors import RankframeError

WEIGHTS = {"bm25": 0.5, "dense": 1.25, "splade": 0.8}
WEIGHTS_SQL = ", weights := MAP {'bm25': 0.5, 'dense': 1.25, 'splade': 0.8}"
METHODS = list(rankframe.fusion.METHODS)  # the Python registry: a method missing in SQL fails here
NORMS = [None, "none", "min-max", "max", "sum", "zmuv", "rank", "borda"]
PARAMS = [{}, {"k": 2, "rank_base": 0, "gamma": 1.5, "sigma": 0.2, "phi": 0.6}, {"depth": 4}]


def runs(seed: int = 7) -> pd.DataFrame:
    """3 systems x 6 queries, 1-8 of 10 items per run, scores on a 0.1 grid; q5 only in bm25 and dense."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(6):
        for system in WEIGHTS if q < 5 else ["bm25", "dense"]:
            n = int(rng.integers(1, 9))
            items = rng.choice([f"d{i}" for i in range(10)], size=n, replace=False)
            scores = rng.integers(1, 8, size=n) / 10
            if n > 1 and len(set(scores)) == 1:  # see test_zmuv_of_a_run_of_tied_scores
                scores[0] += 0.1
            rows += [(system, f"q{q}", str(i), float(s)) for i, s in zip(items, scores)]
    return pd.DataFrame(rows, columns=["system", "query", "item", "score"])


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    c.register("runs", runs())
    yield c
    c.close()


def both(con, table: pd.DataFrame, name: str, method: str, norm, params: dict):
    """(rankframe.fuse's fused rows or its error class, rf_fuse's rows or None when it raised)."""
    weights = WEIGHTS if method in ("wsum", "wmnz", "mixed", "w_bordafuse") else None
    try:
        py = rankframe.fuse(table, method, system="system", norm=norm, weights=weights, **params)
        py = py[py["system"] == method][["query", "item", "score"]]
    except RankframeError as e:
        py = type(e)
    args = "".join(f", {a} := {v}" for a, v in params.items()) + (WEIGHTS_SQL if weights else "")
    norm_sql = "NULL" if norm is None else f"'{norm}'"
    try:
        sql = con.execute(f"SELECT * FROM rf_fuse('{name}', method := '{method}', norm := {norm_sql}{args})").df()
    except duckdb.InvalidInputException:
        sql = None
    return py, sql


@pytest.mark.slow  # every normalisation x parameter set through rf_fuse on a 3-run table
@pytest.mark.parametrize("params", PARAMS, ids=["defaults", "params", "depth"])
@pytest.mark.parametrize("norm", NORMS)
def test_rf_fuse_equals_rankframe_fuse(con, norm, params):
    table = runs()
    for method in METHODS:
        py, sql = both(con, table, "runs", method, norm, params)
        if sql is None or isinstance(py, type):
            assert sql is None and isinstance(py, type), (method, norm, params, py)
            continue
        m = py.merge(sql, on=["query", "item"], how="outer", suffixes=("_py", "_sql"), indicator=True)
        assert (m["_merge"] == "both").all(), (method, norm, params)
        assert np.allclose(m["score_py"], m["score_sql"], rtol=0, atol=1e-9), (method, norm, params)


def test_zmuv_of_a_run_of_tied_scores(con):
    # bm25's run is three scores 0.7: degenerate (docs/fusion.md), 0 for each; dense's 0.9, 0.1: +1, -1.
    # CombSUM: x = 1, y = 0, z = -1 on both faces
    table = pd.DataFrame(
        {
            "system": ["bm25"] * 3 + ["dense"] * 2,
            "query": "q",
            "item": ["x", "y", "z", "x", "z"],
            "score": [0.7, 0.7, 0.7, 0.9, 0.1],
        }
    )
    con.register("tied", table)
    py, sql = both(con, table, "tied", "combsum", "zmuv", {})
    assert sorted(sql["score"]) == [-1.0, 0.0, 1.0]
    assert sorted(py["score"]) == [-1.0, 0.0, 1.0]
