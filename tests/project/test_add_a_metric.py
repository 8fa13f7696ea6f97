"""Adding a metric touches four places, and every face serves it (issue 20, "Must show" 2): a dry run.

The fake metric ``LastHit@k`` (the position of the deepest relevant item in the top k, 0 when none) is added here
the way CONTRIBUTING.md ("Add a metric") says a real one is, and nothing else is edited:

1. the declaration: ``SPEC = MetricSpec(...)``, which would be ``rankframe/metrics/last_hit.py``;
2. the numpy kernel: ``compute(prep, *, k, rel)`` beside it, in the same file;
3. the SQL kernel: ``SQL`` below, which would be ``sql/last_hit.sql`` (the list macro ``rf_last_hit``, the
   aggregates ``rf_agg_last_hit`` / ``rf__agg_last_hit``, and its ``-- rf:column`` / ``-- rf:value`` lines, from
   which the loader wires it into ``rf_per_query``, ``rf_means`` and ``rf_compare``);
4. the hand cases: ``CASES`` below, which would join the hand-derived cases of the tests.

A file in ``rankframe/metrics/`` is collected by ``rankframe.registry``, a file in ``sql/`` by ``rankframe.sql``;
here the two go through the hooks those collectors feed (``registry.register`` and ``sql.register``), so the rest
of rankframe takes the same road as for a real metric: the name parser, ``evaluate`` on both engines, the
accessor's ``evaluate`` and its generated shortcut ``last_hit()``, the DuckDB engine, the SQL table macros
(``rf_per_query``, ``rf_means``, ``rf_compare``), the CLI, ``compare``, polars and Spark. No edit of
``sql/evaluate.sql``, ``sql/compare.sql``, the CLI, the accessor, the engines, ``checks.py``, Spark or the docs
tables is needed (``docs/metrics.md``'s generated tables are regenerated from the declarations, and
``tests/project/test_declared.py`` then asks for the metric's written definition there: a real metric's fifth,
prose, place).

A metric with a *new parameter* (not ``k``, ``rel``, ``gain``... that the table macros already take) also needs
that parameter added to the table macros' parameter lists (``rf_per_query``, ``rf_means``, ``rf_compare``,
``rf__check_params``); ``tests/project/test_declared.py`` says so when it is missing.

The fixture removes the metric again (``unregister``), so the other tests of the process never see it; every
step is process-local, so pytest-xdist workers do not interfere.
"""

from __future__ import annotations

import contextlib
import io
import sys

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankframe
import rankframe.sql as rf_sql
from rankframe import cli
from rankframe.core.declare import MetricSpec, k_param, rel_param
from rankframe.measures import registry

# --------------------------------------------------------------------------------- 1. the declaration
SPEC = MetricSpec(
    name="last_hit",
    canonical="LastHit",
    aliases=("last_hit", "deepest_hit"),
    summary="position of the deepest relevant item in the top k (0 when none)",
    params=(k_param(), rel_param()),
    bounded=False,
    example="3.0",
    example_why="grades [0, 2, 1]: the deepest relevant item is at rank 3",
    order=175,
)


# --------------------------------------------------------------------------------- 2. the numpy kernel
def compute(prep, *, k, rel):
    top = prep.cut(k)
    hit = top.at_least(rel)
    values = np.zeros(prep.n)
    np.maximum.at(values, top.group[hit], top.pos[hit].astype(np.float64))  # one vectorised pass, no loop per query
    return values, None


# --------------------------------------------------------------------------------- 3. the SQL kernel
SQL = """
-- LastHit@k: the position of the deepest relevant item in the top k, 0 when none (a fake metric: tests only)
CREATE OR REPLACE MACRO rf_last_hit(grades, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_last_hit') < 0
              OR rf__rel(rel, 'rf_last_hit') IS NULL
         THEN NULL
         ELSE CAST(coalesce(list_max(rf__hitpos(coalesce(grades, []), rf__as_k(k), rf__as_num(rel))), 0) AS DOUBLE)
    END;

CREATE OR REPLACE MACRO rf__agg_last_hit(pos, grade, k, rel) AS
    CAST(coalesce(max(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade >= rel), 0) AS DOUBLE);

CREATE OR REPLACE MACRO rf_agg_last_hit(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_last_hit') < 0
              OR rf__rel(rel, 'rf_agg_last_hit') IS NULL
         THEN NULL
         ELSE rf__agg_last_hit(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- rf:column LastHit order=175 nothing_relevant=none
-- rf:value rf__agg_last_hit(x.rf_pos, x.rf_g, k, rel)
"""


