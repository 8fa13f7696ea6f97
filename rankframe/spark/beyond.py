"""The beyond-accuracy metrics on Spark: the portable warehouse SQL of :func:`rankframe.sql.render`, run by Spark.

One definition: every metric of the family with a portable statement (``rankframe/portable/beyond.py``) is one flat
SELECT of windows and aggregates, already held to ``rankframe.evaluate`` on DuckDB and PostgreSQL. Here the ranking
table and the extra inputs become temporary views under names of our own, with plain column names (``q``, ``i``,
``k``, ``s0``...), the statement is written for Spark SQL and ``spark.sql`` runs it where the data are. Nothing here
names a metric: a new metric with a portable statement is served as it is.

The inputs are checked with the rules of :func:`rankframe.evaluate` (declared in ``rankframe.beyond.input_rules``):
a pandas frame, Arrow table, polars frame or sequence by ``rankframe.engines.beyond_engine``'s functions, then handed
to Spark; a Spark DataFrame by Spark jobs that count the offending rows and bring at most five of them to the
driver, raising the same errors.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..beyond import input_rules as rules
from ..core.columns import Columns
from ..core.errors import ParameterError
from ..engines import beyond_engine as engine
from ..measures.names import Measure
from ._compat import column, is_spark_frame, quiet
from .validate import _floating, _null, _to_pandas

#: the plain names of the statement's columns (the caller's names come back at the end)
QUERY, ITEM, KEY, WEIGHT, VALUE, GRADE = "q", "i", "k", "w", "v", "g"
EXAMPLES = 5


@dataclass
class Inputs:
    """The extra inputs as Spark DataFrames with the statement's column names (None: not given).

    train= is ``(q, i, w)`` and features= ``(i, feature, v)``: the weight and the value 1 per row without the
    input's own column (``input_rules.optional_column``).
    """

    train: Any = None
    catalog: Any = None
    features: Any = None


def _kind(dtype: Any) -> str:
    """The kind of ids of a Spark column type, in the words of :func:`rankframe.units.id_kind`."""
    from pyspark.sql import types as T

    if isinstance(dtype, T.BooleanType):
        return "other"
    if isinstance(dtype, T.NumericType):
        return "number"
    if isinstance(dtype, T.StringType):
        return "text"
    return "other"


def _first(frame: Any, name: str) -> Any:
    """One non-null value of a column (a job that stops at the first row), or None."""
    row = frame.select(column(name)).where(column(name).isNotNull()).limit(1).collect()
    return row[0][0] if row else None


def _items_sample(sdf: Any, item: str) -> pd.Series:
    """One item id of the ranking table: what the pandas rules read of its item column (its kind, an example)."""
    value = _first(sdf, item)
    return pd.Series([] if value is None else [value], dtype=object if value is None else None)


def _where(name: str) -> str:
    """Where null rows are, on Spark (a Spark DataFrame has no row positions)."""
    return f"find them with .filter(F.col({name!r}).isNull())"


def _spark_ids(frame: Any, name: str, where: str, nulls: int, sdf: Any, item: str) -> None:
    """The id rules of a Spark input's id column: no nulls (counted already), the ranking table's kind of ids."""
    if nulls:
        raise rules.null_ids_error(where, nulls, _where(name))
    mine, theirs = _kind(frame.schema[name].dataType), _kind(sdf.schema[item].dataType)
    if rules.kinds_clash(mine, theirs):
        raise rules.id_kind_error(where, mine, theirs, _first(frame, name), _first(sdf, item), item)


def _number_bad(name: str, dtype: Any, nonnegative: bool) -> Any:
    """The rows whose value is not a finite number (and, for a weight, >= 0)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if not isinstance(dtype, T.NumericType):
        return F.lit(True)
    col = column(name)
    bad = col.isNull()
    if _floating(dtype):
        bad = bad | F.isnan(col) | (F.abs(col) == float("inf"))
    return (bad | (col < 0)) if nonnegative else bad


def _spark_catalog(catalog: Any, sdf: Any, item: str) -> Any:
    from pyspark.sql import functions as F

    if len(catalog.columns) != 1:
        raise rules.catalog_columns_error(list(catalog.columns))
    name = catalog.columns[0]
    dtype = catalog.schema[name].dataType
    row = catalog.agg(F.count(F.lit(1)), F.count(F.when(_null(name, dtype), 1)), F.countDistinct(column(name))).first()
    if not row[0]:
        raise rules.empty_error("catalog")
    _spark_ids(catalog, name, rules.where("catalog", item), int(row[1]), sdf, item)
    if row[2] < row[0]:
        repeated = catalog.groupBy(column(name)).count().where(F.col("count") > 1).limit(EXAMPLES).collect()
        raise rules.repeated_catalog_error(int(row[0] - row[2]), [r[0] for r in repeated])
    return catalog.select(column(name).alias(ITEM))


