"""Each declared rule of the extra inputs (``rankframe.beyond.input_rules.RULES``), broken on every road that
declares it, raises ONE error class in the declared words (issue 33).

Roads: ``rankframe.evaluate`` with engine='pandas' and engine='duckdb', the SQL table macro in DuckDB
(``rf_<name>``: the generated ``rf__beyond_check_<input>``, its ``rf:param`` code translated), the statement of
``rankframe.sql.render`` run on DuckDB (the rules about names), the CLI (exit status 2, the words on stderr) and
Spark (slow). A rule without a case here, or a case of an undeclared rule, fails
``test_every_rule_has_a_case``. The names' collisions (a query or item column named ``weight``, ``value``) are held
to hand-derived values on every road at the end.
"""

from __future__ import annotations

import math
import re
import string

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql
from rankframe.beyond.input_rules import RULES
from rankframe.cli import main
from rankframe.engines.duckdb_engine import translate_error
from rankframe.measures.registry import lookup

RECS = pd.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1], "relevance": [1, 0, 1]})
TRAIN = pd.DataFrame({"query": [7, 8], "item": ["a", "b"]})
HISTORY = pd.DataFrame({"query": [1, 2], "item": ["a", "b"]})
FEATURES = pd.DataFrame({"item": ["a", "b"], "feature": ["x", "x"], "value": [1.0, 2.0]})
CATALOG = pd.DataFrame({"item": ["a", "b", "c"]})

# case -> (rule, metric, the inputs); every input a table but catalog_type's
CASES: dict[str, tuple[str, str, dict]] = {
    "catalog of a str": ("catalog_type", "Gini", {"catalog": "abc"}),
    "catalog of two columns": ("catalog_columns", "Gini", {"catalog": CATALOG.assign(y="z")}),
    "train without item": ("columns", "ARP", {"train": TRAIN.rename(columns={"item": "doc"})}),
    "features without feature": ("columns", "ILD", {"features": FEATURES.drop(columns="feature")}),
    "catalog empty": ("empty", "Gini", {"catalog": CATALOG.iloc[:0]}),
    "features empty": ("empty", "ILD", {"features": FEATURES.iloc[:0]}),
    "train null query": ("null_query", "ARP", {"train": TRAIN.assign(query=[7.0, None])}),
    "train null item": ("null_ids", "ARP", {"train": TRAIN.assign(item=["a", None])}),
    "catalog null id": ("null_ids", "Coverage", {"catalog": CATALOG.assign(item=["a", None, "c"])}),
    "features null item": ("null_ids", "ILD", {"features": FEATURES.assign(item=["a", None])}),
    "train ids of numbers": ("id_kind", "ARP", {"train": TRAIN.assign(item=[1, 2])}),
    "catalog ids of numbers": ("id_kind", "Coverage", {"catalog": pd.DataFrame({"item": [1, 2]})}),
    "features ids of numbers": ("id_kind", "ILD", {"features": FEATURES.assign(item=[1, 2])}),
    "features null feature": ("null_feature", "ILD", {"features": FEATURES.assign(feature=["x", None])}),
    "weight negative": ("weight", "ARP", {"train": TRAIN.assign(weight=[1.0, -5.0])}),
    "weight NaN": ("weight", "ARP", {"train": TRAIN.assign(weight=[1.0, np.nan])}),
    "weight text": ("weight", "ARP", {"train": TRAIN.assign(weight=["1", "2"])}),
    "weight bool": ("weight", "ARP", {"train": TRAIN.assign(weight=[True, False])}),
    "value infinite": ("value", "ILD", {"features": FEATURES.assign(value=[1.0, np.inf])}),
    "catalog repeated": ("repeated_ids", "Coverage", {"catalog": CATALOG.assign(item=["a", "b", "a"])}),
    "features repeated pair": ("repeated_pairs", "ILD", {"features": FEATURES.assign(item=["a", "a"])}),
    "history of text queries": (
        "history_kind",
        "Calibration",
        {"train": HISTORY.assign(query=["1", "2"]), "features": FEATURES},
    ),
    # the ranking table's item column is 'feature' (ITEM): features= cannot have both
    "item column named feature": ("feature_is_item", "ILD", {"features": pd.DataFrame({"feature": ["a", "b"]})}),
}
#: the ranking table's item column, per case (the name rule's case renames it)
ITEM = {"item column named feature": "feature"}


