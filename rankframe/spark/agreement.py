"""``rankframe.spark.agreement``: Cohen's kappa per segment from label counts computed in Spark.

Spark counts the units of each (segment, label a, label b) cell in one aggregation; the driver reads that small
contingency table (segments x labels**2 rows) with the rules of :func:`rankframe.agreement.kappa_cells`, so the
table, the notes and the errors are pandas'. The two-coder form only, without ``ci=`` (the bootstrap over queries
is pandas-only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..agreement import (
    KAPPA_COLUMNS,
    check_segments,
    join_notes,
    kappa_arguments,
    kappa_cells,
)
from ..core.columns import Columns, column_list
from ..core.errors import ValidationError, missing_columns_error, parameter_error
from ..tables.rules import RULES
from ._compat import column, is_spark_frame, pyspark, quiet

COUNT = "__rf_count"


def agreement(
    sdf: Any,
    a: str | None = None,
    b: str | None = None,
    *,
    by: str | Sequence[str] | None = None,
    weights: str | None = None,
    labels: Sequence[float] | None = None,
    rel: float | None = None,
    columns: Columns | dict | None = None,
) -> pd.DataFrame:
    """:func:`rankframe.agreement`'s two-coder table (``n``, ``agreement``, ``kappa``, ``note``) of a Spark DataFrame.

    Examples
    --------
    >>> import rankframe.spark as rs  # doctest: +SKIP
    >>> rs.agreement(sdf, a="human", b="llm", by="topic", weights="quadratic")  # doctest: +SKIP
    """
    pyspark()
    from pyspark.sql import functions as F

    if not is_spark_frame(sdf):
        raise parameter_error("rankframe.spark.agreement", "sdf", "a Spark DataFrame", type(sdf).__name__)
    a_, b_, w, scale, threshold = kappa_arguments(a, b, weights, labels, rel)
    segs = column_list(by, "agreement")
    cols = Columns.coerce(columns, function="agreement")
    check_segments(segs, [a_, b_], KAPPA_COLUMNS)
    table = "agreement table"
    present = list(sdf.columns)
    missing = [c for c in dict.fromkeys([a_, b_, *segs]) if c not in present]
    if missing:
        raise missing_columns_error(missing, present, table=table)
    with quiet():
        if cols.query in present and cols.item in present:
            key = [*segs, cols.query, cols.item]
            twice = sdf.groupBy(*[column(c) for c in key]).count().filter(F.col("count") > 1).limit(5).toPandas()
            if len(twice):
                words = RULES["unique_item"].message(column=cols.item, unit=[*segs, cols.query], hint=False)
                raise ValidationError(
                    [{"column": cols.item, "rule": words, "count": len(twice), "examples": twice[key]}], table
                )
        cells = sdf.groupBy(*[column(c) for c in (*segs, a_, b_)]).agg(F.count(F.lit(1)).alias(COUNT)).toPandas()
    if len(cells) == 0:
        raise ValidationError([{"column": a_, "rule": "the table is empty: no unit to compare", "count": 0}], table)
    count = cells[COUNT].to_numpy(np.float64)
    kc = kappa_cells(cells.drop(columns=COUNT), a_, b_, segs, w, scale, threshold, table, count=count)
    out = kc.out
    out["note"] = pd.Series(join_notes(*kc.notes), dtype=object)
    out.attrs.update(kc.attrs)
    return out
