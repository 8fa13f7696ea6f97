"""Words that fit the caller (issue 33): each message names what that caller can take, not another function's fix.

fuse_train and ``rankframe sql --dbt`` cannot take catalog=/train=/features= (evaluate's words "pass it to
evaluate" do not fit them); ``rankframe anova`` takes --train/--catalog/--features as ``rankframe compare`` does;
``render(by='Value')`` collides with the output ``value`` on DuckDB, whose names fold case; an unknown keyword of
``render`` is an unknown keyword, not an "unknown policy"; ``segment_means(versus=)`` can name the null segment.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import rankframe
import rankframe.sql
from rankframe.cli import main
from rankframe.errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]
PAIRED = ROOT / "examples" / "paired.parquet"


def test_fuse_train_cannot_take_catalog():
    df = pd.read_parquet(PAIRED)
    with pytest.raises(ParameterError) as info:
        rankframe.fuse_train(df, method="rrf", metric="Coverage@5")
    assert "which fuse_train cannot take" in str(info.value)
    assert "pass it to evaluate" not in str(info.value)


def test_dbt_cannot_take_catalog(tmp_path, capsys):
    pytest.importorskip("sqlglot", reason="sqlglot (the warehouse extra) writes the dbt package")
    assert main(["sql", "--dbt", str(tmp_path / "pkg"), "-m", "Coverage@5"]) == 2
    err = capsys.readouterr().err
    assert "which the dbt package" in err and "cannot take" in err
    assert "pass it to evaluate" not in err and "--catalog FILE" not in err


def test_anova_command_takes_train(tmp_path, capsys):
    df = pd.read_parquet(PAIRED)
    queries = df["query"].unique()
    # every query's history: items a and b (ARP@5 then reads their popularity)
    pd.DataFrame({"query": queries.repeat(2), "item": ["a", "b"] * len(queries)}).to_parquet(tmp_path / "train.parquet")
    code = main(["anova", str(PAIRED), "-m", "ARP@5", "--train", str(tmp_path / "train.parquet"), "--format", "csv"])
    out = capsys.readouterr().out
    assert code == 0 and "ARP@5" in out
    # the same as the function with train= (the command only reads and passes on)
    want = rankframe.anova(df, "ARP@5", train=pd.read_parquet(tmp_path / "train.parquet"))
    assert want["metric"].tolist() == ["ARP@5"]


def test_render_folds_case_on_duckdb():
    with pytest.raises(ParameterError, match="segment column 'Value' has the name of an output column"):
        rankframe.sql.render("AP", dialect="duckdb", table="t", by="Value")
    # (it rendered, and DuckDB returned the output column as 'value_1' beside the segment 'Value')
    # PostgreSQL keeps quoted names apart: the same call renders
    rankframe.sql.render("AP", dialect="postgres", table="t", by="Value")


def test_render_unknown_keyword_is_a_keyword():
    with pytest.raises(ParameterError, match="render got an unknown keyword argument 'bogus'"):
        rankframe.sql.render("AP", dialect="duckdb", table="t", bogus=1)
    with pytest.raises(ParameterError, match="did you mean 'no_relevant'"):
        rankframe.sql.render("AP", dialect="duckdb", table="t", no_relevent="skip")


def test_segment_means_versus_the_null_segment():
    df = pd.read_parquet(PAIRED)
    df["length"] = df["length"].where(df["length"] != "short", None)  # the short queries: a null segment
    out = rankframe.segment_means(df, "AP", by=["system", "length"], versus={"length": None}, ci_method="t")
    # oracle: per-query AP from evaluate, means by pandas' groupby (nulls kept), long minus null
    per = rankframe.evaluate(df, "AP", by=["system", "length"], per_query=True)
    means = per.groupby(["system", "length"], dropna=False)["value"].mean()
    long = out[out["length"] == "long"].set_index("system")["delta"]
    for system in ["bm25", "dense", "hybrid"]:
        long_mean = means.loc[(system, "long")]
        null_mean = means[[k for k in means.index if k[0] == system and pd.isna(k[1])]].iloc[0]
        assert long[system] == pytest.approx(long_mean - null_mean, abs=1e-12)
    assert out[out["length"].isna()]["delta"].isna().all()  # the reference rows
