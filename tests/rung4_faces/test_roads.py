"""One hostile table, every road, one answer (issue 19): the same numbers or the same error class.

Roads: a pandas frame, an Arrow table, a polars frame, a DuckDB relation, a Parquet path and a CSV path (both read
in DuckDB), ``read_long`` of the Parquet and of the CSV file, the CLI on the Parquet file (DuckDB) and on the CSV
file (``read_long``), and Spark (``test_spark_road``, one session, skipped without Java). The rules are those of
``docs/inputs.md`` ("One rule per input"); expected values are derived by hand next to each table, never taken from
a road. A road that cannot hold a table (polars and repeated names, CSV and nested values) is skipped for it.
"""

from __future__ import annotations

import contextlib
import decimal
import io
import math
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankframe
from rankframe import cli

METRICS = ["AP", "P@1"]
NAN = float("nan")


@dataclass
class Case:
    """A table, and what every road must give: means {(segment, metric): value} or an error (class, pattern)."""

    table: pa.Table
    means: dict | None = None
    error: str | None = None
    pattern: str = ""
    by: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=lambda: list(METRICS))
    cannot: tuple[str, ...] = ()  # roads that cannot hold the table


def _base(**kw) -> dict:
    return {"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1], "relevance": [0.0, 1.0, 1.0], **kw}


CASES = {
    # two columns named 'query': whichever a road would read, the table is ambiguous
    "repeated name": Case(
        pa.Table.from_arrays(
            [
                pa.array([1, 1, 2]),
                pa.array(["a", "b", "a"]),
                pa.array([1, 2, 1]),
                pa.array([0.0, 1, 1]),
                pa.array([5, 5, 5]),
            ],
            names=["query", "item", "rank", "relevance", "query"],
        ),
        error="ValidationError",
        pattern=r"column names must be unique: 'query' appears 2 times",
        cannot=("polars",),
    ),
    # NaN in a float id is a null id (pandas cannot tell them apart): 'must not be null'
    "NaN query": Case(
        pa.table(_base(query=[1.0, 1.0, NAN])), error="ValidationError", pattern=r"'query': must not be null"
    ),
    "NaN item": Case(
        pa.table(_base(item=[1.0, 2.0, NAN])), error="ValidationError", pattern=r"'item': must not be null"
    ),
    # NaN in a float segment is a null segment (its own group, shown as null):
    #   system 1.0: query 1, relevant b at rank 2 -> AP 1/2, P@1 0; system null: query 2, a at rank 1 -> 1, 1
    "NaN segment": Case(
        pa.table(_base(system=[1.0, 1.0, NAN])),
        by=["system"],
        means={(1.0, "AP"): 0.5, (1.0, "P@1"): 0.0, (None, "AP"): 1.0, (None, "P@1"): 1.0},
    ),
    # NaN rank = null rank = judged but not retrieved: query 1 AP 1/2, P@1 0; query 2's relevant a not retrieved:
    # AP 0, P@1 0 -> means AP 1/4, P@1 0
    "NaN rank": Case(pa.table(_base(rank=[1.0, 2.0, NAN])), means={"AP": 0.25, "P@1": 0.0}),
    # NaN relevance = null = unjudged: query 1 has a judged 0 and an unjudged b -> nothing relevant, AP 0
    # (no_relevant="zero"), P@1 0; query 2: AP 1, P@1 1 -> means 1/2, 1/2
    "NaN relevance": Case(pa.table(_base(relevance=[0.0, NAN, 1.0])), means={"AP": 0.5, "P@1": 0.5}),
    # DECIMAL relevance is read as a float: grades 0, 1.5 | 1. AP (rel >= 1): query 1 1/2, query 2 1 -> 3/4;
    # P@1: 0, 1 -> 1/2; nDCG@2: query 1 = g(1.5)/log2(3) / g(1.5) = 1/log2(3) whatever the gain g, query 2 = 1
    "DECIMAL relevance": Case(
        pa.table(_base(relevance=pa.array([decimal.Decimal(v) for v in ("0", "1.5", "1")], type=pa.decimal128(5, 2)))),
        metrics=["AP", "P@1", "nDCG@2"],
        means={"AP": 0.75, "P@1": 0.5, "nDCG@2": (1 / math.log2(3) + 1) / 2},
    ),
    # no rows (a header-only CSV): no query, so each mean is NaN over n = 0 (the CLI: nothing to print, exit 2)
    "no rows": Case(
        pa.table(
            {
                "query": pa.array([], pa.int64()),
                "item": pa.array([], pa.string()),
                "rank": pa.array([], pa.int64()),
                "relevance": pa.array([], pa.float64()),
            }
        ),
        means={"AP": NAN, "P@1": NAN},
    ),
    # nested values as ids or segments: one message naming the column, not a false 'rank must be unique'
    "list query": Case(
        pa.table(_base(query=[[1], [1], [2]])),
        error="ValidationError",
        pattern=r"'query': query holds nested values .*not allowed",
        cannot=("csv", "read_long csv", "cli csv"),
    ),
    "struct item": Case(
        pa.table(_base(item=[{"x": 1}, {"x": 2}, {"x": 1}])),
        error="ValidationError",
        pattern=r"'item': item holds nested values .*not allowed",
        cannot=("csv", "read_long csv", "cli csv"),
    ),
    "list segment": Case(
        pa.table(_base(seg=[[1], [1], [2]])),
        by=["seg"],
        error="ValidationError",
        pattern=r"'seg': seg holds nested values .*not allowed",
        cannot=("csv", "read_long csv", "cli csv"),
    ),
}

ROADS = (
    "pandas",
    "arrow",
    "polars",
    "relation",
    "parquet",
    "csv",
    "read_long parquet",
    "read_long csv",
    "cli parquet",
    "cli csv",
)


@dataclass
class Outcome:
    means: dict | None = None
    error: str | None = None
    message: str = ""


def _relation(table: pa.Table):
    rel = duckdb.connect().from_arrow(table)
    if list(rel.columns) != table.column_names:  # DuckDB renamed a repeated name: give the table's names back
        rel = rel.project(", ".join(f'"{r}" AS "{n}"' for r, n in zip(rel.columns, table.column_names)))
    return rel


def _means(frame: pd.DataFrame, by: list[str]) -> dict:
    if not by:
        return dict(zip(frame["metric"], frame["value"]))
    return {
        (None if pd.isna(r[0]) else float(r[0]), r[1]): r[2]
        for r in frame[[*by, "metric", "value"]].itertuples(index=False)
    }


def _files(table: pa.Table, tmp_path) -> tuple[str, str]:
    parquet, csv = tmp_path / "t.parquet", tmp_path / "t.csv"
    pq.write_table(table, parquet)
    frame = table.to_pandas()
    if not any(pa.types.is_nested(t) for t in table.schema.types):
        frame.to_csv(csv, index=False)  # NaN as an empty cell: null on both CSV readers
    return str(parquet), str(csv)


def _cli(path: str, case: Case) -> Outcome:
    args = ["evaluate", path, *[a for m in case.metrics for a in ("-m", m)], "--format", "csv", "--no-progress"]
    args += [a for b in case.by for a in ("--by", b)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    if code != 0:
        return Outcome(error=f"exit {code}", message=err.getvalue())
    printed = pd.read_csv(io.StringIO(out.getvalue()))
    return Outcome(means=_means(printed, case.by))


def run(road: str, case: Case, tmp_path) -> Outcome:
    """The case's table through one road: its means, or its error's class and message."""
    t = case.table
    parquet, csv = _files(t, tmp_path)
    if road.startswith("cli"):
        return _cli(parquet if road == "cli parquet" else csv, case)
    make = {
        "pandas": lambda: t.to_pandas(),
        "arrow": lambda: t,
        "polars": lambda: pl.from_arrow(t),
        "relation": lambda: _relation(t),
        "parquet": lambda: parquet,
        "csv": lambda: csv,
        "read_long parquet": lambda: rankframe.read_long(parquet),
        "read_long csv": lambda: rankframe.read_long(csv),
    }[road]
    try:
        got = rankframe.evaluate(make(), case.metrics, by=case.by or None)
    except rankframe.RankframeError as e:
        return Outcome(error=type(e).__name__, message=str(e))
    return Outcome(means=_means(got, case.by))


def check(outcome: Outcome, case: Case, road: str) -> None:
    """The road gave the case's answer: the hand-derived means, or its error class (the CLI: exit 2) and rule."""
    if case.error is not None:
        assert outcome.error in (case.error, "exit 2"), f"{road}: {outcome}"
        assert outcome.error != "exit 2" or road.startswith("cli"), f"{road}: {outcome}"
        import re

        assert re.search(case.pattern, outcome.message, flags=re.S), f"{road}: {outcome.message}"
        return
    if road.startswith("cli") and case.means is not None and all(np.isnan(v) for v in case.means.values()):
        # the CLI prints results: with no query to evaluate it says so (exit 2) instead of printing NaN
        assert outcome.error == "exit 2" and "no query left to evaluate" in outcome.message, f"{road}: {outcome}"
        return
    assert outcome.error is None, f"{road}: {outcome.error}: {outcome.message}"
    assert outcome.means is not None and set(outcome.means) == set(case.means), f"{road}: {outcome.means}"
    for key, want in case.means.items():
        assert outcome.means[key] == pytest.approx(want, abs=1e-12, nan_ok=True), f"{road}: {key}"


@pytest.mark.quick_sample(2, per="road")  # the quick loop: 2 of the tables on each road (tests/tiers.py)
@pytest.mark.parametrize("road", ROADS)
@pytest.mark.parametrize("name", list(CASES))
def test_every_road_gives_one_answer(name, road, tmp_path):
    case = CASES[name]
    if road in case.cannot:
        pytest.skip(f"{road} cannot hold this table")
    check(run(road, case, tmp_path), case, road)


# ------------------------------------------------------------------------------------------- paths are paths


@pytest.fixture
def decoys(tmp_path):
    """Files whose names hold glob characters, each next to decoys that the name would match as a pattern.

    Each file's single query has one relevant item at the rank in its name's table, so P@1 tells them apart:
    ``x[1].parquet`` P@1 = 1 (relevant at rank 1), its decoy ``x1.parquet`` P@1 = 0 (relevant at rank 2).
    """

    def table(rank_of_relevant: int) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "query": [1, 1],
                "item": ["a", "b"],
                "rank": [1, 2],
                "relevance": [1, 0][:: 1 if rank_of_relevant == 1 else -1],
            }
        )

    table(1).to_parquet(tmp_path / "x[1].parquet")
    table(2).to_parquet(tmp_path / "x1.parquet")
    table(1).to_parquet(tmp_path / "w*.parquet")
    table(2).to_parquet(tmp_path / "wa.parquet")
    table(1).to_csv(tmp_path / "a?.csv", index=False)
    table(2).to_csv(tmp_path / "ab.csv", index=False)
    table(2).to_parquet(tmp_path / "y1.parquet")  # a decoy only: y[1].parquet does not exist
    return tmp_path


