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
from rankframe import cli, display
from rankframe.core.errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization"])
def test_the_statistic_with_its_df_and_the_mde_beside_non_significant_rows(test):
    from scipy import stats
    from statsmodels.stats.power import TTestPower

    paired = pd.read_parquet(Path(__file__).resolve().parents[2] / "examples" / "paired.parquet")
    out = rankframe.compare(paired, ["AP", "P@5"], baseline="bm25", by="length", test=test, seed=1, n_resamples=999)
    page = parse_html(display.to_html(out))
    head = [c["text"] for c in page.header]
    col = {h: i for i, h in enumerate(head)}
    assert ("statistic" in col) == (test != "randomization")  # its statistic is the mean difference: delta
    wide = rankframe.evaluate(paired, ["AP", "P@5"], by=["length", "system"], per_query=True).pivot(
        index=["length", "metric", "query"], columns="system", values="value"
    )
    for cells, r in zip(page.rows, out.itertuples()):
        block = wide.xs((r.length, r.metric), level=["length", "metric"])
        d = (block[r.system] - block[r.baseline]).to_numpy()
        if test == "t":  # APA style: t(df) = value, scipy's statistic and n - 1 degrees of freedom
            t = stats.ttest_rel(block[r.system], block[r.baseline]).statistic
            assert cells[col["statistic"]]["text"] == f"t({len(d) - 1}) = {t:.2f}"
        elif test == "wilcoxon":  # scipy's two-sided statistic min(W+, W-), no df; differences equal to float
            w = stats.wilcoxon(np.round(d, 12), zero_method="wilcox").statistic  # noise tie (docs/comparing.md)
            assert cells[col["statistic"]]["text"] == f"W = {w:.2f}"
        # the MDE: statsmodels' d_z at 80% power, alpha 0.05, two-sided, times sd(d); only where p adj. >= 0.05
        mde = TTestPower().solve_power(nobs=len(d), alpha=0.05, power=0.8) * d.std(ddof=1)
        assert cells[col["MDE if n.s."]]["text"] == ("" if r.p_adjusted < 0.05 else f"{mde:.4f}")
    assert (out["p_adjusted"] >= 0.05).any() and (out["p_adjusted"] < 0.05).any()  # both kinds of rows shown


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
    # LaTeX: & _ % escaped, < > | as commands (OT1 would print them as ¡ ¿ and a dash)
    assert "R\\&D\\_50\\% \\textless{}b\\textgreater{}" in display.to_latex(o)
    assert "a\\textbar{}b*c" in display.to_latex(o)
    md = display.to_markdown(o)  # _ between two letters or digits is never emphasis: left as it is
    assert "a\\|b\\*c" in md and "R&amp;D_50% &lt;b&gt;" in md


#: names that are markup in Markdown, HTML, LaTeX or matplotlib; each must come out as written
HOSTILE = ["a|b", "<b>", "x\ny", "_dense_", "$\\foo$", "*x*", "[t](u)", "a&lt;b", "`c`", "~~s~~", "50% #1 {^}"]


def rendered_cells(markdown: str) -> list[list[str]]:
    """The text of every cell as a CommonMark renderer with GitHub's tables shows it (markdown-it-py: the oracle)."""
    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    cells = parse_html(page.replace("<br>", "\n").replace("<br />", "\n"))
    return [[c["text"] for c in cells.header], *[[c["text"] for c in row] for row in cells.rows]]


def hostile_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """paired.parquet's 3 systems renamed, its 2 segments relabelled, with names from HOSTILE."""
    names = {"bm25": HOSTILE[0], "dense": HOSTILE[1], "hybrid": HOSTILE[2]}
    return runs.assign(
        system=runs["system"].map(names), length=runs["length"].map(dict(zip(["short", "long"], HOSTILE[3:5])))
    )


def test_markdown_shows_every_name_as_given(runs):
    means = pd.DataFrame({"system": HOSTILE, "metric": "AP", "value": 0.5, "n": 2})
    rows = rendered_cells(display.to_markdown(means))
    assert rows[0] == ["system", "n", "AP"] and [r[0] for r in rows[1:]] == HOSTILE
    out = rankframe.compare(hostile_runs(runs), "AP", baseline="a|b", by="length")
    rows = rendered_cells(display.to_markdown(out))
    assert [r[:4] for r in rows[1:]] == [
        [str(v) for v in r] for r in out[["length", "metric", "system", "baseline"]].values
    ]
    assert rows[0][6] == "baseline mean"


