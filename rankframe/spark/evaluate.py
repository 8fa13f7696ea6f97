"""``rankframe.spark.evaluate``: the pandas engine's numbers on a Spark DataFrame, computed where the data is.

The table is projected to the columns the metrics read, keyed by a hash of the evaluation unit (segment values,
query) into ``buckets`` groups, and each group — many whole queries — goes through rankframe's own numpy engine in
one Arrow-batched grouped pandas function (``applyInPandas``). No Python loop runs per query and no Python UDF per
row; a query's rows always meet in one group, whatever the input partitioning. See ``docs/spark.md`` and
``docs/decisions/0009-spark-engine.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
import pandas as pd

from ..beyond import arguments as beyond_arguments
from ..core.columns import Columns, judgment_columns
from ..core.errors import ParameterError, parameter_error
from ..engines import beyond_engine, intent_engine
from ..evaluate import as_column_list, as_flag, check_agg, check_ci, check_output_names, parse_metrics
from ..intent.declare import from_qrels, needs_subtopics
from ..measures import registry
from ..measures.checks import check_top_grade, needs_grade_check
from ..measures.names import Measure
from ..measures.registry import POLICY_DEFAULTS, bind_policies
from ..stats.aggregate import GMEAN_EPSILON
from ..tables import units
from ._compat import column, pyspark, quiet
from .buckets import bucket_of, to_spark_ready
from .validate import _free_name, _numeric, check_columns
from .validate import validate as validate_table

if TYPE_CHECKING:
    from ..measures.registry import Policy
    from ..stats.aggregate import Aggregation

#: the engines of the Spark face: the numpy engine in grouped pandas functions. engine="sql" (Spark SQL windows for
#: five metrics, default options only) was retired in issue 20: slower (decision 9), and a third formula set
SparkEngine = Literal["pandas"]
ENGINES: tuple[SparkEngine, ...] = get_args(SparkEngine)


def bucket_kernel(
    names: list[str], columns: Columns, by: list[str], policies: dict[str, str], bucket: str
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """The function each grouped-pandas call runs: the numpy engine on one bucket of whole queries.

    The metrics registered at run time (``rankframe.registry.register``) travel with it: a Python worker imports
    rankframe afresh and knows only the package's own.
    """
    added = registry.added()

    def kernel(pdf: pd.DataFrame) -> pd.DataFrame:
        from ..engines import numpy_engine
        from ..measures.names import parse

        registry.adopt(added)
        table = pdf.drop(columns=[bucket])
        measures = [parse(n) for n in names]
        with units.shared():
            out = numpy_engine.evaluate(table, measures, columns, by, True, policies)
        return to_spark_ready(out[[*by, columns.query, "metric", "value"]])

    return kernel


def check_options(
    metrics: object,
    by: object,
    per_query: object,
    validate: object,
    allow_duplicates: object,
    ci: object,
    columns: Any,
    policies: dict[str, Any],
    engine: object,
    buckets: object,
) -> tuple[list[Measure], list[str], Columns, dict[str, str]]:
    """Every argument check that needs no data, with the messages of :func:`rankframe.evaluate`."""
    cols = Columns.coerce(columns)
    by_list = as_column_list(by)
    measures = parse_metrics(metrics, face="spark")
    as_flag("per_query", per_query)
    as_flag("validate", validate)
    as_flag("allow_duplicates", allow_duplicates)
    bound = bind_policies(**policies)
    check_ci(ci, per_query, "rankframe.spark.evaluate")
    if not isinstance(engine, str) or engine.lower() not in ENGINES:
        error = parameter_error("rankframe.spark.evaluate", "engine", "one of " + ", ".join(map(repr, ENGINES)), engine)
        if isinstance(engine, str) and engine.lower() == "sql":  # retired: say so, and what to use
            error = parameter_error(
                error.owner or "",
                "engine",
                error.expected or "",
                engine,
                "engine='sql' (Spark SQL windows for five metrics) was retired: engine='pandas', the "
                "default, computes every metric and option and was faster (docs/decisions/0009-spark-engine.md).",
            )
        raise error
    check_buckets(buckets, "rankframe.spark.evaluate")
    check_output_names(by_list, cols, bool(per_query))
    return measures, by_list, cols, bound


def check_buckets(buckets: object, owner: str) -> None:
    """``buckets=``: None (``spark.sql.shuffle.partitions``) or the number of groups of whole queries."""
    if buckets is not None and (isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer)) or buckets < 1):
        raise parameter_error(owner, "buckets", "None or an int >= 1", buckets)


def evaluate(
    sdf: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    columns: Columns | dict | None = None,
    qrels: Any = None,
    qrels_columns: Columns | dict | None = None,
    validate: bool = True,
    allow_duplicates: bool = False,
    ci: float | None = None,
    agg: Aggregation = "mean",
    no_relevant: Policy = POLICY_DEFAULTS["no_relevant"],
    no_retrieved: Policy = POLICY_DEFAULTS["no_retrieved"],
    no_judged: Policy = POLICY_DEFAULTS["no_judged"],
    buckets: int | None = None,
    engine: SparkEngine = "pandas",
    train: Any = None,
    catalog: Any = None,
    features: Any = None,
) -> Any:
    """Evaluate ranking metrics on a Spark DataFrame; the same numbers as :func:`rankframe.evaluate`.

    Parameters
    ----------
    sdf : pyspark.sql.DataFrame
        The long table (one row per (query, item); columns named as in :func:`rankframe.evaluate`). Never
        modified (Spark frames are immutable) and never collected to the driver.
    metrics, by, per_query, columns, validate, allow_duplicates, ci, agg, no_relevant, no_retrieved, no_judged
        As for :func:`rankframe.evaluate`.
    qrels, qrels_columns : optional
        As for :func:`rankframe.evaluate`: separate judgments (a Spark DataFrame, or a pandas / Arrow / polars
        table handed to ``sdf``'s session) joined to the run by :func:`rankframe.join_qrels`'s rule, as Spark joins
        (``rankframe.spark.join``); ``qrels_columns`` names its columns where they differ from ``columns``
        (:func:`rankframe.columns.judgment_columns`). A qrels with a subtopic column serves the intent-aware
        measures (``docs/diversity.md``; ``rankframe.spark.intent``), its largest grade per (query, item) the others.
    buckets : int, optional
        Number of groups the units are hashed into, each evaluated by one grouped-pandas call (default:
        ``spark.sql.shuffle.partitions``). More buckets = smaller pandas frames per call.
    engine : {"pandas"}
        ``"pandas"`` (the only one): rankframe's numpy engine in Arrow-batched grouped pandas functions, every
        metric and option. (``"sql"``, Spark SQL windows for five metrics, was slower and is retired:
        ``docs/decisions/0009-spark-engine.md``.)
    train, catalog, features : optional
        The extra inputs of the beyond-accuracy metrics (Coverage, Gini, Entropy, Personalization, ARP, APLT,
        Novelty, ILD; ``docs/beyond-accuracy.md``), as :func:`rankframe.evaluate` takes them: Spark DataFrames
        (checked by Spark jobs, never collected), or pandas / Arrow / polars tables and, for ``catalog``, a
        sequence of ids (checked on the driver, then handed to Spark). The family is computed by the portable SQL
        of :func:`rankframe.sql.render` run by ``spark.sql`` (``rankframe.spark.beyond``).

    Returns
    -------
    pyspark.sql.DataFrame or pandas.DataFrame
        ``per_query=True``: a Spark DataFrame ``[*by, <query>, metric, value]`` (one row per unit and metric, in
        no particular order: sort it if you need to). Otherwise the means, a small pandas DataFrame equal to
        :func:`rankframe.evaluate`'s: ``[*by, metric, value, n]`` (+ ``std_err, ci_low, ci_high`` with ``ci``).

    Raises
    ------
    ValidationError, ParameterError
        As :func:`rankframe.evaluate`, with the same messages (the table rules run as Spark jobs).
    """
    pyspark()
    measures, by_list, cols, policies = check_options(
        metrics,
        by,
        per_query,
        validate,
        allow_duplicates,
        ci,
        columns,
        dict(no_relevant=no_relevant, no_retrieved=no_retrieved, no_judged=no_judged),
        engine,
        buckets,
    )
    agg = check_agg(agg, per_query, ci, "rankframe.spark.evaluate")
    sdf, subtopics = join_judgments(
        sdf, measures, cols, by_list, qrels, qrels_columns, validate, allow_duplicates, "rankframe.spark.evaluate"
    )
    read = beyond_arguments.check_arguments(  # an input no asked metric reads: left alone
        measures, per_query=bool(per_query), ci=ci, agg=agg, train=train, catalog=catalog, features=features
    )
    train, catalog, features = read["train"], read["catalog"], read["features"]
    set_level = [str(m) for m in measures if beyond_arguments.is_set_level(m)]
    if set_level and ci is not None:
        raise ParameterError(
            f"{', '.join(set_level)}: the interval of a set-level metric is a bootstrap over queries, which "
            "rankframe.spark.evaluate does not compute yet: drop ci= for them, or run rankframe.evaluate(..., ci=) on "
            "a pandas table of the lists (docs/beyond-accuracy.md)",
            owner="rankframe.spark.evaluate",
            parameter="ci",
            got=ci,
        )
    accuracy, beyond = beyond_arguments.split(measures)
    accuracy, diversity = intent_engine.split(accuracy)
    # the beyond-accuracy metrics never read relevance: a table of them alone may have none (as rankframe.evaluate)
    grades = bool(accuracy or diversity) or beyond_arguments.reads_relevance(beyond)  # Serendipity reads them
    order_col = check_columns(sdf, cols, by_list, require_relevance=grades)
    if validate:
        validate_table(sdf, cols, by=by_list, allow_duplicates=allow_duplicates, require_relevance=grades)
    check_grades(sdf, cols, accuracy)
    names = [str(m) for m in accuracy]
    frames = [per_query_frame(sdf, names, cols, by_list, order_col, policies, buckets)] if accuracy else []
    if diversity:  # the family's qrels form (parse_metrics refused the recommender form on this face)
        from . import intent as intent_spark

        assert subtopics is not None  # split_qrels refused a qrels without subtopics, the join one without columns
        frames.append(
            intent_spark.per_query_frame(
                sdf, subtopics, [str(m) for m in diversity], cols, by_list, order_col, policies, buckets
            )
        )
    sets = None
    if beyond:
        from . import beyond as beyond_spark

        given = beyond_spark.inputs(sdf, cols, train=train, catalog=catalog, features=features, measures=beyond)
        lists, sets = beyond_spark.values(sdf, beyond, cols, by_list, order_col, policies, given)
        frames += [] if lists is None else [lists]
    per = None
    for frame in frames:
        per = frame if per is None else per.unionByName(frame)
    if per_query:
        return per
    averaged = [str(m) for m in measures if not beyond_arguments.is_set_level(m)]
    out = means(per, averaged, by=by_list, ci=ci, agg=agg) if averaged else None
    if not beyond:
        return out
    return beyond_engine.with_set_rows(
        out, pd.DataFrame() if sets is None else sets, by_list, [str(m) for m in measures]
    )


def join_judgments(
    sdf: Any,
    measures: Sequence[Measure],
    cols: Columns,
    by: list[str],
    qrels: Any,
    qrels_columns: Columns | dict | None,
    validate: bool,
    allow_duplicates: bool,
    owner: str,
) -> tuple[Any, Any]:
    """``qrels=`` joined to the run as :func:`rankframe.evaluate` joins it: (the joined table, the subtopic judgments).

    The one road of every Spark face that takes ``qrels=`` (evaluate, compare, anova): a subtopic qrels keeps its
    judgments for the intent-aware measures (``rankframe.spark.intent.split_qrels``, in the run's column names)
    and joins its largest grade per (query, item); without ``qrels=`` an intent-aware measure is an error before
    any Spark job. ``by``: the join's segments (the system column included on compare and anova: every system on
    every judged query). The subtopic judgments are None without a subtopic qrels.
    """
    if qrels is None:
        if from_qrels(measures):  # before any Spark job
            raise needs_subtopics(measures, judgment_columns(cols, qrels_columns).subtopic, None)
        if qrels_columns is not None:
            raise ParameterError(
                "qrels_columns= names the columns of a qrels= table, but no qrels= was given",
                owner=owner,
                parameter="qrels_columns",
            )
        return sdf, None
    from . import intent as intent_spark
    from .join import join_qrels

    judged = judgment_columns(cols, qrels_columns, owner.rsplit(".", 1)[-1])  # qrels_columns= over columns=
    # a subtopic qrels: its judgments kept for the intent-aware measures, the largest grade per item joined
    qrels, subtopics = intent_spark.split_qrels(sdf, qrels, judged, measures)
    if subtopics is not None:  # the kernels read the run's names
        names_of = zip(
            (judged.query, judged.subtopic, judged.item, judged.relevance),
            (cols.query, cols.subtopic, cols.item, cols.relevance),
        )
        subtopics = subtopics.select(*[column(a).alias(b) for a, b in names_of])
    sdf = join_qrels(sdf, qrels, cols, by, judged, validate=validate, allow_duplicates=allow_duplicates)
    return sdf, subtopics


def check_grades(sdf: Any, columns: Columns, measures: Sequence[Measure]) -> None:
    """:func:`rankframe.checks.check_grades` as one Spark aggregation (top judged grade, row count)."""
    if not needs_grade_check(measures):
        return
    from pyspark.sql import functions as F

    dtype = sdf.schema[columns.relevance].dataType
    if not _numeric(dtype):
        return  # the schema rule reports it
    rel = column(columns.relevance).cast("double")
    row = sdf.agg(F.max(F.when(~F.isnan(rel), rel)), F.count(F.lit(1))).first()
    top = None if row[0] is None else float(row[0])
    if row[1]:
        check_top_grade(top, int(row[1]), columns, measures)


def per_query_frame(
    sdf: Any,
    names: list[str],
    columns: Columns,
    by: list[str],
    order_col: str,
    policies: dict[str, str],
    buckets: int | None = None,
) -> Any:
    """Per-query values ``[*by, query, metric, value]`` as a Spark DataFrame (grouped pandas over buckets)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    unit = [*by, columns.query]
    ids = list(dict.fromkeys([*unit, columns.item]))
    bucket = _free_name(sdf.columns, "__rankframe_bucket")
    # plain internal names inside the grouped-pandas step: applyInPandas reads its input's columns by name
    # unquoted (a dot or a backtick in a name breaks it), so the caller's names come back only at the end
    given = [*ids, order_col, columns.relevance]
    plain = {name: _free_name(sdf.columns, f"__rankframe_c{i}") for i, name in enumerate(dict.fromkeys(given))}
    role = "rank" if order_col == columns.rank else "score"
    c = columns.with_(query=plain[columns.query], item=plain[columns.item], relevance=plain[columns.relevance]).with_(
        **{role: plain[order_col]}
    )
    inner_by = [plain[b] for b in by]
    projected = sdf.select(
        *[column(name).alias(plain[name]) for name in ids],
        column(order_col).cast("double").alias(plain[order_col]),
        column(columns.relevance).cast("double").alias(plain[columns.relevance]),
        bucket_of(sdf, unit, buckets).alias(bucket),
    )
    schema = T.StructType(
        [
            *[T.StructField(plain[name], sdf.schema[name].dataType, sdf.schema[name].nullable) for name in unit],
            T.StructField("metric", T.StringType(), False),
            T.StructField("value", T.DoubleType(), True),
        ]
    )
    kernel = bucket_kernel(names, c, inner_by, policies, bucket)
    with quiet():
        out = projected.groupBy(bucket).applyInPandas(kernel, schema)
    return out.select(*[F.col(plain[name]).alias(name) for name in unit], F.col("metric"), F.col("value"))


def means(
    per: Any,
    metrics: Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
    ci: float | None = None,
    agg: str = "mean",
):
    """Means per segment and metric of a per-query Spark frame, as :func:`rankframe.evaluate` returns them.

    ``n``, the mean and the standard deviation of each (segment, metric) are aggregated in Spark (NaN values
    left out); the small result comes to the driver, which adds the t-interval with ``ci`` and orders the rows
    like the pandas engine (segments sorted, nulls last; metrics in the order given). ``agg`` as in
    :func:`rankframe.evaluate` ("gmean" = exp of the mean log of max(x, 1e-5); "median" is Spark's exact
    ``median``).
    """
    agg = check_agg(agg, False, ci, "rankframe.spark.evaluate")
    from pyspark.sql import functions as F

    by_list = as_column_list(by, "means")
    names = [str(m) for m in parse_metrics(metrics, "means")]  # canonical labels, as the per-query frame has
    value = F.when(~F.isnan(F.col("value")), F.col("value"))
    head = {
        "mean": F.avg(value),
        "gmean": F.exp(F.avg(F.log(F.greatest(value, F.lit(GMEAN_EPSILON))))),
        "median": F.median(value),
        "sum": F.sum(value),
    }[agg]
    stats = per.groupBy(*[column(b) for b in by_list], F.col("metric")).agg(
        head.alias("__mean"), F.count(value).alias("__count"), F.stddev_samp(value).alias("__std")
    )
    with quiet():
        small = stats.toPandas()
    return _means_frame(small, by_list, names, ci)


def _means_frame(small: pd.DataFrame, by: list[str], names: list[str], ci: float | None) -> pd.DataFrame:
    small = small[small["metric"].isin(names)]
    if not by:
        table = small.set_index("metric").reindex(names)
        out = pd.DataFrame({"metric": names})
    elif not len(small):
        out = pd.DataFrame({**{b: small[b].iloc[:0] for b in by}, "metric": pd.Series([], dtype=object)})
        table = small.iloc[:0]
    else:
        segments = small[by].drop_duplicates().sort_values(by, na_position="last", kind="stable")
        rows = np.repeat(np.arange(len(segments)), len(names))
        out = segments.iloc[rows].reset_index(drop=True)
        out["metric"] = np.tile(np.asarray(names, dtype=object), len(segments))
        table = out.merge(small, on=[*by, "metric"], how="left")
    mean = table["__mean"].to_numpy(dtype=np.float64)
    n = np.nan_to_num(table["__count"].to_numpy(dtype=np.float64), nan=0.0).astype(np.int64)
    out = out.assign(value=mean, n=n)
    if ci is not None:
        from scipy import stats as st

        sd = table["__std"].to_numpy(dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.where(n >= 2, sd / np.sqrt(np.maximum(n, 1)), np.nan)
            half = st.t.ppf((1 + ci) / 2, np.maximum(n - 1, 1)) * se
        out = out.assign(std_err=se, ci_low=mean - half, ci_high=mean + half)
    return out.reset_index(drop=True)
