"""Paths and DuckDB relations go through DuckDB without a pandas copy of the input (issue 10).

The oracle is the pandas engine on the same rows read with pandas: ``evaluate(path)`` must give the same frame
(ids, dtypes, order) with values equal to 1e-12, and a broken table the same failures (column and rule) as
the pandas path's validation.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.core.errors import ParameterError, ValidationError

METRICS = ["AP@10", "nDCG@5", "P@3", "R@100", "RR", "ERR", "nERR@5", "Bpref"]


def _table(seed: int = 0, dense: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for seg in ("a", "b"):
        for q in range(6):
            n = int(rng.integers(1, 9))
            ranks = np.arange(1, n + 1, dtype=float) if dense else rng.permutation(n) * 2.0 + 3
            for i in range(n):
                rows.append((seg, q, f"d{i}", ranks[i], rng.choice([np.nan, 0, 1, 2, 3])))
            rows.append((seg, q, "unretrieved", np.nan, 2.0))  # judged but not retrieved
    df = pd.DataFrame(rows, columns=["seg", "qid", "doc", "pos", "grade"])
    df.loc[(df["seg"] == "b") & (df["qid"] == 5), "grade"] = np.nan  # a query without judgments: skipped
    return df


COLS = {"query": "qid", "item": "doc", "rank": "pos", "relevance": "grade"}


@pytest.mark.parametrize("dense", [True, False], ids=["ranks 1..n", "ranks with gaps"])
@pytest.mark.parametrize("per_query", [True, False], ids=["per_query", "means"])
def test_parquet_path_equals_the_pandas_engine(tmp_path, dense, per_query):
    df = _table(1, dense)
    path = tmp_path / "runs.parquet"
    df.to_parquet(path)
    kw = dict(by="seg", per_query=per_query, columns=COLS)
    want = rankframe.evaluate(pd.read_parquet(path), METRICS, **kw)
    for source in (path, str(path)):
        got = rankframe.evaluate(source, METRICS, **kw)
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=0, atol=1e-12)


def test_relation_and_csv_equal_the_pandas_engine(tmp_path):
    df = _table(2, dense=False)
    want = rankframe.evaluate(df, METRICS, by="seg", per_query=True, columns=COLS)
    con = duckdb.connect()
    con.register("t", df)
    got = rankframe.evaluate(con.sql("SELECT * FROM t"), METRICS, by="seg", per_query=True, columns=COLS)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=0, atol=1e-12)
    path = tmp_path / "runs.csv"
    df.to_csv(path, index=False)
    from_csv = rankframe.evaluate(path, METRICS, by="seg", per_query=True, columns=COLS)
    # CSV ids are text, as rankframe.io.read_long reads them
    assert from_csv["qid"].tolist() == [str(q) for q in want["qid"]]
    np.testing.assert_allclose(from_csv["value"], want["value"], rtol=0, atol=1e-12)


def _rules(err: ValidationError) -> list[tuple[str, str, int]]:
    return sorted((f["column"], f["rule"], int(f.get("count") or 0)) for f in err.failures)


@pytest.mark.parametrize(
    "breakage",
    ["duplicate item", "duplicate rank", "fractional rank", "rank 0", "null query", "null item", "inf relevance"],
)
def test_a_broken_file_fails_with_the_pandas_paths_rules(tmp_path, breakage):
    df = _table(3, dense=True)
    if breakage == "duplicate item":
        df.loc[1, "doc"] = df.loc[0, "doc"]
    elif breakage == "duplicate rank":
        df.loc[1, "pos"] = df.loc[0, "pos"]
    elif breakage == "fractional rank":
        df.loc[2, "pos"] = 1.5
    elif breakage == "rank 0":
        df.loc[2, "pos"] = 0.0
    elif breakage == "null query":
        df["qid"] = df["qid"].astype("Int64")
        df.loc[0, "qid"] = pd.NA
    elif breakage == "null item":
        df.loc[0, "doc"] = None
    else:
        df.loc[0, "grade"] = np.inf
    path = tmp_path / "bad.parquet"
    df.to_parquet(path)
    with pytest.raises(ValidationError) as pandas_err:
        rankframe.evaluate(pd.read_parquet(path), "AP", by="seg", columns=COLS)
    with pytest.raises(ValidationError) as sql_err:
        rankframe.evaluate(path, "AP", by="seg", columns=COLS)
    assert _rules(sql_err.value) == _rules(pandas_err.value)
    assert "offending row" in str(sql_err.value)


def test_missing_column_has_the_pandas_message(tmp_path):
    path = tmp_path / "runs.parquet"
    _table().to_parquet(path)
    with pytest.raises(ValidationError) as sql_err:
        rankframe.evaluate(path, "AP", columns={**COLS, "relevance": "grades"})
    with pytest.raises(ValidationError) as pandas_err:
        rankframe.evaluate(pd.read_parquet(path), "AP", columns={**COLS, "relevance": "grades"})
    assert str(sql_err.value) == str(pandas_err.value)
    assert "did you mean 'grade'" in str(sql_err.value)


def test_duckdb_settings_are_checked_and_a_low_limit_still_works(tmp_path):
    path = tmp_path / "runs.parquet"
    _table().to_parquet(path)
    want = rankframe.evaluate(path, "AP", by="seg", columns=COLS)
    spill = tmp_path / "spill"
    spill.mkdir()
    low = {"memory_limit": "64MB", "threads": 1, "temp_directory": str(spill)}
    pd.testing.assert_frame_equal(rankframe.evaluate(path, "AP", by="seg", columns=COLS, duckdb_config=low), want)
    with pytest.raises(ParameterError, match="memory_limit"):
        rankframe.evaluate(path, "AP", columns=COLS, duckdb_config={"memory_limit": "lots"})
    with pytest.raises(ParameterError, match="duckdb_config"):
        rankframe.evaluate(path, "AP", columns=COLS, duckdb_config={"memory": "1GB"})
    with pytest.raises(ParameterError, match="threads"):
        rankframe.evaluate(path, "AP", columns=COLS, duckdb_config={"threads": 0})
    with pytest.raises(ParameterError, match="duckdb_config"):
        rankframe.evaluate(pd.read_parquet(path), "AP", columns=COLS, duckdb_config={"threads": 1})
    with pytest.raises(rankframe.RankframeError, match="file not found"):
        rankframe.evaluate(tmp_path / "nope.parquet", "AP")


@pytest.mark.parametrize("order", ["rank", "score"])
def test_allow_duplicates_and_scores_equal_the_pandas_engine(tmp_path, order):
    # a repeated item kept as its own entry (allow_duplicates); before: a DuckDB binder error in the rule scan
    df = pd.DataFrame({"query": [1, 1, 1, 2], "item": ["a", "a", "b", "c"], "relevance": [1, 0, 1, 1]})
    df[order] = [1, 2, 3, 1] if order == "rank" else [0.9, 0.5, 0.7, 0.1]
    path = tmp_path / "dups.parquet"
    df.to_parquet(path)
    got = rankframe.evaluate(path, ["AP", "P@1", "Bpref"], per_query=True, allow_duplicates=True)
    want = rankframe.evaluate(df, ["AP", "P@1", "Bpref"], per_query=True, allow_duplicates=True)
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=0, atol=1e-12)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    from rankframe.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra", [[], ["--no-validate"], ["--memory-limit", "100MB", "--threads", "1"]])
def test_cli_reads_a_parquet_table_in_duckdb_with_the_pandas_engines_values(tmp_path, capsys, extra):
    path = tmp_path / "runs.parquet"
    _table(4, dense=False).to_parquet(path)
    args = ["evaluate", str(path), "-m", "AP", "-m", "nERR@5", "--by", "seg", "--format", "csv"]
    args += ["--query", "qid", "--item", "doc", "--rank", "pos", "--relevance", "grade"]
    code, out, err = _cli(capsys, *args, *extra)
    assert code == 0 and err == ""
    code, want, _ = _cli(capsys, *args, "--engine", "pandas")
    got_rows = [line.split(",") for line in out.splitlines()]
    want_rows = [line.split(",") for line in want.splitlines()]
    assert [r[:2] + r[3:] for r in got_rows] == [r[:2] + r[3:] for r in want_rows]  # all but the value
    np.testing.assert_allclose(
        [float(r[2]) for r in got_rows[1:]], [float(r[2]) for r in want_rows[1:]], rtol=0, atol=1e-12
    )


def test_cli_duckdb_options_fail_cleanly(tmp_path, capsys):
    path = tmp_path / "runs.parquet"
    _table().to_parquet(path)
    cols = ["--query", "qid", "--item", "doc", "--rank", "pos", "--relevance", "grade", "--by", "seg"]
    code, _, err = _cli(capsys, "evaluate", str(path), "-m", "AP", *cols, "--memory-limit", "lots")
    assert code == 2 and err.count("\n") == 1 and "--memory-limit must be a size" in err
    (tmp_path / "afile").write_text("x")
    code, _, err = _cli(capsys, "evaluate", str(path), "-m", "AP", *cols, "--temp-directory", str(tmp_path / "afile"))
    assert code == 2 and "is a file, not a directory" in err
    code, _, err = _cli(capsys, "evaluate", str(path), "-m", "AP", *cols, "--engine", "pandas", "--threads", "1")
    assert code == 2 and "read in DuckDB" in err
    code, _, err = _cli(capsys, "evaluate", str(path), "-m", "AP", *cols[:-2])  # (seg, qid) repeats items per qid
    assert code == 2 and "doc must be unique within each (qid)" in err


# ---------------------------------------------------------------------------------------- compare on a source
PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


@pytest.mark.parametrize(
    "kw",
    [dict(by="length"), dict(test="wilcoxon", baseline="dense"), dict(pairs="all"), dict(missing="zero")],
    ids=["t by segment", "wilcoxon", "tukey", "missing zero"],
)
def test_compare_on_a_path_or_relation_equals_compare_on_the_frame(tmp_path, kw):
    # the oracle: compare() on the pandas frame of the same rows (its per-query values from the pandas engine)
    df = pd.read_parquet(PAIRED)
    if kw.get("missing") == "zero":
        df = df[~((df["system"] == "hybrid") & (df["query"] == "q01"))]  # a query one system did not run
        path = tmp_path / "gap.parquet"
        df.to_parquet(path)
    else:
        path = PAIRED
    want = rankframe.compare(df, ["AP", "nDCG@10", "RR"], **kw)
    con = duckdb.connect()
    csv = tmp_path / "paired.csv"
    df.to_csv(csv, index=False)
    sources = [path, con.sql(f"SELECT * FROM '{path}'"), csv] if "by" in kw else [str(path)]
    for source in sources:
        got = rankframe.compare(source, ["AP", "nDCG@10", "RR"], **kw)
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-9, atol=1e-12)
        assert got.attrs == want.attrs


def test_compare_on_a_path_fails_as_on_the_frame(tmp_path):
    df = pd.read_parquet(PAIRED)
    path = tmp_path / "p.parquet"
    df.to_parquet(path)
    cases = [
        dict(metrics="AP", system="sys"),  # no such column (did you mean 'system'?)
        dict(metrics="AP", baseline="bm2"),  # no such system
        dict(metrics="AP", by="system"),  # the system column is not a segment
        dict(metrics="AP", system="query"),  # the query column is not the system
        dict(metrics="AP", by="lenght"),  # misspelled segment
    ]
    for kw in cases:
        with pytest.raises(rankframe.RankframeError) as on_frame:
            rankframe.compare(df, **kw)
        with pytest.raises(rankframe.RankframeError) as on_path:
            rankframe.compare(path, **kw)
        assert type(on_path.value) is type(on_frame.value)
        assert str(on_path.value) == str(on_frame.value)
    # null systems: the same rule and count, with the offending row
    df.loc[3, "system"] = None
    df.to_parquet(path)
    with pytest.raises(ValidationError) as on_path:
        rankframe.compare(path, "AP")
    assert "every row must name its system (no null values) (1 offending row(s))" in str(on_path.value)
    assert "d01-06" in str(on_path.value)
    # one system only, and an empty file: at least 2 systems
    df[df["system"] == "bm25"].to_parquet(path)
    with pytest.raises(ValidationError, match=r"at least 2 systems in column 'system'; found 1: \['bm25'\]"):
        rankframe.compare(path, "AP")
    df.iloc[:0].to_parquet(path)
    with pytest.raises(ValidationError, match="found 0"):
        rankframe.compare(path, "AP")
    # a repeated (system, query, item) row: the table rule names the item column and shows the rows
    twice = pd.concat([pd.read_parquet(PAIRED), pd.read_parquet(PAIRED).head(1)])
    twice.to_parquet(path)
    with pytest.raises(ValidationError, match=r"item must be unique within each \(system, query\)") as err:
        rankframe.compare(path, "AP")
    assert "d01-10" in str(err.value)


@pytest.mark.parametrize(
    "ranks",
    [
        [1, 1, 4, 5, 5, 6, 6, 8],  # 8 ranks in 1..8 with the sum of 1..8 (36): only the hash sums tell
        [1, 3, 3, 4],  # 4 ranks in 1..4, sum 11
        [2, 4, 4, 9],  # gaps: the exact check
        [1, 3e9, 3e9, 2],  # ranks beyond the 32-bit range: the exact check
        [1.0, 2.5, 2.5, 3.0],  # a fractional rank, twice: both rules, as pandas reports them
    ],
    ids=["sum of 1..n", "1..n count", "gaps", "huge", "fractional"],
)
def test_a_repeated_rank_is_found_whatever_the_ranks_look_like(tmp_path, ranks):
    # the oracle: the pandas schema's failures (column, rule, offending rows) on the same rows
    n = len(ranks)
    df = pd.DataFrame({"query": ["q"] * n + ["r"] * 3, "item": [f"d{i}" for i in range(n + 3)]})
    df["rank"] = [float(r) for r in ranks] + [1.0, 2.0, 3.0]
    df["relevance"] = 1
    path = tmp_path / "ranks.parquet"
    df.to_parquet(path)
    with pytest.raises(ValidationError) as pandas_err:
        rankframe.evaluate(df, "AP")
    with pytest.raises(ValidationError) as sql_err:
        rankframe.evaluate(path, "AP")
    assert _rules(sql_err.value) == _rules(pandas_err.value)
    assert ("rank", "rank must be unique within each (query)") in [r[:2] for r in _rules(sql_err.value)]


def test_valid_ranks_1_to_n_take_no_exact_rank_check(tmp_path):
    # the units' GROUP BY proves ranks 1..n without the (unit, rank) hash aggregation, also with judged but
    # unretrieved rows (null ranks) in every unit; before the FILTER on the hash sum, hash(NULL) entered the sum
    # and every unit silently took the slow exact check
    from rankframe.core.columns import Columns
    from rankframe.engines import duckdb_source as ds

    path = tmp_path / "runs.parquet"
    _table(5, dense=True).to_parquet(path)

    class Spy:
        def __init__(self, con):
            self.con, self.sql = con, []

        def execute(self, sql, *args):
            self.sql.append(sql)
            return self.con.execute(sql, *args)

    con = ds._database(ds.Settings())
    try:
        _, rel = ds._open(con, path)
        cols = Columns.coerce(COLS)
        order, types = ds.prepare_view(con, rel, cols, ["seg"], csv=False)
        spy = Spy(con)
        assert ds.validate_source(spy, cols, ["seg"], order, types, allow_duplicates=False, csv=False) is True
    finally:
        con.close()
    assert not [s for s in spy.sql if "rank HAVING" in s]
    assert len(spy.sql) == 2  # the units' GROUP BY and the (unit, item) check
