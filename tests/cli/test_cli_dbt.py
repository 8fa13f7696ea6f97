"""``rankframe sql --dbt DIR``: writes the dbt package of rankframe.portable.dbt; docs/warehouse.md's lines run."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from rankframe.cli import main

pytest.importorskip("sqlglot", reason="sqlglot (the warehouse extra) writes the dbt package")

from rankframe.warehouse import dbt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SECTION = (ROOT / "docs" / "warehouse.md").read_text(encoding="utf-8").split("## dbt\n", 1)[1].split("\n## ", 1)[0]


def test_writes_the_generated_package(tmp_path, capsys):
    out = tmp_path / "pkg"
    assert main(["sql", "--dbt", str(out), "-m", "P@10", "-m", "ap", "--dbt-max-by", "0"]) == 0
    printed = capsys.readouterr().out.splitlines()
    want = dbt.package(["P@10", "ap"], max_by=0)
    assert sorted(printed) == sorted(str(out / name) for name in want)
    assert {name: (out / name).read_text(encoding="utf-8") for name in want} == want


def test_docs_dbt_lines_run(tmp_path, capsys, monkeypatch):
    """The warehouse page's `rankframe sql --dbt` lines run as written (exit 0, a package in the folder named)."""
    monkeypatch.chdir(tmp_path)
    lines = [ln for block in re.findall(r"```bash\n(.*?)```", SECTION, re.S) for ln in block.splitlines() if ln]
    assert lines and all(ln.startswith("rankframe sql --dbt ") for ln in lines)
    for line in lines:
        words = shlex.split(line)
        assert main(words[1:]) == 0, line
        assert (tmp_path / words[3] / "dbt_project.yml").is_file()
    capsys.readouterr()


def test_docs_model_is_the_tested_call():
    """The page's model is tests/sql/test_dbt_package.py's by_country model (built on DuckDB and PostgreSQL)."""
    assert "{{ rankframe.metrics(ref('recs'), ['nDCG@10', 'AP'], by=['country']) }}" in SECTION


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--dbt", "X", "--by", "seg"], "--by is not an option of --dbt"),
        (["--dbt", "X", "--dialect", "postgres"], "--dialect is not an option of --dbt"),
        (["--dbt", "X", "--per-query"], "--per-query is not an option of --dbt"),
        (["--dbt", "X", "-o", "f.sql"], "-o/--output is not an option of --dbt"),
        (["--dbt-max-by", "2"], "--dbt-max-by is an option of the dbt package"),
        (["--dbt", "X", "--dbt-max-by", "-1"], "'max_by' parameter of rankframe sql --dbt must be an int in [0, 16]"),
        (["--dbt", "X", "-m", "Coverage@5"], "Coverage@5 needs catalog="),  # the package takes no catalog table
        (["--dbt", "X", "-m", "nDCG@10", "-m", "ndcg@10"], "twice"),
    ],
)
def test_bad_dbt_options(tmp_path, capsys, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    assert main(["sql", *args]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "X").exists()


def test_a_file_in_the_way(tmp_path, capsys):
    (tmp_path / "f").write_text("")
    assert main(["sql", "--dbt", str(tmp_path / "f"), "-m", "AP", "--dbt-max-by", "0"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
