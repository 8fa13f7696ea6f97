"""Adding a beyond-accuracy metric touches four places, and every face of the family serves it (issue 34): a dry run.

The fake metric ``ColdShare@k`` (per list: the share of the top-k items with fewer than ``least`` users in
train=, i.e. cold items; a list without a top-k row has no value) is added here the way CONTRIBUTING.md ("Add a
beyond-accuracy metric") says a real one is, and nothing else is edited:

1. the declaration: ``SPEC = BeyondSpec(...)``, which would be ``rankframe/beyond/cold_share.py``: its level
   (``"list"``), the inputs it reads (``needs=("train",)``), its own lists macro (``lists_macro``), presets;
2. the numpy kernel ``compute(lists, *, k, least, like)`` and the portable SQL hook ``portable(b, i, *, k, least,
   like)`` beside it, in the same file (what ``rankframe.sql.render`` writes; the hook returns what its declared
   level asks: here the per-list CTE with its state and raw value);
3. the DuckDB SQL: ``SQL`` below, which would be ``sql/cold_share.sql``: its lists macro and the public table macro
   ``rf_cold_share``, with the options block that ``python -m rankframe.beyond.sqlgen`` generates from the
   declaration (here :func:`rankframe.beyond.sqlgen.rewritten`, the function that command runs on every file);
4. the hand cases: ``CASES`` below.

A file in ``rankframe/beyond/`` is collected by ``rankframe.registry``, a file in ``sql/`` by ``rankframe.sql``;
here the two go through the hooks those collectors feed (``registry.register`` and ``sql.register``), so the rest
takes the same road as for a real metric: the name parser, ``evaluate`` on both engines (the DuckDB engine calls
the declared ``lists_macro``), the accessor, the SQL table macros, ``rankframe.sql.render`` (run on DuckDB),
``compare`` and ``anova``; the faces of ``beyond.declare.NOT_SERVED`` refuse it in the family's words; the docs
tables of docs/beyond-accuracy.md take it from the declaration. No engine, renderer, ``sql/beyond.sql`` or CLI
is edited. The fixture removes it again (``unregister``): every step is process-local.

A set-level metric takes the same four places: ``fake_distinct_items.py`` beside this file is one
(``DistinctItems@k``, one module as ``rankframe/beyond/<name>.py`` is: the hooks are found beside the kernel). So
does a row-value metric (a mean of per-row values read from train's popularity, as ARP, APLT and Novelty):
``fake_hot_share.py`` (``HotShare@k``, with an option of its own) gives its row terms as two scalar macros of its
SQL, which the shared ``rf__beyond_row_values`` calls by the CASE the SQL loader generates: ``sql/beyond.sql`` is
not edited for it either.
"""

from __future__ import annotations

import re

import duckdb
import fake_distinct_items as fake_set
import fake_hot_share as fake_rows
import numpy as np
import pandas as pd
import pytest

import rankframe
import rankframe.sql as rf_sql
from rankframe.beyond import sqlgen
from rankframe.beyond.declare import NOT_SERVED, SET_LEVEL_REFUSED, BeyondSpec, like_param
from rankframe.core.declare import Param, k_param
from rankframe.measures import registry

# --------------------------------------------------------------------------------- 1. the declaration
SPEC = BeyondSpec(
    name="cold_share",
    canonical="ColdShare",
    better_why="more of each list beyond the items with a history (a fake metric: tests only)",
    aliases=("cold_items_share",),
    summary="share of each top k's items with fewer than `least` users in train= (a fake metric: tests only)",
    params=(
        k_param(),
        like_param(("recbole",)),
        Param("least", 1.0, "an item is cold with fewer users than this in train=", kind="nonnegative"),
    ),
    presets={"recbole": {"least": 2.0}},  # a made-up preset: the generated options block takes it
    bounded=True,
    level="list",
    needs=("train",),
    lists_macro="rf__cold_share_lists",
    order=2990,
)


# --------------------------------------------------------------------------------- 2. the kernel and the portable SQL
def compute(lists, *, k, least, like):
    top = lists.cut(k)
    if top.train is None:
        raise RuntimeError("train= was not checked before the kernel")
    cold = top.train.popularity("users")[top.item] < least
    return top.mean(cold.astype(np.float64), None, "per_list")


