"""Forest (dot-and-interval) plot: per-segment comparison deltas, or means, with their intervals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..columns import Columns
from ..errors import ParameterError, parameter_error
from ._common import LOSS, NEUTRAL, WIN, axes, kind, label_of, one_metric, pyplot, shown


def forest(
    data: pd.DataFrame,
    metric: str | None = None,
    *,
    baseline: object = None,
    by: str | list[str] | None = None,
    alpha: float = 0.05,
    ci: float = 0.95,
    sort: bool = True,
    ax: Any = None,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> Any:
    """One row per segment (and system): the delta (or mean) as a dot, its interval as a bar, sorted by effect.

    Parameters
    ----------
    data : DataFrame
        What :func:`rankframe.compare` returned (deltas against the baseline, ``ci_low``/``ci_high``,
        ``p_adjusted``), or the means :func:`rankframe.evaluate` returned with ``ci=`` (per segment), or a
        long ranking table: with ``baseline=`` it is compared (``compare(data, metric,
        baseline=baseline, by=by, ci=ci, **options)``), without it the means per ``by`` are taken with their
        ``ci`` interval.
    metric : str, optional
        The metric to draw; required when the frame holds several (and for a long table).
    baseline, by, ci, columns, qrels, **options
        Long table only: passed on to ``compare`` / ``evaluate``.
    alpha : float, default 0.05
        Comparisons with ``p_adjusted < alpha`` are significant: a filled diamond, green when the system is
        better, orange when worse; others are hollow grey circles.
    sort : bool, default True
        Order the rows by effect (the largest at the top); False keeps the frame's order (first at the top).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes
        y tick labels name the segment, the system and ``n``; x is the delta (a line marks 0) or the mean.
    """
    from ..compare import compare
    from ..evaluate import evaluate

    columns = Columns.coerce(columns)
    pyplot()  # the missing extra is reported before any work
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise parameter_error("forest", "alpha", "a level in the open interval (0, 1), e.g. 0.05", alpha)
    if not isinstance(sort, bool):
        raise parameter_error("forest", "sort", "True or False", sort)
    what = kind(data, columns, "forest")
    if what == "long":
        if metric is None:
            raise ParameterError("forest: name the metric to draw from a long table, e.g. metric='nDCG@10'")
        if baseline is not None:
            data = compare(data, [metric], baseline=baseline, by=by, ci=ci, columns=columns, qrels=qrels, **options)
        else:
            data = evaluate(data, [metric], by=by, ci=ci, columns=columns, qrels=qrels, **options)
        what = kind(data, columns, "forest")
    elif baseline is not None or by is not None or qrels is not None or options:
        raise ParameterError("forest: baseline=, by=, qrels= and evaluate's options apply to a long table only")
    if what == "per_query":
        raise ParameterError(
            "forest draws means or comparisons with their intervals; got per-query values (use distribution or "
            "differences for those, or evaluate(..., ci=0.95) without per_query)"
        )
    frame, label = one_metric(data, metric, "forest")
    comparison = what == "comparison"
    value_col = "delta" if comparison else "value"
    if not {"ci_low", "ci_high"} <= set(frame.columns):
        raise ParameterError("forest: the means have no interval; evaluate them with ci=0.95")
    segs = list(frame.columns[: list(frame.columns).index("metric")])
    systems = frame["system"].nunique() if comparison else 1
    frame = frame.reset_index(drop=True)
    value = frame[value_col].to_numpy(float)
    order = (
        np.argsort(np.where(np.isnan(value), -np.inf, value), kind="stable") if sort else np.arange(len(frame))[::-1]
    )
    frame = frame.iloc[order].reset_index(drop=True)
    value = frame[value_col].to_numpy(float)
    low, high = frame["ci_low"].to_numpy(float), frame["ci_high"].to_numpy(float)
    y = np.arange(len(frame), dtype=float)
    ax = axes(ax, "forest", figsize=(6.4, max(2.5, 0.35 * len(frame) + 1.2)))
    level = frame.attrs.get("ci", data.attrs.get("ci", ci if what != "means" else None))
    ci_label = f"{level * 100:.6g}% CI" if isinstance(level, (int, float)) and not isinstance(level, bool) else "CI"
    ax.hlines(y, low, high, color="#444444", linewidth=1.6, label=ci_label)
    if comparison:
        sig = frame["p_adjusted"].to_numpy(float) < alpha
        better = sig & (value > 0)
        worse = sig & (value < 0)
        neutral = ~(better | worse)
        groups = [
            (better, dict(marker="D", color=WIN), f"better, p adj. < {alpha:g}"),
            (worse, dict(marker="D", color=LOSS), f"worse, p adj. < {alpha:g}"),
            (neutral, dict(marker="o", facecolors="white", edgecolors=NEUTRAL), "not significant"),
        ]
        for mask, style, text in groups:
            if mask.any():
                ax.scatter(value[mask], y[mask], s=42, zorder=3, label=text, **style)
        ax.axvline(0, color="#999999", linewidth=0.8, linestyle="--", zorder=0)
        base = label_of(list(dict.fromkeys(frame["baseline"])))
        ax.set_xlabel(shown(f"{label}: system − baseline ({base})"))
    else:
        ax.scatter(value, y, s=36, zorder=3, color="#0072B2", label="mean")
        ax.set_xlabel(shown(f"{label} (mean)"))
    ticks = []
    for r in frame.to_dict("records"):
        keys = [r[c] for c in segs] + ([r["system"]] if comparison and systems > 1 or not segs and comparison else [])
        ticks.append(shown(f"{label_of(keys) if keys else 'all queries'}  (n={r['n']})"))
    ax.set_yticks(y, ticks)
    ax.set_ylim(-0.7, len(frame) - 0.3)
    names = [*segs, *(["system"] if comparison and (systems > 1 or not segs) else [])]
    ax.set_ylabel(shown(", ".join(map(str, names)) or "segment"))
    ax.legend(loc="best", fontsize="small")
    return ax
