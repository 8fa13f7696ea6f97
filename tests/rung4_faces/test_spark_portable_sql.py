"""``rankframe.sql.render(..., dialect="spark")`` runs on a local Spark session (spark.sql over a temporary view)
with ``rankframe.evaluate``'s numbers, per query and per segment (slow: the Spark group)."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from portable_cases import POLICY_SETS, assert_same, expected, order_by_of
from sparkutil import collect, session
from strategies import SMALL_GRADES, by_of, tables

import rankframe.sql

pytestmark = pytest.mark.spark
#: the ideal product, a running max, judged_only's positions, tie groups):
#: every metric on Spark took 20 s a table
METRICS = [
    "P@2",
    "R(denominator='min_k')@2",
    "AP",
    "RR(rel=2)@3",
    "Success@3",
    "Rprec@2",
    "nDCG(gain='exponential', ideal='retrieved')@3",
    "ERR@3",
    "NumRel(rel=2)",
    "SetF(beta=2)",
    "nERR(ideal='retrieved')@3",
    "Bpref@3",
    "IPrec@0.5",
    "infAP",
    "AP(judged_only=True)",
    "nDCG(ties='average', judged_only=True)@3",
]


def _spark_frame(spark, df: pd.DataFrame):
    """The table with real NULLs (a NaN double is not NULL in Spark), every column typed from pandas."""
    from pyspark.sql import types as T

    def kind(s: pd.Series):
        if pd.api.types.is_integer_dtype(s):
            return T.LongType()
        if pd.api.types.is_float_dtype(s):
            return T.DoubleType()
        return T.StringType()

    schema = T.StructType([T.StructField(c, kind(df[c]), True) for c in df.columns])
    rows = [tuple(None if pd.isna(v) else v for v in rec) for rec in df.astype(object).itertuples(index=False)]
    return spark.createDataFrame(rows, schema)


@settings(max_examples=hypothesis_examples(2))
@given(df=tables(grades=SMALL_GRADES, dtypes=False), per_query=st.booleans(), policies=st.sampled_from(POLICY_SETS))
def test_spark_sql_equals_evaluate(df, per_query, policies):
    spark = session()
    _spark_frame(spark, df).createOrReplaceTempView("runs")
    by = by_of(df)
    sql = rankframe.sql.render(
        METRICS, dialect="spark", by=by, per_query=per_query, order_by=order_by_of(df), **policies
    )
    assert_same(expected(df, METRICS, by, per_query, policies), collect(spark.sql(sql)))
