"""Spark SQL (JVM-native, no Python worker) per-query values for P, R, AP, RR and nDCG with default options.

Built to measure option (a) of ``docs/decisions/0009-spark-engine.md`` against the grouped-pandas engine, which
was faster; it was ``rankframe.spark.evaluate(engine="sql")`` until issue 20 retired it from the library (a third
formula set for five metrics). ``bench/spark.py --engines sql`` still times it through :func:`evaluate_sql`. It
follows the definitions of ``docs/metrics.md`` and the numpy kernels line for line:

- positions: ``row_number()`` over each unit's retrieved rows ordered by rank (or by score descending, then the
  item id as text descending: trec_eval's tie-break);
- hit: grade >= rel; ``P@k = hits@k / k``; ``R@k = hits@k / |R|``; ``AP@k = sum over hits in the top k of
  (hits so far / position) / |R|``; ``RR@k = 1 / first hit position <= k``;
- ``nDCG@k = DCG@k / IDCG@k`` with gain ``max(g, 0)`` (linear) and the ideal list of every judged row's gain
  (``ideal="judged"``), discount ``1 / log2(position + 1)``;
- the query-set policies (no_judged, no_retrieved, no_relevant) exactly as the numpy engine applies them.

Any other metric or option raises a :class:`~rankframe.ParameterError` naming the default engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rankframe.core.columns import Columns
from rankframe.core.errors import ParameterError
from rankframe.measures.names import Measure
from rankframe.spark._compat import column
from rankframe.spark.validate import _free_name

#: the metrics and the only option values the SQL engine takes (``rel`` and ``k`` are free)
SUPPORTED = {
    "precision": {"denominator": "k"},
    "recall": {"denominator": "relevant"},
    "ap": {"denominator": "relevant"},
    "rr": {},
    "ndcg": {"gain": "linear", "ideal": "judged"},
}


def check_supported(measures: Sequence[Measure]) -> None:
    """Raise a ParameterError for a metric or an option value the SQL plan does not implement."""
    for m in measures:
        fixed = SUPPORTED.get(m.spec.name)
        # every other option (judged_only, gains, log_base, ties, ...) at its declared default too
        defaults = {p.name: p.default for p in m.spec.params if p.name not in ("k", "rel")}
        if fixed is None or any(m.kw.get(k) != v for k, v in {**defaults, **fixed}.items()):
            raise ParameterError(
                f"bench/spark_sql.py computes P, R, AP, RR and nDCG with their default "
                f"options only; {str(m)!r} needs engine='pandas' (the default, every metric and option)"
            )


def per_query_sql(
    sdf: Any, measures: Sequence[Measure], columns: Columns, by: list[str], order_col: str, policies: dict[str, str]
) -> Any:
    """Per-query values ``[*by, query, metric, value]`` as one Spark SQL plan (windows + one aggregation)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    check_supported(measures)
    c = columns
    unit = [column(u) for u in [*by, c.query]]
    name = {key: _free_name(sdf.columns, f"__rf_{key}") for key in ("g", "o", "pos", "cum", "t")}
    g = F.col(name["g"])
    order = column(order_col).cast("double")
    t = sdf.select(
        *unit,
        F.when(~F.isnan(column(c.relevance).cast("double")), column(c.relevance).cast("double")).alias(name["g"]),
        F.when(~F.isnan(order), order).alias(name["o"]),
        *([column(c.item).cast("string").alias(name["t"])] if order_col != c.rank else []),
    )
    o = F.col(name["o"])
    if order_col == c.rank:
        ranked = Window.partitionBy(*unit).orderBy(o.asc_nulls_last())
    else:
        ranked = Window.partitionBy(*unit).orderBy(o.desc_nulls_last(), F.col(name["t"]).desc())
    t = t.withColumn(name["pos"], F.when(o.isNotNull(), F.row_number().over(ranked)))
    pos = F.col(name["pos"])
    rels = sorted({m.kw["rel"] for m in measures if m.kw.get("rel") is not None}, key=float)
    ndcg_rels = sorted({m.kw["rel"] for m in measures if m.spec.name == "ndcg"}, key=lambda r: (r is not None, r))
    for i, rel in enumerate(rels):
        hit = F.when(pos.isNotNull() & (g >= float(rel)), 1.0).otherwise(0.0)
        t = t.withColumn(f"{name['cum']}{i}", F.sum(hit).over(ranked.rowsBetween(Window.unboundedPreceding, 0)))
    ideal_cols = {}
    for j, rel in enumerate(ndcg_rels):
        gain = _gain(g, rel)
        col = f"{name['cum']}_ideal{j}"
        ideal_pos = F.row_number().over(Window.partitionBy(*unit).orderBy(gain.desc()))
        t = t.withColumn(col + "g", gain).withColumn(col, F.when(gain > 0, ideal_pos))
        ideal_cols[rel] = col
    aggs = {
        "n_ret": F.count(pos),
        "n_judged": F.count(g),
    }
    values: list[tuple[str, str, Measure]] = []
    for m in measures:
        k, rel = m.kw.get("k"), m.kw["rel"]
        top = pos.isNotNull() if k is None else pos <= int(k)
        label = str(m)
        key = f"m{len(values)}"
        if m.spec.name in ("precision", "recall", "ap", "rr"):
            i = rels.index(rel)
            hit = top & (g >= float(rel))
            aggs[f"{key}_nrel"] = F.count(F.when(g >= float(rel), 1))
            if m.spec.name in ("precision", "recall"):
                aggs[f"{key}_num"] = F.count(F.when(hit, 1)).cast("double")
            elif m.spec.name == "ap":
                aggs[f"{key}_num"] = F.sum(F.when(hit, F.col(f"{name['cum']}{i}") / pos))
            else:
                aggs[f"{key}_num"] = F.max(F.when(hit, 1.0 / pos))
        else:  # ndcg
            col = ideal_cols[rel]
            gain = _gain(g, rel)
            aggs[f"{key}_num"] = F.sum(F.when(top, gain * (1.0 / F.log2(pos + 1.0))))
            ideal_top = F.col(col).isNotNull() if k is None else F.col(col) <= int(k)
            aggs[f"{key}_den"] = F.sum(F.when(ideal_top, F.col(col + "g") * (1.0 / F.log2(F.col(col) + 1.0))))
            aggs[f"{key}_none"] = F.sum(F.when(F.col(col).isNotNull(), F.col(col + "g")))
        values.append((label, key, m))
    per = t.groupBy(*unit).agg(*[expr.alias(alias) for alias, expr in aggs.items()])
    no_judged = F.col("n_judged") == 0
    no_retrieved = ~no_judged & (F.col("n_ret") == 0)
    structs = []
    for label, key, m in values:
        num = F.coalesce(F.col(f"{key}_num"), F.lit(0.0))
        if m.spec.name == "precision":
            denom = F.lit(float(m.kw["k"])) if m.kw.get("k") is not None else F.col("n_ret").cast("double")
            value, nothing = _div(num, denom), None
        elif m.spec.name in ("recall", "ap"):
            value, nothing = _div(num, F.col(f"{key}_nrel").cast("double")), F.col(f"{key}_nrel") == 0
        elif m.spec.name == "rr":
            value, nothing = num, None
        else:
            den = F.coalesce(F.col(f"{key}_den"), F.lit(0.0))
            value, nothing = _div(num, den), F.coalesce(F.col(f"{key}_none"), F.lit(0.0)) == 0
        cases = [(no_judged, policies["no_judged"]), (no_retrieved, policies["no_retrieved"])]
        if nothing is not None and m.spec.needs_relevant:
            cases.append((~no_judged & ~no_retrieved & nothing, policies["no_relevant"]))
        keep = F.lit(True)
        for mask, policy in cases:
            if policy == "zero":
                value = F.when(mask, F.lit(0.0)).otherwise(value)
            elif policy == "nan":
                value = F.when(mask, F.lit(float("nan"))).otherwise(value)
            else:
                keep = keep & ~mask
        structs.append(F.struct(F.lit(label).alias("metric"), value.alias("value"), keep.alias("keep")))
    out_name = _free_name(per.columns, "__rf_out")
    exploded = per.select(*unit, F.explode(F.array(*structs)).alias(out_name))
    return exploded.filter(F.col(f"{out_name}.keep")).select(
        *unit, F.col(f"{out_name}.metric").alias("metric"), F.col(f"{out_name}.value").alias("value")
    )


