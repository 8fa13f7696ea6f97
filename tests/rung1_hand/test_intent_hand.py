"""Intent-aware measures on hand-derived cases: the default convention, like='ndeval''s quirks, the policies, the
other metrics on a subtopic qrels, and the errors of the faces that do not serve the family (docs/diversity.md)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import rankframe
from rankframe.core.errors import ParameterError, RankframeError, ValidationError
from rankframe.measures.arguments import parse_metrics

L3 = math.log2(3)  # the discount of position 2 is 1 / log2(3)

# query q: subtopics A and B. d1 -> A (judged 0 on B); d2 -> A and B; d3 -> B (grade 2); d4 judged 0 on A; d5 unjudged.
# query z: judged, but nothing relevant (d9 has grade 0 on A).
QRELS = pd.DataFrame(
    [
        ("q", "A", "d1", 1),
        ("q", "B", "d1", 0),
        ("q", "A", "d2", 1),
        ("q", "B", "d2", 1),
        ("q", "B", "d3", 2),
        ("q", "A", "d4", 0),
        ("z", "A", "d9", 0),
    ],
    columns=["query", "subtopic", "item", "relevance"],
)
# d2 and d3 tie at 0.5: the default order puts d3 first (trec_eval: item id descending), ndeval d2 (ascending)
RUN = pd.DataFrame(
    {"query": ["q"] * 4 + ["z"], "item": ["d1", "d2", "d3", "d5", "d9"], "score": [0.9, 0.5, 0.5, 0.1, 1.0]}
)


def value(metric: str, run: pd.DataFrame = RUN, **kw) -> float:
    out = rankframe.evaluate(run, [metric], qrels=QRELS, per_query=True, **kw).set_index("query")["value"]
    return float(out["q"])


# Default order d1, d3, d2, d5 with alpha = 0.5 and S = 2 subtopics:
#   d1: A new -> 1;  d3: B new -> 1;  d2: A seen once (0.5) + B seen once (0.5) -> 1;  d5: 0.
# Greedy ideal: step 1 gains d1 1, d2 2, d3 1 -> d2 (2); then d1 0.5, d3 0.5 tie -> the larger id d3 (0.5); d1 (0.5).
# ndeval's order d1, d2, d3: d1 1; d2 A 0.5 + B 1 = 1.5; d3 B 0.5.
CASES = [
    # alpha-DCG@3 = (1 + 1/log2 3 + 1/2) / (2 (1 + 0.5/log2 3 + 0.25/2)), the "ideal ideal" at depth 3
    ("alpha_DCG@3", (1 + 1 / L3 + 0.5) / (2 * (1 + 0.5 / L3 + 0.125))),
    # @1 normalised in the default convention: 1 / (2 * 1)
    ("alpha_DCG@1", 0.5),
    ("alpha_DCG(like='ndeval')@1", 1.0),  # ndeval does not normalise its first position
    ("ERR_IA(like='ndeval')@1", 1.0),
    # alpha-nDCG@3 = (1 + 1/log2 3 + 1/2) / (2 + 0.5/log2 3 + 0.5/2)
    ("alpha_nDCG@3", (1 + 1 / L3 + 0.5) / (2 + 0.5 / L3 + 0.25)),
    # ndeval's order: (1 + 1.5/log2 3 + 0.5/2) / the same ideal
    ("alpha_nDCG(like='ndeval')@3", (1 + 1.5 / L3 + 0.25) / (2 + 0.5 / L3 + 0.25)),
    # ERR-IA@3 = (1/1 + 1/2 + 1/3) / (2 (1 + 0.5/2 + 0.25/3)) = (11/6) / (8/3) = 11/16
    ("ERR_IA@3", 11 / 16),
    # nERR-IA@3 = (11/6) / (2 + 0.5/2 + 0.5/3) = (11/6) / (29/12) = 22/29
    ("nERR_IA@3", 22 / 29),
    # P-IA@3: pairs (d1,A) (d3,B) (d2,A) (d2,B) = 4 over 3 positions x 2 subtopics
    ("P_IA@3", 4 / 6),
    ("P_IA(rel=2)@3", 1 / 3),  # rel=2: only (d3, B); S = 1
    ("P_IA@10", 4 / 20),  # k beyond the list: still / (k S), as ndeval and trec_eval's P@k
    ("StRecall@1", 1 / 2),
    ("StRecall@2", 1.0),
    # AP-IA: A's relevant items at 1 (1/1) and 3 (2/3) of 2 -> 5/6; B's at 2 (1/2) and 3 (2/3) of 2 -> 7/12
    ("AP_IA", (5 / 6 + 7 / 12) / 2),
    # NRBP = (1 - (1 - 0.5) 0.5) / 2 * (1 + 1 * 0.5 + 1 * 0.25) = 0.375 * 1.75
    ("NRBP", 0.375 * 1.75),
    # nNRBP = 1.75 / (2 + 0.5 * 0.5 + 0.5 * 0.25)
    ("nNRBP", 1.75 / 2.375),
    # alpha = 1: a repeated subtopic gains nothing: d1 1, d3 1, d2 0 -> (1 + 1/log2 3) / (2 + 0 + 0)... the greedy
    # ideal d2 (2), then d3 and d1 gain 0: its alpha-DCG@3 is 2
    ("alpha_nDCG(alpha=1.0)@3", (1 + 1 / L3) / 2),
]


@pytest.mark.parametrize(("metric", "expected"), CASES, ids=[c[0] for c in CASES])
def test_hand_values(metric, expected):
    assert value(metric) == pytest.approx(expected, abs=1e-12)


def test_rank_column_wins_over_ndeval_ties():
    """An explicit rank column is the order under like='ndeval' too (only tied scores change)."""
    ranked = RUN.assign(rank=[1, 3, 2, 4, 1]).drop(columns="score")  # d1, d3, d2: the default's order
    assert value("alpha_nDCG(like='ndeval')@3", ranked) == pytest.approx(value("alpha_nDCG@3"), abs=1e-12)


def test_greedy_ideal_can_exceed_one():
    """The greedy ideal is not the best list: alpha-nDCG above 1 (docs/diversity.md).

    d0 {A, D}, d1 {B, C}, d2 {B, C}, d3 {C, D}: every item gains 2 first, the tie goes to d3; then d0, d1 and d2 gain
    1 + 0.5 and the tie goes to d2: the ideal's alpha-DCG@2 is 2 + 1.5/log2 3, while d0, d1 gains 2 + 2/log2 3.
    """
    sets = {"d0": "AD", "d1": "BC", "d2": "BC", "d3": "CD"}
    qrels = pd.DataFrame([("q", s, i, 1) for i, v in sets.items() for s in v], columns=list(QRELS.columns))
    run = pd.DataFrame({"query": ["q", "q"], "item": ["d0", "d1"], "rank": [1, 2]})
    got = rankframe.evaluate(run, ["alpha_nDCG@2"], qrels=qrels)["value"].iloc[0]
    assert got == pytest.approx((2 + 2 / L3) / (2 + 1.5 / L3), abs=1e-12)
    assert got > 1


@pytest.mark.parametrize(("policy", "expected"), [("zero", [0.0]), ("nan", [math.nan]), ("skip", [])])
def test_no_relevant_policy(policy, expected):
    """Query z has judgments but no item at or above rel: no_relevant= decides, for every measure and preset."""
    for metric in ("alpha_nDCG@3", "nNRBP(like='ndeval')", "StRecall@5", "AP_IA"):
        out = rankframe.evaluate(RUN, [metric], qrels=QRELS, per_query=True, no_relevant=policy)
        got = out.loc[out["query"] == "z", "value"].tolist()
        assert (got == expected) or (policy == "nan" and math.isnan(got[0])), (metric, got)


def test_other_metrics_read_the_largest_grade():
    """On a subtopic qrels the other metrics see each item once, with its largest grade: d1 1 (0 on B), d2 1, d3 2.

    nDCG@3 of d1, d3, d2 = (1 + 2/log2 3 + 1/2) / (2 + 1/log2 3 + 1/2); P@2 = 2/2; NumRel = 3 (not 4 pairs).
    """
    out = rankframe.evaluate(RUN, ["nDCG@3", "P@2", "NumRel", "alpha_nDCG@3"], qrels=QRELS, per_query=True)
    got = out[out["query"] == "q"].set_index("metric")["value"]
    assert got["nDCG@3"] == pytest.approx((1 + 2 / L3 + 0.5) / (2 + 1 / L3 + 0.5), abs=1e-12)
    assert got["P@2"] == 1.0 and got["NumRel"] == 3
    assert list(got.index) == ["nDCG@3", "P@2", "NumRel", "alpha_nDCG@3"]  # the order asked


def test_subtopic_column_renamed():
    qrels = QRELS.rename(columns={"subtopic": "intent", "relevance": "grade"})
    for names in (
        {"subtopic": "intent", "relevance": "grade"},
        rankframe.Columns(subtopic="intent", relevance="grade"),
    ):
        out = rankframe.evaluate(RUN, ["alpha_nDCG@3"], qrels=qrels, qrels_columns=names, per_query=True)
        assert out.set_index("query")["value"]["q"] == pytest.approx(value("alpha_nDCG@3"), abs=1e-12)


def test_accessor():
    out = RUN.rank_metrics.evaluate(["P_IA@3"], qrels=QRELS, per_query=True)
    assert out.set_index("query")["value"]["q"] == pytest.approx(4 / 6)


def test_labels_keep_the_preset():
    out = rankframe.evaluate(RUN, ["alpha_nDCG@3", "alpha_nDCG(like='ndeval')@3"], qrels=QRELS)
    assert out["metric"].tolist() == ["alpha_nDCG@3", "alpha_nDCG(like='ndeval')@3"]


def test_without_subtopics_is_an_error():
    flat = QRELS.drop(columns="subtopic").drop_duplicates(["query", "item"])
    with pytest.raises(ParameterError, match=r"alpha_nDCG@3 read subtopic judgments.*no column 'subtopic'"):
        rankframe.evaluate(RUN, ["alpha_nDCG@3"], qrels=flat)
    with pytest.raises(ParameterError, match="no qrels= was given"):
        rankframe.evaluate(RUN.assign(relevance=1), ["ERR_IA@5"])


def test_bad_subtopic_qrels():
    repeated = pd.concat([QRELS, QRELS.iloc[:1]], ignore_index=True)
    with pytest.raises(ValidationError, match=r"one judgment per \(query, subtopic, item\)"):
        rankframe.evaluate(RUN, ["alpha_nDCG@3"], qrels=repeated)
    null = QRELS.astype({"subtopic": object}).copy()
    null.loc[0, "subtopic"] = None
    with pytest.raises(ValidationError, match="a subtopic id on every row"):
        rankframe.evaluate(RUN, ["P@2"], qrels=null)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_text_grade_is_an_error_a_null_grade_unjudged(engine):
    """A grade that does not parse as a number is the "relevance must be numeric" error naming the column and the
    row (never an unjudged row); a NULL grade is unjudged: d2's B judgment unjudged leaves d2 relevant to A alone."""
    text = QRELS.astype({"relevance": object})
    text.loc[3, "relevance"] = "one"  # (q, B, d2)
    with pytest.raises(ValidationError, match=r"relevance must be numeric \(null = unjudged\)") as info:
        rankframe.evaluate(RUN, ["alpha_nDCG@3", "P@2"], qrels=text, engine=engine)
    (failure,) = info.value.failures
    assert failure["column"] == "relevance" and "'one'" in failure["rule"]
    assert failure["examples"]["relevance"].tolist() == ["one"]
    null = QRELS.astype({"relevance": float})
    null.loc[3, "relevance"] = float("nan")
    # StRecall@3: d1 (A), d3 (B) -> both of S = 2 subtopics; P_IA@3: pairs (d1, A), (d3, B), (d2, A) = 3 / (3 * 2)
    out = rankframe.evaluate(RUN, ["StRecall@3", "P_IA@3"], qrels=null, per_query=True, engine=engine)
    assert out[out["query"] == "q"]["value"].tolist() == pytest.approx([1.0, 0.5])