def words(rule: str) -> re.Pattern:
    """The declared words as a pattern, every field any text (each face fills them in its own way)."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(RULES[rule].text):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(".*")
    return re.compile("".join(parts), re.S)


def _recs(case: str) -> tuple[pd.DataFrame, dict]:
    item = ITEM.get(case, "item")
    return RECS.rename(columns={"item": item}), {"item": item}


def _inputs(case: str, kw: dict) -> dict:
    """The inputs of a case, as it writes them."""
    return dict(kw)


# ---------------------------------------------------------------------------------------------------- the roads
def road_evaluate(engine):
    def run(case, metric, kw):
        recs, columns = _recs(case)
        rankframe.evaluate(recs, metric, columns=columns, engine=engine, **_inputs(case, kw))

    return run


def road_macros(case, metric, kw):
    con = macro_connection()
    try:
        con.register("recs", RECS)
        args = ""
        for name, frame in kw.items():
            con.register(f"in_{name}", frame)
            args += f", {name} := 'in_{name}'"
        try:
            con.execute(f"SELECT * FROM rf_{lookup(metric).name}('recs'{args})").fetchall()
        except duckdb.Error as e:
            raise translate_error(e) from None
    finally:
        con.close()


def road_portable(case, metric, kw):
    recs, columns = _recs(case)
    con = duckdb.connect()
    try:
        con.register("recs", recs)
        tables = {}
        for name, frame in _inputs(case, kw).items():
            con.register(f"in_{name}", frame)
            tables[name] = f"in_{name}"
        sql = rankframe.sql.render(metric, dialect="duckdb", table="recs", columns=columns, **tables)
        con.execute(sql).fetchall()
    finally:
        con.close()


class CliError(rankframe.RankframeError):
    """The CLI's error: exit status 2 and its message (the CLI names no class)."""


def road_cli(tmp_path):
    def run(case, metric, kw):
        recs, columns = _recs(case)
        recs.to_parquet(tmp_path / "recs.parquet")
        args = ["evaluate", str(tmp_path / "recs.parquet"), "-m", metric, "--item", columns["item"]]
        for name, frame in _inputs(case, kw).items():
            frame.to_parquet(tmp_path / f"{name}.parquet")
            args += [f"--{name}", str(tmp_path / f"{name}.parquet")]
        code = main(args)
        assert code != 0, "the CLI accepted the input"
        assert code == 2, code

    return run


ROADS = {"pandas": "pandas", "duckdb": "duckdb", "sql": "macros", "portable": "portable"}


def _roads(rule: str) -> list[str]:
    faces = RULES[rule].faces
    found = [road for face, road in ROADS.items() if face in faces]
    return found + (["cli"] if "pandas" in faces and rule != "catalog_type" else [])  # the CLI reads files


PARAMS = [(case, road) for case, (rule, _, _) in CASES.items() for road in _roads(rule)]


@pytest.mark.quick_sample(3, per="road")  # the quick loop: 3 of the broken rules on each road (tests/tiers.py)
@pytest.mark.parametrize(("case", "road"), PARAMS, ids=[f"{c}-{r}" for c, r in PARAMS])
def test_a_broken_input_rule_is_one_error_in_its_words_on_every_road(case, road, tmp_path, capsys):
    rule, metric, kw = CASES[case]
    runners = {
        "pandas": road_evaluate("pandas"),
        "duckdb": road_evaluate("duckdb"),
        "macros": road_macros,
        "portable": road_portable,
    }
    if road == "cli":
        road_cli(tmp_path)(case, metric, kw)
        err = capsys.readouterr().err
        assert words(rule).search(err), err
        return
    with pytest.raises(rankframe.RankframeError) as info:
        runners[road](case, metric, kw)
    assert type(info.value) is RULES[rule].error, repr(info.value)
    assert words(rule).search(str(info.value)), str(info.value)


