"""``rankframe.spark.anova``: the omnibus ANOVA and the system x segment interaction from Spark aggregates.

The ANOVA reduces to sufficient statistics per (segment, group, metric): the queries, each system's sum and count,
the sum of squared values and the sum of squared query sums (:func:`rankframe.stats.tukey.blocked_anova_from_sums`).
Spark computes them in one aggregation over the aligned per-query values (the ``missing=`` policy of
:func:`rankframe.spark.compare`); the driver turns them into the same tables as :func:`rankframe.anova`, through
the split-plot terms every engine shares (:func:`rankframe.stats.anova.split_plot_from_cells`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..anova import (
    EFFECT_SIZE,
    anova_frame,
    checked_arguments,
    one_group_error,
    pairs_frame,
    random_option,
)
from ..comparing.rules import check_system_series
from ..core.columns import Columns
from ..measures.arguments import check_level, parse_metrics
from ..measures.names import Measure
from ..measures.registry import POLICY_DEFAULTS
from ..stats.anova import split_plot_from_cells
from ..stats.tukey import blocked_anova_from_sums
from ._compat import column, pyspark
from .compare import aligned_wide, per_query_values, prepare_systems
from .evaluate import join_judgments, quiet

OWNER = "rankframe.spark.anova"

if TYPE_CHECKING:
    from ..measures.registry import Policy
    from ..stats.align import Missing


def anova(
    sdf: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    system: str | None = None,
    by: str | Sequence[str] | None = None,
    interaction: str | None = None,
    pairs: bool = False,
    random: str | None = None,
    ci: float = 0.95,
    missing: Missing = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    qrels_columns: Columns | dict | None = None,
    validate: bool = True,
    allow_duplicates: bool = False,
    no_relevant: Policy = POLICY_DEFAULTS["no_relevant"],
    no_retrieved: Policy = POLICY_DEFAULTS["no_retrieved"],
    no_judged: Policy = POLICY_DEFAULTS["no_judged"],
    buckets: int | None = None,
) -> pd.DataFrame:
    """The omnibus two-way ANOVA (and the system x segment interaction) of a Spark DataFrame's systems.

    The same table as :func:`rankframe.anova` (``pairs=True``: Sakai's effect size of every pair of systems), as a
    small pandas DataFrame; every per-query value stays in Spark, only (segment, group, metric) sums reach the
    driver. Sums of squares come from sufficient statistics (``sum x**2 - ...``): equal to the pandas face to about
    1e-12 of the values' squared size, and a residual below 1e-12 of it counts as 0.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        The long table with a system column.
    metrics, system, by, interaction, pairs, random, ci, missing, columns
        As for :func:`rankframe.anova` (``random="query"``: the REML variance components of the random query
        effect, from the same sums).
    qrels, qrels_columns, validate, allow_duplicates, no_relevant, no_retrieved, no_judged, buckets
        As for :func:`rankframe.spark.evaluate` (the judgments are joined with every system scored on every judged
        query, as :func:`rankframe.anova` joins them; a subtopic qrels serves the intent-aware measures).

    Raises
    ------
    ValidationError, ParameterError
        As :func:`rankframe.anova`.

    Examples
    --------
    >>> import rankframe.spark as rs                                  # doctest: +SKIP
    >>> rs.anova(sdf, ["AP", "nDCG@10"], interaction="length")         # doctest: +SKIP
    """
    pyspark()
    from pyspark.sql import functions as F

    with_random = random_option(random, pairs)
    level = check_level("anova", ci)
    system, by_list, cols, names, missing = checked_arguments(
        metrics, system=system, by=by, interaction=interaction, pairs=pairs, missing=missing, columns=columns
    )
    segs = [*by_list, *([interaction] if interaction else [])]
    policies: dict[str, str] = dict(no_relevant=no_relevant, no_retrieved=no_retrieved, no_judged=no_judged)
    measures = parse_metrics(names, "anova", face="anova")
    sdf, subtopics = join_judgments(  # every system on every judged query
        sdf, measures, cols, [*segs, system], qrels, qrels_columns, validate, allow_duplicates, OWNER
    )
    prepared = prepare_systems(sdf, names, segs, system, cols, validate, allow_duplicates, policies, buckets)
    found = prepared.found
    check_system_series(pd.Series(found, dtype=object), system, "anova")  # anova's words, as rankframe.anova
    per = per_query_values(sdf, names, prepared, validate, allow_duplicates, buckets, subtopics=subtopics)
    cols = prepared.cols
    aligned = aligned_wide(per, segs, cols.query, system, found, missing)
    if interaction:  # after the alignment, as the pandas face: its error comes first
        _check_one_group(per, by_list, interaction, cols.query)
    groups = aligned.present
    valid = [F.col(n).isNotNull() & ~F.isnan(F.col(n)) for n in aligned.sys_names]
    x0 = [F.when(v, F.col(n)).otherwise(F.lit(0.0)) for v, n in zip(valid, aligned.sys_names)]
    used = sum((F.when(v, 1).otherwise(0) for v in valid), F.lit(0)) > 0
    row_sum = sum(x0, F.lit(0.0))
    aggs = [
        F.sum(F.when(used, 1).otherwise(0)).alias("n"),
        F.sum(sum((x * x for x in x0), F.lit(0.0))).alias("sum_sq"),
        F.sum(row_sum * row_sum).alias("row_sq"),
    ]
    for j, (v, x) in enumerate(zip(valid, x0)):
        aggs += [F.sum(x).alias(f"s{j}"), F.sum(F.when(v, 1).otherwise(0)).alias(f"c{j}")]
    if missing != "error":
        flags = [F.when(F.col(h), 1).otherwise(0) for h in aligned.hole_names]
        aggs += [
            F.sum(sum(flags, F.lit(0))).alias("filled"),
            F.sum(F.when(F.col(aligned.drop_name), 1).otherwise(0)).alias("dropped"),
        ]
    with quiet():
        small = aligned.wide.groupBy(*[column(c) for c in segs], F.col("metric")).agg(*aggs).toPandas()

    n_groups, n_metrics, n_systems = len(groups), len(names), len(found)
    shape = (n_groups, n_metrics)
    n, sum_sq, row_sq = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    sums, counts = np.zeros((*shape, n_systems)), np.zeros((*shape, n_systems))
    if len(small):
        if segs:
            keys = groups[segs].copy()
            keys["__rf_group"] = np.arange(n_groups)
            g = small[segs].merge(keys, on=segs, how="left")["__rf_group"].to_numpy(np.int64)
        else:
            g = np.zeros(len(small), dtype=np.int64)
        m = pd.Index(names).get_indexer(small["metric"])
        n[g, m] = small["n"].to_numpy(np.float64)
        sum_sq[g, m] = small["sum_sq"].to_numpy(np.float64)
        row_sq[g, m] = small["row_sq"].to_numpy(np.float64)
        for j in range(n_systems):
            sums[g, m, j] = small[f"s{j}"].to_numpy(np.float64)
            counts[g, m, j] = small[f"c{j}"].to_numpy(np.float64)
    cell = blocked_anova_from_sums(n, sums, counts, sum_sq, row_sq)
    if interaction:  # groups sorted by (by..., interaction): the segments of by are runs of them
        outer = (
            groups.groupby(by_list, sort=False, dropna=False).ngroup().to_numpy(np.int64)
            if by_list
            else np.zeros(n_groups, dtype=np.int64)
        )
        first = np.concatenate([[0], np.flatnonzero(np.diff(outer)) + 1]) if n_groups else np.zeros(0, np.int64)
        keys_out = groups.iloc[first][by_list].reset_index(drop=True) if by_list else None
        n_segments = len(first)
    else:
        outer = np.arange(n_groups)
        keys_out = groups[by_list].reset_index(drop=True) if by_list else None
        n_segments = n_groups
    result = split_plot_from_cells(cell, outer, n_segments)
    if pairs:
        out = pairs_frame(result, keys_out, names, pd.Index(found), level)
        out.attrs.update(effect_size=EFFECT_SIZE, ci=level)
    else:
        out = anova_frame(result, keys_out, names, bool(interaction), with_random)
    out.attrs.update(missing=missing, interaction=interaction)
    if missing != "error":
        out.attrs.update(filled=int(small["filled"].sum()), dropped=int(small["dropped"].sum()))
    return out


def _check_one_group(per: Any, by: list[str], interaction: str, query: str) -> None:
    """Every query in one group of the interaction column, within its segment of ``by`` (anova's rule)."""
    from pyspark.sql import functions as F

    keys = [column(c) for c in [*by, query]]
    pairs = per.select(*keys, column(interaction)).distinct()
    twice = pairs.groupBy(*keys).agg(F.count(F.lit(1)).alias("__rf_groups")).filter(F.col("__rf_groups") > 1)
    count = twice.count()
    if count:
        with quiet():
            ex = pairs.join(twice.drop("__rf_groups"), on=[*by, query]).limit(6).toPandas()
        raise one_group_error(interaction, by, int(count), ex)
