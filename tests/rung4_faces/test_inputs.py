"""Every input kind (Arrow, polars, DuckDB relation, Arrow C stream, path) gives the pandas input's results.

The oracle is the pandas input: each kind's own ``to_pandas()`` export (or, for the original table, the pandas
frame it came from) evaluated on the pandas engine. Hostile inputs per kind get the same RankframeError as pandas.
"""

from __future__ import annotations

import sys

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import strategies as S
from conftest import hypothesis_examples
from hypothesis import HealthCheck, Phase, given, settings

import rankframe
from rankframe.core.errors import ParameterError, RankframeError, ValidationError
from rankframe.tables import inputs

METRICS = ["AP", "nDCG@3", "P@2", "R@5", "RR", "ERR(max_grade=50)@3", "bpref"]


class Stream:
    """Only the Arrow PyCapsule stream interface (what nanoarrow, DuckDB or a future library exports)."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def to_arrow(df: pd.DataFrame) -> pa.Table:
    return pa.Table.from_pandas(df, preserve_index=False)


def polars_export(t: pa.Table) -> pd.DataFrame:
    return pl.from_arrow(t).to_pandas()


def duckdb_export(t: pa.Table) -> pd.DataFrame:
    # a relation is computed inside DuckDB and its results come back through Arrow (duckdb_source), so the same
    # data as pandas is Arrow's export (text as pandas' str dtype), not DuckDB's own .df() (text as object)
    rel = duckdb.from_arrow(t)
    return (getattr(rel, "to_arrow_table", None) or rel.arrow)().to_pandas()


def arrow_export(t: pa.Table) -> pd.DataFrame:
    return t.to_pandas()


#: each kind: (build it from an Arrow table, its own export to pandas = the same data as a pandas frame)
KINDS = {
    "arrow": (lambda t: t, arrow_export),
    "record_batch": (lambda t: t.combine_chunks().to_batches()[0] if t.num_rows else t, arrow_export),
    "reader": (lambda t: t.to_reader(), arrow_export),
    "stream": (Stream, arrow_export),
    "polars": (pl.from_arrow, polars_export),
    "polars_lazy": (lambda t: pl.from_arrow(t).lazy(), polars_export),
    "duckdb": (lambda t: duckdb.from_arrow(t), duckdb_export),
}


def canonical(out: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Ids as text and rows in key order: the same tidy frame whatever id dtype a kind round-trips to."""
    out = out.copy()
    for k in keys:
        out[k] = out[k].astype(object).map(lambda v: None if pd.isna(v) else str(v))
    return out.sort_values([*keys, "metric"], na_position="first").reset_index(drop=True)