def test_every_rule_has_a_case():
    assert {rule for rule, _, _ in CASES.values()} == set(RULES)


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.parametrize("case", [c for c, (rule, _, _) in CASES.items() if "spark" in RULES[rule].faces])
def test_the_same_on_spark(case):
    from sparkutil import session, to_spark

    import rankframe.spark as rs

    spark = session()
    rule, metric, kw = CASES[case]
    recs, columns = _recs(case)
    inputs = {
        k: to_spark(spark, v) if isinstance(v, pd.DataFrame) and len(v) else v for k, v in _inputs(case, kw).items()
    }
    for given in (inputs, _inputs(case, kw)):  # Spark frames (Spark jobs count) and pandas frames (evaluate's checks)
        with pytest.raises(rankframe.RankframeError) as info:
            rs.evaluate(to_spark(spark, recs), metric, columns=columns, **given)
        assert type(info.value) is RULES[rule].error, repr(info.value)
        assert words(rule).search(str(info.value)), str(info.value)


# ------------------------------------------------------------------------------------------ the names' collisions
# An id column named like an input's optional column is read as ids, never as weights or values.
# (a) the item column is named 'weight': train= has no weight column (1 per row). Train items 3, 2, 3: popularity
#     'interactions' of 3 = 2, of 2 = 1; lists [3, 2] -> (2 + 1) / 2 = 1.5 and [3] -> 2: ARP = 1.75 (read as weights,
#     the ids 3, 2, 3 gave 5.0)
# (b) the query column is named 'weight': train queries 7, 8, 9, 9 over items a, b, a, b: a = 2, b = 2 rows; lists
#     [a, b] -> 2, [a] -> 2: ARP = 2.0 (read as weights: 16.25)
# (c) the item column is named 'value' in ILD: a has features x, y, b has x: cosine 1 / sqrt(2), one pair:
#     ILD = 1 - 1 / sqrt(2) (the list of one item has no pair: NaN, left out)
ARP = "ARP(popularity='interactions')"
COLLISIONS = {
    "item named weight": (
        pd.DataFrame({"query": [1, 1, 2], "weight": [3, 2, 3], "rank": [1, 2, 1]}),
        {"item": "weight"},
        ARP,
        {"train": pd.DataFrame({"query": [7, 8, 9], "weight": [3, 2, 3]})},
        1.75,
    ),
    "query named weight": (
        pd.DataFrame({"weight": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1]}),
        {"query": "weight"},
        ARP,
        {"train": pd.DataFrame({"weight": [7, 8, 9, 9], "item": ["a", "b", "a", "b"]})},
        2.0,
    ),
    "item named value": (
        pd.DataFrame({"query": [1, 1, 2], "value": ["a", "b", "a"], "rank": [1, 2, 1]}),
        {"item": "value"},
        "ILD",
        {"features": pd.DataFrame({"value": ["a", "b", "a"], "feature": ["x", "x", "y"]})},
        1 - 1 / math.sqrt(2),
    ),
}


def _collision_cli(tmp_path, recs, columns, metric, kw):
    recs.to_parquet(tmp_path / "recs.parquet")
    args = ["evaluate", str(tmp_path / "recs.parquet"), "-m", metric, "--format", "csv"]
    for role, name in columns.items():
        args += [f"--{role}", name]
    for name, frame in kw.items():
        frame.to_parquet(tmp_path / f"{name}.parquet")
        args += [f"--{name}", str(tmp_path / f"{name}.parquet")]
    return args


