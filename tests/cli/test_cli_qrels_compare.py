"""``rankframe qrels-compare`` gives rankframe.qrels_compare's numbers (the function is held to its oracles in
tests/rung2_oracles/test_qrels_compare.py), and says its usage errors in the command's words."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import rankframe
from rankframe.cli import main

ROOT = Path(__file__).resolve().parents[2]
RUNS = [ROOT / "examples" / "tiny.run", ROOT / "examples" / "tiny-b.run"]
QRELS = ROOT / "examples" / "tiny.qrels"


@pytest.fixture
def llm_qrels(tmp_path) -> Path:
    """tiny.qrels with D02 judged relevant (grade 1) wherever it is judged: a second judgment set."""
    lines = []
    for line in QRELS.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "D02":
            fields[3] = "1"
        lines.append(" ".join(fields))
    path = tmp_path / "llm.qrels"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_json_equals_the_function(capsys, llm_qrels):
    argv = ["qrels-compare", *map(str, RUNS), str(QRELS), str(llm_qrels), "-m", "AP", "-m", "P@2"]
    assert main([*argv, "--baseline", "tiny", "--format", "json"]) == 0
    got = pd.DataFrame(json.loads(capsys.readouterr().out))
    want = rankframe.qrels_compare(
        rankframe.read_trec_run(RUNS),
        rankframe.read_trec_qrels(QRELS),
        rankframe.read_trec_qrels(llm_qrels),
        ["AP", "P@2"],
        baseline="tiny",
    )
    assert list(got.columns) == list(want.columns)
    assert got["system"].tolist() == want["system"].tolist() and got["metric"].tolist() == want["metric"].tolist()
    for col in ("mean_a", "mean_b", "kendall_tau", "tau_ap"):
        assert got[col].tolist() == pytest.approx(want[col].tolist(), rel=1e-15)
    for col in ("verdict_a", "verdict_b"):  # the baseline's own row has none
        assert [v if isinstance(v, str) else None for v in got[col]] == [
            v if isinstance(v, str) else None for v in want[col]
        ]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ([], "needs at least one metric"),
        (["-m", "AP", "--baseline", "tiny-c"], "did you mean 'tiny"),
    ],
)
def test_usage_errors_exit_2(capsys, llm_qrels, extra, words):
    assert main(["qrels-compare", *map(str, RUNS), str(QRELS), str(llm_qrels), *extra]) == 2
    assert words in capsys.readouterr().err


def test_too_few_files(capsys):
    assert main(["qrels-compare", str(RUNS[0]), str(QRELS), "-m", "AP"]) == 2
    assert "RUN [RUN ...] QRELS_A QRELS_B" in capsys.readouterr().err
