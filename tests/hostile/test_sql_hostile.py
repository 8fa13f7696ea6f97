"""Hostile input to the SQL table macros: each call gives the right number or an error that names the column or
parameter, in the words of the Python API. Before these checks a misspelled segment, a duplicate row or
order_by := 'RANK' gave other numbers without any error."""

from __future__ import annotations

import math
import re
import subprocess

import duckdb
import pandas as pd
import pytest
from duckdb_binary import duckdb_cli

import rankframe
import rankframe.sql as rf_sql
from rankframe.core.errors import ParameterError
from rankframe.engines.duckdb_engine import split_sql_error
from rankframe.measures.registry import BY_NAME, POLICIES

TABLE_MACROS = ["rf_prepare", "rf_per_query", "rf_means", "rf_validate"]
COLUMNS = "'model', 'query', 'item', 'rank', 'score', 'relevance'"


# model A and B share query 1; rank and score order the rows differently; grades 0..3
ROWS = [
    # model, query, item, rank, score, relevance
    ("A", 1, "a", 1, 0.1, 0),
    ("A", 1, "b", 2, 0.9, 1),
    ("A", 1, "c", 3, 0.5, 3),
    ("A", 1, "d", None, None, 2),
    ("B", 1, "a", 1, 0.2, 2),
    ("B", 1, "b", 2, 0.8, 0),
    ("B", 2, "x", 1, 0.3, 1),
    ("B", 2, "y", 2, 0.7, 0),
]


@pytest.fixture(scope="module")
def con():
    c = rf_sql.install(duckdb.connect())
    frame = pd.DataFrame(ROWS, columns=["model", "query", "item", "rank", "score", "relevance"])
    c.register("t_df", frame)
    c.sql("CREATE TABLE t AS SELECT * FROM t_df")
    c.sql("CREATE TABLE empty AS SELECT * FROM t LIMIT 0")
    c.sql("CREATE TABLE high AS SELECT * REPLACE (CASE WHEN item = 'c' THEN 5 ELSE relevance END AS relevance) FROM t")
    yield c
    c.close()


def call(macro: str, table: str, args: str = "") -> str:
    sep = ", " if args else ""
    return f"SELECT * FROM {macro}('{table}'{sep}{args})"


def error_of(con, sql: str) -> str:
    with pytest.raises(duckdb.InvalidInputException) as info:
        con.execute(sql).fetchall()
    text = str(info.value)
    assert text.startswith("Invalid Input Error: "), text  # our error(), not a binder/conversion error
    code, _, message = split_sql_error(text)
    assert code is not None, (
        text
    )  # with its stable code (tests/hostile/test_sql_error_codes.py), which the tests leave out
    return message


# ------------------------------------------------------------------------------------------------ segments


@pytest.mark.parametrize("table", ["t", "empty"])
@pytest.mark.parametrize("macro", TABLE_MACROS)
def test_a_misspelled_segment_is_an_error_naming_it_and_the_columns(con, macro, table):
    # before: the segment was silently ignored and the overall figures came back
    assert error_of(con, call(macro, table, "segments := ['modle']")) == (
        f"The 'segments' parameter of {macro} names column(s) not in the table: 'modle' (did you mean 'model'?). "
        f"Columns in the table: {COLUMNS}."
    )


BAD_SEGMENTS = [
    ("NULL", r"must be a list of column names \(such as \['model'\]\)\. Got NULL instead\."),
    ("[1]", r"must be a list of column names \(such as \['model'\]\)\. Got \[1\] instead\."),
    ("['model', NULL]", r"must be a list of column names .*Got \[model, NULL\] instead\."),
    ("'model'", r"must be a list of column names \(such as \['model'\]\)\. Got 'model' instead\."),
    ("['model', 'model']", r"lists a column more than once\. Got \[model, model\] instead\."),
    ("['model', 'MODEL']", r"names column\(s\) not in the table: 'MODEL' \(did you mean 'model'\?\)"),
    ("['query']", r"must not contain 'query': the query column is always the last column of the unit"),
    ("['nothing', 'modle']", r"not in the table: 'nothing', 'modle' \(did you mean 'model'\?\)\. Columns in the"),
]


