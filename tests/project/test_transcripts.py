"""``>>>`` transcripts are real output (issue 36): the docs pages' and the docstrings' are run by doctest.

A docs page's ``>>>`` blocks run in order after its plain Python blocks (they use the page's ``df``), as one
session, with doctest's check of every printed line; a table is shown as ``print(t.round(4).to_string(index=False))``
so that what the page shows is what a user sees. docs/spark.md's transcripts start Spark: they run in
tests/rung4_faces/test_spark.py on the Spark tier's JVM. The docstrings' examples run under pytest's
``--doctest-modules`` over ``rankframe/`` (pyproject's addopts and testpaths); when that configuration does not
collect them, the docstring test below runs each module's examples itself.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import re
from pathlib import Path

import pandas as pd
import pytest

import rankframe

ROOT = Path(__file__).resolve().parents[2]
#: pages whose transcripts run elsewhere, with where
ELSEWHERE = {"spark.md": "tests/rung4_faces/test_spark.py (they start Spark)"}
FLAGS = doctest.ELLIPSIS  # pytest's doctest default


def _blocks(text: str) -> list[tuple[int, str]]:
    return [
        (text[: m.start()].count("\n") + 1, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    ]


TRANSCRIPT_PAGES = sorted(
    p.name
    for p in (ROOT / "docs").glob("*.md")
    if p.name not in ELSEWHERE and any(code.lstrip().startswith(">>>") for _, code in _blocks(p.read_text()))
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


DOCSTRING_MODULES = sorted(
    _module_name(p)
    for p in (ROOT / "rankframe").rglob("*.py")
    if p.name != "__main__.py" and re.search(r"^\s*>>> ", p.read_text(encoding="utf-8"), flags=re.M)
)


def test_the_pages_with_transcripts_are_found():
    assert "comparing.md" in TRANSCRIPT_PAGES  # the probe reads the pages it should


@pytest.mark.parametrize("page", TRANSCRIPT_PAGES)
def test_docs_transcripts_are_real_output(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the pages read examples/... from the repository root
    path = ROOT / "docs" / page
    text = path.read_text(encoding="utf-8")
    globs: dict = {"pd": pd, "rankframe": rankframe}
    parser = doctest.DocTestParser()
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for line, code in _blocks(text):
        if code.lstrip().startswith(">>>"):
            test = parser.get_doctest(code, globs, f"docs/{page} line {line}", str(path), line)
            runner.run(test, out=out.write, clear_globs=False)
            globs.update(test.globs)  # the next block sees this one's names, as in one session
        else:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, f"docs/{page} line {line}", "exec"), globs)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, out.getvalue()


@pytest.mark.parametrize("module", DOCSTRING_MODULES)
def test_docstring_transcripts_are_real_output(module, request, monkeypatch):
    if request.config.getoption("doctestmodules", False) and "rankframe" in request.config.getini("testpaths"):
        pytest.skip("pytest's --doctest-modules over rankframe/ runs these examples (pyproject addopts, testpaths)")
    if module.startswith("rankframe.spark") or module.startswith("rankframe.plot"):
        pytest.importorskip("pyspark" if "spark" in module else "matplotlib")
    monkeypatch.chdir(ROOT)
    mod = importlib.import_module(module)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder().find(mod, module):
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, out.getvalue()
