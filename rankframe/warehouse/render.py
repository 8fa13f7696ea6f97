"""``rankframe.sql.render``: one plain SELECT computing rankframe's metrics in any SQL warehouse.

The statement is built from the metric declarations (each portable metric's ``portable(t, **params)`` beside its
numpy kernel, over :class:`rankframe.warehouse.terms.Terms`), as PostgreSQL-flavoured text that sqlglot parses and
writes in the target dialect. Its shape (window functions, aggregates, ``UNION ALL``, ``CASE``; no macro, UDF or
lambda):

``rf__src`` reads the table's columns under rankframe's own names; ``rf__ret`` numbers the retrieved rows (a NULL
rank or score is the judged-not-retrieved branch, filtered out before the window); ``rf__ranked`` adds the windows
along the ranking; ``rf__rows`` puts the not-retrieved rows back; ``rf__x`` adds the windows over each unit;
``rf__unit`` computes every metric per unit (segments..., query) with the counts the query-set policies need;
``rf__long`` turns the units into tidy rows; the final SELECT keeps them (``per_query``) or averages them.

One job: render's arguments and the statement's shape every family shares (the sources, the query-set policies'
states, ``rf__long``, the tidy final SELECT); each family's own CTEs are written by its module (the accuracy
metrics' ``portable()`` over :mod:`~rankframe.warehouse.terms`, :mod:`~rankframe.warehouse.beyond`,
:mod:`~rankframe.warehouse.intent`, whose two tables are read by ``_render_intent``).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ..beyond import arguments as beyond_arguments
from ..beyond import input_rules
from ..core.columns import Columns, column_list
from ..core.declare import Param
from ..core.errors import ParameterError, did_you_mean, keyword, parameter_error
from ..intent import declare as intent_family
from ..measures.arguments import OUTPUT_COLUMNS as EVALUATE_OUTPUTS
from ..measures.arguments import as_flag, check_output_names, parse_metrics
from ..measures.names import Measure
from ..measures.registry import KERNELS, POLICIES, bind_policies
from . import beyond as beyond_sql
from . import intent as intent_sql
from .terms import FLOAT, GRADE, JPOS, POS, Terms, not_portable, sqlglot

OWNER = "render"
#: the dialects the tests run or parse (any other sqlglot dialect is accepted, untested: ``dialect=`` is typed
#: ``TestedDialect | str``, so an editor offers these and accepts the others)
TestedDialect = Literal["duckdb", "postgres", "bigquery", "snowflake", "spark", "trino"]
TESTED_DIALECTS: tuple[TestedDialect, ...] = get_args(TestedDialect)
ORDER_BY = Param(
    "order_by",
    "rank",
    "the column that orders a query's items: 'rank' ascending, or 'score' descending (ties: item descending, "
    "compared byte by byte)",
    choices=("rank", "score"),
)

#: each query-set policy's state code in rf__long (0 = the metric's own value)
_POLICY_STATE = {"zero": 1, "nan": 2, "skip": 3}
_NAN = f"CAST('NaN' AS {FLOAT})"


def quote_name(name: str) -> str:
    """A name as a quoted identifier (PostgreSQL's quoting; sqlglot writes it in the target dialect)."""
    exp = sqlglot().exp
    return exp.to_identifier(name, quoted=True).sql(dialect="postgres")


def _table(table: object, name: str = "table") -> str:
    """A table name (``'runs'``, ``'schema.runs'``, a tuple of its parts), each part quoted as an identifier."""
    parts: Sequence[object]
    what = f"a table name ('{name}', 'schema.{name}') or a tuple of its parts"
    if name != "table":  # a list of ids is evaluate's catalog=; render names tables only
        what += " (the name of a table in the warehouse, not its rows)"
    if isinstance(table, str):
        parts = table.split(".")
    elif isinstance(table, tuple) or (isinstance(table, list) and name == "table"):
        parts = table
    else:
        raise parameter_error(OWNER, name, what, table)
    if not parts or not all(isinstance(p, str) and p for p in parts):
        raise parameter_error(OWNER, name, what, table)
    return ".".join(quote_name(str(p)) for p in parts)


def _ranking(order: str, target: str, item: str) -> str:
    """The window of a query's retrieved rows in rankframe's order (``{unit}`` left to fill).

    Rank ascending or score descending, ties by the item as text, descending, compared byte by byte
    (``COLLATE "C"`` in Postgres).
    """
    tie = item + (' COLLATE "C"' if target == "postgres" else "")
    key_order = "rf__key ASC" if order == "rank" else "rf__key DESC"
    return f"PARTITION BY {{unit}} ORDER BY {key_order}, {tie} DESC"


def _check_own_names(cols: Columns, segments: list[str]) -> None:
    for c in (cols.query, *segments):
        if c == "rf__i" or c.startswith("rf__"):
            raise ParameterError(
                f"the column {c!r} has a name of rankframe's own (rf__*); rename it in a view",
                owner=OWNER,
                parameter="columns" if c == cols.query else "by",
                got=c,
            )


def check_dialect(dialect: object) -> str:
    """The dialect, lower-cased, or the ParameterError naming sqlglot's dialects."""
    known = sorted(d for d in sqlglot().Dialect.classes if d)
    if not isinstance(dialect, str) or dialect.lower() not in known:
        raise parameter_error(OWNER, "dialect", "a sqlglot dialect: " + ", ".join(map(repr, known)), dialect)
    return dialect.lower()


def _metric_expression(t: Terms, m: Measure) -> str:
    params = dict(m.params)
    t = t.variant(judged_only=params.pop("judged_only", False), ties=params.pop("ties", "first"))
    kernel = KERNELS.get(m.spec.name)
    if kernel is None:  # rankframe.beyond's set- and list-level metrics (Coverage, Novelty, ...)
        raise not_portable(
            str(m), f"{m.spec.canonical} is a beyond-accuracy metric; the portable SQL has accuracy metrics only"
        )
    portable = getattr(sys.modules.get(kernel.__module__), "portable", None)
    if portable is None:
        raise not_portable(
            str(m),
            f"{m.spec.canonical} declares no portable expression (its module {kernel.__module__} has no portable())",
        )
    return str(portable(t, **params))


def _nothing_relevant(t: Terms, m: Measure) -> str:
    """The unit has nothing relevant, as the metric's declaration says (declare.NOTHING_RELEVANT)."""
    p = dict(m.params)
    kind = m.spec.nothing_relevant
    if kind is None:
        return "FALSE"
    if kind == "relevant":
        return f"{t.count(t.hit(p['rel']))} = 0"
    if kind == "any_gain":  # no grade > 0 in the ideal list (the judged rows, or the retrieved ones)
        return f"{t.count(t.ideal_value(t.grade, p['ideal']) + ' > 0')} = 0"
    if kind == "gain":
        return f"{t.count(t.ideal_gain(p['rel'], p['gain'], p['ideal'], p.get('gains')) + ' > 0')} = 0"
    raise not_portable(str(m), f"the 'nothing relevant' rule {kind!r} has no portable expression")


#: the dialects whose identifiers match whatever their case, even quoted (DuckDB, BigQuery's columns, Spark by
#: default, Trino): an output name there collides with a column of another case (PostgreSQL and Snowflake keep
#: quoted names apart)
FOLDS_CASE = ("duckdb", "bigquery", "spark", "trino")


def check_keywords(policies: dict) -> None:
    """The keyword arguments of :func:`render` beyond its parameters are the query-set policies, and only those."""
    known = [p.name for p in POLICIES]
    for key in policies:
        if key not in known:
            params = [n for n in inspect.signature(render).parameters if n != "policies"]
            raise ParameterError(
                f"{OWNER} got an unknown keyword argument {key!r}{did_you_mean(key, [*params, *known])}; it takes "
                f"{', '.join(params)} and the query-set policies {', '.join(known)}.",
                owner=OWNER,
                parameter=key,
                got=policies[key],
            )


def render(
    metrics: str | Measure | Sequence[str | Measure],
    *,
    dialect: TestedDialect | str = "postgres",
    table: str | Sequence[str] = "runs",
    by: str | Sequence[str] | None = None,
    per_query: bool = False,
    columns: Columns | dict | None = None,
    order_by: str = "rank",
    train: str | Sequence[str] | None = None,
    catalog: str | Sequence[str] | None = None,
    train_weight: str | None = None,
    features: str | Sequence[str] | None = None,
    features_value: str | None = None,
    qrels: str | Sequence[str] | None = None,
    ideal_depth: int | None = None,
    **policies: str,
) -> str:
    """One plain SQL SELECT that computes ``rankframe.evaluate(table, metrics, by=by, per_query=per_query)``.

    The statement reads the long table ``table`` (one row per query and item; a NULL rank, or score with
    ``order_by="score"``, is a judged-not-retrieved row, a NULL relevance an unjudged one) and returns evaluate's
    tidy columns: ``[*by, query, metric, value]`` per query, ``[*by, metric, value, n]`` per segment, with the
    same metric labels and values. It uses window functions and aggregates only (no macro, UDF or lambda), so it
    runs where the data are: PostgreSQL, BigQuery, Snowflake, Spark SQL, Trino, DuckDB (``docs/warehouse.md``).

    Parameters
    ----------
    metrics : str or list of str
        Metric names as :func:`rankframe.evaluate` takes them (``"nDCG@10"``, ``"AP(rel=2)"``). Every accuracy
        metric is portable with every parameter (``judged_only=True`` and ``ties="average"`` included), and so are
        the beyond-accuracy metrics Coverage, Gini, Entropy, Personalization (set level: one row per segment),
        ARP, APLT and Novelty with every option and preset (``Gini(like='recbole')@10``), in one statement with
        accuracy metrics or alone (then the table needs no relevance column).
    dialect : str, default "postgres"
        sqlglot's name of the target: ``duckdb``, ``postgres``, ``bigquery``, ``snowflake``, ``spark``, ``trino``
        (tested), or another sqlglot dialect.
    table : str or tuple of str, default "runs"
        The table or view: ``"runs"``, ``"schema.runs"`` (split on dots) or a tuple of its parts. Every part is
        quoted as an identifier of the dialect.
    by : str or list of str, optional
        Segment columns, as in :func:`rankframe.evaluate`.
    per_query : bool, default False
        One row per (segment, query) instead of the mean per segment.
    columns : Columns or dict, optional
        The table's column names (``{"query": "user_id", "rank": "position"}``), quoted in the statement.
    order_by : {"rank", "score"}, default "rank"
        The column that orders each query's items (SQL cannot look at the table: evaluate's "rank wins when both
        exist" is this choice). Score ties are broken by item descending as text, byte by byte (trec_eval).
    train : str or tuple of str, optional
        The table of past interactions the popularity metrics read (ARP, APLT, Novelty; Coverage and Gini with
        ``universe='train'``), named like ``table``: the ranking table's query and item column names.
    catalog : str or tuple of str, optional
        The table of the catalog's item ids (one column, named like the ranking table's item column), for
        Coverage and Gini with ``universe='catalog'``. A metric that needs an input it was not given, or an input
        no metric reads, is evaluate's error.
    features : str or tuple of str, optional
        The table of item features for ``ILD`` (``similarity='cosine'`` or ``'hamming'``): the ranking table's item
        column name, ``feature``, and the value column named by ``features_value``.
    features_value : str, optional
        The column of ``features`` holding each (item, feature) value (evaluate reads a column ``value`` when
        features= has one; SQL cannot look: name it). Without it every row is 1.
    train_weight : str, optional
        The column of ``train`` holding each interaction's weight (evaluate reads a column ``weight`` when train=
        has one; SQL cannot look: name it). Without it every train row weighs 1.
    qrels : str or tuple of str, optional
        The subtopic qrels of the intent-aware measures (``alpha_nDCG@10``, ``ERR_IA``, ... with ``like=None``,
        ``'ndeval'`` or ``'tf_ranking'``; docs/diversity.md), named like ``table``: the ranking table's query and
        item column names, the subtopic column (``columns={"subtopic": ...}``, default ``subtopic``) and the
        relevance column. ``table`` is then the run (no relevance column). The family is rendered alone.
    ideal_depth : int, optional
        The stages of the greedy ideal list of ``alpha_nDCG``, ``nERR_IA`` and ``nNRBP`` without ``@k``: at least
        the most relevant items of a query (a query with more gets NaN). With ``@k`` the ideal has k stages.
    **policies
        ``no_relevant``, ``no_retrieved``, ``no_judged`` as in :func:`rankframe.evaluate`.

    Returns
    -------
    str
        The statement, pretty-printed in the dialect.

    Notes
    -----
    Parameters are checked here (a warehouse cannot raise rankframe's errors); the tables are not: validate them
    first (``rankframe.validate``; ``rankframe.evaluate`` checks ``train=`` and ``catalog=``), as duplicate items
    or ranks give numbers, not errors, and item ids of another type in ``train``/``catalog`` are the warehouse's
    error or no match. A grade above ERR's ``max_grade`` gives a NULL value.

    Examples
    --------
    >>> import duckdb, pandas as pd, rankframe.sql
    >>> runs = pd.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 2, None],
    ...                      "relevance": [0, 1, 1]})
    >>> sql = rankframe.sql.render(["P@2", "AP"], dialect="duckdb", table="runs")
    >>> duckdb.sql(sql).fetchall()  # P@2 = 1/2; AP = (1/2) / 2 relevant
    [('P@2', 0.5, 1), ('AP', 0.25, 1)]
    """
    target = check_dialect(dialect)
    cols = Columns.coerce(columns, function=OWNER)
    segments = column_list(by, OWNER)
    per_query = as_flag("per_query", per_query, OWNER)
    # the mean shape adds the count of queries, n
    check_output_names(
        segments, cols, per_query, (*EVALUATE_OUTPUTS, *(() if per_query else ("n",))), OWNER,
        fold_case=target in FOLDS_CASE,
    )  # fmt: skip
    check_keywords(policies)
    measures = parse_metrics(metrics, OWNER)
    intent = intent_family.intent(measures)
    if intent or qrels is not None or ideal_depth is not None:
        return _render_intent(
            measures, target, table, segments, cols, per_query, order_by, qrels, ideal_depth, policies,
            given={"train": train, "catalog": catalog, "features": features},
        )  # fmt: skip
    accuracy, beyond = beyond_arguments.split(measures)
    # evaluate's rules of the extra inputs and of the set-level metrics (per_query), written once there
    read = beyond_arguments.check_arguments(
        measures, per_query=per_query, ci=None, agg="mean", train=train, catalog=catalog, features=features
    )
    for option, owner_input, given in (("train_weight", "train", train), ("features_value", "features", features)):
        value = train_weight if option == "train_weight" else features_value
        if value is not None and (not isinstance(value, str) or not value):
            raise parameter_error(OWNER, option, f"the name of a column of {owner_input}= (a str)", value)
        if value is not None and given is None:
            raise ParameterError(
                f"{option}= names a column of {owner_input}=, but no {owner_input}= was given",
                owner=OWNER,
                parameter=option,
            )
        ids = input_rules.id_columns(owner_input, cols.query, cols.item)
        if value in ids:  # an id column is never read as weights or values (input_rules.optional_column)
            raise parameter_error(OWNER, option, f"a column of {owner_input}= other than its id columns {ids}", value)
    # an input no asked metric reads: left alone (not read, not checked)
    train, catalog, features = read["train"], read["catalog"], read["features"]  # type: ignore[assignment]
    if features is not None and cols.item == input_rules.FEATURE:
        raise input_rules.feature_is_item_error()
    index = {id(m): i for i, m in enumerate(measures)}
    keys = [f"rf__s{i}" for i in range(len(segments))]
    ctes, labels, longs, sets = [], [], [], []
    if accuracy:
        b = statement_body(
            accuracy, target, table, segments, cols, order_by, policies, index=[index[id(m)] for m in accuracy]
        )
        ctes.append(b.prep)
        labels.append(b.labels)
        longs.append(b.long)
    else:
        bind_policies(OWNER, **policies)
        _check_own_names(cols, segments)
    if beyond:
        order = ORDER_BY.check(OWNER, order_by)
        src = beyond_sql.Sources(
            table=_table(table),
            select_keys="".join(f"{quote_name(s)} AS {k}, " for s, k in zip(segments, keys)),
            query=quote_name(cols.query),
            item=quote_name(cols.item),
            key=quote_name(cols.rank if order == "rank" else cols.score),
            ranking=_ranking(order, target, "CAST(rf__item AS TEXT)"),
            train=None if train is None else _table(train, "train"),
            train_query=quote_name(cols.query),
            train_item=quote_name(cols.item),
            weight=None if train_weight is None else quote_name(train_weight),
            catalog=None if catalog is None else _table(catalog, "catalog"),
            catalog_item=quote_name(cols.item),
            postgres=target == "postgres",
            features=None if features is None else _table(features, "features"),
            features_item=quote_name(cols.item),
            features_feature=quote_name(input_rules.FEATURE),
            features_value=None if features_value is None else quote_name(features_value),
            relevance=quote_name(cols.relevance) if beyond_arguments.reads_relevance(beyond) else None,
        )
        part = beyond_sql.build([(index[id(m)], m) for m in beyond], src, keys)
        ctes.append(", ".join(part.ctes))
        labels += [f"SELECT {i} AS rf__i, {string_literal(label)} AS rf__metric" for i, label in part.labels]
        longs += part.long
        sets = part.sets
    if longs:
        ctes.append(f"rf__metrics AS ({' UNION ALL '.join(labels)}), rf__long AS ({' UNION ALL '.join(longs)})")
    if sets:
        ctes.append(f"rf__sets AS ({' UNION ALL '.join(sets)})")
    with_ = "WITH " + ", ".join(ctes)
    if per_query or not sets:
        return _final(with_, keys, segments, cols, per_query, target)
    out_keys, nulls_last = _out_keys(keys, segments)
    means, _, _, inner = _means(keys, segments, cols)
    # set-level rows too: the means and the set rows in one UNION ALL, ordered by segment, then as asked
    key_list = "".join(f"{k}, " for k in keys)
    rows = [means.format(head=inner, value="rf__value", n="rf__n", tail="")] if longs else []
    rows.append(  # a set-level value is NULL for NaN
        f"SELECT {key_list}rf__i, rf__metric, CASE WHEN rf__value IS NULL THEN {_NAN} ELSE rf__value END "
        "AS rf__value, rf__n FROM rf__sets"
    )
    final = (
        f"SELECT {out_keys}rf__metric AS {quote_name('metric')}, rf__value AS {quote_name('value')}, "
        f"rf__n AS {quote_name('n')} FROM ({' UNION ALL '.join(rows)}) AS rf__out ORDER BY {nulls_last}rf__i"
    )
    return finish(f"{with_} {final}", target)


def _out_keys(keys: list[str], segments: list[str]) -> tuple[str, str]:
    return (
        "".join(f"{k} AS {quote_name(s)}, " for s, k in zip(segments, keys)),
        "".join(f"{k} NULLS LAST, " for k in keys),
    )


def _means(keys: list[str], segments: list[str], cols: Columns) -> tuple[str, str, str, str]:
    """The means of rf__long per segment: (the SELECT's template, head, tail, inner).

    The statement's final SELECT without set-level rows; inside the UNION ALL with them: head = the projected
    columns before the value, tail = the ORDER BY (none inside the union), inner = the columns inside the union.
    """
    number = f"CASE rf__state WHEN 0 THEN rf__raw WHEN 1 THEN CAST(0 AS {FLOAT}) END"
    out_keys, nulls_last = _out_keys(keys, segments)
    mean = f"CASE WHEN COUNT({{l}}rf__num) = 0 THEN {_NAN} ELSE AVG({{l}}rf__num) END"
    if segments:
        means = (
            "SELECT {head}" + mean.format(l="") + " AS {value}, COUNT(rf__num) AS {n} "
            f"FROM (SELECT rf__long.*, {number} AS rf__num, "
            f"MAX(CASE WHEN rf__state <> 3 THEN 1 ELSE 0 END) OVER (PARTITION BY {', '.join(keys)}) AS rf__seen "
            f"FROM rf__long) AS l WHERE rf__seen = 1 GROUP BY {', '.join(keys)}, rf__i, rf__metric{{tail}}"
        )
        head, tail = f"{out_keys}rf__metric AS {quote_name('metric')}, ", f" ORDER BY {nulls_last}rf__i"
        inner = "".join(f"{k}, " for k in keys) + "rf__i, rf__metric, "
    else:
        means = (
            "SELECT {head}" + mean.format(l="l.") + " AS {value}, COUNT(l.rf__num) AS {n} FROM rf__metrics AS m "
            f"LEFT JOIN (SELECT rf__i, {number} AS rf__num FROM rf__long) AS l ON l.rf__i = m.rf__i "
            "GROUP BY m.rf__i, m.rf__metric{tail}"
        )
        head, tail = f"m.rf__metric AS {quote_name('metric')}, ", " ORDER BY m.rf__i"
        inner = "m.rf__i, m.rf__metric, "
    return means, head, tail, inner


def _final(with_: str, keys: list[str], segments: list[str], cols: Columns, per_query: bool, target: str) -> str:
    """The statement: rf__long's rows per query (``per_query``) or their means per segment (no set-level rows)."""
    number = f"CASE rf__state WHEN 0 THEN rf__raw WHEN 1 THEN CAST(0 AS {FLOAT}) END"
    out_keys, nulls_last = _out_keys(keys, segments)
    if per_query:  # only per-list metrics here (check_arguments refused the set-level ones)
        final = (
            f"SELECT {out_keys}rf__q AS {quote_name(cols.query)}, rf__metric AS {quote_name('metric')}, "
            f"CASE WHEN rf__state = 2 THEN {_NAN} ELSE {number} END AS {quote_name('value')} "
            f"FROM rf__long WHERE rf__state <> 3 ORDER BY {nulls_last}rf__q NULLS LAST, rf__i"
        )
        return finish(f"{with_} {final}", target)
    # means only: the accuracy statement as the dbt package and the docs print it
    means, head, tail, _ = _means(keys, segments, cols)
    return finish(f"{with_} {means.format(head=head, value=quote_name('value'), n=quote_name('n'), tail=tail)}", target)


#: the dialects whose CTEs take ``AS MATERIALIZED`` (PostgreSQL 12+, DuckDB): the intent-aware statement's greedy-ideal
#: stages each read the stage before; DuckDB 1.4 inlined the chain (alpha_nDCG@10 with ERR_IA@10 on 7 rows ran for
#: minutes; 0.18 s materialized). The other dialects' writers keep the keyword, which they do not parse: left out there
MATERIALIZING = ("duckdb", "postgres")


def _render_intent(
    measures: list[Measure],
    target: str,
    table: Any,
    segments: list[str],
    cols: Columns,
    per_query: bool,
    order_by: str,
    qrels: Any,
    ideal_depth: Any,
    policies: dict,
    given: dict,
) -> str:
    """The statement of the intent-aware measures: the run ``table`` and the subtopic ``qrels`` (decision 0021)."""
    intent = intent_family.intent(measures)
    others = [str(m) for m in measures if m not in intent]
    if not intent:
        option = "qrels" if qrels is not None else "ideal_depth"
        raise ParameterError(
            f"{option}= is read by the intent-aware measures only (docs/diversity.md); none is asked",
            owner=OWNER,
            parameter=option,
        )
    if others:
        raise ParameterError(
            f"{', '.join(others)}: render writes the intent-aware measures ({', '.join(map(str, intent))}) in a "
            "statement of their own (the run and the subtopic qrels are two tables); render the others in another "
            "call with the joined table.",
            owner=OWNER,
            parameter="metrics",
            got=others,
        )
    extra = [name for name, value in given.items() if value is not None]
    if extra:
        raise ParameterError(
            f"{', '.join(map(keyword, extra))} is not read by the intent-aware measures; leave it out",
            owner=OWNER,
            parameter=extra[0],
            got=given[extra[0]],
        )
    intent_sql.check(intent, qrels, ideal_depth, cols.subtopic)
    chosen = bind_policies(OWNER, **policies)
    order = ORDER_BY.check(OWNER, order_by)
    _check_own_names(cols, segments)
    keys = [f"rf__s{i}" for i in range(len(segments))]
    src = intent_sql.IntentSources(
        table=_table(table),
        qrels=_table(qrels, "qrels"),
        select_keys="".join(f"{quote_name(s)} AS {k}, " for s, k in zip(segments, keys)),
        query=quote_name(cols.query),
        item=quote_name(cols.item),
        key=quote_name(cols.rank if order == "rank" else cols.score),
        subtopic=quote_name(cols.subtopic),
        relevance=quote_name(cols.relevance),
        order=order,
        postgres=target == "postgres",
        system_key=next((k for s, k in zip(segments, keys) if s == cols.system), None),
    )
    states = {name: _POLICY_STATE[chosen[name]] for name in ("no_judged", "no_retrieved", "no_relevant")}
    part = intent_sql.build(list(enumerate(intent)), src, keys, ideal_depth, states)
    ctes = part.ctes
    if target in MATERIALIZING:  # each stage computed once (DuckDB 1.4 inlined the chain: minutes for 20 stages)
        ctes = [cte.replace(" AS (", " AS MATERIALIZED (", 1) for cte in ctes]
    labels = " UNION ALL ".join(
        f"SELECT {i} AS rf__i, {string_literal(label)} AS rf__metric" for i, label in part.labels
    )
    with_ = f"WITH {', '.join(ctes)}, rf__metrics AS ({labels}), rf__long AS ({' UNION ALL '.join(part.long)})"
    return _final(with_, keys, segments, cols, per_query, target)


def finish(text: str, target: str) -> str:
    """The statement written in rankframe's SQL (PostgreSQL's) as the target dialect writes it, pretty-printed."""
    statement = sqlglot().parse_one(text, read="postgres")
    _plain_window_order(statement, target)
    return statement.sql(dialect=target, pretty=True) + "\n"


@dataclass(frozen=True)
class Body:
    """The common part of every portable statement: the CTEs up to ``rf__long`` (one row per unit and metric)."""

    ctes: str  # "WITH rf__src AS (...), ..., rf__long AS (...)"
    keys: list[str]  # the segment keys rf__s0, rf__s1, ... (in ``segments``' order)
    measures: list[Measure]
    number: str  # the value of an rf__long row as a number (NULL when the unit is left out or NaN)
    prep: str  # the CTEs up to rf__unit: "rf__src AS (...), ..., rf__unit AS (...)"
    labels: str  # rf__metrics' SELECT: (rf__i, rf__metric) of each metric
    long: str  # rf__long's SELECT: (keys..., rf__q, rf__i, rf__metric, rf__state, rf__raw)


def statement_body(
    metrics: Any,
    target: str,
    table: Any,
    segments: list[str],
    cols: Columns,
    order_by: str,
    policies: dict,
    *,
    index: Sequence[int] | None = None,
) -> Body:
    """The CTEs shared by :func:`render` and :func:`rankframe.warehouse.compare.render_compare` (arguments checked).

    ``index`` numbers the metrics in the statement (``rf__i``; default 0, 1, ...). Accuracy metrics only: a
    beyond-accuracy metric here is NotPortable (render writes those with :mod:`rankframe.warehouse.beyond`).
    """
    source = _table(table)
    measures = parse_metrics(metrics, OWNER)
    chosen = bind_policies(OWNER, **policies)
    order = ORDER_BY.check(OWNER, order_by)
    _check_own_names(cols, segments)
    at = list(range(len(measures))) if index is None else list(index)

    t = Terms(order_by=order)
    values = [_metric_expression(t, m) for m in measures]
    nothing = [_nothing_relevant(t, m) for m in measures]
    keys = [f"rf__s{i}" for i in range(len(segments))]
    unit = ", ".join([*keys, "rf__q"])
    fill = {"unit": unit}
    ranked = {name: expr.format(**fill) for expr, name in t.ranked_windows.items()}
    whole = {name: expr.format(**fill) for expr, name in t.unit_windows.items()}

    select_keys = "".join(f"{quote_name(s)} AS {k}, " for s, k in zip(segments, keys))
    src = (
        f"SELECT {select_keys}{quote_name(cols.query)} AS rf__q, CAST({quote_name(cols.item)} AS TEXT) AS rf__item, "
        f"CAST({quote_name(cols.relevance)} AS {FLOAT}) AS {GRADE}, "
        f"{quote_name(cols.rank if order == 'rank' else cols.score)} AS rf__key FROM {source}"
    )
    ranking = _ranking(order, target, "rf__item").format(unit=unit)
    extra = t.preparation(ranking)
    ret = (
        f"SELECT {unit}, {GRADE}, ROW_NUMBER() OVER ({ranking}) AS {POS}"
        + "".join(f", {expr} AS {name}" for name, expr in extra.items())
        + " FROM rf__src WHERE rf__key IS NOT NULL"
    )
    positions = [POS, *(name for name in extra if name == JPOS)]  # the position columns every row carries
    ranked_cols = "".join(f", {expr} AS {name}" for name, expr in ranked.items())
    null_cols = "".join(f", CAST(NULL AS {FLOAT}) AS {name}" for name in ranked)
    null_positions = "".join(f", CAST(NULL AS BIGINT) AS {name}" for name in positions)
    rows = (
        f"SELECT {unit}, {GRADE}, {', '.join(positions)}{ranked_cols} FROM rf__ret "
        f"UNION ALL SELECT {unit}, {GRADE}{null_positions}{null_cols} FROM rf__src "
        "WHERE rf__key IS NULL"
    )
    x = "SELECT rf__rows.*" + "".join(f", {expr} AS {name}" for name, expr in whole.items()) + " FROM rf__rows"
    unit_sql = (
        f"SELECT {unit}, COUNT({GRADE}) AS rf__n_judged, COUNT({POS}) AS rf__n_ret"
        + "".join(
            f", {v} AS rf__v{i}, CASE WHEN {n} THEN 1 ELSE 0 END AS rf__nr{i}"
            for i, (v, n) in enumerate(zip(values, nothing))
        )
        + f" FROM rf__x GROUP BY {unit}"
    )

    def state(i: int, m: Measure) -> str:
        # a count (NumRel, ...) is defined on an empty list: no_retrieved='zero' keeps its value (as
        # numpy_engine.apply_policies: trec_eval -c prints num_rel for a query the run did not retrieve)
        empty = 0 if m.spec.count and chosen["no_retrieved"] == "zero" else _POLICY_STATE[chosen["no_retrieved"]]
        return (
            f"CASE WHEN rf__n_judged = 0 THEN {_POLICY_STATE[chosen['no_judged']]} "
            f"WHEN rf__n_ret = 0 THEN {empty} "
            f"WHEN rf__nr{i} = 1 THEN {_POLICY_STATE[chosen['no_relevant']]} ELSE 0 END"
        )

    labels = " UNION ALL ".join(
        f"SELECT {at[i]} AS rf__i, {string_literal(str(m))} AS rf__metric" for i, m in enumerate(measures)
    )
    states = " ".join(f"WHEN {at[i]} THEN {state(i, m)}" for i, m in enumerate(measures))
    raws = " ".join(f"WHEN {at[i]} THEN u.rf__v{i}" for i in range(len(measures)))
    long = (
        f"SELECT {', '.join('u.' + c for c in [*keys, 'rf__q'])}, m.rf__i, m.rf__metric, "
        f"CASE m.rf__i {states} END AS rf__state, CASE m.rf__i {raws} END AS rf__raw "
        "FROM rf__unit AS u CROSS JOIN rf__metrics AS m"
    )
    number = f"CASE rf__state WHEN 0 THEN rf__raw WHEN 1 THEN CAST(0 AS {FLOAT}) END"
    prep = f"rf__src AS ({src}), rf__ret AS ({ret}), rf__rows AS ({rows}), rf__x AS ({x}), rf__unit AS ({unit_sql})"
    ctes = f"WITH {prep}, rf__metrics AS ({labels}), rf__long AS ({long})"
    return Body(ctes, keys, list(measures), number, prep, labels, long)


def _plain_window_order(statement: Any, target: str) -> None:
    """Leave NULLS FIRST/LAST out of every window's ORDER BY (BigQuery's windows take none).

    Their keys are never NULL here (the NULL ranks and scores are the not-retrieved branch), so the dialect's
    default order is right.
    """
    exp = sqlglot().exp
    for window in statement.find_all(exp.Window):
        for ordered in window.find_all(exp.Ordered):
            for nulls_first in (False, True):
                ordered.set("nulls_first", nulls_first)
                if "NULLS" not in ordered.sql(dialect=target).upper():
                    break


def string_literal(value: str) -> str:
    """A text as an SQL string literal (``'`` doubled)."""
    return "'" + value.replace("'", "''") + "'"
