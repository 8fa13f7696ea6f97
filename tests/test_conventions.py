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

import rankframe
from rankframe import sql as rf_sql


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
    c = rf_sql.install(duckdb.connect())
    yield c
    c.close()


@pytest.mark.parametrize(("expr", "value"), CUTOFF_SQL_CASES, ids=[c[0] for c in CUTOFF_SQL_CASES])
def test_cutoff_sql_macros_by_hand(con, expr, value):
    assert con.sql(f"SELECT {expr}").fetchall()[0][0] == pytest.approx(value, rel=1e-12, abs=1e-15)
