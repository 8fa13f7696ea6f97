"""The command's exit statuses (docs/cli.md's table): 1 means "significantly worse" and nothing else."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rankframe import cli
from rankframe.cli import EXIT_STATUS, main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUN, RUN_B, QRELS = EX / "tiny.run", EX / "tiny-b.run", EX / "tiny.qrels"


def _process(*args: str, env: dict | None = None, code: str | None = None) -> subprocess.CompletedProcess:
    import os

    command = [sys.executable, "-m", "rankframe", *args] if code is None else [sys.executable, "-c", code, *args]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def test_success_is_0(capsys):
    assert main(["evaluate", str(RUN), "--qrels", str(QRELS), "-m", "AP"]) == 0


def test_user_errors_are_2(capsys):
    # a RankframeError (unknown metric) and an input error (missing file): 2, one line, no traceback
    assert main(["evaluate", str(RUN), "--qrels", str(QRELS), "-m", "nDGC"]) == 2
    assert main(["evaluate", "no-such.run", "--qrels", str(QRELS), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.count("rankframe: error: ") == 2 and "Traceback" not in err


def test_argparse_usage_error_is_2_in_a_process():
    p = _process("evaluate", str(RUN), "--format", "xml")
    assert p.returncode == 2 and "invalid choice" in p.stderr and "Traceback" not in p.stderr


def _boom(*args, **kwargs):
    raise RuntimeError("deep down\nsecond line")


def test_an_internal_error_is_3_with_one_line(capsys, monkeypatch):
    # an unexpected exception deep in the metric code is a bug: exit 3 (not 1, "worse"), one line, no traceback
    monkeypatch.delenv(cli.TRACEBACK_ENV, raising=False)
    monkeypatch.setattr("rankframe.units.positions_in_lists", _boom)
    code = main(["compare", str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--fail-if-worse"])
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith("rankframe: internal error: RuntimeError: deep down (a bug in rankframe")
    assert err.count("\n") == 1 and "Traceback" not in err and "RANKFRAME_TRACEBACK=1" in err


def test_the_traceback_on_demand(capsys, monkeypatch):
    monkeypatch.setenv(cli.TRACEBACK_ENV, "1")
    monkeypatch.setattr("rankframe.units.positions_in_lists", _boom)
    assert main(["evaluate", str(RUN), "--qrels", str(QRELS), "-m", "AP"]) == 3
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err
    assert err.rstrip("\n").splitlines()[-1].startswith("rankframe: internal error: RuntimeError: deep down")


def test_an_internal_error_is_3_in_a_process():
    code = (
        "import sys, rankframe.units as k\n"
        "def boom(*a, **kw): raise KeyError('x')\n"
        "k.positions_in_lists = boom\n"
        "from rankframe.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    p = _process("evaluate", str(RUN), "--qrels", str(QRELS), "-m", "AP", code=code)
    assert p.returncode == 3, p.stderr
    assert p.stderr.startswith("rankframe: internal error: KeyError: 'x'") and "Traceback" not in p.stderr


def test_the_exit_table_is_in_help_and_docs():
    text = _process("--help").stdout
    docs = (ROOT / "docs" / "cli.md").read_text()
    for code, _ in EXIT_STATUS:
        assert re.search(rf"^  {code}\s", text, flags=re.M), code
        assert re.search(rf"^\| \*\*{code}\*\* \|", docs, flags=re.M), code


def _epilog_examples() -> list[str]:
    """The example lines of every ``--help`` epilog (``  rankframe ...``)."""
    parser = cli._parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = []
    for p in [parser, *sub.choices.values()]:
        lines += [ln.strip() for ln in (p.epilog or "").splitlines() if ln.strip().startswith("rankframe ")]
    return lines


CLAIMS = [ln for ln in _epilog_examples() if re.search(r"#.*\bexit \d+\b", ln)]


def test_some_epilog_example_claims_an_exit_status():
    assert CLAIMS


@pytest.mark.parametrize("line", CLAIMS)
def test_epilog_examples_exit_as_they_claim(line, capsys, monkeypatch, tmp_path):
    """`rankframe compare --help` said `--fail-if-worse  # exit 1` of a line that exited 0."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(EX, target_is_directory=True)
    stated = int(re.search(r"#.*\bexit (\d+)\b", line).group(1))
    words = shlex.split(line, comments=True)
    assert main(words[1:]) == stated, capsys.readouterr().err
