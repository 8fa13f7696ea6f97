"""Per-query difference plot of two systems (anserini's compare_runs): sorted deltas, wins and losses coloured."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..columns import Columns
from ..errors import ParameterError, parameter_error
from ._common import LOSS, NEUTRAL, WIN, as_names, axes, kind, need_columns, one_metric, pyplot, shown


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
        raise ParameterError(f"{owner}: needs 2 systems in column {system_col!r}; found {len(found)}: {found[:5]}")
    for name, value in (("system", system), ("baseline", baseline)):
        if value is not None and value not in found:
            raise ParameterError(f"{owner}: {name}={value!r} is not a system of column {system_col!r}: {found[:10]}")
    if baseline is None:
        baseline = next(s for s in found if s != system)
    if system is None:
        rest = [s for s in found if s != baseline]
        if len(rest) > 1:
            raise ParameterError(
                f"{owner}: {len(found)} systems in column {system_col!r} ({found[:10]}); name the two to "
                "compare with system= and baseline="
            )
        system = rest[0]
    if system == baseline:
        raise ParameterError(f"{owner}: system and baseline are the same ({system!r}); name two different systems")
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
        Long table: segment columns (each (segment, query) is one bar).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    columns, qrels, **options
        As in :func:`rankframe.evaluate`; ``columns.system`` names the system column (default ``"system"``).

    Returns
    -------
    matplotlib Axes
        One bar per query (x: queries sorted by difference, y: the difference), a dashed line at the mean
        difference; the legend counts wins, ties and losses.
    """
    from ..evaluate import evaluate

    columns = Columns.coerce(columns)
    pyplot()  # the missing extra is reported before any work
    system_col = columns.system
    what = kind(data, columns, "differences")
    if what == "long":
        if metric is None:
            raise ParameterError("differences: name the metric to draw from a long table, e.g. metric='AP'")
        need_columns(data, [system_col], "differences", "columns.system")
        seg = as_names(by, "differences", "by")
        data = evaluate(data, [metric], by=[*seg, system_col], per_query=True, columns=columns, qrels=qrels, **options)
    elif what != "per_query":
        raise parameter_error(
            "differences", "data", "per-query values (evaluate(..., per_query=True)) or a long table", f"a {what} frame"
        )
    elif by is not None or qrels is not None or options:
        raise ParameterError("differences: by=, qrels= and evaluate's options apply to a long table only")
    frame, label = one_metric(data, metric, "differences")
    pair, system, baseline = per_query_deltas(frame, system_col, system, baseline)
    if pair.empty:
        raise ParameterError(f"differences: {system!r} and {baseline!r} have no query with a value in common")
    delta = np.sort(pair["delta"].to_numpy(float), kind="stable")
    x = np.arange(len(delta))
    ax = axes(ax, "differences")
    width = 1.0 if len(delta) > 60 else 0.8
    for mask, colour, text in (
        (delta > 0, WIN, f"{system} better ({int((delta > 0).sum())})"),
        (delta == 0, NEUTRAL, f"tie ({int((delta == 0).sum())})"),
        (delta < 0, LOSS, f"{baseline} better ({int((delta < 0).sum())})"),
    ):
        if mask.any():
            ax.bar(x[mask], delta[mask], width=width, color=colour, label=shown(text), linewidth=0)
    ax.axhline(0, color="#333333", linewidth=0.8)
    ax.axhline(float(delta.mean()), color="#333333", linewidth=1, linestyle="--", label=f"mean {delta.mean():+.4f}")
    ax.set_xlabel(f"queries ({len(delta)}), sorted by difference")
    ax.set_ylabel(shown(f"{label}: {system} − {baseline}"))
    ax.set_xlim(-0.5, len(delta) - 0.5)
    ax.legend(loc="upper left", fontsize="small")
    return ax
