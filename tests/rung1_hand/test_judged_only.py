"""``judged_only=True`` removes the retrieved items with a null **or negative** grade (trec_eval -J reads a negative
qrels label as "in the pool but not judged", ``form_res_rels.c``; ir_measures' ``judged_only=`` follows it), on
every engine: numpy, DuckDB (engine, table macros, list macros) and Spark (issue 19). Oracles: ir_measures'
``test_judged_only`` case and pytrec_eval with ``judged_docs_only_flag=True`` on a table with negative grades."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import trec_dicts
from faces import macro_connection

import rankframe

# ir_measures test/test_pytrec_eval.py test_judged_only: D0 is judged -1, D2 unjudged. In score order the run is
# D0 (-1), D2 (null), D3 (2), D1 (1), D4 (1); judged_only keeps D3, D1, D4 = grades [2, 1, 1], the ideal order of
# every judged item: RR = 1, AP = (1/1 + 2/2 + 3/3) / 3 = 1, nDCG = 1 (it was 0.5, 0.64, 0.70 with D0 kept).
IRM_QRELS = pd.DataFrame({"query": ["0"] * 4, "item": ["D0", "D1", "D3", "D4"], "relevance": [-1, 1, 2, 1]})
IRM_RUN = pd.DataFrame({"query": ["0"] * 5, "item": ["D0", "D2", "D1", "D3", "D4"], "score": [0.8, 0.7, 0.3, 0.4, 0.1]})
IRM_TABLE = IRM_RUN.merge(IRM_QRELS, on=["query", "item"], how="outer")
IRM_CASES = {
    "RR(judged_only=True)": 1.0,
    "AP(judged_only=True)": 1.0,
    "nDCG(judged_only=True)": 1.0,
    "P(judged_only=True)@1": 1.0,  # rank 1 is D3 (grade 2), not D0
    "Rprec(judged_only=True)": 1.0,  # |R| = 3, the top 3 are relevant
    "SetP(judged_only=True)": 1.0,
    "nDCG(judged_only=True, ties='average')": 1.0,  # no tied scores: as ties='first'
}


@pytest.mark.parametrize(("metric", "value"), IRM_CASES.items(), ids=list(IRM_CASES))
def test_negative_grade_is_unjudged_ir_measures_case(engine, metric, value):
    out = rankframe.evaluate(IRM_TABLE, [metric], engine=engine, per_query=True)
    assert out["value"].tolist() == pytest.approx([value], rel=1e-12)


def test_negative_grade_is_unjudged_equals_ir_measures(engine):
    ir_measures = pytest.importorskip("ir_measures")

    q, r = trec_dicts(IRM_RUN, IRM_QRELS)
    wanted = {
        "RR(judged_only=True)": ir_measures.RR(judged_only=True),
        "AP(judged_only=True)": ir_measures.AP(judged_only=True),
        "nDCG(judged_only=True)": ir_measures.nDCG(judged_only=True),
        "nDCG(judged_only=True)@4": ir_measures.nDCG(judged_only=True) @ 4,
        "P(judged_only=True)@4": ir_measures.P(judged_only=True) @ 4,
        "R(judged_only=True)@2": ir_measures.R(judged_only=True) @ 2,
        "Success(judged_only=True)@1": ir_measures.Success(judged_only=True) @ 1,
        "IPrec(judged_only=True)@0.5": ir_measures.IPrec(judged_only=True) @ 0.5,
    }
    expected = {ours: m.value for ours, theirs in wanted.items() for m in ir_measures.iter_calc([theirs], q, r)}
    out = rankframe.evaluate(IRM_TABLE, list(wanted), engine=engine, per_query=True)
    got = {str(m): v for m, v in zip(out["metric"], out["value"])}
    assert got == pytest.approx({str(rankframe.parse(k)): v for k, v in expected.items()}, rel=1e-12)


def _negative_grade_table(seed: int = 7, n_queries: int = 8, n_items: int = 12) -> pd.DataFrame:
    """Runs with tied-free scores over items graded -2..3 or unjudged (about a third of the judged ones negative),
    plus judged items the run did not retrieve."""
    rng = np.random.default_rng(seed)
    rows = []
    for qi in range(n_queries):
        for j in range(n_items):
            retrieved = rng.random() < 0.8
            judged = rng.random() < 0.75
            rows.append(
                {
                    "query": f"q{qi}",
                    "item": f"d{j:02d}",
                    "score": float(n_items - j) + rng.random() / 2 if retrieved else np.nan,
                    "relevance": float(rng.choice([-2, -1, -1, 0, 1, 2, 3])) if judged else np.nan,
                }
            )
    df = pd.DataFrame(rows)
    return df[df["score"].notna() | df["relevance"].notna()].reset_index(drop=True)


PYTREC = {
    "P(judged_only=True)@5": "P_5",
    "R(judged_only=True)@5": "recall_5",
    "AP(judged_only=True)": "map",
    "RR(judged_only=True)": "recip_rank",
    "nDCG(judged_only=True)": "ndcg",
    "nDCG(judged_only=True)@5": "ndcg_cut_5",
    "Rprec(judged_only=True)": "Rprec",
    "Success(judged_only=True)@1": "success_1",
    "SetP(judged_only=True)": "set_P",
    "SetF(judged_only=True)": "set_F",
    "SetAP(judged_only=True)": "set_map",
}


def test_judged_only_with_negative_grades_equals_pytrec_eval(engine):
    import pytrec_eval

    df = _negative_grade_table()
    assert (df["relevance"] < 0).sum() > 10 and (df["score"].notna() & (df["relevance"] < 0)).sum() > 5
    judged = df[df["relevance"].notna()]
    retrieved = df[df["score"].notna()]
    q, r = trec_dicts(retrieved[["query", "item", "score"]], judged[["query", "item", "relevance"]])
    measures = {t.replace("_5", ".5").replace("_1", ".1") for t in PYTREC.values()}
    res = pytrec_eval.RelevanceEvaluator(q, measures, judged_docs_only_flag=True).evaluate(r)
    expected = {(str(rankframe.parse(ours)), qid): vals[t] for qid, vals in res.items() for ours, t in PYTREC.items()}
    out = rankframe.evaluate(df, list(PYTREC), engine=engine, per_query=True)
    got = {(m, str(qid)): v for m, qid, v in zip(out["metric"], out["query"], out["value"])}
    assert set(got) == set(expected)
    bad = [(key, got[key], v) for key, v in expected.items() if not math.isclose(got[key], v, abs_tol=1e-12)]
    assert not bad, f"{len(bad)} values differ, e.g. (key, rankframe, pytrec_eval) {bad[:3]}"


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


# list macros: grades in rank order, NULL = unjudged; judged_only keeps the grades >= 0
SQL_LIST_CASES = [
    ("rf_rr([-1, NULL, 2, 1, 1], judged_only := true)", 1.0),  # list [2, 1, 1]
    ("rf_ap([-1, NULL, 2, 1, 1], 3, judged_only := true)", 1.0),
    ("rf_ndcg([-1, NULL, 2, 1, 1], [-1, 1, 2, 1], judged_only := true)", 1.0),
    ("rf_precision([-2, 1, 0], k := 1, judged_only := true)", 1.0),  # list [1, 0]: rank 1 is grade 1
    ("rf_set_p([-2, 0, 1], judged_only := true)", 1 / 2),
]


@pytest.mark.parametrize(("expr", "value"), SQL_LIST_CASES, ids=[c[0] for c in SQL_LIST_CASES])
def test_judged_only_sql_list_macros_drop_negative_grades(con, expr, value):
    assert con.execute(f"SELECT {expr}").fetchall()[0][0] == pytest.approx(value, rel=1e-12)


def test_judged_only_sql_table_macro_drops_negative_grades(con):
    con.register("irm", IRM_TABLE)
    got = con.execute(
        """SELECT "RR", "AP", "nDCG", "P" FROM rf_per_query('irm', order_by := 'score', judged_only := true, k := 4)"""
    ).fetchall()
    # at k = 4: the kept list [2, 1, 1] is shorter than k; P@4 = 3/4 (trec_eval divides by k)
    assert got == [pytest.approx((1.0, 1.0, 1.0, 3 / 4), rel=1e-12)]


# A gain map may give a negative grade a gain, and judged_only drops that row. Hand derivation: the one retrieved row
# (d1, grade -1, gain 2 by the map) is dropped; ideal='retrieved' builds the ideal from the retrieved rows nDCG keeps:
# none, so nothing is relevant and no_relevant='nan' gives NaN. (The DuckDB engine and the table macros gave 0.0: their
# "nothing relevant" test read every retrieved row while the value read the kept ones.) With ideal='judged' the ideal
# holds every judged row, d1 too (IDCG = 2 / log2(2) = 2): nDCG = 0 / 2 = 0.
GAIN_MAP_TABLE = pd.DataFrame(
    {"query": ["q", "q"], "item": ["d0", "d1"], "rank": [np.nan, 5.0], "relevance": [np.nan, -1.0]}
)
GAIN_MAP_CASES = {"retrieved": math.nan, "judged": 0.0}


@pytest.mark.parametrize("ideal", GAIN_MAP_CASES)
def test_judged_only_drops_a_mapped_negative_grade_from_the_ideal_on_every_face(con, engine, ideal):
    metric = f"nDCG(judged_only=True, gains={{1: 5.5, -1: 2}}, ideal='{ideal}')"
    got = rankframe.evaluate(GAIN_MAP_TABLE, [metric], no_relevant="nan", validate=False, engine=engine)["value"]
    con.register("gain_map", GAIN_MAP_TABLE)
    sql = con.execute(
        "SELECT nDCG FROM rf_per_query('gain_map', judged_only := true, gains := MAP {1: 5.5, -1: 2}, "
        f"ideal := '{ideal}', no_relevant := 'nan')"
    ).fetchall()[0][0]
    want = GAIN_MAP_CASES[ideal]
    for value in (got.iloc[0], sql):
        assert (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want, abs=1e-12), (value, want)


@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")
def test_judged_only_on_spark_drops_negative_grades():
    from sparkutil import collect, session, to_spark

    import rankframe.spark as rs

    spark = session()
    out = collect(rs.evaluate(to_spark(spark, IRM_TABLE), list(IRM_CASES), per_query=True))
    got = dict(zip(out["metric"], out["value"]))
    assert got == pytest.approx({str(rankframe.parse(k)): v for k, v in IRM_CASES.items()}, rel=1e-12)
