"""The system column's rule of rf_compare and rf_anova is one macro (sql/compare.sql rf__check_system): each of its
branches gives both macros the same words, naming the macro called."""

from __future__ import annotations

import duckdb
import pytest

import rankframe.sql as rf_sql


@pytest.fixture(scope="module")
def con():
    c = rf_sql.install(duckdb.connect())
    yield c
    c.close()


@pytest.mark.parametrize("macro", ["rf_compare", "rf_anova"])
@pytest.mark.parametrize(
    ("call", "words"),
    [("system := 5", "The 'system' parameter of {m} must be a column name (such as 'system'). Got 5 instead."),
     ("system := 'sytem'", "The 'system' parameter of {m} names a column not in the table: 'sytem' (did you mean "
                           "'system'?)"),
     ("system := 'query'", "The 'system' parameter of {m} must name the column that says which system (run) each "
                           "row comes from, not 'query'."),
     ("segments := ['length', 'system']", "the system column 'system' is also in segments := [length, system]: {m} "
                                          "adds it to the segments itself")],
)  # fmt: skip
def test_each_branch_on_both_macros(con, macro, call, words):
    with pytest.raises(duckdb.Error) as e:
        con.execute(f"SELECT * FROM {macro}('examples/paired.parquet', metrics := ['AP'], {call})").fetchall()
    assert "rf:param" in str(e.value)
    assert words.format(m=macro) in str(e.value)


@pytest.mark.parametrize(("macro", "taken"), [("rf_compare", "n_queries"), ("rf_anova", "value")])
def test_each_macro_keeps_its_own_output_names_from_the_system_column(con, macro, taken):
    con.execute(f"CREATE OR REPLACE VIEW rf_t_sys AS SELECT *, system AS {taken} FROM 'examples/paired.parquet'")
    with pytest.raises(duckdb.Error, match=f"must name the column that says which system .* not '{taken}'"):
        extra = ", baseline := 'bm25'" if macro == "rf_compare" else ""
        con.execute(f"SELECT * FROM {macro}('rf_t_sys', metrics := ['AP'], system := '{taken}'{extra})").fetchall()
