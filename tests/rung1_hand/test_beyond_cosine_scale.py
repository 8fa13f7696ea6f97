"""Cosine ILD and Serendipity on feature values beyond ~1e154 (whose squares overflow to inf): the cosine is
scale-invariant, so features x 1e200 give the values of features x 1, on every road (issue 33).

Hand derivation (one list a, b, c; grades 1, 1, 0; the history of its query: b): a = (3, 4) / 5 = (0.6, 0.8) on
(x, y), b = (1, 0), c = (0, 1); cos(a, b) = 0.6, cos(a, c) = 0.8, cos(b, c) = 0. ILD = the mean distance
((1 - 0.6) + (1 - 0.8) + (1 - 0)) / 3 = 1.6 / 3. Serendipity (unexpectedness, binary relevance): a: 1 x (1 - 0.6),
b: 1 x (1 - 1), c: 0 (not relevant): 0.4 / 3.
"""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql

RECS = pd.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 2, 3], "relevance": [1, 1, 0]})
FEATURES = pd.DataFrame({"item": ["a", "a", "b", "c"], "feature": ["x", "y", "x", "y"], "value": [3.0, 4.0, 1.0, 2.0]})
TRAIN = pd.DataFrame({"query": [1], "item": ["b"]})
WANT = {"ILD": 1.6 / 3, "Serendipity": 0.4 / 3}


def _evaluate(engine):
    def run(features):
        out = rankframe.evaluate(RECS, list(WANT), features=features, train=TRAIN, engine=engine)
        return dict(zip(out["metric"], out["value"]))

    return run


def _macros(features):
    con = macro_connection()
    con.register("recs", RECS)
    con.register("feat", features)
    con.register("tr", TRAIN)
    return {
        "ILD": con.execute("SELECT value FROM rf_ild('recs', features := 'feat')").fetchall()[0][0],
        "Serendipity": con.execute(
            "SELECT value FROM rf_serendipity('recs', features := 'feat', train := 'tr')"
        ).fetchall()[0][0],
    }


def _portable(features):
    con = duckdb.connect()
    con.register("recs", RECS)
    con.register("feat", features)
    con.register("tr", TRAIN)
    sql = rankframe.sql.render(
        list(WANT), dialect="duckdb", table="recs", features="feat", features_value="value", train="tr"
    )
    out = con.execute(sql).df()
    return dict(zip(out["metric"], out["value"]))


ROADS = {"pandas": _evaluate("pandas"), "duckdb": _evaluate("duckdb"), "macros": _macros, "portable": _portable}


@pytest.mark.parametrize("road", ROADS)
@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e200, 1e300])
@pytest.mark.filterwarnings("error")  # no overflow on the way either
def test_cosine_is_scale_invariant_on_every_road(road, scale):
    got = ROADS[road](FEATURES.assign(value=FEATURES["value"] * scale))
    assert got == pytest.approx(WANT, rel=1e-12, abs=1e-15)
