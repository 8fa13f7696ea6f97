"""The intent-aware family's published peer values on every face that serves the qrels form.

Issue 38 asks for the peers' own test values on pandas, the DuckDB engine, the SQL macros and Spark (and the portable
SQL of ``rankframe.sql.render``), not only parity with the pandas engine. The oracles, each with its source:

- TF-Ranking, ``tensorflow_ranking/python/metrics_impl_test.py`` (PrecisionIAMetricTest, AlphaDCGMetricTest): the
  cases of ``tests/rung2_oracles/test_intent_tf_ranking.py``, whose expected values are the test's own arithmetic;
- ir_measures, ``test/test_pyndeval.py`` (test_ERR_IA): ERR_IA@20 = 0.4659 and 0.1803 on its published run and qrels
  (``tests/rung2_oracles/test_intent_ndeval.py::published``; the test compares 4 digits, so do we);
- terrierteam/ir_measures#61 ("Minimal example for using diversity metrics"): alpha_nDCG@10 is 0.8637574337885664 for
  a run of d0 (both subtopics) and 0.4318787168942832 for a run of d1 (subtopic 0 only), ndeval's preset and ours.

Every case is a query of one table (its id prefixed by the case), so each face answers them all in one call per
parameter group. The recommender form (Informfully's test, ``like='informfully'``) is pandas-only and refused by these
faces (tests/rung1_hand/test_intent_hand.py).
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from faces import macro_connection
from loading import load

import rankframe
import rankframe.sql

HERE = Path(__file__).resolve().parent


def _load(path: Path):
    return load(path, "rf_published")


TF = _load(HERE.parent / "rung2_oracles" / "test_intent_tf_ranking.py")
NDEVAL = _load(HERE.parent / "rung2_oracles" / "test_intent_ndeval.py")


def _cases() -> tuple[pd.DataFrame, pd.DataFrame, list[tuple[str, str, float, float]]]:
    """(run, qrels, [(query, metric, expected, tolerance)]): every published case as queries of one table."""
    runs, qrels, expected = [], [], []
    for c, (metric, scores, labels, values) in enumerate(TF.PRECISION_IA + TF.ALPHA_DCG):
        run, judged = TF.frames(scores, labels)
        prefix = f"tf{c}:"
        runs.append(run.assign(query=prefix + run["query"]))
        qrels.append(judged.assign(query=prefix + judged["query"]))
        expected += [(f"{prefix}q{i}", metric, v, 1e-12) for i, v in enumerate(values)]
    run, judged = NDEVAL.published()
    runs.append(run.assign(query="ir:" + run["query"]))
    qrels.append(judged.assign(query="ir:" + judged["query"]))
    expected += [("ir:0", "ERR_IA@20", 0.4659, 5e-5), ("ir:1", "ERR_IA@20", 0.1803, 5e-5)]
    for item, value in (("d0", 0.8637574337885664), ("d1", 0.4318787168942832)):
        query = f"i61:{item}"
        runs.append(pd.DataFrame({"query": [query], "item": [item], "score": [1.0]}))
        qrels.append(
            pd.DataFrame({"query": query, "subtopic": ["0", "1", "0"], "item": ["d0", "d0", "d1"], "relevance": 1})
        )
        expected += [(query, "alpha_nDCG@10", value, 1e-12), (query, "alpha_nDCG(like='ndeval')@10", value, 1e-12)]
    run = pd.concat(runs, ignore_index=True)
    judged = pd.concat(qrels, ignore_index=True).astype({"subtopic": str, "relevance": "int64"})
    return run, judged, expected


RUN, QRELS, EXPECTED = _cases()
METRICS = list(dict.fromkeys(metric for _, metric, _, _ in EXPECTED))


def check(got: dict[tuple[str, str], float]) -> None:
    """Every published value, to its tolerance; none missing."""
    for query, metric, value, tol in EXPECTED:
        assert (query, metric) in got, (query, metric)
        mine = got[(query, metric)]
        assert not math.isnan(mine) and abs(mine - value) <= tol, (query, metric, mine, value)


def _long(frame: pd.DataFrame) -> dict[tuple[str, str], float]:
    return {(str(q), m): float(v) for q, m, v in zip(frame["query"], frame["metric"], frame["value"])}


def test_the_cases_are_many():
    assert len(EXPECTED) >= 30 and len(METRICS) >= 10


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_evaluate(engine):
    check(_long(rankframe.evaluate(RUN, METRICS, qrels=QRELS, per_query=True, engine=engine)))


def test_sql_macros():
    """rf_intent_per_query, one call per parameter group (its columns are the measures' names)."""
    con = macro_connection()
    con.register("rf_t_run", RUN)
    con.register("rf_t_qrels", QRELS)
    got: dict[tuple[str, str], float] = {}
    for metric in METRICS:
        m = rankframe.parse(metric)
        name, kw = m.spec.canonical, m.kw
        args = f"metrics := ['{name}'], order_by := 'score'"
        if kw.get("k") is not None:
            args += f", k := {int(kw['k'])}"
        if kw.get("like") is not None:
            args += f", \"like\" := '{kw['like']}'"
        if "alpha" in kw:
            args += f", alpha := {float(kw['alpha'])!r}"
        out = con.execute(f"SELECT * FROM rf_intent_per_query('rf_t_run', 'rf_t_qrels', {args})").fetchdf()
        got.update({(str(q), metric): float(v) for q, v in zip(out["query"], out[name])})
    con.close()
    check(got)


def test_render_on_duckdb():
    """rankframe.sql.render's portable SELECT (the qrels form), run by DuckDB on the same two tables."""
    con = duckdb.connect()
    con.register("runs", RUN)
    con.register("judgments", QRELS)
    sql = rankframe.sql.render(METRICS, dialect="duckdb", table="runs", qrels="judgments", per_query=True,
                               ideal_depth=10, order_by="score")  # fmt: skip
    check(_long(con.execute(sql).fetchdf()))
    con.close()


@pytest.mark.spark
def test_spark():
    """rankframe.spark.evaluate, the run and the subtopic qrels as Spark DataFrames: one call."""
    from sparkutil import collect, session, to_spark

    import rankframe.spark as rs

    spark = session()
    got = rs.evaluate(to_spark(spark, RUN), METRICS, qrels=to_spark(spark, QRELS), per_query=True)
    check(_long(collect(got)))
