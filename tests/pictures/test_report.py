"""rankframe.report / ``rankframe report``: one self-contained HTML file, the same from the CLI and from Python,
opened in real headless Chromium (no console error, every table and image there, a screenshot written)."""

from __future__ import annotations

import html
import importlib.util
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import rankframe  # noqa: E402
from rankframe import cli  # noqa: E402
from rankframe.core.errors import RankframeError, ValidationError  # noqa: E402
from rankframe.report import without_timestamp  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUNS = [str(EX / "tiny.run"), str(EX / "tiny-b.run")]
QRELS = str(EX / "tiny.qrels")
CHROMIUM = Path("/usr/bin/chromium")


def _examples(*names: str) -> list:
    """Names from modules of examples/ (screenshot_report's check and ARGS, gallery's tables)."""
    sys.path.insert(0, str(EX))
    try:
        import gallery
        import screenshot_report
    finally:
        sys.path.remove(str(EX))
    modules = (screenshot_report, gallery)
    return [next(getattr(m, n) for m in modules if hasattr(m, n)) for n in names]


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium for the module's browser tests, each on a page of its own (a context of its own,
    closed after it): a launch is ~1 CPU-s, five launches became one."""
    from playwright.sync_api import sync_playwright

    (args,) = _examples("ARGS")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def long_names_report(tmp_path_factory):
    """examples/gallery.py's 6 systems and 4 segments with long names, one report (~3 CPU-s), seen at two widths."""
    make_runs, system_names = _examples("make_runs", "system_names")
    path = tmp_path_factory.mktemp("wide") / "wide.html"
    rankframe.report(make_runs(60), "AP", baseline=system_names()[0], by="segment", path=path)
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The same report written by the command and by Python: 3 systems, 8 queries in 2 segments."""
    tmp = tmp_path_factory.mktemp("report")
    table, cli_path, py_path = tmp / "runs.parquet", tmp / "cli.html", tmp / "py.html"
    runs = pd.read_parquet(EX / "paired.parquet")
    runs[runs["query"] <= "q08"].to_parquet(table)  # q01-q08: 4 short, 4 long queries (a small, fast report)
    argv = ["report", str(table), "--baseline", "bm25", "-m", "AP", "-m", "P@2", "--by", "length"]
    assert cli.main([*argv, "--title", "AP <by length>", "-o", str(cli_path)]) == 0
    df = rankframe.read_long(table)
    text = rankframe.report(df, ["AP", "P@2"], baseline="bm25", by="length", title="AP <by length>", path=py_path)
    assert py_path.read_text(encoding="utf-8") == text
    return cli_path, py_path, df


def test_cli_and_python_write_the_same_report(reports):
    cli_path, py_path, _ = reports
    a, b = cli_path.read_text(encoding="utf-8"), py_path.read_text(encoding="utf-8")
    assert re.search(r'<span class="generated">generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC', a)
    assert without_timestamp(a) == without_timestamp(b)
    assert a != without_timestamp(a)  # the stamp was there and is the only difference


def test_report_is_self_contained_and_holds_the_numbers(reports):
    _, py_path, df = reports
    text = py_path.read_text(encoding="utf-8")
    assert not re.search(r"https?://|<script|<link|@import|url\(|<iframe|<object", text, re.I)
    srcs = re.findall(r'<img alt="[^"]+" src="([^"]{0,30})', text)
    assert len(srcs) == 2 * 2 + 2 + 2  # forest + distribution per metric, 2 differences plots, at_k, P-R
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    assert text.count('<table class="rankframe">') == 1 + 2 + 2  # summary, means, all queries, one per segment
    assert "<h3>length = long</h3>" in text and "<h3>length = short</h3>" in text
    assert "<title>AP &lt;by length&gt;</title>" in text
    for by in (None, "length"):
        out = rankframe.compare(df, ["AP", "P@2"], baseline="bm25", by=by)
        for r in out.itertuples():
            assert f"{r.delta:.4f}" in text and f"{r.mean:.4f}" in text
        assert html.escape(rankframe.display.compare_caption(out.attrs)) in text


def test_trec_runs_through_the_command(tmp_path):
    path = tmp_path / "r.html"
    assert cli.main(["report", *RUNS, "--qrels", QRELS, "-m", "AP", "-o", str(path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert "2 systems (tiny, tiny-b), baseline tiny" in text and text.count("<img ") == 1 * 2 + 1 + 2


def test_a_system_column_of_another_name(tmp_path):
    # the system column is "run": the report and the command name it (the old code looked for "system" in the
    # per-query differences plot and failed); the numbers are compare's on the same table
    table, cli_path = tmp_path / "runs.parquet", tmp_path / "cli.html"
    runs = pd.read_parquet(EX / "paired.parquet").rename(columns={"system": "run"})
    runs[runs["query"] <= "q06"].to_parquet(table)
    df = rankframe.read_long(table)
    argv = ["report", str(table), "--system", "run", "--baseline", "bm25", "-m", "AP", "-o", str(cli_path)]
    assert cli.main(argv) == 0
    text = rankframe.report(df, "AP", baseline="bm25", system="run")
    assert without_timestamp(cli_path.read_text(encoding="utf-8")) == without_timestamp(text)
    out = rankframe.compare(df, "AP", system="run", baseline="bm25")
    assert all(f"{r.delta:.4f}" in text for r in out.itertuples())
    assert text.count("<img ") == 2 + 2 + 2  # forest, distribution; 2 differences plots; at_k, P-R


def test_system_names_that_look_like_markup(tmp_path):
    # "$\foo$" is mathtext to matplotlib (the old code crashed drawing it), "_dense" a hidden legend label,
    # "<b>" HTML: all are names, written as given (HTML-escaped in the page)
    names = {"bm25": r"$\foo$", "dense": "_dense", "hybrid": "<b>"}
    runs = pd.read_parquet(EX / "paired.parquet")
    df = runs[runs["query"] <= "q06"].assign(system=lambda d: d["system"].map(names))
    text = rankframe.report(df, "AP", baseline=r"$\foo$")
    assert r"3 systems ($\foo$, &lt;b&gt;, _dense), baseline $\foo$" in text
    assert "<b>" not in text and text.count("<img ") == 6


@pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason="playwright is not installed")
@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (.ci/run installs Debian's chromium)")
def test_report_renders_in_headless_chromium(reports, tmp_path, chromium):
    (check,) = _examples("check")
    _, py_path, _ = reports
    png = tmp_path / "report.png"
    seen = check(py_path, png, width=1000, height=800, browser=chromium)
    assert seen["errors"] == []
    assert [u for u in seen["requests"] if not u.startswith(("file:", "data:"))] == []
    assert seen["title"] == "AP <by length>" and seen["tables"] == 5
    assert seen["captions"][0].startswith(
        "per segment and metric: the system with the best mean (the highest; the lowest where lower is better)"
    )
    assert all(c.startswith(("mean over n queries", "two-sided paired t-test")) for c in seen["captions"][1:])
    assert len(seen["images"]) == 8 and all(ok and w > 300 and h > 200 for ok, w, h, _ in seen["images"])
    from PIL import Image

    with Image.open(png) as img:
        assert img.size == (1000, 800)
        assert len(np.unique(np.asarray(img.convert("L")))) > 10  # text and tables, not a blank page


def test_hostile_input(tmp_path, capsys, monkeypatch):
    df = rankframe.read_trec(RUNS, QRELS)
    with pytest.raises(ValidationError, match="at least 2 systems"):
        rankframe.report(df[df.system == "tiny"], "AP")
    with pytest.raises(RankframeError, match="'title' parameter of report"):
        rankframe.report(df, "AP", title=3)
    with pytest.raises(RankframeError, match="'path' parameter of report"):
        rankframe.report(df, "AP", path=3)
    with pytest.raises(RankframeError, match="cannot write"):
        rankframe.report(df, "AP", path=tmp_path / "no" / "such" / "dir" / "r.html")
    with pytest.raises(RankframeError, match="Hint: did you mean 'tiny'"):
        rankframe.report(df, "AP", baseline="tinny")
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r'pip install "rankframe\[plot\]"'):
        rankframe.report(df, "AP")
    monkeypatch.undo()
    bad = [
        (["report", *RUNS, "--qrels", QRELS, "-o", str(tmp_path / "r.html")], "needs the metrics"),
        (["report", RUNS[0], "--qrels", QRELS, "-m", "AP", "-o", str(tmp_path / "r.html")], "at least 2 systems"),
        (
            ["report", *RUNS, "--qrels", QRELS, "-m", "AP", "--baseline", "x", "-o", str(tmp_path / "r.html")],
            "no such system",
        ),
        (["report", *RUNS, "--qrels", QRELS, "-m", "AP", "-o", str(tmp_path / "missing" / "r.html")], "cannot write"),
        (["report", *RUNS, "-m", "AP", "-o", str(tmp_path / "r.html")], "needs judgments"),
    ]
    for argv, message in bad:
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("rankframe: error: ") and message in err and err.count("\n") == 1, err
    with pytest.raises(SystemExit) as e:  # -o is required: argparse's usage error
        cli.main(["report", *RUNS, "--qrels", QRELS, "-m", "AP"])
    assert e.value.code == 2 and "-o/--output" in capsys.readouterr().err


@pytest.mark.parametrize("by", [None, "length"])
def test_the_table_is_validated_and_evaluated_once(monkeypatch, by):
    """Every table and plot of the report comes from one evaluation (it was 6: two compares, the means, the @k
    curves and the P-R curve evaluated the same table again, each validating it first)."""
    import rankframe.engines.numpy_engine as numpy_engine

    evaluate_module = sys.modules["rankframe.evaluate"]
    calls = {"validate": 0, "engine": 0}

    def counted(name, real):
        def call(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(evaluate_module, "validate_table", counted("validate", evaluate_module.validate_table))
    monkeypatch.setattr(numpy_engine, "evaluate", counted("engine", numpy_engine.evaluate))
    df = pd.read_parquet(EX / "paired.parquet")
    text = rankframe.report(df, ["AP", "P@2"], baseline="bm25", by=by, seed=1)
    assert calls == {"validate": 1, "engine": 1}
    assert text.count("<img ") == 2 * 2 + 2 + 2  # forest + distribution per metric, 2 differences plots, at_k, P-R


def test_a_segment_that_varies_within_a_query_is_evaluated_again_for_all_queries():
    # the units of the overall comparison are queries, those of the segments (segment, query): evaluated twice,
    # and the overall numbers are compare()'s on the whole table
    df = pd.read_parquet(EX / "paired.parquet")
    df = df.assign(kind=np.where(np.arange(len(df)) % 3 == 0, "x", "y"))
    text = rankframe.report(df, "AP", baseline="bm25", by="kind", missing="drop")
    for r in rankframe.compare(df, "AP", baseline="bm25").itertuples():
        assert f"{r.delta:.4f}" in text and f"{r.mean:.4f}" in text


@pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason="playwright is not installed")
@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (.ci/run installs Debian's chromium)")
@pytest.mark.parametrize("width", [1400, 390])
def test_a_report_of_long_names_never_overflows_the_page(tmp_path, width, long_names_report, chromium):
    # examples/gallery.py: 6 systems and 4 segments with long names; the tables are wider than a phone (and,
    # with every column, than 1,400 px): the page must not scroll sideways, each table scrolls in its own box
    (check,) = _examples("check")
    seen = check(long_names_report, tmp_path / "wide.png", width=width, height=800, browser=chromium)
    assert seen["errors"] == []
    assert seen["scroll_width"] <= seen["inner_width"] == width
    # the comparison over all queries: delta and p adj. are in view without scrolling, on a phone too
    assert 0 < seen["headers"]["delta"] <= width and 0 < seen["headers"]["p adj."] <= width
    # the summary comes first, then the tables, then the plots in a grid: 2 columns wide, 1 on a phone
    assert seen["sections"] == ["summary", "tables", "plots"]
    figures = np.array(seen["figures"])
    assert len(figures) == 2 + 5 + 2  # forest, distribution; 5 differences; @k, P-R
    assert seen["grid_columns"] == (2 if width == 1400 else 1)
    assert len(np.unique(figures[:, 0].round())) == seen["grid_columns"]  # the figures' left edges
    assert figures[:, 2].max() <= width


def test_a_table_without_a_system_column_gets_one_systems_report(tmp_path):
    # examples/recs.parquet has no system column: the report is one system's means per segment and its plots
    recs = pd.read_parquet(EX / "recs.parquet")
    before = recs.copy()
    text = rankframe.report(recs, ["nDCG@10", "AP"], by="country", title="recs", path=tmp_path / "recs.html")
    pd.testing.assert_frame_equal(recs, before)  # the caller's table is untouched
    assert "one system (no &#x27;system&#x27; column)" in text and "segments by country" in text
    assert text.count('<table class="rankframe">') == 1 and text.count("<img ") == 2 * 2 + 2
    means = rankframe.evaluate(recs, ["nDCG@10", "AP"], by="country", ci=0.95)
    for r in means.itertuples():
        assert f"{r.value:.4f} [{r.ci_low:.4f}, {r.ci_high:.4f}]" in text
    assert "baseline" not in text.lower()


def test_the_summary_comes_first_with_the_headline_of_each_segment(tmp_path):
    # paired.parquet: bm25 (baseline), dense, hybrid; the summary's rows recomputed from compare's own frame
    runs = pd.read_parquet(EX / "paired.parquet")
    text = rankframe.report(runs, ["nDCG@5", "AP"], baseline="bm25", by="length")
    assert text.index('<section id="summary">') < text.index('<section id="tables">') < text.index('id="plots"')
    summary = text.split('<section id="summary">')[1].split("</section>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", summary.split("<tbody>")[1])
    cells = [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)] for r in rows]
    whole = rankframe.compare(runs, ["nDCG@5", "AP"], baseline="bm25")
    parts = rankframe.compare(runs, ["nDCG@5", "AP"], baseline="bm25", by="length")
    want = []
    for label, frame in [("all queries", whole)] + [
        (f"length = {v}", g) for v, g in parts.groupby("length", sort=False)
    ]:
        for metric, g in frame.groupby("metric", sort=False):
            best = g.loc[g["mean"].idxmax()]
            sig = g["p_adjusted"] < 0.05
            counts = f"{int((sig & (g.delta > 0)).sum())} / {int((sig & (g.delta < 0)).sum())} / {int((~sig).sum())}"
            if best["mean"] > best["baseline_mean"]:
                stars = (
                    "***"
                    if best.p_adjusted < 0.001
                    else "**"
                    if best.p_adjusted < 0.01
                    else "*"
                    if best.p_adjusted < 0.05
                    else ""
                )
                p = "< 0.0001" if best.p_adjusted < 1e-4 else f"{best.p_adjusted:.4f}"
                want.append([label, metric, best.system, f"{best['mean']:.4f}", f"{best.delta:.4f}{stars}", p, counts])
            else:
                want.append([label, metric, "bm25", f"{best.baseline_mean:.4f}", "baseline", "", counts])
    assert cells == want


def test_the_command_writes_one_systems_report_of_a_table_without_a_system_column(tmp_path, capsys):
    # the same file as rankframe.report(recs, ...) (the Python function was the only way before)
    path = tmp_path / "cli.html"
    argv = ["report", str(EX / "recs.parquet"), "-m", "nDCG@10", "-m", "AP", "--by", "country", "-o", str(path)]
    assert cli.main(argv) == 0
    text = rankframe.report(pd.read_parquet(EX / "recs.parquet"), ["nDCG@10", "AP"], by="country")
    assert without_timestamp(path.read_text(encoding="utf-8")) == without_timestamp(text)
    assert "one system (no &#x27;system&#x27; column)" in text
    # asking for a comparison (--baseline) of a table without systems still names the missing column
    capsys.readouterr()
    assert cli.main([*argv[:-2], "--baseline", "x", "-o", str(tmp_path / "b.html")]) == 2
    assert "no column 'system'" in capsys.readouterr().err and not (tmp_path / "b.html").exists()


@pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason="playwright is not installed")
@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (.ci/run installs Debian's chromium)")
def test_a_table_on_a_dark_notebook_theme_keeps_its_caption_readable_and_text_left(tmp_path, chromium):
    # a page styled as JupyterLab's dark theme (light text on a dark background, cells right-aligned by default):
    # the caption takes the page's text colour (contrast >= 4.5, WCAG AA), text columns are left-aligned
    out = rankframe.compare(pd.read_parquet(EX / "paired.parquet"), "AP", baseline="bm25")
    page_html = (
        "<html><head><style>body{background:#111111;color:#e0e0e0} td,th{text-align:right}</style></head><body>"
        + rankframe.display.to_html(out)
        + "</body></html>"
    )
    path = tmp_path / "dark.html"
    path.write_text(page_html, encoding="utf-8")
    page = chromium.new_page()
    try:
        page.goto(path.as_uri())
        colour = page.evaluate("getComputedStyle(document.querySelector('table.rankframe caption')).color")
        opacity = page.evaluate("getComputedStyle(document.querySelector('table.rankframe caption')).opacity")
        align = page.evaluate(
            "[...document.querySelector('table.rankframe tbody tr').cells].map(c => getComputedStyle(c).textAlign)"
        )
    finally:
        page.close()
    rgb = np.array([float(v) for v in re.findall(r"[\d.]+", colour)[:3]]) / 255
    rgb = rgb * float(opacity) + np.array([0x11, 0x11, 0x11]) / 255 * (1 - float(opacity))  # drawn over the page

    def luminance(c):
        lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(np.array([0.2126, 0.7152, 0.0722]) @ lin)

    ratio = (luminance(rgb) + 0.05) / (luminance(np.array([0x11] * 3) / 255) + 0.05)
    assert ratio >= 4.5, colour
    assert align[:3] == ["left", "left", "left"] and align[3] == "right"  # metric, system, baseline | n


@pytest.mark.browser
@pytest.mark.skipif(importlib.util.find_spec("playwright") is None, reason="playwright is not installed")
@pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium (.ci/run installs Debian's chromium)")
def test_a_wide_window_is_used_and_no_caption_is_cut(tmp_path, chromium):
    # issue 33: at a 1,400 px window the report used ~1,100 px, so its tables scrolled sideways and the captions of
    # the scrolled tables were cut mid-word at the edge. Now the page takes the window (up to 1,600 px) and a caption
    # wraps within the visible width: its right edge lies inside the viewport, whatever its table's width
    path = tmp_path / "wide.html"
    paired = pd.read_parquet(EX / "paired.parquet")
    rankframe.report(paired, ["R@20", "AP", "nDCG@10"], baseline="bm25", n_resamples=200, seed=1, path=path)
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(path.as_uri())
        body = page.evaluate("document.body.getBoundingClientRect().width")
        edges = page.evaluate(
            "[...document.querySelectorAll('table.rankframe caption')].map(c => c.getBoundingClientRect().right)"
        )
    finally:
        page.close()
    assert body >= 1350, body
    assert edges and max(edges) <= 1400, edges
