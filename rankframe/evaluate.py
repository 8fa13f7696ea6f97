"""``rankframe.evaluate``: check arguments, join judgments, validate, pick an engine, aggregate — for any engine."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

import pandas as pd

from .beyond import arguments as beyond_arguments
from .core import progress as progress_
from .core.columns import Columns, column_list, judgment_columns
from .core.errors import ParameterError, keyword, parameter_error
from .engines import beyond_engine, intent_engine
from .intent.declare import from_history, from_qrels, needs_subtopics
from .intent.declare import refuse as refuse_intent
from .measures.arguments import as_flag, check_level, check_output_names, parse_metrics, refuse_beyond
from .measures.checks import check_grades
from .measures.names import Measure
from .measures.registry import POLICY_DEFAULTS, bind_policies
from .stats.aggregate import AGGREGATIONS
from .stats.randomization import N_RESAMPLES, call_seed, check_n_resamples, check_seed
from .tables import inputs, units
from .tables.join import join_qrels
from .tables.schema import validate as validate_table

if TYPE_CHECKING:
    from .measures.registry import Policy
    from .stats.aggregate import Aggregation
    from .tables.inputs import Output

#: the engines of ``engine=`` (the type of every public ``engine=``)
Engine = Literal["pandas", "duckdb"]
ENGINES: tuple[Engine, ...] = get_args(Engine)


def as_column_list(by: object, owner: str = "evaluate", name: str = "by") -> list[str]:
    """``by`` as a list of distinct column names (:func:`rankframe.columns.column_list`, the one reading)."""
    return column_list(by, owner, name)


def check_aggregation(per_query: bool, ci: object, agg: object, engine: object) -> Aggregation:
    """:func:`evaluate`'s rules for ``ci``, ``agg`` and ``engine`` (they need no data); ``agg`` normalised.

    The command line calls it before any file is read, and reports its messages in its options' words.
    """
    check_ci(ci, per_query)
    checked = check_agg(agg, per_query, ci)
    if not isinstance(engine, str) or engine.lower() not in ENGINES:
        raise parameter_error("evaluate", "engine", "one of " + ", ".join(map(repr, ENGINES)), engine)
    return checked


def check_ci(ci: object, per_query: object, owner: str = "evaluate") -> None:
    """The rules of ``ci``: None or a level (compare's rule, ``check_level``), not with ``per_query`` (every face's)."""
    if ci is None:
        return
    check_level(owner, ci, "ci")
    if per_query:
        raise ParameterError(
            f"{keyword('ci')} gives intervals of means; it does not apply with {keyword('per_query', True)}",
            owner=owner,
            parameter="ci",
        )


def check_agg(agg: object, per_query: object, ci: object, owner: str = "evaluate") -> Aggregation:
    """The rules of ``agg`` (one of AGGREGATIONS, not with ``per_query`` nor ``ci``), lower-cased; every face's."""
    if not isinstance(agg, str) or agg.lower() not in AGGREGATIONS:
        raise parameter_error("evaluate", "agg", "one of " + ", ".join(map(repr, AGGREGATIONS)), agg)
    agg = agg.lower()
    if agg != "mean" and per_query:
        raise ParameterError(
            f"{keyword('agg', agg)} aggregates over queries; it does not apply with {keyword('per_query', True)}",
            owner=owner,
            parameter="agg",
        )
    if agg != "mean" and ci is not None:
        raise ParameterError(
            f"{keyword('ci')} gives t-intervals of means; it does not apply with {keyword('agg', agg)}",
            owner=owner,
            parameter="ci",
        )
    return cast("Aggregation", agg)


def check_resampling(n_resamples: object, seed: object, owner: str = "evaluate") -> tuple[int, int | None]:
    """``n_resamples`` (1 to 10**7) and ``seed`` (None or an int >= 0) of a bootstrap, checked before any work."""
    return check_n_resamples(n_resamples, owner), check_seed(seed, owner)


