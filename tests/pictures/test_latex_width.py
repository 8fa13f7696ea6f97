"""LaTeX tables fit the text width: on realistic data (6 long-named systems, 4 long-named segments) the default
``to_latex`` table is no wider than ``\\linewidth`` as pdflatex typesets it (the test skips without pdflatex), and
``fit=False`` keeps the plain table. Measured: the typeset box's ``\\wd`` against ``\\linewidth`` of an article
(345 pt), and pdflatex's own "Overfull \\hbox" warnings.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import rankframe
from rankframe import display
from rankframe.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
from gallery import make_runs, system_names  # noqa: E402

sys.path.remove(str(ROOT / "examples"))


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return make_runs(120)


@pytest.fixture(scope="module")
def frames(runs) -> dict[str, pd.DataFrame]:
    return {
        "comparison": rankframe.compare(runs, ["nDCG@10", "AP"], baseline=system_names()[0], by="segment"),
        "means": rankframe.evaluate(runs, ["nDCG@10", "AP", "P@10", "RR"], by=["segment", "system"], ci=0.95),
    }


def _header(tex: str) -> list[str]:
    line = tex.split("\\toprule\n")[1].splitlines()[0]
    return [
        c.replace("\\raggedright ", "").strip()
        for c in re.split(r" & ", re.sub(r" (\\\\|\\tabularnewline)$", "", line))
    ]


def test_the_default_table_is_the_fitted_one_and_fit_false_the_plain_one(frames):
    out = frames["comparison"]
    tex, plain = display.to_latex(out), display.to_latex(out, fit=False)
    assert "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%" in tex and "\\small" in tex
    assert "\\resizebox" not in plain and "\\small" not in plain
    # the page's columns: segment, metric, system, mean, baseline mean, delta, p adj. (baseline named in the caption)
    assert _header(tex) == ["segment", "metric", "system", "mean", "baseline mean", "delta", "p adj."]
    assert f"baseline: {display.tex_escape(system_names()[0])}" in tex
    assert _header(plain)[:8] == ["segment", "metric", "system", "baseline", "n", "mean", "baseline mean", "delta"]
    assert "W/T/L" in _header(plain)
    # long names wrap in p columns (ragged right, rows ended by \tabularnewline); numbers stay right-aligned
    spec = re.search(r"\\begin\{tabular\}\{(.*)\}\n", tex).group(1)
    assert spec == "p{7em}lp{7em}rrrr"
    assert tex.count("\\tabularnewline") == len(out) + 1
    # a table of short names has nothing to wrap: \\ ends its rows
    short = pd.DataFrame({"system": ["a", "b"], "metric": "AP", "value": [0.5, 0.25], "n": 2})
    assert "\\tabularnewline" not in display.to_latex(short) and "{lrr}" in display.to_latex(short)


def test_a_varying_baseline_column_is_kept(runs):
    out = rankframe.compare(runs[runs["system"].isin(system_names()[:3])], "AP", pairs="all")
    assert "baseline" in _header(display.to_latex(out))


@pytest.mark.parametrize("fit", ["yes", 1, None])
def test_hostile_fit(frames, fit):
    with pytest.raises(ParameterError, match="fit"):
        display.to_latex(frames["means"], fit=fit)


def _typeset_width(tex: str, tmp_path: Path) -> tuple[float, float, list[str]]:
    """(width of the table's box, \\linewidth, overfull warnings) as pdflatex typesets ``tex`` in an article."""
    start = "\\resizebox" if "\\resizebox" in tex else "\\begin{tabular}"
    end = "\\end{tabular}}" if start == "\\resizebox" else "\\end{tabular}"
    i, j = tex.index(start), tex.index(end) + len(end)
    body = f"{tex[:i]}\\sbox0{{{tex[i:j]}}}\\typeout{{RFWIDTH=\\the\\wd0;LINE=\\the\\linewidth}}\\usebox0{tex[j:]}"
    doc = "\\documentclass{article}\\usepackage{booktabs,graphicx}\\begin{document}\n" + body + "\n\\end{document}\n"
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:]
    width, line = re.search(r"RFWIDTH=([\d.]+)pt;LINE=([\d.]+)pt", run.stdout).groups()
    return float(width), float(line), re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", run.stdout)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (texlive-latex-base)")
@pytest.mark.parametrize("which", ["comparison", "means"])
def test_pdflatex_typesets_the_default_table_within_the_text_width(frames, which, tmp_path):
    plain_width, line, plain_over = _typeset_width(display.to_latex(frames[which], fit=False), tmp_path)
    assert plain_width > line + 200 and plain_over  # the plain table runs far past the text (the defect)
    width, line, over = _typeset_width(display.to_latex(frames[which]), tmp_path)
    assert width <= line + 0.5 and not over, (width, line, over)
    assert width > 0.8 * line  # shrunk to the line, not to a stamp
