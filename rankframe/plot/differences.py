"""Per-query difference plot of two systems (anserini's compare_runs): sorted deltas, wins and losses coloured."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, parameter_error
from ..measures.better import of_labels
from ._common import (
    LOSS,
    MAX_WIDTH,
    NEUTRAL,
    WIN,
    as_names,
    axes,
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

#: past this many queries the bars (narrower than a pixel) become a sorted filled curve
CURVE = 300


def per_query_deltas(
    per: pd.DataFrame, system_col: str, system: object, baseline: object, owner: str = "differences"
) -> tuple[pd.DataFrame, object, object]:
    """``[*units, system, baseline, delta]`` from per-query values: the two systems paired on each unit.

    A unit is every column other than the system, ``metric`` and ``value`` (segments and the query); units
    where either system has no value (no row, or NaN) are left out.
    """
    need_columns(per, [system_col], owner, "system")
    found = pd.unique(per[system_col]).tolist()
    if len(found) < 2:
        raise ParameterError(
            f"{owner}: needs 2 systems in column {system_col!r}; found {len(found)}: {found[:5]}",
            owner=owner,
            parameter="data",
            got=found[:5],
        )
    for name, value in (("system", system), ("baseline", baseline)):
        if value is not None and value not in found:
            raise ParameterError(
                f"{owner}: {name}={value!r} is not a system of column {system_col!r}: {found[:10]}",
                owner=owner,
                parameter=name,
            )
    if baseline is None:
        baseline = next(s for s in found if s != system)
    if system is None:
        rest = [s for s in found if s != baseline]
        if len(rest) > 1:
            raise ParameterError(
                f"{owner}: {len(found)} systems in column {system_col!r} ({found[:10]}); name the two to "
                "compare with system= and baseline=",
                owner=owner,
                parameter="system",
                got=None,
            )
        system = rest[0]
    if system == baseline:
        raise ParameterError(
            f"{owner}: system and baseline are the same ({system!r}); name two different systems",
            owner=owner,
            parameter="baseline",
            got=baseline,
        )
    units = [c for c in per.columns if c not in (system_col, "metric", "value")]
    a = per[per[system_col] == system].set_index(units)["value"]
    b = per[per[system_col] == baseline].set_index(units)["value"]
    pair = pd.concat([a.rename("system"), b.rename("baseline")], axis=1, join="inner").dropna()
    pair["delta"] = pair["system"] - pair["baseline"]
    return pair.reset_index(), system, baseline


def differences(
    data: pd.DataFrame,
    metric: str | None = None,
    *,
    system: object = None,
    baseline: object = None,
    by: str | list[str] | None = None,
    ax: Any = None,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> Any:
    """Per query, the difference ``system − baseline`` of a metric, sorted: wins green, losses orange, ties grey.

    Parameters
    ----------
    data : DataFrame
        Per-query values from ``evaluate(..., by=[..., "system"], per_query=True)``, or a long
        ranking table with a system column (evaluated per query here).
    metric : str, optional
        The metric (required for a long table; for per-query values when they hold several).
    system, baseline : optional
        The two systems (values of the system column). Default: the first system is the baseline, the other
        one the system (an error with more than two).
    by : str or list of str, optional
        Segment columns: one panel (facet) per segment, sorted within it; the panels share the y axis. Then
        the result is an array of Axes, and ``ax=`` (if given) must be as many Axes as segments.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    columns, qrels, **options
        As in :func:`rankframe.evaluate`; ``columns.system`` names the system column (default ``"system"``).

    Returns
    -------
    matplotlib Axes
        One bar per query (x: queries sorted by difference, y: the difference), a dashed line at the mean
        difference; the legend counts wins, ties and losses. Past 300 queries a sorted filled curve (every
        query in it) with the two extremes marked and their values written. With ``by=``: an array of Axes.
    """
    from ..evaluate import evaluate

    columns = Columns.coerce(columns)
    pyplot()  # the missing extra is reported before any work
    system_col = columns.system
    what = kind(data, columns, "differences")
    if what == "long":
        if metric is None:
            raise ParameterError(
                "differences: name the metric to draw from a long table, e.g. metric='AP'",
                owner="differences",
                parameter="metric",
            )
        need_columns(data, [system_col], "differences", "columns.system")
        seg = as_names(by, "differences", "by")
        data = evaluate(data, [metric], by=[*seg, system_col], per_query=True, columns=columns, qrels=qrels, **options)
    elif what != "per_query":
        raise parameter_error(
            "differences", "data", "per-query values (evaluate(..., per_query=True)) or a long table", f"a {what} frame"
        )
    elif qrels is not None or options:
        raise ParameterError(
            "differences: qrels= and evaluate's options apply to a long table only",
            owner="differences",
            parameter="qrels" if qrels is not None else next(iter(options)),
        )
    frame, label = one_metric(data, metric, "differences")
    facets = as_names(by, "differences", "by")
    need_columns(frame, facets, "differences", "by")
    pair, system, baseline = per_query_deltas(frame, system_col, system, baseline)
    if pair.empty:
        raise ParameterError(
            f"differences: {system!r} and {baseline!r} have no query with a value in common",
            owner="differences",
            parameter="baseline",
            got=baseline,
        )
    if not facets:
        ax = axes(ax, "differences", figsize=(7.2, 4.0))
        _draw(ax, pair["delta"].to_numpy(float), label, system, baseline)
        return ax
    panels = {
        label_of(k if isinstance(k, tuple) else (k,)): g["delta"].to_numpy(float)
        for k, g in pair.groupby(facets, sort=True, dropna=False)
    }
    plt = pyplot()
    if ax is None:
        ncols = min(2, len(panels))
        nrows = -(-len(panels) // ncols)
        fig = plt.figure(figsize=(min(MAX_WIDTH, 4.6 * ncols), 3.2 * nrows), layout="constrained")
        grid = np.asarray(fig.subplots(nrows, ncols, sharey=True, squeeze=False))
        for extra in grid.flat[len(panels) :]:
            extra.remove()
        axs = grid.flat[: len(panels)]
    else:
        from matplotlib.axes import Axes

        axs = np.ravel(np.asarray(ax, dtype=object))
        if len(axs) != len(panels) or not all(isinstance(a, Axes) for a in axs):
            raise parameter_error("differences", "ax", f"with by=, a list of {len(panels)} Axes (one per segment)", ax)
    for a, (name, delta) in zip(axs, panels.items()):
        _draw(a, delta, label, system, baseline, legend=ax is not None)
        way = int(of_labels([label])[0])  # wins in the metric's direction; none without one
        won = f"{int((way * delta > 0).sum())}" if way else "–"
        lost = f"{int((way * delta < 0).sum())}" if way else "–"
        wtl = f"{won}/{int((delta == 0).sum())}/{lost}"
        title = f"{wrapped(name, 44, 2)}\n(n={len(delta)}, mean {delta.mean():+.4f}, W/T/L {wtl})"
        a.set_title(shown(title), fontsize="small")
    if ax is None:  # one legend for the figure: what the colours mean (the counts are in each panel's title)
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles = [
            Patch(color=WIN, label=shown(f"{wrapped(system, 30, 1)} better")),
            Patch(color=NEUTRAL, label="tie"),
            Patch(color=LOSS, label=shown(f"{wrapped(baseline, 30, 1)} better")),
            Line2D([], [], color=ink(), linestyle="--", label="mean difference"),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize="small", frameon=False)
    return np.asarray(list(axs), dtype=object)


def _draw(ax: Any, delta: np.ndarray, label: str, system: object, baseline: object, legend: bool = True) -> None:
    """One panel: the sorted differences as bars (or, past :data:`CURVE` queries, a filled curve), 0, the mean."""
    delta = np.sort(delta, kind="stable")
    x = np.arange(len(delta))
    fg = ink()
    way = int(of_labels([label])[0])  # which way is better (rankframe.direction): a lower ARP is the system's win
    ahead = delta * way
    if way == 0:  # a metric without a direction: above and below, never better or worse
        parts = (
            (delta > 0, NEUTRAL, f"{wrapped(system, 30, 1)} above ({int((delta > 0).sum())})"),
            (delta == 0, NEUTRAL, f"tie ({int((delta == 0).sum())})"),
            (delta < 0, NEUTRAL, f"{wrapped(baseline, 30, 1)} above ({int((delta < 0).sum())})"),
        )
    else:
        parts = (
            (ahead > 0, WIN, f"{wrapped(system, 30, 1)} better ({int((ahead > 0).sum())})"),
            (delta == 0, NEUTRAL, f"tie ({int((delta == 0).sum())})"),
            (ahead < 0, LOSS, f"{wrapped(baseline, 30, 1)} better ({int((ahead < 0).sum())})"),
        )
    if len(delta) > CURVE:
        for mask, colour, text in parts:
            if mask.any():
                ax.fill_between(x, delta, 0, where=mask, step="mid", color=colour, label=shown(text), linewidth=0)
        ends = np.array([0, len(delta) - 1])
        ax.scatter(x[ends], delta[ends], marker="o", s=14, color=fg, zorder=3, label="_extremes")
        for i, side in zip(ends, ("left", "right")):
            ax.annotate(f"{delta[i]:+.3f}", (x[i], delta[i]), xytext=(4 if side == "left" else -4, 0),
                        textcoords="offset points", ha=side, va="center", fontsize="x-small", color=fg)  # fmt: skip
    else:
        width = 1.0 if len(delta) > 60 else 0.8
        for mask, colour, text in parts:
            if mask.any():
                ax.bar(x[mask], delta[mask], width=width, color=colour, label=shown(text), linewidth=0)
    ax.axhline(0, color=fg, linewidth=0.8)
    ax.axhline(float(delta.mean()), color=fg, linewidth=1, linestyle="--", label=f"mean {delta.mean():+.4f}")
    what = f"queries ({len(delta)}), sorted by difference"
    ax.set_xlabel(wrapped(what, 22, 2) if legend else what)  # on the caller's Axes: fits a panel's narrow cell
    ax.set_ylabel(shown(f"{label}: {wrapped(system, 18, 1)} − {wrapped(baseline, 18, 1)}"))
    ax.set_xlim(-0.5, len(delta) - 0.5)
    if legend:  # to the right, one column, as every plot's: above the axes it outgrew a panel's cell
        legend_outside(ax)
