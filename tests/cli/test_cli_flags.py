"""The command names a parameter by its option, read from the command's own parser (issue 34).

A library ParameterError carries its ``parameter``; the command maps it to the option whose ``dest`` it is
(:func:`rankframe.cli._options.flag_table`). Judges: each command's keyword arguments, caught by a spy where the
command calls the library, must all be options in that table (a parameter the command passes without an option
of its name would be reported with the library's keyword, which the command's user cannot type); and the words
of a few errors, which the option names by construction.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

from rankframe.cli import _parser, _subparser, main
from rankframe.cli._options import COMMANDS, OWNERS, flag_table

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
PAIRED, RUN, RUN_B, QRELS = EX / "paired.parquet", EX / "tiny.run", EX / "tiny-b.run", EX / "tiny.qrels"


class Caught(Exception):
    """Raised by the spy once it has the keyword arguments (nothing is computed)."""


def _spy(seen: dict):
    def spy(*args, **kwargs):
        seen.update(kwargs)
        raise Caught

    return spy


def _labels(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text("query,item,human,llm\nq1,a,1,1\nq1,b,0,1\nq2,a,2,2\n")
    return path


#: command -> (where the command looks the library function up, its arguments with every option that reaches it)
CALLS = {
    "compare": ("rankframe.cli.compare.compare", lambda t: [
        "compare", PAIRED, "-m", "AP", "--baseline", "dense", "--by", "length", "--engine", "duckdb",
        "--no-relevant", "nan", "--no-retrieved", "skip", "--no-judged", "zero", "--allow-duplicates",
        "--test", "wilcoxon", "--ci", "0.8", "--ci-method", "bootstrap", "--correction", "bonferroni",
        "--family", "metric", "--n-resamples", "50", "--seed", "4", "--missing", "drop",
        "--alternative", "less", "--zero-method", "pratt"]),
    "anova": ("rankframe.anova.anova", lambda t: [
        "anova", PAIRED, "-m", "AP", "--by", "length", "--missing", "drop", "--engine", "duckdb",
        "--no-retrieved", "skip", "--allow-duplicates"]),
    "fuse": ("rankframe.cli.fuse.fuse_runs", lambda t: [
        "fuse", RUN, RUN_B, "--method", "rrf", "--k", "5", "--name", "f", "--rank-base", "1", "-o", "-"]),
    "agreement": ("rankframe.agreement.agreement", lambda t: [
        "agreement", _labels(t), "--by", "query", "--weights", "linear", "--labels", "0,1,2", "--rel", "1",
        "--ci", "0.9", "--n-resamples", "20", "--seed", "1"]),
    "evaluate": ("rankframe.cli.evaluate.evaluate", lambda t: [
        "evaluate", RUN, "--qrels", QRELS, "-m", "AP", "--engine", "pandas", "--ci", "0.9", "--n-resamples", "20",
        "--seed", "1", "--agg", "mean", "--no-retrieved", "skip"]),
    "qrels-compare": ("rankframe.qrels_compare.qrels_compare", lambda t: [
        "qrels-compare", RUN, RUN_B, QRELS, QRELS, "-m", "AP", "--baseline", "tiny", "--no-judged", "zero"]),
    "report": ("rankframe.cli.report.report", lambda t: [
        "report", PAIRED, "-m", "AP", "--baseline", "dense", "--by", "length", "-o", t / "r.html", "--title", "T",
        "--test", "t", "--ci", "0.9", "--n-resamples", "20", "--seed", "1", "--missing", "drop"]),
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(CALLS))
def test_every_parameter_the_command_passes_has_its_option(command, monkeypatch, tmp_path):
    where, argv = CALLS[command]
    seen: dict = {}
    module, name = where.rsplit(".", 1)
    monkeypatch.setattr(importlib.import_module(module), name, _spy(seen))
    main([str(a) for a in argv(tmp_path)])  # the spy stops the command: an internal error, exit 3
    assert seen, f"the spy at {where} was not called"
    table = flag_table(_subparser(_parser(command), command))
    missing = sorted(set(seen) - set(table))
    assert not missing, f"rankframe {command} passes {missing} without an option of that name: {table}"


def test_the_table_is_the_parsers_own():
    """dest -> the long option; a column option also answers for the library's parameter; columns -> all five."""
    p = argparse.ArgumentParser()
    p.add_argument("-n", "--n-resamples", type=int)
    p.add_argument("--system", dest="col_system")
    p.add_argument("--query", dest="col_query")
    p.add_argument("file")
    assert flag_table(p) == {
        "n_resamples": "--n-resamples",
        "col_system": "--system",
        "system": "--system",
        "col_query": "--query",
        "query": "--query",
        "columns": "--system/--query",
    }


def test_every_command_declares_the_owners_of_its_parameters():
    assert set(OWNERS) == set(COMMANDS)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        # compare's check of ci (rankframe.evaluate.check_aggregation's rule): the option, then the library's rule
        (["compare", PAIRED, "-m", "AP", "--ci", "2"], "rankframe: error: --ci must be a float in the open interval"),
        (["compare", PAIRED, "-m", "AP", "--family", "nope"], "rankframe: error: --family must be 'all' or column"),
        (["fuse", RUN, RUN_B, "--method", "wsum", "--weights", "tiny=1", "-o", "-"], "error: --weights has no weight"),
        (["fuse", RUN, RUN_B, "--method", "rrf", "--norm", "bogus", "-o", "-"], "error: --norm must be None or one"),
        # rankframe.compare names the parameter 'metrics'; the command's option is -m/--metric (its dest: metrics)
        (["compare", PAIRED, "--metric", "AP", "--metric", "map"], "rankframe: error: --metric asks for AP twice"),
    ],
)
def test_the_message_names_the_option(argv, words, capsys):
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(words) or words in err, err
    assert "parameter of" not in err


@pytest.mark.parametrize("command", sorted(c for c in OWNERS if c != "sql"))
def test_an_options_default_is_the_librarys(command):
    # an option's default restates its parameter's default (issue 34): one default only while this holds, so that
    # `rankframe compare` and rankframe.compare give the same answer to the same unset option. The library
    # function is the first of the command's owners that takes the parameter; an option given once per value
    # (--by, --weights: a list, [] when not given) stands for its parameter's None
    import inspect

    import rankframe

    signatures = [inspect.signature(getattr(rankframe, owner)).parameters for owner in OWNERS[command]]
    checked = {}
    for action in _subparser(_parser(command), command)._actions:
        if action.default in (None, argparse.SUPPRESS) or isinstance(action, argparse._AppendAction):
            continue
        owner = next((s for s in signatures if action.dest in s), None)
        if owner is not None:
            checked[action.dest] = (action.default, owner[action.dest].default)
    assert {d: ours for d, (ours, _) in checked.items()} == {d: lib for d, (_, lib) in checked.items()}
