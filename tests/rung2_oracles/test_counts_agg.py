"""Counts (Hits, NumQ, NumRet, NumRel, NumRelRet), ``agg=`` and trec_eval's summary lines.

Judges: pytrec_eval (trec_eval's num_* per query and gm_map's per-query log value), trec_eval 10.0's own expected
outputs (``../shared/data/trec_eval/test/out.test*``) for the CLI's summary lines, ranx for ``hits@k``, numpy for
the median and hand derivations written next to the values.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ENGINES
from faces import macro_connection

import rankframe
from rankframe.cli import main
from rankframe.core.errors import ParameterError

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TREC = DATA / "trec_eval" / "test"
COUNTS = {"NumQ": "num_q", "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret"}


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"SHARED DATA MISSING: {path} (expected the shared data folder next to the project)")


def _pytrec(run: str, measures: set[str]) -> dict:
    import pytrec_eval

    df_qrels: dict = {}
    for line in (TREC / "qrels.test").read_text().splitlines():
        q, _, d, r = line.split()[:4]
        df_qrels.setdefault(q, {})[d] = int(r)
    scores: dict = {}
    for line in (TREC / run).read_text().splitlines():
        q, _, d, _, s = line.split()[:5]
        scores.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(df_qrels, measures).evaluate(scores)


def _per_query(df, metrics, engine, **kw) -> dict:
    res = rankframe.evaluate(df, metrics, engine=engine, per_query=True, **kw)
    out: dict = {}
    for m, q, v in zip(res["metric"], res["query"], res["value"]):
        out.setdefault(m, {})[str(q)] = v
    return out


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("run", ["results.test", "results.trunc"])
def test_counts_match_pytrec_eval_per_query(engine, run):
    _need(TREC)
    want = _pytrec(run, set(COUNTS.values()))
    df = rankframe.read_trec(TREC / run, TREC / "qrels.test")
    # pytrec_eval evaluates the queries the run retrieved: trec_eval without -c = no_retrieved="skip"
    got = _per_query(df, list(COUNTS), engine, by="system", no_retrieved="skip")
    for ours, theirs in COUNTS.items():
        assert set(got[ours]) == set(want), ours
        for q, v in want.items():
            assert got[ours][q] == pytest.approx(v[theirs], abs=1e-9), (ours, q)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("run", ["results.test", "results.trunc"])
def test_gmean_is_trec_eval_gm_map(engine, run):
    _need(TREC)
    want = _pytrec(run, {"gm_map"})
    # pytrec_eval's per-query gm_map is log(max(AP, 1e-5)) (trec_eval's MIN_GEO_MEAN); its summary exp(mean)
    gm_map = math.exp(sum(v["gm_map"] for v in want.values()) / len(want))
    df = rankframe.read_trec(TREC / run, TREC / "qrels.test")
    got = rankframe.evaluate(df, "AP", agg="gmean", engine=engine, no_retrieved="skip")
    assert got["value"].iloc[0] == pytest.approx(gm_map, rel=1e-9)
    assert got["n"].iloc[0] == len(want)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("run", "expected", "flags"),
    [
        ("results.test", "out.test", []),  # trec_eval qrels.test results.test
        ("results.test", "out.test.aq", ["--per-query"]),  # -m all_trec -q
        ("results.trunc", "out.test.aqc", ["--per-query"]),  # -m all_trec -q -c: query 302 retrieved nothing
    ],
)
def test_format_trec_prints_the_summary_lines(capsys, engine, run, expected, flags):
    _need(TREC)
    code = main(
        ["evaluate", str(TREC / run), "--qrels", str(TREC / "qrels.test"), "-m", "AP", "--format", "trec"]
        + ["--no-progress", "--engine", engine, *flags]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    names = {"runid", *COUNTS.values(), "map"}

    def keep(lines):
        return [ln for ln in lines if ln.split("\t")[0].strip() in names]

    want = keep((TREC / expected).read_text().splitlines())
    assert len(want) >= 6
    assert keep(out.splitlines()) == want


@pytest.mark.parametrize("engine", ENGINES)
def test_format_trec_gmean_prints_gm_map(capsys, engine):
    _need(TREC)
    args = ["evaluate", str(TREC / "results.trunc"), "--qrels", str(TREC / "qrels.test"), "-m", "AP"]
    code = main([*args, "--format", "trec", "--agg", "gmean", "--no-progress", "--engine", engine])
    out, err = capsys.readouterr()
    assert code == 0, err
    want = [ln for ln in (TREC / "out.test.aqc").read_text().splitlines() if ln.startswith("gm_map ")]
    assert want and [ln for ln in out.splitlines() if ln.startswith("gm_map ")] == want


# a judged query the run did not retrieve (q2), one without judgments (q3); grades by hand below
TABLE = pd.DataFrame(
    {
        "query": ["q1"] * 5 + ["q2"] * 2 + ["q3"],
        "item": ["a", "b", "c", "d", "e", "a", "b", "a"],
        "rank": [1, 2, 3, 4, None, None, None, 1],
        "relevance": [2, 0, 1, None, 1, 1, 0, None],
    }
)


@pytest.mark.parametrize("engine", ENGINES)
def test_counts_by_hand_and_the_no_retrieved_policy(engine):
    metrics = ["Hits@2", "Hits", "NumQ", "NumRet", "NumRet@2", "NumRel", "NumRel(rel=2)", "NumRelRet", "AP"]
    got = _per_query(TABLE, metrics, engine)
    # q1: ranked grades [2, 0, 1, None], e unretrieved (1): Hits@2 = 1, Hits = NumRelRet = 2, NumRet = 4,
    # NumRet@2 = 2, NumRel = 3 (a, c, e), NumRel(rel=2) = 1
    # q2: nothing retrieved, a relevant: counts keep their value under no_retrieved="zero" (trec_eval -c prints
    # num_rel), NumQ = 1; AP is 0 by the policy. q3 has no judgment: skipped (no_judged="skip")
    assert {m: got[m]["q1"] for m in metrics[:-1]} == {
        "Hits@2": 1,
        "Hits": 2,
        "NumQ": 1,
        "NumRet": 4,
        "NumRet@2": 2,
        "NumRel": 3,
        "NumRel(rel=2)": 1,
        "NumRelRet": 2,
    }
    assert {m: got[m]["q2"] for m in metrics} == {
        **{m: 0.0 for m in metrics},
        "NumQ": 1.0,
        "NumRel": 1.0,
        "NumRel(rel=2)": 0.0,
    }
    assert all("q3" not in v for v in got.values())
    skipped = _per_query(TABLE, ["NumRel"], engine, no_retrieved="skip")
    assert skipped == {"NumRel": {"q1": 3.0}}
    nan = _per_query(TABLE, ["NumRel"], engine, no_retrieved="nan")
    assert math.isnan(nan["NumRel"]["q2"])
    sums = rankframe.evaluate(TABLE, ["NumQ", "NumRel", "NumRelRet"], agg="sum", engine=engine)
    assert sums["value"].tolist() == [2.0, 4.0, 2.0]  # 2 queries; 3 + 1 relevant; 2 + 0 found


def test_counts_in_the_sql_table_macros():
    con = macro_connection()
    con.register("t", TABLE)
    rows = con.sql("SELECT query, Hits, NumQ, NumRet, NumRel, NumRelRet FROM rf_per_query('t') ORDER BY query")
    # as above (q1, q2); q3 skipped
    assert rows.fetchall() == [("q1", 2.0, 1.0, 4.0, 3.0, 2.0), ("q2", 0.0, 1.0, 0.0, 1.0, 0.0)]
    skip = con.sql("SELECT query, NumRel FROM rf_per_query('t', no_retrieved := 'skip') ORDER BY query")
    assert skip.fetchall() == [("q1", 3.0)]
    assert con.execute("SELECT rf_hits([1, 0, 2, 1], k := 3), rf_num_rel([1], [1, 0, 2], rel := 2)").fetchall() == [
        (2.0, 1.0)
    ]
    con.close()


@pytest.mark.oracle  # ranx (numba): compiled once per run, on one worker (tests/tiers.py)
@pytest.mark.parametrize("engine", ENGINES)
def test_hits_is_ranx_hits(engine):
    from ranx import Qrels, Run, evaluate

    rng = np.random.default_rng(7)
    rows = []
    for q in range(6):
        n = int(rng.integers(1, 9))
        for i in range(n + 2):  # two judged, unretrieved rows per query
            rows.append((f"q{q}", f"d{i}", i + 1 if i < n else None, int(rng.integers(0, 3))))
    df = pd.DataFrame(rows, columns=["query", "item", "rank", "relevance"])
    df.loc[0, "relevance"] = 2  # every query judged; q0 has a relevant item
    qrels = {q: {d: int(r) for d, r in zip(g["item"], g["relevance"])} for q, g in df.groupby("query")}
    run = {q: {d: -float(r) for d, r in zip(g["item"], g["rank"]) if not pd.isna(r)} for q, g in df.groupby("query")}
    ks = [1, 3, 5]
    res = Run(run)
    evaluate(Qrels(qrels), res, [f"hits@{k}" for k in ks], return_mean=False)
    got = _per_query(df, [f"Hits@{k}" for k in ks], engine)
    for k in ks:
        for q, v in res.scores[f"hits@{k}"].items():
            assert got[f"Hits@{k}"][q] == pytest.approx(float(v)), (k, q)
    # Success stays 0/1: a query with 2 hits in the top 5 has Success@5 = 1, Hits@5 = 2
    assert rankframe.parse("hits@5").spec.name == "hits" and rankframe.parse("success@5").spec.name == "hit_rate"


@pytest.mark.parametrize("engine", ENGINES)
def test_agg_median_sum_gmean_by_hand(engine):
    df = pd.DataFrame(
        {
            "seg": ["x"] * 6 + ["y"] * 2,
            "query": [1, 1, 2, 2, 3, 3, 4, 4],
            "item": ["a", "b"] * 4,
            "rank": [1, 2] * 4,
            "relevance": [1, 0, 0, 1, 0, 0, 1, 1],
        }
    )
    # RR per query: x: 1, 1/2, 0 (q3 has no relevant item, RR is 0); y: 1
    per = rankframe.evaluate(df, "RR", by="seg", per_query=True, engine=engine)
    x = per[per.seg == "x"]["value"].to_numpy()
    med = rankframe.evaluate(df, "RR", by="seg", agg="median", engine=engine)
    assert med["value"].tolist() == [np.median(x), 1.0] and med["n"].tolist() == [3, 1]
    assert rankframe.evaluate(df, "RR", by="seg", agg="sum", engine=engine)["value"].tolist() == [1.5, 1.0]
    gm = rankframe.evaluate(df, "RR", by="seg", agg="GMEAN", engine=engine)["value"].tolist()
    # exp((log 1 + log 0.5 + log 1e-5) / 3): the zero is clamped to trec_eval's MIN_GEO_MEAN
    assert gm == pytest.approx([math.exp((math.log(0.5) + math.log(1e-5)) / 3), 1.0], rel=1e-12)
    assert df.rank_metrics.rr(agg="median") == pytest.approx(np.median([1, 0.5, 0, 1]))


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"agg": "geometric"}, r"The 'agg' parameter of evaluate must be one of 'mean', 'gmean', 'median', 'sum'"),
        ({"agg": None}, r"'agg' parameter of evaluate must be one of"),
        ({"agg": ["mean"]}, r"'agg' parameter of evaluate must be one of"),
        ({"agg": "median", "per_query": True}, r"agg='median' .* does not apply with per_query=True"),
        ({"agg": "gmean", "ci": 0.95}, r"ci= .* does not apply with agg='gmean'"),
    ],
)
def test_agg_hostile(kw, match):
    with pytest.raises(ParameterError, match=match):
        rankframe.evaluate(TABLE, "AP", **kw)


def test_agg_cli_hostile(capsys):
    _need(TREC)
    args = ["evaluate", str(TREC / "results.test"), "--qrels", str(TREC / "qrels.test"), "-m", "AP", "--no-progress"]
    assert main([*args, "--agg", "median", "--per-query"]) == 2
    assert "--agg median aggregates over queries" in capsys.readouterr().err
    assert main([*args, "--agg", "gmean", "--ci", "0.9"]) == 2
    with pytest.raises(SystemExit) as exit_:  # argparse's own choice check
        main([*args, "--agg", "geometric"])
    assert exit_.value.code == 2 and "invalid choice: 'geometric'" in capsys.readouterr().err
    assert main([*args, "--agg", "median", "--format", "csv"]) == 0
    header, row = capsys.readouterr().out.splitlines()[:2]
    assert header.startswith("system,metric,value,n")
    want = np.median([v["map"] for v in _pytrec("results.test", {"map"}).values()])
    assert float(row.split(",")[2]) == pytest.approx(want, abs=1e-9)
