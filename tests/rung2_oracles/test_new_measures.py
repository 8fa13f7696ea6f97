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
from faces import macro_connection

import rankframe

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
    con = macro_connection()
    # the list macro: grades in rank order and |R|, as IPREC_TABLE
    got = [
        con.execute(f"SELECT rf_iprec([1, NULL, 0, 1, 1], 4, recall := {x})").fetchall()[0][0] for x in (0.3, 0.6, 0.8)
    ]
    assert got == pytest.approx([0.6, 0.6, 0.0])
    con.register("t", IPREC_TABLE)
    agg = con.execute(
        "SELECT rf_agg_iprec(rf_pos, rf_g, recall := 0.1) FROM rf_prepare('t') GROUP BY query"
    ).fetchall()[0][0]
    assert agg == pytest.approx(1.0)
    with pytest.raises(duckdb.Error, match="'recall' parameter of rf_iprec must be a float in \\[0, 1\\]"):
        con.execute("SELECT rf_iprec([1], 1, recall := 1.5)").fetchall()
    with pytest.raises(duckdb.Error, match="'recall' parameter of rf_agg_iprec"):
        con.execute("SELECT rf_agg_iprec(rf_pos, rf_g) FROM rf_prepare('t') GROUP BY query").fetchall()


def test_iprec_names_and_parameters():
    assert str(rankframe.parse("iprec_at_recall@0.5")) == "IPrec@0.5"
    assert str(rankframe.parse("IPrec(rel=2)@1")) == "IPrec(rel=2)@1.0"
    assert rankframe.parse("IPrec(recall=0.25)") == rankframe.parse("IPrec@0.25")
    for bad in ["IPrec", "IPrec@1.5", "IPrec@-0.1", "IPrec@'x'", "IPrec@True"]:
        with pytest.raises(rankframe.RankframeError, match="'recall' parameter of (IPrec|iprec)"):
            rankframe.parse(bad)
    # the accessor takes the level as its positional argument
    assert IPREC_TABLE.rank_metrics.iprec(0.3) == pytest.approx(0.6)


SET_MEASURES = {"infAP": "infAP", "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map"}


@pytest.mark.parametrize("name", ["trec_eval_test", "trec_eval_rel_level", "compat", "robust03_MU03rob01"])
def test_infap_and_set_measures_equal_pytrec_eval_per_query(shared_data, engine, name):
    import pytrec_eval

    run, qrels, level = load_real(shared_data, name)
    q, r = trec_dicts(run, qrels)
    res = pytrec_eval.RelevanceEvaluator(q, set(SET_MEASURES.values()), relevance_level=level).evaluate(r)
    metrics = [f"{m}(rel={level})" if level != 1 else m for m in SET_MEASURES]
    expected = {(label, qid): vals[SET_MEASURES[label.split("(")[0]]] for qid, vals in res.items() for label in metrics}
    out = rankframe.evaluate(long_table(run, qrels), metrics, engine=engine, per_query=True, no_retrieved="skip")
    _assert_close(_per_query(out), expected, f"{name} ({engine})")


# pooled-but-unjudged rows (negative labels), rows outside the pool (no label), a query with nothing relevant and
# one whose only relevant item is not retrieved; pytrec_eval reads every negative label as "pooled, not judged"
POOL_QRELS = {
    "1": {"a": 1, "b": 1, "c": 1, "x": 0, "u": -1, "v": -2},
    "2": {"a": 0, "b": 0},
    "3": {"a": 1},
}
POOL_RUN = {
    "1": {"a": 3.0, "z": 2.0, "u": 1.8, "x": 1.5, "v": 1.2, "b": 1.0, "c": 0.5},
    "2": {"a": 1.0, "q": 0.5},
    "3": {"z": 1.0},
}


def _table_of(qrels: dict, run: dict) -> pd.DataFrame:
    rows = {(q, d): {"query": q, "item": d, "relevance": g} for q, docs in qrels.items() for d, g in docs.items()}
    for q, docs in run.items():
        for d, s in docs.items():
            rows.setdefault((q, d), {"query": q, "item": d, "relevance": None})["score"] = s
    return pd.DataFrame(list(rows.values())).astype({"relevance": "float64", "score": "float64"})