def portable(b, i, *, k, least, like):
    items = b.train_items("users")  # rf__titem, rf__pop
    unit = ", ".join([*b.grp, "rf__q"])
    runit = ", ".join(f"r.{c}" for c in [*b.grp, "rf__q"])
    per = f"rf__bcold{i}"
    b.ctes[per] = (
        f"SELECT {unit}, SUM(rf__c) AS rf__n, SUM(rf__cold) AS rf__s FROM (SELECT {runit}, 1 AS rf__c, "
        f"CASE WHEN COALESCE(t.rf__pop, 0) < {b.num(least)} THEN 1 ELSE 0 END AS rf__cold FROM rf__bpos AS r "
        f"LEFT JOIN {items} AS t ON r.rf__item = t.rf__titem WHERE r.{b.top(k)} "
        f"UNION ALL SELECT {unit}, 0, 0 FROM rf__bunits) AS x GROUP BY {unit}"
    )
    value = f"{b.f('rf__s')} / {b.f('rf__n')}"
    return per, "CASE WHEN rf__n > 0 THEN 0 ELSE 2 END", f"CASE WHEN rf__n > 0 THEN {value} ELSE {b.null()} END"


# --------------------------------------------------------------------------------- 3. the DuckDB SQL
SQL = sqlgen.rewritten(
    SPEC,
    """
-- ColdShare@k: the share of each top k's items with fewer than `least` users in train (a fake metric: tests only)
-- rf:generated-begin
-- rf:generated-end

-- one row per list (segments..., rf__all, query): value (NaN without a top-k row)
CREATE OR REPLACE MACRO rf__cold_share_lists(tbl, train, features, segments, order_by, o, ok, base := NULL) AS TABLE
    SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'query')),
           CASE WHEN count(*) FILTER (WHERE b.rf__top) = 0 THEN CAST('NaN' AS DOUBLE)
                ELSE CAST(count(*) FILTER (WHERE b.rf__top AND coalesce(i.rf__pop, 0) < struct_extract(o, 'least'))
                          AS DOUBLE) / count(*) FILTER (WHERE b.rf__top) END AS value
    FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b
    LEFT JOIN rf__beyond_items(tbl, train, 'users') AS i ON b.item = i.rf__item
    GROUP BY ALL;

CREATE OR REPLACE MACRO rf_cold_share(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank',
                                      "like" := NULL, least := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('ColdShare', k) AS metric,
               rf__beyond_mean(l.value) AS value,
               rf__beyond_n(l.value) AS n
        FROM rf__cold_share_lists(tbl, train, NULL, segments, order_by,
                 (SELECT rf__cold_share_options(k, "like", least, train IS NOT NULL, false, 'rf_cold_share')),
                 (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, NULL, false, segments, order_by,
                     rf__cold_share_options(k, "like", least, train IS NOT NULL, false, 'rf_cold_share'),
                     'rf_cold_share'))) AS l
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;
""",
)

# --------------------------------------------------------------------------------- 4. the hand cases
# system a: q1 = d0 d1 d2, q2 = d3 d0, q3 = d4 (ranks 1, 2, ...); system b: q1 = d2 d4 d0, q2 = d0 d3, q3 = d1.
# train: (query, item) = (1, d0) (1, d1) (2, d0) (3, d1) (3, d3): users d0 = 2, d1 = 2, d3 = 1, d2 = d4 = 0.
LISTS = {
    "a": {1: ["d0", "d1", "d2"], 2: ["d3", "d0"], 3: ["d4"]},
    "b": {1: ["d2", "d4", "d0"], 2: ["d0", "d3"], 3: ["d1"]},
}
RUNS = pd.DataFrame(
    [(s, q, item, r + 1) for s, lists in LISTS.items() for q, items in lists.items() for r, item in enumerate(items)],
    columns=["system", "query", "item", "rank"],
)
ONE = RUNS[RUNS["system"] == "a"].drop(columns="system").reset_index(drop=True)
TRAIN = pd.DataFrame({"query": [1, 1, 2, 3, 3], "item": ["d0", "d1", "d0", "d1", "d3"]})

#: metric string -> per-list values of system a (q1, q2, q3), derived by hand from the lists above
CASES = {
    # least 1: cold = d2, d4. q1: d2 of 3 -> 1/3; q2: none of 2 -> 0; q3: d4 of 1 -> 1
    "ColdShare": [1 / 3, 0.0, 1.0],
    # top 2: q1 d0 d1 -> 0; q2 -> 0; q3 d4 -> 1
    "ColdShare@2": [0.0, 0.0, 1.0],
    # least 2: cold = d2, d3, d4. q1 -> 1/3; q2 d3 of 2 -> 1/2; q3 -> 1 (like='recbole' sets least 2 the same)
    "ColdShare(least=2)": [1 / 3, 0.5, 1.0],
    "ColdShare(like='recbole')": [1 / 3, 0.5, 1.0],
}
#: system b against a on ColdShare (whole lists): b = q1 2/3 (d2, d4), q2 0, q3 0 (d1 has 2 users); b - a =
#: 1/3, 0, -1: mean 2/9, baseline 4/9, delta -2/9; higher is better: one win, one tie, one loss
COMPARED = {"mean": 2 / 9, "baseline_mean": 4 / 9, "delta": -2 / 9, "wins": 1, "ties": 1, "losses": 1}


