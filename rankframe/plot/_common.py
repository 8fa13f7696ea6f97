"""What every plot shares: matplotlib imported lazily, the ``ax=`` convention, reading rankframe's tidy frames."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..columns import Columns, column_list
from ..errors import ParameterError, RankframeError, parameter_error

EXTRA = 'pip install "rankframe[plot]"'
#: colours (colour-blind safe, Okabe-Ito) for wins / losses / neutral
WIN, LOSS, NEUTRAL = "#009E73", "#D55E00", "#7f7f7f"


class MissingExtraError(RankframeError, ImportError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def pyplot() -> Any:
    """``matplotlib.pyplot``, imported on first use; a :class:`MissingExtraError` naming the extra without it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise MissingExtraError(
            f"rankframe's plots need matplotlib, which is not installed ({e}); install the plot extra: {EXTRA}"
        ) from None
    return plt


def axes(ax: Any, owner: str, figsize: tuple[float, float] = (6.4, 4.0)) -> Any:
    """The Axes to draw on: ``ax`` when given (checked), else a new figure's."""
    plt = pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
        return ax
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise parameter_error(owner, "ax", "a matplotlib Axes (e.g. from plt.subplots()) or None", type(ax).__name__)
    return ax


def kind(frame: object, columns: Columns, owner: str) -> str:
    """Which frame this is: ``"comparison"``, ``"means"``, ``"per_query"`` (rankframe's outputs) or ``"long"``."""
    if not isinstance(frame, pd.DataFrame):
        raise parameter_error(
            owner, "data", "a DataFrame (a long ranking table, or a frame rankframe returned)", type(frame).__name__
        )
    cols = set(map(str, frame.columns))
    if {"metric", "system", "baseline", "delta", "ci_low", "ci_high", "p_adjusted"} <= cols:
        return "comparison"
    if {"metric", "value", "n"} <= cols:
        return "means"
    if {"metric", "value"} <= cols:
        return "per_query"
    if columns.item in cols or columns.query in cols:
        return "long"
    raise ParameterError(
        f"{owner} takes a long ranking table (columns {columns.query!r}, {columns.item!r}, ...) or a frame "
        f"returned by rankframe.evaluate/compare (columns 'metric', 'value', ...); got columns {sorted(cols)[:12]}"
    )


def one_metric(frame: pd.DataFrame, metric: object, owner: str) -> tuple[pd.DataFrame, str]:
    """The rows of one metric of a tidy frame: the named one, or the only one."""
    from ..names import parse

    present = list(dict.fromkeys(frame["metric"].astype(str)))
    if not present:
        raise ParameterError(f"{owner}: the frame has no rows: nothing to plot")
    if metric is None:
        if len(present) > 1:
            raise ParameterError(
                f"{owner}: the frame holds {len(present)} metrics {present[:8]}; pick one with metric="
            )
        return frame, present[0]
    label = str(parse(metric)) if isinstance(metric, str) else str(metric)
    if label not in present:
        raise ParameterError(f"{owner}: metric={metric!r} ({label}) is not in the frame; it holds {present[:8]}")
    return frame[frame["metric"].astype(str) == label], label


def as_names(value: object, owner: str, name: str) -> list[str]:
    """None, a column name or a list of distinct column names, as a list (:func:`rankframe.columns.column_list`)."""
    return column_list(value, owner, name)


def need_columns(frame: pd.DataFrame, names: Sequence[str], owner: str, name: str) -> None:
    """Every named column is in the frame, or a ParameterError with a did-you-mean hint."""
    from ..errors import did_you_mean

    present = [str(c) for c in frame.columns]
    for c in names:
        if c not in present:
            raise ParameterError(
                f"{owner}: {name}={c!r} is not a column of the frame{did_you_mean(c, present)}; columns: {present}"
            )


def label_of(values: Sequence[object]) -> str:
    """A legend/tick label for a group key (one or several values); pass it through :func:`shown` to draw it."""
    return " · ".join("(null)" if v is None or v is pd.NA or v != v else str(v) for v in values)


#: put before a label that starts with "_", which matplotlib would otherwise leave out of every legend
_ZERO_WIDTH = "\u200b"


def shown(text: object) -> str:
    r"""Text to hand to matplotlib (labels, ticks, titles) so that it is drawn exactly as given.

    Names are data, not markup: every ``$`` is escaped (``\$``), so ``$\foo$`` is drawn as written instead
    of being parsed as mathtext (which fails on unknown commands); a label starting with ``_`` gets a zero-width
    space in front, since matplotlib leaves artists whose label starts with ``_`` out of the legend. Every plot
    passes every text it draws through this function.
    """
    text = str(text).replace("$", r"\$")
    return _ZERO_WIDTH + text if text.startswith("_") else text
