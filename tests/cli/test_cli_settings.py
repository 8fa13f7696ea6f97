"""DuckDB settings from users: ``duckdb_config=`` and ``--threads`` / ``--temp-directory`` / ``--memory-limit``.

One check (``duckdb_source.settings_from``) for both faces, in each face's words; out of memory is reported as
out of memory with the limit that was hit.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.cli import main
from rankframe.core.errors import ParameterError
from rankframe.engines import duckdb_source

RECS = Path(__file__).resolve().parents[2] / "examples" / "recs.parquet"
TOP = duckdb_source.max_threads()


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    # 2 queries: q1 ranks a(rel 1), b(0) -> AP 1; q2 ranks c(0), d(1) -> AP 1/2; mean 0.75 (hand derivation)
    path = tmp_path_factory.mktemp("settings") / "small.parquet"
    pd.DataFrame(
        {"query": [1, 1, 2, 2], "item": list("abcd"), "rank": [1, 2, 1, 2], "relevance": [1, 0, 0, 1]}
    ).to_parquet(path)
    return path


def _cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("threads", [10**6, TOP + 1, 0, -1, 2.0, True, "2"])
def test_threads_out_of_bounds_or_not_an_int(small, threads):
    with pytest.raises(ParameterError, match=rf"duckdb_config\['threads'\] must be an int in 1\.\.{TOP} \(4 x"):
        rankframe.evaluate(small, "AP", duckdb_config={"threads": threads})


@pytest.mark.parametrize("threads", [1, np.int64(2), TOP])
def test_threads_in_bounds_give_the_answer(small, threads):
    got = rankframe.evaluate(small, "AP", duckdb_config={"threads": threads})
    assert got["value"].tolist() == [0.75]  # (1 + 1/2) / 2, see the fixture


def test_cli_threads_use_the_same_rule_in_the_options_words(small, capsys):
    # before: --threads 1000000 went to DuckDB, which started a million threads (no answer in 10 minutes)
    code, err = _cli(capsys, "evaluate", str(small), "-m", "AP", "--threads", "1000000")
    with pytest.raises(ParameterError) as python:
        rankframe.evaluate(small, "AP", duckdb_config={"threads": 1000000})
    assert code == 2
    assert err == "rankframe: error: " + str(python.value).replace("duckdb_config['threads']", "--threads") + "\n"
    assert err.startswith(f"rankframe: error: --threads must be an int in 1..{TOP}")


def test_temp_directory_that_cannot_be_made(small, tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ParameterError, match=r"duckdb_config\['temp_directory'\] '.*afile' is a file, not a dir"):
        rankframe.evaluate(small, "AP", duckdb_config={"temp_directory": str(afile)})
    with pytest.raises(ParameterError, match=r"'.*afile/sub' cannot be made: '.*afile' is not a directory"):
        rankframe.evaluate(small, "AP", duckdb_config={"temp_directory": afile / "sub"})
    with pytest.raises(ParameterError, match=r"must be a directory path"):
        rankframe.evaluate(small, "AP", duckdb_config={"temp_directory": 3})
    code, err = _cli(capsys, "evaluate", str(small), "-m", "AP", "--temp-directory", str(afile / "sub"))
    assert code == 2 and err.startswith("rankframe: error: --temp-directory ") and "cannot be made" in err


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes everywhere")
def test_temp_directory_not_writable(small, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    with pytest.raises(ParameterError, match=r"'.*ro' is not a writable directory"):
        rankframe.evaluate(small, "AP", duckdb_config={"temp_directory": str(ro)})


def test_temp_directory_is_made_when_it_can_be(small, tmp_path, capsys):
    new = tmp_path / "new" / "spill"
    got = rankframe.evaluate(small, "AP", duckdb_config={"temp_directory": str(new)})
    assert got["value"].tolist() == [0.75] and new.is_dir()
    code, _ = _cli(capsys, "evaluate", str(small), "-m", "AP", "--temp-directory", str(tmp_path / "cli" / "x"))
    assert code == 0 and (tmp_path / "cli" / "x").is_dir()


@pytest.mark.parametrize(
    ("config", "pattern"),
    [
        ({"thread": 2}, r"unknown key 'thread' \(did you mean 'threads'\?\)"),
        ({"memory_limit": 5}, r"duckdb_config\['memory_limit'\] must be a size .* Got 5 instead"),
        ({"memory_limit": "lots"}, r"duckdb_config\['memory_limit'\] must be a size .* Got 'lots' instead \(Parser"),
        ([("threads", 2)], r"'duckdb_config' parameter must be a dict"),
    ],
)
def test_unknown_keys_and_bad_values_are_parameter_errors(small, config, pattern):
    with pytest.raises(ParameterError, match=pattern):
        rankframe.evaluate(small, "AP", duckdb_config=config)


@pytest.mark.parametrize("limit", ["100KB", "1MB"])  # hit while opening the file / while checking its rules
def test_out_of_memory_is_reported_as_out_of_memory(limit, capsys):
    # before: "examples/recs.parquet: not a readable Parquet file (Out of Memory Error: ...)" (100KB), or
    # "the DuckDB engine (engine='duckdb') failed: Out of Memory Error: ..." with DuckDB's tuning advice (1MB)
    with pytest.raises(ParameterError) as e:
        rankframe.evaluate(RECS, "nDCG@10", duckdb_config={"memory_limit": limit})
    text = str(e.value)
    assert text.startswith(f"DuckDB ran out of memory under its memory limit of {limit} (")
    assert "readable" not in text and "SET " not in text and "\n" not in text
    code, err = _cli(capsys, "evaluate", str(RECS), "-m", "nDCG@10", "--memory-limit", limit)
    assert code == 2 and err == f"rankframe: error: {text}\n"