@pytest.mark.quick_sample(8)  # the quick loop: 8 of the macro x list cases (tests/tiers.py)
@pytest.mark.parametrize(("segments", "message"), BAD_SEGMENTS, ids=[s for s, _ in BAD_SEGMENTS])
@pytest.mark.parametrize("macro", TABLE_MACROS)
def test_bad_segment_lists(con, macro, segments, message):
    text = error_of(con, call(macro, "t", f"segments := {segments}"))
    assert text.startswith(f"The 'segments' parameter of {macro} ")
    assert re.search(message, text), text


def test_a_segment_named_like_an_output_column(con):
    con.sql("CREATE OR REPLACE TABLE out_name AS SELECT *, model AS ap, model AS N_Queries FROM t")
    for macro in ("rf_per_query", "rf_means"):
        assert error_of(con, call(macro, "out_name", "segments := ['ap', 'N_Queries']")) == (
            f"The 'segments' parameter of {macro} names column(s) that are also output columns of {macro}: "
            f"'ap', 'N_Queries'. Rename them in a view."
        )
    # rf_prepare's output has no metric columns: such a segment is fine there
    assert len(con.execute("SELECT * FROM rf_prepare('out_name', segments := ['ap'])").fetchall()) == len(ROWS)


def test_the_segments_check_comes_before_any_metric_error(con):
    # 'high' has a grade 5 (ERR's max_grade is 4): the call's own mistake is reported, whatever DuckDB runs first
    for macro in ("rf_per_query", "rf_means"):
        text = error_of(con, call(macro, "high", "segments := ['modle']"))
        assert text.startswith(f"The 'segments' parameter of {macro} names column(s) not in the table: 'modle'")


# ------------------------------------------------------------------------------------------------ order_by


def _per_query(con, table: str, order_by: str):
    return con.execute(
        f"SELECT model, query, P, AP, RR, nDCG, ERR, Bpref FROM rf_per_query('{table}', segments := ['model'], "
        f"order_by := '{order_by}', k := 2) ORDER BY model, query"
    ).fetchall()


@pytest.mark.parametrize("order_by", ["rank", "score", "position"])
def test_order_by_in_any_case_behaves_as_lower_case(con, order_by):
    # 'position' needs ranks 1..n and 'score' a table without rank (rank would win in Python): views for both
    con.sql("CREATE OR REPLACE VIEW by_score AS SELECT * EXCLUDE (rank) FROM t")
    con.sql("CREATE OR REPLACE VIEW dense AS SELECT * FROM t WHERE rank IS NOT NULL")
    table = {"rank": "t", "score": "by_score", "position": "dense"}[order_by]
    want = _per_query(con, table, order_by)
    for spelled in (order_by.upper(), order_by.title(), order_by[0] + order_by[1:].upper()):
        # before: the check lower-cased the value but the column selection compared the raw string, so rows
        # were ranked by the query column
        assert _per_query(con, table, spelled) == want, spelled
        assert (
            con.execute(
                f"SELECT * FROM rf_validate('{table}', segments := ['model'], order_by := '{spelled}')"
            ).fetchall()
            == []
        )
        pos = f"SELECT item, model, rf_pos FROM rf_prepare('{table}', segments := ['model'], order_by := '{{}}') ORDER BY ALL"
        assert con.execute(pos.format(spelled)).fetchall() == con.execute(pos.format(order_by)).fetchall()
    # and the lower-case value is the pandas engine's answer (score: trec_eval's order, score descending)
    frame = con.execute(f"SELECT * FROM {table}").df()
    py = rankframe.evaluate(frame, ["P@2", "AP@2", "RR@2", "nDCG@2", "ERR@2", "Bpref"], by="model", per_query=True)
    wide = py.pivot(index=["model", "query"], columns="metric", values="value").reset_index()
    wide = wide.sort_values(["model", "query"])[["model", "query", "P@2", "AP@2", "RR@2", "nDCG@2", "ERR@2", "Bpref"]]
    for got, exp in zip(want, wide.itertuples(index=False)):
        assert got[:2] == (exp[0], exp[1])
        assert got[2:] == pytest.approx(tuple(exp[2:]), rel=1e-12, abs=1e-12)


