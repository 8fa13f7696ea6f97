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
    from rankframe import keys

    groups = keys.group_codes(df, ["query"])
    dup_items = keys.duplicate_item_rows(df, groups, "item", "rank")
    expected_items = np.flatnonzero(df.duplicated(["query", "item"], keep=False).to_numpy())
    assert sorted(dup_items.tolist()) == expected_items.tolist()
    ranked = df["rank"].notna()
    expected_ranks = np.flatnonzero((df.duplicated(["query", "rank"], keep=False) & ranked).to_numpy())
    got = keys.ranked_order(df, groups, "rank").duplicate_rank_rows
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