@pytest.mark.parametrize("road", ["pandas", "duckdb", "portable", "cli"])
@pytest.mark.parametrize("case", COLLISIONS)
def test_an_id_column_named_like_an_optional_column_is_read_as_ids(case, road, tmp_path, capsys):
    recs, columns, metric, kw, want = COLLISIONS[case]
    if road in ("pandas", "duckdb"):
        got = rankframe.evaluate(recs, metric, columns=columns, engine=road, **kw)["value"].iloc[0]
    elif road == "portable":  # render reads no weight or value column unless named: the same value
        con = duckdb.connect()
        con.register("recs", recs)
        for name, frame in kw.items():
            con.register(f"in_{name}", frame)
        tables = {name: f"in_{name}" for name in kw}
        got = con.sql(rankframe.sql.render(metric, dialect="duckdb", table="recs", columns=columns, **tables))
        got = got.df()["value"].iloc[0]
        con.close()
    else:
        import io

        capsys.readouterr()
        assert main(_collision_cli(tmp_path, recs, columns, metric, kw)) == 0
        got = pd.read_csv(io.StringIO(capsys.readouterr().out))["value"].iloc[0]
    assert got == pytest.approx(want, rel=1e-12)


def test_render_refuses_an_id_column_as_the_weight_or_value_column():
    recs, columns, metric, kw, _ = COLLISIONS["item named weight"]
    with pytest.raises(rankframe.ParameterError, match="'train_weight' parameter of render"):
        rankframe.sql.render(metric, table="recs", columns=columns, train="t", train_weight="weight")
    with pytest.raises(rankframe.ParameterError, match="'features_value' parameter of render"):
        rankframe.sql.render("ILD", table="recs", columns={"item": "value"}, features="f", features_value="value")


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.parametrize("case", COLLISIONS)
def test_the_collisions_on_spark(case):
    from sparkutil import collect, session, to_spark

    import rankframe.spark as rs

    spark = session()
    recs, columns, metric, kw, want = COLLISIONS[case]
    for given in ({k: to_spark(spark, v) for k, v in kw.items()}, kw):
        out = rs.evaluate(to_spark(spark, recs), metric, columns=columns, **given)  # the means: a pandas frame
        got = (out if isinstance(out, pd.DataFrame) else collect(out))["value"].iloc[0]
        assert got == pytest.approx(want, rel=1e-12)


# ------------------------------------------------------------------------------------------ one order of the rules
# Two faults in one call: both engines apply the family's rules through one function (beyond_engine.check_inputs), so
# they say the same first fault: the options' rules, then catalog=, train=, features=, a metric's rule of features='s
# values, the history's query ids.
TWO_FAULTS = {
    # ILD: hamming with output='similarity' (an option rule) and an empty features= (an input rule)
    "option rule before an input rule": (
        "ILD(similarity='hamming', output='similarity')",
        {"features": FEATURES.iloc[:0]},
        rankframe.ParameterError,
        "output='similarity' does not apply",
    ),
    # Calibration: a negative share (its rule of features='s values) and train= queries as text (the history's kind)
    "features' values before the history's kind": (
        "Calibration",
        {"train": HISTORY.assign(query=["1", "2"]), "features": FEATURES.assign(value=[1.0, -2.0])},
        rankframe.ParameterError,
        "row(s) are negative",
    ),
}


@pytest.mark.parametrize("case", TWO_FAULTS)
def test_two_faults_give_the_same_first_error_on_both_engines(case):
    metric, kw, error, text = TWO_FAULTS[case]
    for engine in ("pandas", "duckdb"):
        with pytest.raises(rankframe.RankframeError) as info:
            rankframe.evaluate(RECS, metric, engine=engine, **kw)
        assert type(info.value) is error and text in str(info.value), (engine, repr(info.value))


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_both_engines_call_the_one_check(engine, monkeypatch):
    from rankframe.engines import beyond_engine

    class Called(rankframe.RankframeError):
        pass

    def refuse(*args, **kwargs):
        raise Called("check_inputs")

    monkeypatch.setattr(beyond_engine, "check_inputs", refuse)
    with pytest.raises(Called):
        rankframe.evaluate(RECS, "ARP", engine=engine, train=TRAIN)
