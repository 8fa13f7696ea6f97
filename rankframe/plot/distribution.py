"""Distribution of per-query values per system or segment: box plots with the mean marked, ``n`` in the labels."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..columns import Columns
from ..errors import ParameterError, parameter_error
from ._common import as_names, axes, kind, label_of, need_columns, one_metric, pyplot, shown

KINDS = ("box", "violin")


def distribution(
    data: pd.DataFrame,
    metric: str | None = None,
    *,
    by: str | list[str] | None = None,
    style: str = "box",
    ax: Any = None,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> Any:
    """The per-query values of a metric, one box (or violin) per system or segment, the mean as a white dot.

    Parameters
    ----------
    data : DataFrame
        Per-query values (``evaluate(..., per_query=True)``) or a long ranking table (evaluated
        per query here).
    metric : str, optional
        The metric (required for a long table; for per-query values when they hold several).
    by : str or list of str, optional
        The columns whose values make the groups. Default: the system column when present, else the segment
        columns of the per-query frame, else one group.
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
            raise ParameterError("distribution: name the metric to draw from a long table, e.g. metric='AP'")
        if by is None and columns.system in data.columns:
            groups = [columns.system]
        data = evaluate(data, [metric], by=groups or None, per_query=True, columns=columns, qrels=qrels, **options)
    elif what != "per_query":
        raise parameter_error(
            "distribution",
            "data",
            "per-query values (evaluate(..., per_query=True)) or a long table",
            f"a {what} frame",
        )
    elif qrels is not None or options:
        raise ParameterError("distribution: qrels= and evaluate's options apply to a long table only")
    frame, label = one_metric(data, metric, "distribution")
    if by is None and what != "long":
        cols = list(frame.columns)
        units = cols[: cols.index("metric")]
        groups = [columns.system] if columns.system in units else units[:-1]  # the last unit column is the query
    need_columns(frame, groups, "distribution", "by")
    frame = frame[frame["value"].notna()]
    if frame.empty:
        raise ParameterError(f"distribution: no per-query value of {label} to draw (all NaN or no rows)")
    if groups:
        parts = [
            (key if isinstance(key, tuple) else (key,), g) for key, g in frame.groupby(groups, sort=False, dropna=False)
        ]
    else:
        parts = [((), frame)]
    values = [g["value"].to_numpy(float) for _, g in parts]
    ticks = [shown(f"{label_of(k) if k else 'all queries'}\n(n={len(v)})") for (k, _), v in zip(parts, values)]
    pos = np.arange(1, len(values) + 1)
    ax = axes(ax, "distribution", figsize=(max(4.0, 1.1 * len(values) + 2), 4.0))
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if style == "box":
        box = dict(facecolor="#cfe3f3", edgecolor="#0072B2")
        ax.boxplot(
            values, positions=pos, widths=0.6, patch_artist=True, boxprops=box, medianprops=dict(color="#0072B2")
        )
        shape = Patch(facecolor="#cfe3f3", edgecolor="#0072B2", label="quartiles, median; whiskers 1.5 IQR")
    else:
        ax.violinplot(values, positions=pos, showmedians=True, showextrema=True)
        shape = Patch(facecolor="#1f77b4", alpha=0.3, label="density, median, range")
    means = [float(v.mean()) for v in values]
    ax.scatter(pos, means, marker="o", color="white", edgecolors="black", zorder=3, s=30)
    ax.set_xticks(pos, ticks)
    ax.set_xlabel(shown(", ".join(map(str, groups))))
    ax.set_ylabel(shown(f"{label} per query"))
    mean_handle = Line2D(
        [], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor="black", label="mean"
    )
    ax.legend(
        handles=[shape, mean_handle],
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=2,
        fontsize="small",
        frameon=False,
    )
    return ax
