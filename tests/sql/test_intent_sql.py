"""The intent-aware family on the DuckDB engine (``sql/intent.sql`` via ``engine='duckdb'``, issue 38).

The oracles: pyndeval (ndeval's C code, ``like='ndeval'``), the hand derivations of
tests/rung1_hand/test_intent_hand.py (read from that file, each beside its derivation there), and the numpy kernels of
rankframe/intent/ (themselves held to pyndeval, ir_measures and TF-Ranking in tests/rung2_oracles/test_intent_ndeval.py
and tests/rung1_hand/test_intent_hand.py): the DuckDB engine gives the pandas engine's per-query values to 1e-12 on
seeded random tables (tied scores, ranks, @k, every preset, the no_relevant policies, queries without subtopic
judgments, segments) and the same error classes on hostile input.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from loading import load

import rankframe
from rankframe.core.errors import ParameterError, RankframeError, ValidationError

HERE = Path(__file__).resolve().parent


def _load(path: Path):
    return load(path, "rf_intent_sql")


HAND = _load(HERE.parent / "rung1_hand" / "test_intent_hand.py")

#: every measure, every preset it declares, cutoffs around the list lengths, alpha 0 and 1, beta and rel
MEASURES = [
    "alpha_DCG",
    "alpha_nDCG",
    "ERR_IA",
    "nERR_IA",
    "NRBP",
    "nNRBP",
    "P_IA",
    "AP_IA",
    "StRecall",
    "alpha_DCG@1",
    "alpha_DCG@5",
    "alpha_nDCG@1",
    "alpha_nDCG@5",
    "ERR_IA@1",
    "ERR_IA@3",
    "nERR_IA@3",
    "NRBP@2",
    "nNRBP@4",
    "P_IA@3",
    "P_IA@40",
    "AP_IA@5",
    "StRecall@2",
    "alpha_DCG(like='ndeval')@1",
    "alpha_DCG(like='ndeval')@20",
    "alpha_nDCG(like='ndeval')@5",
    "ERR_IA(like='ndeval')@1",
    "nERR_IA(like='ndeval')",
    "NRBP(like='ndeval')@10",
    "nNRBP(like='ndeval')",
    "P_IA(like='ndeval')@5",
    "AP_IA(like='ndeval')",
    "StRecall(like='ndeval')@5",
    "alpha_DCG(like='tf_ranking')@5",
    "P_IA(like='tf_ranking')@5",
    "P_IA(like='tf_ranking')",
    "alpha_nDCG(alpha=1.0)@5",
    "alpha_nDCG(alpha=0.0)",
    "nERR_IA(alpha=0.0)@7",
    "ERR_IA(alpha=0.0)@30",
    "nNRBP(alpha=0.2, beta=0.9)",
    "NRBP(alpha=0.9, beta=0.1)@3",
    "StRecall(rel=2)",
    "alpha_nDCG(rel=2)@10",
]


def random_case(seed: int, n_queries: int = 10, ties: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run (score with ties, or distinct) and a subtopic qrels; some queries are judged with nothing relevant,
    one run query has no judgments at all, one judged query is not in the run."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        items = [f"d{i:02d}" for i in rng.permutation(40)[: rng.integers(1, 25)]]
        n_sub = int(rng.integers(1, 5))
        for item in items:
            for s in range(n_sub):
                if rng.random() < 0.5:
                    qrels.append((f"q{q}", f"s{s}", item, int(rng.choice([0, 1, 2], p=[0.5, 0.35, 0.15]))))
        for item in [f"d{i:02d}" for i in rng.permutation(40)[: rng.integers(1, 30)]]:
            run.append((f"q{q}", item, float(rng.integers(0, 5)) if ties else float(rng.random())))
    run.append(("q_unjudged", "d00", 1.0))
    qrels.append(("q_not_run", "s0", "d01", 1))
    return (
        pd.DataFrame(run, columns=["query", "item", "score"]),
        pd.DataFrame(qrels, columns=["query", "subtopic", "item", "relevance"]),
    )


def both(run: pd.DataFrame, qrels: pd.DataFrame, metrics: list[str], **kw) -> pd.DataFrame:
    """The per-query values of both engines side by side (outer join: a unit on one engine only fails)."""
    keys = [c for c in run.columns if c not in ("item", "score", "rank")]
    a = rankframe.evaluate(run, metrics, qrels=qrels, per_query=True, **kw)
    b = rankframe.evaluate(run, metrics, qrels=qrels, per_query=True, engine="duckdb", **kw)
    assert list(a.columns) == list(b.columns)
    return a.merge(b, on=[*keys, "metric"], how="outer", suffixes=("_pandas", "_duckdb"), indicator=True)


def assert_same(merged: pd.DataFrame, tol: float = 1e-12) -> None:
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    x, y = merged["value_pandas"].to_numpy(), merged["value_duckdb"].to_numpy()
    same = (np.abs(x - y) <= tol) | (np.isnan(x) & np.isnan(y))
    assert same.all(), merged[~same].head(10)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", ["zero", "nan", "skip"])
def test_seeded_parity_scores(seed, policy):
    run, qrels = random_case(seed)
    merged = both(run, qrels, MEASURES, no_relevant=policy)
    assert len(merged) > 300
    assert_same(merged)


@pytest.mark.parametrize("seed", range(2))
def test_seeded_parity_ranks_and_segments(seed):
    """A rank column with gaps and unretrieved rows (NaN rank), two systems as a segment, numeric query ids."""
    run, qrels = random_case(20 + seed, ties=False)
    rng = np.random.default_rng(seed)
    runs = []
    for system in ("a", "b"):
        r = run.assign(system=system, score=rng.permutation(run["score"].to_numpy()))
        r["rank"] = 3.0 * r.groupby("query")["score"].rank(ascending=False, method="first")
        r.loc[r.sample(frac=0.1, random_state=seed).index, "rank"] = np.nan  # judged-only rows: not retrieved
        runs.append(r.drop(columns="score"))
    both_runs = pd.concat(runs, ignore_index=True)
    codes = {q: i for i, q in enumerate(sorted(set(both_runs["query"]) | set(qrels["query"])))}
    both_runs["query"] = both_runs["query"].map(codes)
    qrels = qrels.assign(query=qrels["query"].map(codes))
    keys = ["system", "query"]
    a = rankframe.evaluate(both_runs, MEASURES, qrels=qrels, by=["system"], per_query=True)
    b = rankframe.evaluate(both_runs, MEASURES, qrels=qrels, by=["system"], per_query=True, engine="duckdb")
    merged = a.merge(b, on=[*keys, "metric"], how="outer", suffixes=("_pandas", "_duckdb"), indicator=True)
    assert len(merged) > 500
    assert_same(merged)
    assert b["query"].dtype == a["query"].dtype


@pytest.mark.parametrize("policy", ["zero", "nan", "skip"])
def test_parity_edges(policy):
    """A unit with no ranked row (every rank NaN) under the no_retrieved/no_judged policies, a repeated item
    (allow_duplicates=True), numeric item ids (their text order: 10 before 9 in the ties)."""
    run, qrels = random_case(9)
    ranked = run.assign(rank=run.groupby("query").cumcount() + 1.0).drop(columns="score")
    ranked.loc[ranked["query"] == "q3", "rank"] = np.nan
    assert_same(both(ranked, qrels, MEASURES, no_retrieved=policy, no_judged=policy))
    repeated = pd.concat([run, run[run["query"] == "q1"].head(3)], ignore_index=True)
    assert_same(both(repeated, qrels, MEASURES[:12], allow_duplicates=True, no_relevant=policy))
    numeric = run.assign(item=run["item"].str[1:].astype(int))
    assert_same(both(numeric, qrels.assign(item=qrels["item"].str[1:].astype(int)), MEASURES[:24]))


def test_means_parity():
    run, qrels = random_case(7)
    a = rankframe.evaluate(run, MEASURES[:12], qrels=qrels)
    b = rankframe.evaluate(run, MEASURES[:12], qrels=qrels, engine="duckdb")
    pd.testing.assert_frame_equal(a, b, check_exact=False, atol=1e-12, rtol=0)


def test_mixed_with_other_metrics():
    """An intent-aware measure next to accuracy metrics on one call: each engine's own kernels, one table."""
    run, qrels = random_case(3)
    assert_same(both(run, qrels, ["nDCG@5", "alpha_nDCG@5", "P@3", "StRecall"]))


