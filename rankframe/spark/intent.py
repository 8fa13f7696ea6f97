"""``rankframe.spark.evaluate`` for the intent-aware diversity measures (docs/diversity.md): a subtopic ``qrels=``.

The subtopic qrels is read by the family's one reading (:func:`rankframe.engines.intent_engine.split_qrels`): a
pandas / Arrow / polars table on the driver by that function itself, before any Spark job; a Spark DataFrame by its
two rules (:data:`~rankframe.engines.intent_engine.NULL_SUBTOPIC`,
:data:`~rankframe.engines.intent_engine.REPEATED_SUBTOPIC`) as Spark jobs, and collapsed to the largest grade of each
(query, item) (what the join and every other metric read). The joined run and the subtopic judgments are keyed by
a hash of the query into ``buckets`` groups and meet per group (``cogroup(...).applyInPandas``): every unit of a
query and all its judgments in one group, which the pandas engine's own function
(:func:`rankframe.engines.intent_engine.evaluate`) computes. No second formula.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from ..core.columns import Columns
from ..core.errors import ValidationError
from ..engines import intent_engine
from ..intent.declare import from_qrels, needs_subtopics
from ..measures.names import Measure
from ..tables import inputs, units
from ..tables.rules import EXAMPLES, failure
from ._compat import column, is_spark_frame, quiet
from .buckets import bucket_of, to_spark_ready
from .validate import _free_name, _not_numeric, _null, _numeric, _repeated, _to_pandas, check_frame

OWNER = "rankframe.spark.evaluate"


def split_qrels(sdf: Any, qrels: Any, qc: Columns, measures: Sequence[Measure]) -> tuple[Any, Any]:
    """(the qrels the join reads, the subtopic judgments as a Spark DataFrame or None): ``split_qrels``'s rules.

    A table that is not a Spark DataFrame goes through the pandas function itself (no Spark job before its
    errors); a Spark DataFrame is checked by one count per rule and collapsed by one aggregation.
    """
    if not is_spark_frame(qrels):
        frame = inputs.to_pandas(qrels, owner=OWNER, name="qrels", columns=qc)
        collapsed, sub = intent_engine.split_qrels(frame, qc, measures)
        if sub is None:
            return collapsed, None
        from .beyond import _to_spark

        return collapsed, _to_spark(sdf.sparkSession, sub, "qrels")
    check_frame(qrels, "qrels table")
    present = list(qrels.columns)
    if qc.subtopic not in present:
        if from_qrels(measures):
            raise needs_subtopics(measures, qc.subtopic, present)
        return qrels, None
    null = _null(qc.subtopic, qrels.schema[qc.subtopic].dataType)
    failures = []
    if qc.relevance in present and not _numeric(qrels.schema[qc.relevance].dataType):  # never coerced to unjudged
        failures.append(_not_numeric(qrels, qc.relevance, "relevance", qrels.schema[qc.relevance].dataType))
    n_null = qrels.filter(null).count()
    if n_null:
        failures.append(
            failure(qc.subtopic, intent_engine.NULL_SUBTOPIC, int(n_null), qrels.filter(null).limit(EXAMPLES))
        )
    keys = [x for x in (qc.query, qc.subtopic, qc.item) if x in present]
    repeated = _repeated(qrels, keys, intent_engine.REPEATED_SUBTOPIC, qc.subtopic) if len(keys) == 3 else None
    if repeated is not None:
        failures.append(repeated)
    if failures:
        with quiet():
            for f in failures:
                if not hasattr(f["examples"], "to_string"):  # _not_numeric's examples are pandas already
                    f["examples"] = _to_pandas(f["examples"])
        raise ValidationError(failures, table="qrels table")
    if len(keys) < 3 or qc.relevance not in present:
        return qrels.drop(qc.subtopic), None  # the join names the missing column in its words
    from pyspark.sql import functions as F

    others = [x for x in present if x not in (qc.subtopic, qc.relevance)]
    grade = _grade(qrels, qc.relevance)
    top = F.max(F.when(~F.isnan(grade), grade)).alias(qc.relevance)  # NaN is unjudged: pandas' max skips it
    collapsed = qrels.groupBy(*[column(x) for x in others]).agg(top)
    collapsed = collapsed.select(*[column(x) for x in present if x != qc.subtopic])
    return collapsed, qrels.select(*[column(x) for x in (qc.query, qc.subtopic, qc.item, qc.relevance)])


def _grade(sdf: Any, name: str) -> Any:
    """A relevance column as doubles (a column that is not numeric was refused: ``split_qrels``)."""
    return column(name).cast("double")


def per_query_frame(
    sdf: Any,
    sub: Any,
    names: list[str],
    columns: Columns,
    by: list[str],
    order_col: str,
    policies: dict[str, str],
    buckets: int | None = None,
) -> Any:
    """Per-query values ``[*by, query, metric, value]`` of the family (a Spark DataFrame).

    ``sdf``: the joined, validated run; ``sub``: the subtopic judgments (columns named by ``columns``: the run's
    names, see :func:`rankframe.spark.evaluate`). Both are keyed by a hash of the query (never of the unit: a
    query's judgments serve every unit of the query) and cogrouped.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    c = columns
    unit = [*by, c.query]
    ids = list(dict.fromkeys([*unit, c.item]))
    taken = [*sdf.columns, *sub.columns]
    bucket = _free_name(taken, "__rankframe_bucket")
    given = [*ids, order_col, c.relevance, c.subtopic]
    plain = {name: _free_name(taken, f"__rankframe_c{i}") for i, name in enumerate(dict.fromkeys(given))}
    role = "rank" if order_col == c.rank else "score"
    inner = c.with_(
        query=plain[c.query], item=plain[c.item], relevance=plain[c.relevance], subtopic=plain[c.subtopic]
    ).with_(**{role: plain[order_col]})
    types = {f.name: f.dataType for f in sdf.schema.fields}
    run = sdf.select(
        *[column(name).alias(plain[name]) for name in ids],
        column(order_col).cast("double").alias(plain[order_col]),
        column(c.relevance).cast("double").alias(plain[c.relevance]),
        bucket_of(sdf, [c.query], buckets).alias(bucket),
    )
    judged = sub.select(  # the run's id types: one hash per query on both sides (check_id_kinds: same kinds)
        column(c.query).cast(types[c.query]).alias(plain[c.query]),
        column(c.subtopic).alias(plain[c.subtopic]),
        column(c.item).cast(types[c.item]).alias(plain[c.item]),
        _grade(sub, c.relevance).alias(plain[c.relevance]),
    )
    judged = judged.withColumn(bucket, bucket_of(judged, [plain[c.query]], buckets))
    schema = T.StructType(
        [
            *[T.StructField(plain[name], sdf.schema[name].dataType, sdf.schema[name].nullable) for name in unit],
            T.StructField("metric", T.StringType(), False),
            T.StructField("value", T.DoubleType(), True),
        ]
    )
    sub_names = [plain[c.query], plain[c.subtopic], plain[c.item], plain[c.relevance]]
    kernel = bucket_kernel(names, inner, [plain[b] for b in by], policies, bucket, sub_names)
    with quiet():
        out = run.groupBy(bucket).cogroup(judged.groupBy(bucket)).applyInPandas(kernel, schema)
    return out.select(*[F.col(plain[name]).alias(name) for name in unit], F.col("metric"), F.col("value"))


def bucket_kernel(
    names: list[str], columns: Columns, by: list[str], policies: dict[str, str], bucket: str, sub_names: list[str]
) -> Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]:
    """The function each cogrouped call runs: the pandas engine's intent-aware function on one bucket of queries."""
    out_names = [*by, columns.query, "metric", "value"]

    def kernel(run: pd.DataFrame, sub: pd.DataFrame) -> pd.DataFrame:
        from ..measures.names import parse

        if not len(run):  # judgments of no unit here (the join gives every judged query a unit: not expected)
            return pd.DataFrame({name: pd.Series([], dtype=object) for name in out_names})
        table = run.drop(columns=[bucket])
        judgments = sub[sub_names] if len(sub.columns) else pd.DataFrame({n: [] for n in sub_names})
        measures = [parse(n) for n in names]
        with units.shared():
            out = intent_engine.evaluate(table, measures, columns, by, policies, judgments)
        return to_spark_ready(out[out_names])

    return kernel
