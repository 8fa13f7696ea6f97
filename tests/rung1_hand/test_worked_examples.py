"""The worked examples of the issue, with the values stated there (checked by hand in the comments).

Each test runs on every engine (the ``engine`` fixture). Values given to 5 decimals are compared with
``abs=5e-6``; values given to 4 decimals with ``abs=5e-5``.
"""

from __future__ import annotations

import pandas as pd
import pytest

import rankframe

A5 = 5e-6
A4 = 5e-5


def ranked(grades_by_query: dict, unretrieved: dict | None = None) -> pd.DataFrame:
    """Long table from grades in rank order (ranks 1..n), plus judged-but-unretrieved grades."""
    rows = []
    for q, grades in grades_by_query.items():
        for i, g in enumerate(grades):
            rows.append({"query": q, "item": f"{q}-d{i}", "rank": i + 1, "relevance": g})
        for j, g in enumerate((unretrieved or {}).get(q, [])):
            rows.append({"query": q, "item": f"{q}-u{j}", "rank": None, "relevance": g})
    df = pd.DataFrame(rows)
    df["rank"] = df["rank"].astype("Int64")
    return df


def means(df, metrics, engine, **kw) -> dict:
    res = rankframe.evaluate(df, metrics, engine=engine, **kw)
    return dict(zip(res["metric"], res["value"]))


def per_query(df, metric, engine, **kw) -> dict:
    res = rankframe.evaluate(df, [metric], engine=engine, per_query=True, **kw)
    return dict(zip(res["query"], res["value"]))


RNRRNNRNNN = [1, 0, 1, 1, 0, 0, 1, 0, 0, 0]


def test_precision_and_ap_of_one_list(engine):
    # hits at 1, 3, 4, 7; 4 relevant. P@3 = 2/3, P@5 = 3/5, P@10 = 4/10
    # AP = (1/1 + 2/3 + 3/4 + 4/7) / 4 = 0.747024
    got = means(ranked({"q": RNRRNNRNNN}), ["P@1", "P@3", "P@5", "P@10", "AP"], engine)
    assert got["P@1"] == pytest.approx(1.0, abs=A4)
    assert got["P@3"] == pytest.approx(0.6667, abs=A4)
    assert got["P@5"] == pytest.approx(0.6, abs=A4)
    assert got["P@10"] == pytest.approx(0.4, abs=A4)
    assert got["AP"] == pytest.approx(0.74702, abs=A5)


def test_map_over_three_queries(engine):
    # [0,1,0,1,0], 2 relevant: (1/2 + 2/4) / 2 = 0.5; [1,1,1,0,1], 4 relevant: (1 + 1 + 1 + 4/5) / 4 = 0.95
    # MAP = (0.747024 + 0.5 + 0.95) / 3 = 0.732341
    df = ranked({"a": RNRRNNRNNN, "b": [0, 1, 0, 1, 0], "c": [1, 1, 1, 0, 1]})
    pq = per_query(df, "AP", engine)
    assert pq["a"] == pytest.approx(0.74702, abs=A5)
    assert pq["b"] == pytest.approx(0.5, abs=A5)
    assert pq["c"] == pytest.approx(0.95, abs=A5)
    assert means(df, ["MAP"], engine)["AP"] == pytest.approx(0.73234, abs=A5)


def test_cg_dcg_idcg_ndcg_of_a_graded_list(engine):
    # gains [3,0,2,2,1], linear: DCG@3 = 3 + 0 + 2/log2(4) = 4; DCG@5 = 4 + 2/log2(5) + 1/log2(6) = 5.248206
    # a 6th judged item, grade 3, not retrieved: ideal [3,3,2,2,1,0]
    # IDCG@3 = 3 + 3/log2(3) + 2/2 = 5.892789; IDCG@5 = 5.892789 + 0.861353 + 0.386853 = 7.140995
    # nDCG@3 = 4 / 5.892789 = 0.678796; nDCG@5 = 5.248206 / 7.140995 = 0.734941
    df = ranked({"q": [3, 0, 2, 2, 1]}, unretrieved={"q": [3]})
    got = means(
        df,
        ["CG@1", "CG@3", "CG@5", "DCG@1", "DCG@3", "DCG@5", "IDCG@1", "IDCG@3", "IDCG@5", "nDCG@3", "nDCG@5"],
        engine,
    )
    assert [got["CG@1"], got["CG@3"], got["CG@5"]] == pytest.approx([3, 5, 8], abs=A5)
    assert [got["DCG@1"], got["DCG@3"], got["DCG@5"]] == pytest.approx([3, 4.0, 5.24821], abs=A5)
    assert [got["IDCG@1"], got["IDCG@3"], got["IDCG@5"]] == pytest.approx([3, 5.89279, 7.14100], abs=A5)
    assert got["nDCG@3"] == pytest.approx(0.67880, abs=A5)
    assert got["nDCG@5"] == pytest.approx(0.73494, abs=A5)


