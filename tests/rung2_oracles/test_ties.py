"""ties="average" on DCG and nDCG (McSherry & Najork) against scikit-learn and by hand, on every face.

scikit-learn's ``dcg_score`` / ``ndcg_score`` (``ignore_ties=False``, their default) are the oracle: tables where
every judged item is retrieved (scikit-learn's ideal is over the items it is given, our ``ideal="judged"`` then
agrees), many tied scores, with ``k`` and ``log_base``. The faces: ``rankframe.evaluate`` on both engines, the SQL
table macros ``rf_per_query`` and the aggregates' recipe (``rf_tie_gain`` + ``rf_agg_dcg``, docs/sql.md).
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe
from rankframe import sql as rf_sql
from rankframe.core.errors import ParameterError
from rankframe.measures.names import parse

L2, L3, L4, L5 = (math.log2(i) for i in (2, 3, 4, 5))

# One query. Scores a 0.9, b 0.5, c 0.5, d 0.1; grades a 0, b 2, c 0, d 1.
# ties='first' (trec_eval: the tie is broken by item id descending): a, c, b, d -> gains 0, 0, 2, 1.
# ties='average': b and c share positions 2 and 3 and both get their mean gain (2 + 0) / 2 = 1 -> 0, 1, 1, 1.
HAND = pd.DataFrame(
    {"query": 1, "item": list("abcd"), "score": [0.9, 0.5, 0.5, 0.1], "relevance": [0.0, 2.0, 0.0, 1.0]}
)
IDCG2 = 2 / L2 + 1 / L3  # ideal gains 2, 1
HAND_CASES = [
    ("DCG", 2 / L4 + 1 / L5),  # first: 0 + 0 + 2/log2(4) + 1/log2(5)
    ("DCG(ties='average')", 1 / L3 + 1 / L4 + 1 / L5),
    ("DCG@2", 0.0),  # first: a, c
    ("DCG(ties='average')@2", 1 / L3),  # the group straddles k = 2: its mean gain 1 at position 2 only
    ("nDCG(ties='average')@2", (1 / L3) / IDCG2),  # the ideal does not depend on ties
    ("DCG(ties='average', log_base=10)@3", 1 / math.log10(3) + 1 / math.log10(4)),
    # gains={2: 6}: b's gain is 6, the tied pair's mean (6 + 0) / 2 = 3
    ("DCG(ties='average', gains={2: 6})@3", 3 / L3 + 3 / L4),
]


_CON: list = []


def _con() -> duckdb.DuckDBPyConnection:
    """One connection with the macros for the whole file (installing them takes a second)."""
    if not _CON:
        _CON.append(rf_sql.install(duckdb.connect()))
    return _CON[0].cursor()


def _sql_per_query(df: pd.DataFrame, args: str) -> pd.DataFrame:
    con = _con()
    con.register("t", df)
    return con.execute(f"SELECT * FROM rf_per_query('t', order_by := 'score', {args}) ORDER BY query").df()


@pytest.mark.parametrize(("metric", "expected"), HAND_CASES)
def test_hand_case_on_both_engines(engine, metric, expected):
    out = rankframe.evaluate(HAND, [metric], engine=engine, per_query=True)
    assert out["value"].tolist() == pytest.approx([expected], abs=1e-12)


def test_hand_case_in_the_table_macros():
    got = _sql_per_query(HAND, "k := 2, ties := 'average'")
    assert got["DCG"].tolist() == pytest.approx([1 / L3], abs=1e-12)
    assert got["nDCG"].tolist() == pytest.approx([(1 / L3) / IDCG2], abs=1e-12)
    assert got["IDCG"].tolist() == pytest.approx([IDCG2], abs=1e-12)
    assert _sql_per_query(HAND, "k := 2")["DCG"].tolist() == [0.0]  # ties := 'first' by default


# The hand table plus e (score 0.5, unjudged). Without judged_only the tie group {b, c, e} (positions 2-4) has mean
# gain 2/3; with judged_only e leaves the list and the group: {b, c} at positions 2, 3 with mean gain 1, d at 4.
WITH_UNJUDGED = pd.concat(
    [HAND, pd.DataFrame({"query": [1], "item": ["e"], "score": [0.5], "relevance": [np.nan]})], ignore_index=True
)
JUDGED_CASES = [
    ("nDCG(ties='average')", (2 / 3 * (1 / L3 + 1 / L4 + 1 / L5) + 1 / math.log2(6)) / IDCG2),
    ("nDCG(ties='average', judged_only=True)", (1 / L3 + 1 / L4 + 1 / L5) / IDCG2),
]


@pytest.mark.parametrize(("metric", "expected"), JUDGED_CASES)
def test_ties_with_judged_only(engine, metric, expected):
    out = rankframe.evaluate(WITH_UNJUDGED, [metric], engine=engine, per_query=True)
    assert out["value"].tolist() == pytest.approx([expected], abs=1e-12)
    judged_only = "judged_only" in metric
    got = _sql_per_query(WITH_UNJUDGED, f"ties := 'average', judged_only := {str(judged_only).lower()}")
    assert got["nDCG"].tolist() == pytest.approx([expected], abs=1e-12)


def test_ranks_never_tie(engine):
    # with a rank column (no score) the order is strict: 'average' is 'first' (docs/metrics.md)
    ranked = HAND.drop(columns="score").assign(rank=[1, 3, 2, 4])
    out = rankframe.evaluate(ranked, ["DCG@2", "DCG(ties='average')@2"], engine=engine, per_query=True)
    assert out["value"].tolist() == [0.0, 0.0]


def test_label_round_trips():
    m = parse("nDCG(ties='average')@10")
    assert str(m) == "nDCG(ties='average')@10" and parse(str(m)) == m
    assert str(parse("nDCG(ties='first')@10")) == "nDCG@10"  # the default is left out
    assert str(parse("DCG(ties='AVERAGE')")) == "DCG(ties='average')"


@pytest.mark.parametrize("bad", ["avg", "mean", 1, None, True])
def test_misspelled_ties_names_the_choices(engine, bad):
    with pytest.raises(ParameterError, match=r"'ties' parameter of ndcg must be one of 'first', 'average'"):
        rankframe.evaluate(HAND, [f"nDCG(ties={bad!r})@3"], engine=engine)


def test_ties_on_a_metric_without_it():
    with pytest.raises(Exception, match="parameter of AP"):
        parse("AP(ties='average')")


@pytest.mark.parametrize("bad", ["'avg'", "NULL", "1"])
def test_table_macros_reject_a_misspelled_ties(bad):
    con = _con()
    con.register("t", HAND)
    with pytest.raises(duckdb.InvalidInputException, match="'ties' parameter of rf_means must be one of"):
        con.execute(f"SELECT * FROM rf_means('t', order_by := 'score', ties := {bad})").fetchall()


# ------------------------------------------------------------------------------------------ scikit-learn parity
@st.composite
def tied_tables(draw):
    """Small tables with many tied scores; every judged item retrieved (scikit-learn's ideal is its input)."""
    n_q = draw(st.integers(1, 4))
    rows, truth = [], []
    for q in range(n_q):
        n = draw(st.integers(2, 8))
        scores = draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=n, max_size=n))
        grades = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        truth.append((np.asarray(grades, float), np.asarray(scores)))
        rows += [
            {"query": q, "item": f"d{draw(st.integers(0, 3))}{i}", "score": s, "relevance": float(g)}
            for i, (s, g) in enumerate(zip(scores, grades))
        ]
    return pd.DataFrame(rows), truth


