"""rankframe.fuse on bad input: a RankframeError subclass naming the parameter or column, and the caller's frame
unchanged afterwards."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import rankframe
from rankframe import ParameterError, RankframeError, ValidationError

RUNS = pd.DataFrame(
    {
        "system": ["bm25", "bm25", "dense", "dense"],
        "query": ["q1", "q1", "q1", "q1"],
        "item": ["x", "y", "y", "z"],
        "score": [12.0, 7.0, 0.9, 0.4],
    }
)


def with_(**cols) -> pd.DataFrame:
    return RUNS.assign(**cols)


CASES = [
    # (id, frame, method, options, error class, words in the message)
    ("unknown-method", RUNS, "rfr", {}, ParameterError, ["'method'", "did you mean 'rrf'"]),
    ("condorcet", RUNS, "condorcet", {}, ParameterError, ["'condorcet'", "not offered"]),
    ("unknown-norm", RUNS, "combsum", {"norm": "minmaxx"}, ParameterError, ["'norm'", "did you mean 'min-max'"]),
    ("no-score-no-rank", RUNS.drop(columns="score"), "rrf", {}, ValidationError, ["'score'"]),
    ("run-ranks-nothing", with_(score=[1.0, 2.0, None, None]), "rrf", {}, ValidationError, ["'dense'", "rank nothing"]),
    ("weights-unknown-system", RUNS, "wsum", {"norm": "max", "weights": {"bm25": 1, "dens": 1}}, ParameterError,
     ["'weights'", "'dens'", "did you mean 'dense'"]),
    ("weights-missing", RUNS, "wsum", {"norm": "max", "weights": {"bm25": 1}}, ParameterError, ["'weights'", "'dense'"]),
    ("weights-absent", RUNS, "w_bordafuse", {}, ParameterError, ["'weights'", "a dict"]),
    ("weights-not-numbers", RUNS, "wmnz", {"norm": "max", "weights": {"bm25": 1, "dense": "a"}}, ParameterError,
     ["'weights'", "finite numbers"]),
    ("weights-unweighted-method", RUNS, "rrf", {"weights": {"bm25": 1, "dense": 1}}, ParameterError, ["'weights'"]),
    ("negative-k", RUNS, "rrf", {"k": -1}, ParameterError, ["'k'", ">= 0", "-1"]),
    ("k-zero-base-zero", RUNS, "rrf", {"k": 0, "rank_base": 0}, ParameterError, ["'k'"]),
    ("rank-base", RUNS, "rrf", {"rank_base": 2}, ParameterError, ["'rank_base'", "0 or 1"]),
    ("phi", RUNS, "rbc", {"phi": 1.0}, ParameterError, ["'phi'"]),
    ("depth", RUNS, "rrf", {"depth": 0}, ParameterError, ["'depth'"]),
    ("sigma", RUNS, "logn_isr", {"sigma": 2}, ParameterError, ["'sigma'"]),
    ("name-collides", RUNS, "rrf", {"name": "bm25"}, ParameterError, ["'name'", "'bm25'"]),
    ("default-name-collides", with_(system=["rrf", "rrf", "dense", "dense"]), "rrf", {}, ParameterError, ["'name'"]),
    ("one-system", with_(system="bm25", item=["a", "b", "c", "d"]), "rrf", {}, ValidationError, ["'system'", "at least 2 systems"]),
    ("mixed-scales", RUNS, "combsum", {}, ParameterError, ["'norm'", "different scales", "norm='none'"]),
    ("score-method-on-ranks", RUNS.drop(columns="score").assign(rank=[1, 2, 1, 2]), "combsum", {"norm": "max"},
     ValidationError, ["'score'"]),
    ("duplicate-item", with_(item=["x", "x", "y", "z"]), "rrf", {}, ValidationError, ["'item'", "unique"]),
    ("duplicate-rank", RUNS.assign(rank=[1, 1, 1, 2]), "rrf", {}, ValidationError, ["'rank'", "unique"]),
    ("infinite-score", with_(score=[float("inf"), 1.0, 1.0, 0.5]), "rrf", {}, ValidationError, ["'score'", "finite"]),
    ("missing-column", RUNS.drop(columns="system"), "rrf", {}, ValidationError, ["'system'"]),
    ("output", RUNS, "rrf", {"output": "csv"}, ParameterError, ["'output'"]),
    ("system-not-str", RUNS, "rrf", {"system": 3}, ParameterError, ["'system'"]),
]  # fmt: skip


@pytest.mark.parametrize(("frame", "method", "options", "error", "words"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_bad_input_names_the_parameter_and_leaves_the_frame(frame, method, options, error, words):
    before = frame.copy()
    with pytest.raises(error) as info:
        rankframe.fuse(frame, method, **options)
    assert isinstance(info.value, RankframeError)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    pd.testing.assert_frame_equal(frame, before)


def test_a_table_that_is_not_a_table():
    with pytest.raises(ParameterError, match="'df'"):
        rankframe.fuse([1, 2, 3])


def test_norm_none_fuses_raw_scores_without_the_scale_check():
    out = rankframe.fuse(RUNS, "combsum", norm="none")
    assert out[out.system == "combsum"]["score"].tolist() == [12.0, 7.9, 0.4]


def test_scores_near_the_float_limit_decide_the_scale_rule_without_a_warning():
    # spans 1e308 and 2e307: ratio 5 < fuse's SCALE_RATIO of 10, so one scale (the rule is max span > 10 x min span);
    # 10 x 2e307 overflows a float, which used to print "RuntimeWarning: overflow encountered in scalar multiply"
    huge = RUNS.assign(score=[1e308, 0.0, 2e307, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fused = rankframe.fuse(huge, "combsum")
    mine = fused[fused["system"] == "combsum"]
    # CombSUM by hand: x = 1e308 (bm25 only), y = 0 (bm25) + 2e307 (dense), z = 0 (dense only); fused scores are
    # rounded to 12 significant digits (docs/fusion.md "Ties"), which may leave an ulp
    assert mine["item"].tolist() == ["x", "y", "z"]
    assert mine["score"].tolist() == pytest.approx([1e308, 2e307, 0.0], rel=1e-12)
    # spans 1e308 and 5e306: ratio 20 > 10, different scales, however close to the limit
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParameterError, match="different scales"):
            rankframe.fuse(RUNS.assign(score=[1e308, 0.0, 5e306, 0.0]), "combsum")
    # a span beyond the float range (1e308 - -1e308 = inf) is the largest span: different scales, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParameterError, match="different scales"):
            rankframe.fuse(RUNS.assign(score=[1e308, -1e308, 1.0, 0.0]), "combsum")
