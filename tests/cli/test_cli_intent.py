"""``rankframe evaluate --qrels FILE --subtopic-qrels``: the intent-aware measures from ndeval's qrels files."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import rankframe
from rankframe.cli import main

# ir_measures' test of its pyndeval provider (terrierteam/ir_measures, test/test_pyndeval.py): ERR_IA@20 is 0.4659 for
# query 0 and 0.1803 for query 1
QRELS = "0 0 D0 0\n0 0 D1 1\n0 0 D2 1\n0 1 D2 1\n0 1 D3 2\n0 0 D4 0\n1 0 D0 1\n1 0 D3 2\n1 1 D5 2\n"
RUN = (
    "0 0 D0 1 0.8 run\n0 0 D2 2 0.7 run\n0 0 D1 3 0.3 run\n0 0 D3 4 0.4 run\n0 0 D4 5 0.1 run\n"
    "1 0 D1 1 0.8 run\n1 0 D3 2 0.7 run\n1 0 D4 3 0.3 run\n1 0 D2 4 0.4 run\n"
)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "t.qrels").write_text(QRELS)
    (tmp_path / "t.run").write_text(RUN)
    return tmp_path / "t.run", tmp_path / "t.qrels"


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    code = main([*args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_read_trec_qrels_subtopics(files):
    qrels = rankframe.read_trec_qrels(files[1], subtopics=True)
    assert list(qrels.columns) == ["query", "subtopic", "item", "relevance"]
    assert qrels["subtopic"].tolist() == ["0", "0", "0", "1", "1", "0", "0", "0", "1"]


def test_read_trec_qrels_subtopic_duplicate(tmp_path):
    path = tmp_path / "d.qrels"
    path.write_text("0 1 D1 1\n0 2 D1 1\n0 1 D1 0\n")  # D1 twice for subtopic 1 (lines 1 and 3); once for 2
    with pytest.raises(rankframe.InputFileError, match=r"line 3: duplicate judgment of docno 'D1'.*subtopic '1'"):
        rankframe.read_trec_qrels(path, subtopics=True)


def test_cli_subtopic_qrels(files, capsys):
    run, qrels = files
    code, out, _ = run_main(
        capsys, "evaluate", str(run), "--qrels", str(qrels), "--subtopic-qrels", "-m", "ERR_IA@20", "-m", "AP",
        "--per-query", "--format", "csv",
    )  # fmt: skip
    assert code == 0
    table = pd.read_csv(io.StringIO(out)).pivot(index="query", columns="metric", values="value")
    assert table["ERR_IA@20"].round(4).tolist() == [0.4659, 0.1803]
    # AP on the largest grade per docno: query 0 ranks D0 (0), D2 (1), D3 (2), D1 (1), D4 (0) by score;
    # relevant D2, D3, D1 at 2, 3, 4 of R = 3: (1/2 + 2/3 + 3/4) / 3 = 23/36
    assert table.loc[0, "AP"] == pytest.approx(23 / 36, abs=1e-4)


def test_cli_without_subtopic_qrels(files, capsys, tmp_path):
    run, _ = files
    plain = tmp_path / "p.qrels"
    plain.write_text("0 0 D0 0\n0 0 D1 1\n1 0 D3 2\n")
    code, _, err = run_main(capsys, "evaluate", str(run), "--qrels", str(plain), "-m", "ERR_IA@20")
    assert code == 2
    assert "ERR_IA@20 read subtopic judgments: give --qrels FILE --subtopic-qrels" in err
