"""Gain maps (``gains=`` of DCG, IDCG, nDCG) that give grade 0 (or a negative grade) a positive gain: the ideal list
holds every judged row whose *gain* is positive, on every engine (issue 19). Oracles: hand derivations and
ir_measures ``nDCG(gains=...)`` (pytrec_eval on the mapped grades); then pandas == DuckDB on random gain maps."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import strategies as S
from conftest import hypothesis_examples, load_real, long_table, trec_dicts
from faces import macro_connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe

L3 = 1 / math.log2(3)  # the discount of position 2

# query q: a (grade 1) at rank 1, b (grade 0) at rank 2; query r: c (grade 0) at rank 1, d (grade 1) at rank 2;
# query s: e (grade 1) at rank 1, f (grade 0) judged but not retrieved. gains {0: 1, 1: 4}: grade 0 -> 1, 1 -> 4.
ZERO_GAIN = pd.DataFrame(
    {
        "query": ["q", "q", "r", "r", "s", "s"],
        "item": ["a", "b", "c", "d", "e", "f"],
        "rank": [1, 2, 1, 2, 1, None],
        "relevance": [1, 0, 0, 1, 1, 0],
    }
)
ZERO_GAIN_CASES = [
    # every query's ideal list is [4, 1] (the judged grade-0 row gains 1), IDCG = 4 + 1/log2(3)
    ("IDCG(gains={0: 1, 1: 4})", {"q": 4 + L3, "r": 4 + L3, "s": 4 + L3}),
    ("DCG(gains={0: 1, 1: 4})", {"q": 4 + L3, "r": 1 + 4 * L3, "s": 4.0}),
    # q is ranked ideally; r has the gains in the wrong order; s misses the grade-0 row's gain of 1
    ("nDCG(gains={0: 1, 1: 4})", {"q": 1.0, "r": (1 + 4 * L3) / (4 + L3), "s": 4 / (4 + L3)}),
    ("nDCG(gains={0: 1, 1: 4})@1", {"q": 1.0, "r": 1 / 4, "s": 1.0}),  # IDCG@1 = 4
    # ideal='retrieved': s's ideal list is its one retrieved row, [4]
    ("nDCG(gains={0: 1, 1: 4}, ideal='retrieved')", {"q": 1.0, "r": (1 + 4 * L3) / (4 + L3), "s": 1.0}),
    # exponential gains of the mapped values: 2^4 - 1 = 15 and 2^1 - 1 = 1
    ("IDCG(gains={0: 1, 1: 4}, gain='exponential')", {"q": 15 + L3, "r": 15 + L3, "s": 15 + L3}),
    # rel=1 compares the grade itself: grade 0 is below it and gains nothing, so only the grade-1 rows count
    ("IDCG(gains={0: 1, 1: 4}, rel=1)", {"q": 4.0, "r": 4.0, "s": 4.0}),
]


@pytest.mark.parametrize(("metric", "values"), ZERO_GAIN_CASES, ids=[c[0] for c in ZERO_GAIN_CASES])
def test_positive_gain_of_grade_zero_by_hand(engine, metric, values):
    out = rankframe.evaluate(ZERO_GAIN, [metric], engine=engine, per_query=True)
    assert dict(zip(out["query"], out["value"])) == pytest.approx(values, rel=1e-12)


def test_positive_gain_of_grade_zero_sql_macros():
    con = macro_connection()
    try:
        # query r of ZERO_GAIN as a list: grades [0, 1], judged [0, 1]
        got = con.execute("SELECT rf_ndcg([0, 1], [0, 1], gains := MAP {0: 1, 1: 4})").fetchall()[0][0]
        assert got == pytest.approx((1 + 4 * L3) / (4 + L3), rel=1e-12)
    finally:
        con.close()


def test_positive_gain_of_grade_zero_equals_ir_measures(engine):
    ir_measures = pytest.importorskip("ir_measures")

    qrels = {str(q): {} for q in ZERO_GAIN["query"]}
    for q, item, g in zip(ZERO_GAIN["query"], ZERO_GAIN["item"], ZERO_GAIN["relevance"]):
        qrels[q][item] = int(g)
    run = {q: {} for q in qrels}
    for q, item, r in zip(ZERO_GAIN["query"], ZERO_GAIN["item"], ZERO_GAIN["rank"]):
        if not pd.isna(r):
            run[q][item] = 10.0 - r  # score descending = rank order
    wanted = {
        "nDCG(gains={0: 1, 1: 4})": ir_measures.nDCG(gains={0: 1, 1: 4}),
        "nDCG(gains={0: 1, 1: 4})@1": ir_measures.nDCG(gains={0: 1, 1: 4}) @ 1,
    }
    expected = {
        (ours, m.query_id): m.value
        for ours, theirs in wanted.items()
        for m in ir_measures.iter_calc([theirs], qrels, run)
    }
    assert expected[("nDCG(gains={0: 1, 1: 4})", "q")] == pytest.approx(1.0)  # the two-row case
    out = rankframe.evaluate(ZERO_GAIN, list(wanted), engine=engine, per_query=True)
    got = {(m, q): v for m, q, v in zip(out["metric"], out["query"], out["value"])}
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", ["trec_eval_rel_level", "robust03_pircRBa1"])
def test_gain_maps_with_grade_zero_equal_ir_measures_on_real_data(shared_data, engine, name):
    ir_measures = pytest.importorskip("ir_measures")

    run, qrels, _ = load_real(shared_data, name)
    q, r = trec_dicts(run, qrels)
    gains = {0: 1, 1: 3, 2: 7}
    wanted = {
        f"nDCG(gains={gains})": ir_measures.nDCG(gains=gains),
        f"nDCG(gains={gains})@10": ir_measures.nDCG(gains=gains) @ 10,
    }
    expected = {
        (str(rankframe.parse(ours)), m.query_id): m.value
        for ours, theirs in wanted.items()
        for m in ir_measures.iter_calc([theirs], q, r)
    }
    out = rankframe.evaluate(long_table(run, qrels), list(wanted), engine=engine, per_query=True, no_retrieved="skip")
    got = {(m, str(qid)): v for m, qid, v in zip(out["metric"], out["query"], out["value"])}
    assert set(got) == set(expected)
    bad = [(key, got[key], v) for key, v in expected.items() if not math.isclose(got[key], v, abs_tol=1e-9)]
    assert not bad, f"{name}: {len(bad)} values differ, e.g. (key, rankframe, ir_measures) {bad[:3]}"


# a gain map over the grades of the random tables (-2..4), values that may be 0, negative or positive for any grade
GAIN_MAPS = st.dictionaries(st.integers(-2, 4), st.sampled_from([-1, 0, 0.5, 1, 2, 3, 6]), min_size=1, max_size=4)


@pytest.mark.slow  # ~13 CPU-s per example: the DuckDB engine plans each gain map's SQL (~1-2 s a call, issue 35)
@settings(
    max_examples=hypothesis_examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    df=S.tables(grades=st.integers(-2, 4), max_queries=4),
    gains=GAIN_MAPS,
    k=st.sampled_from([None, 1, 2, 5]),
    gain=st.sampled_from(["linear", "exponential"]),
)
def test_random_gain_maps_pandas_equals_duckdb(df, gains, k, gain):
    at = "" if k is None else f"@{k}"
    opts = f"gains={gains}, gain={gain!r}"
    metrics = [f"DCG({opts}){at}"]
    for ideal in ("judged", "retrieved"):
        metrics += [f"IDCG({opts}, ideal={ideal!r}){at}", f"nDCG({opts}, ideal={ideal!r}){at}"]
    kw = dict(by=S.by_of(df), per_query=True, no_relevant="nan")
    a = rankframe.evaluate(df, metrics, engine="pandas", **kw)
    b = rankframe.evaluate(df, metrics, engine="duckdb", **kw)
    keys = [c for c in a.columns if c != "value"]
    a, b = a.sort_values(keys, kind="stable"), b.sort_values(keys, kind="stable")
    assert a[keys].astype(str).to_numpy().tolist() == b[keys].astype(str).to_numpy().tolist()
    for x, y, row in zip(a["value"], b["value"], a[keys].to_numpy().tolist()):
        assert S.nan_safe_equal(x, y, tol=1e-12), f"{row}: pandas {x}, duckdb {y}\n{df}"
