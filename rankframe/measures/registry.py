"""The declared metric set, collected from ``rankframe/metrics/<name>.py``; the query-set policies.

Each metric module declares ``SPEC = MetricSpec(...)`` beside its ``compute`` kernel (``rankframe.declare``);
this module imports every module of the ``rankframe.metrics`` package and collects them, in their declared
``order``: nothing is listed by hand. Everything that needs to know which metrics exist reads ``METRICS``: the
metric-name parser (``names.py``), the accessor's methods, the error messages, the docs tables, the CLI's
trec_eval names, the DuckDB engine and the tests of every derived piece (``tests/project/test_declared.py``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any, Literal, cast, get_args

from .. import beyond as _beyond
from .. import intent as _intent
from .. import metrics as _metrics
from ..core import declare
from ..core.declare import (  # noqa: F401 - re-exported: the declaration vocabulary used to live here
    GAIN,
    IDEAL,
    K_MAX,
    MAX_GRADE,
    NOTHING_RELEVANT,
    MetricSpec,
    Param,
    k_param,
    rel_param,
    with_sql_guards,
)
from ..core.errors import unknown_name_error

#: the declared metrics, in their declared order
METRICS: tuple[MetricSpec, ...] = ()
KERNELS: dict[str, Callable] = {}
BY_NAME: dict[str, MetricSpec] = {}
_ALIASES: dict[str, MetricSpec] = {}
_TREC_CUT: dict[str, MetricSpec] = {}
_FAMILIES: dict[str, MetricSpec] = {}
#: functions called after every change of the metric set (the accessor's shortcut methods, ``rankframe.METRICS``)
_LISTENERS: list[Callable[[], None]] = []


#: the beyond-accuracy family (``rankframe/beyond/<name>.py``: coverage, concentration, popularity, novelty), kept
#: apart from ``METRICS``: its metrics read extra inputs and are served by the faces ``BeyondSpec.faces`` names
BEYOND: tuple[MetricSpec, ...] = ()
BEYOND_KERNELS: dict[str, Callable] = {}
#: the intent-aware diversity family (``rankframe/intent/<name>.py``: alpha-nDCG, ERR-IA, NRBP, ...), kept apart from
#: ``METRICS`` like ``BEYOND``: its measures read a subtopic qrels and are served by the faces ``IntentSpec.faces``
INTENT: tuple[MetricSpec, ...] = ()
INTENT_KERNELS: dict[str, Callable] = {}


def _index(specs: tuple[MetricSpec, ...], kernels: dict[str, Callable]) -> None:
    """Rebuild every lookup table from ``specs`` (all or nothing: a clash leaves the tables as they were)."""
    aliases: dict[str, MetricSpec] = {}
    for m in (*specs, *BEYOND, *INTENT):
        for a in (m.name, m.canonical, *m.aliases, *([m.trec_eval] if m.trec_eval else [])):
            other = aliases.setdefault(a.lower(), m)
            if other is not m:
                raise ImportError(f"the metric name {a!r} is declared by both {other.name} and {m.name}")
    global METRICS
    METRICS = tuple(sorted(specs, key=lambda m: (m.order, m.name)))
    for table in (KERNELS, BY_NAME, _ALIASES, _TREC_CUT, _FAMILIES):  # in place: importers hold these dicts
        table.clear()
    KERNELS.update(kernels)
    BY_NAME.update({m.name: m for m in METRICS})
    _ALIASES.update(aliases)
    _TREC_CUT.update({m.trec_eval_cut.lower(): m for m in METRICS if m.trec_eval_cut})
    _FAMILIES.update({m.family[0].lower(): m for m in METRICS if m.family})
    for listener in _LISTENERS:
        listener()


def register(spec: MetricSpec, compute: Callable) -> None:
    """Add a metric declared outside ``rankframe/metrics/`` (its ``SPEC`` and ``compute``), as if it were there.

    The same path as the package's own metrics: the name parser, the engines, the accessor's shortcut methods and
    every other reader of this module see it at once. Its SQL kernel goes to :func:`rankframe.sql.register`.
    Used by tests (``tests/project/test_add_a_metric.py``) and for trying a metric before it gets its file; undo with
    :func:`unregister`. A beyond-accuracy metric (a ``BeyondSpec``, as if in ``rankframe/beyond/``) joins ``BEYOND``;
    its module's ``portable`` and ``check_rules`` hooks (:func:`beyond_hook`) are found beside ``compute``
    (``tests/project/test_add_a_beyond_metric.py``).
    """
    if spec.name in BY_NAME or spec.name in BEYOND_KERNELS:
        raise ValueError(f"a metric named {spec.name!r} is already declared")
    if getattr(spec, "beyond_family", False):  # a BeyondSpec (rankframe.beyond.declare imports this module)
        global BEYOND
        before = BEYOND
        BEYOND = tuple(sorted((*BEYOND, spec), key=lambda m: (m.order, m.name)))
        try:
            _index(METRICS, dict(KERNELS))
        except ImportError:
            BEYOND = before
            raise
        BEYOND_KERNELS[spec.name] = compute
        rules = beyond_hook(spec.name, "check_rules")
        if rules is not None:
            BEYOND_RULES[spec.name] = rules
        return
    _index((*METRICS, spec), {**KERNELS, spec.name: compute})


def unregister(name: str) -> None:
    """Remove a metric added by :func:`register` (the package's own metrics stay)."""
    if name in _BUILT_IN:
        raise ValueError(f"{name!r} is declared in rankframe/metrics/ and cannot be removed")
    if name in BY_NAME:
        _index(tuple(m for m in METRICS if m.name != name), {n: f for n, f in KERNELS.items() if n != name})
    elif name in BEYOND_KERNELS:
        global BEYOND
        BEYOND = tuple(m for m in BEYOND if m.name != name)
        BEYOND_KERNELS.pop(name)
        BEYOND_RULES.pop(name, None)
        _index(METRICS, dict(KERNELS))


def beyond_hook(name: str, hook: str) -> Callable | None:
    """A hook of a beyond-accuracy metric's module, beside its kernel, or None.

    ``portable`` (its portable SQL, written on :class:`rankframe.warehouse.beyond.Builder`), ``check_rules`` (the
    rules between its options), ``check_features`` (a rule of features='s values). None when the module declares
    none (a metric without portable SQL is NotPortable, saying so).
    """
    kernel = BEYOND_KERNELS.get(name)
    module = None if kernel is None else sys.modules.get(kernel.__module__)
    return getattr(module, hook, None)


def added() -> tuple[tuple[MetricSpec, Callable], ...]:
    """The metrics added by :func:`register`, with their kernels (what a Spark worker must :func:`adopt`).

    The accuracy metrics only: a Spark worker runs their numpy kernels (``rankframe.spark.evaluate``'s grouped-pandas
    step), while the beyond-accuracy family runs on Spark as the portable SQL of ``rankframe.sql.render``, written on
    the driver and run by ``spark.sql``, so no worker parses or computes one
    (``tests/project/test_add_a_beyond_metric.py::test_spark_serves_it``).
    """
    return tuple((m, KERNELS[m.name]) for m in METRICS if m.name not in _BUILT_IN)


def adopt(metrics: tuple[tuple[MetricSpec, Callable], ...]) -> None:
    """Register each of ``metrics`` (from :func:`added` in another process) that this process does not know."""
    for spec, compute in metrics:
        if BY_NAME.get(spec.name) != spec:
            if spec.name in BY_NAME and spec.name not in _BUILT_IN:
                unregister(spec.name)
            register(spec, compute)


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener()`` after every :func:`register` / :func:`unregister` (and once now)."""
    _LISTENERS.append(listener)
    listener()


BEYOND, BEYOND_KERNELS = declare.collect(_beyond)
BEYOND = tuple(sorted(BEYOND, key=lambda m: (m.order, m.name)))
INTENT, INTENT_KERNELS = declare.collect(_intent)
INTENT = tuple(sorted(INTENT, key=lambda m: (m.order, m.name)))
#: the rules between a beyond-accuracy metric's options: its module's ``check_rules(**options)``, for the metrics
#: that declare one (the faces that do not run the numpy kernel call it before their SQL: the DuckDB engine)
BEYOND_RULES: dict[str, Callable[..., None]] = {
    spec.name: rules for spec in BEYOND if (rules := beyond_hook(spec.name, "check_rules")) is not None
}
_index(*declare.collect(_metrics))
_BUILT_IN = frozenset([*BY_NAME, *BEYOND_KERNELS])
_TREC_CUT_NAME = re.compile(r"^(?P<family>[A-Za-z_]+?)_(?P<k>[0-9]+(?:\.[0-9]+)?)$")


def trec_cut(name: str) -> tuple[MetricSpec, int | float] | None:
    """A trec_eval cutoff name (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.50``) as (metric, value after @).

    >>> spec, k = trec_cut("ndcg_cut_10"); (spec.canonical, k)
    ('nDCG', 10)
    >>> spec, r = trec_cut("iprec_at_recall_0.50"); (spec.canonical, r)
    ('IPrec', 0.5)
    """
    m = _TREC_CUT_NAME.match(name)
    if m is None or name.lower() in _ALIASES:
        return None
    spec = _TREC_CUT.get(m.group("family").lower())
    value = m.group("k")
    if spec is None or (spec.at == "k") == ("." in value):  # P_5.5 and iprec_at_recall_1 are no trec_eval names
        return None
    return spec, (int(value) if spec.at == "k" else float(value))


def family(name: str) -> tuple[MetricSpec, tuple] | None:
    """A name that stands for several measures (``iprec_at_recall``: the 11-point curve) as (metric, values)."""
    spec = _FAMILIES.get(name.lower()) if isinstance(name, str) else None
    return None if spec is None or spec.family is None else (spec, spec.family[1])


def lookup(name: str) -> MetricSpec:
    """Find a metric by any of its names (case-insensitive), trec_eval's whole-list names included."""
    spec = _ALIASES.get(name.lower())
    if spec is None:
        every = (*METRICS, *BEYOND, *INTENT)
        known = [m.canonical for m in every] + [m.name for m in every if m.name != m.canonical.lower()]
        raise unknown_name_error("metric", name, known)
    return spec


# Query-set policies: what a query's value is when its value is undefined or when it has no data.
#: the type of ``no_relevant=``, ``no_retrieved=``, ``no_judged=``
Policy = Literal["zero", "nan", "skip"]
POLICY_CHOICES: tuple[Policy, ...] = get_args(Policy)
POLICIES: tuple[Param, ...] = (
    Param(
        "no_relevant",
        "zero",
        "judged query with nothing relevant (metrics undefined without relevant "
        "items): 'zero' counts it as 0 (trec_eval), 'nan' keeps it as NaN (left out of means), 'skip' drops it",
        choices=POLICY_CHOICES,
    ),
    Param(
        "no_retrieved",
        "zero",
        "judged query with nothing retrieved: 'zero' counts it as 0 (trec_eval -c, "
        "ir_measures), 'skip' drops it (trec_eval default), 'nan' keeps NaN",
        choices=POLICY_CHOICES,
    ),
    Param(
        "no_judged",
        "skip",
        "query with retrieved rows but no judgment at all: 'skip' drops it (trec_eval), "
        "'zero' scores it 0, 'nan' keeps NaN",
        choices=POLICY_CHOICES,
    ),
)


#: the one set of query-set defaults every face uses (evaluate, the accessor, the CLI; the SQL macros' defaults are
#: held against it by a test)
POLICY_DEFAULTS: dict[str, Policy] = cast("dict[str, Policy]", {p.name: p.default for p in POLICIES})


def bind_policies(owner: str = "evaluate", **given: Any) -> dict[str, str]:
    """Fill the query-set policy defaults and check the given values."""
    values = {p.name: p.default for p in POLICIES}
    names = {p.name: p for p in POLICIES}
    for key, val in given.items():
        if key not in names:
            raise unknown_name_error("policy", key, names)
        values[key] = names[key].check(owner, val)
    return values


def params_markdown(specs: tuple[MetricSpec, ...] | None = None) -> str:
    """The parameter table of docs/metrics.md (of docs/beyond-accuracy.md with ``BEYOND``), from the declarations."""
    lines = ["| metric | method / aliases | parameter | default | allowed | meaning |", "|---|---|---|---|---|---|"]
    for m in METRICS if specs is None else specs:
        names = ", ".join(dict.fromkeys([m.name, *m.aliases]))
        for i, p in enumerate(m.params):
            head = f"`{m.canonical}` | {names}" if i == 0 else " | "
            lines.append(f"| {head} | `{p.name}` | `{p.default!r}` | {p.expected()} | {p.description} |")
    return "\n".join(lines)


def table_params() -> tuple[tuple[str, Param, tuple[str, ...]], ...]:
    """The metric parameters of the SQL table macros: (name in SQL, declaration, columns that read it).

    Every parameter a metric column of the table macros declares (``MetricSpec.table_param`` names it in SQL, e.g.
    nDCG's ``rel`` is ``graded_rel``), in the metrics' order, then the query-set policies (:data:`POLICIES`). The
    one list from which :func:`sql_params_block` generates the parameter lists of ``rf_per_query``, ``rf_means``,
    ``rf_compare`` and ``rf_anova`` (``rankframe/sql.py``) and the table of docs/sql.md (:func:`sql_params_markdown`).
    Two metrics that name one SQL parameter must declare the same default: a macro has one. A metric's preset
    (``like``) is not a table parameter: the table macros' options are shared by their columns, so a preset is
    spelled there by its options (``nDCG(like='rectools')`` is ``gain := 'binary', ideal := 'full'``).
    """
    found: dict[str, tuple[Param, list[str]]] = {}
    for m in METRICS:
        if not m.table_column:
            continue
        for p in m.params:
            if p.name == "like":
                continue
            name = m.table_param(p.name)
            first, columns = found.setdefault(name, (p, []))
            if repr(first.default) != repr(p.default):
                raise ValueError(
                    f"{m.canonical} declares {p.name}={p.default!r}, its SQL table parameter {name} has the default "
                    f"{first.default!r} from {columns[0]}: give it another name (sql_table_params) or the same default"
                )
            columns.append(m.canonical)
    for p in POLICIES:
        found[p.name] = (p, [m.canonical for m in METRICS if m.table_column])
    return tuple((name, p, tuple(columns)) for name, (p, columns) in found.items())


def sql_literal(value: Any) -> str:
    """A declared default as DuckDB SQL: ``NULL``, ``true``/``false``, a quoted text, a number as Python writes it."""
    return declare.sql_literal(value, exact=False)


#: the block of sql/evaluate.sql that :func:`write_sql_params` writes: one ``-- rf:param`` line per parameter
SQL_PARAMS_BEGIN = "-- rf:generated-begin (rankframe.registry.write_sql_params: the declared metric parameters)"
SQL_PARAMS_END = "-- rf:generated-end"
SQL_PARAMS_FILE = "sql/evaluate.sql"
#: the block of sql/intent.sql that :func:`write_sql_params` writes (:func:`intent_sql_block`)
INTENT_BEGIN = "-- rf:generated-begin (rankframe.registry.write_sql_params: the declared intent-aware measures)"
INTENT_SQL_FILE = "sql/intent.sql"


def sql_params_block() -> str:
    """The ``-- rf:param <name> := <default>`` lines, from :func:`table_params`, between their two marker lines.

    ``rankframe/sql.py`` (the loader, standard library only) reads them and fills the ``/* rf:generated
    metric_params */`` (``k := NULL, rel := 1, ...``) and ``/* rf:generated metric_args */`` (``k, rel, ...``)
    markers of the table macros with them.
    """
    lines = [f"-- rf:param {name} := {sql_literal(p.default)}" for name, p, _ in table_params()]
    return "\n".join([SQL_PARAMS_BEGIN, *lines, SQL_PARAMS_END])


def write_sql_params(path: str = SQL_PARAMS_FILE, intent_path: str = INTENT_SQL_FILE) -> None:
    """Regenerate the generated blocks of the SQL files from the declarations.

    The ``rf:param`` block of sql/evaluate.sql (:func:`sql_params_block`), the ``rf:intent`` block of
    sql/intent.sql (:func:`intent_sql_block`) and the parameter checks of each metric's public macros in
    sql/<name>.sql (:func:`rankframe.declare.with_sql_guards`).
    """
    from pathlib import Path

    for spec in METRICS:
        file = Path(path).parent / f"{spec.name}.sql"
        if file.is_file():  # a metric registered at run time has no file of sql/
            file.write_text(with_sql_guards(spec, file.read_text(encoding="utf-8")), encoding="utf-8")

    for name, begin, block in (
        (path, SQL_PARAMS_BEGIN, sql_params_block()),
        (intent_path, INTENT_BEGIN, intent_sql_block()),
    ):
        file = Path(name)
        text = file.read_text(encoding="utf-8")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(SQL_PARAMS_END, 1)
        file.write_text(head + block + tail, encoding="utf-8")


def intent_table_params() -> tuple[Param, ...]:
    """The parameters of the intent-aware table macros (``rf_intent_per_query`` / ``rf_intent_means``).

    Every parameter a measure of :data:`INTENT` declares (k, alpha, beta, rel, like: one macro parameter each, the
    measures' order), then the query-set policies (:data:`POLICIES`). A macro has one default per parameter: two
    measures that declare one name with two defaults are an error here.
    """
    found: dict[str, Param] = {}
    for m in INTENT:
        for p in m.params:
            first = found.setdefault(p.name, p)
            if repr(first.default) != repr(p.default):
                raise ValueError(f"{m.canonical} declares {p.name}={p.default!r}, another measure {first.default!r}")
    return (*found.values(), *POLICIES)


def intent_sql_block() -> str:
    """The ``-- rf:intent`` lines of sql/intent.sql: each measure of the qrels form with its presets, each parameter.

    ``-- rf:intent <canonical> kernel=<name> presets=<a,b>`` (the recommender form's preset left out: it has no SQL
    kernel; ``kernel``: the column of ``rf__intent_values``) and ``-- rf:intent_param <name> := <default>``.
    ``rankframe/sql.py`` (the loader, standard library only) fills the ``rf:generated intent_*`` markers of
    sql/intent.sql with them: the measures' list, their output columns, the macros' parameters and the presets.
    """
    from ..intent.declare import INFORMFULLY

    lines = [
        f"-- rf:intent {m.canonical} kernel={m.name} presets={','.join(p for p in m.presets if p != INFORMFULLY)}"
        for m in INTENT
    ]
    lines += [f"-- rf:intent_param {p.name} := {sql_literal(p.default)}" for p in intent_table_params()]
    return "\n".join([INTENT_BEGIN, *lines, SQL_PARAMS_END])


def sql_params_markdown() -> str:
    """The table of the table macros' metric parameters in docs/sql.md, from :func:`table_params`."""
    lines = ["| parameter | default | allowed | read by |", "|---|---|---|---|"]
    for name, p, columns in table_params():
        read_by = "a query-set policy, on the columns it applies to" if p in POLICIES else ", ".join(columns)
        allowed = p.expected().replace("None", "NULL").replace("True or False", "true or false")
        allowed = allowed.replace("a dict {grade: gain}", "a `MAP {grade: gain}`")
        lines.append(f"| `{name}` | `{sql_literal(p.default)}` | {allowed} | {read_by} |")
    return "\n".join(lines)


def names_markdown() -> str:
    """The table of names and properties of docs/metrics.md, generated from the declarations."""
    lines = [
        "| metric | method | aliases | trec_eval | ir_measures | nothing relevant | range |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in METRICS:
        aliases = ", ".join(f"`{a}`" for a in dict.fromkeys(m.aliases) if a not in (m.name, m.canonical.lower()))
        trec = [f"`{m.trec_eval}`"] if m.trec_eval else []
        if m.trec_eval_cut:
            trec.append(f"`{m.trec_eval_cut}_<k>`" if m.at == "k" else f"`{m.trec_cut_name(0.5)}` (any {m.at} level)")
        if m.family:
            trec.append(f"`{m.family[0]}` (its {len(m.family[1])} levels, in a list of metrics)")
        none = "—" if m.nothing_relevant is None else f"*needs relevant*: {NOTHING_RELEVANT[m.nothing_relevant]}"
        value_range = "[0, 1]" + (", perfect = 1" if m.perfect_is_one else "") if m.bounded else ">= 0"
        lines.append(
            f"| `{m.canonical}` | `{m.name}` | {aliases or '—'} | {', '.join(trec) or '—'} | "
            f"{f'`{m.ir_measures}`' if m.ir_measures else '—'} | {none} | {value_range} |"
        )
    return "\n".join(lines)


def directions_markdown(specs: tuple[MetricSpec, ...] | None = None) -> str:
    """The direction table of docs/metrics.md (of docs/beyond-accuracy.md with ``BEYOND``), from the declarations.

    What :func:`rankframe.direction` answers for each metric, the option values that turn it, and why.
    """
    from ..core.declare import BETTER

    words = {1: "higher", -1: "lower", 0: "none"}
    lines = ["| metric | better | turned by | why |", "|---|---|---|---|"]
    for m in METRICS if specs is None else specs:
        turned = "; ".join(f"`{name}={value!r}`: {words[BETTER[way]]}" for name, value, way in m.better_when)
        lines.append(f"| `{m.canonical}` | {words[BETTER[m.better]]} | {turned or '—'} | {m.better_why} |")
    return "\n".join(lines)


def beyond_directions_markdown() -> str:
    """The direction table of the beyond-accuracy family (docs/beyond-accuracy.md), from the declarations."""
    return directions_markdown(BEYOND)


def beyond_markdown() -> str:
    """The parameter table of the beyond-accuracy family (docs/beyond-accuracy.md), from the declarations."""
    return params_markdown(BEYOND)


#: the generated tables of docs/diversity.md (the intent-aware family)
INTENT_TABLES: dict[str, Callable[[], str]] = {
    "intent": lambda: params_markdown(INTENT),
    "intent-directions": lambda: directions_markdown(INTENT),
}
_TABLES: dict[str, Callable[[], str]] = {
    "names": names_markdown,
    "params": params_markdown,
    "directions": directions_markdown,
}
BEYOND_DOC = "docs/beyond-accuracy.md"
INTENT_DOC = "docs/diversity.md"


def write_params_doc(path: str = "docs/metrics.md") -> None:
    """Regenerate the generated tables (between ``<!-- names:start -->``-style markers) of docs/metrics.md.

    The tables of the intent-aware family in docs/diversity.md (``<!-- intent:start -->``, :data:`INTENT_TABLES`),
    the table of the beyond-accuracy family in docs/beyond-accuracy.md (``<!-- beyond:start -->``) and that of the
    SQL table macros' parameters in docs/sql.md (``<!-- sql-params:start -->``) are regenerated with it, when those
    pages are beside ``path``.
    """
    from pathlib import Path

    _write_tables(Path(path), _TABLES)
    sql_doc = Path(path).parent / "sql.md"
    if sql_doc.exists():
        _write_tables(sql_doc, {"sql-params": sql_params_markdown})
    beyond = Path(path).parent / Path(BEYOND_DOC).name
    if beyond.exists():
        _write_tables(beyond, {"beyond": beyond_markdown, "beyond-directions": beyond_directions_markdown})
    diversity = Path(path).parent / Path(INTENT_DOC).name
    if diversity.exists():
        _write_tables(diversity, INTENT_TABLES)


def _write_tables(path: Any, tables: dict[str, Callable[[], str]]) -> None:
    doc = path.read_text()
    for key, make in tables.items():
        start, end = f"<!-- {key}:start -->", f"<!-- {key}:end -->"
        head, rest = doc.split(start, 1)
        _, tail = rest.split(end, 1)
        doc = f"{head}{start}\n{make()}\n{end}{tail}"
    path.write_text(doc)
