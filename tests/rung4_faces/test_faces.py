"""One table, five faces, one default answer.

The same TREC run and judgments go through ``read_trec`` + ``evaluate``, ``evaluate(run, qrels=...)``, the
accessor, the CLI and the SQL macro ``rf_means`` with every option left at its default. All five must give the
same means, and those means must be the oracle's: pytrec_eval's per-query values (trec_eval) averaged over every
judged query, a judged query the run did not retrieve counting as 0 — the shared default ``no_retrieved="zero"``,
i.e. ``trec_eval -c``. ``results.trunc`` retrieves only some judged queries, so a face that skipped them (trec_eval's
own default, the CLI's old default) would give a larger MAP (0.1523 instead of 0.1016) and fail here.
"""

from __future__ import annotations

import contextlib
import io

import pandas as pd
import pytest
from faces import macro_connection

import rankframe
from rankframe import cli

pytrec_eval = pytest.importorskip("pytrec_eval")

METRICS = ["AP", "nDCG@10", "P@5", "RR"]
TREC_NAMES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank"}


def _oracle(run_path, qrels_path) -> dict:
    qrels: dict = {}
    for line in open(qrels_path):
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    run: dict = {}
    for line in open(run_path):
        q, _, d, _, s, _ = line.split()[:6]
        run.setdefault(q, {})[d] = float(s)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_NAMES.values())).evaluate(run)
    judged = [q for q, docs in qrels.items() if any(r > 0 for r in docs.values()) or docs]
    return {m: sum(per_query.get(q, {}).get(t, 0.0) for q in judged) / len(judged) for m, t in TREC_NAMES.items()}


def test_five_faces_agree_with_trec_eval_c(shared_data):
    base = shared_data / "trec_eval" / "test"
    run_path, qrels_path = base / "results.trunc", base / "qrels.test"
    expected = _oracle(run_path, qrels_path)
    assert expected["AP"] == pytest.approx(0.1016, abs=5e-5)  # the figure trec_eval -c prints for this pair

    faces = {}
    table = rankframe.read_trec(run_path, qrels_path)
    res = rankframe.evaluate(table, METRICS)
    faces["read_trec + evaluate"] = dict(zip(res["metric"], res["value"]))

    run, qrels = rankframe.read_trec_run(run_path).drop(columns="system"), rankframe.read_trec_qrels(qrels_path)
    res = rankframe.evaluate(run, METRICS, qrels=qrels)
    faces["evaluate(qrels=)"] = dict(zip(res["metric"], res["value"]))

    res = table.rank_metrics.evaluate(METRICS)
    faces["accessor"] = dict(zip(res["metric"], res["value"]))

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(
            [
                "evaluate",
                str(run_path),
                "--qrels",
                str(qrels_path),
                *[a for m in METRICS for a in ("-m", m)],
                "--format",
                "csv",
                "--no-progress",
            ]
        )
    assert code == 0
    printed = pd.read_csv(io.StringIO(out.getvalue()))
    faces["cli"] = dict(zip(printed["metric"], printed["value"]))

    con = macro_connection()
    con.register("t", table)
    whole = con.execute("SELECT * FROM rf_means('t', order_by := 'score')").df().iloc[0]
    at10 = con.execute("SELECT * FROM rf_means('t', order_by := 'score', k := 10)").df().iloc[0]
    at5 = con.execute("SELECT * FROM rf_means('t', order_by := 'score', k := 5)").df().iloc[0]
    faces["rf_means"] = {"AP": whole["AP"], "nDCG@10": at10["nDCG"], "P@5": at5["P"], "RR": whole["RR"]}

    for face, got in faces.items():
        for m in METRICS:
            assert got[m] == pytest.approx(expected[m], abs=1e-9), f"{face}: {m}"


def test_sql_macros_have_the_registrys_policy_defaults():
    # One query per policy case, every option left at its default on both faces:
    #   q_ok: grades [1, 0] -> AP 1 (a normal query)
    #   q_norel: judged, nothing relevant -> no_relevant (default "zero": AP 0; "nan"/"skip" would differ)
    #   q_noret: judged (grade 1), nothing retrieved -> no_retrieved (default "zero": row with AP 0)
    #   q_nojudge: retrieved, nothing judged -> no_judged (default "skip": no row)
    from rankframe.measures.registry import POLICY_DEFAULTS

    assert POLICY_DEFAULTS == {"no_relevant": "zero", "no_retrieved": "zero", "no_judged": "skip"}
    df = pd.DataFrame(
        {
            "query": ["q_ok", "q_ok", "q_norel", "q_noret", "q_nojudge"],
            "item": ["a", "b", "a", "a", "a"],
            "rank": pd.array([1, 2, 1, None, 1], dtype="Int64"),
            "relevance": [1, 0, 0, 1, None],
        }
    )
    py = rankframe.evaluate(df, ["AP"], per_query=True)
    assert dict(zip(py["query"], py["value"])) == {"q_ok": 1.0, "q_norel": 0.0, "q_noret": 0.0}
    con = macro_connection()
    con.register("t", df)
    sql = con.execute("SELECT query, \"AP\" FROM rf_per_query('t') ORDER BY query").fetchall()
    assert dict(sql) == {"q_ok": 1.0, "q_norel": 0.0, "q_noret": 0.0}
    means = con.execute("SELECT n_queries, \"AP\" FROM rf_means('t')").fetchall()
    assert means == [(3, pytest.approx(1 / 3))]
