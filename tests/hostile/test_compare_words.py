"""The comparison's rules say the same words on every face: rf_compare's SQL messages are the Python rules' templates.

The system, baseline and ``missing=`` rules are declared once (``rankframe.comparing.rules``,
``rankframe.stats.align``); pandas, DuckDB and Spark call them, and ``sql/compare.sql`` writes their words again as
printf formats. Here each template is turned into the printf format it must be (its fields become ``%s``) and found
in the message of an ``error()`` call of ``sql/compare.sql``, read as ``tests/hostile/test_sql_error_codes.py`` reads them;
then one table with each fault goes through ``rankframe.compare`` and ``rf_compare`` and both errors hold the words.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from faces import macro_connection
from test_sql_error_codes import _code_only, _literal_at

import rankframe
import rankframe.sql
from rankframe.comparing import rules
from rankframe.stats.align import MISALIGNED, MISSING, MISSING_FILL, MISSING_MEANING, misaligned_rule

SQL = Path(__file__).resolve().parents[2] / "sql" / "compare.sql"


class _Printf:
    """A template field that prints as printf's ``%s`` under both ``{x}`` and ``{x!r}`` (SQL's rf__repr(x))."""

    def __str__(self) -> str:
        return "%s"

    __repr__ = __str__


S = _Printf()


def error_messages(sql: str) -> list[str]:
    """The message format of every ``error(printf('...' || '...', ...))`` call: its literals joined by ``||``."""
    code = _code_only(sql)
    out = []
    for m in re.finditer(r"\berror\s*\(\s*(?:printf\s*\(\s*)?", code, flags=re.IGNORECASE):
        parts, i = [], m.end()
        while (literal := _literal_at(code, i)) is not None:
            parts.append(literal)
            i += len(literal) + 2 + literal.count("'")  # the quotes, and each quote doubled inside
            more = re.match(r"\s*\|\|\s*", code[i:])
            if more is None or code[i + more.end() : i + more.end() + 1] != "'":
                break
            i += more.end()
        out.append("".join(parts))
    return out


# what rf_compare's message must contain, for each rule: the template with rf_compare's values, fields as %s
DECLARED = {
    # the system rule is sql/compare.sql's rf__check_system, shared by rf_compare and rf_anova: its owner is a field
    "system in segments": rules.SYSTEM_IN_BY.format(
        system="%s", by_arg="segments := %s", owner="%s", by_name="segments"
    ),
    "null systems": rules.NULL_SYSTEMS,
    # rf__compare_systems is shared by rf_compare and rf_anova too (issue 34): its owner is a field
    "too few systems": rules.TOO_FEW_SYSTEMS.format(owner="%s", system="%s", count=S, found=S),
    "unknown baseline": rules.UNKNOWN_BASELINE.format(owner="rf_compare", system="%s", shown=S, baseline=S, hint=S),
    "misaligned": MISALIGNED.format(count=S),
    "missing='zero'": MISSING_MEANING["zero"],
    "missing='drop'": MISSING_MEANING["drop"],
}


def test_the_parser_joins_a_message_of_several_literals():
    sql = "SELECT error(printf('rf:param: it''s ' || 'one ' ||\n  'message %s', x)), error('rf:table: ' || f(y))"
    assert error_messages(sql) == ["rf:param: it's one message %s", "rf:table: "]


@pytest.mark.parametrize("rule", DECLARED)
def test_rf_compare_says_what_the_python_rule_declares(rule):
    messages = [m for m in error_messages(SQL.read_text(encoding="utf-8")) if DECLARED[rule] in m]
    assert messages, f"no error() of sql/compare.sql says the {rule} rule's words: {DECLARED[rule]!r}"


def test_every_missing_policy_has_its_meaning_and_fill():
    # the policy table that numpy (stats.align) and Spark (spark.compare) both apply
    assert set(MISSING) == {"error", *MISSING_MEANING} == {"error", *MISSING_FILL}
    for name, meaning in MISSING_MEANING.items():
        assert f"missing={name!r} to {meaning}" in misaligned_rule(3)


RUNS = pd.DataFrame(
    {
        "system": ["A", "A", "B", "B"],
        "query": ["q1", "q2", "q1", "q2"],
        "item": ["a", "a", "a", "a"],
        "rank": [1, 1, 1, 1],
        "relevance": [1, 0, 1, 1],
    }
)


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


def _both(con, df, baseline="A", by=None):
    """The message of rankframe.compare's error and of rf_compare's error on the same table."""
    with pytest.raises(rankframe.RankframeError) as py:
        rankframe.compare(df, "P@1", baseline=baseline, by=by)
    con.register("t", df)
    segments = "[]" if by is None else repr(list(by))
    with pytest.raises(duckdb.Error) as sql:
        con.execute(
            f"SELECT * FROM rf_compare('t', baseline := '{baseline}', metrics := ['P'], k := 1, segments := {segments})"
        ).fetchall()
    return str(py.value), str(sql.value)


@pytest.mark.parametrize(
    "fault, table, kw, words",
    [
        ("no system", RUNS.assign(system=["A", None, "B", "B"]), {}, rules.NULL_SYSTEMS + " (1 offending row(s))"),
        ("one system", RUNS[RUNS.system == "A"], {}, "needs at least 2 systems in column 'system'; found 1: "),
        ("unknown baseline", RUNS, dict(baseline="C"), "must be one of the systems in column 'system': "),
        (
            "system in segments",
            RUNS,
            dict(by=["system"]),
            rules.SYSTEM_IN_BY.split("{by_arg}")[0].format(system="system"),
        ),
        ("misaligned", RUNS.iloc[:3], {}, MISALIGNED.format(count=1)),
    ],
)
def test_the_same_table_breaks_the_same_words(con, fault, table, kw, words):
    py, sql = _both(con, table, **kw)
    assert words in py and words in sql, (fault, py, sql)


# rf_fuse states the same system rules as rf_compare (rankframe.fuse calls comparing.rules.check_systems with its owner)
FUSE_SQL = SQL.parent / "fuse.sql"
FUSE_DECLARED = {
    "null systems": rules.NULL_SYSTEMS,
    "too few systems": rules.TOO_FEW_SYSTEMS.format(owner="rf_fuse", system="%s", count=S, found=S),
}


@pytest.mark.parametrize("rule", FUSE_DECLARED)
def test_rf_fuse_says_what_the_python_rule_declares(rule):
    messages = [m for m in error_messages(FUSE_SQL.read_text(encoding="utf-8")) if FUSE_DECLARED[rule] in m]
    assert messages, f"no error() of sql/fuse.sql says the {rule} rule's words: {FUSE_DECLARED[rule]!r}"


def test_one_system_is_one_rule_in_every_owners_name(con):
    # one system 'A' (2 rows, one query each): compare, anova and fuse say the declared words with their own name,
    # rf_compare and rf_fuse with theirs
    one = RUNS[RUNS.system == "A"].assign(score=[2.0, 1.0])
    for owner, call in (
        ("compare", lambda: rankframe.compare(one, "P@1", baseline="A")),
        ("anova", lambda: rankframe.anova(one, "P@1")),
        ("fuse", lambda: rankframe.fuse(one, "rrf")),
    ):
        with pytest.raises(rankframe.ValidationError) as e:
            call()
        assert e.value.failures[0]["rule"] == rules.TOO_FEW_SYSTEMS.format(
            owner=owner, system="system", count=1, found=["A"]
        ), owner
    con.register("one", one)
    for owner, sql in (
        ("rf_compare", "SELECT * FROM rf_compare('one', baseline := 'A', metrics := ['P'], k := 1)"),
        ("rf_fuse", "SELECT * FROM rf_fuse('one', method := 'rrf')"),
    ):
        with pytest.raises(duckdb.Error) as e:
            con.execute(sql).fetchall()
        assert rules.TOO_FEW_SYSTEMS.format(owner=owner, system="system", count=1, found="'A'") in str(e.value), owner
