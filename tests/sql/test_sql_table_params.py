"""Every SQL table macro that evaluates the metric columns takes every declared metric parameter, as Python does.

The table macros (``rf_per_query``, ``rf_means``, ``rf_compare``, ``rf_anova``: found here as the public table
macros that reach ``rf__per_query_ok``, the one macro that computes the metric columns) take their metric
parameters from one generated list (``rankframe.registry.table_params`` -> the ``rf:param`` block of
sql/evaluate.sql -> the loader's ``metric_params`` / ``metric_args``). This file holds each macro to the
declarations themselves (not to the generator): its parameter list as DuckDB reports it (``duckdb_functions()``),
its defaults as installed, and one call per (macro, parameter) with a value other than the default, equal to the
Python face (``evaluate`` / ``compare`` / ``anova``) given the same value. Before: ``rf_compare`` and ``rf_anova``
refused ``beta``, ``log_base``, ``gains``, ``judged_only`` and ``ties`` with a DuckDB binder error.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

import rankframe
import rankframe.sql as rf_sql
from rankframe.core import constraints
from rankframe.core.declare import MetricSpec
from rankframe.measures import registry
from rankframe.measures.names import Measure

ROOT = Path(__file__).resolve().parents[2]

#: what each table macro is in Python; a new table macro that evaluates the metric columns needs a runner here
MACROS = ("rf_per_query", "rf_means", "rf_compare", "rf_anova")
K = 3  # the cutoff of every call (the denominators 'min_k' / 'retrieved' differ from the default only with a k)


def declared() -> dict[str, tuple[Any, list[tuple[MetricSpec, str]]]]:
    """{SQL name: (default, [(spec, Python name), ...])}: every parameter a metric column declares, the policies.

    A preset (``like``) is no table parameter: the table macros spell it by its options (docs/sql.md).
    """
    out: dict[str, tuple[Any, list[tuple[MetricSpec, str]]]] = {}
    for spec in registry.METRICS:
        if spec.table_column:
            for p in spec.params:
                if p.name != "like":
                    out.setdefault(spec.table_param(p.name), (p.default, []))[1].append((spec, p.name))
    for p in registry.POLICIES:
        out[p.name] = (p.default, [])
    return out


def _constraint(name: str) -> constraints.Constraint | None:
    """The rule of the metric parameter the table macros call ``name``; None for a query-set policy."""
    for spec in registry.METRICS:
        for p in spec.params:
            if spec.table_column and spec.table_param(p.name) == name:
                return p.constraint
    return None


def other_value(name: str) -> object:
    """A value other than the declared default, valid for the parameter, that changes an answer on TABLE."""
    default, users = declared()[name]
    rule = _constraint(name)
    if rule is None:  # a query-set policy
        return next(c for c in registry.POLICY_CHOICES if c != default)
    if isinstance(rule, constraints.Choice):
        return next(c for c in rule.choices if c != default)
    if isinstance(rule, constraints.Threshold):
        return 2  # rel, graded_rel: grade 1 stops counting
    values = {
        constraints.K: 2,
        constraints.FLAG: not default,
        constraints.BASE: 10.0,
        constraints.GAINS: {0: 0, 1: 1, 2: 5},  # grade 2 gains 5, not 2
        constraints.INT_AT_LEAST_1: 2,  # max_grade: TABLE's grades are at most 2
        constraints.NONNEGATIVE: 0.25,
        constraints.OPEN_UNIT: 0.5,
        constraints.UNIT: 0.5,
    }
    assert rule in values, f"no other value for a parameter that must be {rule.describe()} ({name}): add one here"
    return values[rule]


#: a parameter that acts only with another one set: tail= names the convention of RBP's residual (residual=True)
COMPANIONS: dict[str, dict[str, object]] = {"tail": {"residual": True}}


def sql_value(value: object) -> str:
    if isinstance(value, dict):
        return "MAP {" + ", ".join(f"{g}: {v}" for g, v in value.items()) + "}"
    return registry.sql_literal(value)


# Two systems A, B on six queries, ranked by score (ties := 'average' needs scores; ranks never tie):
#   q1-q3: tied scores (ties), grades 0-2 (rel, graded_rel, gain, gains, max_grade, beta, p), unjudged retrieved
#          rows (judged_only), judged rows nobody retrieved (ideal), lists shorter than k (p_denominator), more
#          relevant items than k in q1 (r_denominator, ap_denominator 'min_k');
#   q4: judged, nothing relevant (no_relevant); q5: judged, nothing retrieved (no_retrieved); q6: retrieved, no
#   judgment at all (no_judged). The judgments are the same for both systems, so every policy keeps the systems
#   aligned (rf_compare and rf_anova refuse misaligned queries).
def _table() -> pd.DataFrame:
    rows = []
    lists = {  # (system, query) -> [(item, score, grade)], score None = judged, not retrieved
        ("A", 1): [("a", 3.0, 2), ("b", 3.0, 0), ("c", 2.0, None), ("d", 1.0, 1), ("e", None, 1), ("f", None, 1)],
        ("B", 1): [("b", 3.0, 0), ("c", 2.0, None), ("a", 2.0, 2), ("d", None, 1), ("e", None, 1), ("f", None, 1)],
        ("A", 2): [("x", 1.0, None), ("y", 1.0, 1), ("z", None, 2)],
        ("B", 2): [("z", 5.0, 2), ("w", 4.0, 0), ("y", 4.0, 1)],
        ("A", 3): [("m", 2.0, 0), ("n", 2.0, 2), ("o", 2.0, 1)],
        ("B", 3): [("o", 9.0, 1), ("u", 8.0, None), ("n", 7.0, 2), ("m", None, 0)],
        ("A", 4): [("s", 2.0, 0), ("t", 1.0, 0)],
        ("B", 4): [("t", 2.0, 0), ("s", None, 0)],
        ("A", 5): [("g", None, 1)],
        ("B", 5): [("g", None, 1)],
        ("A", 6): [("h", 2.0, None), ("i", 1.0, None)],
        ("B", 6): [("i", 2.0, None)],
    }
    for (system, query), items in lists.items():
        for item, score, grade in items:
            rows.append({"system": system, "query": query, "item": item, "score": score, "relevance": grade})
    df = pd.DataFrame(rows)
    df["relevance"] = df["relevance"].astype("Float64")
    return df


TABLE = _table()


@pytest.fixture(scope="module")
def con():
    c = rf_sql.install(duckdb.connect())
    c.register("t", TABLE)
    return c


def _reach(text: str, target: str) -> set[str]:
    """The public table macros whose body calls ``target``, directly or through other macros."""
    body = {
        m[1]: m[2]
        for m in re.finditer(r"CREATE OR REPLACE MACRO (rf_\w+)\((.*?)(?=CREATE OR REPLACE MACRO |\Z)", text, re.S)
    }
    calls = {name: set(re.findall(r"\b(rf_\w+)\s*\(", b)) - {name} for name, b in body.items()}
    found, todo = set(), [n for n in body if target in calls[n]]
    while todo:
        n = todo.pop()
        if n not in found:
            found.add(n)
            todo += [m for m in body if n in calls[m]]
    return {n for n in found if not n.startswith("rf__") and re.search(rf"MACRO {n}\([^;]*?\) AS TABLE", text, re.S)}


def test_the_table_macros_that_evaluate_the_metric_columns(con):
    text = re.sub(r"--[^\n]*", "", rf_sql.text())
    assert _reach(text, "rf__per_query_ok") == set(MACROS), "a new table macro evaluates the metrics: add it to MACROS"
    kinds = dict(con.execute("SELECT function_name, function_type FROM duckdb_functions()").fetchall())
    assert all(kinds[m] == "table_macro" for m in MACROS)


def test_the_generated_parameter_block_is_current():
    # the rf:param lines the loader reads: written from the declarations, never by hand
    assert registry.sql_params_block() in (ROOT / "sql" / "evaluate.sql").read_text(encoding="utf-8"), (
        "run: python -c 'from rankframe.registry import write_sql_params; write_sql_params()'"
    )


def test_the_docs_table_names_every_declared_parameter():
    # docs/sql.md's table of the table macros' parameters: generated, and naming each declared one with its default
    doc = (ROOT / "docs" / "sql.md").read_text(encoding="utf-8")
    table = doc.split("<!-- sql-params:start -->")[1].split("<!-- sql-params:end -->")[0].strip()
    assert table == registry.sql_params_markdown(), (
        "run: python -c 'from rankframe.registry import write_params_doc; write_params_doc()'"
    )
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", table, re.M))
    assert rows == {name: registry.sql_literal(default) for name, (default, _) in declared().items()}


def _signature(macro: str) -> dict[str, str]:
    m = re.search(rf"CREATE OR REPLACE MACRO {macro}\((.*?)\) AS TABLE", rf_sql.text(), re.S)
    assert m is not None
    return {
        name.strip(): default.strip() for name, default in (p.split(":=") for p in m.group(1).split(",") if ":=" in p)
    }


@pytest.mark.parametrize("macro", MACROS)
def test_every_table_macro_takes_every_declared_parameter_with_its_default(con, macro):
    ((params,),) = con.execute(
        "SELECT parameters FROM duckdb_functions() WHERE function_name = ? AND function_type = 'table_macro'", [macro]
    ).fetchall()
    missing = [n for n in declared() if n not in params]
    assert not missing, f"{macro} lacks the declared parameter(s) {missing}"
    defaults = _signature(macro)
    for name, (default, _) in declared().items():
        assert defaults[name] == registry.sql_literal(default), f"{macro}: {name}'s default vs the declaration"


def test_every_declared_parameter_is_checked_and_reaches_the_metric_columns():
    # the list is generated; the check (an rf:param error in the words of the Python API) and the checked value the
    # rf:value lines read are written once per parameter, in rf__check_params and rf__per_query_ok
    text = rf_sql.text()
    for macro in ("rf__check_params", "rf__per_query_ok"):
        body = text.split(f"MACRO {macro}(")[1].split(";\n")[0].split(") AS", 1)[1]
        missing = [n for n in declared() if not re.search(rf"\b{n}\b", body)]
        assert not missing, f"{macro} does not read {missing}"


#: the columns a policy's calls compute: one per "nothing relevant" rule and a count (no_retrieved keeps its value)
POLICY_COLUMNS = ("P", "AP", "nDCG", "nERR", "NumRel")


def _columns(name: str) -> list[str]:
    """The metric columns each call computes: those that read the parameter (a few for a policy): fewer, faster."""
    users = declared()[name][1]
    return [s.canonical for s, _ in users] if users else list(POLICY_COLUMNS)


def _measures(name: str, value: object) -> list[Measure]:
    """The columns of :func:`_columns` as Python computes them with the SQL parameter ``name`` = ``value`` (k = K)."""
    users = {s.name: p for s, p in declared()[name][1]}
    out = []
    for spec in registry.METRICS:
        if spec.table_column and spec.canonical in _columns(name):
            kw = {"k": K} if any(p.name == "k" for p in spec.params) else {}
            if spec.name in users:
                kw[users[spec.name]] = value
                kw.update(COMPANIONS.get(name, {}))
            out.append(Measure.of(spec, **kw))
    return out


def _close(a: object, b: object) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
        return pd.isna(a) and pd.isna(b)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)  # type: ignore[arg-type]


def _canonical(label: str) -> str:
    return re.split(r"[(@]", label)[0]


def _sql(con, macro: str, name: str, args: str) -> pd.DataFrame:
    cols = _columns(name)
    keys = ["system", "query"] if macro == "rf_per_query" else ["system"]
    call = {  # rf_per_query and rf_means compute only the columns selected
        "rf_per_query": f"rf_per_query('t', segments := ['system'], order_by := 'score', {args})",
        "rf_means": f"rf_means('t', segments := ['system'], order_by := 'score', {args})",
        "rf_compare": f"rf_compare('t', baseline := 'A', metrics := {cols}, order_by := 'score', {args})",
        "rf_anova": f"rf_anova('t', metrics := {cols}, order_by := 'score', {args})",
    }[macro]
    wide = macro in ("rf_per_query", "rf_means")
    select = ", ".join([*keys, *(f'"{c}"' for c in cols)]) if wide else "*"
    frame = con.execute(f"SELECT {select} FROM {call}").df()
    if wide:  # wide -> long, as Python's frames
        frame = frame.melt(id_vars=keys, value_vars=cols, var_name="metric", value_name="value")
        return frame.assign(value=lambda f: f["value"].astype(float))
    return frame


def _python(macro: str, name: str, value: object) -> pd.DataFrame:
    policies = {name: value} if name in registry.POLICY_DEFAULTS else {}
    measures = _measures(name, value)  # a policy: the columns of POLICY_COLUMNS with their defaults
    if macro in ("rf_per_query", "rf_means"):
        return rankframe.evaluate(TABLE, measures, by="system", per_query=macro == "rf_per_query", **policies)
    if macro == "rf_compare":
        return rankframe.compare(
            TABLE, measures, system="system", baseline="A", test="t", ci_method="t", correction="holm", **policies
        )
    return rankframe.anova(TABLE, measures, system="system", **policies)


#: the columns compared, after the keys
KEYS = {
    "rf_per_query": ["system", "query", "metric"],
    "rf_means": ["system", "metric"],
    "rf_compare": ["metric", "system"],
    "rf_anova": ["metric", "term"],
}
VALUES = {
    "rf_per_query": ["value"],
    "rf_means": ["value"],
    "rf_compare": ["n", "mean", "baseline_mean", "delta", "ci_low", "ci_high", "p_value", "p_adjusted", "statistic",
                   "wins", "ties", "losses", "note"],
    "rf_anova": ["n", "systems", "statistic", "df", "df_error", "p_value", "ss", "ss_error", "note"],
}  # fmt: skip


def _rows(frame: pd.DataFrame, macro: str) -> dict[tuple, tuple]:
    frame = frame.assign(metric=frame["metric"].map(_canonical))
    if macro in ("rf_per_query", "rf_means"):  # a skipped value is NULL in SQL's wide rows and no row in Python's
        frame = frame.dropna(subset=["value"])
    return {
        tuple(str(v) for v in r[: len(KEYS[macro])]): tuple(None if pd.isna(v) else v for v in r[len(KEYS[macro]) :])
        for r in frame[KEYS[macro] + VALUES[macro]].itertuples(index=False)
    }


CASES = [(macro, name) for macro in MACROS for name in declared()]
#: the drift that shipped (rf_compare and rf_anova refused these with a binder error) runs in the quick loop; the
#: other cases plan the big macros ~1-5 s each, so they run in the full suite (CONTRIBUTING, "Tests")
SHIPPED_DRIFT = {"beta", "log_base", "gains", "judged_only", "ties"}
PARAMS = [
    pytest.param(
        m, n, id=f"{m}-{n}", marks=() if m in ("rf_compare", "rf_anova") and n in SHIPPED_DRIFT else pytest.mark.slow
    )
    for m, n in CASES
]


@pytest.mark.parametrize(("macro", "name"), PARAMS)
def test_each_parameter_gives_the_python_answer(con, macro, name):
    value = other_value(name)
    base = f"k := {K}" if name != "k" else ""
    given = {name: value, **COMPANIONS.get(name, {})}
    args = ", ".join(a for a in (base, *(f"{n} := {sql_value(v)}" for n, v in given.items())) if a)
    got = _rows(_sql(con, macro, name, args), macro)
    want = _rows(_python(macro, name, value), macro)
    assert got.keys() == want.keys(), f"{macro}({args}): rows {sorted(got.keys() ^ want.keys())[:5]} differ"
    for key, row in want.items():
        assert all(_close(g, w) for g, w in zip(got[key], row)), f"{macro}({args}) {key}: sql {got[key]}, python {row}"
    # the value is not ignored: TABLE gives another answer with the default (SQL's answer is Python's, so Python's
    # default answer stands for SQL's, one SQL call less per case)
    default = declared()[name][0] if name != "k" else K
    assert _rows(_python(macro, name, default), macro) != got, (
        f"{macro}: {name} := {sql_value(value)} changes nothing on TABLE: make TABLE show it"
    )