#: DistinctItems (set level) of system a: every row: d0 d1 d2 d3 d4 -> 5; top 2: q1 d0 d1, q2 d3 d0, q3 d4 -> 4.
#: System b's top 2: d2 d4, d0 d3, d1 -> 5: against a on DistinctItems@2, mean 5, baseline 4, delta 1
SET_CASES = {"DistinctItems": 5.0, "DistinctItems@2": 4.0}
SET_COMPARED = {"mean": 5.0, "baseline_mean": 4.0, "delta": 1.0}

#: HotShare (row values) of system a per list (q1, q2, q3). Users in train: d0 = 2, d1 = 2, d3 = 1, d2 = d4 = 0;
#: interactions (one per row, no weight column): the same
ROW_CASES = {
    # most 2: hot = d0, d1. q1 d0 d1 d2 -> 2/3; q2 d3 d0 -> 1/2; q3 d4 -> 0
    "HotShare": [2 / 3, 0.5, 0.0],
    # top 2: q1 d0 d1 -> 1; q2 d3 d0 -> 1/2; q3 d4 -> 0
    "HotShare@2": [1.0, 0.5, 0.0],
    # most 1: hot = d0, d1, d3. q1 -> 2/3; q2 -> 1; q3 -> 0 (like='recbole': interactions, most 1: the same)
    "HotShare(most=1)": [2 / 3, 1.0, 0.0],
    "HotShare(like='recbole')": [2 / 3, 1.0, 0.0],
}


def _mean(name: str) -> float:
    return float(np.mean(CASES[name]))


def _add() -> None:
    registry.register(SPEC, compute)
    rf_sql.register(SPEC.name, SQL)
    registry.register(fake_set.SPEC, fake_set.compute)
    rf_sql.register(fake_set.SPEC.name, fake_set.SQL)
    registry.register(fake_rows.SPEC, fake_rows.compute)
    rf_sql.register(fake_rows.SPEC.name, fake_rows.SQL)


def _remove() -> None:
    for spec in (SPEC, fake_set.SPEC, fake_rows.SPEC):
        rf_sql.unregister(spec.name)
        registry.unregister(spec.name)


@pytest.fixture
def fake_metric():
    """The metric registered for one test, then removed (the registry and the SQL set as they were)."""
    _add()
    try:
        yield SPEC
    finally:
        _remove()


def test_python_faces_serve_it(fake_metric):
    assert rankframe.parse("cold_items_share@2") == rankframe.Measure.of("ColdShare", k=2)
    for name, values in CASES.items():
        for engine in ("pandas", "duckdb"):
            per = rankframe.evaluate(ONE, [name], per_query=True, engine=engine, train=TRAIN)
            assert per["value"].tolist() == pytest.approx(values), (engine, name)
            means = rankframe.evaluate(ONE, [name], engine=engine, train=TRAIN)
            assert means["value"].tolist() == pytest.approx([_mean(name)]), (engine, name)
        got = ONE.rank_metrics.evaluate([name], train=TRAIN)["value"].tolist()
        assert got == pytest.approx([_mean(name)])
    # the input it declares it reads, asked for in the family's words
    with pytest.raises(rankframe.RankframeError, match="needs train="):
        rankframe.evaluate(ONE, ["ColdShare"])


def test_compare_and_anova_serve_it(fake_metric):
    row = rankframe.compare(RUNS, ["ColdShare"], system="system", baseline="a", train=TRAIN).iloc[0]
    assert (row["metric"], row["system"]) == ("ColdShare", "b")
    for col, value in COMPARED.items():
        assert row[col] == pytest.approx(value), col
    # a per-list metric: the ANOVA takes its per-query values (beyond.declare.PER_LIST_FACES)
    assert set(rankframe.anova(RUNS, ["ColdShare"], system="system", train=TRAIN)["metric"]) == {"ColdShare"}


