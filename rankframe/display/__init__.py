"""Tables for people: rankframe results as styled HTML (Jupyter), Markdown and LaTeX, with the same markers.

Two kinds of frame are understood:

* **comparisons** (:func:`rankframe.compare`): one row per (segment, metric, system); ``delta`` carries a
  significance marker from ``p_adjusted`` (``*`` < 0.05, ``**`` < 0.01, ``***`` < 0.001), the better of ``mean``
  and ``baseline_mean`` is bold, ``n`` and W/T/L are shown, and the caption names the test, the interval and the
  correction with its family (from ``out.attrs``); better is the metric's direction (:func:`rankframe.direction`:
  the lower mean of ARP, Gini or Calibration), and a metric without one is never bold;
* **means** (:func:`rankframe.evaluate` without ``per_query``): one row per segment, one column per metric, the
  interval in brackets when ``ci=`` was asked, ``n`` shown, the best value of each metric bold.

``compare`` returns a :class:`ComparisonFrame`: a plain DataFrame in every respect (``.loc``, ``.to_csv``,
``pd.merge``, equality with plain frames; anything derived from it is a plain DataFrame) whose only addition is
that Jupyter shows it as the styled table. For means, ``rankframe.display.table(means)`` gives an object that
Jupyter shows the same way. No jinja2 or tabulate.

One job: what a results table shows, for each kind of frame (cells, markers, bold, caption, the columns a page
keeps); :mod:`rankframe.table_writers` writes it.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import ParameterError, parameter_error
from ..measures.better import of_labels
from .writers import WRITERS, Cell, Model, write_html, write_latex, write_markdown
from .writers import markdown_table as markdown_table  # re-exported: the CLI's and docs' import path
from .writers import md_escape as md_escape
from .writers import tex_escape as tex_escape

#: significance markers, from the strictest level down: p_adjusted below the level gets the marker
LEVELS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
#: the columns that make a frame a comparison (``rankframe.compare``'s output)
COMPARISON_COLUMNS = ("metric", "system", "baseline", "n", "mean", "baseline_mean", "delta", "p_adjusted")
#: the columns that make a frame evaluate's means
MEANS_COLUMNS = ("metric", "value", "n")
FORMATS = ("html", "markdown", "latex")

_TEST_WORDS = {
    "t": "paired t-test",
    "randomization": "paired randomization test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "tukey": "blocked Tukey HSD",
    "bootstrap": "paired bootstrap test over queries",  # set-level metrics only (docs/comparing.md)
}
_CORRECTION_WORDS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "westfall-young": "Westfall-Young max-|t| step-down",
}
#: what compare's ``effect_size`` column is (``out.attrs["effect_size"]``, the caption)
EFFECT_SIZE = "d_z = delta / sd of the differences"
#: what compare's ``mde`` column is (``out.attrs["mde"]``)
MDE = "the |delta| a paired t-test at alpha = 1 - ci (uncorrected, same alternative) detects with 80% power"


def compare_caption(attrs: dict) -> str:
    """One line naming the test, the interval, the correction and its family, from ``compare(...).attrs``.

    The p-values are two-sided and the effect size is d_z (``attrs["alternative"]``, ``attrs["effect_size"]``).

    >>> text = compare_caption({"test": "t", "ci_method": "t", "ci": 0.95, "correction": "holm", "pairs": "baseline",
    ...                         "family": "all 8 comparisons of the call", "baseline": "bm25", "missing": "error"})
    >>> for part in text.split("; "):
    ...     print(part)
    two-sided paired t-test against baseline 'bm25'
    95% t interval
    p_adjusted: Holm over all 8 comparisons of the call
    effect_size: d_z = delta / sd of the differences
    """
    random = f"{attrs.get('n_resamples')} resamples, seed {attrs.get('seed')}"
    test = f"{attrs.get('alternative', 'two-sided')} {_TEST_WORDS[attrs['test']]}"
    if attrs["test"] == "randomization":
        test += f" ({attrs.get('n_resamples')} sign flips, seed {attrs.get('seed')})"
    if attrs.get("margin") is not None:  # the side of "not worse": "less" where lower is better (margin_side)
        bound = f"< {attrs['margin']:g}" if attrs.get("alternative") == "less" else f"> -{attrs['margin']:g}"
        test += f" of delta {bound} (non-inferiority margin {attrs['margin']:g})"
    base = attrs["baseline"]
    if attrs["pairs"] != "baseline":
        who = "on every pair of systems"
    elif isinstance(base, list):
        who = f"against each of the baselines {', '.join(map(repr, base))}"
    else:
        who = f"against baseline {base!r}"
    level = f"{attrs['ci'] * 100:.6g}%"
    if attrs.get("alternative", "two-sided") != "two-sided":  # the interval is the one-sided bound of the test
        level += " one-sided"
    interval = {
        "t": f"{level} t interval",
        "bootstrap": f"{level} paired bootstrap interval ({random})",
        "bca": f"{level} paired BCa bootstrap interval ({random})",
        "tukey": f"{level} Tukey simultaneous interval",
    }[attrs["ci_method"]]
    correction = attrs["correction"]
    family = str(attrs["family"])  # "all 8 comparisons of the call", "per metric (2 families)"
    family = family if family.startswith("per ") else f"over {family}"
    adjusted = f"{_CORRECTION_WORDS[correction]} {family}" if correction else "no correction"
    parts = [f"{test} {who}", interval, f"p_adjusted: {adjusted}"]
    if attrs.get("set_level") and attrs["test"] != "bootstrap":  # the set-level rows' own test
        parts.append(f"{', '.join(attrs['set_level'])}: paired bootstrap over queries, centred interval ({random})")
    if attrs.get("missing", "error") != "error":
        key = "filled" if attrs["missing"] == "zero" else "dropped"
        done = f"{attrs.get(key, 0)} {key}"
        parts.append(f"missing values: {attrs['missing']} ({done})")
    parts.append(f"effect_size: {attrs.get('effect_size', EFFECT_SIZE)}")
    return "; ".join(parts)


def marker(p_adjusted: float) -> str:
    """The significance marker of an adjusted p-value: ``***`` < 0.001, ``**`` < 0.01, ``*`` < 0.05, else ``""``.

    >>> marker(0.0004), marker(0.03), marker(0.2), marker(float("nan"))
    ('***', '*', '', '')
    """
    if p_adjusted is None or not isinstance(p_adjusted, (int, float, np.floating)) or math.isnan(p_adjusted):
        return ""
    return next((m for level, m in LEVELS if p_adjusted < level), "")


def _num(v: Any, digits: int) -> str:
    if v is None or v is pd.NA:
        return ""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return ""
    return f"{f:.{digits}f}"


def _p(v: Any, digits: int) -> str:
    """A p-value with ``digits`` decimals; below the display precision ``< 0.0001`` (never a bare 0.0000)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ""
    if math.isnan(f):
        return ""
    if f < 10**-digits:
        return f"< {10**-digits:.{digits}f}"
    return f"{f:.{digits}f}"


