"""metric@k curves: the mean of a metric at each cutoff k, one line per system (or segment), a CI band on request."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, parameter_error
from ._common import MAX_WIDTH, as_names, axes, identity, kind, label_of, legend_outside, pyplot, shown, wrapped

DEFAULT_KS = tuple(range(1, 21))
#: past this many groups (e.g. 6 systems x 4 segments) at_k draws small multiples: one panel per segment, one line
#: per system in each, FACET_COLUMNS panels a row (when it makes its own figure and the lines have 2+ columns)
FACET_AFTER, FACET_COLUMNS = 8, 2


def _without_k(label: str) -> tuple[str, int | None]:
    """``"nDCG@10"`` -> ``("nDCG", 10)``; ``"AP(rel=2)@5"`` -> ``("AP(rel=2)", 5)``; no cutoff -> k None."""
    from ..measures.names import Measure, parse

    m = parse(label)
    kw = m.kw
    k = kw.get("k")
    base = Measure(m.spec, tuple((n, None if n == "k" else v) for n, v in m.params))
    return str(base), k


def _check_ks(ks: object) -> list[int]:
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable):
        raise parameter_error("at_k", "ks", "a list of cutoffs (ints >= 1), e.g. range(1, 21)", ks)
    out = list(ks)
    if not out or not all(isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1 for k in out):
        raise parameter_error("at_k", "ks", "a non-empty list of cutoffs (ints >= 1), e.g. range(1, 21)", ks)
    return sorted(set(int(k) for k in out))


def at_k(
    data: pd.DataFrame,
    metric: str | None = None,
    ks: Iterable[int] | None = None,
    *,
    by: str | list[str] | None = None,
    ci: float | None = None,
    order: list | None = None,
    palette: object = None,
    ax: Any = None,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> Any:
    """Plot metric@k against k: one line per system (or segment), with a confidence band when asked.

    Parameters
    ----------
    data : DataFrame
        A long ranking table (then ``rankframe.evaluate`` computes ``metric@k`` for every k in ``ks``), or
        the means ``rankframe.evaluate`` returned for metrics with cutoffs (``["nDCG@1", "nDCG@5", ...]``, any
        ``by``; with ``ci=`` the band is drawn from their ``ci_low``/``ci_high``).
    metric : str, optional
        The metric without its cutoff (``"P"``, ``"R"``, ``"AP"``, ``"nDCG(gain='exponential')"``); default
        ``"nDCG"`` for a long table. With a frame of means: the metric to draw (default: every one it holds).
    ks : list of int, optional
        The cutoffs (long table only). Default 1..20, stopped at the depth of the runs (the most rows of a
        ranking): past it metric@k only repeats its last value.
    by : str or list of str, optional
        Long table: the columns whose values make the lines (default: the system column when present).
    ci : float, optional
        Long table: a level such as 0.95 draws the t interval of each mean as a band.
    order, palette : optional
        The lines drawn and their order, and their colours, as seaborn's ``hue_order`` and ``palette``: each line
        gets a colour-blind-safe colour, a marker and a line style by its place in ``order`` (default: the
        labels sorted), so plots given the same ``order`` draw each system alike. The legend is outside the axes.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    columns, qrels, **options
        As in :func:`rankframe.evaluate` (column names, separate judgments, query-set policies, ...).

    Returns
    -------
    matplotlib Axes, or an array of Axes for small multiples
        x: the cutoff k, y: the metric's mean; one line per group (labelled in the legend), the band a
        ``fill_between`` polygon from ``ci_low`` to ``ci_high``. Past :data:`FACET_AFTER` groups over two or more
        group columns (``by=["segment", "system"]``: 6 systems x 4 segments are 24 lines) and without ``ax=``, one
        panel per segment with one line per system (the system column, else the last group column), styles and
        y axis shared (its range from the means: a tiny segment's wide band is clipped), one legend for the
        figure; the Axes of the panels are returned. With ``ax=`` every line is drawn on it.
    """
    from ..evaluate import evaluate

    columns = Columns.coerce(columns)
    pyplot()  # the missing extra is reported before any work
    what = kind(data, columns, "at_k")
    if what == "long":
        metric = "nDCG" if metric is None else metric
        if not isinstance(metric, str) or "@" in metric:
            raise parameter_error("at_k", "metric", "a metric name without its cutoff such as 'nDCG' or 'P'", metric)
        by_cols = as_names(by, "at_k", "by")
        if by is None and columns.system in data.columns:
            by_cols = [columns.system]
        if ks is None:
            ks = DEFAULT_KS
            keys = [*by_cols, columns.query]
            if all(c in data.columns for c in keys) and len(data):
                depth = int(data.groupby(keys, sort=False, dropna=False).size().max())
                ks = tuple(k for k in DEFAULT_KS if k <= depth)
        ks = _check_ks(ks)
        labels = [f"{metric}@{k}" for k in ks]
        means = evaluate(data, labels, by=by_cols or None, ci=ci, columns=columns, qrels=qrels, **options)
        wanted: str | None = _without_k(labels[0])[0]
    elif what == "means":
        if options or qrels is not None or ci is not None:
            raise ParameterError(
                "at_k: ci=, qrels= and evaluate's options apply to a long table, not to means",
                owner="at_k",
                parameter=("ci" if ci is not None else "qrels" if qrels is not None else next(iter(options))),
            )
        means = data
        if metric is not None and not isinstance(metric, str):
            raise parameter_error("at_k", "metric", "a metric name without its cutoff such as 'nDCG' or 'P'", metric)
        wanted = None if metric is None else _without_k(metric)[0]
    else:
        raise ParameterError(
            f"at_k takes a long ranking table or evaluate's means of metrics with cutoffs; got a {what} frame",
            owner="at_k",
            parameter="data",
            got=what,
        )
    split = {m: _without_k(m) for m in dict.fromkeys(means["metric"].astype(str))}
    parsed = [split[m] for m in means["metric"].astype(str)]
    frame = means.assign(_base=[b for b, _ in parsed], _k=pd.array([k for _, k in parsed], dtype="Int64"))
    frame = frame[frame["_k"].notna()]
    if wanted is not None:
        frame = frame[frame["_base"] == wanted]
    if frame.empty:
        raise ParameterError(
            f"at_k: no metric with a cutoff (name@k) to plot for metric={metric!r}", owner="at_k", parameter="metric"
        )
    segs = [c for c in means.columns[: list(means.columns).index("metric")]]
    bases = list(dict.fromkeys(frame["_base"]))
    band = {"ci_low", "ci_high"} <= set(frame.columns)
    level = means.attrs.get("ci", ci)
    shade = (f"shade: {level * 100:.6g}% CI" if isinstance(level, (int, float)) else "shade: CI") if band else None
    if ax is None and len(segs) >= 2 and frame.groupby(segs, sort=False, dropna=False).ngroups > FACET_AFTER:
        return _facets(frame, segs, bases, shade, order, palette, columns)
    ax = axes(ax, "at_k", figsize=(8.0, 4.2))
    lines = _lines(frame, segs, len(bases) > 1)
    for label, style in identity(list(lines), "at_k", order, palette).items():
        _draw(ax, lines[label], style, band, shown(wrapped(label)))
    ax.set_xlabel("cutoff k")
    ax.set_ylabel(shown(f"{bases[0]}@k" if len(bases) == 1 else "metric@k"))
    _ticks(ax, frame)
    title = ", ".join(segs) if segs else None
    if shade:
        title = f"{title} ({shade})" if title else shade
    legend_outside(ax, title=None if title is None else shown(wrapped(title)))
    return ax


def _lines(frame: pd.DataFrame, segs: list[str], several_bases: bool) -> dict[str, pd.DataFrame]:
    """One line per group of ``segs`` (and metric, when several): its label and its rows sorted by k."""
    lines = {}
    for key, g in frame.groupby([*segs, "_base"], sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        keys = list(key[:-1]) + ([key[-1]] if several_bases else [])
        lines[label_of(keys) if keys else str(key[-1])] = g.sort_values("_k")
    return lines


def _draw(ax: Any, g: pd.DataFrame, style: Any, band: bool, label: str) -> None:
    x = g["_k"].to_numpy(float)
    (line,) = ax.plot(
        x,
        g["value"].to_numpy(float),
        color=style.color,
        marker=style.marker,
        linestyle=style.linestyle,
        markersize=4,
        label=label,
    )
    if band:
        ax.fill_between(
            x, g["ci_low"].to_numpy(float), g["ci_high"].to_numpy(float), color=line.get_color(), alpha=0.2, linewidth=0
        )


def _ticks(ax: Any, frame: pd.DataFrame) -> None:
    ks_drawn = sorted(frame["_k"].astype(int).unique())
    if len(ks_drawn) <= 10:
        ax.set_xticks(ks_drawn)
    else:  # as many integer ticks as the axes' width holds (20 labels collide in a panel's cell)
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(nbins="auto", integer=True))


def _facets(
    frame: pd.DataFrame,
    segs: list[str],
    bases: list[str],
    shade: str | None,
    order: object,
    palette: object,
    columns: Columns,
) -> Any:
    """Past :data:`FACET_AFTER` groups: one small panel per segment, one line per system in each (styles shared)."""
    hue = columns.system if columns.system in segs else segs[-1]
    facet_cols = [c for c in segs if c != hue]
    several = len(bases) > 1
    groups = {}
    for key, g in frame.groupby(facet_cols, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        groups[label_of(list(key))] = _lines(g, [hue], several)
    styles = identity(list(dict.fromkeys(lab for lines in groups.values() for lab in lines)), "at_k", order, palette)
    plt = pyplot()
    ncols = min(FACET_COLUMNS, len(groups))
    nrows = -(-len(groups) // ncols)
    fig = plt.figure(figsize=(min(MAX_WIDTH, 3.3 * ncols + 2.4), 2.8 * nrows + 0.6), layout="constrained")
    grid = np.asarray(fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False))
    for extra in grid.flat[len(groups) :]:
        extra.remove()
    axs = list(grid.flat[: len(groups)])
    for a, (name, lines) in zip(axs, groups.items()):
        for label, style in styles.items():
            if label in lines:
                _draw(a, lines[label], style, shade is not None, shown(wrapped(label)))
        a.set_title(shown(wrapped(f"{', '.join(facet_cols)} = {name}", 36, 2)), fontsize="small")
        _ticks(a, frame)
    # one y scale from the means: a tiny segment's wide band (t with n = 2) is clipped instead of flattening all
    values = frame["value"].to_numpy(float)
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    pad = 0.15 * (hi - lo) + 0.02
    axs[0].set_ylim(lo - pad, hi + pad)
    for a in grid[-1, :]:
        a.set_xlabel("cutoff k")
    for a in grid[:, 0]:
        a.set_ylabel(shown(f"{bases[0]}@k" if not several else "metric@k"))
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], color=st.color, marker=st.marker, linestyle=st.linestyle, label=shown(wrapped(lab)))
        for lab, st in styles.items()
    ]
    title = hue + (f" ({shade})" if shade else "")
    fig.legend(handles=handles, loc="outside right upper", fontsize="small", title=shown(wrapped(title)),
               title_fontsize="small", frameon=False)  # fmt: skip
    return np.asarray(axs, dtype=object)