def test_policies_and_choices_in_any_case(con):
    # query 1: nothing judged; query 2: the only relevant item is not retrieved; query 3: perfect
    con.sql(
        "CREATE OR REPLACE TABLE pol AS SELECT * FROM (VALUES (1, 'a', 1, NULL), (1, 'b', 2, NULL), (2, 'a', 1, 0),"
        " (2, 'b', NULL, 2), (3, 'a', 1, 1)) v(query, item, rank, relevance)"
    )
    sql = "SELECT n_queries, AP, nDCG FROM rf_means('pol', no_judged := '{}', ideal := '{}', no_relevant := '{}')"
    lower = con.execute(sql.format("zero", "retrieved", "nan")).fetchall()
    # by hand: AP = (0 [no_judged zero] + 0 [relevant b unretrieved] + 1) / 3; nDCG: query 2 has no relevant
    # retrieved row (ideal 'retrieved') -> NaN, left out: (0 + 1) / 2
    assert lower == [(3, pytest.approx(1 / 3), pytest.approx(0.5))]
    # before: 'ZERO' passed the check but the policy compared the raw string (query 1 silently dropped)
    assert con.execute(sql.format("ZERO", "Retrieved", "NaN")).fetchall() == lower


# ---------------------------------------------------------------------------------------------- duplicates


@pytest.fixture(scope="module")
def dup(con):
    # query 1 lists item 'a' twice and item 'b' three times; query 2 is clean
    con.sql(
        "CREATE TABLE dup AS SELECT * FROM (VALUES (1, 'a', 1, 1), (1, 'a', 2, 1), (1, 'b', 3, 0), (1, 'b', 4, 0),"
        " (1, 'b', 5, 0), (2, 'x', 1, 1)) v(query, item, rank, relevance)"
    )
    return "dup"


@pytest.mark.parametrize("macro", ["rf_per_query", "rf_means"])
def test_duplicate_rows_are_rejected_with_a_count_and_examples(con, dup, macro):
    # before: computed on the repeated rows (AP of query 1 = 1.0 with |R| = 2)
    assert error_of(con, call(macro, dup)) == (
        "item must be unique within each (query): 2 (query, item) key(s) occur on more than one row (5 rows in all), "
        "e.g. {'query': 1} item=a (2 rows); {'query': 1} item=b (3 rows). Pass allow_duplicates := true to keep "
        "repeated rows (each counts as its own list entry)."
    )


def test_allow_duplicates_keeps_every_row_as_the_python_api_does(con, dup):
    frame = con.execute(f"SELECT * FROM {dup}").df()
    got = con.execute(
        f"SELECT query, AP, P, R FROM rf_per_query('{dup}', allow_duplicates := true) ORDER BY query"
    ).fetchall()
    # by hand, query 1: ranks 1-2 relevant, |R| = 2 judged rows >= 1: AP = (1/1 + 2/2) / 2 = 1, P = 2/5, R = 2/2
    assert got == [(1, 1.0, pytest.approx(0.4), 1.0), (2, 1.0, 1.0, 1.0)]
    py = rankframe.evaluate(frame, ["AP", "P", "R"], per_query=True, allow_duplicates=True)
    assert py["value"].tolist() == pytest.approx([1.0, 0.4, 1.0, 1.0, 1.0, 1.0])
    means = con.execute(f"SELECT n_queries, AP FROM rf_means('{dup}', allow_duplicates := true)").fetchall()
    assert means == [(2, 1.0)]


def test_rf_validate_reports_duplicates_unless_allowed(con, dup):
    rows = con.execute(f"SELECT \"column\", rule, n_rows FROM rf_validate('{dup}')").fetchall()
    assert rows == [
        ("item", "item must be unique within each (query) (pass allow_duplicates := true to keep repeated rows)", 5)
    ]
    assert con.execute(f"SELECT * FROM rf_validate('{dup}', allow_duplicates := true)").fetchall() == []


def test_duplicates_in_different_segments_are_not_duplicates(con):
    # item 'a' of query 1 appears in model A and model B: one row per (model, query, item)
    assert len(con.execute("SELECT * FROM rf_per_query('t', segments := ['model'])").fetchall()) == 3
    # without the segments the unit is (query) and the rows repeat: an error, never a merged list
    text = error_of(con, call("rf_means", "t"))
    assert text.startswith("item must be unique within each (query): 2 (query, item) key(s)")


@pytest.mark.parametrize("value", ["NULL", "'yes'", "1"])
@pytest.mark.parametrize("macro", ["rf_per_query", "rf_means", "rf_validate"])
def test_allow_duplicates_must_be_a_boolean(con, macro, value):
    shown = {"NULL": "NULL", "'yes'": "'yes'", "1": "1"}[value]
    assert error_of(con, call(macro, "t", f"segments := ['model'], allow_duplicates := {value}")) == (
        f"The 'allow_duplicates' parameter of {macro} must be true or false. Got {shown} instead."
    )


