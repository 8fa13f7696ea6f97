"""rankframe.plot: what was drawn (line data, bands, markers, labels, legends) equals the numbers it plots.

The numbers come from ``rankframe.evaluate`` / ``rankframe.compare`` (held to pytrec_eval and scipy elsewhere),
recomputed here with plain pandas where the plot derives something (per-query deltas, medians); the
interpolated precision-recall points are held to pytrec_eval's ``iprec_at_recall``.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import rankframe  # noqa: E402
import rankframe.plot as rp  # noqa: E402
from rankframe.core.errors import ParameterError, RankframeError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    return pd.read_parquet(ROOT / "examples" / "paired.parquet")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


# ---------------------------------------------------------------------------------------------------------
# metric@k


def test_at_k_lines_and_bands_are_evaluate_means(runs):
    ks = [1, 3, 5, 10]
    ax = rp.at_k(runs, "nDCG", ks, ci=0.95)
    expected = rankframe.evaluate(runs, [f"nDCG@{k}" for k in ks], by="system", ci=0.95)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert sorted(lines) == ["bm25", "dense", "hybrid"] == sorted(legend_texts(ax))
    bands = ax.collections
    assert len(bands) == 3
    for band, (system, e) in zip(bands, expected.groupby("system", sort=False)):
        line = lines[system]
        np.testing.assert_array_equal(line.get_xdata(), ks)
        np.testing.assert_allclose(line.get_ydata(), e["value"], rtol=0, atol=1e-12)
        verts = band.get_paths()[0].vertices
        for k, low, high in zip(ks, e["ci_low"], e["ci_high"]):
            ys = verts[np.isclose(verts[:, 0], k), 1]
            assert ys.min() == pytest.approx(low, abs=1e-12) and ys.max() == pytest.approx(high, abs=1e-12)
        assert band.get_facecolor()[0][:3] == pytest.approx(matplotlib.colors.to_rgb(line.get_color()))
    assert ax.get_xlabel() == "cutoff k" and ax.get_ylabel() == "nDCG@k"
    assert "95% CI" in ax.get_legend().get_title().get_text()


def test_at_k_from_means_draws_the_same_and_picks_the_metric(runs):
    means = rankframe.evaluate(runs, ["P@1", "P@5", "AP@5", "AP@10", "RR"], by=["length", "system"])
    ax = rp.at_k(means, "P")
    assert len(ax.get_lines()) == 6 and "short · dense" in legend_texts(ax)
    line = next(li for li in ax.get_lines() if li.get_label() == "short · dense")
    e = means[(means.length == "short") & (means.system == "dense") & means.metric.str.startswith("P@")]
    np.testing.assert_array_equal(line.get_xdata(), [1, 5])
    np.testing.assert_allclose(line.get_ydata(), e["value"], atol=1e-12)
    assert ax.get_ylabel() == "P@k" and not ax.collections  # no ci: no band
    both = rp.at_k(means)  # every metric with a cutoff (RR has none): labels name the metric too
    assert len(both.get_lines()) == 12 and "short · dense · AP" in legend_texts(both)


# ---------------------------------------------------------------------------------------------------------
# forest


def test_forest_of_a_comparison(runs):
    out = rankframe.compare(runs, ["nDCG@5", "AP"], baseline="bm25", by="length")
    ax = rp.forest(out, "nDCG@5")
    rows = out[out.metric == "nDCG@5"]
    # grouped by segment (the first one at the top), by effect within: bottom (y=0) to top
    first = {v: i for i, v in enumerate(pd.unique(rows.length))}
    rows = rows.assign(_seg=-rows.length.map(first)).sort_values(["_seg", "delta"]).reset_index(drop=True)
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == [f"{r.length} · {r.system}  (n={r.n})" for r in rows.itertuples()]
    assert all("(n=16)" in t for t in ticks)
    (intervals,) = [c for c in ax.collections if c.get_label() == "95% CI"]
    segs = intervals.get_segments()
    for y, r in enumerate(rows.itertuples()):
        (x0, y0), (x1, y1) = segs[y]
        assert (x0, x1) == pytest.approx((r.ci_low, r.ci_high), abs=1e-12) and y0 == y1 == y
    marks = {c.get_label(): np.asarray(c.get_offsets()) for c in ax.collections if c is not intervals}
    # the markers come from the unadjusted p-value, the test that made the bars (a bar clears 0 iff filled)
    sig_better = rows[(rows.p_value < 0.05) & (rows.delta > 0)]
    sig_worse = rows[(rows.p_value < 0.05) & (rows.delta < 0)]
    assert marks["better, p < 0.05"][:, 0] == pytest.approx(sig_better["delta"].to_numpy(), abs=1e-12)
    assert marks["worse, p < 0.05"][:, 0] == pytest.approx(sig_worse["delta"].to_numpy(), abs=1e-12)
    assert list(marks["worse, p < 0.05"][:, 1]) == list(sig_worse.index)
    assert set(legend_texts(ax)) == {"95% CI", "better, p < 0.05", "worse, p < 0.05"}
    assert ax.get_legend().get_title().get_text() == "markers: the bars' own\ntest, unadjusted"
    assert ax.get_xlabel() == "nDCG@5: system − baseline (bm25)" and ax.get_ylabel() == "length, system"
    # a stricter alpha: fewer rows are significant
    ap = rp.forest(out, "AP", alpha=0.01)
    assert "not significant" in legend_texts(ap)
    strict = out[(out.metric == "AP") & (out.p_value < 0.01)]
    assert sum(len(c.get_offsets()) for c in ap.collections if c.get_label().endswith("p < 0.01")) == len(strict)


def test_forest_of_means_and_of_a_long_table(runs):
    means = rankframe.evaluate(runs, "AP", by="system", ci=0.9)
    ax = rp.forest(means)
    order = means.sort_values("value")
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"{s}  (n=32)" for s in order.system]
    (points,) = [c for c in ax.collections if c.get_label() == "mean"]
    assert np.asarray(points.get_offsets())[:, 0] == pytest.approx(order["value"].to_numpy(), abs=1e-12)
    long = rp.forest(runs, "AP", baseline="bm25", by="length")  # compared here: same rows as compare's
    out = rankframe.compare(runs, "AP", baseline="bm25", by="length")
    first = {v: i for i, v in enumerate(pd.unique(out.length))}
    out = out.assign(_seg=-out.length.map(first)).sort_values(["_seg", "delta"])
    assert [t.get_text() for t in long.get_yticklabels()] == [
        f"{r.length} · {r.system}  (n=16)" for r in out.itertuples()
    ]


# ---------------------------------------------------------------------------------------------------------
# per-query differences


def test_differences_bars_are_the_sorted_per_query_deltas(runs):
    per = rankframe.evaluate(runs, "AP", by="system", per_query=True)
    wide = per.pivot(index="query", columns="system", values="value")
    delta = np.sort((wide["dense"] - wide["bm25"]).to_numpy())
    ax = rp.differences(per, system="dense", baseline="bm25")
    bars = sorted((p.get_x() + p.get_width() / 2, p.get_height(), p.get_facecolor()) for p in ax.patches)
    assert [h for _, h, _ in bars] == pytest.approx(delta, abs=1e-12)
    win, loss = matplotlib.colors.to_rgba("#009E73"), matplotlib.colors.to_rgba("#D55E00")
    assert all((c == win) == (h > 0) and (c == loss) == (h < 0) for _, h, c in bars)
    wins, ties, losses = (delta > 0).sum(), (delta == 0).sum(), (delta < 0).sum()
    assert legend_texts(ax) == [
        f"mean {delta.mean():+.4f}",
        f"dense better ({wins})",
        f"tie ({ties})",
        f"bm25 better ({losses})",
    ]
    assert (
        ax.get_ylabel() == "AP: dense − bm25"
        and ax.get_xlabel().replace("\n", " ") == "queries (32), sorted by difference"
    )
    same = rp.differences(runs, "AP", system="dense", baseline="bm25")  # from the long table
    assert [p.get_height() for p in same.patches] == [p.get_height() for p in ax.patches]


# ---------------------------------------------------------------------------------------------------------
# distribution


def test_distribution_boxes_are_the_per_query_values(runs):
    per = rankframe.evaluate(runs, "nDCG@5", by=["length", "system"], per_query=True)
    ax = rp.distribution(per, by="system")
    groups = per.groupby("system", sort=False)["value"]
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"{s}\n(n={len(v)})" for s, v in groups]
    # the medians: the horizontal lines as wide as a box (0.7; the caps are half as wide)
    medians = [
        li.get_ydata()[0] for li in ax.get_lines()
        if len(li.get_xdata()) == 2 and np.ptp(li.get_xdata()) == pytest.approx(0.7) and np.ptp(li.get_ydata()) == 0
    ]  # fmt: skip
    assert medians == pytest.approx(groups.median().to_numpy(), abs=1e-12)
    (means,) = ax.collections
    assert np.asarray(means.get_offsets())[:, 1] == pytest.approx(groups.mean().to_numpy(), abs=1e-12)
    assert legend_texts(ax) == ["quartiles, median; whiskers 1.5 IQR", "mean", "bm25", "dense", "hybrid"]
    assert ax.get_ylabel() == "nDCG@5 per query" and ax.get_xlabel() == "system"
    bm25 = rankframe.evaluate(runs[runs.system == "bm25"], "AP", by="length", per_query=True)
    seg = rp.distribution(bm25)  # no system column: the segments are the groups
    assert [t.get_text() for t in seg.get_xticklabels()] == ["long\n(n=16)", "short\n(n=16)"]
    violin = rp.distribution(runs, "AP", style="violin")
    assert [t.get_text() for t in violin.get_xticklabels()] == ["bm25\n(n=32)", "dense\n(n=32)", "hybrid\n(n=32)"]


# ---------------------------------------------------------------------------------------------------------
# interpolated precision-recall: held to pytrec_eval


def _pytrec_iprec(df: pd.DataFrame) -> pd.DataFrame:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    judged = df[df.relevance.notna()]
    qrels = {str(q): {str(i): int(r) for i, r in zip(g.item, g.relevance)} for q, g in judged.groupby("query")}
    order = "rank" if "rank" in df.columns else "score"
    sign = -1.0 if order == "rank" else 1.0  # pytrec_eval ranks by score (ties: docno descending, as rankframe)
    ranked = df[df[order].notna()]
    run = {str(q): {str(i): sign * float(r) for i, r in zip(g.item, g[order])} for q, g in ranked.groupby("query")}
    res = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    rows = [
        (q, level, res[q][f"iprec_at_recall_{level:.2f}"]) for q in res for level in rp.RECALL_LEVELS
    ]  # one row per (query, level), as iprec_at_recall(per_query=True)
    return pd.DataFrame(rows, columns=["query", "recall", "precision"])


def _random_table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(12):
        n = int(rng.integers(1, 25))
        grades = rng.choice([0, 0, 1, 2, np.nan], size=n)
        rows += [(f"q{q}", f"d{i}", i + 1, g) for i, g in enumerate(grades)]
        rows += [(f"q{q}", f"u{i}", None, 1) for i in range(int(rng.integers(0, 3)))]  # judged, not retrieved
    df = pd.DataFrame(rows, columns=["query", "item", "rank", "relevance"])
    return df.astype({"rank": "Int64", "relevance": "float64"})


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_iprec_at_recall_equals_pytrec_eval(seed):
    df = _random_table(seed)
    got = rp.iprec_at_recall(df, per_query=True)
    want = _pytrec_iprec(df)
    merged = want.merge(got, on=["query", "recall"], how="left", suffixes=("_trec", ""))
    assert len(merged) == len(want) and merged["precision"].notna().all()
    np.testing.assert_allclose(merged["precision"], merged["precision_trec"], rtol=0, atol=1e-12)


def test_iprec_on_the_trec_example_and_the_curve():
    df = rankframe.read_trec(
        [ROOT / "examples" / "tiny.run", ROOT / "examples" / "tiny-b.run"], ROOT / "examples" / "tiny.qrels"
    )
    ax = rp.pr_curve(df)
    means = rp.iprec_at_recall(df)
    for system, g in means.groupby("system"):
        per_run = df[df.system == system].drop(columns="system")
        want = _pytrec_iprec(per_run)
        if len(want["query"].unique()) == per_run["query"].nunique():  # every judged query retrieved: plain trec_eval
            np.testing.assert_allclose(g["precision"], want.groupby("recall")["precision"].mean(), atol=1e-12)
        (line,) = [li for li in ax.get_lines() if li.get_label() == str(system)]
        np.testing.assert_allclose(line.get_xdata(), rp.RECALL_LEVELS)
        np.testing.assert_allclose(line.get_ydata(), g["precision"], atol=1e-12)
    assert ax.get_xlabel() == "recall" and ax.get_ylabel() == "interpolated precision"
    assert sorted(legend_texts(ax)) == sorted(map(str, df.system.unique()))


def test_pr_curve_from_points_and_a_long_table_agree(runs):
    pts = rp.iprec_at_recall(runs)
    a, b = rp.pr_curve(pts), rp.pr_curve(runs)
    assert [li.get_ydata().tolist() for li in a.get_lines()] == [li.get_ydata().tolist() for li in b.get_lines()]


def _three_models() -> pd.DataFrame:
    """A recommender's 3-model table: 300 users, 20 recommendations each, hits drawn at a few percent (R@20)."""
    rng = np.random.default_rng(0)
    rows = []
    for model, p in [("ItemKNN", 0.03), ("EASE", 0.035), ("LightGCN", 0.032)]:
        for user in range(300):
            hits = rng.random(20) < p
            rows += [(model, user, f"i{rng.integers(1e6)}", r + 1, int(hits[r])) for r in range(20)]
            rows.append((model, user, "held-out", None, 1))  # a relevant item not recommended
    table = pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])
    return table.drop_duplicates(["system", "query", "item"])


