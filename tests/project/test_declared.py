"""Declare once: every registered metric has every piece derived from (or held against) its declaration.

A metric is declared once, as ``SPEC`` in ``rankframe/metrics/<name>.py`` beside its numpy kernel, and its SQL
lives in ``sql/<name>.sql`` (CONTRIBUTING.md, "Add a metric"). This file fails, naming the metric and the
missing piece, when a registered metric lacks: its kernel with the declared parameters, its scalar and aggregate
SQL macros with the same parameters (names and defaults, parsed from ``sql/<name>.sql``), its column in the SQL
table macros (with the declared "nothing relevant" rule), its rows in docs/metrics.md, its accessor method with a
doctest that passes, its trec_eval and ir_measures names where declared.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import rankframe
import rankframe.metrics
import rankframe.sql as rf_sql
from rankframe.accessor import RankMetrics
from rankframe.cli import trec_name
from rankframe.core.declare import ENGINE_PARAMS, NOTHING_RELEVANT, SCORE_PARAMS, MetricSpec, with_sql_guards
from rankframe.measures.names import Measure, expand, parse
from rankframe.measures.registry import KERNELS, METRICS, sql_literal

ROOT = Path(__file__).resolve().parents[2]
SQL = ROOT / "sql"
IDS = [m.name for m in METRICS]


def _sql_literal(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return "NULL" if v is None else f"'{v}'" if isinstance(v, str) else repr(v)


def macro_signature(text: str, macro: str) -> tuple[list[str], dict[str, str]] | None:
    """(positional arguments, {named argument: default as written}) of ``CREATE ... MACRO <macro>(...)``."""
    m = re.search(rf"CREATE OR REPLACE MACRO {re.escape(macro)}\((.*?)\) AS\b", text, re.S)
    if m is None:
        return None
    positional, named = [], {}
    for part in m.group(1).split(","):
        if ":=" in part:
            name, default = part.split(":=")
            named[name.strip().strip('"')] = default.strip()
        elif part.strip():
            positional.append(part.strip())
    return positional, named


def test_every_metric_module_declares_a_metric():
    # a module with a kernel but no SPEC would be skipped by the registry without a word
    for info in pkgutil.iter_modules(rankframe.metrics.__path__):
        module = importlib.import_module(f"rankframe.metrics.{info.name}")
        if hasattr(module, "compute"):
            assert isinstance(getattr(module, "SPEC", None), MetricSpec), f"rankframe/metrics/{info.name}.py: no SPEC"


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_kernel_takes_the_declared_parameters(spec):
    params = inspect.signature(KERNELS[spec.name]).parameters
    declared = [p.name for p in spec.params if p.name not in ENGINE_PARAMS]  # the engine applies judged_only
    assert list(params)[1:] == declared, f"compute() of {spec.name} vs its declared params"


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_sql_macros_have_the_declared_parameters(spec):
    path = SQL / f"{spec.name}.sql"
    assert path.is_file(), f"{spec.canonical}: no sql/{spec.name}.sql"
    text = path.read_text(encoding="utf-8")
    # ties needs the scores, which neither the list macros (grades in rank order) nor the aggregates (positions)
    # see: the engines and the table macros take it, docs/sql.md gives the aggregates' recipe (test_sql_ties.py)
    # an option a preset sets defaults to NULL in SQL: the preset's value, or the declared default
    expected = {
        p.name: "NULL" if p.name in spec.preset_params else _sql_literal(p.default)
        for p in spec.params
        if p.name not in SCORE_PARAMS
    }
    for macro, positional in (
        (f"rf_{spec.name}", ["grades", *spec.sql_data_args]),
        (f"rf_agg_{spec.name}", ["pos", "grade"]),
    ):
        if macro.startswith("rf_agg_"):  # the aggregates take positions: judged_only is the caller's numbering
            expected = {n: v for n, v in expected.items() if n not in ENGINE_PARAMS}
        found = macro_signature(text, macro)
        assert found is not None, f"{spec.canonical}: sql/{spec.name}.sql does not define {macro}"
        assert found == (positional, expected), f"{macro}: arguments and defaults differ from the declaration"


#: the metrics whose public macros check through their helper rf__<name>_bad: dcg's and rbp's is generated too (one
#: guard per parameter); idcg's and ndcg's also state rules between parameters (ideal='full' needs k, the presets)
#: and are written by hand (issue 34)
HAND_CHECKED = ("dcg", "idcg", "ndcg", "rbp")
HAND_HELPERS = ("idcg", "ndcg")


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_the_public_macros_check_each_parameter_by_its_constraint(spec):
    """The checks at the head of rf_<name> / rf_agg_<name> are generated from the declared constraints.

    ``python -c 'from rankframe.registry import write_sql_params; write_sql_params()'`` writes them: a check left
    out, or one with other choices or another owner than the declaration's, fails here.
    """
    text = (SQL / f"{spec.name}.sql").read_text(encoding="utf-8")
    assert with_sql_guards(spec, text) == text, f"sql/{spec.name}.sql: its checks differ from the declaration's"
    heads = [m for m in _GUARDED_HEAD.findall(text) if m in (spec.sql_macro, f"rf_agg_{spec.name}")]
    if spec.name in HAND_CHECKED:
        assert f"rf__{spec.name}_bad(" in text and not heads
        broken = text.replace(" < 0\n        OR", " < 1\n        OR", 1)  # a helper's first check written otherwise
        assert (with_sql_guards(spec, broken) == broken) is (spec.name in HAND_HELPERS), "a generated helper"
    elif any(p.name not in SCORE_PARAMS for p in spec.params):  # a metric with parameters checks them
        assert heads, (
            f"sql/{spec.name}.sql: no public macro checks its parameters at its head (CASE WHEN ... THEN NULL)"
        )


#: a public macro's head whose checks are generated (not a call of the hand-written rf__<name>_bad)
_GUARDED_HEAD = re.compile(
    r"CREATE OR REPLACE MACRO (rf_\w+)\([^)]*\) AS\n    CASE WHEN (?!rf__\w+_bad\()[^;]*?\n         THEN NULL"
)


def test_the_generated_checks_cover_the_metrics():
    heads = [h for spec in METRICS for h in _GUARDED_HEAD.findall((SQL / f"{spec.name}.sql").read_text())]
    assert len(heads) >= 40, heads  # 42 public macros when written (4 metrics' are HAND_CHECKED)


def _table_macro_text() -> str:
    # the table macros as installed: evaluate.sql with its generated parts filled from the metric files' rf:column
    return rf_sql.text()


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_the_sql_kernel_declares_its_table_column_as_the_declaration(spec):
    # sql/<name>.sql's "-- rf:column" line wires the metric into rf_per_query / rf_means / rf_compare (sql.py): it
    # says what the Python declaration says
    found = rf_sql.table_columns((SQL / f"{spec.name}.sql").read_text(encoding="utf-8"))
    if not spec.table_column:
        assert found == [], f"sql/{spec.name}.sql has an rf:column line but the metric is declared table_column=False"
        return
    assert len(found) == 1, f"sql/{spec.name}.sql has no rf:column line (the metric is a column of the table macros)"
    col = found[0]
    assert col.name == spec.canonical
    assert col.nothing_relevant == (spec.nothing_relevant or "none")
    assert col.count == spec.count
    assert col.uncut == ("k" not in {p.name for p in spec.params})
    # which way is better: rf_compare's wins and losses read it (better=, default higher), as rankframe.direction
    assert {"higher": 1, "lower": -1, "none": 0}[col.better] == spec.direction(), f"sql/{spec.name}.sql better="
    # an option that turns the direction (RBP's residual=True): better_when=<parameter>:<value>:<better>
    turned = {(name, sql_literal(value), way or "none") for name, value, way in spec.better_when}
    assert set(col.better_when) == turned, f"sql/{spec.name}.sql better_when="


#: the column of rf__per_query_raw that holds each "nothing relevant" rule (false: no rule)
_NONE_COLUMN = {
    None: "false",
    "relevant": "r.rf__none_relevant",
    "gain": "r.rf__none_gain",
    "any_gain": "r.rf__none_any_gain",
}


@pytest.mark.parametrize("spec", [m for m in METRICS if m.table_column], ids=lambda m: m.name)
def test_table_macros_have_a_column_per_metric(spec):
    text = _table_macro_text()
    col = spec.canonical
    declared = {p.name for p in spec.params}
    # rf__agg_<name>_w: the windowed form (ERR, nERR) that reads running products computed over the unit; a metric
    # that declares judged_only reads the positions among the judged rows (x.rf__jp), the others rf_pos
    pos = r"x\.rf__jp" if "judged_only" in declared else r"x\.rf_pos"
    body = text.split("MACRO rf__per_query_raw(")[1].split("GROUP BY ALL;")[0]
    # the select list's expressions start at 11 spaces; continuation lines are indented further
    columns = dict((c, e) for e, c in re.findall(r'\n {11}((?:(?!\n {11}\S).)*?) AS "(\w+)"', body, re.S))
    assert col in columns, f'rf__per_query_raw has no column "{col}"'
    # a value that sums a per-row term reads it as x.rf__t_<name>, computed once per row from the rows z (rf:row):
    # the column's computation is the value with each term written out
    terms = dict((t, e) for e, t in re.findall(r"^ +(\S.*) AS (rf__t_\w+),$", body, re.M))
    value = re.sub(r"\bx\.(rf__t_\w+)\b", lambda m: "(" + terms[m[1]].replace("z.", "x.") + ")", columns[col])
    # its own aggregate (rf__agg_<name>, or its windowed _w form (ERR, nERR), or its form over terms _t / gains _g)
    assert re.search(rf"\brf__agg_{spec.name}(?:_w|_t|_g)?\(", value), (
        f'rf__per_query_raw: "{col}" is not computed by rf__agg_{spec.name}(...)'
    )
    # a metric that declares judged_only reads the positions among the judged rows (x.rf__jp) and never the list's
    # own; the others the list's own (rf_pos) and never x.rf__jp
    other = r"x\.rf_pos\b" if "judged_only" in declared else r"x\.rf__jp\b"
    assert re.search(rf"{pos}\b", value) and not re.search(other, value), (
        f'rf__per_query_raw: "{col}" must read the positions {pos.replace(chr(92), "")} only: {value}'
    )
    assert re.search(r"\bx\.rf_g\b", value), f'rf__per_query_raw: "{col}" does not read the grades x.rf_g'
    # a metric that declares ties (DCG, nDCG) reads the tie-averaged gains under ties = 'average'
    tied = "CASE WHEN ties = 'average' AND order_by = 'score'" in value
    assert tied == ("ties" in declared), (
        f"\"{col}\": a ties = 'average' branch in the table macros iff it declares ties"
    )
    # the policies, once per unit (rf__per_query_ok's rf__filled / rf__filled_count, the latter through
    # rf__count_n_ret: a count keeps its value on an empty list), applied to the column by rf__unit_policy
    applied = re.search(
        rf'rf__unit_policy\(r\."{col}", (r\.rf__filled|r\.rf__filled_count), r\.rf__fill, ([\w.]+), '
        r"r\.rf__relevant_fill\)",
        text,
    )
    assert applied, f'rf__per_query does not apply the policies to "{col}"'
    assert "rf__policy_filled(q.rf__n_judged, rf__count_n_ret(q.rf__n_ret, no_retrieved)) AS rf__filled_count" in text
    count = applied.group(1) != "r.rf__filled"
    assert count == spec.count, f'"{col}": rf__count_n_ret in the table macros iff the metric is a declared count'
    assert applied.group(2) == _NONE_COLUMN[spec.nothing_relevant], (
        f'"{col}": the table macros test nothing relevant with {applied.group(2)}, the declaration says '
        f"{spec.nothing_relevant!r}"
    )
    # rf_means averages, rf__outputs() reserves and rf_compare compares the one list rf__metric_columns()
    listed = re.search(r"MACRO rf__metric_columns\(\) AS\s*\[(.*?)\];", text, re.S)
    assert listed and f"'{col}'" in listed.group(1), f'rf__metric_columns() lacks "{col}"'


@pytest.mark.parametrize("macro", ["rf_per_query", "rf_means"])
def test_table_macros_take_every_declared_parameter_with_its_default(macro):
    found = macro_signature(_table_macro_text(), macro)
    assert found is not None
    named = found[1]
    for spec in METRICS:
        if spec.table_column:
            for p in spec.params:  # every declared parameter, but a preset's name (like=)
                if p.name == "like":
                    # a preset names one metric's conventions, while the table macros' options are shared by the
                    # metrics (gain and ideal by CG, DCG, IDCG, nDCG, nERR): they take its values instead
                    # (nDCG(like='rectools') = gain := 'binary', ideal := 'full'; docs/sql.md)
                    continue
                name = spec.table_param(p.name)
                assert name in named, f"{macro} has no parameter {name} ({spec.canonical}'s {p.name})"
                assert named[name] == _sql_literal(p.default), f"{macro}: {name}'s default vs {spec.canonical}'s"


def test_table_macros_have_no_undeclared_column():
    text = _table_macro_text()
    declared = {m.canonical for m in METRICS if m.table_column}
    listed = re.search(r"MACRO rf__metric_columns\(\) AS\s*\[(.*?)\];", text, re.S)
    assert listed is not None
    assert set(re.findall(r"'(\w+)'", listed.group(1))) == declared
    uncut = re.search(r"MACRO rf__uncut_columns\(\) AS\s*\[(.*?)\];", text, re.S)
    assert uncut is not None  # the columns whose labels carry no '@k' in rf_compare: no declared k
    assert set(re.findall(r"'(\w+)'", uncut.group(1))) == {
        m.canonical for m in METRICS if m.table_column and "k" not in {p.name for p in m.params}
    }


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_docs_have_the_metric(spec):
    doc = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    names = doc.split("<!-- names:start -->")[1].split("<!-- names:end -->")[0]
    assert f"| `{spec.canonical}` | `{spec.name}` |" in names, f"docs/metrics.md: no names row for {spec.canonical}"
    params = doc.split("<!-- params:start -->")[1].split("<!-- params:end -->")[0]
    if spec.params:
        assert f"`{spec.canonical}` | " in params, f"docs/metrics.md: no parameter rows for {spec.canonical}"
    definitions = doc.split("## Metrics", 1)[1]
    assert re.search(rf"^### .*`{re.escape(spec.name)}`", definitions, re.M), (
        f"docs/metrics.md: no ### definition naming `{spec.name}`"
    )


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_accessor_method_and_its_doctest(spec):
    method = getattr(RankMetrics, spec.name, None)
    assert method is not None, f"df.rank_metrics has no method {spec.name}()"
    assert spec.example, f"{spec.name}: declare example= (the value on the example frame, by hand)"
    test = doctest.DocTestParser().get_doctest(method.__doc__, {}, spec.name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=lambda s: None)
    assert runner.failures == 0 and runner.tries >= 3, f"the doctest of {spec.name}() fails"


@pytest.mark.parametrize("spec", [m for m in METRICS if m.trec_names], ids=lambda m: m.name)
def test_trec_eval_names_are_input_aliases_and_output_names(spec):
    if spec.trec_eval:
        assert parse(spec.trec_eval) == Measure.of(spec)
        assert trec_name(Measure.of(spec))[0] == spec.trec_eval
    if spec.trec_eval_cut:  # the cutoff k after @, or IPrec's recall level (printed with 2 decimals by trec_eval)
        value, text = (10, "10") if spec.at == "k" else (0.5, "0.50")
        name = f"{spec.trec_eval_cut}_{text}"
        assert parse(name) == Measure.of(spec, **{spec.at: value}), name
        assert trec_name(Measure.of(spec, **{spec.at: value}))[0] == name
        assert str(parse(name)) == f"{spec.canonical}@{value}"  # output labels stay canonical
    if spec.family:  # a name for several measures (iprec_at_recall: the 11-point curve) expands in metric lists
        family, values = spec.family
        assert [str(m) for m in expand(family)] == [f"{spec.canonical}@{v}" for v in values]


@pytest.mark.parametrize("spec", [m for m in METRICS if m.ir_measures], ids=lambda m: m.name)
def test_ir_measures_names_exist(spec):
    ir_measures = pytest.importorskip("ir_measures")
    assert ir_measures.parse_measure(spec.ir_measures) is not None


def test_declarations_are_consistent():
    for m in METRICS:
        assert m.nothing_relevant in (None, *NOTHING_RELEVANT)
        assert not m.perfect_is_one or m.bounded, m.name
        assert [p.name for p in m.params] == list(dict.fromkeys(p.name for p in m.params)), m.name
    assert len({m.order for m in METRICS}) == len(METRICS), "two metrics declare the same order"
    assert rankframe.METRICS == METRICS
