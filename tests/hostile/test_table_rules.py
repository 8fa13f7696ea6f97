"""Each declared table rule (``rankframe.table_rules.RULES``), broken on each face that checks it, in its declared words.

The faces keep their own checks (pandera, the DuckDB view, Spark, the SQL macros) and take the words from the
declaration, except the SQL files, which are shipped text: here every declared rule is broken through each of its
faces (``rf_validate``'s rows, a macro's ``rf:table[<column>]`` error) and the words must be the declared ones, and
every rule-like literal of ``sql/`` must start with a declared rule's words. A rule added on one face only, or
reworded in one place, fails here.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection
from test_sql_error_codes import _code_only, error_calls

import rankframe
import rankframe.sql
from rankframe.engines.duckdb_engine import SQL_ERROR_CODES, split_sql_error, translate_error
from rankframe.tables import rules as table_rules
from rankframe.tables.rules import EXAMPLES, NULL_MEANS, RULES

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"


def _frame(**cols) -> pd.DataFrame:
    base = {"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1], "relevance": [1, 0, 1]}
    base.update(cols)
    return pd.DataFrame({k: v for k, v in base.items() if v is not None})


# rule -> cases: (table, by, the failing column, the fields of the words); 'order_by' := 'score' when the table has
# a score column and no rank column. Each table breaks its rule and no other the face checks first.
CASES: dict[str, list[tuple[pd.DataFrame, list[str], str, dict]]] = {
    "order_column": [(_frame(rank=None), [], "rank", {"rank": "rank", "score": "score"})],
    "not_null": [
        (_frame(query=["1", None, "2"]), [], "query", {"column": "query"}),
        (_frame(item=["a", None, "a"]), [], "item", {"column": "item"}),
    ],
    "one_id_type": [(_frame(item=["a", 1, "a"]), [], "item", {"column": "item"})],
    "nested": [(_frame(item=[["a"], ["b"], ["a"]]), [], "item", {"column": "item"})],
    "binary": [(_frame(item=[b"a", b"b", b"a"]), [], "item", {"column": "item"})],
    "numeric": [
        (_frame(rank=["1", "x", "1"]), [], "rank", {"role": "rank", "null_means": NULL_MEANS["rank"]}),
        (_frame(relevance=["1", "x", "1"]), [], "relevance", {"role": "relevance", "null_means": "unjudged"}),
        (
            _frame(rank=None, score=["1", "x", "1"]),
            [],
            "score",
            {"role": "score", "null_means": NULL_MEANS["score"]},
        ),
    ],
    "relevance_finite": [(_frame(relevance=[1.0, np.inf, 0.0]), [], "relevance", {})],
    "rank_integer": [(_frame(rank=[1.0, 2.5, 0.0]), [], "rank", {})],
    "score_finite": [(_frame(rank=None, score=[0.5, np.inf, 0.1]), [], "score", {})],
    "unique_rank": [(_frame(rank=[1, 1, 1], seg=["x", "x", "x"]), ["seg"], "rank", {"unit": ["seg", "query"]})],
    "unique_item": [
        (
            _frame(item=["a", "a", "a"], seg=["x", "x", "x"]),
            ["seg"],
            "item",
            {"column": "item", "unit": ["seg", "query"]},
        )
    ],
    "ranks_1_to_n": [(_frame(rank=[1, 3, 1]), [], "rank", {})],
}


def words(rule: str, face: str, fields: dict, *, hint: bool = True) -> re.Pattern:
    """The declared words as a pattern: the fields a face fills in itself (``found``, ``present``, ...) as ``.*``."""
    r = RULES[rule]
    text = (r.sql if face == "sql" and r.sql is not None else r.text) + (
        (r.sql_hint if face == "sql" else r.hint) if hint else ""
    )
    out = []
    for literal, field, _, conversion in string.Formatter().parse(text):
        out.append(re.escape(literal))
        if field is None:
            continue
        if field not in fields:
            out.append(".*")
            continue
        value = ", ".join(fields[field]) if field == "unit" else fields[field]
        out.append(re.escape(repr(value) if conversion == "r" else str(value)))
    return re.compile("".join(out))


# the order_by of the SQL faces: the column the table has, or the rule's own
ORDER_BY = {"ranks_1_to_n": "position"}


def _order_by(table: pd.DataFrame, rule: str = "") -> str:
    return ORDER_BY.get(rule, "rank" if "rank" in table.columns else "score")


# ---------------------------------------------------------------------------------------------------- faces


def pandas_face(table, by):
    with pytest.raises(rankframe.ValidationError) as info:
        rankframe.validate(table, by=by)
    return info.value


def duckdb_face(table, by):
    con = duckdb.connect()
    con.register("t", table)
    with pytest.raises(rankframe.ValidationError) as info:
        rankframe.evaluate(con.sql("SELECT * FROM t"), ["P"], by=by)
    con.close()
    return info.value


@pytest.fixture(scope="module")
def sql_con():
    con = macro_connection()
    yield con
    con.close()


def sql_rows(con, table, by):
    con.register("t", table)
    segments = "[" + ", ".join(f"'{b}'" for b in by) + "]"
    return con.execute(
        f"SELECT \"column\", rule, n_rows, examples FROM rf_validate('t', segments := {segments}, "
        f"order_by := '{_order_by(table)}')"
    ).fetchall()


def sql_error(con, table, by, rule):
    con.register("t", table)
    segments = "[" + ", ".join(f"'{b}'" for b in by) + "]"
    order_by = _order_by(table, rule)
    with pytest.raises(duckdb.InvalidInputException) as info:
        con.execute(f"SELECT * FROM rf_per_query('t', segments := {segments}, order_by := '{order_by}')").fetchall()
    return info.value


def _failure(err: rankframe.ValidationError, column: str, pattern: re.Pattern) -> dict:
    found = [f for f in err.failures if f["column"] == column and pattern.match(f["rule"])]
    assert found, f"no failure on {column!r} matching {pattern.pattern!r} in {err.failures}"
    return found[0]


PY_FACES = {"pandas": pandas_face, "duckdb": duckdb_face}
# (rule, face, column) a face does not check although it checks the rule: the only 'must be numeric' error of the
# macros is the rank's (order_by := 'rank' sorts by it; rf_validate reports the others)
NOT_ON_FACE = {("numeric", "sql_error", "relevance"), ("numeric", "sql_error", "score")}


def _cases(faces: tuple[str, ...]):
    for name, rule in RULES.items():
        for face in faces:
            if face in rule.faces:
                for i, case in enumerate(CASES[name]):
                    if (name, face, case[2]) not in NOT_ON_FACE:
                        yield pytest.param(name, face, case, id=f"{name}-{face}-{i}")


@pytest.mark.parametrize(("rule", "face", "case"), list(_cases(("pandas", "duckdb"))))
def test_python_faces_say_the_declared_words(rule, face, case):
    table, by, column, fields = case
    failure = _failure(PY_FACES[face](table, by), column, words(rule, "python", fields))
    assert failure.get("examples") is None or len(failure["examples"]) <= EXAMPLES
    assert isinstance(failure["count"], int)


@pytest.mark.parametrize(("rule", "face", "case"), list(_cases(("sql",))))
def test_rf_validate_says_the_declared_words(sql_con, rule, face, case):
    table, by, column, fields = case
    rows = sql_rows(sql_con, table, by)
    pattern = words(rule, "sql", fields)
    found = [r for r in rows if r[0] == column and pattern.fullmatch(r[1])]
    assert found, f"rf_validate: no row on {column!r} saying {pattern.pattern!r} in {rows}"
    assert 1 <= len(found[0][3]) <= EXAMPLES


@pytest.mark.parametrize(("rule", "face", "case"), list(_cases(("sql_error",))))
def test_sql_errors_say_the_declared_words_with_their_code(sql_con, rule, face, case):
    table, by, column, fields = case
    err = sql_error(sql_con, table, by, rule)
    code, code_column, message = split_sql_error(str(err))
    assert (code, code_column) == ("rf:table", column)
    assert words(rule, "sql", fields, hint=False).match(message), message
    assert SQL_ERROR_CODES[code] is RULES[rule].error and type(translate_error(err)) is RULES[rule].error


def test_sql_errors_show_the_declared_number_of_examples(sql_con):
    # five repeated (query, item) keys: the macro's error names the five and shows SQL_ERROR_EXAMPLES of them
    items = [name for name in "abcde" for _ in range(2)]
    table = pd.DataFrame({"query": "q", "item": items, "rank": range(1, 11), "relevance": 1})
    sql_con.register("rf_test_examples", table)
    with pytest.raises(duckdb.Error) as info:
        sql_con.execute("SELECT * FROM rf_per_query('rf_test_examples')").fetchall()
    message = str(info.value)
    assert "5 (query, item) key(s)" in message
    shown = re.findall(r"item=(\w) \(2 rows\)", message)
    assert len(shown) == table_rules.SQL_ERROR_EXAMPLES, message


@pytest.mark.spark
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
@pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")
def test_spark_says_the_declared_words():
    from sparkutil import session, to_spark

    import rankframe.spark as rs

    spark = session()
    for rule, face, case in (p.values for p in _cases(("spark",))):
        table, by, column, fields = case
        if rule in ("one_id_type",):
            continue
        if rule == "nested":  # Spark reads a column of lists as array<string>
            table = table.assign(item=[["a"], ["b"], ["a"]])
        with pytest.raises(rankframe.ValidationError) as info:
            rs.validate(to_spark(spark, table), by=by)
        failure = _failure(info.value, column, words(rule, "python", fields))
        assert failure.get("examples") is None or len(failure["examples"]) <= EXAMPLES


# ------------------------------------------------------------------------------------------- the declaration


def test_every_rule_has_a_case_and_known_faces():
    assert set(CASES) == set(RULES)
    for rule in RULES.values():
        assert set(rule.faces) <= {"pandas", "duckdb", "spark", "sql", "sql_error"}, rule.name
        assert issubclass(rule.error, rankframe.RankframeError)


def test_the_item_rule_of_units_is_the_declared_one():
    # one function, not two held equal: rankframe.units re-exports the declaration's builder
    from rankframe.tables import units

    assert units.duplicate_item_rule is table_rules.duplicate_item_rule


def _literals(code: str) -> list[str]:
    return [m.group(1).replace("''", "'") for m in re.finditer(r"'((?:[^']|'')*)'", code)]


def _stems() -> list[str]:
    """Each declared rule's SQL words up to its first field a face fills in, for every column it applies to."""
    stems = []
    for rule in RULES.values():
        text = rule.sql if rule.sql is not None else rule.text
        for role in rule.columns:
            fields = {"column": role, "role": role, "null_means": NULL_MEANS.get(role, "")}
            stem = ""
            for literal, field, _, _ in string.Formatter().parse(text):
                stem += literal
                if field is None:
                    continue
                if field not in fields:
                    break
                stem += fields[field]
            stems.append(stem)
    return stems


