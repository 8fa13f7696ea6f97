"""The measures of issue 12 part B against their oracles: pytrec_eval (trec_eval) per query to 1e-9 on the real
TREC data of ``../shared/data``, and values derived by hand.

IPrec@r is trec_eval's ``iprec_at_recall_r``; pytrec_eval bundles trec_eval 9, whose recall cut is
floor(r |R| + 0.9).
"""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import pytest
from conftest import load_real, long_table, trec_dicts

import rankframe
from rankframe import sql as rf_sql

LEVELS = [i / 10 for i in range(11)]


def _per_query(res: pd.DataFrame) -> dict:
    return {(m, str(q)): v for m, q, v in zip(res["metric"], res["query"], res["value"])}


def _assert_close(got: dict, expected: dict, context: str) -> None:
    assert set(got) == set(expected), f"{context}: the (metric, query) pairs differ"
    bad = [(key, got[key], v) for key, v in expected.items() if not math.isclose(got[key], v, abs_tol=1e-9)]
    assert not bad, f"{context}: {len(bad)} values differ, e.g. (key, rankframe, trec_eval) {bad[:3]}"


@pytest.mark.parametrize("name", ["trec_eval_test", "compat", "robust03_MU03rob01"])
def test_iprec_equals_pytrec_eval_per_query(shared_data, engine, name):
    import pytrec_eval

    run, qrels, _ = load_real(shared_data, name)
    q, r = trec_dicts(run, qrels)
    res = pytrec_eval.RelevanceEvaluator(q, {"iprec_at_recall"}).evaluate(r)
    expected = {(f"IPrec@{x}", qid): vals[f"iprec_at_recall_{x:.2f}"] for qid, vals in res.items() for x in LEVELS}
    metrics = [f"IPrec@{x}" for x in LEVELS]
    out = rankframe.evaluate(long_table(run, qrels), metrics, engine=engine, per_query=True, no_retrieved="skip")
    _assert_close(_per_query(out), expected, f"{name} ({engine})")


# one query, ranked grades [1, NULL, 0, 1, 1] plus one judged, unretrieved relevant item: |R| = 4, hits at ranks
# 1, 4, 5 with precisions 1/1, 2/4, 3/5
IPREC_TABLE = pd.DataFrame(
    {
        "query": "q",
        "item": ["a", "b", "c", "d", "e", "f"],
        "rank": [1, 2, 3, 4, 5, None],
        "relevance": [1, None, 0, 1, 1, 1],
    }
)
IPREC_CASES = [
    ("IPrec@0.0", 1.0),  # cut floor(0 + 0.9) = 0: the best precision anywhere
    ("IPrec@0.1", 1.0),  # floor(0.4 + 0.9) = 1: hits 1.. -> max(1, 1/2, 3/5)
    ("IPrec@0.3", 0.6),  # floor(1.2 + 0.9) = 2: hits 2.. -> max(2/4, 3/5)
    ("IPrec@0.5", 0.6),  # floor(2.9) = 2
    ("IPrec@0.6", 0.6),  # floor(2.4 + 0.9) = 3: hit 3 -> 3/5
    ("IPrec@0.8", 0.0),  # floor(3.2 + 0.9) = 4 > 3 hits retrieved
    ("IPrec@1.0", 0.0),
    ("IPrec(rel=2)@0.5", 0.0),  # nothing has grade >= 2: no_relevant -> 0
]


@pytest.mark.parametrize(("metric", "value"), IPREC_CASES, ids=[c[0] for c in IPREC_CASES])
def test_iprec_by_hand(engine, metric, value):
    out = rankframe.evaluate(IPREC_TABLE, [metric], engine=engine)
    assert out["value"].iloc[0] == pytest.approx(value, abs=1e-12)


def test_iprec_sql_macros_by_hand():
    con = rf_sql.install(duckdb.connect())
    # the list macro: grades in rank order and |R|, as IPREC_TABLE
    got = [con.sql(f"SELECT rf_iprec([1, NULL, 0, 1, 1], 4, recall := {x})").fetchall()[0][0] for x in (0.3, 0.6, 0.8)]
    assert got == pytest.approx([0.6, 0.6, 0.0])
    con.register("t", IPREC_TABLE)
    agg = con.sql("SELECT rf_agg_iprec(rf_pos, rf_g, recall := 0.1) FROM rf_prepare('t') GROUP BY query").fetchall()[0][
        0
    ]
    assert agg == pytest.approx(1.0)
    with pytest.raises(duckdb.Error, match="'recall' parameter of rf_iprec must be a float in \\[0, 1\\]"):
        con.sql("SELECT rf_iprec([1], 1, recall := 1.5)").fetchall()
    with pytest.raises(duckdb.Error, match="'recall' parameter of rf_agg_iprec"):
        con.sql("SELECT rf_agg_iprec(rf_pos, rf_g) FROM rf_prepare('t') GROUP BY query").fetchall()


def test_iprec_names_and_parameters():
    assert str(rankframe.parse("iprec_at_recall@0.5")) == "IPrec@0.5"
    assert str(rankframe.parse("IPrec(rel=2)@1")) == "IPrec(rel=2)@1.0"
    assert rankframe.parse("IPrec(recall=0.25)") == rankframe.parse("IPrec@0.25")
    for bad in ["IPrec", "IPrec@1.5", "IPrec@-0.1", "IPrec@'x'", "IPrec@True"]:
        with pytest.raises(rankframe.RankframeError, match="'recall' parameter of (IPrec|iprec)"):
            rankframe.parse(bad)
    # the accessor takes the level as its positional argument
    assert IPREC_TABLE.rank_metrics.iprec(0.3) == pytest.approx(0.6)