@pytest.mark.parametrize("name", ["x[1].parquet", "w*.parquet", "a?.csv"])
def test_a_path_names_one_file(decoys, name):
    path = decoys / name
    # the file itself: one query, P@1 = 1 (a decoy or a merge with it would give 0 or 1/2, and n = 2)
    for given in (str(path), path):
        got = rankframe.evaluate(given, ["P@1"])
        assert got["value"].tolist() == [1.0] and got["n"].tolist() == [1], (given, got)
    assert rankframe.evaluate(rankframe.read_long(path), ["P@1"])["value"].tolist() == [1.0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["evaluate", str(path), "-m", "P@1", "--format", "csv", "--no-progress"]) == 0
    assert pd.read_csv(io.StringIO(out.getvalue()))["value"].tolist() == [1.0]


def test_compare_reads_one_file_not_a_pattern(decoys):
    # two systems in 'w[s].parquet'; the decoy 'ws.parquet' (which the pattern matches) has a third system
    df = pd.DataFrame(
        {
            "query": [1, 1, 1, 1, 2, 2, 2, 2],
            "item": list("abab" * 2),
            "rank": [1, 2] * 4,
            "relevance": [1, 0] * 4,
            "system": ["s1", "s1", "s2", "s2"] * 2,
        }
    )
    df.to_parquet(decoys / "w[s].parquet")
    df.assign(system="decoy").to_parquet(decoys / "ws.parquet")
    out = rankframe.compare(str(decoys / "w[s].parquet"), ["P@1"], baseline="s1")
    assert set(out["system"]) == {"s2"}  # s2 against s1; the decoy's system is not read