@pytest.mark.parametrize(("metric", "expected"), HAND.CASES, ids=[c[0] for c in HAND.CASES])
def test_hand_values(metric, expected):
    """tests/rung1_hand/test_intent_hand.py's hand derivations (written beside each case there), on DuckDB."""
    out = rankframe.evaluate(HAND.RUN, [metric], qrels=HAND.QRELS, per_query=True, engine="duckdb")
    assert out.set_index("query")["value"]["q"] == pytest.approx(expected, abs=1e-12)


def test_greedy_ideal_can_exceed_one():
    """The hand case of test_intent_hand.py: every item gains 2 first, the tie goes to the largest id d3; then d0,
    d1, d2 gain 1.5 and the tie goes to d2: the ideal's alpha-DCG@2 is 2 + 1.5/log2 3 while d0, d1 gains
    2 + 2/log2 3."""
    sets = {"d0": "AD", "d1": "BC", "d2": "BC", "d3": "CD"}
    qrels = pd.DataFrame([("q", s, i, 1) for i, v in sets.items() for s in v], columns=list(HAND.QRELS.columns))
    run = pd.DataFrame({"query": ["q", "q"], "item": ["d0", "d1"], "rank": [1, 2]})
    got = rankframe.evaluate(run, ["alpha_nDCG@2"], qrels=qrels, engine="duckdb")["value"].iloc[0]
    assert got == pytest.approx((2 + 2 / HAND.L3) / (2 + 1.5 / HAND.L3), abs=1e-12)


