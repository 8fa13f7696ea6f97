"""The dbt package's Jinja, rendered in plain Jinja (no dbt): it gives ``rankframe.sql.render``'s statement.

dbt's macro machinery is emulated in a few lines (``return()`` ends a macro with a value, ``adapter.dispatch``
picks ``<target.type>__<name>``, ``exceptions.raise_compiler_error`` raises, the ``do`` extension), so every
dialect of the package is checked here, fast: filled with the generated metric list, the template is render's
statement byte for byte for every dialect, number of ``by`` columns, shape, order and policy; a subset of the
metrics gives ``rankframe.evaluate``'s numbers on DuckDB; the arguments a warehouse cannot check are refused at
compile time. tests/sql/test_dbt_package.py runs the package in real dbt (dbt-duckdb, dbt-postgres).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest
from portable_cases import assert_same, paired_runs

import rankframe
import rankframe.sql
from rankframe.measures.arguments import parse_metrics
from rankframe.measures.registry import POLICIES
from rankframe.warehouse import dbt

jinja2 = pytest.importorskip("jinja2", reason="jinja2 (dbt's template engine) renders the package's macros")

#: the test package (small, to stay fast): conventions of portable_cases.METRICS whose labels have quotes, braces, commas, a float
METRICS = ["P(denominator='retrieved')@3", "AP", "nDCG(gains={0: 1, 2: 5}, rel=2)@4", "ERR(max_grade=5)",
           "RR(rel=2)@3", "DCG(log_base=3)"]  # fmt: skip
MAX_BY = 1
HOSTILE = ['we"ird`col', "a'b", "back\\slash", 'x"; DROP TABLE runs; --', "é ü", "select"]


class CompilerError(Exception):
    """dbt's compile-time error, as exceptions.raise_compiler_error raises it."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def _return(value: Any) -> None:
    raise _Return(value)


def _raise(message: str) -> None:
    raise CompilerError(message)


class Package:
    """The package's macros under a dbt-like context for one adapter type."""

    def __init__(self, files: dict[str, str], target: str) -> None:
        env = jinja2.Environment(extensions=["jinja2.ext.do"], undefined=jinja2.StrictUndefined)
        self.ns = SimpleNamespace()
        adapter = SimpleNamespace(dispatch=self._dispatch)
        context = {
            "rankframe": self.ns,
            "adapter": adapter,
            "exceptions": SimpleNamespace(raise_compiler_error=_raise),
            "return": _return,
            "target": SimpleNamespace(type=target),
        }
        self.target = target
        text = "\n".join(v for k, v in sorted(files.items()) if k.startswith("macros/"))
        # a Jinja module exports no _private macro (dbt's namespaces do): the emulation renames them
        module = env.from_string(re.sub(r"\b_rf_", "rfpriv_", text), globals=context).module
        for name in dir(module):
            macro = getattr(module, name)
            if isinstance(macro, jinja2.runtime.Macro):
                setattr(self.ns, name, self._wrap(macro))
                setattr(self.ns, re.sub(r"^rfpriv_", "_rf_", name), self._wrap(macro))

    @staticmethod
    def _wrap(macro: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return macro(*args, **kwargs)
            except _Return as r:
                return r.value

        return call

    def _dispatch(self, name: str, namespace: str) -> Any:
        assert namespace == "rankframe"
        return getattr(self.ns, f"{self.target}__{name}", None) or getattr(self.ns, f"default__{name}")

    def metrics(self, relation: str, metrics: Any, **kwargs: Any) -> str:
        return str(self.ns.metrics(relation, metrics, **kwargs))


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return dbt.package(METRICS, max_by=MAX_BY)


@pytest.mark.slow  # every dialect's whole package rendered through dbt's Jinja (~5-10 s each): the shipped-package proof, not a hand case
@pytest.mark.parametrize("dialect", dbt.DIALECTS)
def test_template_is_render_byte_for_byte(files, dialect):
    pkg = Package(files, dialect)
    labels = [str(m) for m in parse_metrics(METRICS, "test")]
    policy_sets = list(itertools.product(*(p.choices for p in POLICIES)))
    cases = itertools.product(range(MAX_BY + 1), (False, True), ("rank", "score"))
    for i, (n_by, per_query, order_by) in enumerate(cases):
        by = HOSTILE[:n_by]
        policies = dict(zip((p.name for p in POLICIES), policy_sets[(i * 7) % len(policy_sets)]))
        columns = {"query": "user id", "item": 'it"em', "relevance": "grade", "rank": "pos", "score": "s`core"}
        want = rankframe.sql.render(
            labels, dialect=dialect, table="runs", by=by, per_query=per_query, columns=columns, order_by=order_by,
            **policies,
        )  # fmt: skip
        got = pkg.metrics(
            dbt.quote("runs", dialect), labels, by=by, per_query=per_query, columns=columns, order_by=order_by,
            **policies,
        )  # fmt: skip
        assert got == want, (dialect, n_by, per_query, order_by, policies)


def test_every_policy_on_postgres(files):
    pkg = Package(files, "postgres")
    for values in itertools.product(*(p.choices for p in POLICIES)):
        policies = dict(zip((p.name for p in POLICIES), values))
        want = rankframe.sql.render(METRICS, dialect="postgres", by=["seg"], **policies)
        assert pkg.metrics('"runs"', METRICS, by="seg", **policies) == want, policies


@pytest.mark.parametrize("dialect", dbt.DIALECTS)
def test_quote_is_sqlglot_quote(files, dialect):
    pkg = Package(files, dialect)
    data = pkg.ns.__dict__[f"{dialect}__rf_dialect"]()
    for name in [*HOSTILE, "plain", "", "\\", '"', "`", "\\`", '\\"']:
        assert pkg.ns._rf_quote(data, name) == dbt.quote(name, dialect), name


def test_a_subset_gives_evaluate_on_duckdb(files):
    """The asked metrics only, in any order, from the package generated for all of them (rf__unit keeps the rest)."""
    pkg = Package(files, "duckdb")
    runs = paired_runs(3, n_queries=12, systems=("base",)).drop(columns="system")
    runs.loc[runs.index % 5 == 0, "relevance"] = None  # unjudged rows
    runs.loc[runs.index % 7 == 0, "rank"] = None  # judged, not retrieved
    asked = [METRICS[2], METRICS[0], METRICS[1]]  # in another order than the package's
    con = duckdb.connect()
    con.register("runs", runs)
    for by, per_query, policies in [(None, False, {}), ("seg", True, {"no_relevant": "skip"}), ("seg", False, {})]:
        sql = pkg.metrics('"runs"', asked, by=by, per_query=per_query, **policies)
        got = con.execute(sql).df()
        want = rankframe.evaluate(runs, asked, by=by, per_query=per_query, **policies)
        assert_same(want, got if "n" in want.columns else got.drop(columns=["n"], errors="ignore"))


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (
            {"metrics": ["nDCG@7"]},
            ["'nDCG@7' is not in this generated package", "rankframe sql --dbt DIR", "-m 'nDCG@7'"],
        ),
        ({"metrics": ["AP", "ap"]}, ["asks for AP twice"]),
        ({"metrics": ["P@10"]}, ["-m 'P@10' --dbt-max-by 1", "-m 'P(denominator='\\''retrieved'\\'')@3'"]),
        ({"metrics": []}, ["non-empty list"]),
        ({"metrics": [3]}, ["a metric must be a string"]),
        ({"by": ["metric"]}, ["by column 'metric' has the name of an output column"]),
        ({"by": "value"}, ["by column 'value'"]),
        ({"by": ["n"]}, ["by column 'n' has the name of an output column"]),
        ({"by": ["rf__x"]}, ["rf__*"]),
        ({"by": ["seg", "seg"]}, ["twice"]),
        ({"by": ["query"]}, ["the query column 'query'"]),
        ({"by": ["a", "b"]}, ["at most 1 by columns", "-m 'AP' -m", "--dbt-max-by 2"]),
        ({"by": [1]}, ["a by column must be a non-empty string"]),
        ({"per_query": "yes"}, ["per_query must be true or false"]),
        ({"order_by": "ranks"}, ["order_by must be one of rank, score"]),
        ({"no_judged": "drop"}, ["no_judged must be one of zero, nan, skip"]),
        ({"columns": {"qid": "q"}}, ["unknown column role 'qid'"]),
        ({"columns": ["q"]}, ["columns must be a mapping"]),
        ({"columns": {"query": "metric"}, "per_query": True}, ["the query column 'metric'"]),
    ],
)
def test_bad_arguments_are_compile_errors(files, call, words):
    pkg = Package(files, "duckdb")
    args = {"metrics": ["AP"], **call}
    with pytest.raises(CompilerError) as e:
        pkg.metrics('"runs"', args.pop("metrics"), **args)
    for w in words:
        assert w in str(e.value), (w, str(e.value))
    assert str(e.value).startswith("rankframe.metrics: ")