def test_sql_macros_serve_it(fake_metric):
    con = rf_sql.install(duckdb.connect())
    try:
        con.register("one", ONE)
        con.register("train", TRAIN)
        for name, kw in (("ColdShare", ""), ("ColdShare@2", ", k := 2"), ("ColdShare(least=2)", ", least := 2")):
            got = con.execute(f"SELECT metric, value, n FROM rf_cold_share('one', train := 'train'{kw})").fetchall()
            assert got == [(name.split("(")[0], pytest.approx(_mean(name)), 3)], name
        # the generated options: a preset, a checked value, the input it needs
        preset = con.execute("SELECT value FROM rf_cold_share('one', train := 'train', \"like\" := 'recbole')")
        assert preset.fetchall() == [(pytest.approx(_mean("ColdShare(like='recbole')")),)]
        with pytest.raises(duckdb.Error, match="least"):
            con.execute("SELECT * FROM rf_cold_share('one', train := 'train', least := -1)").fetchall()
        with pytest.raises(duckdb.Error, match="ColdShare .rf_cold_share. needs train"):
            con.execute("SELECT * FROM rf_cold_share('one')").fetchall()
    finally:
        con.close()
    assert "rf_cold_share" in rf_sql.bundle().read_text()  # the bundle for the DuckDB CLI has it too


def test_portable_sql_serves_it(fake_metric):
    metrics = list(CASES)
    sql = rankframe.sql.render(metrics, dialect="duckdb", per_query=True, table="one", train="train")
    con = duckdb.connect()
    try:
        con.register("one", ONE)
        con.register("train", TRAIN)
        got = con.execute(sql).df()
    finally:
        con.close()
    want = {(q, str(rankframe.parse(m))): v for m in metrics for q, v in zip((1, 2, 3), CASES[m])}
    assert dict(zip(zip(got["query"], got["metric"]), got["value"])) == pytest.approx(want)
    assert len(got) == len(want)


def test_faces_not_serving_the_family_refuse_it(fake_metric, tmp_path):
    path = tmp_path / "one.parquet"
    ONE.to_parquet(path)
    refused = {
        "duckdb_files": lambda: rankframe.evaluate(str(path), ["ColdShare"], engine="duckdb", train=TRAIN),
    }
    assert set(refused) <= set(NOT_SERVED)
    for face, run in refused.items():
        with pytest.raises(
            rankframe.RankframeError,
            match=f"ColdShare: the beyond-accuracy metrics .* not served by {NOT_SERVED[face][:20]}",
        ):
            run()


def test_docs_tables_take_it(fake_metric):
    for name in ("ColdShare", "DistinctItems", "HotShare"):
        assert name in registry.beyond_markdown()
        assert name in registry.beyond_directions_markdown()


def test_a_set_level_metric_is_served(fake_metric, tmp_path):
    for name, value in SET_CASES.items():
        for engine in ("pandas", "duckdb"):
            got = rankframe.evaluate(ONE, [name], engine=engine)
            assert got[["metric", "value", "n"]].values.tolist() == [[name, value, 3]], (engine, name)
        with pytest.raises(rankframe.RankframeError, match="set-level metrics have one value per segment"):
            rankframe.evaluate(ONE, [name], per_query=True)
    con = rf_sql.install(duckdb.connect())
    try:
        con.register("one", ONE)
        got = con.execute("SELECT metric, value, n FROM rf_distinct_items('one', k := 2)").fetchall()
        assert got == [("DistinctItems@2", 4.0, 3)]
        assert con.execute("SELECT value FROM rf_distinct_items('one', \"like\" := 'elliot')").fetchall() == [(5.0,)]
        portable = con.execute(rankframe.sql.render(list(SET_CASES), dialect="duckdb", table="one")).df()
    finally:
        con.close()
    assert dict(zip(portable["metric"], portable["value"])) == SET_CASES
    row = rankframe.compare(RUNS, ["DistinctItems@2"], system="system", baseline="a").iloc[0]
    for col, value in SET_COMPARED.items():
        assert row[col] == pytest.approx(value), col
    # the faces of the per-list metrics only refuse it in their own words (beyond.declare.SET_LEVEL_REFUSED)
    with pytest.raises(rankframe.RankframeError, match=re.escape(SET_LEVEL_REFUSED["anova"][:60])):
        rankframe.anova(RUNS, ["DistinctItems@2"], system="system")