def test_bad_parameters():
    with pytest.raises(ParameterError, match="'alpha' parameter of alpha_ndcg"):
        rankframe.evaluate(RUN, ["alpha_nDCG(alpha=1.5)@3"], qrels=QRELS)
    with pytest.raises(RankframeError, match="parameter of P_IA"):
        rankframe.evaluate(RUN, ["P_IA(alpha=0.2)@3"], qrels=QRELS)  # alpha does not apply to P-IA


@pytest.mark.parametrize(
    "call",
    [
        # the recommender form has no SQL kernel (the qrels form is served: tests/sql/test_intent_sql.py)
        lambda: rankframe.evaluate(RUN, ["alpha_nDCG(like='informfully')@3"], engine="duckdb"),
        # render writes the qrels form (tests/sql/test_sql_portable_intent.py), not the recommender one
        lambda: rankframe.sql.render(["alpha_nDCG(like='informfully')@3"]),
        # anova serves the qrels form (tests/rung4_faces/test_spark_intent.py), not the recommender one
        lambda: rankframe.anova(RUN.assign(system="a"), ["alpha_nDCG(like='informfully')@3"]),
        # what rankframe.spark.evaluate asks first: it serves the qrels form, not the recommender one
        lambda: parse_metrics(["alpha_nDCG(like='informfully')@3"], face="spark"),
    ],
    ids=["duckdb-engine", "sql-render", "anova", "spark"],
)
def test_faces_without_the_family_say_so(call):
    with pytest.raises(ParameterError, match=r"alpha_nDCG.*@3: the intent-aware diversity measures .* pandas-only"):
        call()


def test_polars_namespace():
    pl = pytest.importorskip("polars")
    out = pl.from_pandas(RUN).rank_metrics.evaluate(["P_IA@3"], qrels=pl.from_pandas(QRELS), per_query=True)
    assert out.filter(pl.col("query") == "q")["value"].to_list() == pytest.approx([4 / 6])
