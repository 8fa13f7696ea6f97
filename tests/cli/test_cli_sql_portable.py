"""``rankframe sql --dialect NAME ...`` prints rankframe.sql.render's statement (its options are render's
parameters); without --dialect ``rankframe sql`` still prints the DuckDB macros."""

from __future__ import annotations

import duckdb
import pandas as pd
from portable_cases import assert_same

import rankframe
import rankframe.sql
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
    assert_same(expected, con.execute(sql).df())


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
    assert main(["sql", "--dialect", "postgres", "-m", "Coverage@5"]) == 2
    assert "Coverage@5 needs --catalog TABLE" in capsys.readouterr().err
    assert main(["sql", "--train", "train"]) == 2
    assert "--train is an option of the portable SQL" in capsys.readouterr().err
    assert main(["sql", "--dialect", "postgres", "-m", "AP", "--baseline", "a", "--catalog", "c"]) == 2
    assert "--catalog and --baseline" in capsys.readouterr().err
    assert main(["sql", "--dialect", "klingon", "-m", "AP"]) == 2
    assert "dialect" in capsys.readouterr().err


def test_baseline_prints_the_comparison_statement(capsys):
    argv = ["sql", "--dialect", "duckdb", "--table", "runs", "-m", "AP", "-m", "nDCG@10", "--by", "length",
            "--baseline", "bm25"]  # fmt: skip
    sql = _statement(capsys, argv)
    assert sql == rankframe.sql.render_compare(["AP", "nDCG@10"], baseline="bm25", by="length", dialect="duckdb")
    con = duckdb.connect()
    con.register("runs", pd.read_parquet("examples/paired.parquet"))
    got = con.execute(sql).df()
    want = rankframe.compare("examples/paired.parquet", ["AP", "nDCG@10"], baseline="bm25", by="length", test="t")
    assert (got["statistic"] - want["statistic"]).abs().max() < 1e-9


def test_baseline_needs_a_dialect_and_no_per_query(capsys):
    assert main(["sql", "--baseline", "bm25"]) == 2
    assert "--baseline is an option of the portable SQL" in capsys.readouterr().err
    assert main(["sql", "--dialect", "duckdb", "-m", "AP", "--baseline", "bm25", "--per-query"]) == 2
    assert "drop --per-query" in capsys.readouterr().err


def test_train_and_catalog_tables(capsys):
    # --train/--catalog/--train-weight are render's train=/catalog=/train_weight=: the same statement and numbers
    argv = ["sql", "--dialect", "duckdb", "-m", "ARP@2", "-m", "Coverage@2", "--train", "hist", "--train-weight", "w"]
    sql = _statement(capsys, [*argv, "--catalog", "items", "--query", "user_id", "--order-by", "score"])
    assert sql == rankframe.sql.render(
        ["ARP@2", "Coverage@2"], dialect="duckdb", train="hist", train_weight="w", catalog="items",
        columns={"query": "user_id"}, order_by="score",
    )  # fmt: skip
    hist = pd.DataFrame({"user_id": [5, 6, 6], "item": ["a", "a", "b"], "w": [1.0, 2.0, 0.0]})
    items = pd.DataFrame({"item": ["a", "b", "c", "d"]})
    con = duckdb.connect()
    for name, frame in (("runs", DF), ("hist", hist), ("items", items)):
        con.register(name, frame)
    want = rankframe.evaluate(
        DF, ["ARP@2", "Coverage@2"], columns={"query": "user_id"}, train=hist.rename(columns={"w": "weight"}),
        catalog=items,
    )  # fmt: skip
    assert_same(want, con.execute(sql).df())


def test_features_table(capsys):
    # --features/--features-value are render's features=/features_value=: the same statement and numbers
    argv = ["sql", "--dialect", "duckdb", "-m", "ILD@2", "--features", "feats", "--features-value", "v"]
    sql = _statement(capsys, [*argv, "--query", "user_id", "--order-by", "score"])
    assert sql == rankframe.sql.render(
        ["ILD@2"], dialect="duckdb", features="feats", features_value="v", columns={"query": "user_id"},
        order_by="score",
    )  # fmt: skip
    feats = pd.DataFrame({"item": ["a", "a", "b", "c"], "feature": ["x", "y", "x", "y"], "v": [1.0, 2.0, 1.0, 3.0]})
    con = duckdb.connect()
    for name, frame in (("runs", DF), ("feats", feats)):
        con.register(name, frame)
    want = rankframe.evaluate(
        DF, ["ILD@2"], columns={"query": "user_id"}, features=feats.rename(columns={"v": "value"})
    )
    assert_same(want, con.execute(sql).df())
    assert main(["sql", "--features", "feats"]) == 2
    assert "--features is an option of the portable SQL" in capsys.readouterr().err
