"""Distribution of per-query values per system or segment: box plots with the mean marked, ``n`` in the labels."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, parameter_error
from ._common import (
    MAX_WIDTH,
    as_names,
    axes,
    identity,
    ink,
    kind,
    label_of,
    legend_outside,
    need_columns,
    one_metric,
    pyplot,
    shown,
    wrapped,
)

KINDS = ("box", "violin")


#: pixels of an Axes' place kept for its y axis (ticks, label) when judging if upright tick labels fit
TICK_ROOM = 60


def distribution(
    data: pd.DataFrame,
    metric: str | None = None,
    *,
    by: str | list[str] | None = None,
    style: str = "box",
    order: list | None = None,
    palette: object = None,
    ax: Any = None,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> Any:
    """The per-query values of a metric, one box (or violin) per system or segment, the mean as a black diamond.

    Parameters
    ----------
    data : DataFrame
        Per-query values (``evaluate(..., per_query=True)``) or a long ranking table (evaluated
        per query here).
    metric : str, optional
        The metric (required for a long table; for per-query values when they hold several).
    by : str or list of str, optional
        The columns whose values make the groups. Default: the system column when present, else the segment
        columns of the per-query frame, else one group. When the data has a system column that is not in ``by``,
        the systems are never pooled: each group gets one box per system side by side (seaborn's ``hue``).
    order, palette : optional
        The systems drawn (one colour, in the legend outside the axes), their order and colours, as in
        :func:`at_k`.
    style : {"box", "violin"}, default "box"
        Box plot (median, quartiles, whiskers at 1.5 IQR) or violin (a kernel density estimate).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    columns, qrels, **options
        As in :func:`rankframe.evaluate`.

    Returns
    -------
    matplotlib Axes
        x tick labels name each group and its ``n`` (queries with a value); NaN values are left out.
    """
    from ..evaluate import evaluate

    columns = Columns.coerce(columns)
    pyplot()  # the missing extra is reported before any work
    if not isinstance(style, str) or style not in KINDS:
        raise parameter_error("distribution", "style", "one of 'box', 'violin'", style)
    what = kind(data, columns, "distribution")
    groups = as_names(by, "distribution", "by")
    if what == "long":
        if metric is None:
            raise ParameterError(
                "distribution: name the metric to draw from a long table, e.g. metric='AP'",
                owner="distribution",
                parameter="metric",
            )
        if by is None and columns.system in data.columns:
            groups = [columns.system]
        hue_cols = [columns.system] if columns.system in data.columns and columns.system not in groups else []
        data = evaluate(
            data, [metric], by=[*groups, *hue_cols] or None, per_query=True, columns=columns, qrels=qrels, **options
        )
    elif what != "per_query":
        raise parameter_error(
            "distribution",
            "data",
            "per-query values (evaluate(..., per_query=True)) or a long table",
            f"a {what} frame",
        )
    elif qrels is not None or options:
        raise ParameterError(
            "distribution: qrels= and evaluate's options apply to a long table only",
            owner="distribution",
            parameter="qrels" if qrels is not None else next(iter(options)),
        )
    frame, label = one_metric(data, metric, "distribution")
    if by is None and what != "long":
        cols = list(frame.columns)
        units = cols[: cols.index("metric")]
        groups = [columns.system] if columns.system in units else units[:-1]  # the last unit column is the query
    need_columns(frame, groups, "distribution", "by")
    units = list(frame.columns[: list(frame.columns).index("metric")])
    hue = columns.system if columns.system in units and columns.system not in groups else None
    if hue is not None and by is None and what != "long":
        groups, hue = [columns.system], None  # the default groups of a per-query frame are the systems
    frame = frame[frame["value"].notna()]
    if frame.empty:
        raise ParameterError(
            f"distribution: no per-query value of {label} to draw (all NaN or no rows)",
            owner="distribution",
            parameter="data",
        )

    def split(f: pd.DataFrame, cols: list[str]) -> dict[str, pd.DataFrame]:
        if not cols:
            return {"all queries": f}
        return {label_of(k if isinstance(k, tuple) else (k,)): g for k, g in f.groupby(cols, sort=False, dropna=False)}

    parts = split(frame, groups)
    one_colour = hue is None and groups == [columns.system]
    hues = identity(list(split(frame, [hue])) if hue else list(parts), "distribution", order, palette)
    if hue is None:
        parts = {g: parts[g] for g in hues}
    slots = 1 if hue is None else len(hues)
    values, pos, colours, ticks, centres = [], [], [], [], []
    for i, (name, g) in enumerate(parts.items()):
        inner = split(g, [hue]) if hue else {name: g}
        start = i * (slots + 1) + 1
        for j, h in enumerate(hues if hue else [name]):
            if h in inner:
                values.append(inner[h]["value"].to_numpy(float))
                pos.append(start + j)
                colours.append(hues[h].color if (hue or one_colour) else "#cfe3f3")
        n = g[units[-1]].nunique() if hue else len(g)
        ticks.append((name, n))
        centres.append(start + (slots - 1) / 2)
    width = min(MAX_WIDTH, max(5.0, 0.42 * len(values) + (2.6 if hue or one_colour else 2.0)))
    ax = axes(ax, "distribution", figsize=(width, 4.2))
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fg = ink()
    if style == "box":
        drawn = ax.boxplot(
            values,
            positions=pos,
            widths=0.7,
            patch_artist=True,
            medianprops=dict(color=fg),
            whiskerprops=dict(color=fg),
            capprops=dict(color=fg),
            flierprops=dict(marker=".", markersize=3, markeredgecolor=fg, alpha=0.5),
        )
        for patch, colour in zip(drawn["boxes"], colours):
            patch.set(facecolor=colour, edgecolor=fg, linewidth=0.8)
        shape = Patch(facecolor="none", edgecolor=fg, label="quartiles, median; whiskers 1.5 IQR")
    else:
        drawn = ax.violinplot(values, positions=pos, showmedians=True, showextrema=True)
        for body, colour in zip(drawn["bodies"], colours):
            body.set(facecolor=colour, alpha=0.6)
        shape = Patch(facecolor="none", edgecolor=fg, label="density, median, range")
    means = [float(v.mean()) for v in values]
    ax.scatter(pos, means, marker="D", color=fg, edgecolors="white", linewidths=0.6, zorder=3, s=26, label="_mean")
    ax.set_xlabel(shown(", ".join(map(str, groups))))
    ax.set_ylabel(shown(f"{label} per query"))
    mean_handle = Line2D([], [], marker="D", linestyle="", markerfacecolor=fg, markeredgecolor="white", label="mean")
    handles: list[Any] = [shape, mean_handle]
    if hue or one_colour:
        handles += [Patch(facecolor=s.color, edgecolor=fg, label=shown(wrapped(h))) for h, s in hues.items()]
    legend = legend_outside(ax, title=shown(hue or columns.system) if hue or one_colour else None, handles=handles)
    texts, turned = _tick_texts(ax, ticks, legend)
    ax.set_xticks(centres, texts, fontsize="small", rotation=90 if turned else 0)
    return ax


def _tick_texts(ax: Any, ticks: list[tuple[Any, int]], legend: Any) -> tuple[list[str], bool]:
    """Each group's name and n under its box, and whether they are turned a quarter (they would collide upright).

    Upright, a name wraps at 18 characters on up to 3 lines above its n. When those labels, measured in the
    figure's font, are wider than the Axes can be beside its legend (its cell of the figure's grid less the
    legend's width and :data:`TICK_ROOM` pixels for the y axis), each label is one line (the name cut at 24
    characters, then its n), turned a quarter: a box then needs only a line's height.
    """
    from matplotlib.font_manager import FontProperties

    fig = ax.figure
    if hasattr(fig.canvas, "get_renderer"):
        renderer = fig.canvas.get_renderer()
    else:  # a Figure without a canvas of its own (the report's): Agg's renderer measures as any
        from matplotlib.backends.backend_agg import RendererAgg

        renderer = RendererAgg(int(fig.bbox.width), int(fig.bbox.height), fig.dpi)
    font = FontProperties(size="small")
    upright = [shown(f"{wrapped(name, 18)}\n(n={n})") for name, n in ticks]
    gap = renderer.get_text_width_height_descent("n", font, ismath=False)[0]  # a little air between labels

    def width(text: str) -> float:
        return max(renderer.get_text_width_height_descent(line, font, ismath=False)[0] for line in text.split("\n"))

    need = sum(width(t) + gap for t in upright)
    spec = ax.get_subplotspec()  # the Axes' cell of its grid (constrained layout fills it), else its own place
    cell = len(spec.colspan) / spec.get_gridspec().ncols if spec is not None else ax.get_position().width
    room = cell * fig.bbox.width - legend.get_window_extent(renderer).width - TICK_ROOM
    if need <= room:
        return upright, False
    return [shown(f"{wrapped(name, 24, 1)}  (n={n})") for name, n in ticks], True
