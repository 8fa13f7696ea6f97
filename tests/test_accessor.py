"""The df.rank_metrics namespace: return shapes, column names said once, dtypes, segments."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe


def table() -> pd.DataFrame:
    # q1: R N R (+1 judged relevant not retrieved) ; q2: N R ; two countries
    return pd.DataFrame(
        {
            "query": [1, 1, 1, 1, 2, 2],
            "item": [10, 11, 12, 13, 10, 14],
            "rank": [1, 2, 3, None, 1, 2],
            "relevance": [1, 0, 2, 1, 0, 1],
            "country": ["de", "de", "de", "de", "fr", "fr"],
        }
    )


# AP by hand: q1 relevant = {10, 12, 13}: (1/1 + 2/3) / 3 = 5/9 ; q2: (1/2) / 1 = 1/2
AP1, AP2 = 5 / 9, 1 / 2


def test_method_returns_float_mean():
    assert table().rank_metrics.map() == pytest.approx((AP1 + AP2) / 2)
    assert table().rank_metrics.ap() == table().rank_metrics.map()


def test_by_returns_series_per_segment():
    s = table().rank_metrics.ap(by="country")
    assert isinstance(s, pd.Series) and s.name == "AP"
    assert s.to_dict() == pytest.approx({"de": AP1, "fr": AP2})


def test_per_query_indexed_by_segment_and_query():
    s = table().rank_metrics.ap(by=["country"], per_query=True)
    assert list(s.index.names) == ["country", "query"]
    assert s.loc[("de", 1)] == pytest.approx(AP1)


def test_k_positional_and_label():
    s = table().rank_metrics.precision(2, per_query=True)
    assert s.name == "P@2" and s.tolist() == [0.5, 0.5]


def test_evaluate_tidy_frame_stable_columns(engine):
    df = table()
    out = df.rank_metrics.evaluate(["map@10", "nDCG@10", "P@5", "R@100", "RR", "ERR@20"], engine=engine)
    assert list(out.columns) == ["metric", "value", "n"]
    assert out["metric"].tolist() == ["AP@10", "nDCG@10", "P@5", "R@100", "RR", "ERR@20"]
    per = df.rank_metrics.evaluate(["AP", "RR"], by="country", per_query=True, engine=engine)
    assert list(per.columns) == ["country", "query", "metric", "value"]
    assert len(per) == 4


def test_column_names_said_once_per_chain():
    df = table().rename(columns={"query": "user_id", "item": "movie_id", "rank": "position", "relevance": "rating"})
    rm = df.rank_metrics(query="user_id", item="movie_id", rank="position", relevance="rating")
    assert rm.map() == pytest.approx((AP1 + AP2) / 2)
    out = rm.evaluate(["AP"], per_query=True)
    assert "user_id" in out.columns
    cols = rankframe.Columns(query="user_id", item="movie_id", rank="position", relevance="rating")
    assert rankframe.evaluate(df, "AP", columns=cols)["value"].item() == pytest.approx((AP1 + AP2) / 2)


def test_accessor_is_stateless():
    df = table()
    df.rank_metrics(query="nope")  # a configured copy must not leak into the next access
    assert df.rank_metrics.map() == pytest.approx((AP1 + AP2) / 2)


@pytest.mark.parametrize("backend", ["numpy", "numpy_nullable", "pyarrow"])
def test_dtype_backends(backend):
    df = table()
    if backend != "numpy":
        df = df.convert_dtypes(dtype_backend=backend)
    assert df.rank_metrics.map() == pytest.approx((AP1 + AP2) / 2)
    assert df.rank_metrics.map(by="country").to_dict() == pytest.approx({"de": AP1, "fr": AP2})


def test_string_ids_and_categorical_segments():
    df = table().astype({"query": str, "item": str, "country": "category"})
    s = df.rank_metrics.ap(by="country", per_query=True)
    assert s.loc[("fr", "2")] == pytest.approx(AP2)


def test_score_instead_of_rank_uses_trec_eval_ties():
    # equal scores: trec_eval order is item id descending as strings, so "9" comes before "10"
    df = pd.DataFrame({"query": 1, "item": ["10", "9"], "score": [0.5, 0.5], "relevance": [1, 0]})
    assert df.rank_metrics.rr() == pytest.approx(1 / 2)


def test_rank_wins_over_score():
    df = table().assign(score=[0.0, 0.0, 9.0, np.nan, 0.0, 9.0])
    assert df.rank_metrics.map() == pytest.approx((AP1 + AP2) / 2)


def test_qrels_argument_equals_single_table(engine):
    df = table()
    run = df[df["rank"].notna()].drop(columns="relevance")
    qrels = df[["query", "item", "relevance"]]
    a = rankframe.evaluate(df, ["AP", "nDCG", "R@2", "Bpref"], per_query=True, engine=engine)
    b = rankframe.evaluate(run, ["AP", "nDCG", "R@2", "Bpref"], per_query=True, qrels=qrels, engine=engine)
    pd.testing.assert_frame_equal(a.drop(columns=[]), b)


def test_unknown_keyword_names_known_ones():
    with pytest.raises(rankframe.UnknownMetricError, match="denominator"):
        table().rank_metrics.map(k=3, denominatr="min_k")


def test_mean_over_empty_selection_is_nan():
    df = table().assign(relevance=np.nan)  # nothing judged: every query skipped
    assert np.isnan(df.rank_metrics.map())


def test_compare_through_the_accessor_equals_the_function():
    df = pd.read_parquet(Path(__file__).resolve().parents[1] / "examples" / "paired.parquet")
    via_accessor = df.rank_metrics.compare(["AP", "nDCG@10"], baseline="bm25", by="length")
    direct = rankframe.compare(df, ["AP", "nDCG@10"], baseline="bm25", by="length")
    pd.testing.assert_frame_equal(via_accessor, direct)
    assert set(direct["system"]) == {"dense", "hybrid"} and (direct["baseline"] == "bm25").all()
