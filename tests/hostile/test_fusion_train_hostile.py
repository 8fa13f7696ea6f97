"""Bad input to rankframe.fuse_train: every mistake is a RankframeError naming the parameter or the column."""

from __future__ import annotations

import pandas as pd
import pytest

import rankframe
from rankframe import ParameterError, RankframeError, ValidationError


@pytest.fixture
def runs() -> pd.DataFrame:
    return pd.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": 1, "item": ["x", "y", "y", "x"], "score": [0.9, 0.1, 0.8, 0.2],
         "relevance": [0, 1, 1, 0]}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("method", "words"),
    [("combsum", "nothing to train"), ("condorcet", "not offered"), ("wsun", "did you mean 'wsum'"), (3, "method")],
)
def test_a_method_without_anything_to_train(runs, method, words):
    with pytest.raises(ParameterError, match=words):
        rankframe.fuse_train(runs, method=method, norm="min-max")


@pytest.mark.parametrize("metric", ["nDCG@x", "foo@10", ["P@5", "AP"], 5, "iprec_at_recall"])
def test_metric_not_one_rankframe_metric(runs, metric):
    with pytest.raises(RankframeError, match="metric|unknown|fuse_train|'k' parameter of ndcg"):
        rankframe.fuse_train(runs, method="wsum", norm="min-max", metric=metric)


def test_no_judgments(runs):
    with pytest.raises(ValidationError, match="'relevance'.*judgments"):
        rankframe.fuse_train(runs.drop(columns="relevance"), method="wsum", norm="min-max")
    with pytest.raises(ValidationError, match="judgments"):
        rankframe.fuse_train(runs.assign(relevance=float("nan")), method="wsum", norm="min-max")


def test_one_system(runs):
    with pytest.raises(ValidationError, match="at least 2 systems"):
        rankframe.fuse_train(runs[runs.system == "a"], method="rrf")


@pytest.mark.parametrize("step", [0.3, 0, -0.1, 1.5, True, "0.1", float("nan"), 0.001])
def test_weights_step_out_of_range(runs, step):
    with pytest.raises(ParameterError, match="'step' parameter of fuse_train"):
        rankframe.fuse_train(runs.assign(system=runs.system.map({"a": "a", "b": "b"})), method="wsum", norm="min-max",
                             step=step if step != 0.001 else 0.0001)  # fmt: skip


def test_too_many_weight_vectors():
    three = pd.DataFrame(
        {"system": ["a", "b", "c"], "query": 1, "item": "x", "score": [1.0, 1.0, 1.0], "relevance": [1, 1, 1]}
    )
    with pytest.raises(ParameterError, match="at most 10000 weight vectors"):
        rankframe.fuse_train(three, method="wsum", norm="min-max", step=0.005)


@pytest.mark.parametrize(
    ("method", "options", "words"),
    [("rbc", {"bounds": (0.5, 1.0)}, "'bounds'.*phi"), ("rrf", {"bounds": (10, 5)}, "'bounds'"),
     ("rrf", {"bounds": "10..100"}, "'bounds'"), ("wsum", {"bounds": (0, 1)}, "not for weights"),
     ("rrf", {"step": -1}, "'step'"), ("rbc", {"step": 1e-6}, "at most 10000"),
     ("rrf", {"report": "yes"}, "'report'"), ("rrf", {"qrels_columns": {"query": "q"}}, "no qrels"),
     ("wsum", {"norm": "minmax2"}, "'norm'")],
)  # fmt: skip
def test_bad_options(runs, method, options, words):
    with pytest.raises(ParameterError, match=words):
        rankframe.fuse_train(runs, method=method, **{"norm": "min-max" if method == "wsum" else None, **options})


def test_mixed_scales_need_a_norm(runs):
    with pytest.raises(ParameterError, match="different scales"):
        rankframe.fuse_train(runs.assign(score=runs.score * [1, 1, 100, 100]), method="wsum")


def test_the_input_is_not_modified(runs):
    before = runs.copy()
    rankframe.fuse_train(runs, method="rrf", report=True)
    pd.testing.assert_frame_equal(runs, before)


@pytest.mark.parametrize(
    ("by", "error", "words"),
    [("segx", ValidationError, "'segx'.*did you mean 'seg'"), ("system", ParameterError, "a column of the runs"),
     ("relevance", ParameterError, "a column of the runs"), (["seg", "seg"], ParameterError, "twice"),
     (3, ParameterError, "'by' parameter of fuse_train"), ("value", ParameterError, "name of a column of fuse_train")],
)  # fmt: skip
def test_bad_segment_columns(runs, by, error, words):
    df = runs.assign(seg="u", value=1.0)
    with pytest.raises(error, match=words):
        rankframe.fuse_train(df, method="wsum", norm="min-max", by=by)


def test_a_segment_that_changes_within_a_query(runs):
    df = runs.assign(seg=["u", "v", "u", "v"])
    with pytest.raises(ValidationError, match="'seg'.*one value per query") as info:
        rankframe.fuse_train(df, method="wsum", norm="min-max", by="seg")
    assert "u" in str(info.value) and "v" in str(info.value)


def test_segments_come_with_the_qrels_rows_and_the_input_is_untouched(runs):
    df = runs.drop(columns="relevance").assign(seg="u")
    qrels = pd.DataFrame({"query": [1, 1], "item": ["y", "z"], "relevance": [1, 1]})
    before = df.copy()
    assert rankframe.fuse_train(df, qrels, method="wsum", norm="min-max", by="seg") == {
        "u": rankframe.fuse_train(df, qrels, method="wsum", norm="min-max")
    }
    pd.testing.assert_frame_equal(df, before)