# ---------------------------------------------------------------------------------------------- reserved names


@pytest.mark.parametrize(
    ("macro", "name"),
    [
        *((m, "rf_pos") for m in TABLE_MACROS),
        ("rf_means", "rf_g"),
        ("rf_prepare", "RF_POS"),
        ("rf_per_query", "rf__unit"),
        ("rf_validate", "rf__x"),
    ],
)
def test_reserved_column_names_are_a_clear_error(con, macro, name):
    # before: a DuckDB binder error ("duplicate names in the SELECT list") for rf_pos
    con.sql(f'CREATE OR REPLACE TABLE reserved AS SELECT *, 1 AS "{name}" FROM t')
    assert error_of(con, call(macro, "reserved", "segments := ['model']")) == (
        f"The table has column(s) named like the columns rankframe's macros add (rf_pos, rf_g, rf__*): '{name}'. "
        "Rename them in a view (CREATE VIEW v AS SELECT * RENAME (...) FROM t)."
    )


@pytest.mark.parametrize(
    ("macro", "drop", "order_by", "lacking"),
    [
        *((m, ["relevance"], "rank", "'relevance'") for m in TABLE_MACROS),
        ("rf_per_query", ["item"], "score", "'item'"),
        ("rf_means", ["rank"], "rank", "'rank'"),
        ("rf_prepare", ["rank"], "position", "'rank'"),
        ("rf_validate", ["score"], "score", "'score'"),
        ("rf_per_query", ["query", "relevance"], "rank", "'query', 'relevance'"),
    ],
)
def test_a_missing_column_is_named_not_a_binder_error(con, macro, drop, order_by, lacking):
    # before (issue 10): "Binder Error: Values list "s" does not have a column named "relevance"" and the like
    con.sql(f"CREATE OR REPLACE TABLE lacking AS SELECT * EXCLUDE ({', '.join(drop)}) FROM t")
    kept = ", ".join(f"'{c}'" for c in ["model", "query", "item", "rank", "score", "relevance"] if c not in drop)
    segments = "['model']" if "model" not in drop else "[]"
    text = error_of(con, call(macro, "lacking", f"segments := {segments}, order_by := '{order_by}'"))
    assert text == (
        f"The table has no column(s) {lacking}, which rankframe's macros read (query, item, relevance, "
        f"and rank or score as order_by says). Columns in the table: {kept}. Rename yours in a view (CREATE VIEW "
        "v AS SELECT *, grade AS relevance FROM t)."
    )


def test_a_missing_column_has_a_did_you_mean_hint_and_other_order_columns_are_not_needed(con):
    con.sql("CREATE OR REPLACE TABLE hint AS SELECT * EXCLUDE (relevance), relevance AS relevnce FROM t")
    assert "'relevance' (did you mean 'relevnce'?)" in error_of(
        con, call("rf_per_query", "hint", "segments := ['model']")
    )
    # a table with rank only, ranked by rank; with score only, ranked by score
    con.sql("CREATE OR REPLACE TABLE rank_only AS SELECT * EXCLUDE (score) FROM t")
    con.sql("CREATE OR REPLACE TABLE score_only AS SELECT * EXCLUDE (rank) FROM t")
    by_model = "segments := ['model']"
    want = con.execute(f'SELECT "AP" FROM ({call("rf_means", "t", by_model)})').fetchall()
    assert con.execute(f'SELECT "AP" FROM ({call("rf_means", "rank_only", by_model)})').fetchall() == want
    assert con.execute(call("rf_prepare", "score_only", "order_by := 'score'")).fetchall()
    # Relevance in another case is not relevance (names are exact, as in Python; issue 19): the hint names it
    con.sql("CREATE OR REPLACE TABLE other_case AS SELECT * EXCLUDE (relevance), relevance AS Relevance FROM rank_only")
    assert "'relevance' (did you mean 'Relevance'?)" in error_of(con, call("rf_prepare", "other_case"))


# -------------------------------------------------------------------------------------------------- parameters