def evaluate(
    df: pd.DataFrame,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    columns: Columns | dict | None = None,
    qrels: pd.DataFrame | None = None,
    qrels_columns: Columns | dict | None = None,
    validate: bool = True,
    engine: Engine = "pandas",
    allow_duplicates: bool = False,
    ci: float | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int | None = None,
    agg: Aggregation = "mean",
    no_relevant: Policy = POLICY_DEFAULTS["no_relevant"],
    no_retrieved: Policy = POLICY_DEFAULTS["no_retrieved"],
    no_judged: Policy = POLICY_DEFAULTS["no_judged"],
    duckdb_config: dict | None = None,
    output: Output = "pandas",
    progress: bool | None = None,
    train: Any = None,
    catalog: Any = None,
    features: Any = None,
) -> pd.DataFrame | Any:  # a DataFrame; with output='arrow'/'polars' a Table (optional packages: Any)
    """Evaluate ranking metrics on a long-format table; return a tidy frame.

    Parameters
    ----------
    df : DataFrame, pyarrow Table or RecordBatchReader, polars DataFrame or LazyFrame, DuckDB relation, path
        Any table ``rankframe.inputs`` reads (``docs/inputs.md``): one row per (query, item) with ``query``,
        ``item``, ``rank`` (or ``score``), ``relevance`` columns (names configurable through ``columns``).
        Rows with a null rank are judged but not retrieved; rows with a null relevance are unjudged. Never
        modified. A Parquet/CSV path (str or ``Path``) or a DuckDB relation is read and computed in DuckDB
        without a pandas copy (``docs/sql.md``, "Big files").
    metrics : str or list of str
        Metric names such as ``"AP@10"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"map@10"``, ``"RR"``
        (see ``docs/metrics.md``).
    by : str or list of str, optional
        Segment columns; the unit of evaluation becomes (segment values, query).
    per_query : bool, default False
        Return one value per (segment, query) instead of the mean per segment.
    columns : Columns or dict, optional
        Column names of ``df`` (and ``qrels``), e.g. ``{"query": "user_id", "rank": "position"}``.
    qrels : table, optional
        Separate judgments (query, item, relevance; any table kind ``df`` takes) for a run table without a
        relevance column; gives the same results as the single-table form. One rule
        (:func:`rankframe.join_qrels`): every system (the ``system`` column, when it is in ``by``) is scored on
        every judged query; a judged query that no run row mentions is a unit with nothing retrieved, in a null
        segment.
    qrels_columns : Columns or dict, optional
        Column names of ``qrels`` where they differ from ``df``'s: the roles it names replace those of ``columns``,
        the others are ``columns``' (``columns={"query": "user_id", ...}, qrels_columns={"relevance": "grade"}``);
        default: ``columns`` (:func:`rankframe.columns.judgment_columns`).
    validate : bool, default True
        Check the table first (all rules at once, one :class:`~rankframe.ValidationError`).
    engine : {"pandas", "duckdb"}
        Where to compute; both give the same frame.
    allow_duplicates : bool, default False
        Keep repeated (query, item) rows as separate list entries instead of rejecting them.
    ci : float, optional
        A confidence level in (0, 1) such as 0.95: the means gain ``std_err`` (sd / sqrt(n)) and the t-interval
        ``ci_low, ci_high`` over the segment's queries (NaN when n < 2). Means only (not with ``per_query``).
    agg : {"mean", "gmean", "median", "sum"}, default "mean"
        How per-query values become one value per segment: the arithmetic mean, the geometric mean of trec_eval's
        ``gm_map`` (``exp(mean(log(max(x, 1e-5))))``), the median, or the sum (trec_eval's ``num_*`` lines).
        NaN values are left out; ``n`` counts the queries aggregated. Not with ``per_query`` or ``ci``.
    no_relevant, no_retrieved, no_judged : {"zero", "nan", "skip"}
        Query-set policies; the defaults ("zero", "zero", "skip") are declared once in
        ``rankframe.registry.POLICIES`` and shared by every face (CLI, SQL macros); see ``docs/metrics.md``.
    duckdb_config : dict, optional
        For a path or relation input: DuckDB's ``memory_limit`` (default ``"1GB"``), ``threads`` (1 to 4 × the
        machine's cores) and ``temp_directory`` (where it spills instead of failing; made if need be). Other
        keys or values raise ParameterError, and so does running out of memory under ``memory_limit``
        (``docs/cli.md``, "Big tables").
    output : {"pandas", "arrow", "polars"}, default "pandas"
        The type of the result: a pandas DataFrame, a ``pyarrow.Table`` or a ``polars.DataFrame`` (same columns).
    progress : bool, optional
        Show progress of long steps (file reads, DuckDB queries) always (True), never (False), or when the
        session is interactive (None, default; see ``rankframe.progress`` for the switches).
    train : table, optional
        Past interactions for the beyond-accuracy metrics that read popularity (``ARP``, ``APLT``, ``Novelty``,
        ``Coverage``/``Gini`` with ``universe='train'``): a long table with the query and item columns of ``df``
        and an optional ``weight`` column (``docs/beyond-accuracy.md``). Never modified.
    catalog : sequence or one-column table, optional
        The item ids that could be recommended, for ``Coverage`` and ``Gini`` (``universe='catalog'``).
    features : table, optional
        The items' features, for ``ILD`` and ``Serendipity`` with ``similarity='cosine'``/``'hamming'``/
        ``'jaccard'`` (and ``Calibration``): a long table with ``df``'s item column, ``feature`` and an optional
        ``value`` (1 per row without it); a pair not listed is 0, an item without rows has unknown features.

    Returns
    -------
    DataFrame (or pyarrow Table / polars DataFrame with ``output=``)
        Per query: ``[*by, <query column>, "metric", "value"]``. Means: ``[*by, "metric", "value", "n"]`` where
        ``n`` is the number of queries averaged (NaN values are left out), plus ``std_err, ci_low, ci_high``
        with ``ci``. ``metric`` is the canonical metric string. A set-level metric (``Coverage``, ``Gini``,
        ``Entropy``) has one value per segment, computed over all its lists; its ``n`` is the segment's queries.

    Raises
    ------
    ValidationError
        The table breaks a rule of the data model (every broken rule listed, with example rows).
    ParameterError
        A bad argument or metric parameter; a segment/query column named ``metric`` or ``value``; data a metric
        cannot take (a grade above ERR's ``max_grade``, a grade whose exponential gain overflows).

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 2, 3],
    ...                    "relevance": [0, 1, 1]})
    >>> rankframe.evaluate(df, ["P@2", "AP"])
      metric     value  n
    0    P@2  0.500000  1
    1     AP  0.583333  1
    """
    columns = Columns.coerce(columns)
    judgment_columns(columns, qrels_columns)  # its roles and type checked before any work
    by = as_column_list(by)
    measures = parse_metrics(metrics)
    per_query = as_flag("per_query", per_query)
    validate = as_flag("validate", validate)
    allow_duplicates = as_flag("allow_duplicates", allow_duplicates)
    policies = bind_policies(no_relevant=no_relevant, no_retrieved=no_retrieved, no_judged=no_judged)
    agg = check_aggregation(per_query, ci, agg, engine)
    n_resamples, seed = check_resampling(n_resamples, seed)
    if inputs.kind(df) in ("path", "relation"):  # the DuckDB engine's file road: not the family yet
        refuse_beyond(measures, "duckdb_files")
        refuse_intent(
            measures, "duckdb_files", "the DuckDB engine's file road (a path or DuckDB relation input, the CLI)"
        )
    if isinstance(engine, str) and engine.lower() == "duckdb":
        refuse_intent(measures, "duckdb", f"the DuckDB engine ({keyword('engine', 'duckdb')})")
    if qrels is None and from_qrels(measures):
        raise needs_subtopics(measures, judgment_columns(columns, qrels_columns).subtopic, None)
    read = beyond_arguments.check_arguments(  # an input no asked metric reads: left alone (None here)
        measures, per_query=per_query, ci=ci, agg=agg, train=train, catalog=catalog, features=features
    )
    train, catalog, features = read["train"], read["catalog"], read["features"]
    check_output_names(by, columns, per_query)
    output = inputs.check_output(output)
    with progress_.using(progress):
        out = _evaluate(
            df,
            measures,
            by,
            per_query,
            columns,
            qrels,
            qrels_columns,
            validate,
            engine,
            allow_duplicates,
            ci,
            policies,
            agg,
            duckdb_config,
            train,
            catalog,
            features,
            (n_resamples, seed),
        )
    return inputs.from_pandas(out, output)


