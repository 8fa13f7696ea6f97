"""Metric-name grammar: parse, canonical print, round trip, errors; registry vs docs."""

from __future__ import annotations

import pytest

import rankframe
from rankframe.measures.names import parse
from rankframe.measures.registry import METRICS


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("map@10", "AP@10"),
        ("MAP@10", "AP@10"),
        ("AP@10", "AP@10"),
        ("nDCG@10", "nDCG@10"),
        ("ndcg@10", "nDCG@10"),
        ("P@5", "P@5"),
        ("precision@5", "P@5"),
        ("R@100", "R@100"),
        ("recall@100", "R@100"),
        ("RR", "RR"),
        ("mrr@10", "RR@10"),
        ("Rprec", "Rprec"),
        ("R-precision", "Rprec"),
        ("Bpref", "Bpref"),
        ("Success@10", "Success@10"),
        ("hit_rate@10", "Success@10"),
        ("Judged@10", "Judged@10"),
        ("ERR@20", "ERR@20"),
        ("P(rel=2)@10", "P(rel=2)@10"),
        ("AP(rel=2)@100", "AP(rel=2)@100"),
        ("AP(rel=1)@100", "AP@100"),
        ("nDCG(gain=exponential)@10", "nDCG(gain='exponential')@10"),
        ("ndcg(gain='exponential', ideal='retrieved')@5", "nDCG(gain='exponential', ideal='retrieved')@5"),
        ("RBP(p=0.5)", "RBP(p=0.5)"),
        ("ERR(max_grade=3)@10", "ERR(max_grade=3)@10"),
        # trec_eval's names (issue 12): input aliases, output labels stay canonical
        ("ndcg_cut_10", "nDCG@10"),
        ("map_cut_100", "AP@100"),
        ("P_5", "P@5"),
        ("p_5", "P@5"),
        ("recall_1000", "R@1000"),
        ("success_1", "Success@1"),
        ("recip_rank", "RR"),
        ("map", "AP"),
        ("ndcg", "nDCG"),
        ("Rprec", "Rprec"),
        ("bpref", "Bpref"),
        ("num_rel_ret", "NumRelRet"),
        ("P_5(rel=2)", "P(rel=2)@5"),
        # hits is ranx's count, no longer Success
        ("hits@3", "Hits@3"),
    ],
)
def test_parse_and_canonical_form(text, canonical):
    m = parse(text)
    assert str(m) == canonical
    assert parse(str(m)) == m  # round trip


def test_every_declared_metric_and_alias_parses():
    for spec in METRICS:
        for name in (spec.name, spec.canonical, *spec.aliases):
            # IPrec has no default recall level: it is written after @
            assert parse(name if spec.at == "k" else f"{name}@0.5").spec is spec


@pytest.mark.parametrize("bad", ["", "P@", "P(2)@5", "@5", "P@5@6", "P(rel=)@3"])
def test_unparseable(bad):
    with pytest.raises(rankframe.RankframeError):
        parse(bad)


def test_unknown_parameter_names_the_declared_ones():
    with pytest.raises(rankframe.UnknownMetricError, match="Known: denominator, judged_only, k, rel"):
        parse("AP(denom='min_k')@10")


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ("ndcg_cut_10@5", rankframe.ParameterError, r"gives the 'k' parameter twice \(ndcg_cut_10\.\.\. and @\.\.\.\)"),
        ("P_5(k=3)", rankframe.ParameterError, "gives the 'k' parameter twice"),
        ("P_0", rankframe.ParameterError, r"The 'k' parameter of precision must be an int >= 1"),
        ("P_99999999999999999999", rankframe.ParameterError, r"at most 2\*\*63 - 1"),
        ("recip_rank_5", rankframe.UnknownMetricError, "unknown metric 'recip_rank_5'"),  # trec_eval has no cut
        ("map_cut_", rankframe.UnknownMetricError, "unknown metric"),
        ("ndcg_cut_x", rankframe.UnknownMetricError, "unknown metric"),
        ("bpref_10", rankframe.UnknownMetricError, "unknown metric"),
        # trec_eval's iprec levels carry 2 decimals; P has no fractional cutoff; the bare family is 11 measures
        ("P_5.5", rankframe.MetricSyntaxError, "cannot parse metric 'P_5.5'"),
        ("iprec_at_recall_1", rankframe.UnknownMetricError, "unknown metric 'iprec_at_recall_1'"),
        ("iprec_at_recall_1.50", rankframe.ParameterError, r"'recall' parameter of iprec must be a float in \[0, 1\]"),
        ("iprec_at_recall", rankframe.MetricSyntaxError, "trec_eval's name of 11 measures, IPrec@0.0 ... IPrec@1.0"),
    ],
)
def test_trec_eval_names_hostile(bad, error, match):
    with pytest.raises(error, match=match):
        parse(bad)


def test_hits_and_success_are_different_measures():
    import pandas as pd

    # one query, relevant items at ranks 1 and 3: Hits@3 = 2 (a count, ranx), Success@3 = 1
    df = pd.DataFrame({"query": 1, "item": list("abc"), "rank": [1, 2, 3], "relevance": [1, 0, 1]})
    assert df.rank_metrics.hits(3) == 2.0 and df.rank_metrics.hit_rate(3) == 1.0
    assert df.rank_metrics.evaluate(["hits@3", "success@3"])["metric"].tolist() == ["Hits@3", "Success@3"]


def test_iprec_at_recall_is_the_11_point_curve_in_a_list_of_metrics():
    import pandas as pd

    assert str(parse("iprec_at_recall_0.50")) == "IPrec@0.5" and str(parse("IPREC_AT_RECALL_0.00")) == "IPrec@0.0"
    # one query, relevant items at ranks 1 and 3 of 3, |R| = 2: interpolated precision 1 up to recall 0.5, then
    # 2/3 (the level is reached at the floor(r * 2 + 0.9)-th hit: the 1st up to r = 0.5, the 2nd from r = 0.6)
    df = pd.DataFrame({"query": 1, "item": list("abc"), "rank": [1, 2, 3], "relevance": [1, 0, 1]})
    out = rankframe.evaluate(df, ["iprec_at_recall"])
    assert out["metric"].tolist() == [f"IPrec@{i / 10}" for i in range(11)]
    assert out["value"].tolist() == pytest.approx([1.0] * 6 + [2 / 3] * 5)
    with pytest.raises(
        rankframe.ParameterError, match=r"asks for IPrec@0.5 twice \(as 'iprec_at_recall' and 'IPrec@0.5'\)"
    ):
        rankframe.evaluate(df, ["iprec_at_recall", "IPrec@0.5"])
