"""Words that fit the caller (issue 33): each message names what that caller can take, not another function's fix.

fuse_train and ``rankframe sql --dbt`` cannot take catalog=/train=/features= (evaluate's words "pass it to
evaluate" do not fit them); ``rankframe anova`` takes --train/--catalog/--features as ``rankframe compare`` does;
``render(by='Value')`` collides with the output ``value`` on DuckDB, whose names fold case; an unknown keyword of
``render`` is an unknown keyword, not an "unknown policy"; ``segment_means(versus=)`` can name the null segment.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import rankframe
import rankframe.sql
from rankframe.cli import main
from rankframe.core.errors import ParameterError

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


# --- guards of items 3-5 on every road (issue 33, the leftover pass) -------------------------------------------------

NULL_SEGMENT = pd.DataFrame(
    {
        "query": [1, 2, 3, 4, 5, 6],
        "item": ["a"] * 6,
        "rank": [1] * 6,
        "relevance": [1, 0, 1, 1, 0, 0],
        "group": ["x", "x", "y", "y", None, None],
    }
)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize("road", ["frame", "parquet", "csv"])
@pytest.mark.parametrize("versus", [{"group": None}, {"group": float("nan")}, None, float("nan")], ids=repr)
def test_segment_means_null_segment_every_road(engine, road, versus, tmp_path):
    # P@1 by hand: x = mean(1, 0) = 0.5, y = mean(1, 1) = 1, null = mean(0, 0) = 0; against null: x 0.5, y 1.0
    source: object = NULL_SEGMENT
    if road != "frame":
        source = str(tmp_path / f"t.{road}")
        NULL_SEGMENT.to_parquet(source) if road == "parquet" else NULL_SEGMENT.to_csv(source, index=False)
    out = rankframe.segment_means(source, "P@1", by="group", versus=versus, ci_method="t", engine=engine)
    got = dict(zip(out["group"].fillna("<null>"), out["delta"]))
    if versus is None:  # versus=None: no reference (documented), every delta NaN
        assert all(pd.isna(v) for v in got.values()), got
        return
    assert got["x"] == pytest.approx(0.5) and got["y"] == pytest.approx(1.0) and pd.isna(got["<null>"]), got


@pytest.mark.parametrize("dialect", ["duckdb", "bigquery", "spark", "trino"])
@pytest.mark.parametrize("by", ["Value", "VALUE", "Metric", "N"])
def test_render_folds_case_on_every_folding_dialect(dialect, by):
    pytest.importorskip("sqlglot", reason="sqlglot (the warehouse extra) renders the portable SQL")
    with pytest.raises(ParameterError, match=f"segment column '{by}' has the name of an output column of render"):
        rankframe.sql.render("AP", dialect=dialect, table="t", by=by)
    rankframe.sql.render("AP", dialect="postgres", table="t", by=by)  # quoted names stay apart there


def test_anova_command_takes_every_side_input(capsys):
    with pytest.raises(SystemExit):
        main(["anova", "--help"])
    out = capsys.readouterr().out
    assert all(flag in out for flag in ("--train FILE", "--catalog FILE", "--features FILE")), out


def test_anova_refuses_a_set_level_metric_for_its_true_reason(capsys):
    code = main(["anova", str(PAIRED), "-m", "Coverage@5"])
    err = capsys.readouterr().err
    assert code == 2 and "has no value per query" in err and "rankframe.compare" in err, err
    assert "per_query" not in err and "--catalog" not in err, err  # no flag or parameter the caller did not pass


#: in a sentence about refusing set-level metrics: compare as the one that refuses them (it serves them with a
#: paired bootstrap, decision 19). docs/spark.md and spark.compare's docstring said "as rankframe.compare does"
COMPARE_REFUSES = re.compile(
    r"as (:func:)?`?rankframe\.compare`? (does|refuses)|`?compare`? refuses (the )?set-level", re.IGNORECASE
)


def test_no_page_says_compare_refuses_set_level_metrics():
    texts = [*ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md", *ROOT.joinpath("rankframe").rglob("*.py")]
    found = [
        f"{path.relative_to(ROOT)}: {sentence!r}"
        for path in texts
        for sentence in re.split(r"(?<=[.;])\s", " ".join(path.read_text(encoding="utf-8").split()))
        if "set-level" in sentence and "refus" in sentence and COMPARE_REFUSES.search(sentence)
    ]
    assert not found, found