def python_words(spec: str, param: str, value, owner: str, sql_param: str | None = None) -> str:
    """The ParameterError of the Python API for the same value, as the SQL macro words it (NULL, true)."""
    with pytest.raises(ParameterError) as info:
        if spec == "policy":
            next(p for p in POLICIES if p.name == param).check("rankframe", value)
        else:
            BY_NAME[spec].bind(**{param: value})
    text = str(info.value).replace(
        f"parameter of {'rankframe' if spec == 'policy' else spec} ", f"parameter of {owner} "
    )
    text = text.replace(f"The {param!r} ", f"The {(sql_param or param)!r} ")
    text = text.replace("True or False", "true or false")
    return text.replace("or None.", "or NULL.").replace("Got None ", "Got NULL ").replace("Got True ", "Got true ")


# (SQL argument, registry metric, Python parameter, Python value, SQL parameter name when it differs)
BAD_PARAMETERS = [
    ("k := '10'", "precision", "k", "10", None),
    ("k := true", "precision", "k", True, None),
    ("k := 1e30", "precision", "k", 1e30, None),
    ("k := 0", "precision", "k", 0, None),
    ("k := 2.5", "precision", "k", 2.5, None),
    ("k := 9223372036854775808", "precision", "k", 2**63, None),
    ("ideal := NULL", "ndcg", "ideal", None, None),
    ("gain := NULL", "ndcg", "gain", None, None),
    ("gain := 'log'", "ndcg", "gain", "log", None),
    ("max_grade := NULL", "err", "max_grade", None, None),
    ("max_grade := 0", "err", "max_grade", 0, None),
    ("rel := NULL", "precision", "rel", None, None),
    ("rel := '1'", "precision", "rel", "1", None),
    ("graded_rel := 'x'", "ndcg", "rel", "x", "graded_rel"),
    ("p := 1", "rbp", "p", 1, None),
    ("p := NULL", "rbp", "p", None, None),
    ("p_denominator := 'all'", "precision", "denominator", "all", "p_denominator"),
    ("r_denominator := 'k'", "recall", "denominator", "k", "r_denominator"),
    ("ap_denominator := NULL", "ap", "denominator", None, "ap_denominator"),
    ("beta := -1", "f1", "beta", -1, None),
    ("log_base := 1", "ndcg", "log_base", 1, None),
    ("log_base := NULL", "dcg", "log_base", None, None),
    ("gains := 3", "ndcg", "gains", 3, None),
    ("judged_only := NULL", "ap", "judged_only", None, None),
    ("judged_only := 'yes'", "ndcg", "judged_only", "yes", None),
    ("ties := 'avg'", "ndcg", "ties", "avg", None),
    ("ties := NULL", "dcg", "ties", None, None),
    ("no_judged := 'drop'", "policy", "no_judged", "drop", None),
    ("no_relevant := NULL", "policy", "no_relevant", None, None),
]


@pytest.mark.parametrize(
    ("arg", "spec", "param", "value", "sql_param"), BAD_PARAMETERS, ids=[b[0] for b in BAD_PARAMETERS]
)
@pytest.mark.quick_sample(8)  # the quick loop: 8 of the bad parameters (tests/tiers.py)
def test_bad_parameters_in_the_words_of_the_python_api(con, arg, spec, param, value, sql_param):
    # before: k := '10' was accepted, true and 1e30 were DuckDB binder/conversion errors, ideal := NULL an INTERNAL
    # error, p_denominator went unchecked while k was NULL. Each case runs on one of the two macros and one of the
    # two tables (empty: the check fires without any row), alternating, to keep the file fast.
    i = [b[0] for b in BAD_PARAMETERS].index(arg)
    macro, table = ["rf_per_query", "rf_means"][i % 2], ["t", "empty"][(i // 2) % 2]
    want = python_words(spec, param, value, macro, sql_param)
    assert error_of(con, f"SELECT AP FROM {macro}('{table}', segments := ['model'], {arg})") == want


def test_bad_order_by(con):
    for macro in TABLE_MACROS:
        assert error_of(con, call(macro, "empty", "order_by := NULL")) == (
            f"The 'order_by' parameter of {macro} must be one of 'rank', 'score', 'position'. Got NULL instead."
        )


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT rf_precision([1, 0], denominator := 'all')",
        "SELECT rf_agg_precision(rf_pos, rf_g, denominator := 'all') FROM rf_prepare('t', segments := ['model']) GROUP BY ALL",
    ],
)
def test_the_precision_denominator_is_checked_when_k_is_null(con, sql):
    owner = "rf_precision" if "rf_precision(" in sql else "rf_agg_precision"
    assert error_of(con, sql) == python_words("precision", "denominator", "all", owner)


