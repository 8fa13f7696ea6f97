"""Hostile input to rf_fuse (sql/fuse.sql): every mistake stops the call with a coded error (rf:param / rf:table[...])
whose Python class comes from the code alone (duckdb_engine.translate_error), on rankframe's own DuckDB connections
and on a plain ``duckdb.connect()`` that read the bundle."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

import rankframe.sql as rf_sql
from rankframe.core.errors import ParameterError, ValidationError
from rankframe.engines import duckdb_engine, duckdb_source
from rankframe.engines.duckdb_engine import translate_error

RUNS = pd.DataFrame(
    {
        "system": ["a", "a", "b", "b", "c"],
        "query": ["q1", "q1", "q1", "q2", "q1"],
        "item": ["x", "y", "y", "z", "x"],
        "score": [0.9, 0.5, 0.7, 0.3, 0.2],
    }
)
TABLES = {
    "runs": RUNS,
    "one_system": RUNS[RUNS.system == "a"],
    "no_order": RUNS.drop(columns="score"),
    "ranks_only": RUNS.drop(columns="score").assign(rank=[1, 2, 1, 1, 1]),
    "twice": pd.concat([RUNS, RUNS.iloc[:1]], ignore_index=True),
    "null_system": RUNS.assign(system=["a", None, "b", "b", "c"]),
    # two rows without a system on the same (query, item): two offending rows (not one key), as rankframe.fuse counts
    "null_system_twice": pd.concat([RUNS, RUNS.iloc[:1].assign(system=None), RUNS.iloc[:1].assign(system=None)]),
    "empty": RUNS.iloc[:0],
    # BM25-like 5..25 next to a cosine's 0.1..0.9: disjoint ranges
    "scales": pd.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": 1, "item": ["x", "y", "x", "y"], "score": [25.0, 5.0, 0.9, 0.1]}
    ),
}
WEIGHTS = "MAP {'a': 1.0, 'b': 0.5, 'c': 2}"

# name: (SQL after FROM, Python class, failure column (ValidationError) or None, words of the message)
CASES = {
    "unknown method": (
        "rf_fuse('runs', method := 'combfoo')",
        ParameterError,
        None,
        "The 'method' parameter of rf_fuse must be one of 'rrf', 'combsum',",
    ),
    "condorcet": ("rf_fuse('runs', method := 'condorcet')", ParameterError, None, "is not available in SQL"),
    "unknown norm": (
        "rf_fuse('runs', method := 'combsum', norm := 'minmax')",
        ParameterError,
        None,
        "The 'norm' parameter of rf_fuse must be one of 'min-max', 'max', 'sum', 'zmuv', 'rank', 'borda', 'none'. "
        "Got 'minmax' instead.",
    ),
    "negative k": (
        "rf_fuse('runs', k := -1)",
        ParameterError,
        None,
        "The 'k' parameter of rf_fuse must be a finite number >= 0. Got -1 instead.",
    ),
    "k 0 from rank 0": ("rf_fuse('runs', k := 0, rank_base := 0)", ParameterError, None, "divides by zero"),
    "rank_base 2": ("rf_fuse('runs', rank_base := 2)", ParameterError, None, "must be 0 or 1"),
    "depth 0": ("rf_fuse('runs', depth := 0)", ParameterError, None, "The 'depth' parameter of rf_fuse must be an int"),
    "sigma 2": ("rf_fuse('runs', method := 'logn_isr', sigma := 2)", ParameterError, None, "a number in [0, 1]"),
    "phi 1": ("rf_fuse('runs', method := 'rbc', phi := 1)", ParameterError, None, "open interval (0, 1)"),
    "no weights": ("rf_fuse('runs', method := 'wsum')", ParameterError, None, "method := 'wsum' needs weights :="),
    "weights for rrf": (f"rf_fuse('runs', weights := {WEIGHTS})", ParameterError, None, "applies to the weighted"),
    "weights not a map": ("rf_fuse('runs', method := 'wmnz', weights := [1, 2])", ParameterError, None, "a MAP"),
    "weights unknown system": (
        "rf_fuse('runs', method := 'wsum', weights := MAP {'a': 1, 'b': 1, 'c': 1, 'bm26': 1})",
        ParameterError,
        None,
        "names system(s) not in column 'system': 'bm26'. Systems in the table: 'a', 'b', 'c'.",
    ),
    "weights missing a system": (
        "rf_fuse('runs', method := 'mixed', weights := MAP {'a': 1, 'b': 1})",
        ParameterError,
        None,
        "must give a weight to every system; missing: 'c'.",
    ),
    "one system": (
        "rf_fuse('one_system')",
        ValidationError,
        "system",
        "rf_fuse needs at least 2 systems in column 'system'; found 1: 'a'.",
    ),
    "empty table": ("rf_fuse('empty')", ValidationError, "system", "found 0: none."),
    "neither score nor rank": (
        "rf_fuse('no_order')",
        ValidationError,
        "<table>",
        "neither a rank column 'rank' nor a score column 'score' in the table",
    ),
    "score method on ranks": (
        "rf_fuse('ranks_only', method := 'combmnz')",
        ValidationError,
        "<table>",
        "the method reads scores, but the table has no column 'score'",
    ),
    "misspelled system column": (
        "rf_fuse('runs', system := 'sytem')",
        ValidationError,
        "<table>",
        "The table has no column(s) 'sytem' (did you mean 'system'?)",
    ),
    "raw scores on different scales": (
        "rf_fuse('scales', method := 'combsum')",
        ParameterError,
        None,
        "method := 'combsum' adds raw 'score' values, and the systems' scores are on different scales ('a': [5.0, "
        "25.0], 'b': [0.1, 0.9]). Pass norm := 'min-max'",
    ),
    "system is query": ("rf_fuse('runs', system := 'query')", ParameterError, None, "not 'query'"),
    # an integer system := was a raw DuckDB ConversionException (the COLUMNS lambda compared names with 5)
    "system not a name": ("rf_fuse('runs', system := 5)", ParameterError, None, "must be a column name"),
    "item twice": ("rf_fuse('twice')", ValidationError, "item", "item must be unique within each (system, query)"),
    "null system": ("rf_fuse('null_system')", ValidationError, "system", "every row must name its system"),
    "null system rows counted": ("rf_fuse('null_system_twice')", ValidationError, "system", "(2 offending row(s))"),
    # a parameter error comes before the table's: the checks run in order, once, before any row is fused
    "param before table": ("rf_fuse('no_order', method := 'nope')", ParameterError, None, "'method' parameter"),
}


def _plain() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(rf_sql.bundle().read_text(encoding="utf-8"))
    if callable(getattr(con, "complete", None)):
        con.complete()
    return con


@pytest.fixture(scope="module", params=["engine cursor", "duckdb_source.connect", "plain connect + bundle"])
def con(request, tmp_path_factory):
    if request.param == "engine cursor":
        c = duckdb_engine._cursor()
    elif request.param == "duckdb_source.connect":
        c = duckdb_source.connect(None, str(tmp_path_factory.mktemp("spill")))
    else:
        c = _plain()
    for name, table in TABLES.items():
        c.register(name, table)
    yield c
    c.close()


@pytest.mark.quick_sample(15)  # the quick loop: 15 of the mistakes (tests/tiers.py)
@pytest.mark.parametrize("case", CASES)
def test_each_mistake_is_a_coded_error(con, case):
    sql, kind, column, words = CASES[case]
    with pytest.raises(duckdb.InvalidInputException) as info:
        con.execute(f"SELECT * FROM {sql}").fetchall()
    assert str(info.value).startswith("Invalid Input Error: rf:")  # the greppable code SQL users see
    got = translate_error(info.value)
    assert type(got) is kind, str(got)
    assert words in str(got)
    if column is not None:
        assert isinstance(got, ValidationError) and got.failures[0]["column"] == column


def test_good_calls_next_to_the_bad_ones(con):
    # the same tables fuse when asked right: ranks alone serve a score method through norm := 'rank'
    assert len(con.execute("SELECT * FROM rf_fuse('ranks_only', method := 'combmnz', norm := 'rank')").fetchall()) == 3
    assert (
        len(
            con.execute(
                f"SELECT * FROM rf_fuse('runs', method := 'wsum', weights := {WEIGHTS}, norm := 'none')"
            ).fetchall()
        )
        == 3
    )
    # the same scales fuse once normalised, or raw on purpose (norm := 'none')
    assert len(con.execute("SELECT * FROM rf_fuse('scales', method := 'combsum', norm := 'min-max')").fetchall()) == 2
    assert len(con.execute("SELECT * FROM rf_fuse('scales', method := 'combsum', norm := 'none')").fetchall()) == 2
    # CONDORCET / 'RRF': choices are compared case-insensitively, as every other choice of the macros
    upper = con.execute("SELECT * FROM rf_fuse('runs', method := 'RRF') ORDER BY query, rank").fetchall()
    assert upper == con.execute("SELECT * FROM rf_fuse('runs') ORDER BY query, rank").fetchall()
