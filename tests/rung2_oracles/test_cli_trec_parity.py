"""`rankframe evaluate --format trec` prints what trec_eval prints, line for line, for every shared measure.

Judges: trec_eval 10.0's own expected outputs (``../shared/data/trec_eval/test/out.test*``, made by the commands
listed in that folder's README.md) and, where no expected output exists, pytrec_eval (trec_eval compiled as a
Python extension; it evaluates the queries a run retrieved, i.e. trec_eval without ``-c``).

Defaults: plain ``--format trec`` is ``trec_eval -c`` (judged queries a run did not retrieve count as 0, the
Python API's default); ``--no-retrieved skip`` is plain ``trec_eval``.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from rankframe.cli import main

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TREC = DATA / "trec_eval" / "test"
ROBUST = DATA / "trectools_robust03"

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
MEASURES = [
    "AP",
    "Rprec",
    "Bpref",
    "RR",
    *(f"P@{k}" for k in CUTS),
    *(f"R@{k}" for k in CUTS),
    "nDCG",
    *(f"nDCG@{k}" for k in CUTS),
    *(f"AP@{k}" for k in CUTS),
    *(f"Success@{k}" for k in (1, 5, 10)),
]
TREC_NAMES = {
    "map",
    "Rprec",
    "bpref",
    "recip_rank",
    *(f"P_{k}" for k in CUTS),
    *(f"recall_{k}" for k in CUTS),
    "ndcg",
    *(f"ndcg_cut_{k}" for k in CUTS),
    *(f"map_cut_{k}" for k in CUTS),
    *(f"success_{k}" for k in (1, 5, 10)),
}


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"SHARED DATA MISSING: {path} (expected the shared data folder next to the project)")


def _cli(capsys, *args: str) -> list[str]:
    code = main(["evaluate", *args, "--format", "trec", "--no-progress", *(a for m in MEASURES for a in ("-m", m))])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out.splitlines()


def _measure_lines(lines: list[str]) -> list[str]:
    """The lines of measures both programs compute (drops runid, num_q, iprec_at_recall, ...)."""
    return [ln for ln in lines if ln.split("\t")[0].strip() in TREC_NAMES]


@pytest.mark.quick_sample(2, per="engine")  # trec_eval's six published outputs: 2 per engine in the quick loop
@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize(
    ("run", "expected", "flags"),
    [
        # trec_eval -m all_trec -q qrels.test results.test (every judged query retrieved: -c changes nothing)
        ("results.test", "out.test.aq", ["--per-query"]),
        ("results.test", "out.test.aq", ["--per-query", "--no-retrieved", "skip"]),
        # trec_eval -m all_trec -q -c qrels.test results.trunc: our default, and -c/--complete as an alias
        ("results.trunc", "out.test.aqc", ["--per-query"]),
        ("results.trunc", "out.test.aqc", ["--per-query", "--complete"]),
        ("results.trunc", "out.test.aqc", ["--per-query", "-c", "--no-retrieved", "zero"]),
        # trec_eval -m all_trec qrels.test results.test
        ("results.test", "out.test.a", []),
    ],
)
def test_trec_eval_expected_output(capsys, run, expected, flags, engine):
    _need(TREC)
    got = _cli(capsys, str(TREC / run), "--qrels", str(TREC / "qrels.test"), *flags, "--engine", engine)
    want = _measure_lines((TREC / expected).read_text().splitlines())
    assert len(want) >= 44
    assert _measure_lines(got) == want
    assert f"{'runid':<22}\tall\tSTANDARD" in got


def test_trec_eval_comments(capsys):
    """trec_eval 10's comment files (query ids like 2024-224960, docnos with '#'), default measure set."""
    _need(TREC)
    # out.comment.test is plain trec_eval (no -c)
    got = _cli(
        capsys,
        str(TREC / "results.comment.test"),
        "--qrels",
        str(TREC / "qrels.comment.test"),
        "--no-retrieved",
        "skip",
    )
    want = _measure_lines((TREC / "out.comment.test").read_text().splitlines())
    assert len(want) > 10
    names = {ln.split("\t")[0] for ln in want}  # trec_eval's default set has no recall_k, ndcg_cut_k, ...
    assert [ln for ln in _measure_lines(got) if ln.split("\t")[0] in names] == want