@pytest.mark.parametrize(("arg", "value"), [("k := '10'", "10"), ("k := true", True), ("k := 1e30", 1e30)])
def test_scalar_and_aggregate_macros_check_k_in_the_same_words(con, arg, value):
    assert error_of(con, f"SELECT rf_ap([1, 0], 1, {arg})") == python_words("ap", "k", value, "rf_ap")
    sql = f"SELECT rf_agg_ndcg(rf_pos, rf_g, {arg}) FROM rf_prepare('t', segments := ['model']) GROUP BY ALL"
    assert error_of(con, sql) == python_words("ndcg", "k", value, "rf_agg_ndcg")


# ---------------------------------------------------------------------------------- ERR only where computed


@pytest.mark.parametrize("macro", ["rf_per_query", "rf_means"])
def test_grades_above_max_grade_fail_only_the_err_columns(con, macro):
    # before: rf_means failed on any grade above 4, whatever was selected
    sql = "SELECT {} FROM " + f"{macro}('high', segments := ['model'])"
    assert len(con.execute(sql.format("AP, nDCG, P")).fetchall()) == (2 if macro == "rf_means" else 3)
    assert len(con.execute(sql.format("* EXCLUDE (ERR, nERR)")).fetchall()) == (2 if macro == "rf_means" else 3)
    message = (
        "The 'max_grade' parameter of {} must be >= every grade in the table. Got 4 but the table has grade 5; "
        "pass max_grade := 5 (the top grade of your scale)."
    )
    for cols, owner in (("ERR", "ERR"), ("nERR", "nERR"), ("AP, ERR", "ERR")):
        assert error_of(con, sql.format(cols)) == message.format(owner)  # an error, never a NULL left out of a mean
    assert error_of(con, sql.format("*")) in (message.format("ERR"), message.format("nERR"))
    # max_grade := 5 is the fix the message names
    ok = con.execute(f"SELECT ERR FROM {macro}('high', segments := ['model'], max_grade := 5)").fetchall()
    assert all(math.isfinite(v) for (v,) in ok)


def test_err_checks_every_grade_not_only_the_top_k(con):
    # the grade 5 sits at rank 3: with k := 1 it is outside the cutoff, still an error (as in the Python API)
    text = error_of(con, "SELECT ERR FROM rf_per_query('high', segments := ['model'], k := 1)")
    assert text.startswith("The 'max_grade' parameter of ERR must be >= every grade in the table. Got 4")


def test_exponential_gain_overflow_is_an_error_not_nan(con):
    con.sql(
        "CREATE OR REPLACE TABLE huge AS SELECT * FROM (VALUES (1, 'a', 1, 1100.0), (1, 'b', 2, 1)) v(query, item, rank, relevance)"
    )
    text = error_of(con, "SELECT nDCG FROM rf_per_query('huge', gain := 'exponential')")
    assert text == (
        "gain := 'exponential' (2^g - 1) overflows float64 for grade 1100: the sum of the gains of a query is "
        "infinite; use gain := 'linear' or rescale the grades."
    )
    assert con.execute("SELECT nDCG FROM rf_per_query('huge')").fetchall() == [(1.0,)]


# ----------------------------------------------------------------------------------------- the duckdb CLI (1.x)


