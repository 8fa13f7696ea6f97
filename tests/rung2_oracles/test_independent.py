"""Metrics trec_eval does not have, against other independent implementations and hand derivations:
exponential-gain nDCG against ranx ``ndcg_burges``, ERR against gdeval (through ir_measures ``ERR@k``, whose
maximum grade is fixed at 4), and hand-derived ERR / nERR values. Every test runs on every engine."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
import strategies as S
from conftest import hypothesis_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe

SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
K_VALUES = [None, 1, 3, 5, 10]
# rank-given tables (distinct ranks -> distinct scores -1 * rank: ranx breaks ties arbitrarily), grades 0..4,
# every query judged (ranx and gdeval leave unjudged queries out)
TABLES = S.tables(
    mode="rank", segments=False, grades=st.integers(0, 4), kinds=["normal", "normal", "normal", "nothing_relevant"]
)


def per_query(df, metrics, engine, **kw) -> dict:
    res = rankframe.evaluate(df, metrics, engine=engine, per_query=True, **kw)
    out: dict = {}
    for m, q, v in zip(res["metric"], res["query"], res["value"]):
        out.setdefault(m, {})[str(q)] = v
    return out


@pytest.mark.oracle  # ranx (numba): compiled once per run, on one worker (tests/tiers.py)
def test_exponential_ndcg_equals_ranx_ndcg_burges(engine):
    from ranx import Qrels, Run, evaluate

    ours = [f"nDCG(gain='exponential')@{k}" if k else "nDCG(gain='exponential')" for k in K_VALUES]
    theirs = [f"ndcg_burges@{k}" if k else "ndcg_burges" for k in K_VALUES]
    linear = [f"nDCG@{k}" if k else "nDCG" for k in K_VALUES]
    theirs_linear = [f"ndcg@{k}" if k else "ndcg" for k in K_VALUES]

    @settings(max_examples=hypothesis_examples(30 if engine == "pandas" else 8), suppress_health_check=SUPPRESS)
    @given(df=TABLES)
    def body(df):
        qrels, run = S.to_trec(df)
        common = set(run) & set(qrels)  # judged and retrieved; the policies for the others are tested elsewhere
        if not common:
            return
        r = Run({q: run[q] for q in common})
        evaluate(Qrels({q: qrels[q] for q in common}), r, theirs + theirs_linear, return_mean=False)
        got = per_query(df, ours + linear, engine)
        for mine, other in [*zip(ours, theirs), *zip(linear, theirs_linear)]:
            label = str(rankframe.parse(mine))
            for q, v in r.scores[other].items():
                assert got[label][q] == pytest.approx(float(v), abs=1e-9), (label, q)

    body()


def _gdeval_available() -> bool:
    if shutil.which("perl") is None:
        return False
    try:
        import ir_measures

        list(
            ir_measures.iter_calc(
                [ir_measures.ERR @ 5], [ir_measures.Qrel("1", "d", 1)], [ir_measures.ScoredDoc("1", "d", 1.0)]
            )
        )
    except Exception:  # noqa: BLE001
        return False
    return True


@pytest.mark.slow  # gdeval (perl) through ir_measures, per example
@pytest.mark.skipif(not _gdeval_available(), reason="gdeval (perl, via ir_measures ERR@k) does not run here")
def test_err_equals_gdeval(engine):
    import ir_measures

    ks = [1, 3, 5, 10, 20]

    # gdeval needs integer topic ids and prints 5 decimals; its maximum grade is 4 (rankframe's default)
    @settings(max_examples=hypothesis_examples(25 if engine == "pandas" else 6), suppress_health_check=SUPPRESS)
    @given(
        df=S.tables(
            mode="rank",
            segments=False,
            id_kind="int",
            grades=st.integers(0, 4),
            kinds=["normal", "normal", "nothing_relevant"],
        )
    )
    def body(df):
        qrels, run = S.to_trec(df)
        q = [ir_measures.Qrel(qid, doc, rel) for qid, docs in qrels.items() for doc, rel in docs.items()]
        r = [ir_measures.ScoredDoc(qid, doc, s) for qid, docs in run.items() for doc, s in docs.items()]
        if not q or not r:
            return
        got = per_query(df, [f"ERR@{k}" for k in ks], engine)
        n = 0
        for m in ir_measures.iter_calc([ir_measures.ERR @ k for k in ks], q, r):
            if m.query_id not in run:  # gdeval reports judged queries with nothing retrieved too
                continue
            assert got[f"ERR@{m.measure['cutoff']}"][m.query_id] == pytest.approx(m.value, abs=5e-6 + 1e-12), m
            n += 1
        assert n == len([x for x in run if x in qrels]) * len(ks)

    body()


def ranked(grades, unretrieved=()) -> pd.DataFrame:
    rows = [{"query": "q", "item": f"d{i}", "rank": i + 1, "relevance": g} for i, g in enumerate(grades)]
    rows += [{"query": "q", "item": f"u{j}", "rank": None, "relevance": g} for j, g in enumerate(unretrieved)]
    df = pd.DataFrame(rows)
    df["rank"] = df["rank"].astype("Int64")
    df["relevance"] = df["relevance"].astype("float64")
    return df


@pytest.mark.parametrize(
    ("grades", "unretrieved", "metric", "expected"),
    [
        # Pr(g) = (2^g - 1) / 2^max_grade; ERR = sum_i (1/i) Pr_i prod_{j<i} (1 - Pr_j)
        # unjudged and negative grades give Pr = 0: [None, -1, 2], max 2 -> (1/3)(3/4) = 0.25
        ([None, -1, 2], [], "ERR(max_grade=2)", 0.25),
        # a cutoff beyond the list: [3], max 3 -> 7/8
        ([3], [], "ERR(max_grade=3)@10", 7 / 8),
        # unretrieved judgments do not change ERR: [1] with an unretrieved 2, max 2 -> 1/4
        ([1], [2], "ERR(max_grade=2)", 0.25),
        # grades 0..4 with gdeval's max 4: [3, 4] -> 7/16 + (1/2)(9/16)(15/16) = 0.701172 (359/512)
        ([3, 4], [], "ERR", 359 / 512),
        # nERR: [0,3,1], max 3 -> ERR 85/192; ideal [3,1,0] -> 7/8 + (1/2)(1/8)(1/8) = 113/128;
        # nERR = (85/192) / (113/128) = 0.501475
        ([0, 3, 1], [], "nERR(max_grade=3)", (85 / 192) / (113 / 128)),
        # retrieved [1], unretrieved 2, max 2: ERR 1/4; judged ideal [2,1] -> 3/4 + (1/2)(1/4)(1/4) = 25/32;
        # nERR = (1/4) / (25/32) = 0.32
        ([1], [2], "nERR(max_grade=2)", 0.32),
        # ... with the ideal from the retrieved items only: [1] is its own ideal -> 1
        ([1], [2], "nERR(max_grade=2, ideal='retrieved')", 1.0),
        # cut at 1: [1, 2], max 2 -> ERR@1 = 1/4, ideal@1 = 3/4 -> 1/3
        ([1, 2], [], "nERR(max_grade=2)@1", 1 / 3),
        # a perfect ordering -> 1
        ([4, 2, 1, 0], [], "nERR", 1.0),
    ],
)
def test_err_and_nerr_hand_derived(engine, grades, unretrieved, metric, expected):
    res = rankframe.evaluate(ranked(grades, unretrieved), [metric], engine=engine)
    assert res["value"].iloc[0] == pytest.approx(expected, abs=1e-12), metric