def _gain(g: Any, rel: Any) -> Any:
    from pyspark.sql import functions as F

    gain = F.greatest(F.coalesce(g, F.lit(0.0)), F.lit(0.0))
    if rel is not None:
        gain = F.when(g >= float(rel), gain).otherwise(0.0)
    return gain


def _div(num: Any, den: Any) -> Any:
    from pyspark.sql import functions as F

    return F.when(den > 0, num / den).otherwise(F.lit(0.0))


def evaluate_sql(sdf: Any, metrics: Sequence[str], *, by: str | None = None, validate: bool = False) -> Any:
    """The means of ``metrics`` per ``by`` as ``rankframe.spark.evaluate`` gives them, through :func:`per_query_sql`."""
    from rankframe.measures.registry import POLICY_DEFAULTS
    from rankframe.spark.evaluate import check_grades, check_options, means
    from rankframe.spark.validate import check_columns
    from rankframe.spark.validate import validate as validate_table

    measures, by_list, cols, policies = check_options(
        metrics, by, False, validate, False, None, None, dict(POLICY_DEFAULTS), "pandas", None
    )
    order_col = check_columns(sdf, cols, by_list)
    if validate:
        validate_table(sdf, cols, by=by_list)
    check_grades(sdf, cols, measures)
    per = per_query_sql(sdf, measures, cols, by_list, order_col, policies)
    return means(per, [str(m) for m in measures], by=by_list)
