"""``rankframe.spark.evaluate(qrels=...)``: the one join of a run with its judgments, as Spark joins.

:mod:`rankframe.join`'s rule (docs/decisions/0006-one-behaviour.md), computed where the data is.

The rule is :func:`rankframe.join_qrels`'s: a retrieved row takes the grade of its (query, item) judgment; with the
system column in ``by`` every system is scored on every judged query; a judged query no run row mentions is a unit
of null segments; every unit gets one row with a null rank/score per judged item it did not retrieve. The column
names of the judgments are :func:`rankframe.columns.judgment_columns`'s, its checks those of the pandas join
(:func:`rankframe.spark.validate` with ``table="qrels table", ranked=False``, the id kinds of
:func:`rankframe.join.check_id_kinds`). Nothing is collected but the checks' counts and examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.columns import Columns
from ..tables import inputs
from ..tables.join import check_id_kinds, check_run_without_grades
from ._compat import column, is_spark_frame, quiet
from .validate import _free_name
from .validate import validate as validate_table


def judgments_frame(sdf: Any, qrels: Any, qc: Columns) -> Any:
    """``qrels=`` as a Spark DataFrame: as given, or a pandas / Arrow / polars table handed to ``sdf``'s session."""
    if is_spark_frame(qrels):
        return qrels
    from .beyond import _to_spark

    frame = inputs.to_pandas(qrels, owner="rankframe.spark.evaluate", name="qrels", columns=qc)
    with quiet():
        return _to_spark(sdf.sparkSession, frame, "qrels")


def join_qrels(
    sdf: Any,
    qrels: Any,
    c: Columns,
    by: Sequence[str],
    qc: Columns,
    *,
    validate: bool = True,
    allow_duplicates: bool = False,
) -> Any:
    """The run ``sdf`` joined with the judgments ``qrels`` (named by ``qc``): the long table of the data model."""
    from pyspark.sql import functions as F

    check_run_without_grades(list(sdf.columns), c)
    qrels = judgments_frame(sdf, qrels, qc)
    if validate:
        validate_table(
            sdf, c, by=list(by), allow_duplicates=allow_duplicates, require_relevance=False, table="run table"
        )
        validate_table(qrels, qc, allow_duplicates=False, table="qrels table", ranked=False)
    # the id kinds (1 never equals '1'), read from one row of each side: the pandas rule and its message
    check_id_kinds(
        sdf.select(c.query, c.item).limit(1).toPandas(), qrels.select(qc.query, qc.item).limit(1).toPandas(), c, qc
    )
    judged = qrels.select(
        column(qc.query).alias(c.query), column(qc.item).alias(c.item), column(qc.relevance).alias(c.relevance)
    )
    # 1. grades of the retrieved rows
    retrieved = sdf.join(judged, on=[c.query, c.item], how="left")
    # 2. units: (system, described query); a described query is (segments..., query) as the run has it, plus each
    #    judged query no run row mentions, with null segments
    systems = [b for b in by if b == c.system]
    segments = [b for b in by if b != c.system]
    types = {f.name: f.dataType for f in sdf.schema.fields}
    described = sdf.select(*segments, c.query).distinct()
    unseen = judged.select(c.query).distinct().join(sdf.select(c.query).distinct(), on=c.query, how="left_anti")
    unseen = unseen.select(*[F.lit(None).cast(types[s]).alias(s) for s in segments], c.query)
    units = described.unionByName(unseen)
    if systems:
        units = sdf.select(*systems).distinct().crossJoin(units)
    # 3. every (unit, judgment of its query) pair, minus the pairs the unit retrieved (or listed with a null rank);
    #    null segments match null-safely
    pairs = units.join(judged, on=c.query, how="inner")
    keys = [*systems, *segments, c.query, c.item]
    renamed = {k: _free_name([*sdf.columns, *pairs.columns], f"__rankframe_k{i}") for i, k in enumerate(keys)}
    listed = sdf.select(*[column(k).alias(renamed[k]) for k in keys])
    cond = [column(k).eqNullSafe(column(renamed[k])) for k in keys]
    missing = pairs.join(listed, on=cond, how="left_anti")
    return retrieved.unionByName(missing, allowMissingColumns=True)
