"""rankframe (every engine) against trec_eval on real TREC data: pytrec_eval to 1e-9 per query and on the mean,
and trec_eval 10.0's own expected outputs (``out.test*``, 4 decimals).

Data (read in place from ``../shared/data``, parsed here with plain pandas, ids as strings): trec_eval's test
qrels/run (binary, and graded with ``-l2``), six TREC 2003 Robust runs (graded 0/1/2, ranks from 0, score ties)
and ir_measures' CAsT-like compat files (string query ids, labels up to 50). The tables have a score column and
no rank column, so the order is trec_eval's: score descending, then docno descending.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
import strategies as S
from conftest import REAL, REAL_MEASURES, load_real, long_table, trec_dicts, with_level

import rankframe

METRICS = REAL_MEASURES

# data sets whose mean is checked as well (a second call; the per-query check covers the rest)
MEAN_CHECKED = {"trec_eval_test", "trec_eval_rel_level", "compat", "robust03_MU03rob01", "robust03_uic0301"}


def per_query_values(res: pd.DataFrame) -> dict:
    out: dict = {}
    for m, q, v in zip(res["metric"], res["query"], res["value"]):
        out.setdefault(m, {})[str(q)] = v
    return out


def assert_matches_pytrec(got: dict, expected: dict, context: str):
    problems = []
    for m, per_q in expected.items():
        if set(got.get(m, {})) != set(per_q):
            problems.append(
                f"{m}: queries differ: only rankframe {sorted(set(got.get(m, {})) - set(per_q))[:5]}, "
                f"only trec_eval {sorted(set(per_q) - set(got.get(m, {})))[:5]}"
            )
            continue
        bad = [(q, got[m][q], v) for q, v in per_q.items() if not math.isclose(got[m][q], v, abs_tol=1e-9)]
        if bad:
            problems.append(f"{m}: {len(bad)} queries differ, e.g. (query, rankframe, trec_eval) {bad[:3]}")
    assert not problems, f"{context}:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", list(REAL))
def test_real_data_equals_pytrec_eval(shared_data, engine, name):
    run, qrels, level = load_real(shared_data, name)
    metrics = [with_level(m, level) for m in METRICS]
    q, r = trec_dicts(run, qrels)
    expected = S.pytrec_values(q, r, metrics)
    df = long_table(run, qrels)
    res = rankframe.evaluate(df, metrics, engine=engine, per_query=True, no_retrieved="skip")
    got = per_query_values(res)
    assert_matches_pytrec(got, expected, f"{name} per query ({engine})")
    if name not in MEAN_CHECKED:
        return
    # the mean over the queries trec_eval evaluates (no -c: nothing retrieved -> skipped)
    means = rankframe.evaluate(df, metrics, engine=engine, no_retrieved="skip")
    mean_of = dict(zip(means["metric"], means["value"]))
    for m, per_q in expected.items():
        assert mean_of[m] == pytest.approx(sum(per_q.values()) / len(per_q), abs=1e-9), (name, m)


@pytest.mark.parametrize("name", ["trec_eval_test", "robust03_MU03rob01"])
def test_real_data_qrels_split_and_rank_column(shared_data, engine, name):
    """The same numbers from a separate ``qrels=`` frame, and from a rank column in trec_eval's order."""
    run, qrels, level = load_real(shared_data, name)
    q, r = trec_dicts(run, qrels)
    expected = S.pytrec_values(q, r, METRICS)
    res = rankframe.evaluate(run, METRICS, qrels=qrels, engine=engine, per_query=True, no_retrieved="skip")
    assert_matches_pytrec(per_query_values(res), expected, f"{name} with qrels= ({engine})")
    # ranks 1..n in trec_eval's order (score desc, docno desc), the score column dropped
    ordered = run.sort_values(["query", "score", "item"], ascending=[True, False, False])
    ordered = ordered.assign(rank=ordered.groupby("query").cumcount() + 1).drop(columns="score")
    df = long_table(ordered, qrels)
    df["rank"] = df["rank"].astype("Int64")
    res = rankframe.evaluate(df, METRICS, engine=engine, per_query=True, no_retrieved="skip")
    assert_matches_pytrec(per_query_values(res), expected, f"{name} with a rank column ({engine})")


CUTOFFS = {"1", "5", "10", "20", "100"}  # of trec_eval's 5, 10, 15, 20, 30, 100, 200, 500, 1000 (time budget)


# trec_eval measure -> our metric (P, R and F1 without a cutoff are trec_eval's set_P, set_recall, set_F)
def trec_name_to_metric(tm: str) -> str | None:
    fixed = {
        "map": "AP",
        "recip_rank": "RR",
        "ndcg": "nDCG",
        "Rprec": "Rprec",
        "bpref": "Bpref",
        "set_P": "P",
        "set_recall": "R",
        "set_F": "F1",
    }
    if tm in fixed:
        return fixed[tm]
    for prefix, ours in [
        ("P_", "P"),
        ("recall_", "R"),
        ("map_cut_", "AP"),
        ("ndcg_cut_", "nDCG"),
        ("success_", "Success"),
    ]:
        if tm.startswith(prefix) and tm[len(prefix) :] in CUTOFFS:
            return f"{ours}@{tm[len(prefix) :]}"
    return None


@pytest.mark.parametrize(
    ("out", "qrels_file", "level"),
    [("out.test", "qrels.test", 1), ("out.test.aq", "qrels.test", 1), ("out.test.aql", "qrels.rel_level", 2)],
)
def test_trec_eval_expected_outputs(shared_data, engine, out, qrels_file, level):
    """trec_eval 10.0's own output files (4 decimals), per query where given (-q) and for 'all'."""
    from conftest import read_qrels, read_run

    base = shared_data / "trec_eval" / "test"
    df = long_table(read_run(base / "results.test"), read_qrels(base / qrels_file))
    expected: dict = {}
    for line in (base / out).read_text().splitlines():
        tm, qid, value = line.split()
        metric = trec_name_to_metric(tm)
        if metric is not None:
            expected[(with_level(metric, level), qid)] = float(value)
    metrics = sorted({m for m, _ in expected})
    assert len(metrics) >= 8, metrics
    per_q = rankframe.evaluate(df, metrics, engine=engine, per_query=True, no_retrieved="skip")
    means = rankframe.evaluate(df, metrics, engine=engine, no_retrieved="skip")
    got = {(m, str(q)): v for m, q, v in zip(per_q["metric"], per_q["query"], per_q["value"])}
    got.update({(m, "all"): v for m, v in zip(means["metric"], means["value"])})
    bad = {key: (got.get(key), v) for key, v in expected.items() if key not in got or abs(got[key] - v) > 5e-5 + 1e-12}
    assert not bad, f"{out} ({engine}): (rankframe, trec_eval) differ: {bad}"
