"""The portable SELECT (``rankframe.sql.render``, run on DuckDB) equals pytrec_eval (trec_eval) per query on
trec_eval's own test files (``trec_eval/test/qrels.test`` and ``results.test``), for the measures made portable
after the first six: the counts, the set measures, Bpref, IPrec, infAP, and ``judged_only=True`` as trec_eval -J
(pytrec_eval's ``judged_docs_only_flag``). Score ties are broken by docno descending (trec_eval's order)."""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import pytest

import rankframe.sql

pytrec_eval = pytest.importorskip("pytrec_eval")

#: rankframe's metric, trec_eval's measure (result key)
CHECKS = [
    ("NumRet", "num_ret"),
    ("NumRel", "num_rel"),
    ("NumRelRet", "num_rel_ret"),
    ("SetP", "set_P"),
    ("SetR", "set_recall"),
    ("SetF", "set_F"),
    ("SetAP", "set_map"),
    ("Bpref", "bpref"),
    ("IPrec@0.0", "iprec_at_recall_0.00"),
    ("IPrec@0.3", "iprec_at_recall_0.30"),
    ("IPrec@0.5", "iprec_at_recall_0.50"),
    ("IPrec@0.7", "iprec_at_recall_0.70"),
    ("infAP", "infAP"),
    ("Rprec", "Rprec"),
]
#: trec_eval -J: the same measures over the judged retrieved documents only
JUDGED_ONLY = [
    ("P(judged_only=True)@10", "P_10"),
    ("AP(judged_only=True)", "map"),
    ("nDCG(judged_only=True)@10", "ndcg_cut_10"),
    ("RR(judged_only=True)", "recip_rank"),
    ("SetF(judged_only=True)", "set_F"),
]


def _read(path, names):
    df = pd.read_csv(path, sep=r"\s+", header=None, dtype=str)
    df = df.iloc[:, : len(names)]
    df.columns = names
    return df


def _long_table(shared_data) -> tuple[pd.DataFrame, dict, dict]:
    te = shared_data / "trec_eval" / "test"
    qrels = _read(te / "qrels.test", ["query", "iter", "item", "rel"])
    run = _read(te / "results.test", ["query", "q0", "item", "rank", "score", "tag"])
    qd: dict = {}
    for q, d, r in zip(qrels["query"], qrels["item"], qrels["rel"].astype(int)):
        qd.setdefault(q, {})[d] = r
    rd: dict = {}
    for q, d, s in zip(run["query"], run["item"], run["score"].astype(float)):
        rd.setdefault(q, {})[d] = s
    long = pd.merge(
        run[["query", "item"]].assign(score=run["score"].astype(float)),
        qrels[["query", "item"]].assign(relevance=qrels["rel"].astype(float)),
        on=["query", "item"],
        how="outer",
    )
    return long, qd, rd


def _check(long: pd.DataFrame, expected: dict, checks: list) -> None:
    sql = rankframe.sql.render([m for m, _ in checks], dialect="duckdb", per_query=True, order_by="score")
    con = duckdb.connect()
    con.register("runs", long)
    got = con.execute(sql).df().set_index(["query", "metric"])["value"]
    problems = []
    for metric, trec in checks:
        label = str(rankframe.parse(metric))
        for q, vals in expected.items():
            if not math.isclose(got[(q, label)], vals[trec], rel_tol=1e-9, abs_tol=1e-9):
                problems.append(f"q={q} {label} / {trec}: SQL {got[(q, label)]!r}, trec_eval {vals[trec]!r}")
    assert not problems, "\n".join(problems[:20])


def test_portable_sql_equals_trec_eval(shared_data):
    long, qd, rd = _long_table(shared_data)
    measures = {"num_ret", "num_rel", "num_rel_ret", "set", "bpref", "iprec_at_recall", "infAP", "Rprec"}
    expected = pytrec_eval.RelevanceEvaluator(qd, measures).evaluate(rd)
    assert len(expected) >= 3
    _check(long, expected, CHECKS)


def test_portable_judged_only_equals_trec_eval_minus_j(shared_data):
    long, qd, rd = _long_table(shared_data)
    measures = {"P", "map", "ndcg_cut", "recip_rank", "set"}
    expected = pytrec_eval.RelevanceEvaluator(qd, measures, judged_docs_only_flag=True).evaluate(rd)
    plain = pytrec_eval.RelevanceEvaluator(qd, measures).evaluate(rd)
    assert any(expected[q]["map"] != plain[q]["map"] for q in expected)  # -J changes something on this data
    _check(long, expected, JUDGED_ONLY)