def _sklearn(truth, k, base):
    from sklearn.metrics import dcg_score, ndcg_score

    dcg = [dcg_score([g], [s], k=k, log_base=base) for g, s in truth]
    ndcg = [ndcg_score([g], [s], k=k) for g, s in truth]  # 0 when the ideal is 0, as no_relevant='zero'
    return dcg, ndcg


def _metrics(k, base) -> list[str]:
    at = "" if k is None else f"@{k}"
    return [f"DCG(ties='average', log_base={base!r}){at}", f"nDCG(ties='average'){at}"]


def _check(out: pd.DataFrame, metrics: list[str], wants: tuple, context) -> None:
    for metric, want in zip(metrics, wants):
        got = out[out["metric"] == str(parse(metric))].sort_values("query")["value"].tolist()
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (context, metric)


@settings(max_examples=hypothesis_examples(25))
@given(case=tied_tables(), k=st.sampled_from([None, 1, 2, 3, 5]), base=st.sampled_from([2.0, 10.0, math.e]))
def test_scikit_learn_parity_hypothesis(case, k, base):
    # the numpy engine here (fast); every face below on one seeded table of many queries per (k, log_base)
    df, truth = case
    metrics = _metrics(k, base)
    _check(rankframe.evaluate(df, metrics, per_query=True), metrics, _sklearn(truth, k, base), "pandas")