def test_ndcg_from_scores_scikit_learn_convention(engine):
    # score order A(.9) F(.8) C(.7) D(.6) E(.3) B(.1): grades 3,3,2,2,1,0 — the ideal order, so nDCG@5 = 1
    df = pd.DataFrame(
        {"query": "q", "item": list("ABCDEF"), "score": [0.9, 0.1, 0.7, 0.6, 0.3, 0.8], "relevance": [3, 0, 2, 2, 1, 3]}
    )
    got = means(df, ["nDCG(ideal='retrieved')@5", "nDCG@5"], engine)
    assert got["nDCG(ideal='retrieved')@5"] == pytest.approx(1.0, abs=A5)
    assert got["nDCG@5"] == pytest.approx(1.0, abs=A5)


def test_dcg_and_ndcg_with_the_ideal_from_the_list(engine):
    # DCG = 3 + 2/log2 3 + 3/2 + 0 + 1/log2 6 + 2/log2 7 + 3/3 + 2/log2 9 = 8.492057
    # ideal [3,3,3,2,2,2,1,0]: 3 + 1.892789 + 1.5 + 0.861353 + 0.773706 + 0.712414 + 0.333333 = 9.073595
    # nDCG = 8.492057 / 9.073595 = 0.935909
    df = ranked({"q": [3, 2, 3, 0, 1, 2, 3, 2]})
    got = means(df, ["DCG", "nDCG(ideal='retrieved')@10", "nDCG@10"], engine)
    assert got["DCG"] == pytest.approx(8.49206, abs=A5)
    assert got["nDCG(ideal='retrieved')@10"] == pytest.approx(0.93591, abs=A5)
    assert got["nDCG@10"] == pytest.approx(0.93591, abs=A5)  # every item is retrieved: same ideal


def test_ap_at_10_capped_denominator(engine):
    # 3 relevant, hits at 1, 3, 5: (1 + 2/3 + 3/5) / min(3, 10) = 0.755556
    df = ranked({"u": [1, 0, 1, 0, 1, 0, 0, 0, 0, 0]})
    assert means(df, ["AP(denominator='min_k')@10"], engine)["AP(denominator='min_k')@10"] == pytest.approx(
        0.75556, abs=A5
    )


def _three_queries() -> pd.DataFrame:
    relevant = {1: {11, 1, 7, 17, 21}, 2: {4, 16, 1}, 3: {26, 10, 22, 8}}
    lists = {
        1: [11, 1, 17, 7, 21, 8, 0, 28, 9, 20],
        2: [16, 1, 6, 18, 3, 4, 25, 19, 8, 14],
        3: [24, 10, 26, 2, 8, 28, 4, 23, 13, 21],
    }
    rows = []
    for q, items in lists.items():
        for i, it in enumerate(items):
            rows.append({"query": q, "item": it, "rank": i + 1, "relevance": int(it in relevant[q])})
        for it in sorted(relevant[q] - set(items)):  # item 22 of query 3: relevant, not retrieved
            rows.append({"query": q, "item": it, "rank": None, "relevance": 1})
    df = pd.DataFrame(rows)
    df["rank"] = df["rank"].astype("Int64")
    return df


