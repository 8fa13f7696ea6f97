"""The conventions of issue 12 part B against their oracles, on every engine and on the SQL list macros.

- a cutoff ``k`` on R-precision and bpref = the measure of the list cut at k, i.e. trec_eval ``-M k``: pytrec_eval on
  the run truncated to its top k (trec_eval's order: score descending, then docno descending).
"""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import pytest
from conftest import load_real, long_table, trec_dicts
from faces import macro_connection

import rankframe


def _per_query(res: pd.DataFrame) -> dict:
    return {(m, str(q)): v for m, q, v in zip(res["metric"], res["query"], res["value"])}


def _assert_close(got: dict, expected: dict, context: str, tol: float = 1e-9) -> None:
    assert set(got) == set(expected), f"{context}: the (metric, query) pairs differ"
    bad = [(key, got[key], v) for key, v in expected.items() if not math.isclose(got[key], v, abs_tol=tol)]
    assert not bad, f"{context}: {len(bad)} values differ, e.g. (key, rankframe, oracle) {bad[:3]}"


def _top_k_in_trec_order(run: pd.DataFrame, k: int) -> pd.DataFrame:
    ordered = run.sort_values(["query", "score", "item"], ascending=[True, False, False])
    return ordered[ordered.groupby("query").cumcount() < k]


@pytest.mark.parametrize("name", ["trec_eval_test", "robust03_uic0301"])
@pytest.mark.parametrize("k", [5, 50])
def test_rprec_and_bpref_cutoff_equal_trec_eval_dash_m(shared_data, engine, name, k):
    import pytrec_eval

    run, qrels, _ = load_real(shared_data, name)
    q, r = trec_dicts(_top_k_in_trec_order(run, k), qrels)
    res = pytrec_eval.RelevanceEvaluator(q, {"Rprec", "bpref"}).evaluate(r)
    expected = {
        (f"{m}@{k}", qid): vals[t] for qid, vals in res.items() for m, t in [("Rprec", "Rprec"), ("Bpref", "bpref")]
    }
    out = rankframe.evaluate(
        long_table(run, qrels), [f"Rprec@{k}", f"Bpref@{k}"], engine=engine, per_query=True, no_retrieved="skip"
    )
    _assert_close(_per_query(out), expected, f"{name} @{k} ({engine})")


# grades in rank order [1, 0, 1, NULL, 1], |R| = 4 (one relevant item not retrieved), N = 2 judged non-relevant
CUTOFF_SQL_CASES = [
    ("rf_r_precision([1, 0, 1, NULL, 1], 4)", 2 / 4),  # hits in the top |R| = 4: ranks 1, 3
    ("rf_r_precision([1, 0, 1, NULL, 1], 4, k := 2)", 1 / 4),  # top min(4, 2) = 2: rank 1
    ("rf_bpref([1, 0, 1, NULL, 1], 4, 2)", (1 + (1 - 1 / 2) + (1 - 1 / 2)) / 4),  # min(|R|, N) = 2
    ("rf_bpref([1, 0, 1, NULL, 1], 4, 2, k := 3)", (1 + (1 - 1 / 2)) / 4),  # rank 5 is cut
]


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