def test_spellings_of_a_label(files):
    """The label, the string given to the generator, either in any case; one string is a list of one."""
    pkg = Package(files, "duckdb")
    assert pkg.metrics('"runs"', "ap") == pkg.metrics('"runs"', ["AP"])
    assert pkg.metrics('"runs"', "dcg(LOG_BASE=3)") == pkg.metrics('"runs"', "DCG(log_base=3.0)")


def test_an_adapter_without_sql_is_a_compile_error(files):
    pkg = Package(files, "redshift")
    with pytest.raises(CompilerError, match="no SQL was generated for the adapter 'redshift'"):
        pkg.metrics('"runs"', ["AP"])


def test_a_metric_the_package_cannot_serve_is_refused_at_generation():
    # every metric is portable now; Coverage reads a catalog table, which the package's macro does not take
    with pytest.raises(rankframe.RankframeError, match="Coverage@5 needs catalog="):
        dbt.package(["Coverage@5"], max_by=0)
    with pytest.raises(rankframe.RankframeError, match="max_by"):
        dbt.package(["AP"], max_by=-1)


def test_shipped_package_is_the_generated_one_for_its_metrics():
    """dbt/dbt_project.yml lists SHIPPED_METRICS (the up-to-date check is tests/project/test_dbt_generated.py)."""
    labels = [str(m) for m in parse_metrics(list(dbt.SHIPPED_METRICS), "test")]
    assert labels == list(dbt.SHIPPED_METRICS)


@pytest.mark.parametrize("dialect", dbt.DIALECTS)
def test_shipped_package_at_its_most_by_columns(dialect):
    """The committed dbt/ folder (read from disk) with 3 hostile by names: render's statement for its 15 metrics."""
    root = Path(__file__).resolve().parents[2] / "dbt"
    shipped = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in root.rglob("*.sql")}
    pkg = Package(shipped, dialect)
    by = HOSTILE[: dbt.MAX_BY]
    want = rankframe.sql.render(list(dbt.SHIPPED_METRICS), dialect=dialect, by=by, order_by="score", no_judged="nan")
    got = pkg.metrics(dbt.quote("runs", dialect), list(dbt.SHIPPED_METRICS), by=by, order_by="score", no_judged="nan")
    assert got == want
