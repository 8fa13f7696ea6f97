"""Every numeric parameter goes through one rule (rankframe.numeric.check_number, issue 33).

Hostile values — a huge Python int (10**40), -1, NaN, infinity and True — given to each public function's numeric
parameters: each is either a value the parameter takes (listed) or a ParameterError naming the parameter; never
numpy's OverflowError / TypeError / ValueError, never a bool read as 1.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import rankframe
from rankframe.cli import main
from rankframe.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]
PAIRED = pd.read_parquet(ROOT / "examples" / "paired.parquet")
TWO = PAIRED[PAIRED.system.isin(["bm25", "dense"])].reset_index(drop=True)
LABELS = pd.DataFrame({"query": [1, 1, 2, 2], "item": [1, 2, 1, 2], "human": [1, 0, 1, 1], "llm": [1, 0, 0, 1]})
HUGE = 10**40
HOSTILE = {"10**40": HUGE, "-1": -1, "nan": math.nan, "inf": math.inf, "True": True}

# name: (the call with the parameter set to v, the hostile values it takes[, the parameters its error may name])
CALLS = {
    "evaluate ci": (lambda v: rankframe.evaluate(TWO, "AP", by="system", ci=v), ()),
    "evaluate P(k=)": (lambda v: rankframe.evaluate(TWO, f"P(k={v!r})", by="system"), ()),
    "evaluate P(rel=)": (lambda v: rankframe.evaluate(TWO, f"P(rel={v!r})", by="system"), ("-1", "10**40")),
    "compare ci": (lambda v: rankframe.compare(TWO, "AP", baseline="bm25", ci=v), ()),
    "compare margin": (lambda v: rankframe.compare(TWO, "AP", baseline="bm25", margin=v), ("10**40",)),
    "compare seed": (
        lambda v: rankframe.compare(TWO, "AP", baseline="bm25", test="randomization", n_resamples=50, seed=v),
        ("10**40",),  # a seed of any size (a SeedSequence's entropy is 128 bits)
    ),
    "compare n_resamples": (
        lambda v: rankframe.compare(TWO, "AP", baseline="bm25", test="randomization", n_resamples=v),
        (),
    ),
    "anova ci": (lambda v: rankframe.anova(TWO, "AP", ci=v), ()),
    "agreement rel": (lambda v: rankframe.agreement(LABELS, rel=v), ("10**40", "-1")),
    "agreement ci": (lambda v: rankframe.agreement(LABELS, ci=v, n_resamples=20), ()),
    "agreement n_resamples": (lambda v: rankframe.agreement(LABELS, ci=0.9, n_resamples=v), ()),
    "agreement seed": (lambda v: rankframe.agreement(LABELS, ci=0.9, n_resamples=20, seed=v), ("10**40",)),
    "agreement labels": (lambda v: rankframe.agreement(LABELS, labels=[0, 1, v]), ("10**40", "-1")),
    "power n": (lambda v: rankframe.power(0.2, v), ("10**40",)),
    "power sd_diff": (lambda v: rankframe.power(v, 50), ("10**40",)),
    "power alpha": (lambda v: rankframe.power(0.2, 50, alpha=v), ()),
    "power power": (lambda v: rankframe.power(0.2, 50, power=v), ()),
    "topic_set_size delta": (lambda v: rankframe.topic_set_size(v, 0.1), ("-1",)),
    # sd 10**40: an effect too small to detect names delta / sd_diff (more than 2**40 queries)
    "topic_set_size sd_diff": (lambda v: rankframe.topic_set_size(0.02, v), (), "delta|sd_diff"),
    "fuse k": (lambda v: rankframe.fuse(TWO, "rrf", k=v), ("10**40",)),
    "fuse depth": (lambda v: rankframe.fuse(TWO, "rrf", depth=v), ()),
    "fuse rank_base": (lambda v: rankframe.fuse(TWO, "rrf", rank_base=v), ()),
    "fuse phi": (lambda v: rankframe.fuse(TWO, "rbc", phi=v), ()),
    "fuse sigma": (lambda v: rankframe.fuse(TWO, "logn_isr", sigma=v), ()),
    "fuse weights": (
        lambda v: rankframe.fuse(TWO, "wsum", norm="rank", weights={"bm25": v, "dense": 1}),
        ("10**40", "-1"),
    ),
    "fuse_train step": (lambda v: rankframe.fuse_train(TWO, method="rrf", metric="AP", step=v), ("10**40",)),
    # (1, 10**40) is a range too wide for the step: the error names step
    "fuse_train bounds": (
        lambda v: rankframe.fuse_train(TWO, method="rrf", metric="AP", bounds=(1, v)),
        (),
        "bounds|step",
    ),
}


@pytest.mark.quick_sample(1, per="call")  # the quick loop: each call with one of the numbers (tests/tiers.py)
@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("call", CALLS)
def test_a_hostile_number_is_taken_or_named(call, value):
    fn, takes, *named = CALLS[call]
    if value in takes:
        fn(HOSTILE[value])
        return
    param = named[0] if named else call.split()[1].split("(")[-1].rstrip("=)")
    with pytest.raises(ParameterError, match=f"'({param})' parameter"):
        fn(HOSTILE[value])


def test_depth_up_to_int64_is_every_item():
    # depth 2**63 - 1 cuts nothing: the fused run of every item; 10**40 is the ParameterError above (was OverflowError)
    pd.testing.assert_frame_equal(rankframe.fuse(TWO, "rrf", depth=2**63 - 1), rankframe.fuse(TWO, "rrf"))


def test_arrays_of_different_lengths_name_the_parameters():
    with pytest.raises(ParameterError, match=r"'sd_diff', 'n' of power .* shapes sd_diff \(2,\), n \(3,\)"):
        rankframe.power([0.1, 0.2], [10, 20, 30])
    with pytest.raises(ParameterError, match="'delta', 'sd_diff' of topic_set_size"):
        rankframe.topic_set_size([0.1, 0.2, 0.3], [0.5, 0.6])
    with pytest.raises(ParameterError, match="'n' parameter of power"):
        rankframe.power(0.2, [10, 10**400])


def test_cli_huge_ints_are_usage_errors(capsys, tmp_path):
    # exit 2 (usage) with the option's words, not exit 3 (an internal error: numpy's OverflowError)
    paired, out = str(ROOT / "examples" / "paired.parquet"), str(tmp_path / "f.run")
    assert main(["fuse", paired, "--depth", str(HUGE), "-o", out]) == 2
    assert "--depth must be None or an int >= 1" in capsys.readouterr().err
    assert main(["fuse", paired, "--rank-base", str(HUGE), "-o", out]) == 2
    assert "--rank-base must be 0 or 1" in capsys.readouterr().err
