"""Readers and writers: round trips, string ids, gzip, comments, and every malformed-input error."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.tables.io import (
    InputFileError,
    read_long,
    read_trec,
    read_trec_qrels,
    read_trec_run,
    write_long,
    write_trec_qrels,
    write_trec_run,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

RUN = """\
007 Q0 d1 1 3.5 sysA
007 Q0 d2 2 2.5 sysA
007 Q0 d3 3 2.5 sysA
08 Q0 d1 1 1.0 sysA
"""
QRELS = """\
007 0 d1 1
007 0 d9 2
08 0 d4 0
010 0 d1 1
"""


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, str):
        text = text.encode()
    p.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    return p


# --------------------------------------------------------------------------------------------- reading


def test_run_ids_stay_strings(tmp_path):
    df = read_trec_run(_write(tmp_path, "r.txt", RUN))
    assert list(df.columns) == ["query", "item", "score", "system"]
    assert df["query"].tolist() == ["007", "007", "007", "08"]
    assert df["score"].tolist() == [3.5, 2.5, 2.5, 1.0]
    assert set(df["system"]) == {"sysA"}
    assert pd.api.types.is_string_dtype(df["query"]) and pd.api.types.is_string_dtype(df["item"])


def test_run_with_rank(tmp_path):
    df = read_trec_run(_write(tmp_path, "r.txt", RUN), with_rank=True)
    assert list(df.columns) == ["query", "item", "rank", "score", "system"]
    assert df["rank"].tolist() == [1, 2, 3, 1]


def test_qrels(tmp_path):
    q = read_trec_qrels(_write(tmp_path, "q.txt", QRELS))
    assert list(q.columns) == ["query", "item", "relevance"]
    assert q["query"].tolist() == ["007", "007", "08", "010"]
    assert q["relevance"].tolist() == [1, 2, 0, 1]


@pytest.mark.parametrize("sep", [" ", "\t", "  ", " \t ", "\t\t"])
def test_any_whitespace_separates_fields(tmp_path, sep):
    text = "".join(sep.join(line.split()) + "\n" for line in RUN.splitlines())
    fast = read_trec_run(_write(tmp_path, "a.txt", RUN))
    other = read_trec_run(_write(tmp_path, "b.txt", "  " + text.replace("\n", " \n")))
    pd.testing.assert_frame_equal(fast, other)
    other = read_trec_run(_write(tmp_path, "c.txt", text))
    pd.testing.assert_frame_equal(fast, other)


def test_gzip_is_detected_by_content(tmp_path):
    plain = read_trec_run(_write(tmp_path, "r.txt", RUN))
    pd.testing.assert_frame_equal(plain, read_trec_run(_write(tmp_path, "r.txt.gz", RUN)))
    p = tmp_path / "no_suffix"
    p.write_bytes(gzip.compress(RUN.encode()))
    pd.testing.assert_frame_equal(plain, read_trec_run(p))


def test_comments_blank_lines_and_crlf(tmp_path):
    text = "# header comment\n\n" + RUN.replace("\n", "\r\n") + "   \n  # indented comment\n# a b c d e\n"
    pd.testing.assert_frame_equal(
        read_trec_run(_write(tmp_path, "a.txt", RUN)), read_trec_run(_write(tmp_path, "b.txt", text))
    )
    q = read_trec_qrels(_write(tmp_path, "q.txt", "# c\n" + QRELS + "#\n"))
    assert len(q) == 4


def test_hash_inside_a_docno_is_data(tmp_path):
    q = read_trec_qrels(_write(tmp_path, "q.txt", "301 0 CR#93E-1860 1\n"))
    assert q["item"].tolist() == ["CR#93E-1860"]


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 a 1 2.0 tag more junk\n1 Q0 b 2 1.0 tag\n",
        "1 Q0 a 1 2.0 tag\n1 Q0 b 2 1.0 tag more junk\n",  # the tag comes from the last line: junk there too
        "1\tQ0\ta\t1\t2.0\ttag\tjunk\n1 Q0 b 2 1.0 tag  x y z\n# trailing comment\n",
    ],
)
def test_fields_after_the_tag_are_ignored_as_trec_eval(tmp_path, text):
    # the tag is the 6th field (trec_eval's runid); anything after it is ignored, wherever the junk line is
    df = read_trec_run(_write(tmp_path, "r.txt", text))
    assert df["item"].tolist() == ["a", "b"]
    assert df["system"].tolist() == ["tag", "tag"]


def test_system_is_the_last_lines_tag_and_file_name_on_collision(tmp_path):
    a = _write(tmp_path, "a.run", RUN)
    b = _write(tmp_path, "b.run", RUN.replace("sysA", "sysB"))
    assert set(read_trec_run([a, b])["system"]) == {"sysA", "sysB"}
    c = _write(tmp_path, "c.run", RUN)
    assert set(read_trec_run([a, c])["system"]) == {"a.run", "c.run"}


def test_read_trec_long_table(tmp_path):
    run = _write(tmp_path, "r.txt", RUN)
    df = read_trec([run, _write(tmp_path, "r2.txt", RUN.replace("sysA", "sysB"))], _write(tmp_path, "q.txt", QRELS))
    assert "rank" not in df.columns  # rankframe then orders by score, ties by docno descending: trec_eval
    a = df[df["system"] == "sysA"].sort_values(["query", "item"]).reset_index(drop=True)
    got = {(r.query, r.item): (r.score, r.relevance) for r in a.itertuples()}
    nan = np.nan
    want = {
        ("007", "d1"): (3.5, 1.0),
        ("007", "d2"): (2.5, nan),
        ("007", "d3"): (2.5, nan),
        ("08", "d1"): (1.0, nan),
        ("007", "d9"): (nan, 2.0),
        ("08", "d4"): (nan, 0.0),
        ("010", "d1"): (nan, 1.0),
    }
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=str(key))  # NaN == NaN here
    # judged-not-retrieved rows exist for every system
    assert len(df[df["system"] == "sysB"]) == len(a)


def test_read_trec_evaluates_like_trec_eval_order(tmp_path):
    # d2 and d3 tie on score: trec_eval puts d3 (docno descending) first
    run = _write(tmp_path, "r.txt", "1 Q0 d2 1 1.0 t\n1 Q0 d3 2 1.0 t\n")
    qrels = _write(tmp_path, "q.txt", "1 0 d3 1\n")
    df = read_trec(run, qrels)
    res = rankframe.evaluate(df, ["RR"], by=["system"])
    assert res["value"].tolist() == [1.0]


def test_long_csv_keeps_ids_as_strings(tmp_path):
    p = _write(tmp_path, "t.csv", "user,query,item,rank,relevance,segment\nx,007,0042,1,2,01\nx,007,0043,,1,01\n")
    df = read_long(p)
    assert df["query"].tolist() == ["007", "007"]
    assert df["item"].tolist() == ["0042", "0043"]
    assert df["segment"].tolist() == ["01", "01"]
    assert df["rank"].iloc[0] == 1 and np.isnan(df["rank"].iloc[1])
    p = _write(tmp_path, "u.csv", "user_id,movie,position,rating\n007,01,1,2\n007,02,,1\n")
    df = read_long(p, columns=rankframe.Columns(query="user_id", item="movie", rank="position", relevance="rating"))
    assert df["user_id"].tolist() == ["007", "007"] and df["movie"].tolist() == ["01", "02"]
    assert df["position"].iloc[0] == 1 and df["rating"].tolist() == [2, 1]
    position = read_long(p)["position"]  # not named: read as text (an empty cell is null)
    assert position.iloc[0] == "1" and position.isna().iloc[1]


def test_long_round_trips(tmp_path):
    df = pd.DataFrame(
        {
            "query": ["007", "007", "8"],
            "item": ["01", "2", "01"],
            "rank": [1.0, np.nan, 1.0],
            "relevance": [2.0, 1.0, np.nan],
            "country": ["de", "de", "fr"],
        }
    )
    for name in ("t.parquet", "t.csv", "t.csv.gz", "t.tsv"):
        write_long(df, tmp_path / name)
        back = read_long(tmp_path / name)
        pd.testing.assert_frame_equal(back, df, check_dtype=False)
        assert back["query"].tolist() == ["007", "007", "8"]


def test_trec_round_trip(tmp_path):
    df = read_trec(_write(tmp_path, "r.txt", RUN), _write(tmp_path, "q.txt", QRELS))
    write_trec_run(df, tmp_path / "out.run")
    write_trec_qrels(df, tmp_path / "out.qrels")
    back = read_trec(tmp_path / "out.run", tmp_path / "out.qrels")
    key = ["system", "query", "item"]
    pd.testing.assert_frame_equal(
        back.sort_values(key).reset_index(drop=True), df.sort_values(key).reset_index(drop=True)
    )
    lines = (tmp_path / "out.run").read_text().splitlines()
    assert lines[0] == "007 Q0 d1 1 3.5 sysA"
    assert lines[1] == "007 Q0 d3 2 2.5 sysA"  # tie: docno descending, as trec_eval
    m = ["AP", "nDCG", "P@2"]
    pd.testing.assert_frame_equal(rankframe.evaluate(back, m, by="system"), rankframe.evaluate(df, m, by="system"))


def test_write_run_from_ranks_only(tmp_path):
    df = pd.DataFrame({"query": ["1", "1", "1"], "item": ["a", "b", "c"], "rank": [2, 1, np.nan]})
    write_trec_run(df, tmp_path / "r.run", tag="mine")
    assert (tmp_path / "r.run").read_text().splitlines() == ["1 Q0 b 1 2 mine", "1 Q0 a 2 1 mine"]
    back = read_trec_run(tmp_path / "r.run")
    assert back["item"].tolist() == ["b", "a"]


def test_example_files_read():
    df = read_trec([EXAMPLES / "tiny.run", EXAMPLES / "tiny-b.run"], EXAMPLES / "tiny.qrels")
    assert set(df["system"]) == {"tiny", "tiny-b"}
    assert "001" in set(df["query"])
    recs = read_long(EXAMPLES / "recs.parquet")
    assert {"query", "item", "rank", "relevance", "country", "device", "model"} <= set(recs.columns)
    rankframe.validate(recs)


# --------------------------------------------------------------------------------------------- errors


def _error(fn, *args, **kw) -> InputFileError:
    with pytest.raises(InputFileError) as info:
        fn(*args, **kw)
    msg = str(info.value)
    assert "\n" not in msg
    return info.value


def test_missing_file(tmp_path):
    e = _error(read_trec_run, tmp_path / "nope.run")
    assert "nope.run" in str(e) and "file not found" in str(e)
    assert isinstance(e, rankframe.RankframeError)
    e = _error(read_long, tmp_path / "nope.parquet")
    assert "file not found" in str(e)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_empty_file(tmp_path, text):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", text))
    assert "r.txt" in str(e) and "empty file" in str(e)
    e = _error(read_trec_qrels, _write(tmp_path, "q.txt", text))
    assert "empty file" in str(e)


def test_truncated_line(tmp_path):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", RUN + "08 Q0 d2 2\n"))
    assert e.line == 5 and e.text == "08 Q0 d2 2"
    assert str(e) == (
        "{}, line 5: expected at least 6 whitespace-separated fields (qid Q0 docno rank score "
        "tag), found 4: '08 Q0 d2 2'"
    ).format(tmp_path / "r.txt")


def test_line_numbers_count_comments_and_blank_lines(tmp_path):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", "# c\n\n" + RUN + "\n# x\n08 Q0\n"))
    assert e.line == 9 and e.text == "08 Q0"


def test_qrels_wrong_column_count(tmp_path):
    e = _error(read_trec_qrels, _write(tmp_path, "q.txt", QRELS + "1 0 d1 1 extra\n"))
    assert e.line == 5 and "expected 4 whitespace-separated fields" in str(e) and "found 5" in str(e)


def test_non_numeric_score(tmp_path):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", RUN + "08 Q0 d2 2 high sysA\n"))
    assert e.line == 5 and "score is not a number: 'high'" in str(e) and e.text == "08 Q0 d2 2 high sysA"


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan"])
def test_nan_score(tmp_path, value):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", RUN + f"08 Q0 d2 2 {value} sysA\n"))
    assert e.line == 5 and f"score is not a number: {value!r}" in str(e)


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "1e400", "-1e400"])
@pytest.mark.parametrize("sep", [" ", "\t "])  # single spaces take the fast path, the rest the general path
def test_infinite_score_is_rejected_with_its_line(tmp_path, value, sep):
    line = sep.join(["08", "Q0", "d2", "2", value, "sysA"])
    e = _error(read_trec_run, _write(tmp_path, "r.txt", RUN + line + "\n"))
    assert e.line == 5 and e.text == line
    assert f"score is not a finite number: {value!r}" in str(e)


@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "2.5"])
def test_non_integer_rank_is_rejected_with_rank(tmp_path, value):
    p = _write(tmp_path, "r.txt", RUN + f"08 Q0 d2 {value} 0.5 sysA\n")
    e = _error(read_trec_run, p, with_rank=True)
    assert e.line == 5 and f"rank is not an integer: {value!r}" in str(e)


def test_non_integer_relevance(tmp_path):
    e = _error(read_trec_qrels, _write(tmp_path, "q.txt", QRELS + "1 0 d1 1.5\n"))
    assert e.line == 5 and "relevance is not an integer: '1.5'" in str(e)


def test_non_integer_rank_only_with_rank(tmp_path):
    p = _write(tmp_path, "r.txt", RUN + "08 Q0 d2 two 0.5 sysA\n")
    assert len(read_trec_run(p)) == 5  # trec_eval ignores the rank field
    e = _error(read_trec_run, p, with_rank=True)
    assert e.line == 5 and "rank is not an integer" in str(e)


def test_duplicate_docno(tmp_path):
    p = _write(tmp_path, "r.txt", RUN + "007 Q0 d2 9 0.1 sysA\n")
    e = _error(read_trec_run, p)
    assert e.line == 5 and "duplicate docno 'd2' for query '007' (first on line 2)" in str(e)
    assert e.text == "007 Q0 d2 9 0.1 sysA"
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        df = read_trec_run(p, keep_first_duplicate=True)
    assert len(df) == 4
    assert df.loc[df["item"] == "d2", "score"].tolist() == [2.5]  # the first line wins
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(read_trec_run(_write(tmp_path, "ok.txt", RUN))) == 4


def test_keep_first_duplicate_with_several_runs(tmp_path):
    """The documented fix for a duplicate docno must work when a duplicate is actually dropped."""
    dup = _write(tmp_path, "dup.txt", RUN + "007 Q0 d2 9 0.1 sysA\n")  # line 5 repeats line 2's docno
    other = _write(tmp_path, "other.txt", RUN.replace("sysA", "sysB"))
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        df = read_trec_run([dup, other], keep_first_duplicate=True)
    # 4 lines kept from dup.txt (its line 5 dropped) + the 4 of other.txt
    assert len(df) == 8
    assert df.loc[(df["system"] == "sysA") & (df["item"] == "d2"), "score"].tolist() == [2.5]
    assert all(pd.api.types.is_string_dtype(df[c]) for c in ("query", "item", "system"))
    assert df["score"].dtype == np.float64
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        df = read_trec_run([other, dup], keep_first_duplicate=True, with_rank=True)
    assert df.loc[(df["system"] == "sysA") & (df["item"] == "d2"), "rank"].tolist() == [2]
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        df = read_trec([dup, other], _write(tmp_path, "q.txt", QRELS), keep_first_duplicate=True)
    # per system: 4 retrieved rows + 3 judged-not-retrieved (007/d9, 08/d4, 010/d1)
    assert df.groupby("system").size().to_dict() == {"sysA": 7, "sysB": 7}
    with pytest.warns(UserWarning, match="dropped 1 duplicate"):
        df = read_trec(dup, _write(tmp_path, "q.txt", QRELS), keep_first_duplicate=True)
    assert len(df) == 7 and df.loc[df["item"] == "d2", "score"].tolist() == [2.5]


def test_the_same_run_file_twice_is_an_error(tmp_path):
    a = _write(tmp_path, "a.txt", RUN)
    for read in (lambda: read_trec_run([a, a]), lambda: read_trec([a, a], _write(tmp_path, "q.txt", QRELS))):
        e = _error(read)
        assert str(e) == f"{a}: the same run file is given twice"


def test_same_docno_in_two_runs_is_fine(tmp_path):
    a = _write(tmp_path, "a.txt", RUN)
    b = _write(tmp_path, "b.txt", RUN.replace("sysA", "sysB"))
    assert len(read_trec_run([a, b])) == 8


def test_duplicate_judgment(tmp_path):
    e = _error(read_trec_qrels, _write(tmp_path, "q.txt", QRELS + "08 0 d4 1\n"))
    assert e.line == 5 and "duplicate judgment of docno 'd4' for query '08' (first on line 3)" in str(e)


def test_error_shows_a_truncated_long_line(tmp_path):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", "1 Q0 " + "x" * 500 + "\n"))
    assert len(str(e)) < 400 and str(e).endswith("...'")


def test_invalid_utf8(tmp_path):
    e = _error(read_trec_run, _write(tmp_path, "r.txt", RUN.encode() + b"1 Q0 \xff\xfe 1 1.0 t\n"))
    assert e.line == 5 and "UTF-8" in str(e)


def test_corrupt_gzip(tmp_path):
    p = tmp_path / "r.gz"
    p.write_bytes(gzip.compress(RUN.encode())[:20])
    e = _error(read_trec_run, p)
    assert "gzip" in str(e)


def _garbage(n: int = 4000, *, nul: bool = True) -> bytes:
    data = np.random.default_rng(7).integers(0, 256, n, dtype=np.uint8).tobytes()
    return data if nul else data.replace(b"\x00", b"")


BIG_RUN = "".join(f"{q} Q0 doc{d} {d + 1} {100 - d}.5 sysA\n" for q in range(1, 40) for d in range(60))

GARBAGE = {
    # name: (file name, bytes, the line the error must name)
    "random bytes": ("g.txt", _garbage(), None),
    "random bytes, no NUL": ("g.txt", _garbage(nul=False), None),
    "gzipped random bytes": ("g.gz", gzip.compress(_garbage()), None),
    "NUL bytes": ("g.txt", b"\x00" * 50, 1),
    "NUL in a docno (fast-path layout)": ("g.txt", RUN.replace("d3", "d\x003").encode(), 3),
    "truncated gzip": ("g.gz", gzip.compress(BIG_RUN.encode())[:4000], None),
}


@pytest.mark.parametrize("reader", ["run", "qrels", "read_trec run", "read_trec qrels"])
@pytest.mark.parametrize("case", sorted(GARBAGE))
def test_binary_garbage_is_a_line_numbered_error(tmp_path, case, reader):
    name, data, line = GARBAGE[case]
    bad = tmp_path / name
    bad.write_bytes(data)
    calls = {
        "run": lambda: read_trec_run(bad),
        "qrels": lambda: read_trec_qrels(bad),
        "read_trec run": lambda: read_trec(bad, _write(tmp_path, "q.txt", QRELS)),
        "read_trec qrels": lambda: read_trec(_write(tmp_path, "r.txt", RUN), bad),
    }
    e = _error(calls[reader])
    assert e.path == str(bad) and str(e).startswith(f"{bad}, line {e.line}: ")
    assert isinstance(e.line, int) and e.line >= 1
    if line is not None:
        assert e.line == line


def test_truncated_gzip_names_the_line_where_the_text_stops(tmp_path):
    bad = tmp_path / "r.gz"
    bad.write_bytes(gzip.compress(BIG_RUN.encode())[:4000])
    e = _error(read_trec_run, bad)
    assert "truncated" in str(e) and "gzip" in str(e)
    # every line before the reported one came through whole, the reported one is cut
    lines = BIG_RUN.splitlines()
    assert 1 < e.line <= len(lines)
    assert lines[e.line - 1].startswith(e.text) and e.text != lines[e.line - 1]


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("g.parquet", _garbage(), "not a readable Parquet file"),
        ("PAR1-but-garbage.bin", b"PAR1" + _garbage(), "not a readable Parquet file"),
        ("e.parquet", b"", "empty file"),
        ("e.csv", b"", "empty file"),
        ("e.csv.gz", gzip.compress(b""), "empty file"),
        ("g.csv", _garbage(), "line "),
        ("g.csv", _garbage(nul=False), "line "),
        ("g.csv.gz", gzip.compress(_garbage()), "line "),
    ],
    ids=["parquet", "PAR1 magic", "empty parquet", "empty csv", "empty csv.gz", "csv", "csv no NUL", "csv.gz"],
)
def test_garbage_long_tables(tmp_path, name, data, problem):
    bad = tmp_path / name
    bad.write_bytes(data)
    e = _error(read_long, bad)
    assert str(e).startswith(str(bad)) and problem in str(e)


def test_parquet_without_rows(tmp_path):
    write_long(
        pd.DataFrame(
            {"query": pd.Series([], dtype=str), "item": pd.Series([], dtype=str), "rank": pd.Series([], dtype=float)}
        ),
        tmp_path / "e.parquet",
    )
    # a table without rows, as a DataFrame without rows: the empty answer on every road (docs/inputs.md)
    got = read_long(tmp_path / "e.parquet")
    assert got.columns.tolist() == ["query", "item", "rank"] and len(got) == 0


CSV_HEAD = "query,item,rank,score,relevance\n"
CSV_OK = "1,a,1,0.5,1\n1,b,2,0.25,0\n"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("1,c,3", "expected 5 columns, found 3"),
        ("1,c,3,0.1,1,9", "expected 5 columns, found 6"),
        ("1,c,three,0.1,1", "rank is not a number: 'three'"),
        ("1,c,3,0.1,high", "relevance is not a number: 'high'"),
        ("1,c,3,abc,1", "score is not a number: 'abc'"),
        ("1,c,3,nan,1", "score is not a number: 'nan'"),
        ("1,c,3,NA,1", "score is not a number: 'NA'"),
        ("1,c,3,inf,1", "score is not a finite number: 'inf'"),
        ("1,c,3,-inf,1", "score is not a finite number: '-inf'"),
        ("1,c,3,1e400,1", "score is not a finite number: '1e400'"),
        ("1,c,inf,0.1,1", "rank is not a finite number: 'inf'"),
        ("1,c,1e400,0.1,1", "rank is not a finite number: '1e400'"),
        ("1,c,nan,0.1,1", "rank is not a number: 'nan'"),
        ("1,c,3,0.1,inf", "relevance is not a finite number: 'inf'"),
    ],
)
@pytest.mark.parametrize("blank_lines", [False, True])
def test_csv_errors_name_file_and_line(tmp_path, row, problem, blank_lines):
    gap = "\n\n" if blank_lines else ""  # pyarrow skips blank lines: line numbers must still be the file's
    text = CSV_HEAD + gap + CSV_OK + gap + row + "\n" + CSV_OK
    p = _write(tmp_path, "t.csv", text)
    e = _error(read_long, p)
    want_line = text.splitlines().index(row) + 1
    assert (e.line, e.text) == (want_line, row)
    assert str(e).startswith(f"{p}, line {want_line}: {problem}")


def test_csv_error_line_in_a_large_file(tmp_path):
    rows = [f"q{i // 10},d{i},{i % 10 + 1},0.5,1" for i in range(20_000)]
    rows[15_321] = "q1,dx,1,0.5,seven"
    p = _write(tmp_path, "t.csv.gz", CSV_HEAD + "\n".join(rows) + "\n")
    e = _error(read_long, p)
    assert e.line == 15_323 and e.text == "q1,dx,1,0.5,seven"  # header is line 1


def test_csv_empty_cells_are_nulls_and_numbers_keep_their_kind(tmp_path):
    p = _write(tmp_path, "t.csv", "query,item,rank,score,relevance\n1,a,1,,2\n1,b,,0.5,\n1,c, 3 ,1e3,-1\n")
    df = read_long(p)
    assert df["rank"].tolist()[0] == 1.0 and np.isnan(df["rank"].iloc[1]) and df["rank"].iloc[2] == 3.0
    assert np.isnan(df["score"].iloc[0]) and df["score"].tolist()[1:] == [0.5, 1000.0]
    assert df["relevance"].iloc[0] == 2 and np.isnan(df["relevance"].iloc[1]) and df["relevance"].iloc[2] == -1
    p = _write(tmp_path, "u.csv", "query,item,rank,relevance\n1,a,1,2\n1,b,2,0\n")
    df = read_long(p)
    assert str(df["rank"].dtype) == "int64" and str(df["relevance"].dtype) == "int64"


@pytest.mark.parametrize(
    ("header", "names"),
    [
        ("\ufeffquery,item,rank,relevance", ["query", "item", "rank", "relevance"]),  # UTF-8 byte-order mark
        ('"query","item","rank","relevance"', ["query", "item", "rank", "relevance"]),
        ("query , item,rank,relevance", ["query ", " item", "rank", "relevance"]),  # names as written
        ('"query,id",item,rank,relevance', ["query,id", "item", "rank", "relevance"]),
    ],
)
def test_csv_header_spellings_keep_ids_as_text(tmp_path, header, names):
    p = _write(tmp_path, "t.csv", header + "\n007,0042,1,2\n")
    df = read_long(p)
    assert df.columns.tolist() == names
    assert df[names[0]].tolist() == ["007"] and df[names[1]].tolist() == ["0042"]  # never 7 and 42
    assert df["rank"].tolist() == [1] and df["relevance"].tolist() == [2]


def test_csv_duplicate_header_names(tmp_path):
    # the rule of every input road (docs/inputs.md): a ValidationError naming the column, as for a DataFrame
    with pytest.raises(rankframe.ValidationError, match="column names must be unique: 'rank' appears 2 times"):
        read_long(_write(tmp_path, "t.csv", "query,item,rank,rank\n1,a,1,1\n"))


# ------------------------------------------------------------------------------------- both parsers agree

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _shared_files() -> list[Path]:
    files = [
        *sorted((SHARED / "trectools_robust03" / "runs").glob("input.*.gz")),
        SHARED / "trectools_robust03" / "robust03_qrels.txt.gz",
        *(
            SHARED / "trec_eval" / "test" / n
            for n in ("results.test", "results.trunc", "qrels.test", "qrels.test.with-comments", "results-302.test")
        ),
    ]
    return [f for f in files if f.exists()]


def test_fast_and_general_parsers_agree_on_real_files():
    import pyarrow as pa

    from rankframe.tables.io import _files, _whitespace, trec

    files = _shared_files()
    if not files:
        pytest.skip(f"SHARED DATA MISSING under {SHARED}")
    fast_used = 0
    for f in files:
        data = _files._read_bytes(f)
        is_run = "qrels" not in f.name
        fields = trec.RUN_FIELDS if is_run else trec.QRELS_FIELDS
        text = _files._STR
        keep = {0: text, 2: text, 4: pa.float64()} if is_run else {0: text, 2: text, 3: pa.int64()}
        general, _ = _whitespace._robust_parse(data, f, fields, keep, "run" if is_run else "qrels")
        fast = _whitespace._fast_parse(data, len(fields), keep)
        if fast is not None:
            fast_used += 1
            assert fast.rename_columns(general.column_names).equals(general), f.name
    assert fast_used >= 5  # the single-space files (robust03) take the fast path


@pytest.mark.parametrize(
    ("text", "items", "fast"),
    [
        ("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t extra\n", ["a", "b"], False),  # extra field: general path, ignored
        ("1 Q0 a 1 2.0 t\n# 1 Q0 b 2 1.0\n", ["a"], False),  # comment with six words
        ("1 Q0 a 1 2.0 t\n1 Q0 b\x0b 2 1.0 t\n", ["a", "b"], False),  # vertical tab is whitespace (C isspace)
        ("1\tQ0\ta\t1\t2.0\tt\n1\tQ0\tb\t2\t1.0\tt\n", ["a", "b"], True),  # one tab: the fast path
        ("1\tQ0\ta\t1\t2.0\tt\n1 Q0 b 2 1.0 t\n", ["a", "b"], False),  # tabs and spaces mixed
    ],
)
def test_layouts_and_the_path_they_take(tmp_path, text, items, fast):
    import pyarrow as pa

    from rankframe.tables.io import _files, _whitespace

    taken = _whitespace._fast_parse(text.encode(), 6, {0: _files._STR, 2: _files._STR, 4: pa.float64()})
    assert (taken is not None) == fast
    df = read_trec_run(_write(tmp_path, "r.txt", text))
    assert df["item"].tolist() == items
    assert df["score"].tolist() == [2.0, 1.0][: len(items)]
    assert df["system"].tolist() == ["t"] * len(items)


@pytest.mark.parametrize(("value", "n"), [("sysA", 3), ("héllo", 2), ("x", 0), ("", 2)])
def test_constant_column(value, n):
    from rankframe.tables.io.trec import _constant

    col = _constant(value, n)
    col.validate(full=True)
    assert col.to_pylist() == [value] * n


def test_many_blocks_keep_line_numbers_and_first_error(tmp_path, monkeypatch):
    """The general path parses blocks of lines in parallel: line numbers and the first error survive."""
    from rankframe.tables.io import _whitespace

    monkeypatch.setattr(_whitespace, "_BLOCK", 1 << 10)  # ~40 lines a block
    lines = [f"q{i // 50}\tQ0  d{i}  {i % 50 + 1}  {1000 - i}.5 tag" for i in range(2000)]
    lines[1200] = "# a comment"
    lines[1500] = ""
    good = "\n".join(lines) + "\n"
    df = read_trec_run(_write(tmp_path, "ok.txt", good))
    assert len(df) == 1998 and df["item"].iloc[-1] == "d1999" and df["score"].iloc[0] == 1000.5
    bad = lines.copy()
    bad[1700] = "q1 Q0 dX 1 oops tag"
    bad[1900] = "q1 Q0"
    e = _error(read_trec_run, _write(tmp_path, "bad.txt", "\n".join(bad) + "\n"))
    assert e.line == 1701 and "score is not a number: 'oops'" in str(e)


# ---------------------------------------------------------------------------------- long cells, pipes


def test_a_csv_cell_longer_than_pythons_csv_limit(tmp_path):
    # Python's csv module caps a cell at 131,072 characters (csv.field_size_limit); the header and the error
    # path read lines with it: a longer cell escaped as a bare _csv.Error
    import csv

    big = "x" * 200_000
    ok = tmp_path / "long.csv"
    ok.write_text(f"query,item,rank,relevance,{big}\n1,{big},1,1,z\n1,b,2,0,\n")
    df = read_long(ok)
    assert list(df.columns) == ["query", "item", "rank", "relevance", big]
    assert df["item"].tolist() == [big, "b"] and df["rank"].tolist() == [1, 2]
    bad = tmp_path / "short_row.csv"
    bad.write_text(f"query,item,rank,relevance\n1,{big},1,1\n1,b,2\n")
    with pytest.raises(InputFileError, match=r"short_row\.csv, line 3: expected 4 columns, found 3: '1,b,2'"):
        read_long(bad)
    assert csv.field_size_limit() == 131_072  # the process's setting is put back


def test_read_long_and_a_run_through_a_pipe(tmp_path):
    # a pipe gives its bytes once: the format sniffing (the first 4 bytes) and the read share one read
    import os
    import threading

    def through_a_pipe(data: bytes, read):
        r, w = os.pipe()
        t = threading.Thread(target=lambda: os.fdopen(w, "wb").write(data), daemon=True)
        t.start()
        try:
            return read(f"/dev/fd/{r}")
        finally:
            t.join(10)
            os.close(r)

    csv_text = b"query,item,rank,relevance\n007,a,1,1\n007,b,2,\n"
    df = through_a_pipe(csv_text, read_long)
    assert df["query"].tolist() == ["007", "007"] and df["rank"].tolist() == [1, 2]
    assert df["relevance"].iloc[0] == 1 and pd.isna(df["relevance"].iloc[1])
    path = tmp_path / "t.parquet"
    pd.DataFrame({"query": [1], "item": ["a"], "rank": [1], "relevance": [1]}).to_parquet(path)
    assert through_a_pipe(path.read_bytes(), read_long)["item"].tolist() == ["a"]
    run = through_a_pipe(b"1 Q0 d1 1 2.5 t\n1 Q0 d2 2 1.5 t\n", read_trec_run)
    assert run["item"].tolist() == ["d1", "d2"]


# ---------------------------------------------------------------------------------- the one file-kind rule

# (file name, what the file holds, the kind: "parquet", "csv" or None for a TREC file) — case is ignored, a
# Parquet content wins over a CSV name, .tsv is tab-separated, .gz is gunzipped
FILE_KINDS = [
    ("t.parquet", "parquet", "parquet"),
    ("t.PQ", "parquet", "parquet"),
    ("t.parq", "parquet", "parquet"),
    ("t.csv", "csv", "csv"),
    ("t.TSV", "tsv", "csv"),
    ("t.csv.gz", "csv", "csv"),
    ("t.tsv.GZ", "tsv", "csv"),
    ("t.csv", "parquet", "parquet"),
    ("export.bin", "parquet", "parquet"),
    ("t.run", "trec", None),
    ("t.run.gz", "trec", None),
]


def _kind_file(tmp_path: Path, name: str, content: str) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"query": ["q1", "q1"], "item": ["a", "b"], "rank": [1, 2], "relevance": [1, 0]})
    path = tmp_path / name
    if content == "parquet":
        pq.write_table(table, path)
        return path
    text = {
        "csv": "query,item,rank,relevance\nq1,a,1,1\nq1,b,2,0\n",
        "tsv": "query\titem\trank\trelevance\nq1\ta\t1\t1\nq1\tb\t2\t0\n",
        "trec": "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n",
    }[content]
    path.write_bytes(gzip.compress(text.encode()) if name.lower().endswith(".gz") else text.encode())
    return path


@pytest.mark.parametrize(("name", "content", "kind"), FILE_KINDS)
def test_one_file_kind_rule_for_io_cli_and_duckdb(tmp_path, name, content, kind):
    """rankframe.io, the command line and the DuckDB file road tell a file's kind by the same rule."""
    import argparse

    from rankframe.cli._load import _sql_road, is_long
    from rankframe.engines import duckdb_source
    from rankframe.tables.io import file_kind, suffix_kind

    path = _kind_file(tmp_path, name, content)
    assert file_kind(path) == kind
    # the command line: a long table or a TREC run; one Parquet table (by its name) goes to DuckDB
    assert is_long(str(path)) == (kind is not None)
    args = argparse.Namespace(inputs=[str(path)], qrels=None, engine=None)
    assert _sql_road(args) == (kind == "parquet" and suffix_kind(path) != "csv")
    # the DuckDB road reads the same columns (as Parquet or CSV by the rule), or names a non-table
    if kind is None:
        with pytest.raises(InputFileError, match="not a long table"):
            duckdb_source.column_names(path)
    else:
        assert duckdb_source.column_names(path) == ["query", "item", "rank", "relevance"]
        got = read_long(path)  # and rankframe.io reads it
        assert got["item"].tolist() == ["a", "b"] and got["rank"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("name", "kind"),
    [("t.parquet", "parquet"), ("t.PQ", "parquet"), ("t.parq", "parquet"), ("t.csv", "csv"), ("t.TSV", "csv")]
    + [("t.csv.gz", "csv"), ("t.tsv.gz", "csv")],
)
def test_write_long_writes_the_kind_its_name_says(tmp_path, name, kind):
    """Writing, the name alone decides (rankframe.io.suffix_kind); the file is then read back as that kind."""
    from rankframe.tables.io import file_kind, suffix_kind

    assert suffix_kind(name) == kind

    df = pd.DataFrame({"query": ["q1"], "item": ["a"], "rank": [1], "relevance": [1]})
    path = tmp_path / name
    write_long(df, path)
    assert file_kind(path) == kind
    pd.testing.assert_frame_equal(read_long(path), df, check_dtype=False)
