"""The SQL table macros on real TREC data equal pytrec_eval (trec_eval) to 1e-9, per query and in the mean.

The run and the judgments are joined in SQL (FULL OUTER JOIN) into the long table; ranks come from the score
with trec_eval's tie-break (score descending, docno descending as a string), which rf_prepare implements.
"""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import pytest

import rankframe.sql as rf_sql

pytrec_eval = pytest.importorskip("pytrec_eval")

# rf_per_query column, cutoff -> trec_eval measure (result key)
CHECKS = [
    ("P", 10, "P_10"),
    ("R", 10, "recall_10"),
    ("AP", 10, "map_cut_10"),
    ("nDCG", 10, "ndcg_cut_10"),
    ("Success", 10, "success_10"),
    ("AP", None, "map"),
    ("RR", None, "recip_rank"),
    ("nDCG", None, "ndcg"),
    ("Rprec", None, "Rprec"),
    ("Bpref", None, "bpref"),
    ("R", 100, "recall_100"),
    ("P", 100, "P_100"),
]
TREC_MEASURES = {"P", "recall", "map_cut", "ndcg_cut", "success", "map", "recip_rank", "ndcg", "Rprec", "bpref"}


def _read(path, names):
    df = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, compression="infer", comment=None)
    df = df.iloc[:, : len(names)]
    df.columns = names
    return df


def _cases(shared_data):
    te = shared_data / "trec_eval" / "test"
    rb = shared_data / "trectools_robust03"
    runs = [rb / "runs" / "input.MU03rob01.gz", rb / "runs" / "input.uic0301.gz"]  # MU03rob01: many score ties
    return [(te / "qrels.test", te / "results.test")] + [(rb / "robust03_qrels.txt.gz", r) for r in runs]


def _evaluate_sql(qrels: pd.DataFrame, run: pd.DataFrame, no_retrieved: str):
    con = rf_sql.install(duckdb.connect())
    con.register("qrels_df", qrels)
    con.register("run_df", run)
    con.sql("""CREATE TEMP VIEW judged_run AS
               SELECT query, item, r.score, q.relevance
               FROM (SELECT query, docno AS item, CAST(score AS DOUBLE) AS score FROM run_df) AS r
               FULL OUTER JOIN (SELECT query, docno AS item, CAST(rel AS INTEGER) AS relevance FROM qrels_df) AS q
               USING (query, item)""")
    out = {}
    for k in sorted({c[1] for c in CHECKS}, key=lambda v: -1 if v is None else v):
        kk = "NULL" if k is None else k
        per_q = con.execute(
            f"FROM rf_per_query('judged_run', k := {kk}, order_by := 'score', no_retrieved := '{no_retrieved}')"
        ).df()
        means = con.execute(
            f"FROM rf_means('judged_run', k := {kk}, order_by := 'score', no_retrieved := '{no_retrieved}')"
        ).df()
        out[k] = (per_q.set_index("query"), means.iloc[0])
    con.close()
    return out


@pytest.mark.parametrize("case", [0, 1, 2])
def test_sql_equals_pytrec_eval_on_real_data(shared_data, case):
    qrels_path, run_path = _cases(shared_data)[case]
    qrels = _read(qrels_path, ["query", "iter", "docno", "rel"])
    run = _read(run_path, ["query", "q0", "docno", "rank", "score", "tag"])
    qd: dict = {}
    for q, d, r in zip(qrels["query"], qrels["docno"], qrels["rel"].astype(int)):
        qd.setdefault(q, {})[d] = int(r)
    rd: dict = {}
    for q, d, s in zip(run["query"], run["docno"], run["score"].astype(float)):
        rd.setdefault(q, {})[d] = float(s)
    expected = pytrec_eval.RelevanceEvaluator(qd, TREC_MEASURES).evaluate(rd)
    assert len(expected) >= 3
    got = _evaluate_sql(qrels, run, no_retrieved="skip")
    problems = []
    for col, k, trec in CHECKS:
        per_q, means = got[k]
        assert set(per_q.index) == set(expected), "query sets differ (pytrec_eval skips unjudged/unretrieved)"
        for q, vals in expected.items():
            if not math.isclose(per_q.at[q, col], vals[trec], rel_tol=1e-9, abs_tol=1e-9):
                problems.append(f"{run_path.name} q={q} {trec}: sql {per_q.at[q, col]!r} trec {vals[trec]!r}")
        mean = sum(v[trec] for v in expected.values()) / len(expected)
        if not math.isclose(means[col], mean, rel_tol=1e-9, abs_tol=1e-9):
            problems.append(f"{run_path.name} mean {trec}: sql {means[col]!r} trec {mean!r}")
    assert not problems, "\n".join(problems[:20])
