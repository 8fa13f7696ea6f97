"""Forest (dot-and-interval) plot: per-segment comparison deltas, or means, with their intervals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, parameter_error
from ..measures.better import of_labels
from ._common import (
    LOSS,
    NEUTRAL,
    WIN,
    axes,
    ink,
    kind,
    label_of,
    legend_outside,
    one_metric,
    paper,
    pyplot,
    shown,
    spaced_ticks,
    wrapped,
)

#: a segment with fewer queries than this is flagged "small" and does not set the x scale
SMALL = 10
#: rows are crowded below this many font sizes of height each (a panel's cell): one line per row, the segments as
#: bold headers above their rows, the type shrunk to the rows' height (not below MIN_FONT points)
CROWDED, MIN_FONT = 2.6, 5.0


def forest(
    data: pd.DataFrame,
    metric: str | None = None,
    *,
    baseline: object = None,
    by: str | list[str] | None = None,
    alpha: float = 0.05,
    ci: float = 0.95,
    sort: bool = True,
    order: list | None = None,
    small: int = SMALL,
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
        A comparison is significant when the p-value of the test that made its interval is below ``alpha``:
        ``p_value`` (unadjusted, so a bar clears 0 exactly when its marker is filled), or ``p_adjusted`` when the
        frame has no ``p_value``; the legend names which. Significant: a filled diamond, green when the system
        is better, orange when worse; others are hollow grey circles.
    sort : bool, default True
        Order the rows by effect (the largest at the top), within each segment when there are several systems;
        False keeps the frame's order (first at the top).
    order : list, optional
        Comparisons: the systems drawn and their order within a segment (default: all).
    small : int, default 10
        Rows with fewer queries are flagged ``small`` in their label and do not set the x scale (an interval
        running past it ends in an arrow head).
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
            raise ParameterError(
                "forest: name the metric to draw from a long table, e.g. metric='nDCG@10'",
                owner="forest",
                parameter="metric",
            )
        if baseline is not None:
            data = compare(data, [metric], baseline=baseline, by=by, ci=ci, columns=columns, qrels=qrels, **options)
        else:
            data = evaluate(data, [metric], by=by, ci=ci, columns=columns, qrels=qrels, **options)
        what = kind(data, columns, "forest")
    elif baseline is not None or by is not None or qrels is not None or options:
        raise ParameterError(
            "forest: baseline=, by=, qrels= and evaluate's options apply to a long table only",
            owner="forest",
            parameter=next(
                (n for n, v in (("baseline", baseline), ("by", by), ("qrels", qrels)) if v is not None),
                next(iter(options), "data"),
            ),
        )
    if what == "per_query":
        raise ParameterError(
            "forest draws means or comparisons with their intervals; got per-query values (use distribution or "
            "differences for those, or evaluate(..., ci=0.95) without per_query)",
            owner="forest",
            parameter="data",
            got=what,
        )
    frame, label = one_metric(data, metric, "forest")
    comparison = what == "comparison"
    value_col = "delta" if comparison else "value"
    if not {"ci_low", "ci_high"} <= set(frame.columns):
        raise ParameterError(
            "forest: the means have no interval; evaluate them with ci=0.95",
            owner="forest",
            parameter="data",
            hint="evaluate them with ci=0.95",
        )
    if isinstance(small, bool) or not isinstance(small, (int, np.integer)) or small < 0:
        raise parameter_error("forest", "small", "an int >= 0 (rows with fewer queries are flagged)", small)
    segs = list(frame.columns[: list(frame.columns).index("metric")])
    if comparison and order is not None:
        from ._common import identity

        drawn = identity([label_of((v,)) for v in frame["system"]], "forest", order)
        rank = {g: i for i, g in enumerate(drawn)}
        frame = frame[frame["system"].map(lambda v: label_of((v,)) in rank)]
        frame = frame.iloc[np.argsort([rank[label_of((v,))] for v in frame["system"]], kind="stable")]
    systems = frame["system"].nunique() if comparison else 1
    frame = frame.reset_index(drop=True)
    value = frame[value_col].to_numpy(float)
    if sort:
        effect = np.where(np.isnan(value), -np.inf, value)
        if segs and systems > 1:  # grouped by segment (first one at the top), by effect within each
            seg_key = frame[segs].astype(str).agg("\x1f".join, axis=1)
            seg_rank = -pd.Index(pd.unique(seg_key)).get_indexer(seg_key)
            rows = np.lexsort((effect, seg_rank))
        else:
            rows = np.argsort(effect, kind="stable")
    else:
        rows = np.arange(len(frame))[::-1]
    frame = frame.iloc[rows].reset_index(drop=True)
    value = frame[value_col].to_numpy(float)
    low, high = frame["ci_low"].to_numpy(float), frame["ci_high"].to_numpy(float)
    y = np.arange(len(frame), dtype=float)
    ax = axes(ax, "forest", figsize=(8.0, max(2.5, 0.42 * len(frame) + 1.4)))
    grouped = bool(segs) and systems > 1 and sort
    seg_key = frame[segs].astype(str).agg("\x1f".join, axis=1).to_numpy() if grouped else None
    # rows crowded (a panel's cell): one line per row, the segments as headers of their rows, type fitted
    from matplotlib.font_manager import FontProperties

    font = FontProperties(size="small").get_size_in_points()
    height = ax.get_position().height * ax.figure.get_figheight() * 72  # points
    crowded = height / max(len(frame), 1) < CROWDED * font
    headers: list[tuple[float, str]] = []
    if crowded and seg_key is not None:
        block = np.concatenate([[0], np.cumsum(seg_key[1:] != seg_key[:-1])])
        y = y + block  # a free slot above each segment's rows for its header
        headers = [(float(y[block == b].max() + 1), seg_key[block == b][0]) for b in range(int(block[-1]) + 1)]
    if crowded:
        font = min(font, max(MIN_FONT, height / (len(frame) + len(headers)) / 1.35))
    level = frame.attrs.get("ci", data.attrs.get("ci", ci if what != "means" else None))
    ci_label = f"{level * 100:.6g}% CI" if isinstance(level, (int, float)) and not isinstance(level, bool) else "CI"
    fg = ink()
    ax.hlines(y, low, high, color=fg, linewidth=1.6, label=ci_label)
    n = frame["n"].to_numpy(float)
    is_small = n < small
    if comparison:
        unadjusted = "p_value" in frame.columns
        p = frame["p_value" if unadjusted else "p_adjusted"].to_numpy(float)
        sig = p < alpha
        way = int(of_labels([label])[0])  # better in the metric's direction (rankframe.direction); none: neither
        better = sig & (way * value > 0)
        worse = sig & (way * value < 0)
        neutral = ~(better | worse)
        which = f"p < {alpha:g}" if unadjusted else f"p adj. < {alpha:g}"
        title = "markers: the bars' own\ntest, unadjusted" if unadjusted else "markers: adjusted p;\nbars unadjusted"
        groups = [
            (better, dict(marker="D", color=WIN), f"better, {which}"),
            (worse, dict(marker="D", color=LOSS), f"worse, {which}"),
            (neutral, dict(marker="o", facecolors=paper(), edgecolors=NEUTRAL), "not significant"),
        ]
        for mask, style, text in groups:
            if mask.any():
                ax.scatter(value[mask], y[mask], s=42, zorder=3, label=text, **style)
        ax.axvline(0, color=fg, linewidth=0.8, linestyle="--", zorder=0)
        base = label_of(list(dict.fromkeys(frame["baseline"])))
        ax.set_xlabel(shown(wrapped(f"{label}: system − baseline ({base})", width=48, lines=2)))
    else:
        ax.scatter(value, y, s=36, zorder=3, color="#0072B2", label="mean")
        title = None
        ax.set_xlabel(shown(f"{label} (mean)"))
    ticks = []
    # several baselines (pairs='all', or a list): a row is a pair, named "system − baseline" (a system alone repeats)
    paired = comparison and frame["baseline"].nunique(dropna=False) > 1
    for r, tiny in zip(frame.to_dict("records"), is_small):
        who = f"{label_of((r['system'],))} − {label_of((r['baseline'],))}" if paired else r.get("system")
        keys = [r[c] for c in segs] + ([who] if comparison and systems > 1 or not segs and comparison else [])
        if headers:  # the segment is the header's
            keys = keys[len(segs) :]
        name = wrapped(
            label_of(keys) if keys else "all queries", width=30 if crowded else 44, lines=1 if crowded else 2
        )
        ticks.append(shown(f"{name}  (n={r['n']}{', small' if tiny else ''})"))
    head_y = [h for h, _ in headers]
    head_text = [shown(wrapped(label_of(k.split("\x1f")), width=40, lines=1)) for _, k in headers]
    ax.set_yticks([*y, *head_y], [*ticks, *head_text], fontsize=font)
    labels = ax.get_yticklabels()
    for tick, tiny in zip(labels, is_small):
        if tiny:
            tick.set_alpha(0.6)
            tick.set_fontstyle("italic")
    for tick in labels[len(y) :]:
        tick.set_fontweight("bold")
    if seg_key is not None and not headers:  # a thin line between segments
        for edge in np.flatnonzero(seg_key[1:] != seg_key[:-1]):
            ax.axhline(edge + 0.5, color=fg, linewidth=0.4, alpha=0.5, zorder=0)
    for at in head_y[:-1]:  # under each header but the top one: the line between segments
        ax.axhline(at + 0.5, color=fg, linewidth=0.4, alpha=0.5, zorder=0)
    ax.set_ylim(-0.7, max([*y, *head_y], default=0) + 0.7)
    # the x scale is set by the rows that are not small: a 3-query interval does not squash all the others
    scale = ~is_small & np.isfinite(low) & np.isfinite(high)
    if scale.any() and (~scale).any():
        lo, hi = float(low[scale].min()), float(high[scale].max())
        if comparison:
            lo, hi = min(lo, 0.0), max(hi, 0.0)
        pad = 0.08 * (hi - lo or 1.0)
        lo, hi = lo - pad, hi + pad
        ax.set_xlim(lo, hi)
        for ends, at, mark in ((low < lo, lo, "<"), (high > hi, hi, ">")):
            if ends.any():
                ax.scatter(np.full(int(ends.sum()), at), y[ends], marker=mark, color=fg, s=30, zorder=4,
                           clip_on=False, label="_interval continues")  # fmt: skip
    spaced_ticks(ax.xaxis)  # the x labels never over each other, whatever the panel's width
    names = [
        *segs,
        *([("system − baseline" if paired else "system")] if comparison and (systems > 1 or not segs) else []),
    ]
    ax.set_ylabel(shown(wrapped(", ".join(map(str, names)) or "segment")))
    legend_outside(ax, title=title)
    return ax
