"""Hostile inputs, every face: each case gives the hand-derived number or a clear rankframe error, and the caller's
frame is unchanged afterwards.

Faces: ``evaluate`` on the pandas and DuckDB engines and the accessor (a ``RankframeError`` subclass with a message
naming the column/parameter and the rule), the CLI (exit 2, the same words on stderr) and the SQL table macro
``rf_means`` (an error naming the column/parameter), wherever the input can be expressed on that face (a Parquet
file cannot hold mixed-type ids; SQL columns are typed).

The base table (hand derivations used below):
  q1 (model m1): a rank 1 grade 1, b rank 2 grade 0, c rank 3 grade 2      -> AP = (1/1 + 2/3) / 2 = 5/6
  q2 (model m2): a rank 1 grade 0, b rank 2 grade 1, d not retrieved, 1   -> AP = (1/2) / 2 = 1/4
  MAP = (5/6 + 1/4) / 2 = 13/24; P@2 = (1/2 + 1/2) / 2 = 1/2; P@1000 = (2/1000 + 1/1000) / 2 = 0.0015
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from faces import PY_FACES, assert_error, run_cli, run_python, run_sql

import rankframe

MAP = 13 / 24


def base() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": [1, 1, 1, 2, 2, 2],
            "item": ["a", "b", "c", "a", "b", "d"],
            "rank": pd.array([1, 2, 3, 1, 2, None], dtype="Int64"),
            "relevance": [1, 0, 2, 0, 1, 1],
            "model": ["m1", "m1", "m1", "m2", "m2", "m2"],
        }
    )


@dataclass
class Case:
    """One hostile input: the frame, the call, and what every face must give."""

    name: str
    make: Callable[[], pd.DataFrame]
    metrics: list
    kw: dict = field(default_factory=dict)
    values: dict | None = None  # expected means (hand-derived above), or None for an error
    error: tuple[str, ...] = ()  # expected RankframeError subclasses on the Python faces
    pattern: str = ""  # the message must match (names the column/parameter and the rule)
    cli: tuple[str, ...] | None = None  # extra CLI arguments; None = not expressible on the CLI
    cli_pattern: str = ""  # the CLI's message, when it differs (its flags instead of Python keywords)
    sql: tuple[str, str, str] | None = None  # (rf_means arguments, selected columns, error pattern or "")


V = ("ValidationError",)
P = ("ParameterError",)

CASES = [
    Case(
        "misspelled segment",
        base,
        ["AP"],
        {"by": "modle"},
        error=V,
        pattern=r"'modle'.*\(did you mean 'model'\?\)",
        cli=("--by", "modle"),
        sql=("segments := ['modle']", '"AP"', r"modle"),
    ),
    Case(
        "duplicate rows",
        lambda: pd.concat([base(), base().iloc[[0]]], ignore_index=True),
        ["AP"],
        error=V,
        pattern=r"item must be unique within each \(query\) \(pass allow_duplicates=True",
        cli=(),
        cli_pattern=r"item must be unique within each \(query\) \(pass --allow-duplicates",
        sql=("", '"AP"', r"(?i)duplicate|unique"),
    ),
    Case(
        # two models' lists of the same queries, by= forgotten: every (query, item) repeats once per model, and
        # the column 'model' tells the copies apart (the only other column): the message suggests by='model'
        "several models without by",
        lambda: pd.concat([base().assign(model="m1"), base().assign(model="m2")], ignore_index=True),
        ["AP"],
        error=V,
        pattern=r"item must be unique within each \(query\): rows repeat \(query, item\) but differ in column "
        r"'model': did you mean by='model'\?",
        cli=(),
        cli_pattern=r"rows repeat \(query, item\) but differ in column 'model': did you mean --by model\? "
        r"\(or pass --allow-duplicates",
    ),
    Case(
        "string rank with words",
        lambda: base().astype({"rank": object}).assign(rank=["1", "two", "3", "1", "2", None]),
        ["AP"],
        error=V,
        # 5 non-null strings (each is text, not a number); 'two' alone does not parse: it is the example shown
        pattern=r"rank must be numeric \(null = judged but not retrieved\); found dtype (object|str|VARCHAR): 1 "
        r"value\(s\) do not parse as numbers \(such as 'two'\).*\(5 offending row\(s\)\)",
        cli=(),
    ),
    Case(
        "bool relevance as numbers",
        lambda: base().assign(relevance=[True, False, True, False, True, True]),
        ["AP"],
        error=V,
        # every row holds a bool, none a number: 6 offending rows, the fix converts the column
        pattern=r"relevance must be numeric \(null = unjudged\); found dtype (bool|BOOLEAN): convert the column "
        r"with (df\['relevance'\]\.astype\(int\)|CAST\(\"relevance\" AS DOUBLE\)) \(6 offending row\(s\)\)",
        cli=(),
    ),
    Case(
        "mixed query id types",
        lambda: base().astype({"query": object}).assign(query=["1", 1, 1, 2, 2, 2]),
        ["AP"],
        error=V,
        pattern=r"query ids must all have one type",
    ),
    Case(
        "mixed item id types",
        lambda: base().assign(item=["a", 1, "c", "a", "b", "d"]),
        ["AP"],
        error=V,
        pattern=r"item ids must all have one type",
    ),
    Case(
        "segment named value",
        lambda: base().rename(columns={"model": "value"}),
        ["AP"],
        {"by": "value"},
        error=P,
        pattern=r"segment column 'value' has the name of an output column",
        cli=("--by", "value"),
    ),
    Case(
        "segment named metric",
        lambda: base().rename(columns={"model": "metric"}),
        ["AP"],
        {"by": "metric"},
        error=P,
        pattern=r"segment column 'metric' has the name of an output column",
        cli=("--by", "metric"),
    ),
    Case(
        "query column named metric",
        lambda: base().rename(columns={"query": "metric"}),
        ["AP"],
        {"columns": {"query": "metric"}, "per_query": True},
        error=P,
        pattern=r"query column 'metric' has the name of an output column",
    ),
    Case(
        "segment named like an internal column",
        lambda: base().rename(columns={"model": "_m"}),
        ["AP"],
        {"by": "_m"},
        values={("m1", "AP"): 5 / 6, ("m2", "AP"): 1 / 4},
    ),
    Case(
        "segment named rf_pos",
        lambda: base().rename(columns={"model": "rf_pos"}),
        ["AP"],
        {"by": "rf_pos"},
        values={("m1", "AP"): 5 / 6, ("m2", "AP"): 1 / 4},
        sql=("segments := ['rf_pos']", '"AP"', r"rf_pos"),
    ),
    Case(
        "segment named like a SQL output column",
        lambda: base().rename(columns={"model": "AP"}),
        ["AP"],
        {"by": "AP"},
        values={("m1", "AP"): 5 / 6, ("m2", "AP"): 1 / 4},
        sql=("segments := ['AP']", '"AP"', r"also output columns of rf_means: 'AP'"),
    ),
    Case(
        "segment named index",
        lambda: base().rename(columns={"model": "index"}),
        ["AP"],
        {"by": "index"},
        values={("m1", "AP"): 5 / 6, ("m2", "AP"): 1 / 4},
    ),
    Case(
        "exponential gain overflow",
        lambda: base().assign(relevance=[2000, 0, 2, 0, 1, 1]),
        ["nDCG(gain='exponential')"],
        error=P,
        pattern=r"gain ?:?= ?'exponential'.*overflows.*grade 2000",  # gain := ... where the SQL road reports it
        cli=(),
    ),
    Case("metric parameter given twice", base, ["AP(k=5)@10"], error=P, pattern=r"'k' parameter twice", cli=()),
    Case(
        "metric parameter and its alias",
        base,
        ["AP(rel=2, threshold=3)"],
        error=P,
        pattern=r"'rel' parameter twice",
        cli=(),
    ),
    Case(
        "complex relevance",
        lambda: base().assign(relevance=np.array([1, 0, 2, 0, 1, 1], dtype=complex)),
        ["AP"],
        error=V,
        pattern=r"relevance must be numeric",
    ),
    Case(
        "ERR grade above max_grade",
        lambda: base().assign(relevance=[5, 0, 2, 0, 1, 1]),
        ["ERR"],
        error=P,
        pattern=r"'max_grade' parameter of ERR must be >= every grade.*grade 5",
        cli=(),
        sql=("", '"ERR"', r"max_grade"),
    ),
    Case(
        "ERR grade above max_grade outside the top k",
        lambda: base().assign(relevance=[0, 0, 5, 0, 1, 1]),
        ["ERR@1"],
        error=P,
        pattern=r"'max_grade' parameter of ERR must be >= every grade",
        cli=(),
    ),
    Case(
        "ERR with a huge max_grade",
        base,
        ["ERR(max_grade=2000)"],
        # Pr(g) = (2^g - 1) / 2^2000 underflows to 0 for grades 0..2: ERR = 0 (finite, never an OverflowError)
        values={"ERR(max_grade=2000)": 0.0},
        cli=(),
        sql=("max_grade := 2000", '"ERR"', ""),
    ),
    Case(
        "k beyond int64",
        base,
        [f"P@{2**63}"],
        error=P,
        pattern=r"'k' parameter of precision must be an int >= 1 \(at most 2\*\*63 - 1\)",
        cli=(),
        sql=("k := 1e30", '"P"', r"'k' parameter"),
    ),
    Case("k as a string in SQL", base, ["P@2"], values={"P@2": 0.5}, sql=("k := '10'", '"P"', r"'k' parameter")),
    Case("k far beyond the lists", base, ["P@1000"], values={"P@1000": 0.0015}, cli=(), sql=("k := 1000", '"P"', "")),
    Case(
        "duplicated column names",
        lambda: pd.concat([base(), base()[["rank"]]], axis=1),
        ["AP"],
        error=V,
        pattern=r"column names must be unique: 'rank' appears 2 times",
    ),
    Case("by is a number", base, ["AP"], {"by": 5}, error=P, pattern=r"'by' parameter of evaluate must be a column"),
    Case(
        "by names a column twice",
        base,
        ["AP"],
        {"by": ["model", "model"]},
        error=P,
        pattern=r"names column 'model' twice",
    ),
    Case("by is empty", base, ["AP"], {"by": []}, values={"AP": MAP}),
    Case("by holds the query column", base, ["AP"], {"by": "query"}, error=P, pattern=r"contains the query column"),
    Case("metric asked twice under two names", base, ["AP", "map"], error=P, pattern=r"asks for AP twice", cli=()),
    Case("metrics is a number", base, 5, error=P, pattern=r"'metrics' parameter of evaluate must be a metric name"),
    Case("metrics is empty", base, [], error=P, pattern=r"must name at least one metric"),
    Case(
        "columns as a dict",
        lambda: base().rename(columns={"query": "user"}),
        ["AP"],
        {"columns": {"query": "user"}},
        values={"AP": MAP},
        cli=("--query", "user"),
    ),
    Case(
        "columns with a misspelled role",
        base,
        ["AP"],
        {"columns": {"qurey": "user"}},
        error=P,
        pattern=r"unknown column role 'qurey' \(did you mean 'query'\?\)",
    ),
    Case(
        "per_query is a string",
        base,
        ["AP"],
        {"per_query": "yes"},
        error=P,
        pattern=r"'per_query' parameter of evaluate must be True or False",
    ),
    Case(
        "string relevance",
        lambda: base().assign(relevance=["1", "0", "2", "0", "1", "1"]),
        ["AP"],
        error=V,
        pattern=r"relevance must be numeric",
        cli=(),
    ),
    Case(
        "bool relevance",
        lambda: base().assign(relevance=[True, False, True, False, True, True]),
        ["AP"],
        error=V,
        pattern=r"relevance must be numeric",
        cli=(),
    ),
    Case(
        "null query id",
        lambda: base().astype({"query": "Int64"}).assign(query=pd.array([1, 1, None, 2, 2, 2], dtype="Int64")),
        ["AP"],
        error=V,
        pattern=r"column 'query': must not be null",
        cli=(),
    ),
    Case(
        "infinite relevance",
        lambda: base().assign(relevance=[1, 0, np.inf, 0, 1, 1]),
        ["AP"],
        error=V,
        pattern=r"relevance must be finite",
        cli=(),
    ),
    Case(
        "rank zero and fractional",
        lambda: base().assign(rank=[0, 1.5, 3, 1, 2, np.nan]),
        ["AP"],
        error=V,
        pattern=r"rank must be an integer >= 1",
        cli=(),
    ),
    Case(
        "negative grades count as not relevant",
        lambda: base().assign(relevance=[1, -3, 2, -1, 1, 1]),
        ["AP"],
        values={"AP": MAP},
        cli=(),
        sql=("", '"AP"', ""),
    ),
    Case(
        "nothing relevant anywhere",
        lambda: base().assign(relevance=0),
        ["AP", "P@2"],
        values={"AP": 0.0, "P@2": 0.0},
        cli=(),
        sql=("", '"AP"', ""),
    ),
    Case(
        "huge table of one query",
        lambda: pd.DataFrame(
            {
                "query": 1,
                "item": np.arange(200_000),
                "rank": np.arange(1, 200_001),
                "relevance": (np.arange(200_000) % 1000 == 0).astype(int),
            }
        ),
        ["P@1000", "R@1000"],
        # one relevant item every 1000 ranks, the first at rank 1: P@1000 = 1/1000; R@1000 = 1/200
        values={"P@1000": 0.001, "R@1000": 1 / 200},
        cli=(),
    ),
]


@pytest.fixture(params=CASES, ids=[c.name for c in CASES])
def any_case(request) -> Case:
    return request.param


def _check_values(got: dict, expected: dict, face: str) -> None:
    assert set(got) == set(expected), f"{face}: {got} vs {expected}"
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), f"{face}: {key}"


@pytest.mark.quick_sample(6, per="face")  # the quick loop: 6 of the cases on each face (tests/tiers.py)
@pytest.mark.parametrize("face", PY_FACES)
def test_python_faces(any_case: Case, face: str):
    case = any_case
    df = case.make()
    before = df.copy(deep=True)
    outcome = run_python(face, df, case.metrics, **case.kw)
    if case.values is not None:
        assert outcome.error is None, f"{face}: {outcome.message}"
        _check_values(outcome.means, case.values, face)
    else:
        assert_error(outcome, case.error, case.pattern, face)
    pd.testing.assert_frame_equal(df, before)  # never mutate the caller's data


CLI_CASES = [c for c in CASES if c.cli is not None]  # the others need mixed-type ids, Python-only options, ...
SQL_CASES = [c for c in CASES if c.sql is not None]  # SQL columns are typed and its parameters are its own


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.name for c in CLI_CASES])
def test_cli_face(case: Case, tmp_path):
    df = case.make()
    outcome = run_cli(tmp_path, df, [str(m) for m in case.metrics], case.cli)
    if case.values is not None:
        assert outcome.error is None, outcome.message
        _check_values(outcome.means, case.values, "cli")
    else:
        pattern = case.cli_pattern or case.pattern.replace(r"evaluate must", r".* must")
        assert_error(outcome, ("exit 2",), pattern, "cli")


@pytest.mark.parametrize("case", SQL_CASES, ids=[c.name for c in SQL_CASES])
def test_sql_face(case: Case):
    assert case.sql is not None
    args, columns, pattern = case.sql
    df = case.make()
    before = df.copy(deep=True)
    outcome = run_sql(df, args, columns)
    if pattern:
        assert outcome.error is not None, f"sql: expected an error matching {pattern!r}, got {outcome.means}"
        assert "INTERNAL" not in outcome.message, outcome.message
        import re

        assert re.search(pattern, outcome.message), outcome.message
    else:
        assert outcome.error is None, outcome.message
        name = columns.strip('"')
        _check_values({name: outcome.means[name][0]}, {name: case.values[str(case.metrics[0])]}, "sql")
    pd.testing.assert_frame_equal(df, before)


def test_repeated_index_shows_the_offending_rows(engine):
    # pd.concat without ignore_index repeats labels 0..2; query 3's ranks are [1, 1, 2]: rows 1 and 2 of the
    # second part (positions 4 and 5) break the unique-rank rule, and only they may be shown
    first = base().iloc[:3]
    second = first.assign(query=3, rank=pd.array([1, 1, 2], dtype="Int64"), item=["x", "y", "z"])
    df = pd.concat([first, second])
    with pytest.raises(rankframe.ValidationError) as info:
        rankframe.evaluate(df, ["AP"], engine=engine)
    (failure,) = info.value.failures
    assert failure["count"] == 2
    assert list(failure["examples"]["item"]) == ["x", "y"]
    assert "(2 offending row(s))" in str(info.value)


def test_qrels_with_other_id_dtype_and_own_column_names(engine):
    run = base().drop(columns="relevance")
    qrels_str = pd.DataFrame({"query": ["1"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rankframe.ParameterError, match=r"query ids .* different kinds \(number vs text\)"):
        rankframe.evaluate(run, ["AP"], qrels=qrels_str, engine=engine)
    # judgments with their own column names: the base table's grades as (qid, doc, grade)
    judged = base().loc[lambda d: d["relevance"] > 0, ["query", "item", "relevance"]]
    qrels = judged.rename(columns={"query": "qid", "item": "doc", "relevance": "grade"})
    got = rankframe.evaluate(
        run, ["AP"], qrels=qrels, engine=engine, qrels_columns={"query": "qid", "item": "doc", "relevance": "grade"}
    )
    assert got["value"].iloc[0] == pytest.approx(MAP, abs=1e-12)
    with pytest.raises(rankframe.ValidationError, match=r"(?s)the qrels table breaks.*column 'item' not in dataframe"):
        rankframe.evaluate(run, ["AP"], qrels=qrels, engine=engine)


def test_dictionary_encoded_ids_with_segments(engine):
    table = pa.table(
        {
            "query": pa.array(["1", "1", "1", "2", "2", "2"]).dictionary_encode(),
            "item": ["a", "b", "c", "a", "b", "d"],
            "rank": pa.array([1, 2, 3, 1, 2, None]),
            "relevance": [1, 0, 2, 0, 1, 1],
            "model": pa.array(["m1", "m1", "m1", "m2", "m2", "m2"]).dictionary_encode(),
        }
    )
    for df in (table.to_pandas(), table.to_pandas(types_mapper=pd.ArrowDtype)):
        got = rankframe.evaluate(df, ["AP"], by="model", engine=engine)
        assert dict(zip(got["model"].astype(str), got["value"])) == pytest.approx({"m1": 5 / 6, "m2": 1 / 4})


def test_install_after_plain_import():
    import subprocess
    import sys

    code = "import duckdb, rankframe; con = rankframe.sql.install(duckdb.connect()); print(con.sql('SELECT rf_ap([1, 0, 1], 2)').fetchall()[0][0])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert float(out) == pytest.approx((1 + 2 / 3) / 2)  # hits at 1 and 3, two relevant
