"""``rankframe.sql.render`` of the intent-aware family (issue 38, decision 0021 "Portable SQL") run on DuckDB.

The oracles: the hand derivations of tests/rung1_hand/test_intent_hand.py (read from that file, each written beside
its case there), pyndeval's published ERR_IA@20 values (ir_measures test/test_pyndeval.py, via
tests/rung2_oracles/test_intent_ndeval.py), and ``rankframe.evaluate``'s pandas engine (itself held to pyndeval,
ir_measures and TF-Ranking in tests/rung2_oracles/test_intent_ndeval.py and tests/rung1_hand/test_intent_hand.py):
the rendered statement gives its per-query values and means to 1e-12 on the seeded tables of
tests/sql/test_intent_sql.py (tied scores, ranks, @k and whole lists, every preset, alpha/beta/rel, the query-set
policies, a ``by`` segment, queries without subtopic judgments or without run rows).
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from loading import load

import rankframe
import rankframe.sql
from rankframe.core.errors import ParameterError, RankframeError

HERE = Path(__file__).resolve().parent


def _load(path: Path):
    return load(path, "rf_portable_intent")


CASES = _load(HERE / "test_intent_sql.py")  # its seeded tables and measure list
HAND = CASES.HAND


def depth(qrels: pd.DataFrame) -> int:
    """The most relevant items (grade >= 1) of a query: the stages a whole-list ideal needs (ideal_depth=)."""
    return int(qrels[qrels["relevance"] >= 1].groupby("query")["item"].nunique().max())


def rendered(run: pd.DataFrame, qrels: pd.DataFrame, metrics: list[str], **kw) -> pd.DataFrame:
    """The rendered statement's rows on DuckDB (rank when the run has one, else score)."""
    order_by = "rank" if "rank" in run.columns else "score"
    sql = rankframe.sql.render(metrics, dialect="duckdb", table="run", qrels="qrels", order_by=order_by, **kw)
    con = duckdb.connect()
    try:
        con.register("run", run)
        con.register("qrels", qrels)
        return con.execute(sql).df()
    finally:
        con.close()


def compare(run: pd.DataFrame, qrels: pd.DataFrame, metrics: list[str], by=None, **kw) -> pd.DataFrame:
    """Per-query values of evaluate (pandas) and of the statement side by side (outer join)."""
    policies = {k: v for k, v in kw.items() if k.startswith("no_")}
    a = rankframe.evaluate(run, metrics, qrels=qrels, by=by, per_query=True, **policies)
    b = rendered(run, qrels, metrics, by=by, per_query=True, **kw)
    assert list(a.columns) == list(b.columns)
    keys = [*(by or []), "query", "metric"]
    return a.merge(b, on=keys, how="outer", suffixes=("_pandas", "_sql"), indicator=True)


def assert_same(merged: pd.DataFrame, tol: float = 1e-12) -> None:
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    x, y = merged["value_pandas"].to_numpy(float), merged["value_sql"].to_numpy(float)
    same = (np.abs(x - y) <= tol) | (np.isnan(x) & np.isnan(y))
    assert same.all(), merged[~same].head(10)


@pytest.mark.slow
def test_seeded_parity_scores():
    """Every measure, preset, cutoff and parameter of test_intent_sql.MEASURES on tied scores, per query."""
    run, qrels = CASES.random_case(0)
    merged = compare(run, qrels, CASES.MEASURES, no_relevant="nan", ideal_depth=depth(qrels))
    assert len(merged) > 300
    assert_same(merged)


@pytest.mark.parametrize("policy", ["zero", "skip"])
def test_seeded_parity_policies(policy):
    """The other no_relevant policies on one parameter group of every measure, whole lists and @k."""
    run, qrels = CASES.random_case(1, n_queries=4)
    metrics = [m for m in CASES.MEASURES[:22] if "@1" not in m]
    assert_same(compare(run, qrels, metrics, no_relevant=policy, ideal_depth=depth(qrels)))


@pytest.mark.slow
def test_seeded_parity_ranks_systems_policies():
    """A rank column with gaps and unretrieved rows (NULL rank), two systems as the ``by`` segment (a judged query no
    run row mentions is a unit of every system: join.py rule 3), numeric query ids, every policy non-default."""
    run, qrels = CASES.random_case(21, ties=False)
    rng = np.random.default_rng(1)
    runs = []
    for system in ("a", "b"):
        r = run.assign(system=system, score=rng.permutation(run["score"].to_numpy()))
        r["rank"] = 3.0 * r.groupby("query")["score"].rank(ascending=False, method="first")
        r.loc[r.sample(frac=0.1, random_state=1).index, "rank"] = np.nan
        runs.append(r.drop(columns="score"))
    both_runs = pd.concat(runs, ignore_index=True)
    codes = {q: i for i, q in enumerate(sorted(set(both_runs["query"]) | set(qrels["query"])))}
    both_runs["query"] = both_runs["query"].map(codes)
    qrels = qrels.assign(query=qrels["query"].map(codes))
    policies = {"no_relevant": "nan", "no_retrieved": "nan", "no_judged": "zero"}
    merged = compare(both_runs, qrels, CASES.MEASURES[:30], by=["system"], ideal_depth=depth(qrels), **policies)
    assert len(merged) > 500
    assert_same(merged)


