"""Metric-name grammar: parse, canonical print, round trip, errors; registry vs docs."""

from __future__ import annotations

import pytest

import rankframe
from rankframe.names import parse
from rankframe.registry import METRICS


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