def test_a_missing_file_is_an_error_even_when_a_pattern_would_match(decoys):
    from rankframe.tables.io import InputFileError

    with pytest.raises(InputFileError, match=r"y\[1\]\.parquet: file not found"):
        rankframe.evaluate(str(decoys / "y[1].parquet"), ["P@1"])
    with pytest.raises(InputFileError, match="file not found"):
        rankframe.read_long(decoys / "y[1].parquet")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(["evaluate", str(decoys / "y[1].parquet"), "-m", "P@1", "--no-progress"]) == 2
    assert "file not found" in err.getvalue()


# ------------------------------------------------------------------------------------------------------- Spark


@pytest.mark.spark
def test_spark_road():
    """Every case through rankframe.spark (one session): the same answer as the other roads."""
    from sparkutil import session

    import rankframe.spark as rs

    spark = session()
    for name, case in CASES.items():
        t = case.table
        if name == "repeated name":
            sdf = spark.createDataFrame([(1, "a", 1, 0.0, 5)], ["query", "item", "rank", "relevance", "query"])
        elif name == "DECIMAL relevance":
            sdf = spark.createDataFrame(
                t.to_pandas().astype({"relevance": object}),
                "query long, item string, rank long, relevance decimal(5,2)",
            )
        elif name == "no rows":
            sdf = spark.createDataFrame([], "query long, item string, rank long, relevance double")
        else:
            sdf = spark.createDataFrame(t.to_pandas())
        try:
            got = rs.evaluate(sdf, case.metrics, by=case.by or None)
        except rankframe.RankframeError as e:
            outcome = Outcome(error=type(e).__name__, message=str(e))
        else:
            outcome = Outcome(means=_means(got, case.by))
        if name == "repeated name":  # one row: only the rule is the table's
            assert outcome.error == "ValidationError" and "column names must be unique" in outcome.message
            continue
        check(outcome, case, f"spark: {name}")
