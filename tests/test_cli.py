"""The ``rankframe`` command: formats, runs side by side, long tables, sql, validate, errors, exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rankframe.cli import Progress, main, trec_name
from rankframe.names import parse

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
RUN, RUN_B, QRELS, RECS = EX / "tiny.run", EX / "tiny-b.run", EX / "tiny.qrels", EX / "recs.parquet"


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rankframe", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


# --------------------------------------------------------------------------------------------- success


def test_python_dash_m_and_readme_command():
    p = run_process("evaluate", "examples/recs.parquet", "-m", "nDCG@10", "-m", "AP@10", "-m", "P@5",
                    "--by", "country")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""  # no progress line in a pipe
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["country", "nDCG@10", "AP@10", "P@5"]
    assert [ln.split()[0] for ln in lines[1:]] == ["br", "de", "fr", "us"]


def test_runs_side_by_side_table(capsys):
    code, out, err = run_main(capsys, "evaluate", str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP",
                              "-m", "P@2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["system", "AP", "P@2"]
    # hand check, tiny: q001 ranks D03(1) D01(2) D05/D02 tie at 8.0 -> D05 first (docno descending) D04;
    # relevant D01, D03, D07 -> AP = (1/1 + 2/2) / 3; q002: D12(1) rel -> AP = 1/2 (D19 unretrieved);
    # q003: nothing relevant -> 0.  Mean (2/3 + 1/2 + 0) / 3 = 0.3889; P@2 = (1 + 1/2 + 0) / 3 = 0.5
    assert lines[1].split() == ["tiny", "0.3889", "0.5000"]
    assert lines[2].split()[0] == "tiny-b"


def test_default_measures(capsys):
    code, out, _ = run_main(capsys, "evaluate", str(RUN), "--qrels", str(QRELS))
    assert code == 0
    assert out.splitlines()[0].split() == ["system", "AP", "nDCG", "nDCG@10", "P@5", "P@10", "R@100", "Rprec",
                                           "Bpref", "RR"]


def test_formats(capsys):
    base = ["evaluate", str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "-m", "nDCG@10"]
    code, out, _ = run_main(capsys, *base, "--format", "csv")
    assert code == 0
    assert out.splitlines()[0] == "system,metric,value"
    assert len(out.splitlines()) == 5
    code, out, _ = run_main(capsys, *base, "--format", "json")
    rows = json.loads(out)
    assert rows[0].keys() == {"system", "metric", "value"} and len(rows) == 4
    code, out, _ = run_main(capsys, *base, "--format", "markdown")
    assert out.splitlines()[:2] == ["| system | AP | nDCG@10 |", "|---|---:|---:|"]
    code, out, _ = run_main(capsys, *base, "--format", "trec")
    lines = out.splitlines()
    assert lines[0] == "runid                 \tall\ttiny"
    assert lines[1] == "map                   \tall\t0.3889"
    assert lines[2].startswith("ndcg_cut_10           \tall\t")
    assert lines[3] == "runid                 \tall\ttiny-b"


def test_per_query_and_complete(capsys):
    code, out, _ = run_main(capsys, "evaluate", str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "-q",
                            "--format", "trec")
    assert code == 0
    lines = out.splitlines()
    assert [ln.split("\t")[1] for ln in lines] == ["001", "002", "003", "all", "all"]
    code, out, _ = run_main(capsys, "evaluate", str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--per-query")
    assert out.splitlines()[0].split() == ["system", "query", "AP"]
    assert [ln.split()[1] for ln in out.splitlines()[1:]] == ["001", "002", "003"]  # ids stay strings


def test_complete_counts_unretrieved_queries(tmp_path, capsys):
    run = tmp_path / "r.run"
    run.write_text("001 Q0 D01 1 1.0 t\n")
    args = ["evaluate", str(run), "--qrels", str(QRELS), "-m", "P@1", "--format", "csv"]
    _, out, _ = run_main(capsys, *args)
    assert out.splitlines()[1] == "t,P@1,1.0"  # only query 001 (trec_eval default)
    _, out, _ = run_main(capsys, *args, "--complete")
    assert out.splitlines()[1].startswith("t,P@1,0.333333")  # 002 and 003 count as 0 (trec_eval -c)


def test_long_table_by_segments_and_engines(capsys):
    args = ["evaluate", str(RECS), "-m", "nDCG@10", "--by", "model,country", "--format", "csv"]
    code, out, _ = run_main(capsys, *args)
    assert code == 0
    assert out.splitlines()[0] == "model,country,metric,value"
    assert len(out.splitlines()) == 1 + 2 * 4
    args = ["evaluate", str(RECS), "-m", "nDCG@10", "-m", "AP@10", "-m", "ERR@5", "--by", "device"]
    _, pandas_table, _ = run_main(capsys, *args, "--engine", "pandas")
    _, duckdb_table, _ = run_main(capsys, *args, "--engine", "duckdb")
    assert pandas_table == duckdb_table


def test_long_csv_table_with_column_names(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("user,movie,pos,stars\n007,a,1,1\n007,b,2,0\n008,a,1,0\n008,c,,2\n")
    code, out, err = run_main(capsys, "evaluate", str(t), "--query", "user", "--item", "movie", "--rank",
                              "pos", "--relevance", "stars", "-m", "RR", "-m", "R@1", "--per-query",
                              "--format", "csv")
    assert code == 0, err
    assert out.splitlines() == ["user,metric,value", "007,RR,1.0", "008,RR,0.0", "007,R@1,1.0",
                                "008,R@1,0.0"] or sorted(out.splitlines()[1:]) == sorted(
        ["007,RR,1.0", "008,RR,0.0", "007,R@1,1.0", "008,R@1,0.0"])


def test_sql_prints_macros(capsys):
    try:
        from rankframe import sql

        sql.text()
    except (ImportError, FileNotFoundError, AttributeError):
        pytest.skip("rankframe.sql.text() is not available yet")
    code, out, _ = run_main(capsys, "sql")
    assert code == 0
    assert "CREATE" in out.upper() and "rf_ap" in out


def test_validate_ok(capsys):
    code, out, _ = run_main(capsys, "validate", str(RECS))
    assert code == 0 and out.startswith("ok: ")
    code, out, _ = run_main(capsys, "validate", str(RUN), "--qrels", str(QRELS))
    assert code == 0 and out.startswith("ok: ")


def test_validate_reports_violations(tmp_path, capsys):
    t = tmp_path / "bad.csv"
    t.write_text("query,item,rank,relevance\n1,a,1,1\n1,b,1,0\n1,c,-3,x\n")
    code, out, err = run_main(capsys, "validate", str(t))
    assert code == 2 and out == ""
    assert err.startswith("rankframe: error: ") and "rank" in err


def test_trec_names():
    assert trec_name(parse("AP@10"))[0] == "map_cut_10"
    assert trec_name(parse("Success@5"))[0] == "success_5"
    assert trec_name(parse("R@100"))[0] == "recall_100"
    assert trec_name(parse("RR@10")) is None  # trec_eval's recip_rank has no cutoff
    assert trec_name(parse("P(rel=2)@5")) is None  # not trec_eval's default relevance level
    assert trec_name(parse("nDCG(gain='exponential')")) is None


def test_progress_never_draws_without_a_terminal():
    stream = io.StringIO()
    with Progress(3, stream=stream, delay=0) as p:
        p.step("reading")
    assert stream.getvalue() == ""


def test_progress_draws_on_a_terminal_after_the_delay():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    import time

    with Progress(2, stream=stream, delay=0) as p:
        p.step("reading")
        time.sleep(0.5)
    text = stream.getvalue()
    assert "rankframe [" in text and "reading" in text and text.endswith("\r")


# --------------------------------------------------------------------------------------------- errors


def _bad(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


ERROR_CASES = {
    "truncated line": ("run", "001 Q0 D01 1 1.0 t\n001 Q0 D02 2\n",
                       "line 2: expected at least 6 whitespace-separated fields"),
    "non-numeric score": ("run", "001 Q0 D01 1 1.0 t\n001 Q0 D02 2 abc t\n",
                          "line 2: score is not a number: 'abc'"),
    "duplicate docno": ("run", "001 Q0 D01 1 1.0 t\n001 Q0 D01 2 0.5 t\n",
                        "line 2: duplicate docno 'D01' for query '001' (first on line 1)"),
    "empty file": ("run", "", "empty file"),
    "empty qrels": ("qrels", "# nothing\n", "empty file"),
    "qrels wrong columns": ("qrels", "001 0 D01\n", "line 1: expected 4 whitespace-separated fields"),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_input_errors_in_process(tmp_path, capsys, case):
    kind, text, expected = ERROR_CASES[case]
    bad = _bad(tmp_path, "bad.txt", text)
    run, qrels = (bad, QRELS) if kind == "run" else (RUN, bad)
    code, out, err = run_main(capsys, "evaluate", str(run), "--qrels", str(qrels), "-m", "AP")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"rankframe: error: {bad}")
    assert expected in err


@pytest.mark.parametrize("case", ["truncated line", "non-numeric score", "duplicate docno", "empty file"])
def test_input_errors_exit_2_in_a_process(tmp_path, case):
    kind, text, expected = ERROR_CASES[case]
    bad = _bad(tmp_path, "bad.run", text)
    p = run_process("evaluate", str(bad), "--qrels", str(QRELS), "-m", "AP")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("rankframe: error: ") and expected in p.stderr
    assert "Traceback" not in p.stderr


def test_missing_file(tmp_path, capsys):
    missing = tmp_path / "nope.run"
    code, out, err = run_main(capsys, "evaluate", str(missing), "--qrels", str(QRELS))
    assert code == 2 and err == f"rankframe: error: {missing}: file not found\n"
    p = run_process("evaluate", str(RUN), "--qrels", str(missing))
    assert p.returncode == 2 and p.stderr == f"rankframe: error: {missing}: file not found\n"


def test_unknown_measure(capsys):
    code, out, err = run_main(capsys, "evaluate", str(RUN), "--qrels", str(QRELS), "-m", "nDGC@10")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "unknown metric 'nDGC'" in err and "did you mean 'nDCG'" in err
    p = run_process("evaluate", str(RUN), "--qrels", str(QRELS), "-m", "bogus")
    assert p.returncode == 2 and p.stderr.startswith("rankframe: error: unknown metric 'bogus'")


def test_bad_metric_parameter(capsys):
    code, _, err = run_main(capsys, "evaluate", str(RUN), "--qrels", str(QRELS), "-m", "P@0")
    assert code == 2 and "'k' parameter" in err and err.count("\n") == 1


def test_usage_errors_exit_2(capsys):
    code, _, err = run_main(capsys, "evaluate", str(RUN), "-m", "AP")
    assert code == 2 and "--qrels" in err
    code, _, err = run_main(capsys, "evaluate", str(RECS), "-m", "AP", "--by", "nope")
    assert code == 2 and "nope" in err
    code, _, err = run_main(capsys, "evaluate", str(RECS), "-m", "AP", "--by", "country", "--format", "trec")
    assert code == 2 and "--format trec" in err
    with pytest.raises(SystemExit) as e:
        main(["evaluate", str(RUN), "--format", "xml"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