def test_a_row_value_metric_is_served(fake_metric):
    assert fake_rows.SPEC.row_values  # the shared rf__beyond_lists computes its lists
    for name, values in ROW_CASES.items():
        mean = float(np.mean(values))
        for engine in ("pandas", "duckdb"):
            per = rankframe.evaluate(ONE, [name], per_query=True, engine=engine, train=TRAIN)
            assert per["value"].tolist() == pytest.approx(values), (engine, name)
            got = rankframe.evaluate(ONE, [name], engine=engine, train=TRAIN)["value"].tolist()
            assert got == pytest.approx([mean]), (engine, name)
        assert ONE.rank_metrics.evaluate([name], train=TRAIN)["value"].tolist() == pytest.approx([mean])
    con = rf_sql.install(duckdb.connect())
    try:
        con.register("one", ONE)
        con.register("train", TRAIN)
        for name, kw in (("HotShare", ""), ("HotShare@2", ", k := 2"), ("HotShare(most=1)", ", most := 1")):
            got = con.execute(f"SELECT metric, value, n FROM rf_hot_share('one', train := 'train'{kw})").fetchall()
            assert got == [(name.split("(")[0], pytest.approx(float(np.mean(ROW_CASES[name]))), 3)], name
        preset = con.execute("SELECT value FROM rf_hot_share('one', train := 'train', \"like\" := 'recbole')")
        assert preset.fetchall() == [(pytest.approx(float(np.mean(ROW_CASES["HotShare(like='recbole')"]))),)]
        # ARP beside it in the same CASE keeps its value: mean users of a's lists q1 (2+2+0)/3 = 4/3, q2 (1+2)/2 =
        # 3/2, q3 0 -> (4/3 + 3/2 + 0) / 3 = 17/18
        assert con.execute("SELECT value FROM rf_arp('one', train := 'train')").fetchall() == [
            (pytest.approx(17 / 18),)
        ]
        with pytest.raises(duckdb.Error, match="most"):
            con.execute("SELECT * FROM rf_hot_share('one', train := 'train', most := -1)").fetchall()
        sql = rankframe.sql.render(list(ROW_CASES), dialect="duckdb", per_query=True, table="one", train="train")
        portable = con.execute(sql).df()
    finally:
        con.close()
    want = {(q, str(rankframe.parse(m))): v for m in ROW_CASES for q, v in zip((1, 2, 3), ROW_CASES[m])}
    assert dict(zip(zip(portable["query"], portable["metric"]), portable["value"])) == pytest.approx(want)
    row = rankframe.compare(RUNS, ["HotShare"], system="system", baseline="a", train=TRAIN).iloc[0]
    # b: q1 d2 d4 d0 -> 1/3, q2 d0 d3 -> 1/2, q3 d1 -> 1: mean 11/18 against a's 7/18 (lower is better)
    assert (row["mean"], row["baseline_mean"]) == (pytest.approx(11 / 18), pytest.approx(7 / 18))


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.spark
def test_spark_serves_it(fake_metric):
    """rankframe.spark.evaluate runs the family's portable SQL by spark.sql on the driver: no Python worker reads it.

    So a metric registered at run time needs no registry.added()/adopt() (which carry the accuracy metrics to the
    grouped-pandas workers): the fake modules are not pickled by value here, and a worker asked to parse
    'ColdShare' would raise UnknownMetricError.
    """
    from sparkutil import collect, session, to_spark

    spark = session()  # skips without PySpark or Java
    import rankframe.spark as rs

    cases = {**CASES, **ROW_CASES}
    per = collect(rs.evaluate(to_spark(spark, ONE), list(cases), per_query=True, train=to_spark(spark, TRAIN)))
    want = {(q, str(rankframe.parse(m))): v for m in cases for q, v in zip((1, 2, 3), cases[m])}
    assert dict(zip(zip(per["query"], per["metric"]), per["value"])) == pytest.approx(want)
    assert len(per) == len(want)
    # a per-list metric is compared on Spark (beyond.declare.PER_LIST_FACES): ColdShare's hand-derived delta
    row = rs.compare(to_spark(spark, RUNS), ["ColdShare"], system="system", baseline="a", train=TRAIN).iloc[0]
    assert row["delta"] == pytest.approx(COMPARED["delta"])


def test_unregister_leaves_nothing_behind():
    before = (registry.BEYOND, dict(registry.BEYOND_KERNELS), rf_sql.text(), registry.beyond_markdown())
    _add()
    assert SPEC in registry.BEYOND and fake_set.SPEC in registry.BEYOND
    assert "rf__hot_share_row_value(i, z, o)" in rf_sql.text()  # the generated dispatch takes the row-value metric
    _remove()
    after = (registry.BEYOND, dict(registry.BEYOND_KERNELS), rf_sql.text(), registry.beyond_markdown())
    assert after == before
    assert "rf_cold_share" not in rf_sql.bundle().read_text()
    assert "hot_share" not in rf_sql.bundle().read_text() and "most :=" not in rf_sql.bundle().read_text()
    for name in ("ColdShare", "DistinctItems", "HotShare"):
        with pytest.raises(rankframe.UnknownMetricError):
            rankframe.parse(name)
    with pytest.raises(ValueError, match="cannot be removed"):
        registry.unregister("coverage")  # the package's own metrics stay
