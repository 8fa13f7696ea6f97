"""Inputs piped through ``/dev/stdin``: a pipe gives its bytes once, so it is read once (it was read twice)."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from rankframe.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUN, QRELS = EX / "tiny.run", EX / "tiny.qrels"

pytestmark = pytest.mark.skipif(not Path("/dev/stdin").exists(), reason="no /dev/stdin on this system")

# tiny, by hand (tests/cli/test_cli.py): AP = q001 (1/1 + 2/2) / 3, q002 1/2 (D19 unretrieved), q003 0;
# mean (2/3 + 1/2 + 0) / 3 = 7/18
TINY_AP = 7 / 18


def _piped(data: bytes, *args: str) -> subprocess.CompletedProcess:
    """``<data> | rankframe <args>``: the data reach the command through a pipe on its stdin."""
    return subprocess.run(
        [sys.executable, "-m", "rankframe", *args],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _ap(code: int, out: str, err: str) -> float:
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    return float(table.loc[table["metric"] == "AP", "value"].iloc[0])


def test_a_run_through_the_stdin_of_a_process():
    # before: "rankframe: error: /dev/stdin: empty file: no run lines" (the format sniffing had read the pipe)
    p = _piped(RUN.read_bytes(), "evaluate", "/dev/stdin", "--qrels", str(QRELS), "-m", "AP", "--format", "csv")
    assert _ap(p.returncode, p.stdout.decode(), p.stderr.decode()) == pytest.approx(TINY_AP, abs=1e-12)


@contextlib.contextmanager
def _pipe(data: bytes) -> Iterator[str]:
    """A path (``/dev/fd/N``) to the read end of a pipe a thread fills with ``data``: a pipe, in this process."""
    r, w = os.pipe()

    def write() -> None:
        with os.fdopen(w, "wb") as f:
            f.write(data)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    try:
        yield f"/dev/fd/{r}"
    finally:
        t.join(10)
        os.close(r)


def _main(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# 4,000 more items for query 003, which has nothing relevant (AP 0 whatever it retrieves): ~120 KB, more than a
# pipe's buffer, and the same AP
BIG_RUN = RUN.read_bytes() + b"".join(b"003 Q0 X%d %d 0.5 tiny\n" % (i, 100 + i) for i in range(4000))


@pytest.mark.parametrize(
    "data", [RUN.read_bytes(), gzip.compress(RUN.read_bytes()), BIG_RUN], ids=["plain", "gz", "big"]
)
def test_a_run_through_a_pipe(capsys, data):
    with _pipe(data) as run:
        got = _ap(*_main(capsys, "evaluate", run, "--qrels", str(QRELS), "-m", "AP", "--format", "csv"))
    assert got == pytest.approx(TINY_AP, abs=1e-12)


def test_qrels_through_a_pipe(capsys):
    with _pipe(QRELS.read_bytes()) as qrels:
        got = _ap(*_main(capsys, "evaluate", str(RUN), "--qrels", qrels, "-m", "AP", "--format", "csv"))
    assert got == pytest.approx(TINY_AP, abs=1e-12)


def test_a_parquet_table_through_a_pipe(tmp_path, capsys):
    # q1 ranks a(rel 1), b(0) -> AP 1; q2 ranks c(0), d(1) -> AP 1/2; mean 0.75. DuckDB cannot read a pipe
    # after its format was sniffed: the pandas reader takes the bytes read once
    path = tmp_path / "t.parquet"
    table = {"query": [1, 1, 2, 2], "item": list("abcd"), "rank": [1, 2, 1, 2], "relevance": [1, 0, 0, 1]}
    pd.DataFrame(table).to_parquet(path)
    with _pipe(path.read_bytes()) as piped:
        assert _ap(*_main(capsys, "evaluate", piped, "-m", "AP", "--format", "csv")) == pytest.approx(0.75)


def test_an_error_in_a_piped_run_quotes_its_lines(capsys):
    # the duplicate's message reads the file again to find both lines: from the bytes kept, not the empty pipe
    with _pipe(RUN.read_bytes() + b"001 Q0 D03 9 0.5 tiny\n") as run:
        code, _, err = _main(capsys, "evaluate", run, "--qrels", str(QRELS), "-m", "AP")
    assert code == 2, err
    assert f"rankframe: error: {run}, line " in err and "duplicate docno 'D03' for query '001'" in err
    assert "001 Q0 D03 9 0.5 tiny" in err
