"""Every data-model rule raises the one ValidationError naming column, rule and rows; input untouched."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe import ValidationError


def good() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2"],
            "item": ["a", "b", "c", "a", "d"],
            "rank": [1, 2, np.nan, 1, 2],
            "relevance": [1, 0, 2, np.nan, 1],
        }
    )


def check_fails(df: pd.DataFrame, column: str, words: str, **kw) -> ValidationError:
    before = df.copy(deep=True)
    with pytest.raises(ValidationError) as info:
        rankframe.evaluate(df, ["AP", "nDCG@5"], **kw)
    pd.testing.assert_frame_equal(df, before)  # never modified
    failures = info.value.failures
    hit = [f for f in failures if f["column"] == column and words in f["rule"]]
    assert hit, f"no failure for {column!r} / {words!r} in:\n{info.value}"
    assert column in str(info.value) and words in str(info.value)
    return info.value


def test_good_table_passes_and_is_untouched(engine):
    df = good()
    before = df.copy(deep=True)
    rankframe.evaluate(df, ["AP", "nDCG@5"], engine=engine)
    pd.testing.assert_frame_equal(df, before)


def test_missing_column_lists_the_frame_columns():
    err = check_fails(good().drop(columns="item"), "item", "not in dataframe")
    assert "Columns in dataframe: ['query', 'rank', 'relevance']" in str(err)


def test_missing_rank_and_score():
    check_fails(good().drop(columns="rank"), "rank", "neither a rank column")


def test_null_query_id():
    df = good()
    df.loc[4, "query"] = None
    err = check_fails(df, "query", "must not be null")
    f = next(f for f in err.failures if f["column"] == "query")
    assert list(f["examples"].index) == [4]


def test_duplicate_query_item():
    df = pd.concat([good(), good().iloc[[0]].assign(rank=7)], ignore_index=True)
    err = check_fails(df, "item", "must be unique")
    f = next(f for f in err.failures if f["column"] == "item")
    assert f["count"] == 2 and set(f["examples"].index) == {0, 5}


def test_duplicate_item_with_integer_ids_and_segments():
    df = pd.DataFrame(
        {"seg": ["x", "x", "y"], "query": [1, 1, 1], "item": [5, 5, 5], "rank": [1, 2, 1], "relevance": [1, 1, 1]}
    )
    with pytest.raises(ValidationError):
        rankframe.evaluate(df, "AP")
    # per segment the (segment, query, item) key is unique only for segment y
    check_fails(df, "item", "must be unique", by="seg")
    ok = df.iloc[[0, 2]]
    assert rankframe.evaluate(ok, "AP", by="seg")["value"].tolist() == [1.0, 1.0]


def test_duplicate_rank_within_query():
    df = good()
    df.loc[1, "rank"] = 1
    err = check_fails(df, "rank", "unique within each (query)")
    f = next(f for f in err.failures if f["column"] == "rank")
    assert set(f["examples"].index) == {0, 1}


@pytest.mark.parametrize("bad", [0, -3, 1.5])
def test_rank_must_be_positive_integer(bad):
    df = good()
    df.loc[0, "rank"] = bad
    err = check_fails(df, "rank", "integer >= 1")
    f = next(f for f in err.failures if "integer" in f["rule"])
    assert list(f["examples"].index) == [0]


def test_rank_must_be_numeric():
    df = good().astype({"rank": object})
    df.loc[0, "rank"] = "first"
    check_fails(df, "rank", "must be numeric")


def test_relevance_must_be_numeric():
    df = good().astype({"relevance": object})
    df.loc[0, "relevance"] = "high"
    check_fails(df, "relevance", "must be numeric")


def test_relevance_must_be_finite():
    df = good()
    df.loc[0, "relevance"] = np.inf
    check_fails(df, "relevance", "finite")


def test_all_failures_reported_at_once():
    df = good()
    df.loc[0, "rank"] = 0
    df.loc[2, "query"] = None
    df.loc[4, "relevance"] = -np.inf
    err = check_fails(df, "rank", "integer >= 1")
    columns = {f["column"] for f in err.failures}
    assert {"rank", "query", "relevance"} <= columns


def test_duplicates_opt_in_keeps_every_row():
    df = pd.concat([good(), good().iloc[[0]].assign(rank=7)], ignore_index=True)
    out = rankframe.evaluate(df, "P@10", allow_duplicates=True, per_query=True)
    assert out.loc[out["query"] == "q1", "value"].item() == pytest.approx(2 / 10)


@pytest.mark.parametrize("k", [0, -1, 2.5, "3"])
def test_k_below_one_is_a_parameter_error(k):
    with pytest.raises(
        rankframe.ParameterError, match=r"The 'k' parameter of .* must be an int >= 1 \(at most 2\*\*63 - 1\) or None"
    ):
        good().rank_metrics.ap(k=k)


def test_unknown_metric_lists_known_names():
    with pytest.raises(rankframe.UnknownMetricError, match="Known: .*nDCG") as info:
        rankframe.evaluate(good(), ["nDGC@10"])
    assert "did you mean 'nDCG'" in str(info.value)


def test_unknown_option_value():
    with pytest.raises(rankframe.ParameterError, match="'gain' parameter of ndcg must be one of"):
        good().rank_metrics.ndcg(gain="cubic")
    with pytest.raises(rankframe.ParameterError, match="'no_retrieved' parameter"):
        rankframe.evaluate(good(), "AP", no_retrieved="drop")
    with pytest.raises(rankframe.ParameterError, match="'engine' parameter"):
        rankframe.evaluate(good(), "AP", engine="spark")


def test_errors_are_value_errors():
    assert issubclass(ValidationError, ValueError) and issubclass(rankframe.ParameterError, ValueError)


def test_validate_false_skips_checks_but_still_computes():
    df = good()
    df.loc[0, "rank"] = 3  # gap, still a valid order
    assert rankframe.evaluate(df, "RR", validate=False)["value"].item() == pytest.approx((1 / 2 + 1 / 2) / 2)


def test_public_schema_is_a_pandera_schema():
    import pandera.pandas as pa

    sch = rankframe.schema(rankframe.Columns(query="user"), by=["country"])
    assert isinstance(sch, pa.DataFrameSchema)
    assert {"user", "item", "rank", "relevance", "country"} <= set(sch.columns)


@pytest.mark.parametrize("seed", range(6))
def test_fast_duplicate_checks_agree_with_pandas(seed):
    # the vectorised rank/item checks must flag exactly the rows pandas' duplicated() flags
    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame(
        {
            "query": rng.integers(0, 20, n),
            "item": rng.integers(0, 60, n) * (10**12 if seed % 2 else 1),
            "rank": np.where(rng.random(n) < 0.2, np.nan, rng.integers(1, 40, n)),
            "relevance": rng.integers(0, 3, n),
        }
    )
    from rankframe.tables import units

    groups = units.group_codes(df, ["query"])
    dup_items = units.duplicate_item_rows(df, groups, "item", "rank")
    expected_items = np.flatnonzero(df.duplicated(["query", "item"], keep=False).to_numpy())
    assert sorted(dup_items.tolist()) == expected_items.tolist()
    ranked = df["rank"].notna()
    expected_ranks = np.flatnonzero((df.duplicated(["query", "rank"], keep=False) & ranked).to_numpy())
    got = units.ranked_order(df, groups, "rank").duplicate_rank_rows
    assert sorted(got.tolist()) == expected_ranks.tolist()


def test_fast_duplicate_check_on_dense_ranks():
    # ranks exactly 1..n per query (the scatter path) with one repeated item in the unretrieved rows
    df = pd.DataFrame(
        {
            "query": [1, 1, 1, 2, 2, 2],
            "item": [7, 8, 9, 7, 8, 8],
            "rank": [2, 1, np.nan, 1, 2, np.nan],
            "relevance": [1, 0, 1, 0, 1, 1],
        }
    )
    err = check_fails(df, "item", "must be unique")
    f = next(f for f in err.failures if f["column"] == "item")
    assert set(f["examples"].index) == {4, 5}


# --- issue 19: forgotten by=, by as one str, columns as a dict, one reading of by= everywhere ---------------------


def two_models(segment: bool = False) -> pd.DataFrame:
    """The same two queries ranked by models m1 and m2 (a long table of several systems, by= forgotten)."""
    one = good().assign(country="fr")
    both = pd.concat([one.assign(model="m1"), one.assign(model="m2")], ignore_index=True)
    return both if segment else both.drop(columns="country")


def test_forgotten_by_with_a_segment_suggests_both_columns(engine, tmp_path):
    # by="country" given, "model" forgotten: the (country, query, item) rows repeat and differ in 'model' only
    df = two_models(segment=True)
    err = check_fails(df, "item", "differ in column 'model'", by="country", engine=engine)
    assert "did you mean by=['country', 'model']?" in str(err)
    # the DuckDB road over a file says the same
    df.to_parquet(tmp_path / "t.parquet")
    with pytest.raises(ValidationError, match=r"did you mean by=\['country', 'model'\]\?"):
        rankframe.evaluate(str(tmp_path / "t.parquet"), "AP", by="country")


def test_cli_says_its_flags(tmp_path, capsys):
    from rankframe import cli

    two_models(segment=True).to_parquet(tmp_path / "t.parquet")
    for command in (["evaluate", "-m", "AP"], ["validate"]):
        assert cli.main([command[0], str(tmp_path / "t.parquet"), *command[1:], "--by", "country"]) == 2
        err = capsys.readouterr().err
        assert "did you mean --by country --by model? (or pass --allow-duplicates" in err, err
        assert "by=" not in err and "allow_duplicates" not in err


def test_true_duplicates_keep_the_allow_duplicates_hint():
    # the repeated rows are equal in every column (model included): no column separates them
    df = pd.concat([two_models(), two_models().iloc[[0]]], ignore_index=True)
    err = check_fails(df, "item", "(pass allow_duplicates=True to keep repeated rows)", by="model")
    assert "did you mean" not in str(err)


def test_validate_reads_a_str_by_as_one_column():
    df = two_models()
    rankframe.validate(df, by="model")  # per (model, query) every item is unique: nothing raised
    rankframe.validate(df, rankframe.Columns(), by=("model",))
    with pytest.raises(ValidationError, match=r"rows repeat \(query, item\) but differ in column 'model'"):
        rankframe.validate(df)
    assert "model" in rankframe.schema(by="model").columns


def test_validate_and_schema_take_columns_as_a_dict():
    df = two_models().rename(columns={"query": "user", "rank": "position"})
    names = {"query": "user", "rank": "position"}
    rankframe.validate(df, names, by="model")
    assert rankframe.schema(columns=names, by="model").validate(df) is not None
    with pytest.raises(rankframe.ParameterError, match=r"'columns' parameter of validate must be a rankframe"):
        rankframe.validate(df, ["user"])
    with pytest.raises(rankframe.ParameterError, match=r"'columns' parameter of schema must be a rankframe"):
        rankframe.schema(columns="user")
    with pytest.raises(rankframe.ParameterError, match=r"unknown column role 'qurey'"):
        rankframe.validate(df, {"qurey": "user"})


def _by_faces():
    """Every function taking by=, as (name, call with a by= value): the same reading, the caller's name."""
    import matplotlib

    matplotlib.use("Agg")
    from rankframe import plot

    runs = pd.concat(
        [two_models().assign(system="A"), two_models().assign(system="B", rank=lambda d: d["rank"].iloc[::-1].values)]
    )
    runs = runs.dropna(subset=["relevance"]).reset_index(drop=True)
    return {
        "evaluate": lambda by: rankframe.evaluate(two_models(), "AP", by=by),
        "validate": lambda by: rankframe.validate(two_models(), by=by),
        "compare": lambda by: rankframe.compare(runs, "AP", baseline="A", by=by),
        "distribution": lambda by: plot.distribution(two_models(), "AP", by=by),
        "report": lambda by: rankframe.report(runs, "AP", baseline="A", by=by),
    }


