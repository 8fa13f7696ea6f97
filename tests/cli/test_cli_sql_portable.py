"""``rankframe sql --dialect NAME ...`` prints rankframe.sql.render's statement (its options are render's
parameters); without --dialect ``rankframe sql`` still prints the DuckDB macros."""

from __future__ import annotations

import duckdb
import pandas as pd
from portable_cases import assert_same

import rankframe
from rankframe.cli import main

DF = pd.DataFrame(
    {
        "country": ["fr", "fr", "fr", "de", "de"],
        "user_id": [1, 1, 1, 2, 2],
        "item": ["a", "b", "c", "a", "b"],
        "score": [0.9, 0.5, None, 0.3, 0.3],
        "relevance": [1, 0, 2, None, 1],
    }
)


def _statement(capsys, argv: list[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_prints_the_portable_select(capsys):
    argv = ["sql", "--dialect", "duckdb", "--table", "recs", "-m", "nDCG@2", "-m", "AP", "--by", "country"]
    argv += ["--per-query", "--query", "user_id", "--order-by", "score", "--no-relevant", "nan"]
    sql = _statement(capsys, argv)
    con = duckdb.connect()
    con.register("recs", DF)
    expected = rankframe.evaluate(
        DF, ["nDCG@2", "AP"], by="country", per_query=True, columns={"query": "user_id"}, no_relevant="nan"
    )
    assert_same(expected, con.sql(sql).df())


def test_same_text_as_render(capsys):
    sql = _statement(capsys, ["sql", "--dialect", "snowflake", "-m", "P@5", "--by", "a,b", "-c"])
    assert sql == rankframe.sql.render(["P@5"], dialect="snowflake", by=["a", "b"], no_retrieved="zero")


def test_without_dialect_the_duckdb_macros(capsys):
    assert "CREATE OR REPLACE MACRO" in _statement(capsys, ["sql"])


def test_usage_errors(capsys):
    assert main(["sql", "-m", "AP"]) == 2
    assert "--dialect" in capsys.readouterr().err
    assert main(["sql", "--dialect", "postgres"]) == 2
    assert "-m/--metric" in capsys.readouterr().err
    assert main(["sql", "--dialect", "postgres", "-m", "nERR"]) == 2
    assert "not portable yet" in capsys.readouterr().err
    assert main(["sql", "--dialect", "klingon", "-m", "AP"]) == 2
    assert "dialect" in capsys.readouterr().err