def test_the_checks_hold_in_the_duckdb_cli(tmp_path):
    # the CLI of the duckdb-cli extra is DuckDB 1.x: the same checks, errors and column pruning there
    binary = duckdb_cli()
    if binary is None:
        pytest.skip(
            "!!! the `duckdb` command-line binary is not installed (pip install duckdb-cli) — the SQL hostile "
            "inputs were NOT run through the CLI !!!"
        )
    frame = pd.DataFrame(ROWS, columns=["model", "query", "item", "rank", "score", "relevance"])
    frame.assign(relevance=frame["relevance"].where(frame["item"] != "c", 5)).to_parquet(tmp_path / "high.parquet")
    statements = [
        "SELECT * FROM rf_means('high', segments := ['modle']);",
        "SELECT * FROM rf_means('high');",
        "SELECT AP FROM rf_means('high', k := '10', segments := ['model']);",
        "SELECT * FROM rf_means('high', segments := ['model']);",
        "SELECT model, round(AP, 6) AS AP FROM rf_means('high', segments := ['model'], order_by := 'RANK');",
        "CREATE TABLE r AS SELECT *, 1 AS rf_pos FROM high;",
        "SELECT * FROM rf_validate('r');",
    ]
    script = (
        "\n".join(
            [
                f".read '{rf_sql.bundle()}'",
                ".mode csv",
                "CREATE VIEW high AS SELECT * FROM 'high.parquet';",
                *statements,
            ]
        )
        + "\n"
    )
    proc = subprocess.run(
        [binary, "-batch", "-init", "/dev/null"],
        input=script,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    errors = [line for line in proc.stderr.splitlines() if "Error" in line]
    assert errors[0].endswith(
        "The 'segments' parameter of rf_means names column(s) not in the table: 'modle' (did "
        "you mean 'model'?). Columns in the table: 'model', 'query', 'item', 'rank', 'score', "
        "'relevance'."
    )
    assert "item must be unique within each (query)" in errors[1]
    assert errors[2].endswith(
        "The 'k' parameter of rf_means must be an int >= 1 (at most 2**63 - 1) or NULL. Got '10' instead."
    )
    assert "The 'max_grade' parameter of" in errors[3]
    assert "named like the columns rankframe's macros add (rf_pos, rf_g, rf__*): 'rf_pos'" in errors[4]
    assert len(errors) == 5, proc.stderr
    # the one query that ran: AP per model, ERR not selected, 'RANK' = 'rank'
    want = con_free_ap(frame)
    assert proc.stdout.split() == ["model,AP", f"A,{want['A']}", f"B,{want['B']}"]


def con_free_ap(frame: pd.DataFrame) -> dict[str, float]:
    res = rankframe.evaluate(frame, "AP", by="model")  # grades above 4 do not matter to AP
    return {r.model: round(r.value, 6) for r in res.itertuples()}


@pytest.mark.parametrize(
    ("ranks", "detail"),
    [
        ([2, 3], "2 ranked rows and largest rank 3"),  # a gap at the top
        ([1, 3], "2 ranked rows and largest rank 3"),  # a gap inside
        ([0, 1, 2], "3 ranked rows and a rank below 1"),  # max = count, but a rank 0 (the old min check)
        ([-1, 2], "2 ranked rows and a rank below 1"),
        ([2, 2], "2 ranked rows and a repeated rank"),  # largest = count = 2, but XOR 0, not 1^2 = 3
        ([1, 2, 2, 4], "4 ranked rows and a repeated rank"),  # XOR 5, not 4: a min/max/count check let it through
    ],
)
def test_position_order_stops_on_ranks_that_are_not_1_to_n(con, ranks, detail):
    """order_by := 'position' takes ranks as positions, so a unit whose ranks are not 1..n is an error, never a number.

    Three states (count, the largest rank or the largest BIGINT once a rank is below 1, and the XOR of the ranks)
    replaced a count, a min and a max, and also catch a repeated rank.
    """
    values = ", ".join(f"(7, 'i{i}', {r}, 1)" for i, r in enumerate(ranks)) + ", (7, 'u', NULL, 1)"
    con.sql(f"CREATE OR REPLACE VIEW bad_pos AS SELECT * FROM (VALUES {values}) v(query, item, rank, relevance)")
    for sql in (
        "SELECT query, rf_agg_n_retrieved(rf_pos, order_by := 'position') FROM rf_prepare('bad_pos', order_by := "
        "'position') GROUP BY query",
        "SELECT * FROM rf_per_query('bad_pos', order_by := 'position')",
    ):
        with pytest.raises(
            duckdb.InvalidInputException, match=re.escape(f"1..n in every query, but a query has {detail}")
        ):
            con.execute(sql).fetchall()
    ok = con.execute("SELECT * FROM rf_per_query('bad_pos', order_by := 'rank')").df()  # the same rows by rank: fine
    assert len(ok) == 1


def test_position_order_counts_ranks_1_to_n_with_unranked_rows(con):
    con.sql(
        "CREATE OR REPLACE VIEW good_pos AS SELECT * FROM (VALUES (7, 'a', 2, 1), (7, 'b', 1, 0), (7, 'c', NULL, 1))"
        " v(query, item, rank, relevance)"
    )
    got = con.execute(
        "SELECT rf_agg_n_retrieved(rf_pos, order_by := 'position') FROM rf_prepare('good_pos', order_by := 'position')"
    ).fetchall()
    assert got == [(2,)]
