"""The one aggregation step shared by every engine: per-query values to one value per segment and metric.

``agg`` (``AGGREGATIONS``): the arithmetic mean (default), the geometric mean of trec_eval's ``gm_map`` /
``gm_bpref`` (``exp(mean(log(max(x, 1e-5))))``, trec_eval's ``MIN_GEO_MEAN``), the median, or the sum (trec_eval's
``num_*`` summary lines).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np
import pandas as pd


def order_per_query(per_query: pd.DataFrame, by: Sequence[str], query: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Sort per-query rows by segment, query, then metric in the order asked (a stable, documented order)."""
    rank = {m: i for i, m in enumerate(metrics)}
    # sort keys in a frame of our own with positional names, so no user column name can collide with them
    sort_keys = pd.DataFrame({i: per_query[c].to_numpy() for i, c in enumerate([*by, query])})
    sort_keys[len(sort_keys.columns)] = per_query["metric"].map(rank).astype(np.int64).to_numpy()
    order = sort_keys.sort_values(list(sort_keys.columns), kind="stable", na_position="last").index.to_numpy()
    return per_query.iloc[order].reset_index(drop=True)


#: pandas' default dtype for text (``str`` on pandas 3, ``object`` on 2.x): every engine's ``metric`` column has it,
#: empty or not, so the faces return identical frames
TEXT_DTYPE = pd.Series(["metric"]).dtype


def metric_labels(labels: object, index: pd.Index | None = None) -> pd.Series:
    """The ``metric`` column from an array of labels, in :data:`TEXT_DTYPE`."""
    return pd.Series(labels, index=index, dtype=TEXT_DTYPE)


#: the choices of ``agg=`` (its type)
Aggregation = Literal["mean", "gmean", "median", "sum"]
AGGREGATIONS: tuple[Aggregation, ...] = get_args(Aggregation)
#: trec_eval's MIN_GEO_MEAN: values are clamped to at least this before the log of the geometric mean
GMEAN_EPSILON = 1e-5


def mean_per_segment(
    per_query: pd.DataFrame, by: Sequence[str], metrics: Sequence[str], ci: float | None = None, agg: str = "mean"
) -> pd.DataFrame:
    """Mean over queries (NaN left out) per segment and metric, with ``n`` = the queries it averages.

    ``agg`` chooses another aggregation (``AGGREGATIONS``; NaN left out as well, NaN when ``n = 0``).

    Every (segment, metric) pair appears. With ``ci`` (a level in (0, 1)) the frame also has ``std_err`` =
    sd / sqrt(n) (sd with n - 1) and the t-interval ``ci_low, ci_high`` = mean -/+ t_{n-1, (1 + ci)/2} std_err
    (NaN when n < 2), the interval of ``scipy.stats.ttest_1samp(values).confidence_interval(ci)``.
    """
    by = list(by)
    if agg == "gmean":
        per_query = per_query.assign(value=np.log(np.maximum(per_query["value"].to_numpy(np.float64), GMEAN_EPSILON)))
    head = {"mean": "mean", "gmean": "mean", "median": "median", "sum": "sum"}[agg]
    stats: list = [head, "count", "std"] if ci is not None else [head, "count"]
    if not by:
        table = per_query.groupby("metric", sort=False)["value"].agg(stats).reindex(list(metrics))
        columns = {stat: table[stat].to_numpy(dtype=np.float64) for stat in stats}
        out = pd.DataFrame({"metric": list(metrics)})
    else:
        grouped = per_query.groupby([*by, "metric"], sort=False, observed=True, dropna=False)["value"].agg(stats)
        # one row per segment (sorted, nulls last), one column per (statistic, metric) in the order asked; no
        # MultiIndex is built from the segment values (pandas 2.2 fails on Arrow dictionary columns there)
        if grouped.empty:  # every unit was skipped by the policies: no segment to report
            out = pd.DataFrame({**{c: per_query[c].iloc[:0] for c in by}, "metric": metric_labels([])})
            columns = {stat: np.empty(0) for stat in stats}
        else:
            wide = grouped.unstack("metric").sort_index(na_position="last")
            columns = {s: wide[s].reindex(columns=list(metrics)).to_numpy(dtype=np.float64).ravel() for s in stats}
            rows = np.repeat(np.arange(len(wide)), len(metrics))
            out = wide.index.to_frame(index=False).iloc[rows].reset_index(drop=True)
            out["metric"] = metric_labels(np.tile(np.asarray(metrics, dtype=object), len(wide)), out.index)
    n = np.nan_to_num(columns["count"], nan=0.0).astype(np.int64)
    value = columns[head]
    if agg == "gmean":
        value = np.exp(value)
    elif agg == "sum":
        value = np.where(n > 0, value, np.nan)  # like the mean: nothing to aggregate is NaN, not 0
    out = out.assign(value=value, n=n)
    if ci is not None:
        from scipy import stats as st

        sd = columns["std"]
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.where(n >= 2, sd / np.sqrt(np.maximum(n, 1)), np.nan)
            half = st.t.ppf((1 + ci) / 2, np.maximum(n - 1, 1)) * se
        out = out.assign(std_err=se, ci_low=out["value"].to_numpy() - half, ci_high=out["value"].to_numpy() + half)
    return out.reset_index(drop=True)