@pytest.mark.slow
def test_segment_with_unseen_query_and_means():
    """A plain segment column: the judged query no run row mentions is a unit in a NULL segment (join.py rule 2);
    the means per segment and overall, with ``n``."""
    run, qrels = CASES.random_case(5)
    run = run.assign(group=np.where(run["query"].str[-1:].isin(["1", "3", "5"]), "x", "y"))
    metrics = ["alpha_nDCG@5", "nERR_IA", "P_IA(like='tf_ranking')@3", "StRecall@2", "NRBP(beta=0.8)"]
    assert_same(compare(run, qrels, metrics, by=["group"], ideal_depth=depth(qrels), no_retrieved="nan"))
    for by in (None, ["group"]):
        a = rankframe.evaluate(run, metrics, qrels=qrels, by=by)
        b = rendered(run, qrels, metrics, by=by, ideal_depth=depth(qrels))
        pd.testing.assert_frame_equal(a, b, check_exact=False, atol=1e-12, rtol=0, check_dtype=False)


def test_numeric_item_ids_and_alpha():
    """Integer item ids: ties go by their text (10 before 9), as evaluate; non-default alpha on the greedy ideal."""
    run, qrels = CASES.random_case(9)
    numeric = run.assign(item=run["item"].str[1:].astype(int))
    nq = qrels.assign(item=qrels["item"].str[1:].astype(int))
    metrics = ["alpha_nDCG(alpha=0.3)@10", "nNRBP(alpha=0.7, beta=0.6)@5", "nERR_IA(alpha=0.1)", "alpha_nDCG"]
    assert_same(compare(numeric, nq, metrics, ideal_depth=depth(qrels)))


@pytest.mark.parametrize(("metric", "expected"), HAND.CASES, ids=[c[0] for c in HAND.CASES])
def test_hand_values(metric, expected):
    """tests/rung1_hand/test_intent_hand.py's hand derivations (written beside each case there), in SQL."""
    out = rendered(HAND.RUN, HAND.QRELS, [metric], per_query=True, ideal_depth=5)
    assert out.set_index("query")["value"]["q"] == pytest.approx(expected, abs=1e-12)


def test_greedy_ideal_can_exceed_one():
    """test_intent_hand.py's case: every item gains 2 first, the tie goes to the largest id d3; then d0, d1, d2 gain
    1.5 and the tie goes to d2: the ideal's alpha-DCG@2 is 2 + 1.5/log2 3 while d0, d1 gains 2 + 2/log2 3."""
    sets = {"d0": "AD", "d1": "BC", "d2": "BC", "d3": "CD"}
    qrels = pd.DataFrame([("q", s, i, 1) for i, v in sets.items() for s in v], columns=list(HAND.QRELS.columns))
    run = pd.DataFrame({"query": ["q", "q"], "item": ["d0", "d1"], "rank": [1, 2]})
    got = rendered(run, qrels, ["alpha_nDCG@2"])["value"].iloc[0]
    assert got == pytest.approx((2 + 2 / HAND.L3) / (2 + 1.5 / HAND.L3), abs=1e-12)


def test_ir_measures_published_err_ia():
    """ERR_IA@20 = 0.4659 and 0.1803 (ir_measures test/test_pyndeval.py, test_ERR_IA), via test_intent_ndeval.py."""
    ndeval = _load(HERE.parent / "rung2_oracles" / "test_intent_ndeval.py")
    run, qrels = ndeval.published()
    out = rendered(run, qrels, ["ERR_IA@20", "ERR_IA(like='ndeval')@20"], per_query=True)
    assert out["value"].round(4).tolist() == [0.4659, 0.4659, 0.1803, 0.1803]


@pytest.mark.slow
def test_like_ndeval_against_pyndeval():
    """pyndeval's per-query values (ndeval's C code) on a seeded case with tied scores, every measure and cutoff."""
    ndeval = _load(HERE.parent / "rung2_oracles" / "test_intent_ndeval.py")  # skips without pyndeval
    run, qrels = ndeval.random_case(3)
    asked = ndeval.labels("like='ndeval'")
    ours = rendered(run, qrels, list(asked), per_query=True, no_relevant="nan", ideal_depth=60)
    values = ours.pivot(index="query", columns="metric", values="value")
    theirs = ndeval.ndeval(run, qrels, sorted(set(asked.values())))
    compared = 0
    for query, row in theirs.items():
        for label, name in asked.items():
            mine = values.loc[query, label]
            if not math.isnan(mine):
                assert abs(mine - row[name]) <= 1e-9, (query, label, mine, row[name])
                compared += 1
    assert compared > 100