def test_the_command_writes_markdown_with_the_same_writer(runs, tmp_path, capsys):
    table = tmp_path / "hostile.parquet"
    hostile_runs(runs).to_parquet(table)
    assert cli.main(["compare", str(table), "--baseline", "a|b", "-m", "AP", "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    out = rankframe.compare(hostile_runs(runs), "AP", baseline="a|b")
    rows = rendered_cells(text)
    assert rows[0][:4] == ["metric", "system", "baseline", "n"] and rows[0][5] == "baseline_mean"
    assert [r[1:3] for r in rows[1:]] == out[["system", "baseline"]].values.tolist()
    from markdown_it import MarkdownIt

    caption = MarkdownIt("commonmark").render(text.split("\n\n")[0])
    assert "against baseline &#x27;a|b&#x27;" in caption or "against baseline 'a|b'" in caption
    assert cli.main(["evaluate", str(table), "-m", "AP", "--by", "system", "--format", "markdown"]) == 0
    rows = rendered_cells(capsys.readouterr().out)
    assert rows[0] == ["system", "AP"] and sorted(r[0] for r in rows[1:]) == sorted(HOSTILE[:3])


def test_latex_writes_every_name_with_text_commands():
    means = pd.DataFrame({"system": HOSTILE, "metric": "AP", "value": 0.5, "n": 2})
    tex = display.to_latex(means)
    body = tex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    # by hand, character by character: \ -> \textbackslash{}, & % $ # _ { } escaped, ~ ^ < > | as text commands,
    # a newline a space (a blank line inside a tabular is an error)
    expected = [
        "a\\textbar{}b",
        "\\textless{}b\\textgreater{}",
        "x y",
        "\\_dense\\_",
        "\\$\\textbackslash{}foo\\$",
        "*x*",
        "[t](u)",
        "a\\&lt;b",
        "`c`",
        "\\textasciitilde{}\\textasciitilde{}s\\textasciitilde{}\\textasciitilde{}",
        "50\\% \\#1 \\{\\textasciicircum{}\\}",
    ]
    assert [line.split(" & ")[0] for line in body] == expected
    for ch in "<>|":  # never a bare one in text (the default OT1 encoding prints other glyphs)
        assert ch not in tex.replace("\\ifdim\\width>\\linewidth", "")  # the fitting's guard is no text


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


def test_the_plain_text_shows_delta_interval_and_p_values_at_120_columns(out):
    # at a prompt (repr, print) the columns that matter are never hidden behind "..." (pandas' repr of the 17
    # columns hid everything from n to p_adjusted at 120 characters)
    with pd.option_context("display.width", 120, "display.max_columns", 0):
        text = repr(out)
        assert str(out) == text
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["length", "metric"])
    assert " ".join(lines[:head]) == display.compare_caption(out.attrs)  # the caption, wrapped
    assert "..." not in text and max(map(len, lines)) <= 120
    lines = lines[head - 1 :]  # one caption line, as far as the rows below are concerned
    assert lines[1].split() == [
        "length", "metric", "system", "baseline", "n", "mean", "baseline_mean", "delta", "ci_low", "ci_high",
        "p_value", "p_adjusted",
    ]  # fmt: skip
    for line, r in zip(lines[2:], out.itertuples()):
        cells = line.split()
        assert cells[1:5] == [r.length, r.metric, r.system, r.baseline]
        assert [float(c) for c in cells[6:]] == pytest.approx(
            [r.mean, r.baseline_mean, r.delta, r.ci_low, r.ci_high, r.p_value, r.p_adjusted], abs=5e-5
        )
    others = [c for c in display.OUTPUT_COLUMNS if c not in display.TEXT_COLUMNS]  # ci_low_adjusted, ..., note
    assert others[0] == "ci_low_adjusted" and others[-1] == "note"
    assert " ".join(text.split("\n[8 rows")[1].split()) == (
        f"x {1 + len(display.OUTPUT_COLUMNS)} columns; also {', '.join(others)}]"
    )  # wrapped at display.width
    # a derived frame is a plain DataFrame with pandas' own text; a comparison without its columns falls back too
    assert "baseline_mean" not in repr(out.drop(columns="delta").iloc[:, :4])
    assert repr(display.comparison_frame(out.drop(columns="delta"))) == repr(pd.DataFrame(out.drop(columns="delta")))


def test_small_p_values_bold_only_when_significant_and_tables_scroll():
    # hand-made rows: p adjusted 3e-7 (below 4 decimals), 0.2 (not significant, mean above the baseline)
    frame = pd.DataFrame(
        {
            "metric": ["AP", "AP"],
            "system": ["a", "b"],
            "baseline": ["z", "z"],
            "n": [10, 10],
            "mean": [0.5, 0.45],
            "baseline_mean": [0.4, 0.4],
            "delta": [0.1, 0.05],
            "p_value": [1e-7, 0.1],
            "p_adjusted": [3e-7, 0.2],
        }
    )
    md = display.to_markdown(frame)
    rows = [line for line in md.splitlines() if line.startswith("| AP")]
    assert "&lt; 0.0001" in rows[0] and "e-0" not in md and "0.0000" not in md
    assert "**0.5000**" in rows[0]  # significant: the better mean bold
    assert "**" not in rows[1] and "0.4500" in rows[1]  # not significant: nothing bold
    html_text = display.to_html(frame)
    assert '<div class="rankframe-scroll"><table class="rankframe">' in html_text and "overflow-x:auto" in html_text
