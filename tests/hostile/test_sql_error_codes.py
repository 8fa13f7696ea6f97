"""Every error() of rankframe's macros starts with a stable code, which alone decides the Python class (issue 20).

``duckdb_engine.SQL_ERROR_CODES`` maps ``rf:param`` / ``rf:table`` to ParameterError / ValidationError; the message
text no longer matters, so rewording a message in ``sql/`` cannot change the class users catch.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql
from rankframe.core.columns import Columns
from rankframe.core.errors import ParameterError, RankframeError, ValidationError
from rankframe.engines import duckdb_engine
from rankframe.engines.duckdb_engine import SQL_ERROR_CODE, SQL_ERROR_CODES, split_sql_error, translate_error
from rankframe.measures.names import parse
from rankframe.measures.registry import POLICY_DEFAULTS

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"


def _code_only(sql: str) -> str:
    """The SQL text with its ``--`` comments blanked out (string literals kept: a '--' inside one is text)."""
    out, i, in_str = [], 0, False
    while i < len(sql):
        c = sql[i]
        if in_str:
            out.append(c)
            if c == "'":
                if sql[i + 1 : i + 2] == "'":  # an escaped quote ''
                    out.append("'")
                    i += 1
                else:
                    in_str = False
        elif c == "'":
            in_str = True
            out.append(c)
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = len(sql) if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _literal_at(text: str, i: int) -> str | None:
    """The value of the string literal that starts at ``text[i]`` (a quote), or None when none starts there."""
    if text[i : i + 1] != "'":
        return None
    value, i = [], i + 1
    while i < len(text):
        if text[i] == "'":
            if text[i + 1 : i + 2] != "'":
                return "".join(value)
            i += 1
        value.append(text[i])
        i += 1
    return None


def error_calls(sql: str) -> list[tuple[int, str | None]]:
    """(line, first literal of the message) of every ``error(`` call: the message is ``error('...' ...)`` or
    ``error(printf('...' ...))``; a message built by concatenation starts with its first literal. None when the
    message does not start with a literal (an expression alone cannot promise a code)."""
    code = _code_only(sql)
    calls = []
    for m in re.finditer(r"\berror\s*\(\s*(?:printf\s*\(\s*)?", code, flags=re.IGNORECASE):
        calls.append((code.count("\n", 0, m.start()) + 1, _literal_at(code, m.end())))
    return calls


def uncoded(sql: str) -> list[str]:
    """The error() calls of a SQL text whose message does not start with a known code (as 'line: start')."""
    bad = []
    for line, literal in error_calls(sql):
        m = None if literal is None else SQL_ERROR_CODE.match(literal)
        if m is None or m["code"] not in SQL_ERROR_CODES:
            bad.append(f"{line}: {literal if literal is None else literal[:40]!r}")
    return bad


# ---------------------------------------------------------------------------------------------- (a) static


def test_the_parser_sees_every_error_call():
    # the parser, on a made-up text: a commented call is not a call, a literal '--' is text, printf and
    # concatenation are read, an uncoded message and a message that is only an expression are caught
    sql = (
        "SELECT CASE WHEN a THEN error(printf('rf:param: The ''k'' -- parameter %s', k))\n"
        "  -- ELSE error('not a call')\n"
        "  WHEN b THEN ERROR ('rf:table[item]: ' || msg(x))\n"
        "  WHEN c THEN error('The ''k'' parameter of f must be ...')\n"
        "  WHEN d THEN error(msg(x))\n"
        "  WHEN e THEN error('rf:nope: an unknown code') END"
    )
    assert [line for line, _ in error_calls(sql)] == [1, 3, 4, 5, 6]
    assert uncoded(sql) == ["4: \"The 'k' parameter of f must be ...\"", "5: None", "6: 'rf:nope: an unknown code'"]


def test_every_error_call_of_sql_starts_with_a_known_code():
    found = {}
    for path in sorted(SQL_DIR.glob("*.sql")):
        sql = path.read_text(encoding="utf-8")
        bad = uncoded(sql)
        assert not bad, f"sql/{path.name}: error() without a code of duckdb_engine.SQL_ERROR_CODES at line(s) {bad}"
        for _, literal in error_calls(sql):
            found.setdefault(SQL_ERROR_CODE.match(literal or "")["code"], []).append(path.name)  # type: ignore[index]
    assert sum(map(len, found.values())) >= 30  # the 34 calls of issue 20: a parser that sees none is no check
    assert set(found) == set(SQL_ERROR_CODES)  # and no code of the table is dead


# ------------------------------------------------------------------------------------- (b) one call per code


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    table = pd.DataFrame({"query": [1, 1, 2], "item": ["a", "a", "b"], "rank": [1, 3, 1], "relevance": [1, 0, 1]})
    c.register("t", table)
    c.register("no_rel", table.drop(columns="relevance"))
    c.register("text_rank", table.assign(rank=table["rank"].astype(str)))
    c.register("runs", RUNS)
    yield c
    c.close()


RUNS = pd.DataFrame({"run": ["a", "a"], "query": [1, 2], "item": ["x", "x"], "rank": [1, 1], "relevance": [1, 0]})

# (SQL, code, Python class, failure column or None, the message as the Python API shows it: no code, no prefix)
CASES = {
    "param": (
        "SELECT rf_precision([1, 0], k := 0)",
        "rf:param",
        ParameterError,
        None,
        "The 'k' parameter of rf_precision must be an int >= 1 (at most 2**63 - 1) or NULL. Got 0 instead.",
    ),
    "table": (
        "SELECT * FROM rf_per_query('no_rel')",
        "rf:table",
        ValidationError,
        "<table>",
        "The table has no column(s) 'relevance', which rankframe's macros read",
    ),
    "table[item]": (
        "SELECT * FROM rf_per_query('t')",
        "rf:table",
        ValidationError,
        "item",
        "item must be unique within each (query): 1 (query, item) key(s) occur on more than one row",
    ),
    "table[rank]": (
        "SELECT * FROM rf_per_query('t', order_by := 'position', allow_duplicates := true)",
        "rf:table",
        ValidationError,
        "rank",
        "order_by := 'position' needs ranks 1..n in every query, but a query has 2 ranked rows and largest rank 3",
    ),
    "table[<system>]": (
        "SELECT * FROM rf_compare('runs', system := 'run', metrics := ['P'])",
        "rf:table",
        ValidationError,
        "run",
        "rf_compare needs at least 2 systems in column 'run'; found 1: 'a'.",
    ),
    # rf_fuse (sql/fuse.sql): its parameters, its columns and its systems take the same codes
    "fuse param": (
        "SELECT * FROM rf_fuse('runs', system := 'run', k := -1)",
        "rf:param",
        ParameterError,
        None,
        "The 'k' parameter of rf_fuse must be a finite number >= 0. Got -1 instead.",
    ),
    "fuse table": (
        "SELECT * FROM rf_fuse('runs', system := 'run', method := 'combsum')",
        "rf:table",
        ValidationError,
        "<table>",
        "the method reads scores, but the table has no column 'score' (only 'rank')",
    ),
    "fuse table[<system>]": (
        "SELECT * FROM rf_fuse('runs', system := 'run')",
        "rf:table",
        ValidationError,
        "run",
        "rf_fuse needs at least 2 systems in column 'run'; found 1: 'a'.",
    ),
}


def _sql_error(con, sql: str) -> duckdb.Error:
    with pytest.raises(duckdb.InvalidInputException) as info:
        con.execute(sql).fetchall()
    return info.value


@pytest.mark.parametrize("case", CASES)
def test_each_code_becomes_its_class(con, case):
    sql, code, kind, column, message = CASES[case]
    err = _sql_error(con, sql)
    assert str(err).startswith(f"Invalid Input Error: {code}")  # what SQL users see: the greppable code
    got = translate_error(err)
    assert type(got) is kind and SQL_ERROR_CODES[code] is kind
    assert message in str(got)
    assert "rf:" not in str(got) and "Invalid Input Error" not in str(got)  # the user's message keeps its text
    if column is not None:
        assert isinstance(got, ValidationError) and got.failures[0]["column"] == column


def test_every_code_has_a_case():
    assert {c[1] for c in CASES.values()} == set(SQL_ERROR_CODES)


def test_a_parameter_error_through_the_duckdb_engine():
    # the accessor checks max_grade in Python before engine="duckdb" runs, so the engine is called directly: the ERR
    # macro's rf:param error arrives as the ParameterError of the Python API, code and DuckDB prefix stripped
    df = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2], "relevance": [5, 0]})
    with pytest.raises(ParameterError, match=r"^The 'max_grade' parameter of ERR must be >= every grade"):
        duckdb_engine.evaluate(df, [parse("ERR")], Columns(), [], True, POLICY_DEFAULTS)


def test_the_text_no_longer_decides_the_class():
    # before issue 20 the words "The '... parameter of" made a ParameterError; a message without a code (or with
    # an unknown one) is now no macro's error, whatever it says
    for text in ("The 'k' parameter of rf_ap must be an int >= 1. Got 0 instead.", "rf:nope: item must be unique"):
        got = translate_error(duckdb.InvalidInputException(f"Invalid Input Error: {text}"))
        assert type(got) is RankframeError and "the DuckDB engine (engine='duckdb') failed" in str(got)
    assert split_sql_error("Invalid Input Error: rf:table[a b]: x: y") == ("rf:table", "a b", "x: y")


# ------------------------------------------------------------------------- the same class as the Python road


def test_sql_compare_rules_have_the_class_of_rankframe_compare(con):
    # fewer than 2 systems: a ValidationError on the system column on both roads (the SQL one was a plain
    # RankframeError naming the engine before the codes)
    sql_err = translate_error(_sql_error(con, CASES["table[<system>]"][0]))
    with pytest.raises(ValidationError) as py:
        rankframe.compare(RUNS, ["P"], system="run")
    assert type(sql_err) is type(py.value) and sql_err.failures[0]["column"] == py.value.failures[0]["column"]
    # the system column also among the segments: a ParameterError on both roads
    sql_err = translate_error(
        _sql_error(con, "SELECT * FROM rf_compare('runs', system := 'run', segments := ['run'], metrics := ['P'])")
    )
    with pytest.raises(ParameterError):
        rankframe.compare(RUNS, ["P"], system="run", by=["run"])
    assert type(sql_err) is ParameterError


def test_sql_text_ranks_are_a_validation_error_on_rank(con):
    # ranks as text: rf_per_query's error is the ValidationError on column 'rank' of the Python API
    sql_err = translate_error(_sql_error(con, "SELECT * FROM rf_per_query('text_rank', allow_duplicates := true)"))
    assert type(sql_err) is ValidationError and sql_err.failures[0]["column"] == "rank"
    assert "rank must be numeric" in str(sql_err)
    frame = pd.DataFrame({"query": [1, 2], "item": ["a", "b"], "rank": ["1", "1"], "relevance": [1, 0]})
    with pytest.raises(ValidationError) as py:
        frame.rank_metrics.evaluate(["P@1"])
    assert [f["column"] for f in py.value.failures] == ["rank"]


def test_linear_gain_overflow_is_a_validation_error_on_relevance(con):
    # DCG = 1e308 / log2(2) + 1e308 / log2(3) + 1e308 / log2(4) = 2.13e308 > float64's largest, 1.80e308: inf
    err = _sql_error(con, "SELECT rf_agg_dcg(p, g) FROM (VALUES (1, 1e308), (2, 1e308), (3, 1e308)) AS v(p, g)")
    got = translate_error(err)
    assert type(got) is ValidationError and got.failures[0]["column"] == "relevance"
