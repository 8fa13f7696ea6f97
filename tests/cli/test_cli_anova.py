"""``rankframe anova`` and the other faces of rankframe.anova give the function's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import rankframe
from rankframe.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAIRED = ROOT / "examples" / "paired.parquet"


def _json(capsys, argv: list[str]) -> pd.DataFrame:
    assert main(argv) == 0
    return pd.DataFrame(json.loads(capsys.readouterr().out))


def test_cli_json_equals_the_function(capsys):
    got = _json(
        capsys, ["anova", str(PAIRED), "-m", "AP", "-m", "nDCG@5", "--interaction", "length", "--format", "json"]
    )
    want = rankframe.anova(pd.read_parquet(PAIRED), ["AP", "nDCG@5"], interaction="length")
    assert list(got.columns) == list(want.columns)
    for col in ("statistic", "df", "df_error", "p_value", "mse", "partial_eta_sq"):
        assert got[col].tolist() == pytest.approx(want[col].tolist(), rel=1e-15)


def test_cli_random_query_equals_the_function(capsys):
    got = _json(capsys, ["anova", str(PAIRED), "-m", "AP", "--by", "length", "--random", "query", "--format", "json"])
    want = rankframe.anova(pd.read_parquet(PAIRED), ["AP"], by="length", random="query")
    assert list(got.columns) == list(want.columns) and {"var_query", "var_error", "icc"} <= set(got.columns)
    for col in ("var_query", "var_error", "icc"):
        assert got[col].tolist() == pytest.approx(want[col].tolist(), rel=1e-15)


def test_cli_pairs_and_trec_runs(capsys):
    got = _json(capsys, ["anova", str(PAIRED), "-m", "AP", "--pairs", "--format", "json"])
    want = rankframe.anova(pd.read_parquet(PAIRED), "AP", pairs=True)
    assert got["effect_size"].tolist() == pytest.approx(want["effect_size"].tolist(), rel=1e-15)
    ex = ROOT / "examples"
    runs = _json(
        capsys,
        ["anova", str(ex / "tiny.run"), str(ex / "tiny-b.run"), "--qrels", str(ex / "tiny.qrels")]
        + ["-m", "AP", "--format", "json"],
    )
    table = rankframe.read_trec([str(ex / "tiny.run"), str(ex / "tiny-b.run")], str(ex / "tiny.qrels"))
    assert runs["statistic"].tolist() == pytest.approx(rankframe.anova(table, "AP")["statistic"].tolist(), rel=1e-15)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--interaction", "lenght"], "--interaction lenght: no such column (did you mean 'length'?)"),
        (["--by", "length", "--interaction", "length"], "the interaction column 'length' is in --by length"),
        (["--system", "query"], "the system column 'query' is the table's query column"),
    ],
)
def test_cli_errors_exit_2_in_the_options_words(capsys, argv, words):
    assert main(["anova", str(PAIRED), "-m", "AP", *argv]) == 2
    assert words in capsys.readouterr().err


def test_accessor_duckdb_engine_and_the_file_road_equal_the_function():
    df = pd.read_parquet(PAIRED)
    want = rankframe.anova(df, ["AP", "P@5"], by="length", interaction=None)
    pd.testing.assert_frame_equal(df.rank_metrics.anova(["AP", "P@5"], by="length"), want)
    duck = rankframe.anova(df, ["AP", "P@5"], by="length", engine="duckdb")
    pd.testing.assert_frame_equal(duck, want, check_exact=False, rtol=1e-12)
    path = rankframe.anova(str(PAIRED), ["AP", "P@5"], by="length")
    pd.testing.assert_frame_equal(path, want, check_exact=False, rtol=1e-12)
    arrow = rankframe.anova(df, "AP", interaction="length", output="arrow")
    assert arrow.num_rows == 2
    pl = pytest.importorskip("polars")
    polars_out = pl.from_pandas(df).rank_metrics.anova("AP", interaction="length")
    assert isinstance(polars_out, pl.DataFrame)
    assert polars_out["statistic"].to_list() == pytest.approx(arrow.column("statistic").to_pylist(), rel=1e-15)