# --------------------------------------------------------------------------------- 4. the hand cases
def _runs() -> pd.DataFrame:
    # system a, grades in rank order:  q1 [0, 2, 1, 0]   q2 [1, 0, 0]   q3 [0, 0] + one unretrieved grade-1 item
    # system b ranks each list reversed: q1 [0, 1, 2, 0]   q2 [0, 0, 1]   q3 [0, 0] + the same unretrieved item
    lists = {1: [0.0, 2.0, 1.0, 0.0], 2: [1.0, 0.0, 0.0], 3: [0.0, 0.0]}
    rows = []
    for q, grades in lists.items():
        n = len(grades)
        for i, g in enumerate(grades):
            rows += [("a", q, f"d{i}", i + 1, g), ("b", q, f"d{i}", n - i, g)]
        if q == 3:
            rows += [(s, q, "unretrieved", None, 1.0) for s in ("a", "b")]
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])


RUNS = _runs()
ONE = RUNS[RUNS["system"] == "a"].drop(columns="system").reset_index(drop=True)

#: metric string -> per-query values of system a (q1, q2, q3), derived by hand from the lists above
CASES = {
    # rel 1: q1's relevant items at ranks 2 and 3 -> 3; q2's at rank 1 -> 1; q3 retrieves none -> 0
    "LastHit": [3.0, 1.0, 0.0],
    # top 2: q1 [0, 2] -> 2; q2 [1, 0] -> 1; q3 -> 0
    "LastHit@2": [2.0, 1.0, 0.0],
    # rel 2: only q1's grade-2 item at rank 2 -> 2; q2 and q3 have no grade >= 2 -> 0
    "LastHit(rel=2)": [2.0, 0.0, 0.0],
}
#: system b against a on LastHit (whole lists): b = q1 3 (grade 1 at rank 3), q2 3, q3 0 -> differences 0, 2, 0
COMPARED = {"mean": 2.0, "baseline_mean": 4 / 3, "delta": 2 / 3, "wins": 1, "ties": 2, "losses": 0}


def _mean(name: str) -> float:
    return float(np.mean(CASES[name]))


@pytest.fixture
def fake_metric():
    """The metric registered for one test, then removed (the registry and the SQL set as they were)."""
    registry.register(SPEC, compute)
    rf_sql.register(SPEC.name, SQL)
    try:
        yield SPEC
    finally:
        rf_sql.unregister(SPEC.name)
        registry.unregister(SPEC.name)


def test_python_faces_serve_it(fake_metric):
    assert rankframe.parse("deepest_hit@2") == rankframe.Measure.of("LastHit", k=2)
    assert fake_metric in rankframe.METRICS
    for name, values in CASES.items():
        for engine in ("pandas", "duckdb"):
            per = rankframe.evaluate(ONE, [name], per_query=True, engine=engine)
            assert per["value"].tolist() == pytest.approx(values), (engine, name)
            means = rankframe.evaluate(ONE, [name], engine=engine)
            assert means["value"].tolist() == pytest.approx([_mean(name)]), (engine, name)
        assert ONE.rank_metrics.evaluate([name])["value"].tolist() == pytest.approx([_mean(name)])
    # the accessor's generated shortcut, with its doctest of the declared example
    assert ONE.rank_metrics.last_hit(k=2) == pytest.approx(_mean("LastHit@2"))
    assert ONE.rank_metrics.deepest_hit(rel=2) == pytest.approx(_mean("LastHit(rel=2)"))
    assert "rank 3" in rankframe.RankMetrics.last_hit.__doc__


def test_compare_serves_it(fake_metric):
    got = rankframe.compare(RUNS, ["LastHit"], system="system", baseline="a")
    row = got.iloc[0]
    assert (row["metric"], row["system"]) == ("LastHit", "b")
    for col, value in COMPARED.items():
        assert row[col] == pytest.approx(value), col