def _spark_long(name: str, frame: Any, columns: Columns, sdf: Any) -> Any:
    """train= or features= as a Spark DataFrame: evaluate's rules (check_train, check_features) counted by one job.

    Returns ``(q, i, w)`` for train= and ``(i, feature, v)`` for features=, the optional column 1 without its own.
    """
    from pyspark.sql import functions as F

    if name == "features" and columns.item == rules.FEATURE:
        raise rules.feature_is_item_error()
    wanted = rules.id_columns(name, columns.query, columns.item)
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise rules.input_columns_error(name, wanted, missing, list(frame.columns))
    types = {f.name: f.dataType for f in frame.schema.fields}
    other = columns.query if name == "train" else rules.FEATURE  # the id column beside the item
    optional = rules.optional_column(name, list(frame.columns), columns.query, columns.item)
    bad = F.lit(False) if optional is None else _number_bad(optional, types[optional], name == "train")
    row = frame.agg(
        F.count(F.lit(1)),
        F.count(F.when(_null(other, types[other]), 1)),
        F.count(F.when(_null(columns.item, types[columns.item]), 1)),
        F.count(F.when(bad, 1)),
    ).first()
    if not row[0]:
        raise rules.empty_error(name)
    if row[1] and name == "train":
        raise rules.null_train_query_error(other, int(row[1]), _where(other))
    if row[1]:
        raise rules.null_feature_error(int(row[1]), _where(other))
    _spark_ids(frame, columns.item, rules.where(name, columns.item), int(row[2]), sdf, columns.item)
    if row[3]:
        shown = _to_pandas(frame.where(bad).select(*[column(c) for c in [*wanted, str(optional)]]).limit(EXAMPLES))
        raise rules.bad_number_error(name, int(row[3]), shown.to_string())
    if name == "features":
        pairs = frame.groupBy(*[column(c) for c in wanted]).count().where(F.col("count") > 1)
        repeated = pairs.agg(F.sum("count")).first()[0]
        if repeated:
            shown = _to_pandas(pairs.select(*[column(c) for c in wanted]).limit(EXAMPLES))
            raise rules.repeated_pairs_error(int(repeated), shown.to_string())
    number = F.lit(1.0) if optional is None else column(optional).cast("double")
    if name == "train":
        return frame.select(column(columns.query).alias(QUERY), column(columns.item).alias(ITEM), number.alias(WEIGHT))
    return frame.select(column(columns.item).alias(ITEM), column(rules.FEATURE), number.alias(VALUE))


def _to_spark(spark: Any, frame: pd.DataFrame, name: str) -> Any:
    """A checked pandas input as a Spark DataFrame (ids of one type: the checks refused the others)."""
    try:
        with quiet():
            return spark.createDataFrame(frame)
    except Exception as err:  # PySpark's type inference: an object column of several types
        raise ParameterError(
            f"{name}= could not be handed to Spark ({type(err).__name__}: {str(err).splitlines()[0]}); give each "
            "column values of one type, or pass a Spark DataFrame",
            parameter=name,
        ) from None


def inputs(
    sdf: Any, columns: Columns, *, train: Any, catalog: Any, features: Any, measures: Sequence[Measure] = ()
) -> Inputs:
    """The extra inputs checked with evaluate's rules and ready for the statement (see the module docstring).

    ``measures``: the metrics asked, for the rule of those reading each query's history (train='s query ids of the
    ranking table's kind).
    """
    spark = sdf.sparkSession
    out = Inputs()
    sample = None

    def items() -> pd.Series:
        nonlocal sample
        if sample is None:
            sample = _items_sample(sdf, columns.item)
        return sample

    if catalog is not None:
        if is_spark_frame(catalog):
            out.catalog = _spark_catalog(catalog, sdf, columns.item)
        else:
            ids = engine.check_catalog(catalog, items(), columns.item)
            out.catalog = _to_spark(spark, pd.DataFrame({ITEM: ids.to_numpy()}), "catalog")
    if train is not None:
        if is_spark_frame(train):
            out.train = _spark_long("train", train, columns, sdf)
        else:
            frame = engine.check_train(train, columns, items())
            plain = {QUERY: engine.QUERY, ITEM: engine.ITEM, WEIGHT: engine.WEIGHT}
            out.train = _to_spark(spark, pd.DataFrame({k: frame[v].to_numpy() for k, v in plain.items()}), "train")
    if features is not None:
        if is_spark_frame(features):
            out.features = _spark_long("features", features, columns, sdf)
        else:
            frame = engine.check_features(features, columns, items())
            plain = {ITEM: engine.ITEM, rules.FEATURE: engine.FEATURE, VALUE: engine.VALUE}
            out.features = _to_spark(
                spark, pd.DataFrame({k: frame[v].to_numpy() for k, v in plain.items()}), "features"
            )
    readers = [str(m) for m in measures if getattr(m.spec, "history", False)]
    if out.train is not None and readers:
        mine, theirs = _kind(out.train.schema[QUERY].dataType), _kind(sdf.schema[columns.query].dataType)
        if rules.kinds_clash(mine, theirs):
            raise rules.history_kind_error(
                readers, columns.query, mine, theirs, _first(out.train, QUERY), _first(sdf, columns.query)
            )
    return out