def _evaluate(
    df: object,
    measures: list[Measure],
    by: list[str],
    per_query: bool,
    columns: Columns,
    qrels: object,
    qrels_columns: Columns | dict | None,
    validate: bool,
    engine: str,
    allow_duplicates: bool,
    ci: float | None,
    policies: dict[str, str],
    agg: str,
    duckdb_config: dict | None,
    train: Any = None,
    catalog: Any = None,
    features: Any = None,
    resampling: tuple[int, int | None] = (N_RESAMPLES, None),
    whole: bool = False,
) -> pd.DataFrame:
    """Everything after the argument checks (inside the call's progress setting).

    ``whole``: evaluate the tables as they are, never in blocks of queries (a block's own call).
    """
    asked = [str(m) for m in measures]
    every = list(measures)
    measures, diversity = intent_engine.split(measures)
    measures, beyond = beyond_arguments.split(measures)
    if isinstance(df, (str, os.PathLike)) or type(df).__name__ == "DuckDBPyRelation":  # files: DuckDB (issue 10)
        from .engines import duckdb_source

        if qrels is None:
            values = duckdb_source.per_query(
                df,
                measures,
                columns,
                by,
                policies,
                validate=validate,
                allow_duplicates=allow_duplicates,
                settings=duckdb_source.settings_from(duckdb_config),
            )
            return _aggregate(values, measures, by, columns, per_query, ci, agg)
        df = duckdb_source.to_pandas(df, columns)  # a separate qrels table is joined in pandas
    elif duckdb_config is not None:
        raise ParameterError(
            "duckdb_config= sets DuckDB's memory for a path or relation input; df is a DataFrame",
            owner="evaluate",
            parameter="duckdb_config",
        )
    df = inputs.to_pandas(df, owner="evaluate", name="df", columns=columns)
    subtopics = None
    if qrels is not None:
        judged = judgment_columns(columns, qrels_columns)  # qrels_columns= over columns=, role by role
        qrels = inputs.to_pandas(qrels, owner="evaluate", name="qrels", columns=judged)
        if not whole and intent_engine.blockable(df, qrels, every, by):  # bounded memory (docs/speed.md)
            blocks = [
                _evaluate(
                    run_block,
                    every,
                    by,
                    True,
                    columns,
                    qrels_block,
                    qrels_columns,
                    validate,
                    engine,
                    allow_duplicates,
                    None,
                    policies,
                    agg,
                    None,  # DuckDB's settings of a file input: the blocks are frames
                    whole=True,
                )
                for run_block, qrels_block in intent_engine.query_blocks(df, qrels, columns.query, judged.query)
            ]
            ordered = intent_engine.in_order(blocks, columns.query)  # each block is ordered by (query, metric)
            values = pd.concat(blocks, ignore_index=True)
            del blocks
            if per_query and ordered:  # the blocks in query order: their rows are the ordered per-query rows
                return values
            return _aggregate(values, every, by, columns, per_query, ci, agg)
        # a subtopic qrels: its judgments kept for the intent-aware measures, the largest grade per item joined
        qrels, subtopics = intent_engine.split_qrels(qrels, judged, diversity)
        if subtopics is not None:  # the kernels read the run's names
            subtopics = subtopics.set_axis([columns.query, columns.subtopic, columns.item, columns.relevance], axis=1)
        df = join_qrels(
            df,
            qrels,
            columns,
            by,
            qrels_columns=judged,
            validate=validate,
            allow_duplicates=allow_duplicates,
        )
    elif qrels_columns is not None:
        raise ParameterError(
            "qrels_columns= names the columns of a qrels= table, but no qrels= was given",
            owner="evaluate",
            parameter="qrels_columns",
        )
    with units.shared():
        if validate:  # the beyond-accuracy metrics but Serendipity never read relevance: a table of them may have none
            validate_table(
                df,
                columns,
                by=by,
                allow_duplicates=allow_duplicates,
                require_relevance=bool(measures or from_qrels(diversity)) or beyond_arguments.reads_relevance(beyond),
            )
        check_grades(df, columns, measures)
        if engine.lower() == "duckdb":
            from .engines import duckdb_engine as engine_module
        else:
            from .engines import numpy_engine as engine_module  # type: ignore[no-redef]
        frames = [engine_module.evaluate(df, measures, columns, by, per_query, policies)] if measures else []
        if from_qrels(diversity):
            assert subtopics is not None  # split_qrels refused a qrels without subtopics
            if engine.lower() == "duckdb":  # sql/intent.sql
                from .engines import duckdb_intent

                frames.append(duckdb_intent.evaluate(df, diversity, columns, by, policies, subtopics))
            else:
                frames.append(intent_engine.evaluate(df, diversity, columns, by, policies, subtopics))
        if any(from_history(m) for m in diversity):  # the recommender form: train= and features=, no qrels
            frames.append(intent_engine.evaluate_history(df, diversity, columns, by, train, features))
        if beyond:
            if engine.lower() == "duckdb":
                from .engines import duckdb_beyond

                lists, sets = duckdb_beyond.evaluate(
                    df, beyond, columns, by, train=train, catalog=catalog, features=features
                )
            else:
                lists, sets = beyond_engine.evaluate(
                    df, beyond, columns, by, train=train, catalog=catalog, features=features
                )
            frames.append(lists)
    values = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    measures = [m for m in every if m not in beyond]  # the per-query measures, in the order asked
    if not beyond:
        return _aggregate(values, measures, by, columns, per_query, ci, agg)
    averaged = [m for m in every if not beyond_arguments.is_set_level(m)]
    out = _aggregate(values, averaged, by, columns, per_query, ci, agg) if averaged else None
    set_level = [m for m in beyond if beyond_arguments.is_set_level(m)]
    seed = None
    if ci is not None and set_level:  # a bootstrap over queries, by the numpy kernels on either engine
        from .engines import beyond_bootstrap

        seed = call_seed(resampling[1])
        sets = beyond_bootstrap.intervals(
            df,
            set_level,
            columns,
            by,
            level=float(ci),
            n_resamples=resampling[0],
            seed=seed,
            train=train,
            catalog=catalog,
            features=features,
        )
    result = beyond_engine.with_set_rows(out, sets, by, asked)
    if seed is not None:
        result.attrs.update(n_resamples=resampling[0], seed=seed)
    return result


