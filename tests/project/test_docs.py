"""The documentation is held to the code: generated tables match the registry, and every Python example in the
README and docs/ runs as written on the files the repository ships (from the repository root).

The SQL examples are run by tests/sql/test_sql_cookbook.py and the CLI lines by tests/cli/test_cli.py. Blocks written as
interpreter transcripts (``>>>`` lines followed by the printed result, as in docs/comparing.md) are checked
line for line against their output by doctest in tests/project/test_transcripts.py and are not run here.
Blocks that start Spark (they import pyspark) run in tests/rung4_faces/test_spark.py, on the Spark tier's one JVM.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from rankframe.measures.registry import (
    BEYOND,
    METRICS,
    beyond_directions_markdown,
    beyond_markdown,
    directions_markdown,
    names_markdown,
    params_markdown,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(line number, code) of each ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        if m.group(1).lstrip().startswith(">>>"):
            continue  # a transcript: checked with its output by the page's own test
        blocks.append((text[: m.start()].count("\n") + 1, m.group(1)))
    return blocks


#: the README's quick start: its block runs in test_the_readme_opens_with_the_set_up_and_a_quick_start_that_runs
#: (from the root, Agg, with more assertions on its results), not a second time as an example
QUICK_START = re.compile(r"^## Quick start\n\n```python\n(.*?)^```", flags=re.S | re.M)
_QUICK = QUICK_START.findall((ROOT / "README.md").read_text(encoding="utf-8"))
EXAMPLES = [
    (path, line, code)
    for path in DOCS
    for line, code in python_blocks(path)
    if "pyspark" not in code and not (path.name == "README.md" and code in _QUICK)
]
#: the README's first screen: the set-up commands and the quick start sit in these lines (issue 36, Must show 1)
FIRST_SCREEN = 40


@pytest.mark.parametrize(
    ("key", "make"), [("params", params_markdown), ("names", names_markdown), ("directions", directions_markdown)]
)
def test_docs_generated_tables_match_the_declarations(key, make):
    doc = (ROOT / "docs" / "metrics.md").read_text()
    table = doc.split(f"<!-- {key}:start -->")[1].split(f"<!-- {key}:end -->")[0].strip()
    assert table == make(), "run: python -c 'from rankframe.registry import write_params_doc; write_params_doc()'"


def test_docs_define_every_metric():
    doc = (ROOT / "docs" / "metrics.md").read_text()
    for spec in METRICS:
        assert f"`{spec.name}`" in doc, spec.name


def test_diversity_page_matches_the_family():
    """docs/diversity.md's tables are generated from the intent-aware declarations (registry.INTENT_TABLES)."""
    from rankframe.measures.registry import INTENT, INTENT_TABLES

    doc = (ROOT / "docs" / "diversity.md").read_text()
    for key, make in INTENT_TABLES.items():
        assert f"<!-- {key}:start -->\n{make()}\n<!-- {key}:end -->" in doc, (
            f"regenerate docs/diversity.md's {key} table"
        )
    for spec in INTENT:
        assert f"`{spec.canonical}" in doc.split("## Parameters")[0], f"docs/diversity.md defines no {spec.canonical}"


def test_beyond_accuracy_page_matches_the_family():
    doc = (ROOT / "docs" / "beyond-accuracy.md").read_text()
    table = doc.split("<!-- beyond:start -->")[1].split("<!-- beyond:end -->")[0].strip()
    assert table == beyond_markdown(), (
        "run: python -c 'from rankframe.registry import write_params_doc; write_params_doc()'"
    )
    directions = doc.split("<!-- beyond-directions:start -->")[1].split("<!-- beyond-directions:end -->")[0].strip()
    assert directions == beyond_directions_markdown(), (
        "run: python -c 'from rankframe.registry import write_params_doc; write_params_doc()'"
    )
    for spec in BEYOND:
        assert f"- **`{spec.canonical}@k`**" in doc, spec.canonical  # its formula
        for peer in spec.presets:
            assert f"`like='{peer}'`" in doc
    assert "docs/beyond-accuracy.md" in (ROOT / "README.md").read_text()


def test_the_readme_has_python_examples():
    assert any(path.name == "README.md" for path, _, _ in EXAMPLES)


@pytest.mark.parametrize(
    ("path", "line", "code"), EXAMPLES, ids=[f"{p.relative_to(ROOT)}:{line}" for p, line, _ in EXAMPLES]
)
def test_python_example_runs(path: Path, line: int, code: str, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": f"doc_example_{path.stem}_{line}"}
    exec(compile(code, f"{path.relative_to(ROOT)}:{line}", "exec"), namespace)  # noqa: S102 - our own docs
    assert os.getcwd() == str(ROOT)


def test_the_readme_opens_with_the_set_up_and_a_quick_start_that_runs(monkeypatch, capsys):
    from rankframe import compare
    from rankframe.cli import main

    head = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]) + "\n"
    setup = re.findall(r"^```bash\n(.*?)\n```", head, flags=re.S | re.M)
    assert setup == [
        'pip install . && rankframe evaluate examples/recs.parquet -m "nDCG@10" -m "AP@10" -m "P@5" --by country',
        'pip install ".[test]" && python -m pytest -q',
    ], setup
    quick = QUICK_START.findall(head)
    assert len(quick) == 1, f"the quick start's whole ```python block is in the README's first {FIRST_SCREEN} lines"
    code = quick[0]
    assert 10 <= len([ln for ln in code.splitlines() if ln.strip()]) <= 15, code
    # the path it walks: your column names and a separate judgments table -> per segment -> paired test -> report
    for step in ("columns=", "qrels=", "qrels_columns=", "by=[", "rankframe.compare(", "rankframe.report("):
        assert step in code, step

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # the first set-up command's rankframe half, as written (pip is the reader's)
    assert main(shlex.split(setup[0].split(" && ", 1)[1])[1:]) == 0
    assert "country" in capsys.readouterr().out
    namespace: dict = {"__name__": "readme_quick_start"}
    exec(compile(code, "README.md quick start", "exec"), namespace)  # noqa: S102 - our own README
    # the run and its judgments apart, under other names, give the numbers of the bundled single table
    out, runs = namespace["out"], namespace["runs"]
    whole = compare(runs, ["nDCG@5", "AP"], baseline="bm25", by="length")
    assert out[["length", "metric", "system", "n"]].equals(whole[["length", "metric", "system", "n"]])
    assert (out["delta"] - whole["delta"]).abs().max() < 1e-12 and len(out) == 8
    assert namespace["html"].lstrip().lower().startswith("<!doctype html>")