def test_infap_and_set_measures_on_a_sampled_pool(engine):
    import pytrec_eval

    res = pytrec_eval.RelevanceEvaluator(POOL_QRELS, set(SET_MEASURES.values())).evaluate(POOL_RUN)
    expected = {(m, q): vals[t] for q, vals in res.items() for m, t in SET_MEASURES.items()}
    out = rankframe.evaluate(_table_of(POOL_QRELS, POOL_RUN), list(SET_MEASURES), engine=engine, per_query=True)
    _assert_close(_per_query(out), expected, f"pool ({engine})")
    # by hand, query 1 (ranks a z u x v b c; u, v pooled-unjudged, z outside the pool): the hits at i = 6 and 7 see
    # r = 1, n = 1, u = 2 and r = 2, n = 1, u = 2 above them
    eps = 1e-5
    b = 1 / 6 + (5 / 6) * (4 / 5) * ((1 + eps) / (2 + 2 * eps))
    c = 1 / 7 + (6 / 7) * (5 / 6) * ((2 + eps) / (3 + 2 * eps))
    assert expected[("infAP", "1")] == pytest.approx((1 + b + c) / 3, abs=1e-12)


@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0])
def test_set_f_beta_equals_ir_measures(engine, beta):
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import SetF

    got = rankframe.evaluate(_table_of(POOL_QRELS, POOL_RUN), [f"SetF(beta={beta})"], engine=engine, per_query=True)
    expected = {
        (f"SetF(beta={beta})", m.query_id): m.value
        for m in ir_measures.iter_calc([SetF(beta=beta)], POOL_QRELS, POOL_RUN)
    }
    _assert_close(_per_query(got), expected, f"SetF(beta={beta}) ({engine})")


SET_SQL_CASES = [
    # grades in rank order [1, NULL, 0, 1], |R| = 3: h = 2 relevant of n = 4 retrieved
    ("rf_set_p([1, NULL, 0, 1])", 2 / 4),
    ("rf_set_r([1, NULL, 0, 1], 3)", 2 / 3),
    ("rf_set_f([1, NULL, 0, 1], 3)", 2 * (1 / 2) * (2 / 3) / (1 / 2 + 2 / 3)),
    ("rf_set_f([1, NULL, 0, 1], 3, beta := 2)", 3 * (1 / 2) * (2 / 3) / (2 * (1 / 2) + 2 / 3)),
    ("rf_set_ap([1, NULL, 0, 1], 3)", 4 / (4 * 3)),
    ("rf_set_ap([]::INT[], 3)", 0.0),
    # infAP: hits at 1 and 4 (r = 1, n = 1, u = 0 above the second; the NULL at 2 is outside the pool)
    ("rf_infap([1, NULL, 0, 1], 3)", (1 + 1 / 4 + (3 / 4) * (2 / 3) * ((1 + 1e-5) / (2 + 2e-5))) / 3),
    ("rf_infap([0, -1, 1], 1)", 1 / 3 + (2 / 3) * (2 / 2) * (1e-5 / (1 + 2e-5))),
]


@pytest.mark.parametrize(("expr", "value"), SET_SQL_CASES, ids=[c[0] for c in SET_SQL_CASES])
def test_set_and_infap_sql_macros_by_hand(expr, value):
    con = macro_connection()
    assert con.execute(f"SELECT {expr}").fetchall()[0][0] == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_set_f_beta_is_checked_on_every_face():
    for bad in [-1, "x", float("inf"), None]:
        with pytest.raises(rankframe.ParameterError, match="'beta' parameter of set_f must be a finite float >= 0"):
            rankframe.parse("SetF").spec.bind(beta=bad)
    con = macro_connection()
    with pytest.raises(duckdb.Error, match="'beta' parameter of rf_set_f must be a finite float >= 0"):
        con.execute("SELECT rf_set_f([1], 1, beta := -1)").fetchall()
