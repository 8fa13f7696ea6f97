"""The DuckDB engine (evaluate(..., engine="duckdb")): ids of every dtype come back as the pandas engine gives them,
and no ``duckdb.Error`` ever reaches the caller."""

from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

import rankframe
from rankframe.core.columns import Columns
from rankframe.core.errors import ParameterError, RankframeError, ValidationError
from rankframe.engines import duckdb_engine
from rankframe.measures.names import parse

POLICIES = {"no_relevant": "zero", "no_retrieved": "zero", "no_judged": "skip"}

# two segments that share query q1 (so the unit is (seg, query)), one unretrieved judged row, one unjudged row
BASE = pd.DataFrame(
    {
        "seg": ["B", "B", "B", "A", "A", "A", "A"],
        "query": ["q1", "q1", "q2", "q1", "q1", "q1", "q2"],
        "item": ["a", "b", "a", "c", "a", "b", "z"],
        "rank": [1, 2, 1, 1, 2, None, 1],
        "relevance": [1, 0, 0, 0, 1, 1, None],
    }
)


def _dictionary(values, index_type=pa.int32(), value_type=pa.string()):
    arr = pa.array(values).dictionary_encode().cast(pa.dictionary(index_type, value_type))
    return pd.array(arr, dtype=pd.ArrowDtype(arr.type))


ID_TYPES = {
    "dictionary<int32, string>": _dictionary,
    "dictionary<int8, large_string>": lambda v: _dictionary(v, pa.int8(), pa.large_string()),
    "dictionary<int16, int64>": lambda v: _dictionary([ord(x[-1]) for x in v], pa.int16(), pa.int64()),
    "category": lambda v: pd.Categorical(v),
    "category with unused categories": lambda v: pd.Categorical(v, categories=[*sorted(set(v)), "zz"]),
    "category of ints": lambda v: pd.Categorical([ord(x[-1]) for x in v]),
    "arrow string": lambda v: pd.array(v, dtype=pd.ArrowDtype(pa.string())),
    "object": lambda v: pd.array(v, dtype=object),
}


@pytest.mark.quick_sample(1, per="id_type")  # the quick loop: each id type once (tests/tiers.py)
@pytest.mark.parametrize("id_type", ID_TYPES)
@pytest.mark.parametrize("columns", [["seg"], ["query"], ["seg", "query", "item"]], ids="+".join)
@pytest.mark.parametrize("per_query", [True, False], ids=["per_query", "means"])
def test_ids_of_any_dtype_with_by_equal_the_pandas_engine(id_type, columns, per_query):
    # before: dictionary-encoded segments came back re-encoded (sorted differently) and the per-segment mean
    # raised pyarrow's ArrowNotImplementedError; now the ids are taken from the input frame itself
    df = BASE.copy()
    for c in columns:
        df[c] = ID_TYPES[id_type](df[c].tolist())
    before = df.copy()
    kw = dict(by="seg", per_query=per_query)
    want = rankframe.evaluate(df, ["AP", "P@1", "nDCG@2"], engine="pandas", **kw)
    got = rankframe.evaluate(df, ["AP", "P@1", "nDCG@2"], engine="duckdb", **kw)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12, atol=1e-12)
    pd.testing.assert_frame_equal(df, before)


def test_id_dtypes_kept_without_by():
    df = BASE[BASE.seg == "A"].drop(columns="seg").assign(query=lambda d: d["query"].str.slice(1).astype("int16"))
    got = rankframe.evaluate(df, "AP", per_query=True, engine="duckdb")
    want = rankframe.evaluate(df, "AP", per_query=True, engine="pandas")
    assert got["query"].dtype == "int16"
    pd.testing.assert_frame_equal(got, want)


def test_macro_errors_become_rankframe_errors_with_their_text():
    # the engine called directly (evaluate's own checks skipped): the ERR macro's error() arrives as the
    # ParameterError of the Python API, without DuckDB's "Invalid Input Error: " prefix
    df = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2], "relevance": [5, 0]})
    with pytest.raises(ParameterError) as info:
        duckdb_engine.evaluate(df, [parse("ERR")], Columns(), [], True, POLICIES)
    assert str(info.value) == (
        "The 'max_grade' parameter of ERR must be >= every grade in the table. Got 4 but the table has grade 5; "
        "pass max_grade := 5 (the top grade of your scale)."
    )


@pytest.mark.parametrize(
    ("error", "kind", "text"),
    [
        (
            duckdb.InvalidInputException(
                "Invalid Input Error: rf:param: The 'k' parameter of rf_agg_ap must be an int >= 1 "
                "(at most 2**63 - 1) or NULL. Got 0 instead."
            ),
            ParameterError,
            "The 'k' parameter of rf_agg_ap must be an int >= 1 (at most 2**63 - 1) or NULL. Got 0 instead.",
        ),
        (
            duckdb.InvalidInputException(
                "Invalid Input Error: rf:param: gain := 'exponential' (2^g - 1) overflows float64"
            ),
            ParameterError,
            "gain := 'exponential' (2^g - 1) overflows float64",
        ),
        (
            duckdb.InvalidInputException(
                "Invalid Input Error: rf:table[item]: item must be unique within each (query): 1 (query, item) key(s)"
            ),
            ValidationError,
            "item must be unique within each (query)",
        ),
        (
            duckdb.InvalidInputException(
                "Invalid Input Error: rf:table[rank]: order_by := 'position' needs ranks 1..n in every query"
            ),
            ValidationError,
            "order_by := 'position' needs ranks 1..n",
        ),
        (
            duckdb.InvalidInputException("Invalid Input Error: something else"),
            RankframeError,
            "the DuckDB engine (engine='duckdb') failed: something else",
        ),
        (
            duckdb.BinderException("Binder Error: Referenced column x not found"),
            RankframeError,
            "the DuckDB engine (engine='duckdb') failed: Binder Error: Referenced column x not found",
        ),
        (
            duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate"),
            RankframeError,
            "the DuckDB engine (engine='duckdb') failed: Out of Memory Error",
        ),
    ],
    ids=["parameter", "overflow", "duplicates", "position", "other input error", "binder", "memory"],
)
def test_translate_error(error, kind, text):
    got = duckdb_engine.translate_error(error)
    assert type(got) is kind
    assert text in str(got)
    assert "Invalid Input Error" not in str(got)
    assert "rf:" not in str(got)  # the code says the class; the message the user reads is without it


def test_no_duckdb_error_escapes_evaluate(monkeypatch):
    # any failure inside DuckDB (here: a broken query) is a RankframeError naming the engine
    monkeypatch.setattr(duckdb_engine, "build_sql", lambda *a: "SELECT no_such_column FROM rf__input")
    df = BASE[BASE.seg == "A"].drop(columns="seg")
    with pytest.raises(RankframeError, match=r"the DuckDB engine \(engine='duckdb'\) failed: Binder Error") as info:
        rankframe.evaluate(df, "AP", engine="duckdb")
    assert not isinstance(info.value, duckdb.Error)
    assert info.value.__cause__ is None and info.value.__suppress_context__