def test_shipped_example_and_renamed_subtopic():
    """examples/intent_run.csv and intent_qrels.csv (docs/warehouse.md's example); the subtopic column renamed."""
    base = HERE.parent.parent / "examples"
    run, qrels = pd.read_csv(base / "intent_run.csv"), pd.read_csv(base / "intent_qrels.csv")
    metrics = ["alpha_nDCG@5", "ERR_IA@5", "nNRBP", "AP_IA", "StRecall@3"]
    assert_same(compare(run, qrels, metrics, ideal_depth=10))
    renamed = qrels.rename(columns={"subtopic": "intent"})
    a = rankframe.evaluate(run, metrics, qrels=renamed, qrels_columns={"subtopic": "intent"})
    b = rendered(run, renamed, metrics, columns={"subtopic": "intent"}, ideal_depth=10)
    pd.testing.assert_frame_equal(a, b, check_exact=False, atol=1e-12, rtol=0, check_dtype=False)


def test_whole_list_ideal_cut_short_is_nan():
    """ideal_depth below a query's relevant items: that query's whole-list alpha_nDCG is NaN, never a shorter
    ideal's value; @k and the measures without an ideal are unaffected. q has 3 relevant items (test_intent_hand)."""
    out = rendered(HAND.RUN, HAND.QRELS, ["alpha_nDCG", "alpha_nDCG@2", "ERR_IA"], per_query=True, ideal_depth=2)
    q = out[out["query"] == "q"].set_index("metric")["value"]
    assert math.isnan(q["alpha_nDCG"]) and not math.isnan(q["alpha_nDCG@2"]) and not math.isnan(q["ERR_IA"])
    full = rendered(HAND.RUN, HAND.QRELS, ["alpha_nDCG"], per_query=True, ideal_depth=3)
    assert not full["value"].isna().any()


@pytest.mark.parametrize("dialect", ["postgres", "bigquery", "snowflake", "spark", "trino"])
def test_other_dialects_write_plain_sql(dialect):
    """The statement has no recursion, array, lambda or macro: every tested dialect writes it (Spark included)."""
    sql = rankframe.sql.render(["alpha_nDCG@3", "NRBP"], dialect=dialect, table="run", qrels="qrels", by="system")
    upper = sql.upper()
    assert "RECURSIVE" not in upper and "LAMBDA" not in upper and "->" not in sql and "LIST_" not in upper


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (
            lambda: rankframe.sql.render(["alpha_nDCG@5"], table="run"),
            r"alpha_nDCG@5 read subtopic judgments.*no qrels= was given",
        ),
        (
            lambda: rankframe.sql.render(["alpha_nDCG@5"], qrels="q", columns={"subtopic": "intent"}),
            None,  # renamed: fine
        ),
        (
            lambda: rankframe.sql.render(["alpha_nDCG(like='informfully')@5"], qrels="q"),
            r"like='informfully'",
        ),
        (lambda: rankframe.sql.render(["alpha_nDCG@5"], qrels="q", dialect="nosuch"), r"dialect"),
        (
            lambda: rankframe.sql.render(["alpha_nDCG"], qrels="q"),
            r"'ideal_depth' parameter of render must be an int >= 1 for alpha_nDCG without @k",
        ),
        (lambda: rankframe.sql.render(["alpha_nDCG@3"], qrels="q", ideal_depth=0), r"ideal_depth"),
        (lambda: rankframe.sql.render(["alpha_nDCG@3", "nDCG@3"], qrels="q"), r"nDCG@3.*statement of their own"),
        (lambda: rankframe.sql.render(["nDCG@3"], qrels="q"), r"qrels= is read by the intent-aware"),
        (lambda: rankframe.sql.render(["StRecall"], qrels="q", train="t"), r"train= is not read"),
        (lambda: rankframe.sql.render(["StRecall"], qrels=["q"]), r"qrels"),
    ],
)
def test_hostile(call, words):
    if words is None:
        assert "intent" in call()
        return
    with pytest.raises(RankframeError, match=words):
        call()


def test_informfully_error_is_a_parameter_error():
    with pytest.raises(ParameterError):
        rankframe.sql.render(["alpha_nDCG(like='informfully')"], qrels="q")


@pytest.mark.slow
def test_cli_prints_the_statement(tmp_path):
    """``rankframe sql --dialect duckdb --qrels ...`` prints render's statement: run on the shipped files it gives
    evaluate's values (the subtopic column renamed with --subtopic)."""
    import os
    import subprocess
    import sys

    base = HERE.parent.parent / "examples"
    run = pd.read_csv(base / "intent_run.csv")
    qrels = pd.read_csv(base / "intent_qrels.csv").rename(columns={"subtopic": "intent"})
    argv = ["sql", "--dialect", "duckdb", "--table", "run", "--qrels", "qrels", "--subtopic", "intent"]
    argv += ["-m", "alpha_nDCG@3", "-m", "nNRBP", "--ideal-depth", "10"]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent.parent)}
    code = "import sys; from rankframe.cli import main; sys.exit(main(sys.argv[1:]))"
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    con = duckdb.connect()
    con.register("run", run)
    con.register("qrels", qrels)
    got = con.execute(out.stdout).df()
    want = rankframe.evaluate(run, ["alpha_nDCG@3", "nNRBP"], qrels=qrels, qrels_columns={"subtopic": "intent"})
    pd.testing.assert_frame_equal(want, got, check_exact=False, atol=1e-12, rtol=0, check_dtype=False)
