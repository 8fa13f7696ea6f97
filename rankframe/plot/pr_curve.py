"""Interpolated precision–recall curve: trec_eval's 11-point ``iprec_at_recall``, one line per system.

For a query with ``R`` relevant items, the interpolated precision at recall level ``r`` is the highest precision
at any rank from the one where recall reaches ``r`` on; as in trec_eval, "recall reaches r" means the run has
retrieved ``need(r) = floor(r * R + 0.9)`` relevant items (so 0.7 of 3 relevant is reached with 2)::

    iprec(r) = max { P@i : rel_so_far(i) >= need(r) },   0 when fewer than need(r) are retrieved,

at ``r`` = 0.0, 0.1, ..., 1.0 (trec_eval's ``iprec_at_recall_0.00 ... _1.00``), averaged over the queries of
each group. Query-set rules as rankframe's defaults (= ``trec_eval -c``): a judged query a run did not
retrieve counts 0, a query without relevant items counts 0, a query without judgments is skipped.
Computed without a loop per query: precision and recall are running sums over the ranked lists of
:func:`rankframe.prepare.prepare`, the interpolation a segmented suffix maximum.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..columns import Columns
from ..errors import ParameterError, parameter_error
from ._common import as_names, axes, label_of, need_columns, pyplot

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
    from ..join import join_qrels
    from ..prepare import prepare
    from ..schema import validate as validate_table

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
            raise ParameterError(f"iprec_at_recall: the column {c!r} cannot be a group (an output column or the query)")
    if qrels is not None:
        df = join_qrels(df, qrels, columns, groups, validate=validate, allow_duplicates=allow_duplicates)
    if validate:
        validate_table(df, columns, by=groups, allow_duplicates=allow_duplicates)
    p = prepare(df, columns, groups)
    n_ret = np.diff(p.offsets)
    relevant = np.nan_to_num(p.grade, nan=0.0) >= rel
    n_rel = np.bincount(p.judged_group[p.judged_grade >= rel], minlength=p.n).astype(np.float64)
    running = np.cumsum(relevant)
    before = np.concatenate([[0], running])[p.offsets[:-1]]
    so_far = running - np.repeat(before, n_ret)
    precision = so_far / p.pos
    # suffix maximum of precision within each list: reversed, lists shifted apart (precision <= 1 < 2)
    shift = 2.0 * (p.n - p.group[::-1])
    best_after = (np.maximum.accumulate(precision[::-1] + shift) - shift)[::-1]
    levels = np.asarray(RECALL_LEVELS)
    # trec_eval: level r is reached at the need(r)-th relevant item, need(r) = (long)(r * R + 0.9)
    need = np.floor(levels[None, :] * n_rel[:, None] + 0.9).astype(np.int64)  # (units, 11)
    rel_at = np.flatnonzero(relevant)  # list positions of the relevant retrieved items, unit by unit
    rel_ret = np.bincount(p.group[rel_at], minlength=p.n)
    first_rel = np.concatenate([[0], np.cumsum(rel_ret)])[:-1]
    reached = (n_rel[:, None] > 0) & (need <= rel_ret[:, None]) & (n_ret[:, None] > 0)
    nth = rel_at[np.clip(first_rel[:, None] + need - 1, 0, max(len(rel_at) - 1, 0))] if len(rel_at) else need * 0
    at = np.where(need == 0, p.offsets[:-1, None], nth)  # need 0: the whole list
    table = np.zeros(need.shape)
    if len(best_after):
        table = np.where(reached, best_after[np.clip(at, 0, len(best_after) - 1)], 0.0)
    keep = p.n_judged > 0  # no judgment at all: skipped (no_judged="skip")
    units_frame = p.units.loc[keep].reset_index(drop=True)
    table = table[keep]
    out = units_frame.loc[np.repeat(np.arange(len(units_frame)), len(levels))].reset_index(drop=True)
    out["recall"] = np.tile(levels, len(units_frame))
    out["precision"] = table.ravel()
    if per_query:
        return out
    if groups:
        mean = out.groupby([*groups, "recall"], sort=False, dropna=False, observed=True)["precision"].agg(
            ["mean", "size"]
        )
        mean = mean.reset_index().rename(columns={"mean": "precision", "size": "n"})
    else:
        mean = out.groupby("recall", sort=False)["precision"].agg(["mean", "size"]).reset_index()
        mean = mean.rename(columns={"mean": "precision", "size": "n"})
    mean["n"] = mean["n"].astype(np.int64)
    return mean


def pr_curve(
    data: pd.DataFrame,
    *,
    by: str | list[str] | None = None,
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
            raise ParameterError("pr_curve: qrels= and the options apply to a long table, not to computed points")
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
        raise ParameterError("pr_curve: no query to draw (no judged query in the table)")
    ax = axes(ax, "pr_curve", figsize=(5.2, 4.4))
    parts = points.groupby(groups, sort=False, dropna=False) if groups else [((), points)]
    for key, g in parts:
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values("recall")
        ax.plot(g["recall"].to_numpy(float), g["precision"].to_numpy(float), marker="o", markersize=3,
                label=label_of(key) if key else "all queries")  # fmt: skip
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xticks(np.asarray(RECALL_LEVELS))
    ax.grid(True, linewidth=0.4, alpha=0.5)
    ax.legend(title=", ".join(groups) if groups else None, loc="upper right")
    return ax