def _seeded_tied_table(n_queries: int = 40, seed: int = 12):
    rng = np.random.default_rng(seed)
    frames, truth = [], []
    for q in range(n_queries):
        n = int(rng.integers(2, 12))
        scores = rng.choice([0.0, 0.5, 1.0, 1.5], n)
        grades = rng.integers(0, 4, n).astype(float)
        truth.append((grades, scores))
        frames.append(
            pd.DataFrame({"query": q, "item": [f"d{i}" for i in range(n)], "score": scores, "relevance": grades})
        )
    return pd.concat(frames, ignore_index=True), truth


@pytest.mark.parametrize(("k", "base"), [(None, 2.0), (1, 10.0), (3, math.e), (5, 2.0)])
def test_scikit_learn_parity_on_every_face(k, base):
    df, truth = _seeded_tied_table()
    want_dcg, want_ndcg = _sklearn(truth, k, base)
    metrics = _metrics(k, base)
    for engine in ("pandas", "duckdb"):
        _check(rankframe.evaluate(df, metrics, engine=engine, per_query=True), metrics, (want_dcg, want_ndcg), engine)
    sql_k = "NULL" if k is None else k
    sql = _sql_per_query(df, f"k := {sql_k}, ties := 'average', log_base := {base!r}")
    assert sql["DCG"].tolist() == pytest.approx(want_dcg, rel=1e-9, abs=1e-12)
    assert sql["nDCG"].tolist() == pytest.approx(want_ndcg, rel=1e-9, abs=1e-12)
    # the aggregates' recipe (docs/sql.md): the tie-averaged gain from rf_tie_gain, summed by rf_agg_dcg
    con = _con()
    con.register("t", df)
    recipe = con.execute(
        f"""SELECT query, rf_agg_dcg(rf_pos, tie_gain, k := {sql_k}, log_base := {base!r}) AS v
            FROM (SELECT *, rf_tie_gain(query, score, rf_g) AS tie_gain FROM rf_prepare('t', order_by := 'score'))
            GROUP BY query ORDER BY query"""
    ).fetchall()
    assert [v for _, v in recipe] == pytest.approx(want_dcg, rel=1e-9, abs=1e-12)


def test_gains_map_before_the_average_as_scikit_learn_on_mapped_grades(engine):
    from sklearn.metrics import dcg_score

    # scikit-learn has no gains=: map the grades first (0 -> 0, 1 -> 1, 2 -> 3, 3 -> 7), then tie-average
    rng = np.random.default_rng(7)
    grades = rng.integers(0, 4, 12).astype(float)
    scores = rng.choice([0.1, 0.2, 0.3], 12)
    df = pd.DataFrame({"query": 1, "item": [f"d{i}" for i in range(12)], "score": scores, "relevance": grades})
    mapped = np.array([{0: 0, 1: 1, 2: 3, 3: 7}[g] for g in grades], float)
    out = rankframe.evaluate(df, ["DCG(ties='average', gains={0: 0, 1: 1, 2: 3, 3: 7})@5"], engine=engine)
    assert out["value"].tolist() == pytest.approx([dcg_score([mapped], [scores], k=5)], rel=1e-12)
