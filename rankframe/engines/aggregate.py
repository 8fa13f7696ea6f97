"""The one aggregation step shared by every engine: mean of per-query values per segment and metric."""

from __future__ import annotations

from collections.abc import Sequence

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


def mean_per_segment(per_query: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean over queries (NaN left out) per segment and metric; every (segment, metric) pair appears."""
    by = list(by)
    if not by:
        means = per_query.groupby("metric", sort=False)["value"].mean()
        return pd.DataFrame({"metric": list(metrics), "value": [float(means.get(m, np.nan)) for m in metrics]})
    grouped = per_query.groupby([*by, "metric"], sort=False, observed=True, dropna=False)["value"].mean()
    table = grouped.unstack("metric").reindex(columns=list(metrics)).sort_index(na_position="last")
    n_metrics = len(metrics)
    segments = table.index.to_frame(index=False).loc[np.repeat(np.arange(len(table)), n_metrics)]
    return segments.reset_index(drop=True).assign(
        metric=np.tile(np.asarray(metrics, dtype=object), len(table)), value=table.to_numpy().ravel())