def test_every_kind_gives_the_pandas_frame(engine):
    """Hypothesis tables (segments, str/int ids, float/Int64 ranks): per query and means, equal to pandas."""

    @settings(
        max_examples=hypothesis_examples(2 if engine == "pandas" else 1),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    @given(df=S.tables(mode="rank", segments=True, max_queries=4))
    def run(df):
        by = S.by_of(df)
        table = to_arrow(df)
        for per_query in (True, False):
            keys = [*(by or []), *(["query"] if per_query else [])]
            base = canonical(rankframe.evaluate(df, METRICS, by=by, per_query=per_query), keys)
            wants = {}
            for kind, (make, export) in KINDS.items():
                got = rankframe.evaluate(make(table), METRICS, by=by, per_query=per_query, engine=engine)
                # identical (dtypes included) to the same data as a pandas frame, on the same engine
                if export not in wants:
                    wants[export] = rankframe.evaluate(
                        export(table), METRICS, by=by, per_query=per_query, engine=engine
                    )
                # a DuckDB relation is computed in DuckDB itself (engines/duckdb_source.py): its ids come back as
                # DuckDB gives them (object), the same values
                pd.testing.assert_frame_equal(got, wants[export], obj=kind, check_dtype=kind != "duckdb")
                # the same values as the original pandas frame on the pandas engine (ids compared as text)
                pd.testing.assert_frame_equal(canonical(got, keys), base, check_dtype=False, obj=kind)

    run()


def test_arrow_input_identical_to_to_pandas_and_not_modified():
    df = pd.DataFrame(
        {"query": ["q1", "q1", "q2"], "item": [1, 2, 1], "rank": [1, None, 1], "relevance": [1, 1, 0], "seg": "a"}
    )
    table = to_arrow(df)
    before = table.to_pandas()
    out = rankframe.evaluate(table, ["AP", "R@10"], by="seg", per_query=True)
    # AP(q1) = (1/1) / |R| = 1/2 (item 2 relevant, not retrieved); AP(q2) = 0; R@10(q1) = 1/2, R@10(q2) = 0
    assert out["value"].tolist() == [0.5, 0.5, 0.0, 0.0]
    assert table.to_pandas().equals(before)


def test_qrels_of_any_kind():
    run = pd.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
    qrels = pd.DataFrame({"query": [1, 2, 2], "item": ["b", "a", "c"], "relevance": [1, 1, 1]})
    want = rankframe.evaluate(run, ["AP", "RR"], qrels=qrels, per_query=True)
    # by hand: q1 relevant b at rank 2 -> AP = RR = 1/2; q2 relevant a at rank 1, c unretrieved -> AP 1/2, RR 1
    assert want["value"].tolist() == [0.5, 0.5, 0.5, 1.0]
    for q in (to_arrow(qrels), pl.from_pandas(qrels), pl.from_pandas(qrels).lazy()):
        got = rankframe.evaluate(pl.from_pandas(run), ["AP", "RR"], qrels=q, per_query=True)
        pd.testing.assert_frame_equal(got, want)


def test_path_input(tmp_path):
    df = pd.DataFrame({"query": [1, 1, 2], "item": [1, 2, 1], "rank": [1, 2, 1], "relevance": [0, 1, 1]})
    path = tmp_path / "t.parquet"
    pq.write_table(to_arrow(df), path)
    want = rankframe.evaluate(df, ["AP", "RR"])  # AP: (1/2 + 1) / 2 = 0.75, RR likewise
    assert want["value"].tolist() == [0.75, 0.75]
    pd.testing.assert_frame_equal(rankframe.evaluate(path, ["AP", "RR"]), want)
    pd.testing.assert_frame_equal(rankframe.evaluate(str(path), ["AP", "RR"]), want)


@pytest.mark.parametrize("output", ["arrow", "polars"])
def test_output_kinds(output):
    df = pd.DataFrame({"query": [1, 1], "item": [1, 2], "rank": [1, 2], "relevance": [0, 1], "s": ["x", "y"]})
    want = rankframe.evaluate(df, ["AP", "RR"], per_query=True)
    got = rankframe.evaluate(df, ["AP", "RR"], per_query=True, output=output)
    assert isinstance(got, pa.Table if output == "arrow" else pl.DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas(), want)
    cmp = rankframe.compare(
        pd.concat([df.assign(system="A"), df.assign(system="B", rank=[2, 1])]), "RR", baseline="A", output=output
    )
    assert cmp.column_names[0] == "metric" if output == "arrow" else cmp.columns[0] == "metric"
    # RR: A = 1/2, B = 1 on the one query -> delta 1/2
    assert cmp.to_pandas()["delta"].tolist() == [0.5]


@pytest.mark.parametrize(
    "bad", [[1, 2], {"query": [1], "item": [1], "rank": [1], "relevance": [1]}, None, 3, pd.Series([1]), pa.array([1])]
)
def test_not_a_table_names_df(bad):
    for call in (
        lambda: rankframe.evaluate(bad, "AP"),
        lambda: rankframe.compare(bad, "AP", baseline="a"),
        lambda: rankframe.validate(bad),
    ):
        with pytest.raises(ParameterError, match=r"The 'df' parameter of (evaluate|compare|validate) must be a table"):
            call()
    ok = pd.DataFrame({"query": [1], "item": [1], "rank": [1], "relevance": [1]})
    with pytest.raises(ParameterError, match="The 'qrels' parameter of evaluate must be a table"):
        rankframe.evaluate(ok, "AP", qrels=bad if bad is not None else [1])


def test_bad_output():
    df = pd.DataFrame({"query": [1], "item": [1], "rank": [1], "relevance": [1]})
    with pytest.raises(ParameterError, match="The 'output' parameter of evaluate must be one of 'pandas', 'arrow'"):
        rankframe.evaluate(df, "AP", output="numpy")


HOSTILE = {
    # misspelled column: the same "not in dataframe ... did you mean" failure as pandas
    "misspelled": (pd.DataFrame({"query": [1], "itme": [1], "rank": [1], "relevance": [1]}), "did you mean 'itme'"),
    "duplicate item": (
        pd.DataFrame({"query": [1, 1], "item": [1, 1], "rank": [1, 2], "relevance": [1, 0]}),
        "item must be unique",
    ),
    "rank 0": (pd.DataFrame({"query": [1, 1], "item": [1, 2], "rank": [0, 2], "relevance": [1, 0]}), "rank must be"),
    "inf relevance": (
        pd.DataFrame({"query": [1], "item": [1], "rank": [1], "relevance": [np.inf]}),
        "relevance must be finite",
    ),
    "text rank": (
        pd.DataFrame({"query": [1], "item": [1], "rank": ["1"], "relevance": [1]}),
        "rank must be numeric",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
@pytest.mark.parametrize("kind", ["arrow", "polars", "duckdb"])
def test_hostile_tables_same_error_as_pandas(case, kind):
    df, pattern = HOSTILE[case]
    with pytest.raises(ValidationError, match=pattern) as want:
        rankframe.evaluate(df, "AP")
    make, _ = KINDS[kind]
    with pytest.raises(ValidationError) as got:
        rankframe.evaluate(make(to_arrow(df)), "AP")

    # the same columns, rules and counts; a DuckDB relation is validated in SQL (engines/duckdb_source.py), which
    # names the column's type and its conversion in its own words (VARCHAR, CAST) after "; found dtype"
    def rules(err):
        return [(f["column"], f["rule"].split("; found dtype")[0], f["count"]) for f in err.failures]

    assert rules(got.value) == rules(want.value)


@pytest.mark.parametrize("kind", list(KINDS))
def test_empty_table_every_kind(kind):
    df = pd.DataFrame(
        {
            "query": pd.Series([], dtype="int64"),
            "item": pd.Series([], dtype="int64"),
            "rank": pd.Series([], dtype="float64"),
            "relevance": pd.Series([], dtype="float64"),
        }
    )
    want = rankframe.evaluate(df, ["AP", "RR"], per_query=True)
    assert len(want) == 0
    same = {"check_dtype": kind != "duckdb"}  # the DuckDB road's empty frame has object columns
    got = rankframe.evaluate(KINDS[kind][0](to_arrow(df)), ["AP", "RR"], per_query=True)
    pd.testing.assert_frame_equal(got, want, **same)
    # the mean of no query: NaN over n = 0, as for pandas
    pd.testing.assert_frame_equal(
        rankframe.evaluate(KINDS[kind][0](to_arrow(df)), ["AP"]), rankframe.evaluate(df, ["AP"]), **same
    )


def test_mixed_id_types_in_arrow_union_rejected():
    """Arrow can hold mixed id types (a union column), which pandas cannot: a ParameterError naming the column."""
    item = pa.UnionArray.from_sparse(
        pa.array([0, 1], type=pa.int8()), [pa.array([1, None], type=pa.int64()), pa.array([None, "1"])]
    )
    table = pa.table({"query": [1, 1], "item": item, "rank": [1, 2], "relevance": [1, 0]})
    with pytest.raises(ParameterError, match=r"The 'df' parameter of evaluate: column 'item' \(sparse_union"):
        rankframe.evaluate(table, "AP")
    # polars cannot hold them in one column at all: a strict Series of 1 and "1" fails in polars itself, so the
    # only polars way is an Object column, which polars exports to Arrow as raw pointers: refused, naming it
    frame = pl.DataFrame({"query": [1, 1], "item": pl.Series([1, "1"], dtype=pl.Object), "rank": [1, 2]})
    with pytest.raises(ParameterError, match="'df' parameter of evaluate: column 'item' is a polars Object column"):
        rankframe.evaluate(frame.with_columns(relevance=pl.lit(1)), "AP")


def test_duplicate_column_names_in_arrow():
    table = pa.table([[1], [1], [1], [1], [2]], names=["query", "item", "rank", "relevance", "rank"])
    with pytest.raises(ValidationError, match="column names must be unique"):
        rankframe.evaluate(table, "AP")


def test_polars_absent_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)  # `import polars` now raises ImportError
    df = pd.DataFrame({"query": [1], "item": [1], "rank": [1], "relevance": [1]})
    with pytest.raises(RankframeError, match=r'pip install "rankframe\[polars\]"'):
        rankframe.evaluate(df, "AP", output="polars")
    assert inputs.kind(df) == "pandas"  # recognising kinds never imports polars
    assert rankframe.evaluate(to_arrow(df), "AP")["value"].tolist() == [1.0]
