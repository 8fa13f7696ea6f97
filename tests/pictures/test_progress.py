"""Progress: forced on -> drawn; not interactive -> nothing on stderr; every switch off -> nothing."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe import cli
from rankframe.core import progress
from rankframe.core.errors import ParameterError
from rankframe.tables import io


@pytest.fixture
def systems() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for system in ("A", "B"):
        for q in range(12):
            for item in range(3):
                rows.append((system, q, item, item + 1, int(rng.integers(0, 2))))
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)
    monkeypatch.setattr(progress.options, "progress", None)
    monkeypatch.setattr(progress, "DELAY", 0.0)  # draw at once when on automatically


def run_compare(df, **kw):
    return rankframe.compare(df, "AP", baseline="A", test="randomization", n_resamples=1000, seed=1, **kw)


def test_forced_on_draws_on_stderr(systems, capsys):
    run_compare(systems, progress=True)
    err = capsys.readouterr().err
    # one segment of 12 queries: 2^12 = 4096 sign patterns > 1000, so 1000 random flips are drawn
    assert "compare: randomization test" in err and "/1000 [" in err


def test_bootstrap_bar(systems, capsys):
    rankframe.compare(systems, "AP", baseline="A", ci_method="bootstrap", n_resamples=3000, seed=1, progress=True)
    assert "compare: bootstrap" in capsys.readouterr().err


def test_not_interactive_is_quiet(systems, capsys):
    # capsys' stderr is not a terminal and no notebook runs: the default draws nothing
    assert not progress.interactive()
    run_compare(systems)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("switch", ["argument", "option", "env"])
def test_switch_off_beats_a_terminal(systems, capsys, monkeypatch, switch):
    monkeypatch.setattr(progress, "interactive", lambda: True)  # as if stderr were a terminal
    run_compare(systems)
    assert "randomization" in capsys.readouterr().err  # a terminal, no switch: drawn
    if switch == "option":
        monkeypatch.setattr(rankframe.options, "progress", False)
    elif switch == "env":
        monkeypatch.setenv("RANKFRAME_PROGRESS", "0")
    run_compare(systems, **({"progress": False} if switch == "argument" else {}))
    assert capsys.readouterr().err == ""


def test_env_forces_on(systems, capsys, monkeypatch):
    monkeypatch.setenv("RANKFRAME_PROGRESS", "1")
    run_compare(systems)
    assert "randomization" in capsys.readouterr().err


def test_argument_beats_option_and_env(monkeypatch):
    monkeypatch.setenv("RANKFRAME_PROGRESS", "1")
    monkeypatch.setattr(rankframe.options, "progress", True)
    assert progress.enabled(False) is False
    with progress.using(False):
        assert progress.enabled() is False
        with progress.using(None):  # an inner call without an argument keeps the outer call's choice
            assert progress.enabled() is False


def test_bad_switch_values(systems):
    with pytest.raises(ParameterError, match="'progress' parameter must be True, False or None. Got 'yes'"):
        rankframe.evaluate(systems, "AP", progress="yes")


def test_file_read_progress(tmp_path, capsys, monkeypatch):
    path = tmp_path / "t.csv"
    path.write_text("query,item,rank,relevance\n" + "".join(f"1,{i},{i + 1},1\n" for i in range(200)))
    monkeypatch.setattr(io._files, "_READ_CHUNK", 512)  # several blocks
    want = rankframe.read_long(path)
    assert capsys.readouterr().err == ""  # not interactive
    with progress.using(True):
        got = rankframe.read_long(path)
    assert "reading t.csv" in capsys.readouterr().err
    pd.testing.assert_frame_equal(got, want)
    assert len(got) == 200


def _setting(con) -> bool:
    return con.execute("SELECT current_setting('enable_progress_bar')").fetchall()[0][0]


def test_duckdb_bar_only_on_a_terminal_stdout(monkeypatch):
    # DuckDB draws on stdout: never with a piped stdout, even when forced (it would corrupt the data written)
    assert _setting(progress.configure_duckdb(duckdb.connect(), True)) is False
    monkeypatch.setattr(progress, "_is_tty", lambda stream: True)
    assert _setting(progress.configure_duckdb(duckdb.connect(), True)) is True
    assert _setting(progress.configure_duckdb(duckdb.connect(), False)) is False
    monkeypatch.setenv("RANKFRAME_PROGRESS", "off")
    assert _setting(progress.configure_duckdb(duckdb.connect())) is False


def test_duckdb_engine_respects_the_call(systems, monkeypatch):
    seen = []
    real = progress.configure_duckdb
    monkeypatch.setattr(progress, "_is_tty", lambda stream: True)

    def spy(con, p=None):
        out = real(con, p)
        seen.append(_setting(out))
        return out

    monkeypatch.setattr(progress, "configure_duckdb", spy)
    rankframe.evaluate(systems, "AP", by="system", engine="duckdb", progress=False)
    rankframe.evaluate(systems, "AP", by="system", engine="duckdb", progress=True)
    assert seen == [False, True]


# ---------------------------------------------------------------------------------------------------------
# the command's steps: the same mechanism and switches (RANKFRAME_PROGRESS, --no-progress), one bar on stderr

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EVALUATE = ["evaluate", str(EXAMPLES / "tiny.run"), "--qrels", str(EXAMPLES / "tiny.qrels"), "-m", "AP"]


def test_steps_never_draw_without_a_terminal(capsys):
    with progress.steps(3) as s:
        s.step("reading")
    assert capsys.readouterr().err == ""


def test_steps_draw_the_step_its_number_and_the_time(capsys):
    with progress.steps(2, progress=True) as s:
        s.step("reading run.txt")
        s.step("evaluating")
        time.sleep(0.3)  # the ticker redraws the elapsed time
    err = capsys.readouterr().err
    assert "rankframe [" in err and "0/2 reading run.txt (00:00)" in err and "1/2 evaluating (00:00)" in err


def test_steps_appear_after_the_delay_on_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(progress, "interactive", lambda: True)  # as if stderr were a terminal
    monkeypatch.setattr(progress, "DELAY", 0.3)
    with progress.steps(2) as s:
        s.step("reading")
    assert capsys.readouterr().err == ""  # shorter than the delay: nothing
    with progress.steps(2) as s:
        s.step("reading")
        time.sleep(0.6)
    assert "1/2" not in (err := capsys.readouterr().err) and "0/2 reading" in err


@pytest.mark.parametrize("switch", ["none", "env", "flag"])
def test_the_command_uses_the_one_variable_and_its_flag(capsys, monkeypatch, switch):
    monkeypatch.setattr(progress, "interactive", lambda: True)  # a terminal: drawn unless switched off
    if switch == "env":
        monkeypatch.setenv("RANKFRAME_PROGRESS", "0")
    assert cli.main(EVALUATE + (["--no-progress"] if switch == "flag" else [])) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("system")  # the result on stdout, never a bar
    if switch == "none":
        assert "rankframe [" in captured.err and "reading 1 run(s) and tiny.qrels" in captured.err
    else:
        assert captured.err == ""
    monkeypatch.setenv("RANKFRAME_NO_PROGRESS", "1")  # not a switch (any more): RANKFRAME_PROGRESS is the one
    monkeypatch.setenv("RANKFRAME_PROGRESS", "1")
    monkeypatch.setattr(progress, "interactive", lambda: False)
    assert cli.main(EVALUATE) == 0
    assert "rankframe [" in capsys.readouterr().err