# rf:table[<column>] errors that are no rule of the table: a metric's computation failing on its values
NOT_TABLE_RULES = (
    "the sum of the gains of a query is infinite",
    "the fused scores overflow float64",  # rf_fuse's computed scores, in rankframe.fusion.fuse.OVERFLOW's words
)


def test_every_rule_in_the_sql_text_is_declared():
    stems = _stems()
    assert all(len(s) >= 10 for s in stems)  # a stem of a few letters would let any text through
    checked = []
    # rf_validate's rules: every literal of sql/validate.sql that states a rule
    for literal in _literals(_code_only((SQL_DIR / "validate.sql").read_text(encoding="utf-8"))):
        if " must " in literal:
            checked.append(("validate.sql", literal))
    # the macros' errors on one column of the table (rf__check_duplicates, rf__keyed, rf_agg_n_retrieved, ...)
    for path in sorted(SQL_DIR.glob("*.sql")):
        for _, literal in error_calls(path.read_text(encoding="utf-8")):
            code, column, message = split_sql_error(f"Invalid Input Error: {literal}")
            if code == "rf:table" and column in ("query", "item", "relevance", "rank", "score"):
                if not message.startswith(NOT_TABLE_RULES):
                    checked.append((path.name, message))
    assert len(checked) >= 12  # the 9 rules of rf_validate and the macros' errors: a parser that sees none is no check
    for where, text in checked:
        stem = text.split("%s", 1)[0]
        assert any(stem.startswith(s) for s in stems), (
            f"sql/{where}: {text!r} is no declared rule's words (rankframe/table_rules.py RULES)"
        )
