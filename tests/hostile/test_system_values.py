"""Left from the second pass (issue 33): list/dict values in a system column, hexadecimal numbers in a CSV.

A system column holding lists or dicts is the long table's ``nested`` rule (ids and segments are atomic values) on
every road of compare and anova (it was Python's TypeError "unhashable type" / "'<' not supported"); a CSV cell
``0x10`` in a number column is refused by read_long as the DuckDB file road refuses it (pyarrow read it as 16).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import rankframe
from rankframe.comparing.rules import NULL_SYSTEMS
from rankframe.core.errors import RankframeError, ValidationError
from rankframe.tables.io import read_long
from rankframe.tables.rules import RULES

RUNS = {"query": [1, 1, 1, 1], "item": ["x", "y", "x", "y"], "rank": [1, 2, 1, 2], "relevance": [1, 0, 1, 0]}
NESTED = {
    "list": [["a"], ["a"], ["b"], ["b"]],
    "dict": [{"a": 1}, {"a": 1}, {"b": 1}, {"b": 1}],
}
NESTED_WORDS = RULES["nested"].text.split("({found})")[1]  # ", which are not allowed: ids and segments must be ..."


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize("road", ["frame", "parquet"])
@pytest.mark.parametrize("kind", NESTED)
def test_nested_systems_are_the_nested_rule(kind, road, engine, tmp_path):
    frame = pd.DataFrame({"system": NESTED[kind], **RUNS})
    source = frame
    if road == "parquet":
        source = str(tmp_path / "runs.parquet")
        frame.to_parquet(source)
    for call in (
        lambda: rankframe.compare(source, "AP", engine=engine),
        lambda: rankframe.anova(source, "AP", engine=engine),
    ):
        with pytest.raises(ValidationError) as info:
            call()
        failure = info.value.failures[0]
        assert failure["column"] == "system" and NESTED_WORDS in failure["rule"], str(info.value)


def test_hexadecimal_relevance_is_refused_on_both_roads(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("query,item,rank,relevance\n1,a,1,0x10\n1,b,2,0\n", encoding="utf-8")
    with pytest.raises(RankframeError, match=r"relevance is not a number: '0x10'"):
        read_long(path)
    with pytest.raises(ValidationError, match="relevance must be numeric"):  # the DuckDB file road
        rankframe.evaluate(str(path), "AP", engine="duckdb")
    # an id that looks hexadecimal stays text
    ids = tmp_path / "ids.csv"
    ids.write_text("query,item,rank,relevance\n0x1,0xa,1,1\n0x1,b,2,0\n", encoding="utf-8")
    assert read_long(ids)["item"].tolist() == ["0xa", "b"]


# Text is not a grade: a number cell is written in decimal (io._whitespace.NUMBER_TEXT), on every road that reads
# text. pyarrow's int64 cast read '0x10' as 16 (read_long, read_trec's qrels); DuckDB's CAST read '1_000' as 1000
# and '+-1' as -1
NOT_DECIMAL = ["0x10", "-0X1f", "1_000", "0b101", "1__0", "+-1", "1e1_0"]


def _roads(path: Path, cell: str) -> dict[str, object]:
    """What each road that reads a CSV (or a TREC qrels file) makes of one relevance cell: a value or an error class."""
    from rankframe.cli import main

    path.write_text(f"query,item,rank,relevance\n1,a,1,{cell}\n1,b,2,0\n", encoding="utf-8")
    qrels = path.with_suffix(".qrels")
    qrels.write_text(f"1 0 a {cell}\n1 0 b 0\n", encoding="utf-8")
    run = path.with_suffix(".run")
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n", encoding="utf-8")
    roads = {
        "read_long": lambda: read_long(path)["relevance"].iloc[0],
        "path pandas": lambda: rankframe.evaluate(str(path), "DCG(gain='linear')@1", engine="pandas")["value"][0],
        "path duckdb": lambda: rankframe.evaluate(str(path), "DCG(gain='linear')@1", engine="duckdb")["value"][0],
        "frame of read_long": lambda: rankframe.evaluate(read_long(path), "DCG(gain='linear')@1")["value"][0],
        "read_trec": lambda: rankframe.read_trec(str(run), str(qrels))["relevance"].iloc[0],
        "cli": lambda: main(["evaluate", str(path), "-m", "DCG(gain='linear')@1", "--format", "csv"]),
    }
    out: dict[str, object] = {}
    for name, road in roads.items():
        try:
            value = road()
            out[name] = "exit 2" if name == "cli" and value == 2 else float(value)
        except RankframeError as e:
            out[name] = type(e).__name__ if name != "read_long" else "InputFileError"
    return out


@pytest.mark.parametrize("cell", NOT_DECIMAL)
def test_a_number_cell_is_decimal_on_every_road(cell, tmp_path, capsys):
    out = _roads(tmp_path / "runs.csv", cell)
    assert out == {
        "read_long": "InputFileError",  # the file and line: ".../runs.csv, line 2: relevance is not a number"
        "path pandas": "ValidationError",  # "relevance must be numeric", as any other text
        "path duckdb": "ValidationError",
        "frame of read_long": "InputFileError",
        "read_trec": "InputFileError",
        "cli": "exit 2",
    }, out


@pytest.mark.parametrize(("cell", "value"), [("+16", 16.0), ("16.", 16.0), (".5", 0.5), ("1e1", 10.0), (" 7 ", 7.0)])
def test_a_decimal_cell_is_the_same_number_on_every_road(cell, value, tmp_path, capsys):
    # DCG@1 with linear gain = the grade at rank 1 / log2(2) = the grade itself (a TREC qrels grade is an integer:
    # read_trec is not asked here)
    out = _roads(tmp_path / "runs.csv", cell)
    assert {k: v for k, v in out.items() if k not in ("cli", "read_trec")} == dict.fromkeys(
        ["read_long", "path pandas", "path duckdb", "frame of read_long"], value
    ), out
    assert out["cli"] == 0.0 or out["cli"] == 0, out  # exit 0


@pytest.mark.spark  # one JVM per run (tests/tiers.py)
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_compare_nested_systems(tmp_path):
    pytest.importorskip("pyspark")
    from sparkutil import session

    import rankframe.spark as rs

    path = tmp_path / "runs.parquet"
    pd.DataFrame({"system": NESTED["dict"], **RUNS}).to_parquet(path)  # a Spark struct column
    with pytest.raises(ValidationError) as info:
        rs.compare(session().read.parquet(str(path)), "AP")
    assert info.value.failures[0]["column"] == "system" and NESTED_WORDS in info.value.failures[0]["rule"]


def _nan_system_parquet(path) -> str:
    """Systems 1.0, NaN, 2.0 as a float column holding a real NaN (pyarrow keeps NaN, pandas' to_parquet writes null)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    systems = [1.0, 1.0, float("nan"), 2.0] * 2
    columns = {**{k: v * 2 for k, v in RUNS.items()}, "query": [1, 1, 1, 1, 2, 2, 2, 2]}
    table = pa.table({"system": pa.array(systems, type=pa.float64()), **columns})
    assert table.column("system").null_count == 0  # a NaN, not a null
    pq.write_table(table, path)
    return str(path)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize("call", ["compare", "anova"])
def test_nan_system_in_a_parquet_file_is_a_null_system(call, engine, tmp_path):
    # a float NaN is null on every road (docs/inputs.md); rows 2 and 6 (0-based) have no system. compare on a
    # path read the systems with DuckDB's IS NULL, which a NaN is not: pivot's ValueError "appears more than once"
    path = _nan_system_parquet(tmp_path / "runs.parquet")
    with pytest.raises(ValidationError) as info:
        getattr(rankframe, call)(path, "AP", engine=engine)
    failure = info.value.failures[0]
    assert failure["column"] == "system" and failure["rule"] == NULL_SYSTEMS and failure["count"] == 2, str(info.value)
    assert len(failure["examples"]) == 2


def test_nan_system_in_a_parquet_file_on_the_cli(tmp_path, capsys):
    from rankframe.cli import main

    path = _nan_system_parquet(tmp_path / "runs.parquet")
    code = main(["compare", path, "-m", "AP"])
    err = capsys.readouterr().err
    assert code == 2 and "column 'system'" in err and NULL_SYSTEMS in err and "internal error" not in err, err


@pytest.mark.spark  # one JVM per run (tests/tiers.py)
@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_compare_nan_system(tmp_path):
    pytest.importorskip("pyspark")
    from sparkutil import session

    import rankframe.spark as rs

    path = _nan_system_parquet(tmp_path / "runs.parquet")  # Spark reads the NaN as NaN, not null
    with pytest.raises(ValidationError) as info:
        rs.compare(session().read.parquet(path), "AP")
    failure = info.value.failures[0]
    assert failure["column"] == "system" and failure["rule"] == NULL_SYSTEMS and failure["count"] == 2