def _aggregate(
    values: pd.DataFrame,
    measures: list[Measure],
    by: list[str],
    columns: Columns,
    per_query: bool,
    ci: float | None,
    agg: str = "mean",
) -> pd.DataFrame:
    from .stats.aggregate import mean_per_segment, order_per_query

    names = [str(m) for m in measures]
    if per_query:
        return order_per_query(values, by, columns.query, names)
    return mean_per_segment(values, by, names, ci=None if ci is None else float(ci), agg=agg)


def evaluate_parameters(without: Iterable[str] = ()) -> list[inspect.Parameter]:
    """The keyword parameters of :func:`evaluate` (name, default, annotation; in its order) less ``without``.

    What a caller that passes options on to ``evaluate`` accepts (``compare``'s ``**options``, the accessor's
    metric methods): read from the signature, so a new option of ``evaluate`` reaches them without a second list.
    """
    skip = set(without)
    return [p for p in inspect.signature(evaluate).parameters.values() if p.name not in skip]


def validate(
    df: Any,
    columns: Columns | dict | None = None,
    *,
    by: str | Sequence[str] | None = (),
    allow_duplicates: bool = False,
    require_relevance: bool = True,
    table: str = "ranking table",
    ranked: bool = True,
) -> None:
    """Check a long-format table against every rule at once; raise :class:`ValidationError` if any fails.

    ``df`` is any table :func:`rankframe.evaluate` takes (pandas, Arrow, polars, ...); it is never modified.
    ``columns`` is a :class:`Columns` or a dict such as ``{"query": "user_id"}``; ``by`` a segment column or a
    list of them (as :func:`rankframe.evaluate` reads them).
    ``table`` names the table in the message (``"qrels table"`` for judgments); ``ranked=False`` checks a
    table without a rank or score column (judgments). The rules are :func:`rankframe.schema.validate`'s, on the
    table read as the engines read it (:func:`rankframe.inputs.to_pandas`).

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> bad = pd.DataFrame({"query": [1, 1], "item": ["a", "a"], "rank": [1, 1], "relevance": [1, 0]})
    >>> try:
    ...     rankframe.validate(bad)
    ... except rankframe.ValidationError as e:
    ...     print(len(e.failures))
    2
    """
    c = Columns.coerce(columns, function="validate")
    by = column_list(by, "validate")  # before reading the table: a bad parameter is named first, as before
    frame = inputs.to_pandas(df, owner="validate", name="df", columns=c)
    validate_table(
        frame,
        c,
        by=by,
        allow_duplicates=allow_duplicates,
        require_relevance=require_relevance,
        table=table,
        ranked=ranked,
    )
