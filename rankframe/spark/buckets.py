"""The grouped-pandas plumbing of the Spark face: which bucket a row goes to, and a frame Arrow takes back.

Shared by ``rankframe.spark.evaluate`` (the accuracy metrics), ``rankframe.spark.intent`` (the intent-aware family)
and ``rankframe.spark.fuse``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._compat import column


def to_spark_ready(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns with pandas extension dtypes (pandas 3's Arrow-backed ``str``, nullable ints) as object columns.

    PySpark's Arrow serializer expects numpy or object columns back from a grouped pandas function.
    """
    odd = [c for c in frame.columns if not isinstance(frame[c].dtype, np.dtype)]
    if not odd:
        return frame
    return frame.assign(**{c: frame[c].astype(object).where(frame[c].notna(), None) for c in odd})


def bucket_of(sdf: Any, unit: Sequence[str], buckets: int | None) -> Any:
    """The bucket of each row: a hash of its unit's columns modulo ``buckets`` (default: the shuffle partitions).

    A unit's rows share a bucket whatever the input partitioning; each bucket is one grouped-pandas call.
    """
    from pyspark.sql import functions as F

    if buckets is None:
        buckets = int(sdf.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    return F.pmod(F.xxhash64(*[column(u) for u in unit]), F.lit(int(buckets)))
