"""Hostile calls of the beyond-accuracy table macros: every bad option is a coded ``rf:param`` error (a
ParameterError in Python, tests/hostile/test_sql_error_codes.py), naming the parameter, the macro and the value."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

from rankframe.core.errors import ParameterError, ValidationError
from rankframe.engines.duckdb_engine import split_sql_error, translate_error

RECS = pd.DataFrame({"g": ["a", "a", "b"], "query": [1, 1, 2], "item": ["x", "y", "x"], "rank": [1, 2, 1]})
TRAIN = pd.DataFrame({"query": [7, 8], "item": ["x", "z"]})
CATALOG = pd.DataFrame({"item": ["x", "y", "z"]})


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    c.register("recs", RECS)
    c.register("tr", TRAIN)
    c.register("cat", CATALOG)
    yield c
    c.close()


BAD = [
    ("rf_gini('recs', catalog := 'cat', denominator := 'n-2')", "'denominator' parameter of rf_gini", "'n-2'"),
    ("rf_gini('recs', catalog := 'cat', complement := 'yes')", "'complement' parameter of rf_gini", "'yes'"),
    ("rf_gini('recs', catalog := 'cat', like := 'rectools')", "'like' parameter of rf_gini", "'rectools'"),
    ("rf_coverage('recs', catalog := 'cat', universe := 'everything')", "'universe' parameter", "'everything'"),
    ("rf_coverage('recs', catalog := 'cat', output := 42)", "'output' parameter of rf_coverage", "42"),
    ("rf_entropy('recs', log_base := 1)", "'log_base' parameter of rf_entropy", "1"),
    ("rf_entropy('recs', k := 0)", "'k' parameter of rf_entropy", "0"),
    ("rf_entropy('recs', k := 2.5)", "'k' parameter of rf_entropy", "2.5"),
    ("rf_entropy('recs', order_by := 'random')", "'order_by' parameter of rf_entropy", "'random'"),
    ("rf_aplt('recs', train := 'tr', tail := -1)", "'tail' parameter of rf_aplt", "-1"),
    ("rf_aplt('recs', train := 'tr', tail := 'x')", "'tail' parameter of rf_aplt", "'x'"),
    ("rf_aplt('recs', train := 'tr', cold := 'warm')", "'cold' parameter of rf_aplt", "'warm'"),
    ("rf_arp('recs', train := 'tr', popularity := 'clicks')", "'popularity' parameter of rf_arp", "'clicks'"),
    ("rf_arp('recs', train := 'tr', aggregate := 'sum')", "'aggregate' parameter of rf_arp", "'sum'"),
    ("rf_novelty('recs', train := 'tr', model := 'random')", "'model' parameter of rf_novelty", "'random'"),
    ("rf_novelty('recs', train := 'tr', list_denominator := 'k')", "divides by the cutoff", ""),
    ("rf_novelty('recs', train := 'tr', k := 2, list_denominator := 'k', aggregate := 'rows')", "has no lists", ""),
    ("rf_personalization('recs', output := 'distances')", "'output' parameter of rf_personalization", "'distances'"),
    ("rf_personalization('recs', like := 'recommenders')", "'like' parameter of rf_personalization", "'recommenders'"),
    # a missing input: the declared needs (ARP always reads train; Coverage's universe 'catalog' reads catalog)
    ("rf_arp('recs')", "ARP (rf_arp) needs train := ", ""),
    ("rf_coverage('recs')", "Coverage (rf_coverage) needs catalog := ", ""),
    ("rf_gini('recs', universe := 'train')", "Gini (rf_gini) needs train := ", ""),
    # segments: columns of the table, not an output column
    ("rf_entropy('recs', segments := ['missing'])", "missing", ""),
    ("rf_entropy('recs', segments := ['query'])", "query", ""),
]


@pytest.mark.parametrize(("call", "words", "value"), BAD, ids=[c for c, _, _ in BAD])
def test_a_bad_option_is_a_coded_parameter_error(con, call, words, value):
    with pytest.raises(duckdb.Error) as info:
        con.execute(f"SELECT * FROM {call}").fetchall()
    code, _, message = split_sql_error(str(info.value))
    assert code == "rf:param", str(info.value)
    assert words in message and value in message, message
    assert isinstance(translate_error(info.value), ParameterError)


def test_a_table_without_the_item_column_is_a_coded_table_error(con):
    con.register("no_item", RECS.drop(columns="item"))
    with pytest.raises(duckdb.Error) as info:
        con.execute("SELECT * FROM rf_entropy('no_item')").fetchall()
    assert split_sql_error(str(info.value))[0] == "rf:table"
    assert isinstance(translate_error(info.value), ValidationError)


def test_a_segment_named_like_an_output_column_is_refused(con):
    con.register("value_seg", RECS.rename(columns={"g": "value"}))
    with pytest.raises(duckdb.Error) as info:
        con.execute("SELECT * FROM rf_entropy('value_seg', segments := ['value'])").fetchall()
    assert split_sql_error(str(info.value))[0] == "rf:param", str(info.value)