def _text(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    return str(v)


def kind(frame: object) -> str:
    """``"comparison"`` or ``"means"``: which rankframe result a frame is, from its columns.

    Raises :class:`~rankframe.ParameterError` for anything else (a per-query frame, a wide table).
    """
    if not isinstance(frame, pd.DataFrame):
        raise parameter_error(
            "display", "frame", "a DataFrame returned by rankframe.compare or rankframe.evaluate", frame
        )
    cols = set(map(str, frame.columns))
    if set(COMPARISON_COLUMNS) <= cols:
        return "comparison"
    if set(MEANS_COLUMNS) <= cols:
        return "means"
    raise ParameterError(
        "display needs the frame rankframe.compare returns (columns "
        f"{list(COMPARISON_COLUMNS)}, ...) or the means rankframe.evaluate returns (columns {list(MEANS_COLUMNS)}, "
        f"per segment; not per_query=True); got columns {list(map(str, frame.columns))[:12]}",
        owner="display",
        parameter="frame",
        got=list(map(str, frame.columns))[:12],
    )


def _segments(frame: pd.DataFrame, first: str) -> list[str]:
    cols = [str(c) for c in frame.columns]
    return cols[: cols.index(first)]


def _comparison_model(frame: pd.DataFrame, digits: int) -> Model:
    segs = _segments(frame, "metric")
    has_ci = {"ci_low", "ci_high"} <= set(frame.columns)
    level = frame.attrs.get("ci")
    ci_head = f"{level * 100:.6g}% CI" if isinstance(level, (int, float)) else "CI"
    header = [*segs, "metric", "system", "baseline", "n", "mean", "baseline mean", "delta"]
    numeric = [False] * (len(segs) + 3) + [True] * 4
    optional = [
        (has_ci, ci_head),
        ("p_value" in frame.columns, "p"),
        (True, "p adj."),
        ("effect_size" in frame.columns, "effect"),
        ({"statistic", "df"} <= set(frame.columns) and _statistic_symbol(frame) is not None, "statistic"),
        ({"wins", "ties", "losses"} <= set(frame.columns), "W/T/L"),
        ("mde" in frame.columns, "MDE if n.s."),
    ]
    for present, name in optional:
        if present:
            header.append(name)
            numeric.append(True)
    notes = "note" in frame.columns and frame["note"].notna().any()
    if notes:
        header.append("note")
        numeric.append(False)
    # on a phone the table keeps the segments, metric, system, mean, delta and p adj.; the rest is hidden
    keep = {*segs, "metric", "system", "mean", "delta", "p adj."}
    model = Model(header, numeric, minor=[h not in keep for h in header])
    ways = of_labels(frame["metric"])  # which way is better, per row (rankframe.direction)
    for r, way in zip(frame.to_dict("records"), ways):
        mean, base, delta, p_adj = (r["mean"], r["baseline_mean"], r["delta"], r["p_adjusted"])
        stars = marker(p_adj)
        # the better mean of the pair in the metric's direction, only when the difference is significant (p adj. <
        # 0.05): bold, and the delta green (up) or orange (down); a metric without a direction is neither
        ahead = int(np.sign(way * (mean - base))) if stars and np.isfinite(mean) and np.isfinite(base) else 0
        tone = {1: "up", -1: "down", 0: ""}[ahead]
        better_sys, better_base = ahead > 0, ahead < 0
        row = [Cell(_text(r[c])) for c in segs]
        row += [Cell(_text(r["metric"])), Cell(_text(r["system"])), Cell(_text(r["baseline"]))]
        row += [
            Cell(_text(r["n"]), numeric=True),
            Cell(_num(mean, digits), bold=better_sys, numeric=True),
            Cell(_num(base, digits), bold=better_base, numeric=True),
            Cell(
                _num(delta, digits) if not (isinstance(delta, float) and math.isnan(delta)) else "",
                stars=stars,
                tone=tone,
                numeric=True,
            ),
        ]
        if has_ci:
            lo, hi = _num(r["ci_low"], digits), _num(r["ci_high"], digits)
            row.append(Cell(f"[{lo}, {hi}]" if lo and hi else "", numeric=True))
        if "p_value" in frame.columns:
            row.append(Cell(_p(r["p_value"], digits), numeric=True))
        row.append(Cell(_p(p_adj, digits), numeric=True))
        if "effect_size" in frame.columns:
            row.append(Cell(_num(r["effect_size"], 2), numeric=True))
        if "statistic" in header:
            row.append(Cell(_statistic(_statistic_symbol(frame), r["statistic"], r["df"]), numeric=True))
        if {"wins", "ties", "losses"} <= set(frame.columns):
            row.append(Cell(f"{_text(r['wins'])}/{_text(r['ties'])}/{_text(r['losses'])}", numeric=True))
        if "mde" in frame.columns:  # what the call could have detected, beside a difference it did not show
            shown = not stars and np.isfinite(r["mde"])
            row.append(Cell(_num(r["mde"], digits) if shown else "", numeric=True))
        if notes:
            row.append(Cell(_text(r["note"])))
        model.rows.append(row)
    attrs = frame.attrs
    try:
        model.caption.append(compare_caption(attrs))
    except (KeyError, TypeError):
        pass  # a comparison read back from a file has no attrs: no test named
    model.caption.append(
        "delta = mean - baseline mean; * p adj. < 0.05, ** < 0.01, *** < 0.001; "
        "bold: the better mean of a significant pair"
        + _lower_words(frame["metric"], ways)
        + ("; W/T/L: queries won (better)/tied/lost against the baseline" if "W/T/L" in header else "")
        + (
            "; MDE if n.s.: beside a difference that is not significant, the |delta| a paired t-test on these "
            "queries detects with 80% power"
            if "MDE if n.s." in header
            else ""
        )
    )
    return model


def _lower_words(metrics: Any, ways: np.ndarray) -> str:
    """The caption's words for the metrics of the table where lower is better, or where neither is (none: empty)."""
    lower = list(dict.fromkeys(str(m) for m, w in zip(metrics, ways) if w < 0))
    neither = list(dict.fromkeys(str(m) for m, w in zip(metrics, ways) if w == 0))
    words = f" (lower is better: {', '.join(lower)})" if lower else ""
    return words + (f"; no better or worse: {', '.join(neither)}" if neither else "")


#: the symbol of each test's statistic in the tables ("t(15) = 3.58"); the randomization test's statistic is the
#: mean difference, already in the delta column
STATISTIC_SYMBOLS = {"t": "t", "wilcoxon": "W", "tukey": "q", "randomization": None}


def _statistic_symbol(frame: pd.DataFrame) -> str | None:
    return STATISTIC_SYMBOLS.get(frame.attrs.get("test", ""))


def _statistic(symbol: str | None, value: Any, df: Any) -> str:
    """``t(15) = 3.58`` (the degrees of freedom in brackets when the test has them), or empty without a value."""
    if symbol is None or value is None or not np.isfinite(value):
        return ""
    dof = f"({float(df):g})" if df is not None and np.isfinite(df) else ""
    return f"{symbol}{dof} = {float(value):.2f}"


def _ci_level(frame: pd.DataFrame) -> float | None:
    """The level of evaluate's t intervals, read back from the numbers (evaluate records no attrs)."""
    from scipy import stats

    ok = frame["std_err"].to_numpy(float) > 0
    ok &= frame["n"].to_numpy(float) >= 2
    if not ok.any():
        return None
    i = int(np.flatnonzero(ok)[0])
    ratio = (float(frame["ci_high"].iloc[i]) - float(frame["value"].iloc[i])) / float(frame["std_err"].iloc[i])
    return round(float(2 * stats.t.cdf(ratio, float(frame["n"].iloc[i]) - 1) - 1), 6)


def _means_model(frame: pd.DataFrame, digits: int) -> Model:
    segs = _segments(frame, "metric")
    has_ci = {"ci_low", "ci_high"} <= set(frame.columns)
    metrics = list(dict.fromkeys(frame["metric"].tolist()))
    if segs:
        keys = frame[segs].drop_duplicates().reset_index(drop=True)
        pos = frame.groupby(segs, sort=False, dropna=False, observed=True).ngroup().to_numpy()
    else:
        keys = pd.DataFrame(index=range(1))
        pos = np.zeros(len(frame), dtype=np.int64)
    m_pos = pd.Index(metrics).get_indexer(frame["metric"])
    shape = (len(keys), len(metrics))
    value = np.full(shape, np.nan)
    value[pos, m_pos] = frame["value"].to_numpy(float)
    n = np.zeros(shape, dtype=np.int64)
    n[pos, m_pos] = frame["n"].to_numpy()
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    if has_ci:
        low[pos, m_pos] = frame["ci_low"].to_numpy(float)
        high[pos, m_pos] = frame["ci_high"].to_numpy(float)
    ways = of_labels(metrics).astype(np.float64)  # the best value: the highest, the lowest, or none (no direction)
    with np.errstate(invalid="ignore"):
        best = np.where(np.isnan(value), -np.inf, value * ways).max(axis=0) * ways
    one_n = (n == n.max(axis=1, keepdims=True)).all(axis=1)
    header = [*segs, "n", *metrics]
    model = Model(header, [False] * len(segs) + [True] * (1 + len(metrics)))
    for i in range(len(keys)):
        row = [Cell(_text(keys.iloc[i][c])) for c in segs]
        row.append(Cell(str(int(n[i].max())), numeric=True))
        for j in range(len(metrics)):
            text = _num(value[i, j], digits)
            if has_ci and text and not np.isnan(low[i, j]):
                text += f" [{_num(low[i, j], digits)}, {_num(high[i, j], digits)}]"
            if not one_n[i]:
                text += f" (n={n[i, j]})"
            is_best = bool(len(keys) > 1 and ways[j] != 0 and np.isfinite(value[i, j]) and value[i, j] == best[j])
            row.append(Cell(text, bold=is_best, numeric=True))
        model.rows.append(row)
    what = "mean over n queries"
    if has_ci:
        level = _ci_level(frame)
        what += (
            f"; [low, high]: its {level * 100:.6g}% t interval" if level is not None else "; [low, high]: its interval"
        )
    if len(keys) > 1:
        what += "; bold: the best value of each metric (the lowest where lower is better)"
    model.caption.append(what)
    return model


def model(frame: pd.DataFrame, digits: int = 4) -> Model:
    """The neutral table model of a comparison or of means (what the three writers write)."""
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or not 0 <= digits <= 12:
        raise parameter_error("display", "digits", "an int in [0, 12]", digits)
    k = kind(frame)
    return _comparison_model(frame, int(digits)) if k == "comparison" else _means_model(frame, int(digits))


def narrow(m: Model) -> Model:
    """The model with its minor columns left out (what a page's width keeps), the baseline column kept if it varies.

    A comparison keeps its segments, metric, system, mean, baseline mean (the better one bold), delta (with its
    marker) and p adj.; a baseline column that holds one name is left out and named in the caption. Means tables
    have no minor column.
    """
    minor = list(m.minor) + [False] * (len(m.header) - len(m.minor))
    drop = set()
    for j, (name, small) in enumerate(zip(m.header, minor)):
        if not small or name == "baseline mean":
            continue
        if name == "baseline":
            names = {row[j].text for row in m.rows}
            if len(names) > 1:
                continue
        drop.add(j)
    if not drop:
        return m
    keep = [j for j in range(len(m.header)) if j not in drop]
    caption = list(m.caption)
    if "baseline" in m.header and m.header.index("baseline") in drop and m.rows:
        name = m.rows[0][m.header.index("baseline")].text
        caption.append(f"baseline: {name}; " + "columns n, interval, p, effect, statistic, W/T/L and MDE: fit=False")
    return Model(
        [m.header[j] for j in keep],
        [m.numeric[j] for j in keep],
        rows=[[row[j] for j in keep] for row in m.rows],
        caption=caption,
        minor=[False] * len(keep),
    )


def render(frame: pd.DataFrame, fmt: str = "html", *, digits: int = 4, fit: bool = True) -> str:
    """A comparison or means frame as ``"html"``, ``"markdown"`` or ``"latex"`` (booktabs) text.

    ``fit`` applies to LaTeX (see :func:`to_latex`).
    """
    if not isinstance(fmt, str) or fmt.lower() not in FORMATS:
        raise parameter_error("render", "fmt", "one of " + ", ".join(map(repr, FORMATS)), fmt)
    if not isinstance(fit, bool):
        raise parameter_error("render", "fit", "True (fit the page's text width) or False (the plain table)", fit)
    if fmt.lower() == "latex":
        m = model(frame, digits)
        return write_latex(narrow(m) if fit else m, fit=fit)
    return WRITERS[fmt.lower()](model(frame, digits))


def to_html(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """A styled HTML table (with its own ``<style>``): markers, the better value bold, caption.

    Examples
    --------
    >>> import pandas as pd
    >>> means = pd.DataFrame({"metric": ["AP", "AP"], "value": [0.5, 0.25], "n": [2, 2], "system": ["a", "b"]})
    >>> "<strong>0.5000</strong>" in to_html(means[["system", "metric", "value", "n"]])
    True
    """
    return render(frame, "html", digits=digits)


def to_markdown(frame: pd.DataFrame, *, digits: int = 4) -> str:
    r"""A Markdown (pipe) table with the caption above it; ``\*`` markers and ``**bold**`` as in the HTML.

    Examples
    --------
    >>> import pandas as pd
    >>> means = pd.DataFrame({"system": ["a", "b"], "metric": ["AP", "AP"], "value": [0.5, 0.25], "n": [2, 2]})
    >>> print(to_markdown(means))
    mean over n queries; bold: the best value of each metric (the lowest where lower is better)
    <BLANKLINE>
    | system | n | AP |
    |---|---:|---:|
    | a | 2 | **0.5000** |
    | b | 2 | 0.2500 |
    """
    return render(frame, "markdown", digits=digits)


def to_latex(frame: pd.DataFrame, *, digits: int = 4, fit: bool = True) -> str:
    r"""A LaTeX ``table`` (booktabs rules), markers as ``$^{*}$``, ``\textbf`` bold, that fits the text width.

    ``fit=True`` (the default): the columns a page keeps (:func:`narrow`: segments, metric, system, mean, baseline
    mean, delta, p adj.; the baseline named in the caption), ``\small`` type, long names wrapped in narrow columns,
    and the tabular shrunk to ``\linewidth`` if it is still wider (``\resizebox``; never enlarged). Needs
    ``\usepackage{booktabs,graphicx}``. ``fit=False``: every column at its natural width, booktabs only.

    Examples
    --------
    >>> import pandas as pd
    >>> means = pd.DataFrame({"system": ["a", "b"], "metric": ["AP", "AP"], "value": [0.5, 0.25], "n": [2, 2]})
    >>> tex = to_latex(means)
    >>> "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%" in tex
    True
    >>> "resizebox" in to_latex(means, fit=False)
    False
    """
    return render(frame, "latex", digits=digits, fit=fit)


class Table:
    """A result wrapped for display: Jupyter shows the styled HTML; ``str()`` is the Markdown.

    ``rankframe.display.table(rankframe.evaluate(df, [...], by="system", ci=0.95))`` in a notebook cell.
    """

    def __init__(self, frame: pd.DataFrame, digits: int = 4):
        self.model = model(frame, digits)
        self.frame = frame

    def _repr_html_(self) -> str:
        return write_html(self.model)

    def _repr_markdown_(self) -> str:
        return write_markdown(self.model)

    def _repr_latex_(self) -> str:
        return write_latex(narrow(self.model))

    def __repr__(self) -> str:
        return write_markdown(self.model)


def table(frame: pd.DataFrame, *, digits: int = 4) -> Table:
    """Wrap a comparison or means frame so that Jupyter shows it as a styled table."""
    return Table(frame, digits)


#: the columns of a comparison after the ``by`` columns, in order (``rankframe.compare.OUTPUT_COLUMNS``)
OUTPUT_COLUMNS = (
    "metric",
    "system",
    "baseline",
    "n",
    "mean",
    "baseline_mean",
    "delta",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "ci_low_adjusted",
    "ci_high_adjusted",
    "statistic",
    "df",
    "sd_diff",
    "effect_size",
    "hedges_gz",
    "hedges_gz_low",
    "hedges_gz_high",
    "hl_estimate",
    "hl_low",
    "hl_high",
    "mde",
    "wins",
    "ties",
    "losses",
    "n_filled",
    "n_dropped",
    "note",
)


def silent_columns(frame: pd.DataFrame) -> list[str]:
    """The comparison's columns that say nothing in this result, left out of the rounded tables.

    ``note`` when no row has one; ``n_filled`` and ``n_dropped`` when ``missing="error"`` (they are 0); ``hl_estimate``,
    ``hl_low``, ``hl_high`` after another test than Wilcoxon's (they are NaN).
    """
    silent = [] if "note" in frame.columns and frame["note"].notna().any() else ["note"]
    if frame.attrs.get("missing", "error") == "error":
        silent += ["n_filled", "n_dropped"]
    if frame.attrs.get("test") != "wilcoxon":
        silent += ["hl_estimate", "hl_low", "hl_high"]
    return [c for c in silent if c in frame.columns]


#: the columns the plain text of a comparison shows, after the segment columns (the others are named below it)
TEXT_COLUMNS = OUTPUT_COLUMNS[: OUTPUT_COLUMNS.index("p_adjusted") + 1]


def comparison_text(frame: pd.DataFrame) -> str:
    """The plain text of a comparison (what ``repr``/``print`` show at a prompt): the columns that matter.

    The caption (test, interval, correction), then the segment columns and :data:`TEXT_COLUMNS` with 4
    decimals, both at ``display.width`` (the caption wrapped, columns that do not fit wrapped below: none is
    hidden behind ``...``), then the size and the names of the other columns (effect size, W/T/L, note).
    ``display.max_rows`` applies.
    """
    if kind(frame) != "comparison":
        raise ParameterError(
            "comparison_text takes the frame rankframe.compare returns", owner="comparison_text", parameter="frame"
        )
    cols = list(frame.columns)
    segs = cols[: [str(c) for c in cols].index("metric")]
    shown = [*segs, *(c for c in cols if str(c) in TEXT_COLUMNS)]
    rest = [str(c) for c in cols if c not in shown]
    with pd.option_context("display.precision", 4):
        text = pd.DataFrame(frame)[shown].to_string(
            max_rows=pd.get_option("display.max_rows"),
            min_rows=pd.get_option("display.min_rows"),
            line_width=pd.get_option("display.width"),
        )
    lines = []
    try:  # wrapped at display.width, as the table
        lines += textwrap.wrap(compare_caption(frame.attrs), max(int(pd.get_option("display.width") or 80), 40))
    except (KeyError, TypeError):
        pass  # read back from a file: no attrs
    lines.append(text)
    size = f"[{len(frame)} rows x {len(cols)} columns"
    width = max(int(pd.get_option("display.width") or 80), 40)
    lines += textwrap.wrap(size + (f"; also {', '.join(rest)}]" if rest else "]"), width)
    return "\n".join(lines)


class ComparisonFrame(pd.DataFrame):
    """What :func:`rankframe.compare` returns: a DataFrame that Jupyter shows as a styled comparison table.

    Nothing else differs from a DataFrame: every operation (``.loc``, ``sort_values``, ``merge``, ``copy``)
    returns a plain DataFrame and ``==``/``equals``/``assert_frame_equal`` compare it with plain frames. At a
    prompt, ``repr``/``print`` show :func:`comparison_text`: the caption, the columns that matter (``delta``, the
    interval, the p-values) never hidden behind ``...``, and the names of the others; ``out.to_string()`` is
    pandas' text of every column. ``rankframe.display.to_markdown(out)`` / ``to_latex(out)`` export it.
    """

    @property
    def _constructor(self) -> Callable[..., pd.DataFrame]:  # type: ignore[override]
        return pd.DataFrame

    def _repr_html_(self) -> str | None:  # type: ignore[override]
        try:
            return to_html(self)
        except (ParameterError, KeyError, TypeError, ValueError):  # columns dropped in place: the plain table
            plain: Any = pd.DataFrame(self)  # mypy 1.19 (the one dbt-core 1.11 allows) reads the attribute as a column
            return plain._repr_html_()

    def __repr__(self) -> str:
        try:
            return comparison_text(self)
        except (ParameterError, KeyError, TypeError, ValueError):  # columns dropped in place: the plain text
            return repr(pd.DataFrame(self))


def comparison_frame(frame: pd.DataFrame) -> ComparisonFrame:
    """``frame`` (compare's output) as a :class:`ComparisonFrame`, its ``attrs`` kept; no copy of the data."""
    out = ComparisonFrame(frame)
    out.attrs = dict(frame.attrs)
    return out
