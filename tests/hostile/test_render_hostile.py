"""``rankframe.sql.render`` checks every argument in Python before writing any SQL (a warehouse cannot raise
rankframe's errors): each bad argument is a RankframeError naming the parameter; unportable metrics say why."""

from __future__ import annotations

import pytest

import rankframe
import rankframe.sql
from rankframe.core.errors import RankframeError


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"dialect": "oracle9"}, "'dialect'"),
        ({"dialect": 3}, "'dialect'"),
        ({"table": ""}, "'table'"),
        ({"table": 5}, "'table'"),
        ({"table": ("db", "")}, "'table'"),
        ({"by": 3}, "'by'"),
        ({"by": ["seg", "seg"]}, "by"),
        ({"by": "query"}, "query column"),
        ({"by": "metric"}, "output column"),
        ({"by": "n"}, "output column of render ['metric', 'value', 'n']"),  # the mean shape's count of queries
        ({"by": "rf__x"}, "rf__"),
        ({"per_query": "yes"}, "'per_query'"),
        ({"columns": {"qurey": "q"}}, "qurey"),
        ({"order_by": "position"}, "'order_by'"),
        ({"no_relevant": "drop"}, "'no_relevant'"),
        ({"no_judged": None}, "'no_judged'"),
        ({"no_relevent": "zero"}, "no_relevent"),
    ],
)
def test_bad_arguments(kwargs, words):
    with pytest.raises(RankframeError) as e:
        rankframe.sql.render(["P@5"], **kwargs)
    assert words in str(e.value)


@pytest.mark.parametrize(
    ("metric", "words"),
    [
        ("Coverage@5", "Coverage@5 needs catalog="),  # beyond-accuracy metrics: evaluate's rule of the inputs
        ("Novelty@5", "Novelty@5 needs train="),
    ],
)
def test_a_missing_input_is_named(metric, words):
    with pytest.raises(RankframeError) as e:
        rankframe.sql.render([metric])
    assert words in str(e.value)


def test_every_accuracy_metric_is_portable():
    # every declared accuracy metric renders (its portable() beside its kernel) with judged_only and ties too
    from portable_cases import METRICS

    from rankframe.measures.registry import METRICS as DECLARED

    covered = {rankframe.parse(m).spec.name for m in METRICS}
    assert covered == {s.name for s in DECLARED}, "tests/portable_cases.py METRICS must hold every declared metric"
    for m in ("P(judged_only=True)@5", "nDCG(ties='average', judged_only=True)@5", "nERR@5", "Bpref"):
        assert "SELECT" in rankframe.sql.render([m], order_by="score")


@pytest.mark.parametrize(
    "metrics", ["nDCG@0", "P(rel=nan)@5", "AP(denominator='k')", "ERR(max_grade=0)", [], ["AP", "map"], "Foo@3", 5]
)
def test_bad_metrics_are_the_parsers_errors(metrics):
    with pytest.raises(RankframeError):
        rankframe.sql.render(metrics)
