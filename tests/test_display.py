"""rankframe.display: comparisons and means as styled HTML, Markdown and LaTeX with the same markers.

The markers are recomputed here from the frame's own columns (p_adjusted thresholds 0.05/0.01/0.001, the larger
of mean/baseline_mean, the best value per metric), and compare's result stays a DataFrame in every use.
"""

from __future__ import annotations

import io
import pickle
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe import display
from rankframe.errors import ParameterError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return pd.read_parquet(ROOT / "examples" / "paired.parquet")


@pytest.fixture(scope="module")
def out(runs) -> pd.DataFrame:
    return rankframe.compare(runs, ["nDCG@5", "AP"], baseline="bm25", by="length")


def expected_stars(p: float) -> str:
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


class Cells(HTMLParser):
    """The table's caption, header and rows of (text, tags, classes) cells."""

    def __init__(self):
        super().__init__()
        self.caption, self.header, self.rows, self.stack, self.cell = "", [], [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "br":
            return  # a void element: no end tag
        self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self.cell = {"text": "", "tags": set(), "class": dict(attrs).get("class") or ""}

    def handle_endtag(self, tag):
        self.stack.pop()
        if tag in ("td", "th"):
            (self.header if tag == "th" else self.rows[-1]).append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if "caption" in self.stack:
            self.caption += data
        elif self.cell is not None:
            self.cell["text"] += data
            self.cell["tags"].update(t for t in self.stack if t in ("strong", "sup"))


def parse_html(text: str) -> Cells:
    p = Cells()
    p.feed(text)
    p.rows = [r for r in p.rows if r]
    return p


def test_comparison_html_markers_bold_n_and_caption(out):
    page = parse_html(display.to_html(out))
    assert page.caption.startswith(display.compare_caption(out.attrs))
    assert "Holm over all 8 comparisons" in page.caption and "paired t-test" in page.caption
    head = [c["text"] for c in page.header]
    assert head[:5] == ["length", "metric", "system", "baseline", "n"] and "95% CI" in head and "W/T/L" in head
    col = {h: i for i, h in enumerate(head)}
    assert len(page.rows) == len(out)
    for cells, r in zip(page.rows, out.itertuples()):
        stars = expected_stars(r.p_adjusted)
        delta = cells[col["delta"]]
        assert delta["text"] == f"{r.delta:.4f}{stars}"
        assert ("sup" in delta["tags"]) == bool(stars)
        assert delta["class"].split()[-1] == ("up" if r.delta > 0 else "down") if stars else "up" not in delta["class"]
        assert ("strong" in cells[col["mean"]]["tags"]) == (r.mean > r.baseline_mean)
        assert ("strong" in cells[col["baseline mean"]]["tags"]) == (r.baseline_mean > r.mean)
        assert cells[col["n"]]["text"] == str(r.n) == "16"
        assert cells[col["95% CI"]]["text"] == f"[{r.ci_low:.4f}, {r.ci_high:.4f}]"
        assert cells[col["W/T/L"]]["text"] == f"{r.wins}/{r.ties}/{r.losses}"


def test_markdown_and_latex_carry_the_same_markers(out):
    md = display.to_markdown(out)
    table = [line for line in md.splitlines() if line.startswith("| ")][1:]
    assert len(table) == len(out)
    for line, r in zip(table, out.itertuples()):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        stars = expected_stars(r.p_adjusted)
        assert cells[7] == f"{r.delta:.4f}" + "\\*" * len(stars)
        better = f"**{r.mean:.4f}**" if r.mean > r.baseline_mean else f"{r.mean:.4f}"
        assert cells[5] == better
    tex = display.to_latex(out)
    assert tex.startswith("\\begin{table}") and tex.rstrip().endswith("\\end{table}")
    body = tex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    assert len(body) == len(out)
    for line, r in zip(body, out.itertuples()):
        stars = expected_stars(r.p_adjusted)
        assert (f"{r.delta:.4f}$^{{{stars}}}$" if stars else f" {r.delta:.4f} ") in line
        assert ("\\textbf{" in line) == (r.mean != r.baseline_mean)
    assert "p\\_adjusted: Holm" in tex and "95\\% t interval" in tex


def test_means_table_best_value_bold_interval_level_and_n(runs):
    means = rankframe.evaluate(runs, ["nDCG@5", "AP"], by="system", ci=0.9)
    page = parse_html(display.table(means)._repr_html_())
    assert [c["text"] for c in page.header] == ["system", "n", "nDCG@5", "AP"]
    assert "90% t interval" in page.caption and "bold: the best value of each metric" in page.caption
    wide = means.pivot(index="system", columns="metric", values="value")
    for cells in page.rows:
        system = cells[0]["text"]
        assert cells[1]["text"] == "32"
        for j, metric in ((2, "nDCG@5"), (3, "AP")):
            row = means[(means.system == system) & (means.metric == metric)].iloc[0]
            assert cells[j]["text"] == f"{row.value:.4f} [{row.ci_low:.4f}, {row.ci_high:.4f}]"
            assert ("strong" in cells[j]["tags"]) == (row.value == wide[metric].max())
    plain = rankframe.evaluate(runs[runs.system == "bm25"], ["AP"])  # one row, no interval: nothing bold
    md = display.to_markdown(plain)
    assert md.splitlines() == ["mean over n queries", "", "| n | AP |", "|---:|---:|", f"| 32 | {plain.value[0]:.4f} |"]


def test_special_characters_are_escaped_everywhere(runs):
    df = runs.assign(length=runs["length"].map({"short": "R&D_50% <b>", "long": "a|b*c"}))
    o = rankframe.compare(df, "AP", baseline="bm25", by="length")
    html_text = display.to_html(o)
    assert "<b>" not in html_text.replace("<b>", "", 0) or "&lt;b&gt;" in html_text
    assert "R&amp;D_50% &lt;b&gt;" in html_text
    assert "R\\&D\\_50\\% <b>" in display.to_latex(o)
    md = display.to_markdown(o)
    assert "a\\|b\\*c" in md and "R&D\\_50% <b>" in md


def test_compare_returns_a_dataframe_in_every_use(out, runs):
    assert isinstance(out, pd.DataFrame) and type(out) is display.ComparisonFrame
    plain = pd.DataFrame(out)
    for derived in (out.loc[out.metric == "AP"], out[["metric", "delta"]], out.sort_values("delta"), out.copy(),
                    out.merge(out[["metric", "system"]].drop_duplicates()), out.head(2), out.reset_index()):  # fmt: skip
        assert type(derived) is pd.DataFrame
    assert out.to_csv(index=False) == plain.to_csv(index=False)
    assert out.equals(plain) and plain.equals(out)
    pd.testing.assert_frame_equal(out, plain)
    pd.testing.assert_frame_equal(plain, out, check_frame_type=False)
    assert out.to_string() == plain.to_string() and out.attrs["test"] == "t"
    assert pd.concat([out, out]).shape == (16, out.shape[1])
    again = pickle.loads(pickle.dumps(out))
    assert again.equals(out) and again.attrs == out.attrs
    buf = io.StringIO()
    out.to_json(buf)
    assert out.loc[0, "metric"] == "nDCG@5"
    mutated = rankframe.compare(runs, "AP", baseline="bm25")
    del mutated["p_adjusted"]  # not a comparison any more: the plain table, no error
    assert "<table" in mutated._repr_html_() and "caption" not in mutated._repr_html_()


def test_jupyter_shows_the_styled_table(out):
    formatters = pytest.importorskip("IPython.core.formatters")
    shown = formatters.HTMLFormatter()(out)
    assert shown == display.to_html(out) and 'class="rankframe"' in shown
    assert formatters.HTMLFormatter()(pd.DataFrame(out)) != shown  # plain frames keep pandas' table


def test_hostile_input(out, runs):
    per = rankframe.evaluate(runs, "AP", by="system", per_query=True)
    cases = [
        (lambda: display.to_html(per), "not per_query"),
        (lambda: display.to_html([1, 2]), "'frame' parameter of display must be a DataFrame"),
        (lambda: display.to_markdown(out, digits=-1), "'digits' parameter"),
        (lambda: display.to_markdown(out, digits=True), "'digits' parameter"),
        (lambda: display.render(out, "pdf"), "'fmt' parameter of render"),
        (lambda: display.table(pd.DataFrame()), "got columns \\[\\]"),
    ]
    for call, message in cases:
        with pytest.raises(ParameterError, match=message):
            call()
    empty = out.iloc[:0]
    assert display.to_markdown(empty).count("\n| ") == 1  # the header only
    one = runs[(runs["query"] == "q01") | (runs.system != "dense")]  # dense has 1 query: NaN interval, a note
    text = display.to_markdown(rankframe.compare(one, "AP", baseline="bm25", missing="drop"))
    assert "| note |" in text and "only 1 query" in text and "| [, ] |" not in text


def test_marker_thresholds_on_crafted_p_values(out):
    crafted = out.assign(p_adjusted=[0.0009, 0.001, 0.0099, 0.01, 0.049, 0.05, 0.07, np.nan])
    want = ["***", "**", "**", "*", "*", "", "", ""]  # p < 0.001, < 0.01, < 0.05 (strict), NaN: none
    page = parse_html(display.to_html(crafted))
    delta = [c["text"] for c in page.header].index("delta")
    assert [row[delta]["text"][len(f"{d:.4f}") :] for row, d in zip(page.rows, crafted.delta)] == want
    md_rows = [line for line in display.to_markdown(crafted).splitlines() if line.startswith("| ")][1:]
    assert [line.split(" | ")[7].count("\\*") for line in md_rows] == [len(w) for w in want]
    tex_rows = display.to_latex(crafted).split("\\midrule\n")[1].splitlines()[: len(want)]
    assert [re.search(r"\$\^\{(\**)\}\$", line).group(1) if "$^" in line else "" for line in tex_rows] == want