@pytest.mark.parametrize(("expr", "value"), CUTOFF_SQL_CASES, ids=[c[0] for c in CUTOFF_SQL_CASES])
def test_cutoff_sql_macros_by_hand(con, expr, value):
    assert con.execute(f"SELECT {expr}").fetchall()[0][0] == pytest.approx(value, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------------- log_base (scikit-learn)


def _random_untied(seed: int, n_queries: int = 6, n_items: int = 8) -> pd.DataFrame:
    """Graded items with distinct scores per query and at least one positive grade (scikit-learn's domain)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        grades = rng.integers(0, 4, n_items)
        grades[rng.integers(n_items)] = 3
        scores = rng.permutation(n_items) + rng.random()
        rows += [
            {"query": q, "item": f"d{i}", "score": float(s), "relevance": int(g)}
            for i, (g, s) in enumerate(zip(grades, scores))
        ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("log_base", [2, 10, 1.5])
@pytest.mark.parametrize("k", [None, 3])
def test_log_base_equals_scikit_learn(engine, log_base, k):
    from sklearn.metrics import dcg_score, ndcg_score

    df = _random_untied(seed=7)
    y_true = df.pivot(index="query", columns="item", values="relevance").to_numpy()
    y_score = df.pivot(index="query", columns="item", values="score").to_numpy()
    at = f"@{k}" if k else ""
    metrics = [f"DCG(log_base={log_base}){at}", f"nDCG(ideal='retrieved', log_base={log_base}){at}"]
    out = rankframe.evaluate(df, metrics, engine=engine, per_query=True)
    got = out.pivot(index="query", columns="metric", values="value")
    dcg = [dcg_score(y_true[i : i + 1], y_score[i : i + 1], k=k, log_base=log_base) for i in range(len(y_true))]
    ndcg = [ndcg_score(y_true[i : i + 1], y_score[i : i + 1], k=k) for i in range(len(y_true))]
    labels = [str(rankframe.parse(m)) for m in metrics]
    assert got[labels[0]].to_numpy() == pytest.approx(dcg, rel=1e-12)
    assert got[labels[1]].to_numpy() == pytest.approx(ndcg, rel=1e-12)


# ---------------------------------------------------------------------------------- gains= (ir_measures)


@pytest.mark.parametrize("name", ["trec_eval_rel_level", "robust03_pircRBa1"])
def test_gains_equal_ir_measures(shared_data, engine, name):
    ir_measures = pytest.importorskip("ir_measures")

    run, qrels, _ = load_real(shared_data, name)
    q, r = trec_dicts(run, qrels)
    gains = {0: 0, 1: 1, 2: 5, 3: 2}
    wanted = {
        f"nDCG(gains={gains})@10": ir_measures.nDCG(gains=gains) @ 10,
        f"nDCG(gains={gains})": ir_measures.nDCG(gains=gains),
        "nDCG(gains={1: 0})@5": ir_measures.nDCG(gains={1: 0}) @ 5,
    }
    expected = {
        (str(rankframe.parse(ours)), m.query_id): m.value
        for ours, theirs in wanted.items()
        for m in ir_measures.iter_calc([theirs], q, r)
    }
    out = rankframe.evaluate(long_table(run, qrels), list(wanted), engine=engine, per_query=True, no_retrieved="skip")
    _assert_close(_per_query(out), expected, f"{name} gains ({engine})")


GAIN_SQL_CASES = [
    # grades [2, 0, 1] in rank order, judged [2, 0, 1, 3]; gains {2: 5, 3: 0}: ranked gains 5, 0, 1
    ("rf_dcg([2, 0, 1], gains := MAP {2: 5, 3: 0})", 5 + 1 / 2),
    ("rf_dcg([2, 0, 1], log_base := 10)", 2 / math.log10(2) + 1 / math.log10(4)),
    ("rf_idcg([2, 0, 1], [2, 0, 1, 3], gains := MAP {2: 5, 3: 0})", 5 + 1 / math.log2(3)),
    ("rf_ndcg([2, 0, 1], [2, 0, 1, 3], gains := MAP {2: 5, 3: 0})", (5 + 1 / 2) / (5 + 1 / math.log2(3))),
    ("rf_ndcg([2, 0, 1], [2, 0, 1, 3], log_base := 3)", (2 + 1 / 2) / (3 + 2 / math.log2(3) + 1 / 2)),
    ("rf_f1([1, 0, 1, 0], 4, beta := 2)", 3 * (1 / 2) * (1 / 2) / (2 * (1 / 2) + 1 / 2)),  # P = R = 1/2
    ("rf_f1([1, 1, 0, 0], 2, k := 2, beta := 0)", 1.0),  # beta 0: F = P@2
]


@pytest.mark.parametrize(("expr", "value"), GAIN_SQL_CASES, ids=[c[0] for c in GAIN_SQL_CASES])
def test_gain_and_f_sql_macros_by_hand(con, expr, value):
    assert con.execute(f"SELECT {expr}").fetchall()[0][0] == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_f_beta_without_cutoff_is_set_f(engine):
    # P@None has denominator n = the whole list, so F1(beta=b) = SetF(beta=b) (pytrec_eval-checked in test_new_measures)
    df = _random_untied(seed=3)
    out = rankframe.evaluate(
        df,
        ["F1(beta=2, rel=2)", "SetF(beta=2, rel=2)", "F1(beta=0.25)", "SetF(beta=0.25)"],
        engine=engine,
        per_query=True,
    )
    v = out.pivot(index="query", columns="metric", values="value")
    assert v["F1(rel=2, beta=2.0)"].to_numpy() == pytest.approx(v["SetF(rel=2, beta=2.0)"].to_numpy(), rel=1e-12)
    assert v["F1(beta=0.25)"].to_numpy() == pytest.approx(v["SetF(beta=0.25)"].to_numpy(), rel=1e-12)


@pytest.mark.parametrize(
    ("metric", "match"),
    [
        ("DCG(log_base=1)", "'log_base' parameter of dcg must be a finite float > 1"),
        ("nDCG(log_base='e')", "'log_base' parameter of ndcg must be a finite float > 1"),
        ("nDCG(gains=[1, 2])", "'gains' parameter of ndcg must be a dict"),
        ("nDCG(gains={1: 'a'})", "'gains' parameter of ndcg must be a dict"),
        ("F1(beta=-1)", "'beta' parameter of f1 must be a finite float >= 0"),
    ],
)
def test_convention_parameters_are_checked(metric, match):
    with pytest.raises(rankframe.ParameterError, match=match):
        rankframe.parse(metric)


def test_convention_parameters_are_checked_in_sql(con):
    for expr, match in [
        ("rf_dcg([1], log_base := 0.5)", "'log_base' parameter of rf_dcg"),
        ("rf_agg_ndcg(1, 1, gains := 'x')", "'gains' parameter of rf_agg_ndcg"),
        ("rf_f1([1], 1, beta := 'x')", "'beta' parameter of rf_f1"),
    ]:
        with pytest.raises(duckdb.Error, match=match):
            con.execute(f"SELECT {expr}").fetchall()


# ---------------------------------------------------------------------------------- judged_only (trec_eval -J)

JUDGED_ONLY = {
    "P(judged_only=True)@10": "P_10",
    "R(judged_only=True)@10": "recall_10",
    "AP(judged_only=True)": "map",
    "RR(judged_only=True)": "recip_rank",
    "nDCG(judged_only=True)@10": "ndcg_cut_10",
    "Rprec(judged_only=True)": "Rprec",
    "Success(judged_only=True)@5": "success_5",
    "IPrec(judged_only=True)@0.3": "iprec_at_recall_0.30",
    "SetP(judged_only=True)": "set_P",
    "SetF(judged_only=True)": "set_F",
    "SetAP(judged_only=True)": "set_map",
}


@pytest.mark.parametrize("name", ["trec_eval_test", "compat", "robust03_MU03rob01"])
def test_judged_only_equals_pytrec_eval_judged_docs_only(shared_data, engine, name):
    import pytrec_eval

    run, qrels, _ = load_real(shared_data, name)
    q, r = trec_dicts(run, qrels)
    wanted = {t.replace("_10", ".10").replace("_5", ".5") for t in JUDGED_ONLY.values()}
    wanted = {w if not w.startswith("iprec") else "iprec_at_recall" for w in wanted}
    res = pytrec_eval.RelevanceEvaluator(q, wanted, judged_docs_only_flag=True).evaluate(r)
    expected = {
        (str(rankframe.parse(ours)), qid): vals[theirs]
        for qid, vals in res.items()
        for ours, theirs in JUDGED_ONLY.items()
    }
    out = rankframe.evaluate(
        long_table(run, qrels), list(JUDGED_ONLY), engine=engine, per_query=True, no_retrieved="skip"
    )
    _assert_close(_per_query(out), expected, f"{name} judged_only ({engine})")


def test_judged_only_equals_ir_measures(shared_data, engine):
    ir_measures = pytest.importorskip("ir_measures")

    run, qrels, _ = load_real(shared_data, "robust03_humR03dc")
    q, r = trec_dicts(run, qrels)
    wanted = {
        "P(judged_only=True)@5": ir_measures.P(judged_only=True) @ 5,
        "nDCG(judged_only=True)@20": ir_measures.nDCG(judged_only=True) @ 20,
        "AP(judged_only=True)@100": ir_measures.AP(judged_only=True) @ 100,
    }
    expected = {
        (str(rankframe.parse(ours)), m.query_id): m.value
        for ours, theirs in wanted.items()
        for m in ir_measures.iter_calc([theirs], q, r)
    }
    out = rankframe.evaluate(long_table(run, qrels), list(wanted), engine=engine, per_query=True, no_retrieved="skip")
    _assert_close(_per_query(out), expected, f"judged_only vs ir_measures ({engine})")


# query a: ranks 1..4 with grades [NULL, 1, NULL, 0] and one more judged relevant item; query b: every retrieved
# item unjudged (the policies see the whole list: b is not "nothing retrieved", its value is 0 as trec_eval -J)
JUDGED_TABLE = pd.DataFrame(
    {
        "query": ["a"] * 5 + ["b"] * 3,
        "item": ["x1", "x2", "x3", "x4", "x5", "y1", "y2", "y3"],
        "rank": [1, 2, 3, 4, None, 1, 2, None],
        "relevance": [None, 1, None, 0, 1, None, None, 1],
    }
)
JUDGED_CASES = [
    ("P@1", {"a": 0.0, "b": 0.0}),
    ("P(judged_only=True)@1", {"a": 1.0, "b": 0.0}),  # a's list becomes [1, 0]
    ("RR(judged_only=True)", {"a": 1.0, "b": 0.0}),
    ("AP(judged_only=True)", {"a": 1 / 2, "b": 0.0}),  # one hit at rank 1 of |R| = 2
    ("SetP(judged_only=True)", {"a": 1 / 2, "b": 0.0}),  # 1 relevant of 2 judged retrieved
]


@pytest.mark.parametrize(("metric", "values"), JUDGED_CASES, ids=[c[0] for c in JUDGED_CASES])
def test_judged_only_by_hand(engine, metric, values):
    out = rankframe.evaluate(JUDGED_TABLE, [metric], engine=engine, per_query=True)
    assert dict(zip(out["query"], out["value"])) == pytest.approx(values)


def test_judged_only_sql_list_macros(con):
    assert con.execute("SELECT rf_precision([NULL, 1, NULL, 0], k := 1, judged_only := true)").fetchall()[0][0] == 1.0
    assert con.execute("SELECT rf_ap([NULL, 1, NULL, 0], 2, judged_only := true)").fetchall()[0][0] == 0.5
    assert con.execute("SELECT rf_ndcg([NULL, 1], [1], judged_only := true)").fetchall()[0][0] == 1.0
    with pytest.raises(duckdb.Error, match="'judged_only' parameter of rf_rr must be true or false"):
        con.execute("SELECT rf_rr([1], judged_only := 'yes')").fetchall()
    with pytest.raises(rankframe.ParameterError, match="'judged_only' parameter of precision must be True or False"):
        rankframe.parse("P(judged_only=1)@5")
