"""One local Spark session for every Spark test (local[2], 2 shuffle partitions, UI off, tuned for tiny plans).

The session starts once per test run (the JVM start is most of the Spark tests' time) and is never stopped by a
test. Without PySpark or Java the Spark tests skip with a reason pytest prints (``-ra``).
"""

from __future__ import annotations

import functools
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest


@functools.lru_cache(maxsize=1)
def _session():
    import tiers
    from pyspark.sql import SparkSession

    tiers.mark("jvm")  # the run fails when a second process starts one (tests/tiers.py: the 'spark' tier)
    # Tuned for many tiny plans, not big data: whole-stage code generation off and expressions interpreted (no Janino
    # compile per query), adaptive execution off, the JVM's quick JIT tier and serial GC.
    # test_spark_beyond.py::test_every_case_equals_evaluate under the same load (7-10): 531 s before, 230 s after
    # (measured with one shuffle partition; the suite keeps two).
    return (
        SparkSession.builder.master("local[2]")
        .appName("rankframe-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")  # two: aggregates see rows from two partitions
        .config("spark.default.parallelism", "2")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )


def session():
    """The shared session, or a skip saying why Spark cannot run here."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        pytest.skip('!!! PySpark is not installed: the Spark tests did NOT run (pip install "rankframe[spark]") !!!')
    if shutil.which("java") is None:
        pytest.skip("!!! no java on PATH: the Spark tests did NOT run (install openjdk-17-jre-headless) !!!")
    import tiers

    tiers.require("spark", "Spark")
    spark = _session()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def to_spark(spark, df: pd.DataFrame):
    """A Spark DataFrame of a pandas frame (PySpark's pandas-3 notice silenced)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
        return spark.createDataFrame(df)


def collect(sdf) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*PySpark does not yet fully support pandas.*")
        return sdf.toPandas()


def assert_same_rows(got: pd.DataFrame, expected: pd.DataFrame, keys: list[str], cols=("value",), tol=1e-12, msg=""):
    """Same key rows (compared as text, nulls as None) and values within ``tol`` (NaN equals NaN, inf equals inf)."""
    assert list(got.columns) == list(expected.columns), (list(got.columns), list(expected.columns))

    def norm(frame):
        frame = frame.reset_index(drop=True)
        text = pd.DataFrame({k: [None if pd.isna(v) else str(v) for v in frame[k]] for k in keys})
        order = text.fillna("\x00~null").sort_values(keys, kind="stable").index
        return text.loc[order].reset_index(drop=True), frame.loc[order].reset_index(drop=True)

    gk, g = norm(got)
    ek, e = norm(expected)
    assert len(g) == len(e), f"{len(g)} rows on Spark, {len(e)} in pandas {msg}\n{got}\n{expected}"
    pd.testing.assert_frame_equal(gk, ek, obj=f"keys {msg}")
    for c in cols:
        a, b = g[c].to_numpy(np.float64), e[c].to_numpy(np.float64)
        with np.errstate(invalid="ignore"):  # inf - inf: the same infinity is caught by a == b
            close = np.abs(a - b) <= tol * np.maximum(1.0, np.abs(b))
        bad = ~((np.isnan(a) & np.isnan(b)) | (a == b) | close)
        assert not bad.any(), f"column {c} differs {msg}\n{pd.concat([gk[bad], g[bad][[c]], e[bad][[c]]], axis=1)}"
