"""What every plot shares: matplotlib imported lazily, the ``ax=`` convention, reading rankframe's tidy frames."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..core.columns import Columns, column_list
from ..core.errors import ParameterError, RankframeError, install_extra, parameter_error

EXTRA = install_extra("plot")
#: colours (colour-blind safe, Okabe-Ito) for wins / losses / neutral
WIN, LOSS, NEUTRAL = "#009E73", "#D55E00", "#7f7f7f"
#: the systems' colours: Okabe & Ito (2008), colour-blind safe, without black (invisible on a dark style)
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
#: each system also gets a marker and a line style, so no pair is told apart by colour alone
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES: tuple[Any, ...] = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)))
#: the widest figure a plot makes by itself (inches): a page or a screen, however many groups
MAX_WIDTH = 9.5
#: long names are wrapped at this many characters, on at most LINES lines (then cut with "…")
WRAP, LINES = 26, 3


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
        f"returned by rankframe.evaluate/compare (columns 'metric', 'value', ...); got columns {sorted(cols)[:12]}",
        owner=owner,
        parameter="data",
        got=sorted(cols)[:12],
    )


def one_metric(frame: pd.DataFrame, metric: object, owner: str) -> tuple[pd.DataFrame, str]:
    """The rows of one metric of a tidy frame: the named one, or the only one."""
    from ..measures.names import parse

    present = list(dict.fromkeys(frame["metric"].astype(str)))
    if not present:
        raise ParameterError(f"{owner}: the frame has no rows: nothing to plot", owner=owner, parameter="data")
    if metric is None:
        if len(present) > 1:
            raise ParameterError(
                f"{owner}: the frame holds {len(present)} metrics {present[:8]}; pick one with metric=",
                owner=owner,
                parameter="metric",
            )
        return frame, present[0]
    label = str(parse(metric)) if isinstance(metric, str) else str(metric)
    if label not in present:
        raise ParameterError(
            f"{owner}: metric={metric!r} ({label}) is not in the frame; it holds {present[:8]}",
            owner=owner,
            parameter="metric",
        )
    return frame[frame["metric"].astype(str) == label], label


def as_names(value: object, owner: str, name: str) -> list[str]:
    """None, a column name or a list of distinct column names, as a list (:func:`rankframe.columns.column_list`)."""
    return column_list(value, owner, name)


def need_columns(frame: pd.DataFrame, names: Sequence[str], owner: str, name: str) -> None:
    """Every named column is in the frame, or a ParameterError with a did-you-mean hint."""
    from ..core.errors import did_you_mean

    present = [str(c) for c in frame.columns]
    for c in names:
        if c not in present:
            raise ParameterError(
                f"{owner}: {name}={c!r} is not a column of the frame{did_you_mean(c, present)}; columns: {present}",
                owner=owner,
                parameter=name,
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


@dataclass(frozen=True)
class Style:
    """How one group (a system) is drawn in every plot of a call: colour, marker and line style."""

    color: str
    marker: str
    linestyle: Any


def identity(present: Sequence[str], owner: str, order: object = None, palette: object = None) -> dict[str, Style]:
    """The groups to draw, in order, each with its :class:`Style` (seaborn's ``hue_order`` and ``palette``).

    ``present`` are the group labels in the data (:func:`label_of`). ``order`` (a list of group values or labels)
    picks the groups drawn and their order, and fixes each one's style by its position, so plots given the same
    ``order`` draw each system alike (an entry the data lacks, such as the baseline of a comparison, keeps its
    place and is not drawn); default: the labels sorted. ``palette``: a list of colours (cycled), a
    dict group -> colour, or a matplotlib colormap name; default :data:`PALETTE`.
    """
    from matplotlib import colormaps
    from matplotlib.colors import is_color_like, to_hex

    labels = list(dict.fromkeys(present))
    if order is None:
        full = sorted(labels)
    else:
        if isinstance(order, (str, bytes)) or not isinstance(order, Sequence) or not order:
            raise parameter_error(owner, "order", "a non-empty list of the groups to draw (e.g. system names)", order)
        full = [label_of(v if isinstance(v, tuple) else (v,)) for v in order]
        if len(set(full)) != len(full) or not set(full) & set(labels):
            raise ParameterError(
                f"{owner}: order= must name distinct groups, some of them in the data; got {full[:5]}; "
                f"the groups are {labels[:10]}",
                owner=owner,
                parameter="order",
            )
    if palette is None:
        colours: Any = list(PALETTE)
    elif isinstance(palette, str):
        if palette not in colormaps:
            raise parameter_error(owner, "palette", "a list of colours, a dict group -> colour or a colormap", palette)
        cmap = colormaps[palette]
        colours = [to_hex(cmap(i / max(1, len(full) - 1))) for i in range(len(full))]
    elif isinstance(palette, Mapping):
        named = {label_of(k if isinstance(k, tuple) else (k,)): v for k, v in palette.items()}
        lacking = [g for g in full if g not in named and g in labels]
        if lacking or not all(is_color_like(v) for v in named.values()):
            raise ParameterError(
                f"{owner}: palette= must give a colour to every group drawn; missing {lacking[:5]}",
                owner=owner,
                parameter="palette",
            )
        colours = [named.get(g, NEUTRAL) for g in full]
    elif isinstance(palette, Sequence) and palette and all(is_color_like(c) for c in palette):
        colours = list(palette)
    else:
        raise parameter_error(owner, "palette", "a list of colours, a dict group -> colour or a colormap", palette)
    return {
        g: Style(colours[i % len(colours)], MARKERS[i % len(MARKERS)], LINESTYLES[i % len(LINESTYLES)])
        for i, g in enumerate(full)
        if g in labels
    }


def wrapped(text: object, width: int = WRAP, lines: int = LINES) -> str:
    """A long name on at most ``lines`` lines of ``width`` characters (cut with "…"), for legends and ticks."""
    text = str(text)
    if len(text) <= width:
        return text
    return textwrap.fill(text, width, max_lines=lines, placeholder=" …", break_on_hyphens=False)


def ink() -> str:
    """The current style's foreground (text) colour: interval bars and reference lines stay visible on any style."""
    import matplotlib as mpl

    return str(mpl.rcParams["text.color"])


def paper() -> str:
    """The current style's axes background colour (the face of hollow markers)."""
    import matplotlib as mpl

    colour = mpl.rcParams["axes.facecolor"]
    return "white" if colour in ("none", None) else str(colour)


def legend_outside(ax: Any, title: str | None = None, handles: list | None = None) -> Any:
    """The legend to the right of the Axes, never on the data (constrained layout makes room for it)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    else:
        labels = [h.get_label() for h in handles]
    ncol = 1 if len(labels) <= 14 else 2
    return ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        title_fontsize="small",
        frameon=False,
        ncol=ncol,
        title=title,
    )


def spaced_ticks(axis: Any) -> None:
    """As many ticks on the horizontal ``axis`` as their labels fit side by side, decided when it is drawn.

    matplotlib's default locator allots each label about 3 font sizes; a label such as ``−0.125`` is wider, and
    a narrow panel (a report's figure beside its legend) set them over each other. Here the labels are measured
    with the tick font (``TextToPath``, no renderer needed) against the axis's drawn length, with a gap of one
    font size between neighbours, and the locator takes the most ticks that fit (a panel too narrow for two
    labels keeps one).
    """
    from matplotlib.axis import Axis
    from matplotlib.textpath import TextToPath
    from matplotlib.ticker import MaxNLocator

    measure = TextToPath()

    class Spaced(MaxNLocator):
        def tick_values(self, vmin: float, vmax: float) -> Any:
            owner = self.axis
            if not isinstance(owner, Axis) or not vmax > vmin:
                return super().tick_values(vmin, vmax)
            ax = owner.axes
            formatter: Any = owner.major.formatter
            prop = owner.majorTicks[0].label1.get_fontproperties()  # the tick font (not get_ticklabels: a loop)
            size = prop.get_size_in_points()
            length = ax.bbox.width * 72 / ax.figure.dpi  # points
            lo, hi = min(vmin, vmax), max(vmin, vmax)
            ticks = super().tick_values(vmin, vmax)
            for n in range(max(1, int(length // (3 * size))), 0, -1):
                self.set_params(nbins=n, min_n_ticks=1)
                ticks = super().tick_values(vmin, vmax)
                inside = [t for t in ticks if lo <= t <= hi]
                if len(inside) < 2:
                    break
                labels = formatter.format_ticks(inside)
                widest = max(measure.get_text_width_height_descent(s, prop, ismath=False)[0] for s in labels)
                step = (inside[1] - inside[0]) / (hi - lo) * length
                if step >= widest + size:
                    break
            return ticks

    axis.set_major_locator(Spaced(nbins="auto", steps=[1, 2, 2.5, 5, 10]))
