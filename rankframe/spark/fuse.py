"""``rankframe.spark.fuse``: :func:`rankframe.fuse` on a Spark DataFrame, computed where the data is.

The argument checks that need no data run on the driver before any job (:func:`rankframe.fusion.fuse.
check_options`); the systems-level ones on the distinct systems, one small aggregation collected to the driver
(:func:`~rankframe.fusion.fuse.check_systems`). Then every row is keyed by a hash of its query into ``buckets``
groups, and each group — many whole queries, every system of each — goes through :mod:`rankframe.fusion`'s own
reading of the runs and fused rows in one Arrow-batched grouped pandas function (``applyInPandas``), told the
whole table's systems so that a system a bucket lacks is an empty run there, as in pandas. The fused numbers are
``rankframe.fuse``'s by construction. See ``docs/fusion.md`` (section "Spark").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..comparing.rules import null_systems_error
from ..core.columns import Columns
from ..core.errors import ValidationError, missing_columns_error
from ..fusion.fuse import Plan, check_columns, check_one_scale, check_options, check_systems, fused_rows, table_rules
from ..fusion.fuse import score_ranges as run_score_ranges
from ..fusion.methods import PARAM_DEFAULTS
from ..fusion.runs import _failure, read_runs
from ..tables.rules import ranking_column
from ._compat import column, pyspark
from .buckets import bucket_of, to_spark_ready
from .evaluate import check_buckets, quiet
from .validate import _free_name, _null, _to_pandas, check_frame
from .validate import validate as validate_table

if TYPE_CHECKING:
    from ..fusion.methods import FuseMethod, FuseNorm

TABLE = "runs to fuse"


def fuse(
    sdf: Any,
    method: FuseMethod = "rrf",
    *,
    system: str | None = None,
    k: float = PARAM_DEFAULTS["k"],  # type: ignore[assignment]
    norm: FuseNorm | None = None,
    weights: Mapping[Any, float] | None = None,
    name: str | None = None,
    rank_base: int = PARAM_DEFAULTS["rank_base"],  # type: ignore[assignment]
    depth: int | None = None,
    phi: float = PARAM_DEFAULTS["phi"],  # type: ignore[assignment]
    gamma: float = PARAM_DEFAULTS["gamma"],  # type: ignore[assignment]
    sigma: float = PARAM_DEFAULTS["sigma"],  # type: ignore[assignment]
    columns: Columns | dict | None = None,
    buckets: int | None = None,
) -> Any:
    """Fuse the runs of a Spark long table into one run; the same rows and numbers as :func:`rankframe.fuse`.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        One row per (system, query, item), as for :func:`rankframe.fuse`. Never collected to the driver.
    method, system, k, norm, weights, name, rank_base, depth, phi, gamma, sigma, columns
        As for :func:`rankframe.fuse` (same defaults, checks and messages).
    buckets : int, optional
        Number of groups the queries are hashed into, each fused by one grouped-pandas call (default:
        ``spark.sql.shuffle.partitions``).

    Returns
    -------
    pyspark.sql.DataFrame
        The input rows, then the fused run's rows (``system == name``, the fused ``score``, and ``rank`` when the
        input has a rank column), in no particular order. ``score`` is a double column (added, null on the input
        rows, when the input has none); the other columns keep the input's types.

    Raises
    ------
    ParameterError, ValidationError
        As :func:`rankframe.fuse`, with the same messages, before the fusing job. A rule broken inside a run
        (a repeated item or rank, an infinite score) is found by the grouped function and reaches the driver
        as Spark's error carrying rankframe's message.
    """
    pyspark()
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    plan = check_options(
        method, system=system, k=k, norm=norm, weights=weights, name=name, rank_base=rank_base, depth=depth,
        phi=phi, gamma=gamma, sigma=sigma, columns=columns,
    )  # fmt: skip
    check_buckets(buckets, "rankframe.spark.fuse")
    c = plan.columns
    check_frame(sdf, TABLE)
    present = list(sdf.columns)
    check_columns(present, c)
    order_col = ranking_column(present, c)
    assert order_col is not None  # check_columns
    if not isinstance(sdf.schema[c.system].dataType, T.StringType):
        found = sdf.schema[c.system].dataType.simpleString()
        raise ValidationError(
            [{"column": c.system, "rule": f"on Spark the system column must be a string column (the fused run's "
              f"name is a string); found {found}: cast it, F.col({c.system!r}).cast('string')", "count": 0}],
            table=TABLE,
        )  # fmt: skip
    check_table(sdf, c, plan.reads_scores)
    systems = _systems(sdf, c, order_col)
    w = check_systems(systems, plan)

    # plain internal names inside the grouped-pandas steps (applyInPandas reads names unquoted); the caller's
    # names come back at the end
    plain = {col: f"__rankframe_c{i}" for i, col in enumerate(present)}
    roles = ("system", "query", "item", "rank", "score", "relevance")
    inner = c.with_(**{r: plain.get(getattr(c, r), getattr(c, r)) for r in roles})
    bucket = _free_name(present, "__rankframe_bucket")
    projected = sdf.select(
        *[column(col).alias(plain[col]) for col in present], bucket_of(sdf, [c.query], buckets).alias(bucket)
    ).groupBy(bucket)
    if plan.reads_scores:
        if c.score not in present:
            raise missing_columns_error([c.score], present, table=f"runs to fuse with {plan.method.name!r}")
        low, high, has_scores = _score_ranges(projected, inner, systems, plan, bucket)
        if not has_scores:
            raise ValidationError(
                [{"column": c.score, "rule": f"{plan.method.name!r} fuses scores: every retrieved row needs one",
                  "count": 0}],
                table=TABLE,
            )  # fmt: skip
        if plan.norm is None:
            check_one_scale(systems, low, high, plan.method, c)

    fields = [T.StructField(plain[f.name], f.dataType, True) for f in sdf.schema.fields]
    if c.score in present:
        fields[present.index(c.score)] = T.StructField(plain[c.score], T.DoubleType(), True)
    else:
        fields.append(T.StructField(inner.score, T.DoubleType(), True))
    integral = [f.name for f in fields if isinstance(f.dataType, T.IntegralType)]
    kernel = _fuse_kernel(replace(plan, columns=inner), systems, w, bucket, integral)
    with quiet():
        fused = projected.applyInPandas(kernel, T.StructType(fields))
    fused = fused.select(
        *[F.col(plain[col]).alias(col) for col in present],
        *([] if c.score in present else [F.col(inner.score).alias(c.score)]),
    )
    score = F.lit(None) if c.score not in present else column(c.score)
    rows = sdf.select(*[column(col) for col in present if col != c.score], score.cast("double").alias(c.score))
    rows = rows.select(*[column(col) for col in fused.columns])
    return rows.unionByName(fused)


def check_table(sdf: Any, c: Columns, reads_scores: bool) -> None:
    """:func:`rankframe.fusion.fuse.check_table` on a Spark frame, as Spark jobs.

    The null systems' rule, then the long table's rules with the same arguments
    (:func:`rankframe.fusion.fuse.table_rules`).
    """
    nulls = sdf.filter(column(c.system).isNull())
    count = nulls.count()
    if count:
        raise null_systems_error(c.system, count, _to_pandas(nulls.limit(5)))
    validate_table(sdf, c, **table_rules(list(sdf.columns), c, reads_scores))


def _systems(sdf: Any, c: Columns, order_col: str) -> list:
    """The table's systems, sorted, in one aggregation; the pandas face's errors for null or empty systems."""
    from pyspark.sql import functions as F

    ranked = ~_null(order_col, sdf.schema[order_col].dataType)
    counts = sdf.groupBy(column(c.system)).agg(F.count(F.when(ranked, 1)).alias("n")).collect()
    if any(row[0] is None for row in counts):
        nulls = sdf.filter(column(c.system).isNull())
        raise ValidationError(
            [{"column": c.system, "rule": "the system column must not be null", "count": nulls.count(),
              "examples": _to_pandas(nulls.limit(5))}],
            table=TABLE,
        )  # fmt: skip
    systems = sorted(row[0] for row in counts)
    empty = sorted(str(row[0]) for row in counts if row[1] == 0)
    if empty:
        raise _failure(
            c.system,
            f"system(s) {empty} rank nothing: every row has a null {order_col!r} (a run needs a score or a rank)",
        )
    return systems


def _score_ranges(grouped: Any, c: Columns, systems: list, plan: Plan, bucket: str) -> tuple[Any, Any, bool]:
    """Each system's smallest and largest retrieved score after ``depth``, and whether every run has scores.

    One grouped-pandas job reading the runs as :func:`rankframe.fuse` does; a row per (bucket, system) comes back.
    """
    from pyspark.sql import types as T

    depth = plan.params.get("depth")

    def kernel(pdf: pd.DataFrame) -> pd.DataFrame:
        runs = read_runs(pdf.drop(columns=[bucket]), c, depth, systems)
        low, high = run_score_ranges(runs)
        return pd.DataFrame({"code": np.arange(len(systems)), "low": low, "high": high, "ok": runs.has_scores})

    schema = T.StructType(
        [
            T.StructField("code", T.LongType()),
            T.StructField("low", T.DoubleType()),
            T.StructField("high", T.DoubleType()),
            T.StructField("ok", T.BooleanType()),
        ]
    )
    with quiet():
        small = grouped.applyInPandas(kernel, schema).toPandas()
    low = np.full(len(systems), np.inf)
    high = np.full(len(systems), -np.inf)
    code = small["code"].to_numpy(np.int64)
    np.minimum.at(low, code, small["low"].to_numpy(np.float64))
    np.maximum.at(high, code, small["high"].to_numpy(np.float64))
    return low, high, bool(small["ok"].all())


def _fuse_kernel(
    plan: Plan, systems: list, w: Any, bucket: str, integral: list[str]
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """The function each grouped-pandas call runs: the fused rows of one bucket of whole queries.

    ``plan.columns`` name the bucket's (internal) columns.
    """
    c = plan.columns
    depth = plan.params.get("depth")

    def kernel(pdf: pd.DataFrame) -> pd.DataFrame:
        frame = pdf.drop(columns=[bucket])
        out = fused_rows(frame, read_runs(frame, c, depth, systems), plan, w)
        out[c.score] = out[c.score].astype(np.float64)
        # Arrow hands a nullable integer column over as float64; give Spark integers back
        cast = {col: out[col].astype("Int64") for col in integral if out[col].dtype.kind == "f"}
        return to_spark_ready(out.assign(**cast))

    return kernel
