"""``rankframe.spark.compare``: paired comparisons of systems on a Spark DataFrame, equal to rankframe.compare.

The per-query values are computed where the data is (:func:`rankframe.spark.evaluate`); the per-query values of
the systems are put side by side per (segment, query, metric) and aligned in Spark (the ``missing`` policy); each
(segment, metric, pair) is reduced in Spark to its sufficient statistics — n, the two sums, the mean and the sample
standard deviation of the differences, wins and losses — and only those small rows reach the driver, where
rankframe's own statistics code (:mod:`rankframe.stats`) computes the paired t-test, its interval and the
multiple-testing correction. Tests that need every per-query value (randomization, Wilcoxon, Tukey, the bootstrap
interval) are not distributed: they raise a ParameterError that says how to run them on one segment's values.

One job: rankframe.compare's paired t-test on a Spark DataFrame, from its checks to the result frame.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from .. import stats
from ..beyond import arguments as beyond_arguments
from ..comparing.frame import pair_indices, result_frame
from ..comparing.rules import (
    baseline_positions,
    check_baseline_pairs,
    check_parameters,
    check_system_column,
    check_systems,
    family_columns,
    margin_side,
    match_baseline,
    null_systems_error,
)
from ..core.columns import Columns, column_list
from ..core.errors import ParameterError, ValidationError
from ..display import comparison_frame
from ..engines import intent_engine
from ..evaluate import parse_metrics
from ..intent.declare import refuse as refuse_intent
from ..measures.arguments import refuse_beyond
from ..measures.names import Measure
from ..measures.registry import POLICY_DEFAULTS
from ..stats.align import MISSING_FILL, misaligned_queries, misaligned_rule, missing_values
from ..tables.rules import RULES, failure, nested_failure
from ._compat import column, pyspark, quote
from .evaluate import check_grades, check_options, join_judgments, per_query_frame, quiet
from .validate import _atomic, _free_name, _null, check_columns
from .validate import validate as validate_table

if TYPE_CHECKING:
    from ..comparing.rules import CiMethod, CorrectionChoice, Pairs, Test
    from ..measures.registry import Policy
    from ..stats.align import Missing
    from ..stats.paired import Alternative

DISTRIBUTED_TESTS = ("t",)
OWNER = "rankframe.spark.compare"


def _check_system(sdf: Any, system: object, by: list[str], columns: Columns) -> None:
    check_system_column(system, by, columns, list(sdf.columns), "df.withColumnRenamed({name!r}, '{name}_')")
    dtype = sdf.schema[system].dataType
    if not _atomic(dtype):  # arrays, maps, structs, binary: the long table's rules of ids (not Python's TypeError)
        binary = dtype.simpleString() == "binary"
        rule = RULES["binary"].message(column=system) if binary else None
        raise ValidationError(
            [failure(str(system), rule, 0) if rule else nested_failure(str(system), dtype.simpleString())]
        )


def compare(
    sdf: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    system: str | None = None,
    baseline: object = None,
    by: str | Sequence[str] | None = None,
    test: Test | None = None,
    ci: float = 0.95,
    ci_method: CiMethod | None = None,
    correction: CorrectionChoice | None = "auto",
    family: str | Sequence[str] = "all",
    pairs: Pairs = "baseline",
    alternative: Alternative | None = None,
    margin: float | None = None,
    missing: Missing = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    qrels_columns: Columns | dict | None = None,
    validate: bool = True,
    allow_duplicates: bool = False,
    no_relevant: Policy = POLICY_DEFAULTS["no_relevant"],
    no_retrieved: Policy = POLICY_DEFAULTS["no_retrieved"],
    no_judged: Policy = POLICY_DEFAULTS["no_judged"],
    buckets: int | None = None,
    train: Any = None,
    catalog: Any = None,
    features: Any = None,
) -> pd.DataFrame:
    """Compare systems per segment and metric on a Spark DataFrame: paired t-tests, intervals, corrections.

    The same rows as :func:`rankframe.compare` with ``test="t"`` (the default against a baseline), as a small
    pandas DataFrame: ``[*by, metric, system, baseline, n, mean, baseline_mean, delta, ci_low, ci_high, p_value,
    p_adjusted, statistic, df, sd_diff, effect_size, mde, wins, ties, losses, note]`` (``statistic``: t, ``df``:
    n - 1; ``mde`` from the sufficient statistics n and sd_diff on the driver).

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        The long table with a system column.
    metrics, system, by, ci, correction, family, pairs, alternative, margin, missing, columns
        As for :func:`rankframe.compare` (``correction="auto"`` is Holm here: only the t-test runs; ``alternative``
        and the non-inferiority ``margin`` work from the same sufficient statistics).
    baseline : optional
        The system the others are compared with. Required with ``pairs="baseline"``: a Spark DataFrame has no
        "first row" to default to.
    test, ci_method : {"t"}
        Only the paired t-test and its t interval run distributed (from sufficient statistics). For
        ``"randomization"``, ``"wilcoxon"``, ``"tukey"`` or ``ci_method="bootstrap"``, which need every
        per-query value at once, filter one segment and use :func:`rankframe.compare` on ``.toPandas()``.
    qrels, qrels_columns, validate, allow_duplicates, no_relevant, no_retrieved, no_judged, buckets
        As for :func:`rankframe.spark.evaluate` (the judgments are joined with every system scored on every judged
        query, as :func:`rankframe.compare` joins them). A subtopic qrels serves the intent-aware measures
        (``docs/diversity.md``), as on :func:`rankframe.spark.evaluate`.
    train, catalog, features : optional
        The inputs of the per-list beyond-accuracy metrics (ARP, APLT, Novelty, ILD), as for
        :func:`rankframe.spark.evaluate`; their per-query values take the paired t-test as they are. The set-level
        metrics (one value per segment, no value per query) are refused here: :func:`rankframe.compare` compares
        them on a pandas table by a paired bootstrap over queries.

    Raises
    ------
    ValidationError, ParameterError
        As :func:`rankframe.compare`.
    """
    pyspark()

    cols = Columns.coerce(columns)
    if system is None:
        system = cols.system
    elif isinstance(system, str) and system != cols.system:
        cols = cols.with_(system=system)  # the qrels join scores every system on every judged query
    by_list = column_list(by, "compare")
    p = check_parameters(
        dict(
            pairs=pairs,
            test=test if test is not None else "t",
            ci_method=ci_method,
            ci=ci,
            correction=correction,
            alternative=alternative,
            margin=margin,
            missing=missing,
            n_resamples=1,
            seed=None,
            engine="pandas",
            options={},
        )
    )
    if p["test"] not in DISTRIBUTED_TESTS or p["ci_method"] != "t":
        bad = "test" if p["test"] not in DISTRIBUTED_TESTS else "ci_method"
        raise ParameterError(
            f"rankframe.spark.compare runs the paired t-test and its t interval (test='t', ci_method='t') from "
            f"sufficient statistics computed in Spark; test={p['test']!r} with ci_method={p['ci_method']!r} "
            "needs every per-query value at once: filter one segment and run rankframe.compare on "
            "sdf.filter(...).toPandas() (docs/spark.md)",
            owner="rankframe.spark.compare",
            parameter=bad,
            got=p[bad],
        )
    parsed = parse_metrics(metrics, "compare", face="spark")  # rankframe.compare's (and evaluate's) rule
    refuse_intent(parsed, "spark_compare", "rankframe.spark.compare")  # before the qrels join's jobs
    names = [str(m) for m in parsed]
    p["family"] = family_columns(family, by_list)
    p["alternative"] = margin_side(names, p["margin"], p["alternative"], p["alternative_asked"])
    policies: dict[str, str] = dict(no_relevant=no_relevant, no_retrieved=no_retrieved, no_judged=no_judged)
    inputs = {"train": train, "catalog": catalog, "features": features}
    sdf, subtopics = join_judgments(  # every system on every judged query
        sdf, parsed, cols, [*by_list, system], qrels, qrels_columns, validate, allow_duplicates, OWNER
    )
    prepared = prepare_systems(
        sdf, names, by_list, system, cols, validate, allow_duplicates, policies, buckets, inputs=inputs
    )
    found = prepared.found
    check_systems(found, system)  # the rules of rankframe.compare on the distinct systems (a few values)
    if baseline is None and pairs == "baseline":
        raise ParameterError(
            f"rankframe.spark.compare needs baseline= with pairs='baseline' (a Spark DataFrame has no first row "
            f"to take it from); the systems in column {system!r} are {found[:20]}",
            owner="rankframe.spark.compare",
            parameter="baseline",
        )
    check_baseline_pairs(baseline, pairs)
    if baseline is not None:
        baseline = match_baseline(found, system, baseline)
    per = per_query_values(sdf, names, prepared, validate, allow_duplicates, buckets, inputs, subtopics)
    return comparison_frame(_compare_per_query(per, names, by_list, prepared.cols.query, system, found, baseline, p))


class Prepared(NamedTuple):
    """A Spark table of systems checked up to its per-query values: what compare and anova share."""

    measures: list[Measure]
    cols: Columns
    policies: dict[str, str]
    unit_by: list[str]
    order_col: str
    found: list


def prepare_systems(
    sdf: Any,
    names: list[str],
    segs: list[str],
    system: str,
    cols: Columns,
    validate: bool,
    allow_duplicates: bool,
    policies: dict[str, str],
    buckets: int | None,
    inputs: dict[str, Any] | None = None,
) -> Prepared:
    """The checks before any per-query value: evaluate's options and columns, the system column, no null system.

    Returns them with the systems found (sorted: a Spark table has no first row); the caller checks how many
    systems it needs, in its words. ``inputs`` (compare's train=, catalog=, features=): the per-list
    beyond-accuracy metrics are taken, with evaluate's rules of their inputs; without (anova) the family is refused.
    """
    measures, _, cols, policies = check_options(
        names, [*segs], True, validate, allow_duplicates, None, cols, policies, "pandas", buckets
    )
    refuse_beyond(measures, "spark_anova" if inputs is None else "spark_compare")
    refuse_intent(  # the recommender form (train=, features=): no Spark face serves it
        measures,
        "spark_anova" if inputs is None else "spark_compare",
        "rankframe.spark.anova" if inputs is None else "rankframe.spark.compare",
    )
    if inputs is not None:  # a missing input, one no metric reads, aggregate='rows' (set-level): evaluate's words
        inputs.update(beyond_arguments.check_arguments(measures, per_query=True, ci=None, agg="mean", **inputs))
    relevance = bool(beyond_arguments.split(measures)[0])
    check_columns(sdf, cols, segs, require_relevance=relevance)
    _check_system(sdf, system, segs, cols)
    unit_by = [*segs, system]
    order_col = check_columns(sdf, cols, unit_by, require_relevance=relevance)
    sys_col = column(system)
    no_system = _null(system, sdf.schema[system].dataType)  # a float NaN is null, as on every road
    n_null = sdf.filter(no_system).count()
    if n_null:
        with quiet():
            examples = sdf.filter(no_system).limit(5).toPandas()
        raise null_systems_error(system, int(n_null), examples)
    found = sorted(r[0] for r in sdf.select(sys_col).distinct().collect())
    return Prepared(measures, cols, policies, unit_by, order_col, found)


def per_query_values(
    sdf: Any,
    names: list[str],
    prepared: Prepared,
    validate: bool,
    allow_duplicates: bool,
    buckets: int | None,
    inputs: dict[str, Any] | None = None,
    subtopics: Any = None,
) -> Any:
    """The table's rules (validate=True), its grades for these metrics, then the per-query values (Spark).

    The per-list beyond-accuracy metrics come from the portable SQL (:mod:`rankframe.spark.beyond`), per
    (segment, system, query), beside the accuracy metrics' values; the intent-aware measures from the subtopic
    judgments ``subtopics`` (:func:`join_judgments`) by the pandas engine's function per bucket of whole queries
    (:func:`rankframe.spark.intent.per_query_frame`, as :func:`rankframe.spark.evaluate`).
    """
    cols = prepared.cols
    accuracy, beyond = beyond_arguments.split(prepared.measures)
    accuracy, diversity = intent_engine.split(accuracy)
    if validate:
        validate_table(
            sdf, cols, by=prepared.unit_by, allow_duplicates=allow_duplicates, require_relevance=bool(accuracy)
        )
    check_grades(sdf, cols, accuracy)
    unit_by, order_col, policies = prepared.unit_by, prepared.order_col, prepared.policies
    acc_names = [str(m) for m in accuracy]
    frames = [per_query_frame(sdf, acc_names, cols, unit_by, order_col, policies, buckets)] if accuracy else []
    if diversity:  # the family's qrels form (parse_metrics refused the recommender form on these faces)
        from . import intent as intent_spark

        assert subtopics is not None  # join_judgments refused the family without a subtopic qrels
        div_names = [str(m) for m in diversity]
        frames.append(
            intent_spark.per_query_frame(sdf, subtopics, div_names, cols, unit_by, order_col, policies, buckets)
        )
    if beyond:
        from . import beyond as beyond_spark

        given = beyond_spark.inputs(sdf, cols, **(inputs or {}), measures=beyond)
        lists, _ = beyond_spark.values(sdf, beyond, cols, unit_by, order_col, policies, given)
        frames.append(lists)
    per = frames[0]
    for frame in frames[1:]:
        per = per.unionByName(frame)
    return per


class AlignedWide(NamedTuple):
    """Per-query values one column per system, after the ``missing=`` policy (rankframe.stats.align's rules).

    ``wide``: one row per (segment, query, metric) with the columns ``sys_names`` (values), ``pres_names`` (the
    system is present in the segment) and, with a policy, ``hole_names`` (the value was filled) and ``drop_name``
    (the query was dropped); ``present``: the segments (sorted, nulls last) x systems on the driver.
    """

    wide: Any
    present: pd.DataFrame
    sys_names: list[str]
    pres_names: list[str]
    hole_names: list[str]
    drop_name: str


def aligned_wide(per: Any, by: list[str], query: str, system: str, systems: list, missing: str) -> AlignedWide:
    """The per-query values of ``per`` aligned within each segment of ``by`` (shared by compare and anova)."""
    from pyspark.sql import functions as F

    n_systems = len(systems)
    seg_cols = [column(b) for b in by]
    taken = [*by, query, system, "metric", "value"]
    sys_names = [_free_name(taken, f"__rf_s{i}") for i in range(n_systems)]
    pres_names = [_free_name(taken, f"__rf_p{i}") for i in range(n_systems)]

    # systems present per segment: a small frame (segments x systems), also needed on the driver
    present_sdf = per.groupBy(*seg_cols).agg(
        *[
            F.max(F.when(column(system) == F.lit(s), True).otherwise(False)).alias(pres_names[i])
            for i, s in enumerate(systems)
        ]
    )
    with quiet():
        present_pd = present_sdf.toPandas()
    if by:
        present_pd = present_pd.sort_values(by, na_position="last", kind="stable").reset_index(drop=True)

    value = F.col("value")
    wide = per.groupBy(*seg_cols, column(query), F.col("metric")).agg(
        *[
            F.first(F.when(column(system) == F.lit(s), value), ignorenulls=True).alias(sys_names[i])
            for i, s in enumerate(systems)
        ]
    )
    if by:  # null segments are segments too: join null-safely on renamed copies of the segment columns
        keys = [_free_name([*taken, *sys_names, *pres_names], f"__rf_k{i}") for i in range(len(by))]
        right = present_sdf.select(*[column(b).alias(k) for b, k in zip(by, keys)], *pres_names)
        cond = [wide[quote(b)].eqNullSafe(right[k]) for b, k in zip(by, keys)]
        wide = wide.join(F.broadcast(right), on=cond, how="inner").drop(*keys)
    else:
        wide = wide.crossJoin(present_sdf)
    xs = [F.col(n) for n in sys_names]
    pres = [F.col(n) for n in pres_names]
    # the missing= policy of rankframe.stats.align, its rules applied to Spark columns
    have = [(x.isNotNull() & ~F.isnan(x) & pr) for x, pr in zip(xs, pres)]
    count = sum((F.when(h, 1).otherwise(0) for h in have), F.lit(0))
    k_present = sum((F.when(pr, 1).otherwise(0) for pr in pres), F.lit(0))
    partial = misaligned_queries(count, k_present)
    holes = [missing_values(partial, h, pr) for h, pr in zip(have, pres)]
    hole_names = [_free_name([*taken, *sys_names, *pres_names], f"__rf_h{i}") for i in range(n_systems)]
    drop_name = _free_name([*taken, *sys_names, *pres_names], "__rf_dropped")
    if missing == "error":
        misaligned = wide.filter(partial)
        n_holes = misaligned.agg(sum((F.sum(F.when(hole, 1).otherwise(0)) for hole in holes), F.lit(0))).first()[0]
        if n_holes:
            raise _misaligned_error(misaligned, holes, by, query, system, systems, int(n_holes))
    else:
        cells, fill = MISSING_FILL[missing]
        # what the policy did, kept as flags for the per-row n_filled / n_dropped (rankframe.stats.Alignment)
        filled_flags = holes if missing == "zero" else [F.lit(False)] * n_systems
        wide = wide.select(
            *[c for c in wide.columns if c not in sys_names],
            *[
                F.when(hole if cells == "holes" else partial, F.lit(fill)).otherwise(x).alias(n)
                for x, hole, n in zip(xs, holes, sys_names)
            ],
            *[flag.alias(n) for flag, n in zip(filled_flags, hole_names)],
            (partial if missing == "drop" else F.lit(False)).alias(drop_name),
        )
    return AlignedWide(wide, present_pd, sys_names, pres_names, hole_names, drop_name)


def _compare_per_query(
    per: Any, names: list[str], by: list[str], query: str, system: str, systems: list, baseline: object, p: dict
) -> pd.DataFrame:
    from pyspark.sql import functions as F

    n_metrics, n_systems = len(names), len(systems)
    pair_idx = pair_indices(n_systems, baseline_positions(systems, baseline), p["pairs"])
    n_pairs = len(pair_idx)
    seg_cols = [column(b) for b in by]
    aligned = aligned_wide(per, by, query, system, systems, p["missing"])
    wide, present_pd, sys_names, pres_names = aligned.wide, aligned.present, aligned.sys_names, aligned.pres_names
    hole_names, drop_name = aligned.hole_names, aligned.drop_name
    n_seg = len(present_pd)
    aggs = []
    if p["missing"] != "error":
        aggs.append(F.sum(F.when(F.col(drop_name), 1).otherwise(0)).alias("dropped"))
    for j, (a, b) in enumerate(pair_idx):
        if p["missing"] != "error":
            either = F.col(hole_names[a]) | F.col(hole_names[b])
            aggs.append(F.sum(F.when(either, 1).otherwise(0)).alias(f"f{j}"))
        x, y = F.col(sys_names[a]), F.col(sys_names[b])
        valid = x.isNotNull() & ~F.isnan(x) & y.isNotNull() & ~F.isnan(y)
        d = F.when(valid, x - y)
        apart = valid & ~equal_column(x, y)  # the one rule of equal values (rankframe.stats.equal)
        aggs += [
            F.count(d).alias(f"n{j}"),
            F.sum(F.when(valid, x)).alias(f"sx{j}"),
            F.sum(F.when(valid, y)).alias(f"sy{j}"),
            F.sum(d).alias(f"sd{j}"),
            F.stddev_samp(d).alias(f"sdev{j}"),
            F.count(F.when(apart & (d > 0), 1)).alias(f"w{j}"),
            F.count(F.when(apart & (d < 0), 1)).alias(f"l{j}"),
        ]
    suff = wide.groupBy(*seg_cols, F.col("metric")).agg(*aggs)
    with quiet():
        small = suff.toPandas()
    return _assemble(
        small, present_pd, pres_names, names, by, systems, pair_idx, n_seg, n_metrics, n_pairs, p, baseline
    )


def equal_column(x: Any, y: Any) -> Any:
    """:func:`rankframe.stats.equal` as a Spark column: ``x == y`` or ``|x - y| <= EQUAL_RTOL * max(1, |x|, |y|)``."""
    from pyspark.sql import functions as F

    d = F.abs(x - y)
    finite = ~F.isnan(d) & (d < F.lit(float("inf")))
    return (x == y) | (finite & (d <= F.lit(stats.EQUAL_RTOL) * F.greatest(F.lit(1.0), F.abs(x), F.abs(y))))


def _assemble(small, present_pd, pres_names, names, by, systems, pair_idx, n_seg, n_metrics, n_pairs, p, baseline):
    """The output frame of rankframe.compare from the per-(segment, metric) sufficient statistics."""
    shape = (n_seg, n_metrics * n_pairs)
    fields = {key: np.zeros(shape) for key in ("n", "sx", "sy", "sd", "w", "l")}
    fields["sdev"] = np.full(shape, np.nan)
    counted = p["missing"] != "error"
    if counted:
        fields["f"] = np.zeros(shape)
    dropped = np.zeros(shape)
    if len(small):
        if by:
            keys = present_pd[by].copy()
            keys["__seg"] = np.arange(n_seg)
            row_seg = small[by].merge(keys, on=by, how="left")["__seg"].to_numpy(np.int64)
        else:
            row_seg = np.zeros(len(small), dtype=np.int64)
        row_metric = pd.Index(names).get_indexer(small["metric"])
        for j in range(n_pairs):
            col = row_metric * n_pairs + j
            for key in fields:
                fields[key][row_seg, col] = small[f"{key}{j}"].to_numpy(np.float64, na_value=np.nan)
            if counted:
                dropped[row_seg, col] = small["dropped"].to_numpy(np.float64)
    n = fields["n"].astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        nf = n.astype(np.float64)
        mean_x, mean_y, delta = fields["sx"] / nf, fields["sy"] / nf, fields["sd"] / nf
    sd = fields["sdev"].copy()
    sd[n < 2] = np.nan
    wins, losses = fields["w"].astype(np.int64), fields["l"].astype(np.int64)  # above / below the baseline
    summary = stats.PairedSummary(
        n=n, mean_x=mean_x, mean_y=mean_y, delta=delta, sd=sd, wins=wins, ties=n - wins - losses, losses=losses
    )
    tt = stats.ttest(summary, p["ci"], p["alternative"], p["margin"] or 0.0)
    present = present_pd[pres_names].to_numpy(bool) if n_seg else np.zeros((0, len(systems)), bool)
    return result_frame(
        present_pd[by] if by else None,
        names,
        pd.Index(systems),
        pair_idx,
        summary,
        tt.pvalue,
        tt.ci_low,
        tt.ci_high,
        present,
        p,
        statistic=tt.statistic,
        df=tt.df,
        test="t",
        ci_method="t",
        baseline=baseline,
        filled=fields.get("f"),
        dropped=dropped,
    )


def _misaligned_error(misaligned, holes, by, query, system, systems, n_holes) -> ValidationError:
    from pyspark.sql import functions as F

    lacking = F.array(*[F.when(h, F.lit(str(i))) for i, h in enumerate(holes)])
    rows = misaligned.select(
        *[column(b) for b in by], column(query), F.col("metric"), F.array_compact(lacking).alias("__rf_l")
    )
    n_units = rows.select(*[column(b) for b in by], column(query)).distinct().count()
    with quiet():
        ex = rows.select("*", F.explode("__rf_l").alias("__rf_i")).drop("__rf_l").limit(5).toPandas()
    ex[f"{system} without a value"] = [systems[int(i)] for i in ex.pop("__rf_i")]
    rule = misaligned_rule(n_units)
    return ValidationError([{"column": system, "rule": rule, "count": n_holes, "examples": ex}])
