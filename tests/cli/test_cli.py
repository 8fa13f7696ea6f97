"""The ``rankframe`` command: formats, runs side by side, long tables, sql, validate, errors, exit codes."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankframe.cli import FORMATS, main, trec_name
from rankframe.measures.names import parse

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUN, RUN_B, QRELS, RECS = EX / "tiny.run", EX / "tiny-b.run", EX / "tiny.qrels", EX / "recs.parquet"


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def run_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rankframe", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


# --------------------------------------------------------------------------------------------- success


def test_python_dash_m_and_readme_command():
    p = run_process("evaluate", "examples/recs.parquet", "-m", "nDCG@10", "-m", "AP@10", "-m", "P@5", "--by", "country")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""  # no progress line in a pipe
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["country", "nDCG@10", "AP@10", "P@5"]
    assert [ln.split()[0] for ln in lines[1:]] == ["br", "de", "fr", "us"]


def test_runs_side_by_side_table(capsys):
    code, out, err = run_main(capsys, "evaluate", str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "-m", "P@2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["system", "AP", "P@2"]
    # hand check, tiny: q001 ranks D03(1) D01(2) D05/D02 tie at 8.0 -> D05 first (docno descending) D04;
    # relevant D01, D03, D07 -> AP = (1/1 + 2/2) / 3; q002: D12(1) rel -> AP = 1/2 (D19 unretrieved);
    # q003: nothing relevant -> 0.  Mean (2/3 + 1/2 + 0) / 3 = 0.3889; P@2 = (1 + 1/2 + 0) / 3 = 0.5
    assert lines[1].split() == ["tiny", "0.3889", "0.5000"]
    # tiny-b: q001 D01 D07 D03, all three relevant -> AP 1, P@2 1; q002 D19 D12, both relevant -> AP 1, P@2 1;
    # q003 nothing relevant -> 0.  Means 2/3, 2/3
    assert lines[2].split() == ["tiny-b", "0.6667", "0.6667"]
    assert len(lines) == 3


def test_default_measures(capsys):
    code, out, _ = run_main(capsys, "evaluate", str(RUN), "--qrels", str(QRELS))
    assert code == 0
    assert out.splitlines()[0].split() == [
        "system",
        "AP",
        "nDCG",
        "nDCG@10",
        "P@5",
        "P@10",
        "R@100",
        "Rprec",
        "Bpref",
        "RR",
    ]


def test_formats(capsys):
    base = ["evaluate", str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "-m", "nDCG@10"]
    code, out, _ = run_main(capsys, *base, "--format", "csv")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "system,metric,value,n"  # n: the queries each mean averages
    assert [ln.split(",")[:2] for ln in lines[1:]] == [
        ["tiny", "AP"],
        ["tiny", "nDCG@10"],
        ["tiny-b", "AP"],
        ["tiny-b", "nDCG@10"],
    ]
    assert float(lines[1].split(",")[2]) == pytest.approx(7 / 18)  # (2/3 + 1/2 + 0) / 3, see above
    assert [ln.split(",")[3] for ln in lines[1:]] == ["3"] * 4  # 001, 002, 003: every judged query
    code, out, _ = run_main(capsys, *base, "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [r.keys() for r in rows] == [{"system", "metric", "value", "n"}] * 4
    assert rows[2] == {"system": "tiny-b", "metric": "AP", "value": pytest.approx(2 / 3), "n": 3}
    code, out, _ = run_main(capsys, *base, "--format", "markdown")
    assert code == 0
    assert out.splitlines()[:3] == ["| system | AP | nDCG@10 |", "|---|---:|---:|", "| tiny | 0.3889 | 0.3675 |"]
    code, out, _ = run_main(capsys, *base, "--format", "trec")
    assert code == 0
    lines = [ln for ln in out.splitlines() if not ln.startswith("num_")]  # the counts: test_per_query
    assert lines[0] == "runid                 \tall\ttiny"
    assert lines[1] == "map                   \tall\t0.3889"
    assert lines[2].startswith("ndcg_cut_10           \tall\t")
    assert lines[3] == "runid                 \tall\ttiny-b"
    assert out.splitlines()[1:5] == [
        f"{n:<22}\tall\t{v}" for n, v in [("num_q", 3), ("num_ret", 10), ("num_rel", 5)]
    ] + [
        "num_rel_ret           \tall\t3"
    ]  # by hand, tiny.run: 5 + 3 + 2 retrieved; relevant D01 D03 D07 (001), D12 D19 (002): D03 D01 D12 retrieved


def test_ci_adds_the_interval_of_each_mean(capsys):
    """--ci 0.95: n, std_err = sd / sqrt(n) and the t interval, as scipy's one-sample t-test on the per-query
    values (AP of tiny: 2/3, 1/2, 0; of tiny-b: 1, 1, 0; derived in test_runs_side_by_side_table)."""
    from scipy import stats

    per_query = {"tiny": [2 / 3, 1 / 2, 0.0], "tiny-b": [1.0, 1.0, 0.0]}
    base = ["evaluate", str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--ci", "0.95"]
    code, out, err = run_main(capsys, *base, "--format", "csv")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "system,metric,value,n,std_err,ci_low,ci_high"
    for line, (system, x) in zip(lines[1:], per_query.items()):
        fields = line.split(",")
        ci = stats.ttest_1samp(x, 0.0).confidence_interval(0.95)
        assert fields[:2] == [system, "AP"] and fields[3] == "3"
        got = [float(v) for v in (fields[2], *fields[4:])]
        assert got == pytest.approx([np.mean(x), stats.sem(x), ci.low, ci.high], abs=1e-12)
    code, out, _ = run_main(capsys, *base, "--format", "json")
    rows = json.loads(out)
    assert list(rows[1]) == ["system", "metric", "value", "n", "std_err", "ci_low", "ci_high"]
    assert rows[1]["ci_high"] == pytest.approx(stats.ttest_1samp(per_query["tiny-b"], 0.0).confidence_interval().high)
    # table and markdown: long (one row per system and metric), rounded, under a caption naming the level
    code, out, _ = run_main(capsys, *base[:-1], "0.9")
    lines = out.splitlines()
    caption = "value: the mean over n queries; [ci_low, ci_high]: its 90% t interval (std_err = sd / sqrt(n))"
    assert lines[0] == caption
    assert [ln.split() for ln in lines[1:3]] == [
        ["system", "metric", "value", "n", "std_err", "ci_low", "ci_high"],
        ["tiny", "AP", "0.3889", "3"]
        + [f"{v:.4f}" for v in (stats.sem(per_query["tiny"]), *stats.ttest_1samp(per_query["tiny"], 0.0)
                                .confidence_interval(0.9))],
    ]  # fmt: skip
    code, out, _ = run_main(capsys, *base, "--format", "markdown")
    assert out.splitlines()[:4] == [
        caption.replace("90%", "95%"),
        "",
        "| system | metric | value | n | std_err | ci_low | ci_high |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]


def test_ci_errors_exit_2(capsys):
    base = ["evaluate", str(RUN), "--qrels", str(QRELS), "-m", "AP"]
    for extra, expected in (
        # evaluate's own check of ci=, in the option's words (rankframe.cli._options._cli_words)
        (["--ci", "1.5"], "--ci must be a float in the open interval (0, 1), e.g. 0.95. Got 1.5 instead."),
        (["--ci", "nan"], "--ci must be a float in the open interval (0, 1)"),
        (["--ci", "0.95", "--per-query"], "--ci gives intervals of means; it does not apply with --per-query"),
        (["--ci", "0.95", "--format", "trec"], "--format trec prints trec_eval's lines, without intervals"),
    ):
        code, out, err = run_main(capsys, *base, *extra)
        assert code == 2 and out == "" and err.count("\n") == 1 and expected in err, (extra, err)


def test_per_query(capsys):
    code, out, _ = run_main(capsys, "evaluate", str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "-q", "--format", "trec")
    assert code == 0
    # tiny-b, see test_runs_side_by_side_table: AP 1, 1, 0 -> mean 2/3; trec_eval's layout and number format
    # trec_eval's count lines come first (integers; the all line sums them, num_q has no per-query line), by hand
    # from tiny.qrels and tiny-b.run: 001 retrieves D01 D07 D03, all 3 relevant; 002 D19 D12 (2 relevant of 2);
    # 003 D22 (judged 0, nothing relevant)
    assert out.splitlines() == [
        "num_ret               \t001\t3",
        "num_rel               \t001\t3",
        "num_rel_ret           \t001\t3",
        "map                   \t001\t1.0000",
        "num_ret               \t002\t2",
        "num_rel               \t002\t2",
        "num_rel_ret           \t002\t2",
        "map                   \t002\t1.0000",
        "num_ret               \t003\t1",
        "num_rel               \t003\t0",
        "num_rel_ret           \t003\t0",
        "map                   \t003\t0.0000",
        "runid                 \tall\ttiny-b",
        "num_q                 \tall\t3",
        "num_ret               \tall\t6",
        "num_rel               \tall\t5",
        "num_rel_ret           \tall\t5",
        "map                   \tall\t0.6667",
    ]
    code, out, _ = run_main(capsys, "evaluate", str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--per-query")
    assert code == 0
    assert [ln.split() for ln in out.splitlines()] == [
        ["system", "query", "AP"],
        ["tiny-b", "001", "1.0000"],  # ids stay strings
        ["tiny-b", "002", "1.0000"],
        ["tiny-b", "003", "0.0000"],
    ]


def test_unretrieved_queries_count_as_zero_by_default_as_in_python(tmp_path, capsys):
    """One set of defaults: the CLI's are rankframe.registry.POLICIES, trec_eval's own is one flag away."""
    run = tmp_path / "r.run"
    run.write_text("001 Q0 D01 1 1.0 t\n")
    args = ["evaluate", str(run), "--qrels", str(QRELS), "-m", "P@1", "--format", "csv"]
    # D01 is relevant for 001 (P@1 = 1); 002 and 003 are judged but not retrieved
    code, out, err = run_main(capsys, *args)
    assert code == 0, err
    assert out.splitlines() == ["system,metric,value,n", f"t,P@1,{1 / 3},3"]  # 0 for 002 and 003 (trec_eval -c)
    for flag in (["--complete"], ["-c"], ["--no-retrieved", "zero"], ["-c", "--no-retrieved", "zero"]):
        _, out, _ = run_main(capsys, *args, *flag)
        assert out.splitlines()[1] == f"t,P@1,{1 / 3},3", flag
    _, out, _ = run_main(capsys, *args, "--no-retrieved", "skip")
    assert out.splitlines()[1] == "t,P@1,1.0,1"  # only query 001 (trec_eval without -c)
    _, out, _ = run_main(capsys, *args, "--no-retrieved", "nan")
    assert out.splitlines()[1] == "t,P@1,1.0,1"  # NaN values are left out of the mean (and of n)
    code, out, err = run_main(capsys, *args, "-c", "--no-retrieved", "skip")
    assert code == 2 and out == "" and "contradicts --no-retrieved skip" in err


def test_policy_options_come_from_the_registry(capsys):
    from rankframe.cli import _parser, _policies
    from rankframe.measures.registry import POLICIES

    ev = _parser()._subparsers._group_actions[0].choices["evaluate"]
    for param in POLICIES:
        action = next(a for a in ev._actions if a.dest == param.name)
        assert action.option_strings == ["--" + param.name.replace("_", "-")]
        assert tuple(action.choices) == tuple(param.choices)
    args = _parser().parse_args(["evaluate", "x.run"])
    assert _policies(args) == {p.name: p.default for p in POLICIES}
    args = _parser().parse_args(["evaluate", "x.run", "--no-judged", "zero", "--no-relevant", "nan"])
    assert _policies(args) == {"no_relevant": "nan", "no_retrieved": "zero", "no_judged": "zero"}
    with pytest.raises(SystemExit):
        _parser().parse_args(["evaluate", "x.run", "--no-judged", "drop"])
    assert "invalid choice: 'drop'" in capsys.readouterr().err


def test_no_relevant_and_no_judged_options(tmp_path, capsys):
    run = tmp_path / "r.run"
    # 001: D01 (grade 2, the best grade of 001) at rank 1: nDCG@1 = (2 / log2 2) / (2 / log2 2) = 1;
    # 003: judged, nothing relevant (nDCG undefined: the no_relevant policy); 004: not judged at all (no_judged)
    run.write_text("001 Q0 D01 1 1.0 t\n003 Q0 D21 1 1.0 t\n004 Q0 X 1 1.0 t\n")
    args = ["evaluate", str(run), "--qrels", str(QRELS), "-m", "nDCG@1", "--format", "csv", "--no-retrieved", "skip"]
    _, out, _ = run_main(capsys, *args)
    assert out.splitlines()[1] == "t,nDCG@1,0.5,2"  # 001 -> 1, 003 -> 0 (no_relevant zero), 004 skipped
    _, out, _ = run_main(capsys, *args, "--no-relevant", "skip")
    assert out.splitlines()[1] == "t,nDCG@1,1.0,1"  # only 001
    _, out, _ = run_main(capsys, *args, "--no-judged", "zero")
    assert out.splitlines()[1] == f"t,nDCG@1,{1 / 3},3"  # 001 -> 1, 003 -> 0, 004 -> 0


def test_long_table_by_segments_and_engines(capsys):
    args = ["evaluate", str(RECS), "-m", "nDCG@10", "--by", "model,country", "--format", "csv"]
    code, out, _ = run_main(capsys, *args)
    assert code == 0
    assert out.splitlines()[0] == "model,country,metric,value,n"
    assert len(out.splitlines()) == 1 + 2 * 4
    args = ["evaluate", str(RECS), "-m", "nDCG@10", "-m", "AP@10", "-m", "ERR@5", "--by", "device"]
    _, pandas_table, _ = run_main(capsys, *args, "--engine", "pandas")
    _, duckdb_table, _ = run_main(capsys, *args, "--engine", "duckdb")
    assert pandas_table == duckdb_table


def test_long_csv_table_with_column_names(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("user,movie,pos,stars\n007,a,1,1\n007,b,2,0\n008,a,1,0\n008,c,,2\n")
    code, out, err = run_main(
        capsys,
        "evaluate",
        str(t),
        "--query",
        "user",
        "--item",
        "movie",
        "--rank",
        "pos",
        "--relevance",
        "stars",
        "-m",
        "RR",
        "-m",
        "R@1",
        "--per-query",
        "--format",
        "csv",
    )
    assert code == 0, err
    # 007: a (relevant) at 1 -> RR 1, R@1 = 1/1; 008: a (not relevant) at 1, c (relevant) unranked -> 0, 0.
    # Long format [query, metric, value], sorted by query, then metric in the order asked (evaluate's order).
    assert out.splitlines() == ["user,metric,value", "007,RR,1.0", "007,R@1,1.0", "008,RR,0.0", "008,R@1,0.0"]


def test_sql_prints_macros(capsys):
    from rankframe import sql
    from rankframe.measures.registry import METRICS

    code, out, err = run_main(capsys, "sql")
    assert code == 0, err
    assert out == sql.text().rstrip("\n") + "\n"
    for m in METRICS:
        assert re.search(rf"\bMACRO rf_{m.name}\(", out), m.name  # each metric's list macro
    assert "MACRO rf_means(" in out and "MACRO rf_per_query(" in out


def _installed_tree(site: Path) -> None:
    """Lay out the package as the wheel installs it: rankframe/ plus rankframe/_sql (what hatch_build.py adds)."""
    import shutil

    from rankframe import sql

    assert "hatch_build.py" in (ROOT / "pyproject.toml").read_text()
    shutil.copytree(ROOT / "rankframe", site / "rankframe", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "rankframe" / "_sql").mkdir()
    for path in sql.files(ROOT / "sql"):
        shutil.copy(path, site / "rankframe" / "_sql" / path.name)
    (site / "rankframe" / "_sql" / sql.BUNDLE).write_text(sql.text(ROOT / "sql"))


def test_sql_command_works_from_an_installed_package(tmp_path):
    """`rankframe sql` in an installed copy (no source checkout next to it) prints every macro, exit 0."""
    site = tmp_path / "site"
    _installed_tree(site)
    p = subprocess.run(
        [sys.executable, "-m", "rankframe", "sql"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    from rankframe import sql

    assert p.stdout == sql.text().rstrip("\n") + "\n"
    import duckdb

    con = duckdb.connect()
    con.execute(p.stdout)  # the printed script defines the macros
    assert con.execute("SELECT rf_rr([0, 0, 1])").fetchall()[0][0] == pytest.approx(1 / 3)


def test_validate_ok(capsys):
    code, out, _ = run_main(capsys, "validate", str(RECS))
    assert code == 0 and out == f"ok: {RECS}: 8128 rows, 300 queries\n"
    code, out, _ = run_main(capsys, "validate", str(RUN), "--qrels", str(QRELS))
    assert code == 0 and out.startswith(f"ok: {RUN}: ") and out.endswith(" 3 queries\n")


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


# --------------------------------------------------------------------------------------------- errors


def _bad(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


ERROR_CASES = {
    "truncated line": (
        "run",
        "001 Q0 D01 1 1.0 t\n001 Q0 D02 2\n",
        "line 2: expected at least 6 whitespace-separated fields",
    ),
    "non-numeric score": ("run", "001 Q0 D01 1 1.0 t\n001 Q0 D02 2 abc t\n", "line 2: score is not a number: 'abc'"),
    "duplicate docno": (
        "run",
        "001 Q0 D01 1 1.0 t\n001 Q0 D01 2 0.5 t\n",
        "line 2: duplicate docno 'D01' for query '001' (first on line 1)",
    ),
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


@pytest.mark.parametrize("case", ["duplicate docno"])  # the other cases run in-process above
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


# ------------------------------------------------------------------------------------ hostile inputs (CLI)


def _garbage(n: int = 3000) -> bytes:
    return np.random.default_rng(3).integers(0, 256, n, dtype=np.uint8).tobytes()


def _run_lines(n_queries: int = 30, n_docs: int = 40) -> str:
    return "".join(f"{q:03d} Q0 D{d:02d} {d + 1} {50 - d}.5 t\n" for q in range(1, n_queries) for d in range(n_docs))


GARBAGE = {
    "random bytes": ("g.txt", _garbage()),
    "random bytes, no NUL": ("g.txt", _garbage().replace(b"\x00", b"")),
    "gzipped random bytes": ("g.gz", gzip.compress(_garbage())),
    "truncated gzip": ("g.gz", gzip.compress(_run_lines().encode())[:2000]),
}


@pytest.mark.parametrize("role", ["run", "qrels"])
@pytest.mark.parametrize("case", sorted(GARBAGE))
def test_binary_garbage_exits_2_with_one_line(tmp_path, capsys, case, role):
    name, data = GARBAGE[case]
    bad = tmp_path / name
    bad.write_bytes(data)
    run, qrels = (bad, QRELS) if role == "run" else (RUN, bad)
    code, out, err = run_main(capsys, "evaluate", str(run), "--qrels", str(qrels), "-m", "AP")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and re.match(rf"rankframe: error: {re.escape(str(bad))}, line \d+: ", err), err


@pytest.mark.parametrize(
    ("name", "data", "where"),
    [
        ("g.parquet", _garbage(), "not a readable Parquet file"),
        ("e.parquet", b"", "empty file"),
        ("e.csv", b"", "empty file"),
        ("g.csv", _garbage(), ", line "),
        ("g.csv.gz", gzip.compress(_garbage()), ", line "),
    ],
    ids=["parquet", "empty parquet", "empty csv", "csv", "csv.gz"],
)
def test_garbage_tables_exit_2_with_one_line(tmp_path, capsys, name, data, where):
    bad = tmp_path / name
    bad.write_bytes(data)
    for command in (["evaluate", str(bad), "-m", "AP"], ["validate", str(bad)]):
        code, out, err = run_main(capsys, *command)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith(f"rankframe: error: {bad}") and where in err, err


def test_garbage_in_a_process_is_not_a_traceback(tmp_path):
    bad = tmp_path / "g.gz"
    bad.write_bytes(gzip.compress(_garbage()))
    p = run_process("evaluate", str(bad), "--qrels", str(QRELS), "-m", "AP")
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"rankframe: error: {bad}, line ")


def test_keep_first_duplicate_with_several_runs(tmp_path, capsys):
    dup = tmp_path / "dup.run"
    dup.write_text(RUN_B.read_text() + "001 Q0 D07 9 0.01 tiny-b\n")  # D07 again, far down
    args = ["evaluate", str(dup), str(RUN), "--qrels", str(QRELS), "-m", "AP", "--format", "csv"]
    code, out, err = run_main(capsys, *args)
    assert code == 2 and "duplicate docno 'D07' for query '001' (first on line 2)" in err
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        code, out, err = run_main(capsys, *args, "--keep-first-duplicate")
    assert code == 0, err
    # the first D07 line is kept: tiny-b's AP stays 2/3 (see test_runs_side_by_side_table), tiny's 7/18
    rows = [ln.split(",") for ln in out.splitlines()]
    assert rows[0] == ["system", "metric", "value", "n"]
    assert [r[:2] for r in rows[1:]] == [["tiny", "AP"], ["tiny-b", "AP"]]
    assert [float(r[2]) for r in rows[1:]] == pytest.approx([7 / 18, 2 / 3])
    code, out, err = run_main(capsys, "validate", str(dup), "--qrels", str(QRELS))
    assert code == 2 and "--keep-first-duplicate" in err
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        code, out, err = run_main(capsys, "validate", str(dup), "--qrels", str(QRELS), "--keep-first-duplicate")
    assert code == 0 and out.startswith("ok: ")


def test_allow_duplicates_for_long_tables(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("query,item,rank,relevance\n1,a,1,0\n1,a,2,0\n1,b,3,1\n")  # 'a' listed twice
    code, out, err = run_main(capsys, "evaluate", str(t), "-m", "RR", "--format", "csv")
    assert code == 2 and out == "" and "pass --allow-duplicates" in err and "allow_duplicates" not in err  # its flag
    code, out, err = run_main(capsys, "evaluate", str(t), "-m", "RR", "--format", "csv", "--allow-duplicates")
    assert code == 0, err
    assert out.splitlines() == ["metric,value,n", f"RR,{1 / 3},1"]  # b, the first relevant, at rank 3
    code, out, err = run_main(capsys, "validate", str(t))
    assert code == 2 and "pass --allow-duplicates" in err
    code, out, err = run_main(capsys, "validate", str(t), "--allow-duplicates")
    assert code == 0 and out == f"ok: {t}: 3 rows, 1 queries\n"


def test_duplicate_options_belong_to_one_kind_of_input(capsys):
    code, _, err = run_main(capsys, "evaluate", str(RECS), "--keep-first-duplicate")
    assert code == 2 and "--keep-first-duplicate is for TREC runs" in err and "--allow-duplicates" in err
    code, _, err = run_main(capsys, "validate", str(RUN), "--qrels", str(QRELS), "--allow-duplicates")
    assert code == 2 and "--allow-duplicates is for long tables" in err


def test_run_without_judged_queries_says_so(tmp_path, capsys):
    run = tmp_path / "r.run"
    run.write_text("1 Q0 D01 1 1.0 t\n2 Q0 D02 1 1.0 t\n3 Q0 D03 1 1.0 t\n")  # tiny.qrels says 001, 002, 003
    for fmt in FORMATS:
        for policy in ([], ["--no-retrieved", "skip"]):
            code, out, err = run_main(capsys, "evaluate", str(run), "--qrels", str(QRELS), "--format", fmt, *policy)
            assert code == 2 and out == "", (fmt, policy)
            assert err == (
                f"rankframe: error: {QRELS}: none of the 3 queries of run 't' has judgments in the qrels "
                f"('1', '2', '3'; the qrels judge '001', '002', '003'): do the files belong together?\n"
            )
    # with a good run next to it: the bad one is named
    code, out, err = run_main(capsys, "evaluate", str(RUN), str(run), "--qrels", str(QRELS))
    assert code == 2 and "run 't'" in err and "Empty DataFrame" not in out


def test_long_table_without_judged_queries_says_so(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("query,item,rank\n7,a,1\n8,b,1\n")
    code, out, err = run_main(capsys, "evaluate", str(t), "--qrels", str(QRELS), "-m", "AP")
    assert code == 2 and out == "" and "none of the 2 queries of the run has judgments in the qrels ('7', '8';" in err
    t.write_text("query,item,rank,relevance\n7,a,1,\n8,b,1,\n")
    code, out, err = run_main(capsys, "evaluate", str(t), "-m", "AP")
    assert code == 2 and out == "" and "none of the 2 queries of the table has a judgment" in err


def test_nothing_left_after_the_policies_is_an_error_not_an_empty_frame(tmp_path, capsys):
    run = tmp_path / "r.run"
    run.write_text("003 Q0 D21 1 1.0 t\n")  # 003 is judged but has nothing relevant: AP undefined
    for fmt in FORMATS:
        code, out, err = run_main(
            capsys,
            "evaluate",
            str(run),
            "--qrels",
            str(QRELS),
            "--format",
            fmt,
            "-m",
            "AP",
            "--no-relevant",
            "skip",
            "--no-retrieved",
            "skip",
        )
        assert code == 2 and out == "" and "no query left to evaluate" in err, fmt
        assert "--no-relevant skip" in err


def test_several_tables_and_a_system_column(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("query,item,rank,relevance\n1,x,1,1\n")
    b.write_text("query,item,rank,relevance,system\n1,x,1,0,mine\n")
    code, out, err = run_main(capsys, "evaluate", str(a), str(b), "-m", "P@1")
    assert code == 2 and out == ""
    assert err.startswith(f"rankframe: error: {b} already has a column 'system'") and "rename" in err
    b.write_text("query,item,rank,relevance\n1,x,1,0\n")
    code, out, err = run_main(capsys, "evaluate", str(a), str(b), "-m", "P@1", "--format", "csv")
    assert code == 0 and out.splitlines() == ["system,metric,value,n", "a.csv,P@1,1.0,1", "b.csv,P@1,0.0,1"]
    code, out, err = run_main(capsys, "evaluate", str(b), "-m", "P@1", "--by", "system")
    assert code == 2 and "no column 'system' (--by)" in err  # one table: --by names its own columns


@pytest.mark.parametrize("name", ["metric", "value"])
def test_a_by_column_named_like_an_output_column(tmp_path, capsys, name):
    t = tmp_path / "t.csv"
    t.write_text(f"query,item,rank,relevance,{name}\n1,x,1,1,a\n2,x,1,0,b\n")
    code, out, err = run_main(capsys, "evaluate", str(t), "-m", "P@1", "--by", name)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{name!r} has the name of an output column" in err


def test_missing_columns_name_the_file_with_a_hint(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("user,movie,pos,stars,country\n007,a,1,1,de\n")
    base = ["evaluate", str(t), "-m", "RR", "--item", "movie", "--rank", "pos", "--relevance", "stars"]
    code, out, err = run_main(capsys, *base, "--query", "usr")
    assert code == 2 and out == ""
    assert err.startswith(f"rankframe: error: {t}: no column 'usr' (--query usr) (did you mean 'user'?)")
    code, out, err = run_main(capsys, *base, "--query", "user", "--by", "contry")
    assert code == 2 and "no column 'contry' (--by) (did you mean 'country'?)" in err and str(t) in err
    code, out, err = run_main(capsys, "evaluate", str(t), "-m", "RR")  # the default names
    assert code == 2 and f"{t}: no column 'query' (the default query column; name yours with --query)" in err
    code, out, err = run_main(capsys, "evaluate", str(t), "-m", "RR", "--query", "user", "--item", "movie")
    assert code == 2 and "neither a rank column 'rank' nor a score column 'score'" in err
    code, out, err = run_main(
        capsys,
        "evaluate",
        str(t),
        "-m",
        "RR",
        "--query",
        "user",
        "--item",
        "movie",
        "--rank",
        "pos",
        "--relevance",
        "star",
    )
    assert code == 2 and "no column 'star' (--relevance star) (did you mean 'stars'?)" in err
    code, out, err = run_main(capsys, "validate", str(t), "--query", "usr")
    assert code == 2 and err.startswith(f"rankframe: error: {t}: no column 'usr' (--query usr) (did you mean")
    code, out, err = run_main(capsys, "evaluate", str(RUN), "--qrels", str(QRELS), "--query", "qid")
    assert code == 2 and "--query names a column of a long table" in err


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


# ------------------------------------------------------------------------- every CLI line of the docs runs


def _doc_commands() -> list[tuple[str, int, str, list[str] | None]]:
    """(file, line number, command, expected output or None) for each CLI line of README's command-line
    section, of docs/cli.md, of docs/fusion.md's command-line section and docs/beyond-accuracy.md's faces: the lines of ```bash blocks, and the
    ``$ `` lines of ```console blocks with the output shown under them (a ``...`` line stands for lines left
    out)."""
    found = []
    docs = (ROOT / "docs" / "cli.md").read_text()
    sections = [
        (name, *_section((ROOT / name).read_text(), title))
        for name, title in (
            ("README.md", "## On the command line"),
            ("docs/fusion.md", "## The command line"),
            ("docs/beyond-accuracy.md", "## Faces"),
        )
    ]
    for name, text, base in (*sections, ("docs/cli.md", docs, 0)):
        for m in re.finditer(r"^```(bash|console)\n(.*?)^```", text, flags=re.S | re.M):
            first = base + text[: m.start()].count("\n") + 2
            lines = m.group(2).splitlines()
            if m.group(1) == "bash":
                found += [(name, first + i, ln, None) for i, ln in enumerate(lines) if ln.strip()]
                continue
            starts = [i for i, ln in enumerate(lines) if ln.startswith("$ ")]
            for i, j in zip(starts, [*starts[1:], len(lines)]):
                shown = lines[i + 1 : j]
                while shown and not shown[-1].strip():
                    shown.pop()
                found.append((name, first + i, lines[i][2:], shown or None))
    return found


def _section(text: str, title: str) -> tuple[str, int]:
    """The section of a Markdown page under ``title`` (to the next ``## ``) and the line number it starts at."""
    return text.split(title, 1)[1].split("\n## ", 1)[0], text[: text.index(title)].count("\n")


DOC_COMMANDS = _doc_commands()
#: the files the docs' lines write with -o, and the line writing each (a line reading one runs it first)
DOC_OUTPUTS = {
    words[words.index("-o") + 1]: cmd
    for _, _, cmd, _ in DOC_COMMANDS
    for words in [cmd.split()]
    if "-o" in words[:-1] and words[words.index("-o") + 1] != "-"
}


def test_the_docs_have_cli_lines():
    files = {name for name, _, _, _ in DOC_COMMANDS}
    assert (
        files == {"README.md", "docs/cli.md", "docs/fusion.md", "docs/beyond-accuracy.md"} and len(DOC_COMMANDS) >= 10
    )
    assert all(cmd.split()[0] in ("rankframe", "duckdb") for _, _, cmd, _ in DOC_COMMANDS)


@pytest.fixture(scope="module")
def doc_dir(tmp_path_factory) -> Path:
    """A scratch directory holding the shipped examples/, where the docs' lines run."""
    work = tmp_path_factory.mktemp("docs")
    (work / "examples").symlink_to(EX, target_is_directory=True)
    return work


def _run_doc_line(command: str, work: Path, capsys) -> tuple[int, str, str]:
    """Run one docs line: `rankframe ...` in this process (with a `> FILE` redirection), anything else in a shell."""
    import shlex

    words = shlex.split(command, comments=True)
    if words[0] != "rankframe":
        p = subprocess.run(command, shell=True, cwd=work, capture_output=True, text=True, timeout=300)
        return p.returncode, p.stdout, p.stderr
    target = None
    if ">" in words:
        k = words.index(">")
        words, target = words[:k], words[k + 1]
    capsys.readouterr()
    code = main(words[1:])
    out, err = capsys.readouterr()
    if target is not None:
        (work / target).write_text(out)
        out = ""
    return code, out, err


@pytest.mark.parametrize(
    ("name", "line", "command", "shown"), DOC_COMMANDS, ids=[f"{n}:{ln}" for n, ln, _, _ in DOC_COMMANDS]
)
@pytest.mark.quick_sample(6)  # the quick loop: 6 of the docs' command lines (tests/tiers.py)
def test_doc_cli_line_runs_as_written(doc_dir, capsys, monkeypatch, name, line, command, shown):
    """Exit 0 (or the `exit N` the line's comment states), and the output the docs show, if they show one."""
    import shutil

    monkeypatch.chdir(doc_dir)
    if command.startswith("duckdb") and shutil.which("duckdb") is None:
        pytest.skip("!!! the `duckdb` command-line binary is not installed: this docs line is not checked")
    if "rankframe.sql" in command and not command.startswith("rankframe sql"):
        _run_doc_line("rankframe sql > rankframe.sql", doc_dir, capsys)
    for path, writer in DOC_OUTPUTS.items():  # a file another docs line writes (e.g. fused.run): write it first
        # the path as a word anywhere in the line, inside a quoted duckdb -c ".read FILE" too
        if writer != command and re.search(rf"(?<![\w./-]){re.escape(path)}(?![\w.-])", command):
            _run_doc_line(writer, doc_dir, capsys)
    stated = re.search(r"#.*\bexit (\d)\b", command)
    code, out, err = _run_doc_line(command, doc_dir, capsys)
    assert code == (int(stated.group(1)) if stated else 0), f"{name}:{line}: {command}\n{err}"
    assert "Traceback" not in err
    if shown is not None:
        got = out.rstrip("\n").splitlines()
        if "..." in shown:
            k = shown.index("...")
            head, tail = shown[:k], shown[k + 1 :]
            assert got[: len(head)] == head and got[len(got) - len(tail) :] == tail, f"{name}:{line}"
        else:
            assert got == shown, f"{name}:{line}"
