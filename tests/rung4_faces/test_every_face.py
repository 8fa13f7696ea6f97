"""Every declared metric is accepted by every face of rankframe (issue 19: rf_compare refused five metrics).

One parametrized test over the registry: the pandas engine, the accessor, the DuckDB engine, the CLI (a Parquet
file, the DuckDB path input), polars, ``rankframe.compare``, the SQL table macros (``rf_per_query``, ``rf_means``,
``rf_compare``; a metric declared ``table_column=False`` is served in SQL by its aggregate ``rf_agg_<name>`` over
``rf_prepare``) and Spark (skipped without Java). Each face must answer with a row labelled with the metric;
``rf_compare``'s label and delta must equal ``rankframe.compare``'s (its list of metric columns was a hand copy).
Every face runs once for all metrics (module fixtures), each metric's case reading its own row: planning a table
macro costs about a second, a call of the DuckDB engine or the CLI ~0.1 CPU-s before its first metric.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from faces import macro_connection, run_cli

import rankframe
import rankframe.sql
from rankframe.measures.names import Measure
from rankframe.measures.registry import BEYOND, METRICS

IDS = [m.name for m in METRICS]
TABLE = [m for m in METRICS if m.table_column]


def _runs() -> pd.DataFrame:
    # 2 systems x 3 queries x 4 items, grades 0-2, one unjudged row per query, b's ranking reversed
    rows = []
    for q in (1, 2, 3):
        grades = [2.0, 0.0, np.nan, 1.0] if q != 2 else [0.0, 1.0, 0.0, np.nan]
        for system, ranks in (("a", [1, 2, 3, 4]), ("b", [4, 3, 2, 1])):
            rows += [(system, q, f"d{i}", r, g) for i, (r, g) in enumerate(zip(ranks, grades))]
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])


RUNS = _runs()
ONE = RUNS[RUNS["system"] == "a"].drop(columns="system").reset_index(drop=True)


def _name(spec) -> str:
    """The metric as a string with its required parameters (IPrec has no default recall level)."""
    return f"{spec.canonical}@0.5" if spec.at == "recall" else spec.canonical


def _sql_args(spec) -> str:
    return ", recall := 0.5" if spec.at == "recall" else ""


def _label(spec, k=None) -> str:
    return str(Measure.of(spec, k=k)) if k is not None and "k" in {p.name for p in spec.params} else spec.canonical


@pytest.fixture(scope="module")
def sql_faces():
    con = macro_connection()
    con.register("runs", RUNS)
    con.register("one", ONE)
    cols = ", ".join(f'"{m.canonical}"' for m in TABLE)
    per_query = con.execute(f"SELECT query, {cols} FROM rf_per_query('one')").df()
    means = con.execute("SELECT * FROM rf_means('one')").df()
    compared = con.execute(
        f"SELECT metric, delta FROM rf_compare('runs', baseline := 'a', k := 2, metrics := {[m.canonical for m in TABLE]})"
    ).df()
    aggregates = {
        m.name: con.execute(
            f"SELECT query, rf_agg_{m.name}(rf_pos, rf_g{_sql_args(m)}) AS v FROM rf_prepare('one') GROUP BY query"
        ).df()
        for m in METRICS
        if not m.table_column
    }
    con.close()
    return per_query, means, compared, aggregates


NAMES = [_name(spec) for spec in METRICS]
#: the label each metric has in the comparisons (a cutoff metric at k=2) and what rankframe.compare is asked
COMPARED = {
    spec.name: (_label(spec, k=2), Measure.of(spec, k=2))
    if spec.table_column and _label(spec, k=2) != _name(spec)
    # a metric without a cutoff (or not a table column): asked and labelled by its name
    else (_name(spec), _name(spec))
    for spec in METRICS
}


def _cli_means(tmp: Path, names: list[str]) -> dict:
    cli = run_cli(tmp, ONE, names)  # a Parquet file, read by the DuckDB engine's path input
    assert cli.error is None and cli.means is not None, (cli.error, cli.message)
    return cli.means


def _polars_labels(names: list[str]) -> list[str]:
    pl = pytest.importorskip("polars")
    return pl.from_pandas(ONE).rank_metrics.evaluate(names)["metric"].to_list()


#: each Python face: metric names (and a folder) -> the labels it answers with, in order
FACES = {
    "pandas": lambda names, _: list(rankframe.evaluate(ONE, names)["metric"]),
    "accessor": lambda names, _: list(ONE.rank_metrics.evaluate(names)["metric"]),
    "duckdb": lambda names, _: list(rankframe.evaluate(ONE, names, engine="duckdb")["metric"]),
    "cli": lambda names, tmp: list(_cli_means(tmp, names)),
    "polars": lambda names, _: _polars_labels(names),
}


@pytest.fixture(scope="module")
def python_faces(tmp_path_factory):
    """Every metric on each Python face, one call per face (as the SQL faces): a call costs ~0.1 CPU-s before its
    first metric on the DuckDB engine and the CLI, so 27 calls per face were ~11 CPU-s of this test's ~13. Each
    metric's case reads its own row; a face that fails on the list is asked again by each case with its metric
    alone (the failure is the failing metric's, as when every case made its own calls)."""
    tmp = tmp_path_factory.mktemp("faces")
    out: dict = {}
    for face, run in FACES.items():
        try:
            out[face] = run(NAMES, tmp)
        except (Exception, pytest.skip.Exception) as e:  # noqa: BLE001 - the cases ask again, one metric each
            out[face] = e
    try:
        asked = [asked for _, asked in COMPARED.values()]
        out["compare"] = rankframe.compare(RUNS, asked, system="system", baseline="a")
    except Exception as e:  # noqa: BLE001
        out["compare"] = e
    return out


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_every_face_accepts_the_metric(spec, tmp_path, python_faces, sql_faces):
    name = _name(spec)
    for face, run in FACES.items():
        labels = python_faces[face]
        if isinstance(labels, BaseException):  # the face failed on the list: this metric alone
            assert run([name], tmp_path) == [name], face
        else:
            assert labels.count(name) == 1 and (face == "cli" or labels == NAMES), (face, labels)

    label, asked = COMPARED[spec.name]
    py = python_faces["compare"]
    if isinstance(py, BaseException):
        py = rankframe.compare(RUNS, [asked], system="system", baseline="a")
    py = py[py["metric"] == label]
    assert len(py) == 1, f"rankframe.compare has no row {label!r}"

    per_query, means, compared, aggregates = sql_faces
    if spec.table_column:
        assert name == spec.canonical
        assert name in per_query.columns and len(per_query) == 3
        assert name in means.columns
        row = compared[compared["metric"] == label]
        assert len(row) == 1, f"rf_compare has no row {label!r}: {list(compared['metric'])}"
        assert row["delta"].iloc[0] == pytest.approx(py["delta"].iloc[0], abs=1e-12, nan_ok=True)
    else:  # not a column of the table macros (declared): its aggregate over rf_prepare is the SQL face
        assert spec.canonical not in per_query.columns
        assert len(aggregates[spec.name]) == 3


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.spark
def test_spark_accepts_every_metric():
    from sparkutil import session, to_spark

    spark = session()  # skips without PySpark or Java
    import rankframe.spark as rs

    got = rs.evaluate(to_spark(spark, ONE), [_name(m) for m in METRICS])
    assert sorted(got["metric"]) == sorted(_name(m) for m in METRICS)


# ------------------------------------------------------------------------- the beyond-accuracy family (issue 21)
# Its metrics read extra inputs (catalog=, train=); the family declares the faces that serve it
# (rankframe.beyond.declare.FACES) and every other face refuses it with a RankframeError saying so (NOT_SERVED):
# never a silent drop. Each face of this test is in exactly one of the two.
CATALOG = [f"d{i}" for i in range(6)]
TRAIN = pd.DataFrame({"query": [1, 1, 2, 3], "item": ["d0", "d1", "d0", "d5"]})  # histories of ONE's queries
FEATURES = pd.DataFrame({"item": [f"d{i}" for i in range(6)], "feature": ["x", "y", "x", "y", "x", "y"]})


@pytest.fixture(scope="module")
def sql_names():
    """The columns of rf_means, and a connection with the macros installed (planned and installed once)."""
    con = macro_connection()
    con.register("one", ONE)
    columns = con.sql("SELECT * FROM rf_means('one')").columns
    yield columns, con
    con.close()


def cli_inputs(tmp_path, kw: dict) -> tuple[str, ...]:
    """--train FILE / --catalog FILE for the inputs ``kw`` (written as Parquet files)."""
    args: list[str] = []
    for key, value in kw.items():
        path = tmp_path / f"{key}.parquet"
        (pd.DataFrame({"item": value}) if key == "catalog" else value).to_parquet(path)
        args += [f"--{key}", str(path)]
    return tuple(args)


def parquet(tmp_path):
    path = tmp_path / "one.parquet"
    ONE.to_parquet(path)
    return str(path)


def _beyond_faces(name: str, kw: dict, tmp_path, sql_names) -> dict:
    import rankframe.spark as rs

    def sql():  # the family's own table macro rf_<name>, with the inputs as table arguments
        columns, con = sql_names
        base = name.split("@")[0]
        assert base not in columns, "the family is not a column of rf_means"
        for key, value in kw.items():
            con.register(key, pd.DataFrame({"item": value}) if key == "catalog" else value)
        tables = "".join(f", {key} := '{key}'" for key in kw)
        return con.execute(f"SELECT * FROM rf_{base.lower()}('one'{tables}, k := 2)").df()

    return {
        "pandas": lambda: rankframe.evaluate(ONE, [name], **kw),
        "accessor": lambda: ONE.rank_metrics.evaluate([name], **kw),
        "polars": lambda: pytest.importorskip("polars").from_pandas(ONE).rank_metrics.evaluate([name], **kw),
        "duckdb": lambda: rankframe.evaluate(ONE, [name], engine="duckdb", **kw),
        "cli": lambda: run_cli(tmp_path, ONE, [name], cli_inputs(tmp_path, kw)),
        "duckdb_files": lambda: rankframe.evaluate(parquet(tmp_path), [name], engine="duckdb", **kw),
        "compare": lambda: rankframe.compare(RUNS, [name], system="system", baseline="a", missing="zero", **kw),
        "anova": lambda: rankframe.anova(RUNS, [name], system="system", missing="drop", **kw),
        "spark": None,  # served: test_spark_serves_the_beyond_family (one Spark job for the family)
        # refused before any job (the per-list metrics are served: tests/rung4_faces/test_spark_beyond.py)
        "spark_compare": lambda: rs.compare(RUNS, [name], system="system", baseline="a", **kw),
        "spark_anova": lambda: rs.anova(RUNS, [name], system="system", missing="zero"),
        "sql": sql,
    }


@pytest.mark.parametrize("spec", BEYOND, ids=[m.name for m in BEYOND])
def test_every_face_serves_or_refuses_the_beyond_family(spec, tmp_path, sql_names):
    from rankframe.beyond.declare import NOT_SERVED, PER_LIST_FACES

    name = f"{spec.canonical}@2"
    needed = spec.needed(Measure.of(spec, k=2).kw)
    kw = {"catalog": CATALOG, "train": TRAIN, "features": FEATURES}
    kw = {key: value for key, value in kw.items() if key in needed}
    faces = _beyond_faces(name, kw, tmp_path, sql_names)
    # the CLI serves the family with --train / --catalog (it reads the table with pandas); compare serves every one
    # (set-level ones by a paired bootstrap over queries), anova the per-list ones
    served = {*spec.faces, "cli", *(PER_LIST_FACES if spec.level == "list" else ())}
    assert set(faces) == served | NOT_SERVED.keys(), "a face is neither served nor refused"
    for face, run in faces.items():
        if run is None or (face == "spark_compare" and face in served):  # Spark: one job below, and
            assert face in served, face  # tests/rung4_faces/test_spark_beyond.py
        elif face == "cli":
            out = run()
            assert out.error is None and list(out.means) == [name] and np.isfinite(out.means[name]), out
        elif face == "compare" and face in served:
            res = run()
            assert list(res["metric"]) == [name] and np.isfinite(res["delta"]).all(), face
            assert spec.level == "list" or np.isfinite(res["ci_low"]).all(), "a set-level metric has its bootstrap"
        elif face == "anova" and face in served:
            res = run()
            assert set(res["metric"]) == {name}, face
        elif face in served:
            res = run()
            assert list(res["metric"]) == [name], face
            assert np.isfinite(np.asarray(list(res["value"]), dtype=float)).all(), face
        else:
            with pytest.raises(
                rankframe.RankframeError, match="not served by|a set-level metric has no value per query"
            ):
                run()


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.spark
def test_spark_serves_the_beyond_family():
    # every metric of the family in one call of rankframe.spark.evaluate, with its inputs as Spark DataFrames
    from sparkutil import session, to_spark

    spark = session()  # skips without PySpark or Java
    import rankframe.spark as rs

    names = [f"{spec.canonical}@2" for spec in BEYOND if "spark" in spec.faces]
    assert len(names) == len(BEYOND)
    inputs = {"catalog": pd.DataFrame({"item": CATALOG}), "train": TRAIN, "features": FEATURES}
    got = rs.evaluate(to_spark(spark, ONE), names, **{k: to_spark(spark, v) for k, v in inputs.items()})
    assert got["metric"].tolist() == names
    assert np.isfinite(got["value"].to_numpy(float)).all(), got