def test_like_ndeval_against_pyndeval():
    """pyndeval's per-query values (ndeval's C code) on a seeded case with tied scores, every measure and cutoff."""
    ndeval = _load(HERE.parent / "rung2_oracles" / "test_intent_ndeval.py")  # skips without pyndeval
    run, qrels = ndeval.random_case(3)
    asked = ndeval.labels("like='ndeval'")
    ours = rankframe.evaluate(run, list(asked), qrels=qrels, per_query=True, no_relevant="nan", engine="duckdb")
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


def test_ir_measures_published_err_ia():
    """ERR_IA@20 = 0.4659 and 0.1803 (ir_measures test/test_pyndeval.py, test_ERR_IA), via test_intent_ndeval.py."""
    ndeval = _load(HERE.parent / "rung2_oracles" / "test_intent_ndeval.py")
    run, qrels = ndeval.published()
    out = rankframe.evaluate(run, ["ERR_IA@20"], qrels=qrels, per_query=True, engine="duckdb")
    assert out["value"].round(4).tolist() == [0.4659, 0.1803]


RUN = pd.DataFrame({"query": ["q", "q", "z"], "item": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
QRELS = pd.DataFrame(
    {"query": ["q", "q", "q"], "subtopic": [1, 2, 1], "item": ["a", "a", "b"], "relevance": [1.0, np.nan, 1.0]}
)


@pytest.mark.parametrize(
    ("metric", "qrels", "error"),
    [
        ("alpha_nDCG", QRELS.drop(columns="subtopic"), ParameterError),  # no subtopic column
        ("alpha_nDCG", QRELS.assign(subtopic=[1, None, 2]), ValidationError),  # a null subtopic id
        ("alpha_nDCG", pd.concat([QRELS, QRELS.head(1)]), ValidationError),  # a repeated (query, subtopic, item)
        ("alpha_nDCG", QRELS.assign(relevance=[1.0, np.inf, 1.0]), ValidationError),  # a non-finite grade
        ("alpha_nDCG", QRELS.assign(relevance=["1", "x", "1"]), ValidationError),  # a grade that is no number
        ("alpha_nDCG(alpha=2)", QRELS, ParameterError),  # alpha outside [0, 1]
        ("NRBP(beta=-0.5)", QRELS, ParameterError),
        ("ERR_IA(like='tf_ranking')", QRELS, ParameterError),  # a preset the measure does not declare
        ("ERR_IA(alpha=0)@100000000", QRELS, ParameterError),  # the series of k terms (intent.lists.series_terms)
    ],
    ids=["no-subtopic", "null-subtopic", "repeated", "inf-grade", "text-grade", "alpha", "beta", "preset", "terms"],
)
def test_hostile_same_error_class(metric, qrels, error):
    for engine in ("pandas", "duckdb"):
        with pytest.raises(error) as caught:
            rankframe.evaluate(RUN, [metric], qrels=qrels, per_query=True, engine=engine)
        assert isinstance(caught.value, RankframeError)


def test_nan_grade_is_unjudged_on_both():
    """A NaN grade on one (subtopic, item) is not relevant there: q's S is 1, a and b cover it."""
    merged = both(RUN, QRELS, ["alpha_nDCG", "StRecall@1", "P_IA@2", "AP_IA"])
    assert_same(merged)
    assert merged.loc[(merged["query"] == "q") & (merged["metric"] == "P_IA@2"), "value_duckdb"].item() == 1.0


def test_recommender_form_stays_refused():
    with pytest.raises(ParameterError, match="pandas-only for now"):
        rankframe.evaluate(RUN, ["alpha_nDCG(like='informfully')"], engine="duckdb")


def test_caller_frames_untouched():
    run, qrels = random_case(5)
    before = run.copy(), qrels.copy()
    rankframe.evaluate(run, ["alpha_nDCG@5", "P_IA"], qrels=qrels, engine="duckdb")
    pd.testing.assert_frame_equal(run, before[0])
    pd.testing.assert_frame_equal(qrels, before[1])