def _overlapping_ticks(ax) -> list[tuple[str, str, str]]:
    """Pairs of visible tick labels (x among x, y among y) whose drawn boxes overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = ax.figure
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    found = []
    for name, labels in (("x", ax.get_xticklabels()), ("y", ax.get_yticklabels())):
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels if t.get_visible() and t.get_text()]
        for i, (a, box_a) in enumerate(boxes):
            found += [(name, a, b) for b, box_b in boxes[i + 1 :] if box_a.overlaps(box_b)]
    return found


@pytest.mark.parametrize("pairs", ["baseline", "all"])
@pytest.mark.parametrize("figsize", [None, (6.4, 2.6), (4.0, 2.6)], ids=["own", "report", "narrow"])
def test_forest_tick_labels_do_not_collide(pairs, figsize):
    # issue 33: R@20 on a 3-model table, pairs='all', in the report's 6.4 in panel: the x tick labels
    # '−0.125', '−0.100', ... were set 0.025 apart, each wider than that step on the axis
    from matplotlib.figure import Figure

    out = rankframe.compare(_three_models(), "R@20", pairs=pairs)
    ax = None if figsize is None else Figure(figsize=figsize, layout="constrained").add_subplot()
    ax = rp.forest(out, "R@20", ax=ax)
    assert _overlapping_ticks(ax) == []
    low, high = ax.get_xlim()
    inside = [t for t in ax.get_xticks() if low <= t <= high]
    # still a scale to read; the narrow figure's legend leaves its axes under 1 in: room for one label only
    assert len(inside) >= (1 if figsize == (4.0, 2.6) else 3), inside


def test_forest_rows_of_several_baselines_name_their_pair():
    # pairs='all' on 3 models: 3 pairs, two of them with LightGCN as the system; its label named the system only,
    # so two rows read "LightGCN  (n=300)". Each row names "system − baseline" when the baselines differ
    out = rankframe.compare(_three_models(), "R@20", pairs="all")
    ax = rp.forest(out, "R@20", sort=False)  # the frame's order, first at the top
    ticks = [t.get_text() for t in ax.get_yticklabels()][::-1]
    assert ticks == [f"{r.system} − {r.baseline}  (n=300)" for r in out.itertuples()]
    assert len(set(ticks)) == 3


# ---------------------------------------------------------------------------------------------------------
# images: one smoke test per plot (non-blank, the size asked for)


@pytest.mark.parametrize(
    "draw",
    [
        lambda r, ax: rp.at_k(r, "P", [1, 5, 10], ci=0.95, ax=ax),
        lambda r, ax: rp.forest(r, "AP", baseline="bm25", by="length", ax=ax),
        lambda r, ax: rp.differences(r, "AP", system="hybrid", baseline="bm25", ax=ax),
        lambda r, ax: rp.distribution(r, "AP", ax=ax),
        lambda r, ax: rp.pr_curve(r, ax=ax),
    ],
    ids=["at_k", "forest", "differences", "distribution", "pr_curve"],
)
def test_each_plot_renders_a_non_blank_png_of_the_asked_size(runs, draw):
    from PIL import Image

    fig, ax = plt.subplots(figsize=(4, 3), dpi=100)
    assert draw(runs, ax) is ax
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    img = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"), dtype=float)
    assert img.shape == (300, 400, 3)
    ink = (img.sum(axis=2) < 600).mean()  # share of clearly non-white pixels
    assert 0.02 < ink < 0.6
    assert len({tuple(p) for p in img[::7, ::7].reshape(-1, 3)}) > 10  # colours, not one flat fill


def test_the_readme_picture_is_what_its_script_draws(tmp_path):
    from PIL import Image, ImageChops

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import make_readme_plot
    finally:
        sys.path.remove(str(ROOT / "examples"))
    fresh = make_readme_plot.main(tmp_path / "forest.png")
    with Image.open(fresh) as a, Image.open(ROOT / "docs" / "img" / "forest.png") as b:
        assert a.size == b.size == (768, 384)
        diff = np.asarray(ImageChops.difference(a.convert("RGB"), b.convert("RGB")), dtype=float)
        assert diff.mean() < 3  # the same picture (a few anti-aliased pixels may differ across matplotlib builds)


# ---------------------------------------------------------------------------------------------------------
# the optional extra, hostile input


def test_without_matplotlib_a_clear_error_naming_the_extra(runs, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)  # import matplotlib... now raises ImportError
    for draw in (
        lambda: rp.at_k(runs),
        lambda: rp.forest(runs, "AP"),
        lambda: rp.differences(runs, "AP"),
        lambda: rp.distribution(runs, "AP"),
        lambda: rp.pr_curve(runs),
    ):
        with pytest.raises(rp.MissingExtraError, match=r'pip install "rankframe\[plot\]"') as e:
            draw()
        assert isinstance(e.value, RankframeError) and isinstance(e.value, ImportError)


def test_import_rankframe_does_not_import_matplotlib():
    code = "import sys, rankframe, rankframe.plot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_hostile_input(runs):
    per = rankframe.evaluate(runs, ["AP", "RR"], by="system", per_query=True)
    out = rankframe.compare(runs, ["AP", "RR"], baseline="bm25")
    cases = [
        (lambda: rp.at_k(runs, ax="not an axes"), "'ax' parameter of at_k must be a matplotlib Axes"),
        (lambda: rp.at_k(runs, "nDCG@10"), "without its cutoff"),
        (lambda: rp.at_k(runs, "P", [0, 5]), "'ks' parameter"),
        (lambda: rp.at_k(runs, "P", "5"), "'ks' parameter"),
        (lambda: rp.at_k(runs, "P", []), "'ks' parameter"),
        (lambda: rp.at_k(out), "got a comparison frame"),
        (lambda: rp.at_k([1, 2]), "'data' parameter of at_k must be a DataFrame"),
        (lambda: rp.at_k(pd.DataFrame({"a": [1]})), "takes a long ranking table"),
        (lambda: rp.forest(out), r"holds 2 metrics \['AP', 'RR'\]; pick one"),
        (lambda: rp.forest(out, "nDCG@5"), r"metric='nDCG@5' \(nDCG@5\) is not in the frame"),
        (lambda: rp.forest(out, "AP", alpha=1.5), "'alpha' parameter"),
        (lambda: rp.forest(per, "AP"), "got per-query values"),
        (lambda: rp.forest(runs), "name the metric"),
        (lambda: rp.forest(out, "AP", by="length"), "apply to a long table only"),
        (lambda: rp.forest(rankframe.evaluate(runs, "AP", by="system"), "AP"), "no interval; evaluate them with ci"),
        (lambda: rp.differences(per, "AP"), "3 systems .* name the two"),
        (lambda: rp.differences(per, "AP", system="dense", baseline="bm2"), "baseline='bm2' is not a system"),
        (lambda: rp.differences(per, "AP", system="dense", baseline="dense"), "the same"),
        (lambda: rp.differences(out, "AP"), "'data' parameter of differences"),
        (lambda: rp.distribution(per, "AP", by="sytem"), r"by='sytem' is not a column .*did you mean 'system'"),
        (lambda: rp.distribution(per, "AP", style="bar"), "'style' parameter"),
        (lambda: rp.distribution(per.iloc[:0], "AP"), "no rows|not in the frame"),
        (lambda: rp.iprec_at_recall(runs, by="recall"), "cannot be a group"),
        (lambda: rp.iprec_at_recall(runs, rel=0), "'rel' parameter"),
        (
            lambda: rp.iprec_at_recall(runs.assign(query=runs["query"].where(runs.index % 2 == 0, 1).astype(object))),
            "mix|type",
        ),
        (lambda: rp.iprec_at_recall(pd.concat([runs, runs.iloc[:1]])), "unique|duplicate"),
    ]
    for draw, message in cases:
        with pytest.raises(RankframeError, match=message):
            draw()
    with pytest.raises(ParameterError, match="no rows: nothing to plot"):
        rp.forest(out.iloc[:0].assign(metric=[]), "AP")


# ---------------------------------------------------------------------------------------------------------
# names are text: mathtext dollars and a leading "_" are drawn as given

#: bm25 -> "$\foo$" (mathtext with an unknown command: matplotlib's parser fails on it), dense -> "_dense"
#: (matplotlib leaves labels starting with "_" out of legends), hybrid -> "a$b" (one lone dollar)
MARKUP = {"bm25": r"$\foo$", "dense": "_dense", "hybrid": "a$b"}


def drawn(text) -> str:
    """What matplotlib draws for a Text: an escaped dollar is a dollar, the zero-width space is invisible."""
    s = text.get_text()
    assert not matplotlib.cbook.is_math_text(s), s  # never parsed as mathtext
    return s.replace(r"\$", "$").replace("\u200b", "")


@pytest.mark.parametrize("name", ["at_k", "forest", "differences", "distribution", "pr_curve"])
def test_names_are_drawn_as_given_in_every_plot(runs, name):
    df = runs.assign(system=runs["system"].map(MARKUP))
    fig, ax = plt.subplots()
    draw = {
        "at_k": lambda: rp.at_k(df, "P", [1, 5], ax=ax),
        "forest": lambda: rp.forest(df, "AP", baseline=r"$\foo$", ax=ax),
        "differences": lambda: rp.differences(df, "AP", system="_dense", baseline=r"$\foo$", ax=ax),
        "distribution": lambda: rp.distribution(df, "AP", ax=ax),
        "pr_curve": lambda: rp.pr_curve(df, ax=ax),
    }[name]
    draw()
    fig.canvas.draw()  # mathtext is parsed when drawn: the old code raised here for "$\foo$"
    legend = [drawn(t) for t in ax.get_legend().get_texts()]
    ticks = [drawn(t) for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]]
    everything = " ".join([*legend, *ticks, drawn(ax.xaxis.label), drawn(ax.yaxis.label)])
    if name in ("at_k", "pr_curve"):  # one line per system, each in the legend (the old code dropped "_dense")
        assert sorted(legend) == sorted(MARKUP.values())
    elif name == "differences":  # the legend counts the wins of "_dense" (left out by the old code)
        assert any(t.startswith("_dense better (") for t in legend), legend
        assert drawn(ax.yaxis.label) == r"AP: _dense − $\foo$"
    elif name == "forest":  # the systems on the y ticks, the baseline in the x label
        assert sorted(t.split("  (n=")[0] for t in ticks if "(n=" in t) == ["_dense", "a$b"]
        assert drawn(ax.xaxis.label) == r"AP: system − baseline ($\foo$)"
    else:  # distribution: one box per system, named on its tick with its n
        assert sorted(t.split("\n")[0] for t in ticks if "(n=" in t) == sorted(MARKUP.values())
    assert "\\$" not in everything
