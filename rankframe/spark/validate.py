"""The long table's rules checked as Spark jobs, with the wording of :func:`rankframe.validate`.

The table never travels to the driver: only counts and at most five example rows per broken rule. The rules'
words, example counts and class are declared in :mod:`rankframe.table_rules`; the checks here are Spark's.

Spark columns are typed, so the pandas rule "ids must all have one type" (``'1'`` next to ``1``) cannot break
here; ids must instead be atomic values (not arrays, maps or structs). NaN counts as null in numeric columns, as
it does in pandas (a NaN relevance is unjudged, a NaN rank is not retrieved).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.columns import Columns, column_list
from ..core.errors import ValidationError, check_unique_names, missing_columns_error
from ..tables.rules import (
    EXAMPLES,
    RULES,
    duplicate_item_rule,
    failure,
    missing_order_failure,
    nested_failure,
    not_numeric_failure,
    ranking_column,
    unique_rank_rule,
)
from ..tables.units import segment_guesses
from ._compat import column, is_spark_frame, pyspark, quote


def _numeric(dtype: Any) -> bool:
    from pyspark.sql import types as T

    return isinstance(dtype, T.NumericType)


def _floating(dtype: Any) -> bool:
    from pyspark.sql import types as T

    return isinstance(dtype, (T.DoubleType, T.FloatType))


def _atomic(dtype: Any) -> bool:
    from pyspark.sql import types as T

    return not isinstance(dtype, (T.ArrayType, T.MapType, T.StructType, T.BinaryType))


def _null(name: str, dtype: Any):
    from pyspark.sql import functions as F

    col = column(name)
    return (col.isNull() | F.isnan(col)) if _floating(dtype) else col.isNull()


def check_frame(sdf: Any, table: str = "ranking table") -> None:
    """A Spark DataFrame with unique column names (no job)."""
    if not is_spark_frame(sdf):
        raise ValidationError(
            [
                {
                    "column": "<table>",
                    "rule": f"expected a Spark DataFrame, got {type(sdf).__name__}",
                    "count": 0,
                    "examples": None,
                }
            ],
            table=table,
        )
    present = list(sdf.columns)
    check_unique_names(present, table)


def check_columns(
    sdf: Any,
    columns: Columns,
    by: Sequence[str],
    table: str = "ranking table",
    require_relevance: bool = True,
    ranked: bool = True,
) -> str:
    """Required columns present (no job); return the column that orders the lists.

    ``require_relevance=False``: a table for the beyond-accuracy metrics alone, which never read the grades.
    ``ranked=False``: judgments, without a rank or score column ("" is returned).
    """
    check_frame(sdf, table)
    c = columns
    present = list(sdf.columns)
    order_col = ranking_column(present, c)
    required = [c.query, c.item, *by, *([c.relevance] if require_relevance else [])]
    missing = [name for name in dict.fromkeys(required) if name not in present]
    if missing or (order_col is None and ranked):
        failures = missing_columns_error(missing, present, table).failures
        if order_col is None and ranked:
            failures.append(missing_order_failure(c.rank, c.score, present))
        raise ValidationError(failures, table=table)
    return order_col if ranked and order_col is not None else ""


def validate(
    sdf: Any,
    columns: Columns | dict | None = None,
    *,
    by: str | Sequence[str] | None = (),
    allow_duplicates: bool = False,
    table: str = "ranking table",
    require_relevance: bool = True,
    ranked: bool = True,
    scores: bool = False,
) -> None:
    """Check a Spark long table against every rule at once; raise one :class:`~rankframe.ValidationError`.

    Column presence and types are read from the schema (no job); value rules run as one aggregation, and the
    uniqueness rules ((unit, rank) and, unless ``allow_duplicates``, (unit, item)) as one grouped count each.
    Only the failures' counts and up to five example rows per rule reach the driver. ``require_relevance=False``
    (as :func:`rankframe.validate`): the relevance column is neither required nor checked; ``ranked=False`` (as
    :func:`rankframe.validate`): judgments, whose rank or score column is neither required nor checked;
    ``scores=True`` (as :func:`rankframe.validate`): the score column, when there is one, has the score rules even
    when ``rank`` orders the lists (a fusion method that adds the scores).
    """
    pyspark()
    from pyspark.sql import functions as F

    c = Columns.coerce(columns, function="validate")
    by = column_list(by, "validate")
    order_col = check_columns(sdf, c, by, table, require_relevance, ranked)
    types = {f.name: f.dataType for f in sdf.schema.fields}
    unit = [*by, c.query]
    failures: list[dict] = []
    rules: list[tuple[str, str, Any]] = []  # (column, rule, condition marking offending rows)
    for name in dict.fromkeys([c.query, c.item, *by]):
        found = types[name].simpleString()
        if not _atomic(types[name]) and found != "binary":
            failures.append(nested_failure(name, found))  # the wording of every road
        elif not _atomic(types[name]):
            failures.append({"column": name, "rule": RULES["binary"].message(column=name), "count": 0})
    for name in (c.query, c.item):
        rules.append((name, RULES["not_null"].message(), _null(name, types[name])))
    value_rules: list[tuple[str, str, str | None]] = []
    if require_relevance:
        value_rules.append((c.relevance, "relevance", RULES["relevance_finite"].message()))
    if order_col == c.rank:
        value_rules.append((c.rank, "rank", None))
    if order_col == c.score or (order_col and scores and c.score in types):
        value_rules.append((c.score, "score", RULES["score_finite"].message()))
    for name, word, finite_rule in value_rules:
        dtype = types[name]
        if not _numeric(dtype):
            failures.append(_not_numeric(sdf, name, word, dtype))
            continue
        col = column(name)
        if finite_rule is not None and _floating(dtype):
            rules.append((name, finite_rule, F.abs(col) == float("inf")))
        if name == c.rank:
            bad = col < 1
            if not isinstance(dtype, _integral_types()):
                bad = bad | (col != F.floor(col)) | (F.abs(col) == float("inf"))
                bad = bad & ~F.isnan(col)
            rules.append((name, RULES["rank_integer"].message(), bad))
    counts = sdf.agg(*[F.count(F.when(cond, 1)).alias(f"r{i}") for i, (_, _, cond) in enumerate(rules)]).first()
    for i, (name, rule, cond) in enumerate(rules):
        n = int(counts[i])
        if n:
            failures.append(failure(name, rule, n, sdf.filter(cond).limit(EXAMPLES)))
    if order_col == c.rank and _numeric(types[c.rank]):
        rank = column(c.rank)
        retrieved = sdf.filter(rank.isNotNull() & ~F.isnan(rank)) if _floating(types[c.rank]) else sdf
        retrieved = retrieved.filter(rank.isNotNull())
        dup = _repeated(retrieved, [*unit, c.rank], unique_rank_rule(unit), c.rank)
        if dup is not None:
            failures.append(dup)
    if not allow_duplicates:
        dup = _repeated(sdf, [*unit, c.item], duplicate_item_rule(c.item, by, c.query), c.item)
        if dup is not None:
            dup["rule"] = duplicate_item_rule(c.item, by, c.query, _separating_column(sdf, c, by))
            failures.append(dup)
    if failures:
        for f in failures:
            if f.get("examples") is not None and not hasattr(f["examples"], "to_string"):
                f["examples"] = _to_pandas(f["examples"])
        raise ValidationError(failures, table=table)


def _not_numeric(sdf: Any, name: str, word: str, dtype: Any) -> dict:
    """The "must be numeric" failure in every face's words (:func:`rankframe.table_rules.not_numeric_failure`).

    Its non-null rows are counted in one aggregation; those that do not parse as numbers are shown first (at most
    five rows reach the driver). ``try_cast``: under ANSI mode a plain cast of a bad string raises.
    """
    from pyspark.sql import functions as F

    col = column(name)
    unparsable = col.isNotNull() & F.expr(f"try_cast({quote(name)} AS DOUBLE)").isNull()
    row = sdf.agg(F.count(col), F.count(F.when(unparsable, 1))).first()
    count, bad = int(row[0]), int(row[1])
    examples = _to_pandas(sdf.filter(unparsable if bad else col.isNotNull()).limit(EXAMPLES))
    convert = f"F.col({quote(name)!r}).cast('double')"
    return not_numeric_failure(name, word, dtype.simpleString(), count, bad, examples, convert)


def _separating_column(sdf: Any, c: Columns, by: Sequence[str]) -> str | None:
    """The first other column that makes the repeated (unit, item) rows unique (the pandas rule), one job each."""
    from pyspark.sql import functions as F

    guesses = segment_guesses(list(sdf.columns), [c.query, c.item, c.rank, c.relevance, c.score], by, c.system)
    key = [column(k) for k in [*by, c.query, c.item]]
    for name in guesses:
        if not _atomic(sdf.schema[name].dataType):
            continue
        n = _free_name(sdf.columns, "__rankframe_n")
        repeated = sdf.groupBy(*key, column(name)).agg(F.count(F.lit(1)).alias(n)).filter(F.col(n) > 1)
        if not repeated.limit(1).count():
            return name
    return None


def _integral_types() -> tuple[type, ...]:
    from pyspark.sql import types as T

    return (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.DecimalType)


def _repeated(sdf: Any, key: list[str], rule: str, failing: str) -> dict | None:
    """Rows whose ``key`` appears more than once: their count (one grouped count) and up to five of them."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    n = _free_name(sdf.columns, "__rankframe_n")
    cols = [column(k) for k in key]
    counted = sdf.groupBy(*cols).agg(F.count(F.lit(1)).alias(n))
    total = counted.filter(F.col(n) > 1).agg(F.sum(n)).first()[0]
    if not total:
        return None
    marked = sdf.withColumn(n, F.count(F.lit(1)).over(Window.partitionBy(*cols)))
    examples = marked.filter(F.col(n) > 1).drop(n).limit(EXAMPLES)
    return failure(failing, rule, int(total), examples)


def _free_name(taken: Sequence[str], base: str) -> str:
    """``base`` with underscores added until no column of the table has the name."""
    name = base
    while name in taken:
        name += "_"
    return name


def _to_pandas(sdf: Any):
    """A handful of example rows as a pandas frame (for the message)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # PySpark's notice about pandas 3
        return sdf.toPandas()