def test_polars_serves_it(fake_metric):
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(ONE)
    got = frame.rank_metrics.evaluate(list(CASES))
    assert got["value"].to_list() == pytest.approx([_mean(n) for n in CASES])
    assert frame.rank_metrics.last_hit(k=2) == pytest.approx(_mean("LastHit@2"))


def test_sql_macros_serve_it(fake_metric):
    con = rf_sql.install(duckdb.connect())
    try:
        con.register("runs", RUNS)
        con.register("one", ONE)
        # the list macro and the aggregate, on q1's list
        assert con.execute("SELECT rf_last_hit([0, 2, 1, 0], k := 2)").fetchall() == [(2.0,)]
        agg = con.sql(
            "SELECT query, rf_agg_last_hit(rf_pos, rf_g) AS v FROM rf_prepare('one') GROUP BY query ORDER BY query"
        )
        assert [v for _, v in agg.fetchall()] == CASES["LastHit"]
        # the table macros, wired from the rf:column lines
        for k, name in ((None, "LastHit"), (2, "LastHit@2")):
            kw = "" if k is None else f", k := {k}"
            per = con.execute(f"SELECT query, \"LastHit\" FROM rf_per_query('one'{kw}) ORDER BY query").fetchall()
            assert [v for _, v in per] == CASES[name]
            means = con.execute(f"SELECT n_queries, \"LastHit\" FROM rf_means('one'{kw})").fetchall()[0]
            assert means == (3, pytest.approx(_mean(name)))
        assert con.execute("SELECT \"LastHit\" FROM rf_per_query('one', rel := 2) ORDER BY query").fetchall() == [
            (v,) for v in CASES["LastHit(rel=2)"]
        ]
        compared = con.execute(
            "SELECT metric, system, mean, baseline_mean, delta, wins, ties, losses "
            "FROM rf_compare('runs', baseline := 'a', metrics := ['LastHit', 'AP'])"
        ).df()
        row = compared[compared["metric"] == "LastHit"].iloc[0]
        assert row["system"] == "b"
        for col, value in COMPARED.items():
            assert row[col] == pytest.approx(value), col
    finally:
        con.close()
    # the bundle for the DuckDB CLI (.read rankframe.sql) has it too
    assert "rf_last_hit" in rf_sql.bundle().read_text()


def test_cli_serves_it(fake_metric, tmp_path):
    path = tmp_path / "runs.parquet"
    ONE.to_parquet(path)
    out, err = io.StringIO(), io.StringIO()
    args = ["evaluate", str(path), "-m", "LastHit", "-m", "LastHit@2", "--format", "csv", "--no-progress"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    assert code == 0, err.getvalue()
    table = pd.read_csv(io.StringIO(out.getvalue()))
    got = dict(zip(table["metric"], table["value"]))
    assert got == pytest.approx({"LastHit": _mean("LastHit"), "LastHit@2": _mean("LastHit@2")})


def test_unregister_leaves_nothing_behind():
    before = (rankframe.METRICS, rf_sql.text())
    registry.register(SPEC, compute)
    rf_sql.register(SPEC.name, SQL)
    rf_sql.unregister(SPEC.name)
    registry.unregister(SPEC.name)
    assert (rankframe.METRICS, rf_sql.text()) == before
    assert not hasattr(rankframe.RankMetrics, "last_hit")
    with pytest.raises(rankframe.UnknownMetricError):
        rankframe.parse("LastHit")
    with pytest.raises(ValueError, match="cannot be removed"):
        registry.unregister("ap")  # the package's own metrics stay


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.spark
def test_spark_serves_it(fake_metric):
    from sparkutil import session, to_spark

    spark = session()  # skips without PySpark or Java
    import pyspark.cloudpickle

    import rankframe.spark as rs

    # the kernel travels to the Python workers by value (a real metric's module is importable there)
    pyspark.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        got = rs.evaluate(to_spark(spark, ONE), list(CASES))
        assert got["value"].tolist() == pytest.approx([_mean(n) for n in CASES])
        spark_compared = rs.compare(to_spark(spark, RUNS), ["LastHit"], system="system", baseline="a")
        assert spark_compared["delta"].tolist() == pytest.approx([COMPARED["delta"]])
    finally:
        pyspark.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