@pytest.mark.parametrize("owner", ["evaluate", "validate", "compare", "distribution", "report"])
@pytest.mark.parametrize(
    "by, words",
    [
        (["model", "model"], r"The 'by' parameter of {owner} names column 'model' twice"),
        (["model", 3], r"The 'by' parameter of {owner} must be a column name or a list of column names"),
        ({"model"}, r"The 'by' parameter of {owner} must be a column name or a list of column names"),
    ],
    ids=["repeat", "non-str", "set"],
)
def test_every_by_is_read_once_and_names_its_caller(owner, by, words):
    with pytest.raises(rankframe.ParameterError, match=words.format(owner=owner)):
        _by_faces()[owner](by)


def test_by_as_str_tuple_list_or_empty_is_the_same():
    from rankframe.core.columns import column_list

    for owner in ("evaluate", "compare", "report", "distribution"):
        assert column_list("model", owner) == column_list(("model",), owner) == column_list(["model"], owner)
        assert column_list([], owner) == column_list(None, owner) == []
    # by="model" is the column, not its letters. Each model holds good(): q1 a rank 1 grade 1, b rank 2 grade 0,
    # c unretrieved grade 2 -> AP = (1/1) / 2 = 1/2; q2 a rank 1 unjudged, d rank 2 grade 1 -> AP = (1/2) / 1 =
    # 1/2; mean 1/2 for each model
    faces = _by_faces()
    for by in ("model", ("model",), ["model"]):
        got = faces["evaluate"](by)
        assert dict(zip(got["model"], got["value"])) == pytest.approx({"m1": 0.5, "m2": 0.5})
    assert rankframe.evaluate(good(), "AP", by=[])["value"].tolist() == pytest.approx([0.5])  # [] = no segment
