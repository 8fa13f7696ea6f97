"""RBP's residual, ``RBP(residual=True, tail=...)``: hand cases and the three peers' conventions, on every face.

Judges:

* trec_eval 10's own published outputs (``../shared/data/trec_eval/test/out.test.aq``, ``.aqc``, ``.aql``: the
  ``rbp_resid`` lines, p = 0.9), per query;
* each peer's formula ported literally below as a small oracle, the source file named beside it: trec_eval's
  ``te_calc_rbp_resid`` (usnistgov/trec_eval ``m_rbp_resid.c``), cwl_eval's residual of ``RBPCWLMetric`` (ireval/cwl
  ``cwl/ruler/ranking.py``, ``cwl/ruler/measures/cwl_metrics.py``, ``cwl/ruler/measures/cwl_rbp.py``) and trectools'
  ``TrecEval.get_rbp`` (joaopalotti/trectools ``trectools/trec_eval.py``);
* hand derivations written beside the values.

pytrec_eval (pytrec-eval-terrier) has neither ``rbp`` nor ``rbp_resid`` (it wraps trec_eval 9's measures): the
test below says so, and is why trec_eval's code is ported here.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankframe
import rankframe.sql as rf_sql
from rankframe.core.errors import ParameterError, RankframeError

TREC = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec_eval" / "test"
TAILS = ("cwl", "trec_eval", "trectools")


# ------------------------------------------------------------------------------------------------ the peers' code
def trec_eval_rbp_resid(rels: list[float], p: float) -> float:
    """usnistgov/trec_eval m_rbp_resid.c, te_calc_rbp_resid: ``rels`` in rank order, < 0 = unjudged.

    trec_eval marks a retrieved document missing from the qrels -1 (RELVALUE_NONPOOL); a negative qrels label stays
    negative: both are unjudged here. The value is set only when something is unjudged: else te_init_meas's 0.
    """
    unj_so_far = 0
    total = 0.0
    cur_p = 1.0  # p^0
    for rel in rels:
        if rel < 0:
            unj_so_far += 1
            total += cur_p
        cur_p = cur_p * p
    if unj_so_far:
        return cur_p + (1 - p) * total
    return 0.0


def cwl_rbp_residual(gains: list[float], p: float, max_n: int = 1000) -> float:
    """ireval/cwl: the residual of RBPCWLMetric's expected utility (``cwl-eval -r``), NaN = unjudged.

    cwl/ruler/ranking.py Ranking.get_gain_vector pads/truncates to max_n (1000, ``--max_depth``) with min_gain 0
    (worst case) or max_gain 1 (best case) and sets NaN to the same; cwl/ruler/measures/cwl_rbp.py c_vector is theta
    everywhere; cwl/ruler/measures/cwl_metrics.py w_vector, _do_score and measure: residual = EU(best) - EU(worst).
    """

    def pad_trunc(vec, n, val):
        if len(vec) < n:
            vec = np.pad(vec, (0, n - len(vec)), "constant", constant_values=val)
        else:
            vec = vec[0:n]
        return np.array(vec)

    def gain_vector(worse_case):
        fill = 0.0 if worse_case else 1.0
        g = pad_trunc(np.array(gains, dtype=float), max_n, fill)
        g[np.isnan(g)] = fill
        return g

    cvec = np.dot(np.ones(max_n), p)
    cvec = cvec[0:-1]
    cvec_prod = np.cumprod(cvec)
    cvec_prod = np.pad(cvec_prod, (1, 0), "constant", constant_values=1.0)
    w1 = np.divide(1.0, np.sum(cvec_prod))
    w_tail = np.multiply(cvec_prod[1 : len(cvec_prod)], w1)
    wvec = np.append(w1, w_tail)
    return float(np.sum(np.dot(wvec, gain_vector(False))) - np.sum(np.dot(wvec, gain_vector(True))))


def trectools_rbp_residual(run: pd.DataFrame, qrels: pd.DataFrame, p: float, depth: int = 1000) -> pd.Series:
    """joaopalotti/trectools trectools/trec_eval.py TrecEval.get_rbp(per_query=True)'s second frame, line by line.

    ``run``: query, docid, score (TrecRun.read_run's order: score descending); ``qrels``: query, docid, rel. The
    residual is ``rbp_res_per_query - rbp_per_query + p**depth``: pandas aligns the two frames on the query, so a
    query with no relevant item retrieved (absent from rbp_per_query) comes out NaN — a quirk rankframe does not keep
    (it is ``(1 - p) U + p^depth`` there too).
    """
    label = "RBP(%.2f)@%d" % (p, depth)  # noqa: UP031 (trectools' own line)
    topX = run.groupby("query")[["query", "docid", "score"]].head(depth)
    topX["rank"] = 1
    topX["rank"] = topX.groupby("query")["rank"].cumsum()
    topX[label] = (1.0 - p) * (p) ** (topX["rank"] - 1)
    # average_ties=True: consecutive equal scores share their mean weight (the scores here are distinct)
    topX["score+1"] = topX["score"].shift(1)
    topX["ntie"] = topX["score"] != topX["score+1"]
    topX["grps"] = topX["ntie"].cumsum()
    averages = topX[[label, "grps"]].groupby("grps")[label].mean().reset_index().rename(columns={label: "avgs"})
    topX = pd.merge(averages, topX)
    topX[label] = topX["avgs"]
    for k in ["score", "score+1", "ntie", "grps", "avgs"]:
        del topX[k]
    residuals = pd.merge(topX, qrels[["query", "docid", "rel"]], how="left")
    residuals.loc[residuals.rel.isnull(), "rel"] = 1  # non-judged documents become relevant ones
    residuals = residuals[residuals["rel"] > 0]
    relevant_docs = qrels[qrels.rel > 0]
    selection = pd.merge(topX, relevant_docs[["query", "docid", "rel"]], how="left")
    selection = selection[~selection["rel"].isnull()]
    rbp_per_query = selection[["query", label]].groupby("query").sum()
    rbp_res_per_query = residuals[["query", label]].groupby("query").sum()
    return (rbp_res_per_query - rbp_per_query + p**depth)[label]


# ---------------------------------------------------------------------------------------------------- the faces
_CON: list = []


def _con() -> duckdb.DuckDBPyConnection:
    """One connection with the macros, installed once per module (installing costs ~0.5 s)."""
    if not _CON:
        _CON.append(rf_sql.install(duckdb.connect()))
    return _CON[0]


def _faces(df: pd.DataFrame, metric: str, *, order_by: str = "rank") -> dict[str, dict]:
    """{face: {query: value}} of one residual measure: pandas, DuckDB engine, rf_per_query, rankframe.sql.render."""
    m = rankframe.parse(metric)
    out = {}
    for engine in ("pandas", "duckdb"):
        res = rankframe.evaluate(df, [metric], per_query=True, engine=engine)
        out[engine] = dict(zip(res["query"], res["value"]))
    con = _con()
    con.register("t", df)
    kw = m.kw
    args = ", ".join(
        [f"p := {kw['p']!r}", "residual := true", f"tail := '{kw['tail']}'", f"order_by := '{order_by}'"]
        + ([f"k := {kw['k']}"] if kw["k"] is not None else [])
    )
    rows = con.execute(f"SELECT query, RBP FROM rf_per_query('t', {args})").fetchall()
    out["rf_per_query"] = dict(rows)
    sql = rankframe.sql.render([metric], per_query=True, table="t", order_by=order_by, dialect="duckdb")
    res = con.execute(sql).df()
    out["render"] = dict(zip(res["query"], res["value"]))
    return out


def _assert_faces(df, metric, want: dict, *, tol: float = 1e-12, order_by: str = "rank") -> None:
    for face, got in _faces(df, metric, order_by=order_by).items():
        assert set(got) == set(want), (face, metric)
        for q, v in want.items():
            assert math.isclose(got[q], v, rel_tol=tol, abs_tol=tol), (face, metric, q, got[q], v)


# --------------------------------------------------------------------------------------------------- hand cases
# p = 0.5 (exact in binary). q1 retrieves [unjudged, 1, 0, unjudged] and leaves a judged item of grade 1 unretrieved;
# q2 [1, 0] is fully judged; q3 [-1, unjudged] has a negative label first.
HAND = pd.DataFrame(
    {
        "query": ["q1"] * 5 + ["q2"] * 2 + ["q3"] * 2,
        "item": ["a", "b", "c", "d", "e", "a", "b", "a", "b"],
        "rank": [1, 2, 3, 4, None, 1, 2, 1, 2],
        "relevance": [None, 1, 0, None, 1, 1, 0, -1, None],
    }
).astype({"rank": "Int64", "relevance": "Float64"})
EPS = 0.5**1000  # p^1000 at p = 0.5: below any tolerance, kept in the formulas for their shape

HAND_CASES = {
    # trec_eval: p^n + (1-p) U when something is unjudged, else 0
    #   q1: U = 0.5^0 + 0.5^3 = 1.125, n = 4 -> 0.0625 + 0.5625 = 0.625
    #   q2: nothing unjudged -> 0 (the quirk: its tail past the list, 0.5^2, is not counted)
    #   q3: -1 is unjudged for trec_eval: U = 1 + 0.5 = 1.5, n = 2 -> 0.25 + 0.75 = 1.0
    "RBP(p=0.5, residual=True, tail='trec_eval')": {"q1": 0.625, "q2": 0.0, "q3": 1.0},
    #   @2: q1 [unjudged, 1]: U = 1, n = 2 -> 0.25 + 0.5 = 0.75; q2 0; q3 as above 1.0
    "RBP(p=0.5, residual=True, tail='trec_eval')@2": {"q1": 0.75, "q2": 0.0, "q3": 1.0},
    # cwl: ((1-p) U + p^n - p^N) / (1 - p^N), N = 1000; a negative grade is judged (U counts nulls only)
    #   q1: (0.5625 + 0.0625 - EPS) / (1 - EPS) = 0.625; q2: 0.25; q3: U = 0.5 -> (0.25 + 0.25) = 0.5
    "RBP(p=0.5, residual=True)": {"q1": 0.625, "q2": (0.25 - EPS) / (1 - EPS), "q3": 0.5},
    #   @2 (N = 2): q1 (0.5 + 0.25 - 0.25) / 0.75 = 2/3; q2 (0 + 0.25 - 0.25) / 0.75 = 0; q3 (0.25 + 0.25 - 0.25)
    #   / 0.75 = 1/3
    "RBP(p=0.5, residual=True, tail='cwl')@2": {"q1": 2 / 3, "q2": 0.0, "q3": 1 / 3},
    # trectools: (1-p) U + p^D, D = 1000 (the tail past a short list is not counted)
    #   q1: 0.5625; q2: EPS; q3: 0.25
    "RBP(p=0.5, residual=True, tail='trectools')": {"q1": 0.5625 + EPS, "q2": EPS, "q3": 0.25 + EPS},
    #   @2 (D = 2): q1 0.5 + 0.25 = 0.75; q2 0.25; q3 0.25 + 0.25 = 0.5
    "RBP(p=0.5, residual=True, tail='trectools')@2": {"q1": 0.75, "q2": 0.25, "q3": 0.5},
}


@pytest.mark.parametrize("metric", list(HAND_CASES))
def test_hand_cases_on_every_face(metric):
    _assert_faces(HAND, metric, HAND_CASES[metric])


def test_hand_cases_through_the_list_and_aggregate_macros():
    con = _con()
    # the list macro: grades in rank order (q1 of HAND)
    got = con.execute(
        "SELECT rf_rbp([NULL, 1, 0, NULL], p := 0.5, residual := true, tail := 'trec_eval'), "
        "rf_rbp([1, 0], p := 0.5, residual := true, tail := 'trec_eval'), "
        "rf_rbp([NULL, 1, 0, NULL], k := 2, p := 0.5, residual := true), "
        "rf_rbp([-1, NULL], p := 0.5, residual := true, tail := 'trectools', k := 2), "
        "rf_rbp([NULL, 1, 0, NULL], p := 0.5)"  # RBP itself: 0.5 * 0.5^1 = 0.25
    ).fetchall()[0]
    assert got == pytest.approx((0.625, 0.0, 2 / 3, 0.5, 0.25), abs=1e-12)
    # the aggregate over a unit's rows (position NULL = not retrieved)
    con.register("h", HAND)
    rows = dict(
        con.execute(
            "SELECT query, rf_agg_rbp(rank, relevance, p := 0.5, residual := true, tail := 'trec_eval') "
            "FROM h GROUP BY query"
        ).fetchall()
    )
    assert rows == pytest.approx({"q1": 0.625, "q2": 0.0, "q3": 1.0}, abs=1e-12)


def test_every_pair_gets_a_value_under_every_convention():
    # a query with nothing retrieved keeps the no_retrieved policy; every other (system, query) pair has a value
    df = pd.concat([HAND.assign(system="A"), HAND.assign(system="B").query("query != 'q3'")])
    metrics = [f"RBP(residual=True, tail='{t}')" for t in TAILS]
    res = rankframe.evaluate(df, metrics, by="system", per_query=True)
    assert len(res) == 3 * 5 and res["value"].notna().all()


# ----------------------------------------------------------------------------------- trec_eval's published values
def _published(out_file: str) -> dict[str, float]:
    values = {}
    for line in (TREC / out_file).read_text().splitlines():
        name, query, value = line.split()
        if name == "rbp_resid" and query != "all":
            values[query] = float(value)
    return values


@pytest.mark.parametrize(
    ("run", "qrels", "out"),
    [
        ("results.test", "qrels.test", "out.test.aq"),  # trec_eval -m all_trec -q
        ("results.trunc", "qrels.test", "out.test.aqc"),  # -c: 302 retrieves nothing, 0 (no_retrieved='zero')
        ("results.test", "qrels.rel_level", "out.test.aql"),  # 304 labels -1: 303's residual 0.4226
    ],
)
def test_trec_eval_published_rbp_resid(run, qrels, out):
    if not TREC.exists():
        pytest.skip(f"SHARED DATA MISSING: {TREC}")
    df = rankframe.read_trec(TREC / run, TREC / qrels)
    df["query"] = df["query"].astype(str)
    want = _published(out)
    # trec_eval's rbp_resid has p = 0.9 by default; its values are printed to 4 decimals
    for face, got in _faces(df, "RBP(p=0.9, residual=True, tail='trec_eval')", order_by="score").items():
        assert {q: round(v, 4) for q, v in got.items()} == want, face


# ------------------------------------------------------------------------------------------- the peers, at random
def _random_table(seed: int) -> pd.DataFrame:
    """Queries of random lengths (one longer than 1000), grades 0-1, unjudged items, unretrieved judgments."""
    rng = random.Random(seed)
    rows = []
    for q in range(12):
        n = 1005 if q == 0 else rng.randint(1, 15)
        for i in range(n):
            g = rng.choice([None, None, 0, 1]) if i < 40 or rng.random() < 0.05 else None
            rows.append({"query": f"q{q}", "item": f"d{i}", "rank": i + 1, "relevance": g})
        rows.append({"query": f"q{q}", "item": "unretrieved", "rank": None, "relevance": 1})
    return pd.DataFrame(rows).astype({"rank": "Int64", "relevance": "Float64"})


def _lists(df: pd.DataFrame) -> dict[str, list]:
    ranked = df.dropna(subset=["rank"]).sort_values(["query", "rank"])
    return {q: [None if pd.isna(g) else float(g) for g in grp["relevance"]] for q, grp in ranked.groupby("query")}


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("k", [None, 5])
def test_the_three_peers_reproduced(p, k):
    df = _random_table(int(p * 100) + (k or 0))
    lists = _lists(df)
    suffix = f"@{k}" if k else ""
    # trec_eval: -1 for a document outside the qrels; with k, the run cut at k (trec_eval -M k)
    want = {q: trec_eval_rbp_resid([-1 if g is None else g for g in gs][:k], p) for q, gs in lists.items()}
    _assert_faces(df, f"RBP(p={p}, residual=True, tail='trec_eval'){suffix}", want, tol=1e-9)
    # cwl_eval: NaN = unjudged, depth --max_depth = k or 1000
    want = {q: cwl_rbp_residual([np.nan if g is None else g for g in gs], p, k or 1000) for q, gs in lists.items()}
    _assert_faces(df, f"RBP(p={p}, residual=True, tail='cwl'){suffix}", want, tol=1e-9)
    # trectools: the run with descending scores, qrels = the judged rows; depth = k or 1000
    judged = df.dropna(subset=["relevance"])
    qrels = pd.DataFrame({"query": judged["query"], "docid": judged["item"], "rel": judged["relevance"].astype(float)})
    ranked = df.dropna(subset=["rank"])
    run = pd.DataFrame({"query": ranked["query"], "docid": ranked["item"], "score": -ranked["rank"].astype(float)})
    run = run.sort_values(["query", "score", "docid"], ascending=[True, False, True])
    peer = trectools_rbp_residual(run, qrels, p, k or 1000)
    ours = _faces(df, f"RBP(p={p}, residual=True, tail='trectools'){suffix}")
    hits = [q for q in lists if not math.isnan(peer.get(q, math.nan))]
    assert len(hits) >= 6  # most queries retrieve a relevant item: trectools has their value
    for face, got in ours.items():
        for q in hits:
            assert math.isclose(got[q], peer[q], rel_tol=1e-9, abs_tol=1e-12), (face, q, got[q], peer[q])
        for q in set(lists) - set(hits):  # trectools' NaN (no relevant item retrieved): (1 - p) U + p^D
            depth = k or 1000
            u = sum(p**i for i, g in enumerate(lists[q][:depth]) if g is None)
            assert math.isclose(got[q], (1 - p) * u + p**depth, rel_tol=1e-9, abs_tol=1e-12), (face, q)


def test_pytrec_eval_has_no_rbp():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    # pytrec-eval-terrier wraps trec_eval 9's measures: no rbp, no rbp_resid (trec_eval 10's), hence the port above
    assert not {"rbp", "rbp_resid"} & set(pytrec_eval.supported_measures)


# ---------------------------------------------------------------------------------------------- words and labels
def test_label_keeps_the_non_default_options_and_the_direction_turns():
    assert str(rankframe.parse("RBP(residual=True)")) == "RBP(residual=True)"
    assert str(rankframe.parse("rbp(residual=True, tail='trectools', p=0.9)@10")) == (
        "RBP(p=0.9, residual=True, tail='trectools')@10"
    )
    assert rankframe.direction("RBP(residual=True)") == 0 and rankframe.direction("RBP") == 1


@pytest.mark.parametrize(
    ("metric", "words"),
    [
        ("RBP(residual='yes')", ["residual", "True or False"]),
        ("RBP(residual=True, tail='trec')", ["tail", "'cwl', 'trec_eval', 'trectools'"]),
    ],
)
def test_bad_options_are_parameter_errors(metric, words):
    with pytest.raises(ParameterError) as e:
        rankframe.evaluate(HAND, [metric])
    assert all(w in str(e.value) for w in words)


def test_bad_options_in_sql_say_the_parameter():
    con = _con()
    con.register("h", HAND)
    for call, word in [
        ("SELECT rf_rbp([1], residual := true, tail := 'x')", "tail"),
        ("SELECT rf_agg_rbp(rank, relevance, residual := 1) FROM h", "residual"),
        ("SELECT * FROM rf_per_query('h', tail := 'trec')", "tail"),
    ]:
        with pytest.raises(duckdb.Error, match=rf"rf:param: The '{word}' parameter"):
            con.execute(call).fetchall()
    with pytest.raises(RankframeError, match="tail"):
        rankframe.evaluate(HAND, ["RBP(residual=True, tail='x')"], engine="duckdb")
