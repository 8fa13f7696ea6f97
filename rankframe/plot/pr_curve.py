"""Interpolated precision–recall curve: trec_eval's 11-point ``iprec_at_recall``, one line per system.

For a query with ``R`` relevant items, the interpolated precision at recall level ``r`` is the highest precision
at any rank from the one where recall reaches ``r`` on; as in trec_eval, "recall reaches r" means the run has
retrieved ``need(r) = floor(r * R + 0.9)`` relevant items (so 0.7 of 3 relevant is reached with 2)::

    iprec(r) = max { P@i : rel_so_far(i) >= need(r) },   0 when fewer than need(r) are retrieved,

at ``r`` = 0.0, 0.1, ..., 1.0 (trec_eval's ``iprec_at_recall_0.00 ... _1.00``), averaged over the queries of
each group. Query-set rules as rankframe's defaults (= ``trec_eval -c``): a judged query a run did not
retrieve counts 0, a query without relevant items counts 0, a query without judgments is skipped.
Computed by the registered ``IPrec@r`` metric (``rankframe/metrics/iprec.py``, one definition for every face);
this module only reshapes its values into curve points.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError, parameter_error
from ..measures.names import parse
from ._common import as_names, axes, identity, label_of, legend_outside, need_columns, pyplot, shown, wrapped

RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def iprec_at_recall(
    df: pd.DataFrame,
    *,
    by: str | list[str] | None = None,
    per_query: bool = False,
    rel: float = 1,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    validate: bool = True,
    allow_duplicates: bool = False,
) -> pd.DataFrame:
    """The 11-point interpolated precision of a long ranking table, tidy: ``[*by, (query,) recall, precision]``.

    Means (``per_query=False``) add ``n``, the queries averaged. ``rel`` is the lowest relevant grade (as
    trec_eval's ``-l``). ``by`` defaults to the system column when present.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 2, 3],
    ...                    "relevance": [0, 1, 1]})
    >>> # P@2 = 1/2 at recall 1/2, P@3 = 2/3 at recall 1: every level's best precision at recall >= r is 2/3
    >>> iprec_at_recall(df)["precision"].round(4).unique().tolist()
    [0.6667]
    """
    from ..evaluate import evaluate

    columns = Columns.coerce(columns)
    if not isinstance(df, pd.DataFrame):
        raise parameter_error("iprec_at_recall", "df", "a pandas DataFrame (a long ranking table)", type(df).__name__)
    groups = as_names(by, "iprec_at_recall", "by")
    if by is None and columns.system in df.columns:
        groups = [columns.system]
    if isinstance(rel, bool) or not isinstance(rel, (int, float)) or not np.isfinite(rel) or rel <= 0:
        raise parameter_error("iprec_at_recall", "rel", "a number > 0 (the lowest relevant grade)", rel)
    for name, flag in (("per_query", per_query), ("validate", validate), ("allow_duplicates", allow_duplicates)):
        if not isinstance(flag, bool):
            raise parameter_error("iprec_at_recall", name, "True or False", flag)
    for c in groups:
        if c in ("recall", "precision", "n", columns.query):
            raise ParameterError(
                f"iprec_at_recall: the column {c!r} cannot be a group (an output column or the query)",
                owner="iprec_at_recall",
                parameter="by",
                got=c,
            )
    # the registered IPrec@r metric is the one definition (rankframe/metrics/iprec.py); this only reshapes it
    names = [f"IPrec(rel={rel!r})@{level}" for level in RECALL_LEVELS]
    per = evaluate(
        df,
        names,
        by=groups,
        per_query=True,
        columns=columns,
        qrels=qrels,
        validate=validate,
        allow_duplicates=allow_duplicates,
    )
    level_of = {str(parse(name)): level for name, level in zip(names, RECALL_LEVELS)}
    out = per.drop(columns=["metric", "value"])
    out["recall"] = per["metric"].map(level_of).to_numpy(dtype=np.float64)
    out["precision"] = per["value"].to_numpy(dtype=np.float64)
    if per_query:
        return out
    keys = [*groups, "recall"]
    mean = out.groupby(keys, sort=False, dropna=False, observed=True)["precision"].agg(["mean", "count"])
    mean = mean.reset_index().rename(columns={"mean": "precision", "count": "n"})
    mean["n"] = mean["n"].astype(np.int64)
    return mean


def pr_curve(
    data: pd.DataFrame,
    *,
    by: str | list[str] | None = None,
    order: list | None = None,
    palette: object = None,
    ax: Any = None,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    **options: Any,
) -> Any:
    """Plot the 11-point interpolated precision–recall curve (trec_eval's ``iprec_at_recall``), one line per group.

    Parameters
    ----------
    data : DataFrame
        A long ranking table (the points are computed by :func:`iprec_at_recall`), or its tidy output
        ``[*by, recall, precision]``.
    by : str or list of str, optional
        The columns whose values make the lines (default: the system column when present).
    order, palette : optional
        The lines drawn, their order and colours, as in :func:`at_k` (each line also has its own marker and line
        style; the legend is outside the axes).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    columns, qrels, **options
        Long table: passed on to :func:`iprec_at_recall` (``rel``, ``validate``, ``allow_duplicates``).

    Returns
    -------
    matplotlib Axes
        x: recall level, y: interpolated precision, both in [0, 1]; one labelled line per group.
    """
    columns = Columns.coerce(columns)
    pyplot()  # the missing extra is reported before any work
    if not isinstance(data, pd.DataFrame):
        raise parameter_error(
            "pr_curve", "data", "a DataFrame (a long ranking table or iprec_at_recall's output)", data
        )
    if {"recall", "precision"} <= set(map(str, data.columns)):
        if qrels is not None or options:
            raise ParameterError(
                "pr_curve: qrels= and the options apply to a long table, not to computed points",
                owner="pr_curve",
                parameter="qrels" if qrels is not None else next(iter(options)),
            )
        points = data
        groups = as_names(by, "pr_curve", "by")
        if by is None:
            groups = [c for c in data.columns if c not in ("recall", "precision", "n", columns.query)]
        need_columns(points, groups, "pr_curve", "by")
        if columns.query in points.columns:
            points = points.groupby([*groups, "recall"], sort=False, dropna=False)["precision"].mean().reset_index()
    else:
        points = iprec_at_recall(data, by=by, columns=columns, qrels=qrels, **options)
        groups = [c for c in points.columns if c not in ("recall", "precision", "n")]
    if points.empty:
        raise ParameterError(
            "pr_curve: no query to draw (no judged query in the table)", owner="pr_curve", parameter="data"
        )
    ax = axes(ax, "pr_curve", figsize=(7.6, 4.4))
    parts = points.groupby(groups, sort=False, dropna=False) if groups else [((), points)]
    curves = {}
    for key, g in parts:
        key = key if isinstance(key, tuple) else (key,)
        curves[label_of(key) if key else "all queries"] = g.sort_values("recall")
    for label, style in identity(list(curves), "pr_curve", order, palette).items():
        g = curves[label]
        ax.plot(g["recall"].to_numpy(float), g["precision"].to_numpy(float), color=style.color, marker=style.marker,
                linestyle=style.linestyle, markersize=4, label=shown(wrapped(label)))  # fmt: skip
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xticks(np.asarray(RECALL_LEVELS[::2]))  # labels every 0.2 (11 collide in a panel's cell), grid every 0.1
    ax.set_xticks(np.asarray(RECALL_LEVELS), minor=True)
    ax.grid(True, which="both", linewidth=0.4, alpha=0.5)
    legend_outside(ax, title=shown(wrapped(", ".join(map(str, groups)))) if groups else None)
    return ax
