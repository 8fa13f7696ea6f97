"""The statistic, df, sd_diff and mde columns and the alternative/margin options agree on every face of compare.

rankframe.compare (pandas and DuckDB engines), the accessor, ``rankframe compare --format csv`` and SQL
``rf_compare`` (which has no ``mde``: the noncentral t is not in SQL) on the bundled example; Spark is held to
pandas in test_spark_compare.py. The values themselves are held to scipy/statsmodels in rung2_oracles.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
from rankframe.cli import main

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
NEW = [
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "ci_low_adjusted",
    "ci_high_adjusted",
    "statistic",
    "df",
    "sd_diff",
]
CASES = [
    (dict(), [], ""),
    (dict(alternative="greater"), ["--alternative", "greater"], ", alternative := 'greater'"),
    (dict(alternative="less", ci=0.9), ["--alternative", "less", "--ci", "0.9"], ", alternative := 'less', ci := 0.9"),
    (dict(margin=0.05), ["--margin", "0.05"], ", margin := 0.05"),
]


@pytest.fixture(scope="module")
def paired() -> pd.DataFrame:
    return pd.read_parquet(PAIRED)


def _close(got: pd.DataFrame, want: pd.DataFrame, cols: list[str]) -> None:
    for c in cols:
        np.testing.assert_allclose(got[c].to_numpy(np.float64), want[c].to_numpy(np.float64), rtol=1e-9, atol=1e-12)


#: compare's columns rf_compare does not give (docs/sql.md): mde and Hedges' g_z need the noncentral t (no closed
#: form in SQL), the Hodges-Lehmann columns belong to the Wilcoxon test (rf_compare runs the t-test), and
#: n_filled / n_dropped are 0 there (rf_compare refuses misaligned queries: missing='error' only)
SQL_LEFT_OUT = {
    *("mde", "hedges_gz", "hedges_gz_low", "hedges_gz_high", "hl_estimate", "hl_low", "hl_high"),
    *("n_filled", "n_dropped"),
}


@pytest.mark.parametrize("kw, cli, sql", CASES)
def test_every_face_gives_the_same_new_columns(paired, capsys, kw, cli, sql):
    want = rankframe.compare(paired, ["AP@10", "nDCG@10"], baseline="bm25", by="length", **kw)
    cols = [*NEW, "mde"] if "mde" in want.columns else NEW
    duck = rankframe.compare(paired, ["AP@10", "nDCG@10"], baseline="bm25", by="length", engine="duckdb", **kw)
    _close(duck, want, cols)
    acc = paired.rank_metrics.compare(["AP@10", "nDCG@10"], baseline="bm25", by="length", **kw)
    _close(acc, want, cols)
    capsys.readouterr()
    code = main(
        ["compare", str(PAIRED), "--baseline", "bm25", "-m", "AP@10", "-m", "nDCG@10", "--by", "length"]
        + cli
        + ["--format", "csv"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert list(got.columns) == list(want.columns)
    _close(got, want, cols)
    con = macro_connection()
    con.register("paired", paired)
    got = con.execute(
        "SELECT * FROM rf_compare('paired', baseline := 'bm25', metrics := ['AP', 'nDCG'], k := 10, "
        f"segments := ['length']{sql})"
    ).df()
    assert list(got.columns) == [c for c in want.columns if c not in SQL_LEFT_OUT]
    keys = ["length", "metric", "system"]
    _close(got.sort_values(keys).reset_index(), want.sort_values(keys).reset_index(), NEW)
