"""The fast paths of validation and preparation (issue 10) give the answers of the general paths.

* ``units.dense_lists``: one sort of packed ``unit | rank | item | grade`` keys for dense ranks and integer grades. Its
  lists are held to the DuckDB engine (SQL windows, another implementation) and to the general path (the same
  table with float grades, which the packed sort does not take).
* Its duplicate-item check (item keys grouped by unit; hashed keys re-checked by value) flags exactly the rows
  ``DataFrame.duplicated`` flags.
* Validation skips pandera when whole-column tests prove every rule; a table that breaks a rule still gets
  pandera's full report.
* Sorted unit codes by counting (``units.dense_codes``) equal ``pd.factorize(sort=True)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe import ValidationError
from rankframe.tables import units
from rankframe.tables.units import packed

METRICS = ["AP@5", "nDCG@5", "nDCG", "P@3", "R@10", "RR@5", "ERR@5", "Rprec", "NumRel", "Bpref"]
# relevance thresholds between and beyond the integer grades: the packed path compares grade codes with them
REL_METRICS = ["P(rel=2)@3", "R(rel=0.5)", "RR(rel=3)", "R(rel=-0.5)", "P(rel=7)", "R(rel=-3)"]
METRICS += REL_METRICS


def dense_table(seed: int, *, n_queries: int = 30, grade_dtype: str = "int8", item_span: int = 1) -> pd.DataFrame:
    """Ranks exactly 1..n per query (shuffled rows), a few judged unretrieved rows, integer grades."""
    rng = np.random.default_rng(seed)
    parts = []
    for q in range(n_queries):
        n_ret = int(rng.integers(0, 12)) if q % 7 else 0  # some queries retrieve nothing
        n_extra = int(rng.integers(0, 4)) if n_ret else 2
        items = rng.choice(10_000, n_ret + n_extra, replace=False).astype(np.int64) * item_span
        rank = np.concatenate([rng.permutation(n_ret) + 1.0, np.full(n_extra, np.nan)])
        grade = rng.integers(-1, 4, n_ret + n_extra)
        parts.append(pd.DataFrame({"query": q * 3 + 100, "item": items, "rank": rank, "relevance": grade}))
    df = pd.concat(parts, ignore_index=True)
    df = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
    if grade_dtype == "Int64":  # nullable grades with nulls (unjudged rows)
        rel = df["relevance"].astype("Int64")
        rel[rng.random(len(df)) < 0.15] = pd.NA
        df["relevance"] = rel
    else:
        df["relevance"] = df["relevance"].astype(grade_dtype)
    return df


@pytest.fixture(params=["default", 1, 3])
def block_size(request, monkeypatch):
    """The packed keys built and read back in blocks of 1 and 3 rows too: a repeated rank or a unit straddling a
    block boundary must be found as within one block."""
    if request.param != "default":
        monkeypatch.setattr(packed, "_BLOCK", request.param)
    return request.param


def lists_of(df: pd.DataFrame, by=()):
    with units.shared():
        groups = units.group_codes(df, [*by, "query"])
        return units.dense_lists(df, groups, "rank", "relevance", "item")


@pytest.mark.usefixtures("block_size")
@pytest.mark.parametrize(
    ("seed", "grade_dtype", "item_span", "rank_dtype"),
    [
        (0, "int8", 1, "float64"),
        (1, "Int64", 1, "Int64"),
        (2, "int64", 10**12, "float64"),  # items spanning > 2**30 values: hashed keys
        (3, "Int64", 10**12, "Int64"),
    ],
)
def test_packed_lists_match_duckdb_and_the_general_path(seed, grade_dtype, item_span, rank_dtype):
    df = dense_table(seed, grade_dtype=grade_dtype, item_span=item_span)
    df["rank"] = df["rank"].astype(rank_dtype)
    assert lists_of(df) is not None  # the packed path is the one under test
    got = rankframe.evaluate(df, METRICS, per_query=True)
    oracle = rankframe.evaluate(df, METRICS, per_query=True, engine="duckdb")
    pd.testing.assert_frame_equal(got, oracle, check_exact=False, rtol=1e-12, atol=1e-12)
    general = df.assign(relevance=df["relevance"].astype("float64"))  # float grades: the ranked-order path
    assert lists_of(general) is None
    pd.testing.assert_frame_equal(got, rankframe.evaluate(general, METRICS, per_query=True))


@pytest.mark.quick_sample(6)  # the quick loop: 6 of the metric x dtype cases (tests/tiers.py)
@pytest.mark.usefixtures("block_size")
@pytest.mark.parametrize("grade_dtype", ["int8", "Int64"])
@pytest.mark.parametrize("metric", REL_METRICS)
def test_grade_codes_against_a_threshold_match_duckdb(metric, grade_dtype):
    # one metric per call: no other metric lays out the float grades first, so hits come from the grade codes
    # (grades -1..3, so the codes are grade + 1; Int64 grades have nulls, code 255)
    df = dense_table(7, grade_dtype=grade_dtype)
    assert lists_of(df) is not None
    got = rankframe.evaluate(df, [metric], per_query=True)
    oracle = rankframe.evaluate(df, [metric], per_query=True, engine="duckdb")
    pd.testing.assert_frame_equal(got, oracle, check_exact=False, rtol=1e-12, atol=1e-12)


def test_packed_lists_with_segments_match_duckdb():
    df = pd.concat([dense_table(4).assign(seg="a"), dense_table(5).assign(seg="b")], ignore_index=True)
    assert lists_of(df, ["seg"]) is not None
    got = rankframe.evaluate(df, METRICS, by="seg", per_query=True)
    oracle = rankframe.evaluate(df, METRICS, by="seg", per_query=True, engine="duckdb")
    pd.testing.assert_frame_equal(got, oracle, check_exact=False, rtol=1e-12, atol=1e-12)


@pytest.mark.usefixtures("block_size")
@pytest.mark.parametrize(
    ("ranks", "why"),
    [
        ([1, 3], "a gap: valid, but not 1..n"),
        ([1, 1], "a repeated rank"),
        ([2, 3], "a rank past its list (slot of the next unit)"),
        ([1, 2.5], "a fractional rank"),
        ([1, 1, 3], "a repeated rank, though the highest rank is the list's length"),
        ([3, 1, 1], "the same, in another row order"),
        ([0, 1], "a rank below 1"),
    ],
)
def test_packed_path_declines_ranks_that_are_not_dense(ranks, why):
    # query 1 has the ranks under test, query 2 one rank 1
    n = len(ranks)
    df = pd.DataFrame(
        {
            "query": [1] * n + [2],
            "item": np.arange(n + 1),
            "rank": [*ranks, 1],
            "relevance": np.array([1, 0, 0, 1][-(n + 1) :], np.int8),
        }
    )
    assert lists_of(df) is None, why


def test_a_gap_in_the_ranks_is_still_valid():
    # not dense, so the ranked order proves the rules; AP@2 of query 1: hits at positions 1 and 2 -> (1 + 1) / 2
    df = pd.DataFrame(
        {"query": [1, 1, 2], "item": [1, 2, 3], "rank": [1, 3, 1], "relevance": np.array([1, 1, 0], np.int8)}
    )
    out = rankframe.evaluate(df, "AP@2", per_query=True)
    assert out["value"].tolist() == [1.0, 0.0]


@pytest.mark.usefixtures("block_size")
@pytest.mark.parametrize("item_span", [1, 10**12])
@pytest.mark.parametrize("seed", range(3))
def test_duplicate_items_flagged_like_pandas(seed, item_span):
    df = dense_table(10 + seed, item_span=item_span)
    rng = np.random.default_rng(seed)
    # copy the item of a few rows onto other rows of the same query (retrieved or not)
    for _ in range(3):
        q = df["query"].iloc[int(rng.integers(len(df)))]
        rows = np.flatnonzero(df["query"].to_numpy() == q)
        if len(rows) > 1:
            a, b = rng.choice(rows, 2, replace=False)
            df.loc[b, "item"] = df.loc[a, "item"]
    expected = np.flatnonzero(df.duplicated(["query", "item"], keep=False).to_numpy())
    assert len(expected)
    lists = lists_of(df)
    assert lists is not None
    with units.shared():
        got = units.duplicate_item_rows(df, units.group_codes(df, ["query"]), "item", "rank", lists=lists)
    assert sorted(got.tolist()) == expected.tolist()
    with pytest.raises(ValidationError) as info:
        rankframe.validate(df)
    (failure,) = [f for f in info.value.failures if f["column"] == "item"]
    assert failure["count"] == len(expected)
    assert set(failure["examples"].index) == set(expected[:5])


def test_hash_collisions_are_checked_by_value(monkeypatch):
    # a coarse "hash" (id % 3) makes most units collide: only true duplicates may be reported
    def coarse(values, bits):
        return (lambda v: (v.astype(np.int64) % 3).astype(np.uint64)), False

    monkeypatch.setattr(packed, "_item_key_function", coarse)
    df = dense_table(20)
    lists = lists_of(df)
    assert lists is not None and not lists.item_exact
    rankframe.validate(df)  # no duplicate, many collisions
    df.loc[1, "item"] = df.loc[df.index[df["query"] == df.loc[1, "query"]][0], "item"]
    expected = np.flatnonzero(df.duplicated(["query", "item"], keep=False).to_numpy())
    with pytest.raises(ValidationError) as info:
        rankframe.validate(df)
    (failure,) = [f for f in info.value.failures if f["column"] == "item"]
    assert failure["count"] == len(expected) == 2


def test_proven_tables_skip_pandera(monkeypatch):
    import pandera.pandas as pa

    calls = []
    original = pa.DataFrameSchema.validate
    monkeypatch.setattr(
        pa.DataFrameSchema, "validate", lambda self, *a, **k: calls.append(1) or original(self, *a, **k)
    )
    rankframe.evaluate(dense_table(30), "AP@5")
    assert calls == []  # proven by the whole-column tests
    bad = dense_table(31)
    bad.loc[0, "query"] = np.nan  # a null query id: not proven, pandera reports it with its row
    with pytest.raises(ValidationError) as info:
        rankframe.evaluate(bad, "AP@5")
    assert calls == [1]
    (failure,) = [f for f in info.value.failures if f["column"] == "query"]
    assert list(failure["examples"].index) == [0]


@pytest.mark.parametrize(
    "col",
    [
        pd.Series(np.array([5, 3, 3, 9, 5], dtype=np.int32)),
        pd.Series([-5, 3, 3, -7], dtype="int64"),
        pd.Series([4, 2, 2], dtype="Int64"),
        pd.Series(np.array([200, 7, 255], dtype=np.uint8)),
        pd.Series([2**40, 3, 2**40]),  # too wide a span: hashed by pandas
    ],
)
def test_unit_codes_by_counting_equal_factorize(col):
    df = pd.DataFrame({"query": col})
    groups = units.group_codes(df, ["query"])
    codes, uniques = pd.factorize(col, sort=True)
    assert groups.codes.tolist() == codes.tolist()
    assert groups.keys["query"].dtype == uniques.dtype  # the same key dtype in every output frame
    assert groups.keys["query"].tolist() == uniques.tolist()
    assert groups.sizes.tolist() == np.bincount(codes).tolist()


def test_two_column_units_by_counting():
    df = pd.DataFrame({"seg": [2, 1, 2, 1, 3], "query": [7, 7, 5, 7, 5]})
    groups = units.group_codes(df, ["seg", "query"])
    # sorted (seg, query) keys: (1, 7), (2, 5), (2, 7), (3, 5)
    assert groups.codes.tolist() == [2, 0, 1, 0, 3]
    assert groups.keys.to_dict("list") == {"seg": [1, 2, 2, 3], "query": [7, 5, 7, 5]}
    assert groups.sizes.tolist() == [2, 1, 1, 1]


def test_duplicates_among_wide_item_ids_are_compared_as_pairs():
    # float grades: the row-sort path. Item ids span 2**62 values, so unit * span + item wraps int64: units 0 and 4
    # would give item -2**61 the same key (0 * 2**62 == 4 * 2**62 mod 2**64) and report it twice though it is unique
    # within each unit. Only the real duplicates (5 twice in unit 0, 2**61 - 1 twice in unit 4) are reported.
    lo, hi = -(2**61), 2**61 - 1
    df = pd.DataFrame(
        {
            "query": [0, 0, 0, 1, 2, 3, 4, 4, 4],
            "item": [lo, 5, 5, 1, 1, 1, lo, hi, hi],
            "rank": [1.0, 2, 3, 1, 1, 1, 1, 2, 3],
            "relevance": [1.0, 0, 0, 1, 1, 1, 1, 0, 0],
        }
    )
    with units.shared():
        got = units.duplicate_item_rows(df, units.group_codes(df, ["query"]), "item", "rank")
    assert sorted(got.tolist()) == [1, 2, 7, 8]