def _pytrec_lines(run_path: Path, qrels: dict) -> tuple[str, list[str]]:
    """trec_eval's lines (without -c) for a run, from pytrec_eval: per query (sorted), then the means."""
    import pytrec_eval

    run: dict[str, dict[str, float]] = {}
    tag = ""
    with gzip.open(run_path, "rt") if run_path.suffix == ".gz" else open(run_path) as f:
        for line in f:
            q, _, d, _, s, tag = line.split()[:6]  # results.trunc has words after the tag
            run.setdefault(q, {})[d] = float(s)
    families = {"map", "Rprec", "bpref", "recip_rank", "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success"}
    res = pytrec_eval.RelevanceEvaluator(qrels, families).evaluate(run)
    order = [
        "map",
        "Rprec",
        "bpref",
        "recip_rank",
        *(f"P_{k}" for k in CUTS),
        *(f"recall_{k}" for k in CUTS),
        "ndcg",
        *(f"ndcg_cut_{k}" for k in CUTS),
        *(f"map_cut_{k}" for k in CUTS),
        *(f"success_{k}" for k in (1, 5, 10)),
    ]
    lines = []
    for q in sorted(res):
        lines += [f"{m:<22}\t{q}\t{res[q][m]:.4f}" for m in order]
    lines += [f"{m:<22}\tall\t{sum(res[q][m] for q in res) / len(res):.4f}" for m in order]
    return tag, lines


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with gzip.open(path, "rt") if path.suffix == ".gz" else open(path) as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith("#"):
                q, _, d, r = line.split()
                qrels.setdefault(q, {})[d] = int(r)
    return qrels


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_no_retrieved_skip_is_trec_eval_without_c(capsys, engine):
    """results.trunc retrieves nothing for query 302: plain trec_eval averages over 301 and 303 only."""
    _need(TREC)
    tag, want = _pytrec_lines(TREC / "results.trunc", _read_qrels(TREC / "qrels.test"))
    assert tag == "STANDARD" and {ln.split("\t")[1] for ln in want} == {"301", "303", "all"}
    got = _cli(
        capsys,
        str(TREC / "results.trunc"),
        "--qrels",
        str(TREC / "qrels.test"),
        "--per-query",
        "--no-retrieved",
        "skip",
        "--engine",
        engine,
    )
    assert _measure_lines(got) == want
    assert f"{'runid':<22}\tall\tSTANDARD" in got
    # the default (= trec_eval -c) differs exactly there: MAP over 3 queries, 302 counting 0
    maps = {
        ln.split("\t")[1]: ln.split("\t")[2]
        for ln in (TREC / "out.test.aqc").read_text().splitlines()
        if ln.startswith("map ")
    }
    assert maps == {"301": "0.0324", "302": "0.0000", "303": "0.2723", "all": "0.1016"}
    assert f"{'map':<22}\tall\t0.1523" in want  # (0.0324 + 0.2723) / 2, not 0.1016


@pytest.mark.realdata  # the robust03 runs of ../shared/data
def test_robust03_against_pytrec_eval(capsys):
    _need(ROBUST)
    qrels = _read_qrels(ROBUST / "robust03_qrels.txt.gz")
    runs = sorted((ROBUST / "runs").glob("input.*.gz"))
    assert len(runs) == 6
    # pytrec_eval is trec_eval without -c: --no-retrieved skip
    got = _cli(
        capsys,
        *map(str, runs),
        "--qrels",
        str(ROBUST / "robust03_qrels.txt.gz"),
        "--per-query",
        "--no-retrieved",
        "skip",
    )
    # one block per run: its per-query lines, then `runid all TAG`, then its `all` lines
    blocks: dict[str, list[str]] = {}
    current: list[str] = []
    tag = None
    for ln in got:
        name, qid, value = ln.split("\t")
        if name.strip() == "runid":
            tag = value
            blocks[tag] = current
            continue
        if qid != "all" and tag is not None:
            current, tag = [], None
        current.append(ln)
    assert len(blocks) == 6
    for run in runs:
        tag, want = _pytrec_lines(run, qrels)
        assert _measure_lines(blocks[tag]) == want, run.name


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_iprec_at_recall_names_and_values_are_pytrec_evals(capsys, engine):
    """-m iprec_at_recall is trec_eval's 11-point curve, printed under trec_eval's names (iprec_at_recall_0.00 ...
    iprec_at_recall_1.00) with pytrec_eval's values (trec_eval 9's rounding of the level, decision 0013), and one
    level by its trec_eval name (iprec_at_recall_0.50) is an input alias of IPrec@0.5."""
    import pytrec_eval

    _need(TREC)
    qrels = _read_qrels(TREC / "qrels.test")
    run: dict[str, dict[str, float]] = {}
    for line in (TREC / "results.test").read_text().splitlines():
        q, _, d, _, s = line.split()[:5]
        run.setdefault(q, {})[d] = float(s)
    res = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    names = [f"iprec_at_recall_{i / 10:.2f}" for i in range(11)]
    assert sorted(next(iter(res.values()))) == names  # pytrec_eval's own names
    want = [f"{m:<22}\t{q}\t{res[q][m]:.4f}" for q in sorted(res) for m in names]
    want += [f"{m:<22}\tall\t{sum(res[q][m] for q in res) / len(res):.4f}" for m in names]
    for asked in (["iprec_at_recall"], ["iprec_at_recall_0.50", "IPrec@0.1"]):
        code = main(
            [
                "evaluate",
                str(TREC / "results.test"),
                "--qrels",
                str(TREC / "qrels.test"),
                "--format",
                "trec",
                "--per-query",
                "--no-progress",
                "--engine",
                engine,
                *(a for m in asked for a in ("-m", m)),
            ]
        )
        out, err = capsys.readouterr()
        assert code == 0, err
        got = [ln for ln in out.splitlines() if ln.startswith("iprec_at_recall")]
        expected = want if len(asked) == 1 else [ln for ln in want if ln.split()[0] in (names[1], names[5])]
        assert got == expected, asked