def test_three_queries_recommender_metrics(engine):
    # hits: q1 at 1-5 (5 rel), q2 at 1, 2, 6 (3 rel), q3 at 2, 3, 5 (4 rel, item 22 unretrieved)
    # capped recall @5: (5/5 + 2/3 + 3/4)/3 = 0.805556; @10: (1 + 1 + 3/4)/3 = 0.916667
    # AP with the "retrieved" denominator @5: (1 + 1 + (1/2 + 2/3 + 3/5)/3)/3 = 0.862963
    #   @10: (1 + (1 + 1 + 3/6)/3 + 0.588889)/3 = 0.807407
    # @1 every metric is (1 + 1 + 0)/3 = 0.666667 (q1 and q2 have a hit at rank 1, q3 does not)
    # RR@5 = RR@10 = (1 + 1 + 1/2)/3 = 0.833333
    # P@5 = (5/5 + 2/5 + 3/5)/3 = 0.666667; P@10 = (5/10 + 3/10 + 3/10)/3 = 0.366667
    # nDCG (binary gains, ideal from all judged): q1 = 1 (hits fill the top 5)
    #   q2 @5: (1 + 1/log2 3) / (1 + 1/log2 3 + 1/2) = 1.630930 / 2.130930 = 0.765361
    #   q2 @10: (1.630930 + 1/log2 7) / 2.130930 = 1.987137 / 2.130930 = 0.932520
    #   q3 @5 = @10: (1/log2 3 + 1/2 + 1/log2 6) / (1 + 1/log2 3 + 1/2 + 1/log2 5) = 1.517782 / 2.561606 = 0.592512
    #   nDCG@5 = (1 + 0.765361 + 0.592512)/3 = 0.785958; nDCG@10 = (1 + 0.932520 + 0.592512)/3 = 0.841677
    df = _three_queries()
    expected = {
        "R(denominator='min_k')": [0.66667, 0.80556, 0.91667],
        "RR": [0.66667, 0.83333, 0.83333],
        "P": [0.66667, 0.66667, 0.36667],
        "AP(denominator='retrieved')": [0.66667, 0.86296, 0.80741],
        "nDCG": [0.66667, 0.78596, 0.84168],
    }
    metrics = [f"{m}@{k}" for m in expected for k in (1, 5, 10)]
    got = means(df, metrics, engine)
    for m, values in expected.items():
        assert [got[f"{m}@{k}"] for k in (1, 5, 10)] == pytest.approx(values, abs=A5), m


def test_ap_with_one_relevant_item(engine):
    # the relevant item 1 at positions 2, 3, 4, 5: AP@5 = 1/2, 1/3, 1/4, 1/5
    lists = {"a": [2, 1, 3, 4, 5], "b": [3, 2, 1, 4, 5], "c": [4, 2, 3, 1, 5], "d": [4, 2, 3, 5, 1]}
    df = pd.DataFrame(
        [
            {"query": q, "item": it, "rank": i + 1, "relevance": int(it == 1)}
            for q, items in lists.items()
            for i, it in enumerate(items)
        ]
    )
    pq = per_query(df, "AP@5", engine)
    assert [pq[q] for q in "abcd"] == pytest.approx([0.5, 0.33333, 0.25, 0.2], abs=A5)


def test_duplicate_items(engine):
    # list [1,1,3,4,1] against {1}: hits at 1, 2, 5
    df = pd.DataFrame({"query": "q", "item": [1, 1, 3, 4, 1], "rank": [1, 2, 3, 4, 5], "relevance": [1, 1, 0, 0, 1]})
    with pytest.raises(rankframe.ValidationError):
        rankframe.evaluate(df, ["P@5"], engine=engine)
    # (1/1 + 2/2 + 3/5) / 3 = 0.866667; P@5 = 3/5
    got = means(df, ["AP(denominator='retrieved')@5", "P@5"], engine, allow_duplicates=True)
    assert got["AP(denominator='retrieved')@5"] == pytest.approx(0.86667, abs=A5)
    assert got["P@5"] == pytest.approx(0.6, abs=A5)


@pytest.mark.parametrize(
    ("grades", "metric", "expected"),
    [
        # Pr(g) = (2^g - 1) / 2^max_grade; ERR = sum_i (1/i) Pr_i prod_{j<i} (1 - Pr_j)
        # [2,0,1], max 2: Pr = 3/4, 0, 1/4 -> 3/4 + (1/3)(1/4)(1/4) = 0.770833
        ([2, 0, 1], "ERR(max_grade=2)", 0.770833),
        # [4,4], max 4: Pr = 15/16 -> 15/16 + (1/2)(1/16)(15/16) = 0.966797 (495/512)
        ([4, 4], "ERR", 495 / 512),
        # [0,3,1], max 3: Pr = 0, 7/8, 1/8 -> (1/2)(7/8) + (1/3)(1/8)(1/8) = 85/192 = 0.442708
        ([0, 3, 1], "ERR(max_grade=3)", 85 / 192),
        # [1,1,1], max 1, cut at 2: Pr = 1/2 -> 1/2 + (1/2)(1/2)(1/2) = 0.625
        ([1, 1, 1], "ERR(max_grade=1)@2", 0.625),
        # ... and the whole list: 0.625 + (1/3)(1/2)(1/4) = 2/3
        ([1, 1, 1], "ERR(max_grade=1)", 2 / 3),
        # default max_grade 4 (gdeval): one grade-1 item -> 1/16
        ([1], "ERR", 0.0625),
    ],
)
def test_err_hand_derived(engine, grades, metric, expected):
    got = means(ranked({"q": grades}), [metric], engine)
    assert got[str(rankframe.parse(metric))] == pytest.approx(expected, abs=A5)
