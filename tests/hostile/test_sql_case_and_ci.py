"""rf_compare(ci := NULL) and columns spelled in another case (issue 19): one clear error on every road."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql
from rankframe.core.errors import ParameterError, ValidationError
from rankframe.engines.duckdb_engine import translate_error

RUNS = pd.DataFrame(
    {
        "system": ["a", "a", "b", "b"],
        "query": [1, 2, 1, 2],
        "item": ["x", "x", "x", "x"],
        "rank": [1, 1, 1, 1],
        "relevance": [1, 0, 0, 1],
    }
)


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


@pytest.mark.parametrize("ci", ["NULL", "1", "0", "'0.9'"])
def test_rf_compare_ci_null_is_an_error_like_ci_1(con, ci):
    # NULL gave NULL intervals; it is now the error of ci := 1, which Python reads as a ParameterError, as
    # rankframe.compare(ci=None)
    con.register("runs", RUNS)
    with pytest.raises(duckdb.InvalidInputException) as e:
        con.execute(f"SELECT * FROM rf_compare('runs', baseline := 'a', metrics := ['P'], ci := {ci})").fetchall()
    assert "The 'ci' parameter of rf_compare must be a float in the open interval (0, 1)" in str(e.value)
    assert isinstance(translate_error(e.value), ParameterError)
    with pytest.raises(ParameterError, match="'ci' parameter of compare"):
        rankframe.compare(RUNS, ["P"], system="system", baseline="a", ci=None)


CASES = {  # (renamed columns, the required names the error must name with their hint)
    "Query": ({"query": "Query"}, ["'query' (did you mean 'Query'?)"]),
    "Rank": ({"rank": "Rank"}, ["'rank' (did you mean 'Rank'?)"]),
    "RELEVANCE": ({"relevance": "RELEVANCE"}, ["'relevance' (did you mean 'RELEVANCE'?)"]),
}
MACROS = ["rf_validate('t')", "rf_prepare('t')", "rf_per_query('t')", "rf_means('t')", "rf_per_query('t', k := 2)"]


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_column_in_another_case_is_one_clear_error(con, case, tmp_path):
    # DuckDB binds 'Query' for query, but rankframe's names are exact (as in Python): a binder error (table macros)
    # and a false 'rank must be ...' violation (rf_validate) before; now the missing-column error with a hint
    renamed, expected = CASES[case]
    frame = RUNS[RUNS["system"] == "a"].drop(columns="system").rename(columns=renamed)
    con.register("t", frame)
    for macro in MACROS:
        with pytest.raises(duckdb.InvalidInputException, match="The table has no column") as e:
            con.execute(f"SELECT * FROM {macro}").fetchall()
        for text in expected:
            assert text in str(e.value), (macro, str(e.value))
        assert isinstance(translate_error(e.value), ValidationError), macro
    # the Python roads: the DuckDB engine on a frame and on a Parquet path
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    for source, kw in ((frame, {"engine": "duckdb"}), (str(path), {})):
        with pytest.raises(ValidationError, match=rf"column '{case.lower()}'.*did you mean '{case}'"):
            rankframe.evaluate(source, ["P"], **kw)
