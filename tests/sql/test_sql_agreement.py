"""rf_agreement (sql/agreement.sql) = rankframe.agreement's two-coder form to 1e-12, and its errors' rf: codes."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from faces import macro_connection
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe


def _sql(df: pd.DataFrame, args: str = "") -> pd.DataFrame:
    con = macro_connection()
    try:
        con.register("t", df)
        return con.execute(f"SELECT * FROM rf_agreement('t'{', ' + args if args else ''})").df()
    finally:
        con.close()


def _same(sql: pd.DataFrame, py: pd.DataFrame, by: list[str]) -> None:
    assert list(sql.columns) == list(py.columns)
    for c in by:
        assert [None if pd.isna(v) else v for v in sql[c]] == [None if pd.isna(v) else v for v in py[c]]
    assert sql["n"].tolist() == py["n"].tolist()
    for c in ("agreement", "kappa"):
        np.testing.assert_allclose(sql[c].to_numpy(float), py[c].to_numpy(float), rtol=0, atol=1e-12)
    assert [None if pd.isna(v) else v for v in sql["note"]] == py["note"].tolist()


def test_sklearn_weighting_example_in_sql():
    # scikit-learn's test_cohen_kappa weighting example: 0.9315, 0.9412, 0.9541 (decimal=4)
    y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
    y2 = np.array([0] * 50 + [1] * 40 + [2] * 10)
    df = pd.DataFrame({"human": y1, "llm": y2})
    for weights, expected in (("NULL", 0.9315), ("'linear'", 0.9412), ("'quadratic'", 0.9541)):
        assert round(_sql(df, f"weights := {weights}")["kappa"].iloc[0], 4) == expected


def test_a_long_table_with_query_item_and_a_segment():
    # The usual table: (query, item) units and a segment column. The repeated-unit check grouped nothing (an outer
    # GROUP BY ALL over count(*) alone) and stopped every such table with "1 unit(s) repeat" (bench/agreement.py at
    # 10M rows). Hand derivation, segment 1: pairs (1, 1), (0, 1), (1, 1), (1, 0): agreement 2/4; both raters give
    # 1 three times in four: p_e = (3/4)^2 + (1/4)^2 = 5/8, kappa = (1/2 - 5/8) / (1 - 5/8) = -1/3. Segment 2: both
    # rate (2, 0): agreement 1, p_e = 1/2, kappa = 1.
    df = pd.DataFrame({"topic": [1, 1, 1, 1, 2, 2], "query": [1, 1, 2, 2, 3, 3], "item": [1, 2, 1, 2, 1, 2],
                       "human": [1.0, 0, 1, 1, 2, 0], "llm": [1.0, 1, 1, 0, 2, 0]})  # fmt: skip
    got = _sql(df, "segments := ['topic']")
    assert got["n"].tolist() == [4, 2]
    np.testing.assert_allclose(got["agreement"], [0.5, 1.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(got["kappa"], [-1 / 3, 1.0], rtol=0, atol=1e-15)
    _same(got, rankframe.agreement(df, by="topic"), ["topic"])


@settings(max_examples=hypothesis_examples(10), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    weights=st.sampled_from([None, "linear", "quadratic"]),
    rel=st.sampled_from([None, 1, 2.5]),
    n_by=st.integers(0, 2),
)
def test_sql_equals_pandas(seed, n, weights, rel, n_by):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "human": rng.choice([0.0, 1, 2, 3, 7], n), "llm": rng.choice([0, 1, 2, 3], n),
        "country": rng.choice(["de", "fr", None], n), "device": rng.integers(0, 2, n),
    })  # fmt: skip
    df.loc[rng.random(n) < 0.15, "human"] = np.nan
    by = ["country", "device"][:n_by]
    args = [f"segments := {by!r}", f"weights := {'NULL' if weights is None else repr(weights)}"]
    args.append(f"rel := {'NULL' if rel is None else rel}")
    if df[["human", "llm"]].notna().all(axis=1).sum() == 0:
        with pytest.raises(duckdb.Error, match=r"rf:table\[human\]: no row has both labels"):
            _sql(df, ", ".join(args))
        with pytest.raises(rankframe.ValidationError, match="no row has both labels"):
            rankframe.agreement(df, by=by, weights=weights, rel=rel)
        return
    _same(_sql(df, ", ".join(args)), rankframe.agreement(df, by=by, weights=weights, rel=rel), by)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ("weights := 'lin'", r"rf:param: The 'weights' parameter of rf_agreement"),
        ("a := 'hum'", r"rf:table\[hum\]: column 'hum' not in the table \(did you mean 'human'\?\)"),
        ("a := 'llm'", r"rf:param: The 'a' and 'b' parameters of rf_agreement name the same column"),
        ("b := 3", r"rf:param: The 'b' parameter of rf_agreement must be a column name"),
        ("rel := 'x'", r"rf:param: The 'rel' parameter of rf_agreement"),
        ("segments := ['human']", r"rf:param: The 'segments' parameter of rf_agreement names 'human'"),
        ("segments := ['kappa']", r"rf:param: The 'segments' parameter of rf_agreement names column\(s\) not in"),
        ("a := 'name'", r"rf:table\[name\]: labels must be finite numbers"),
        ("a := 'big'", r"rf:table\[big\]: labels must be finite numbers"),
    ],
)
def test_sql_errors(args, words):
    df = pd.DataFrame({"human": [1, 0], "llm": [1, 1], "name": ["x", "y"], "big": [1.0, np.inf]})
    with pytest.raises(duckdb.Error, match=words):
        _sql(df, args)


def test_sql_repeated_unit_is_pandas_error():
    df = pd.DataFrame({"query": [1, 1, 1], "item": ["a", "a", "b"], "human": [1, 0, 1], "llm": [1, 1, 0]})
    with pytest.raises(duckdb.Error, match=r"rf:table\[item\]: item must be unique within each \(query\)"):
        _sql(df)
    with pytest.raises(rankframe.ValidationError, match=r"item must be unique within each \(query\)"):
        rankframe.agreement(df)
    # without an item column rows are units: no rule to break
    assert _sql(df.drop(columns="item"))["n"].iloc[0] == 3


def test_sql_empty_table():
    with pytest.raises(duckdb.Error, match=r"rf:table\[human\]: the table is empty"):
        _sql(pd.DataFrame({"human": pd.Series([], dtype=float), "llm": pd.Series([], dtype=float)}))