def values(
    sdf: Any,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    order_col: str,
    policies: dict[str, str],
    given: Inputs,
) -> tuple[Any, pd.DataFrame | None]:
    """(the per-list values as a Spark DataFrame ``[*by, query, metric, value]`` or None, the set-level rows).

    The set-level rows ``[*by, metric, value, n]`` are a small pandas frame (one row per segment and metric), or
    None without a set-level metric. Each part is one statement of :func:`rankframe.sql.render` run by
    ``spark.sql`` over temporary views (dropped at the end; the per-list frame keeps its analysed plan).
    """
    from pyspark.sql import functions as F

    from ..beyond.arguments import is_set_level
    from ..warehouse.render import render

    spark = sdf.sparkSession
    segs = [f"s{j}" for j in range(len(by))]

    def plain(name: str, alias: str) -> Any:  # NaN is null in rankframe's numeric columns (the validation's rule)
        col = column(name)
        if _floating(sdf.schema[name].dataType):
            col = F.when(~F.isnan(col), col)
        return col.alias(alias)

    role = "rank" if order_col == columns.rank else "score"
    table = sdf.select(
        *[plain(b, s) for b, s in zip(by, segs)],
        column(columns.query).alias(QUERY),
        column(columns.item).alias(ITEM),
        plain(order_col, KEY),
        *([plain(columns.relevance, GRADE)] if engine.reads_relevance(measures) else []),  # Serendipity
    )
    tag = uuid.uuid4().hex
    views = {"table": table, "train": given.train, "catalog": given.catalog, "features": given.features}
    names = {key: f"rankframe_{key}_{tag}" for key, frame in views.items() if frame is not None}
    for key, name in names.items():
        views[key].createOrReplaceTempView(name)

    def statement(asked: list[Measure], per_query: bool) -> Any:
        # each statement names the inputs its metrics read (render refuses an input no metric reads)
        reads = {name for m in asked for name in m.spec.needed(m.kw)}  # type: ignore[attr-defined]

        def view(key: str) -> str | None:
            return names.get(key) if key in reads else None

        sql = render(
            asked,
            dialect="spark",
            table=names["table"],
            by=segs,
            per_query=per_query,
            columns={"query": QUERY, "item": ITEM, role: KEY, "relevance": GRADE},
            order_by=role,
            train=view("train"),
            catalog=view("catalog"),
            features=view("features"),
            train_weight=WEIGHT if "train" in reads else None,
            features_value=VALUE if "features" in reads else None,
            ideal_depth=None,  # the intent-aware family's option (render's **policies may not fill it)
            **policies,
        )
        return spark.sql(sql)

    try:
        per_list = [m for m in measures if not is_set_level(m)]
        sets = [m for m in measures if is_set_level(m)]
        lists = None
        if per_list:
            out = statement(per_list, True)
            lists = out.select(
                *[F.col(s).alias(b) for s, b in zip(segs, by)],
                F.col(QUERY).alias(columns.query),
                F.col("metric"),
                F.col("value").cast("double").alias("value"),
            )
        rows = None
        if sets:
            with quiet():
                rows = statement(sets, False).toPandas()
            rows.columns = [*by, "metric", "value", "n"]
            rows["value"] = rows["value"].astype("float64")
            rows["n"] = rows["n"].astype("int64")
    finally:  # a classic DataFrame keeps its analysed plan; Spark Connect's reads the views when it runs
        if not type(sdf).__module__.startswith("pyspark.sql.connect"):
            for name in names.values():
                spark.catalog.dropTempView(name)
    return lists, rows
