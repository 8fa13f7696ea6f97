"""``pl_df.rank_metrics``: the pandas accessor's methods on polars frames, polars results, polars never imported."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import rankframe
from rankframe.polars_namespace import PolarsRankMetrics

ROOT = Path(__file__).resolve().parents[2]

# one query, grades [0, 2, 1] in rank order plus a judged unretrieved item of grade 1 (|R| = 3); a second query
# whose only relevant item is at rank 1
ROWS = {
    "query": [1, 1, 1, 1, 2, 2],
    "item": ["a", "b", "c", "d", "a", "b"],
    "rank": [1, 2, 3, None, 1, 2],
    "relevance": [0, 2, 1, 1, 1, 0],
    "country": ["de", "de", "de", "de", "fr", "fr"],
}


@pytest.fixture
def frames():
    return pd.DataFrame(ROWS), pl.DataFrame(ROWS)


def test_same_methods_and_signatures():
    public = [n for n in dir(rankframe.RankMetrics) if not n.startswith("_")]
    assert public == [n for n in dir(PolarsRankMetrics) if not n.startswith("_")]
    for name in public:
        assert inspect.signature(getattr(rankframe.RankMetrics, name)) == inspect.signature(
            getattr(PolarsRankMetrics, name)
        ), name


@pytest.mark.parametrize("lazy", [False, True])
def test_values_and_result_types(frames, lazy):
    pdf, pldf = frames
    frame = pldf.lazy() if lazy else pldf
    # AP: q1 (1/2 + 2/3) / 3 = 0.388889, q2 1 -> mean 0.694444
    assert frame.rank_metrics.ap() == pytest.approx((7 / 18 + 1) / 2)
    out = frame.rank_metrics.evaluate(["AP", "RR"], by="country")
    assert isinstance(out, pl.DataFrame)
    pd.testing.assert_frame_equal(out.to_pandas(), pdf.rank_metrics.evaluate(["AP", "RR"], by="country"))
    per = frame.rank_metrics.rr(per_query=True)
    assert isinstance(per, pl.DataFrame)
    assert per.to_dicts() == [{"query": 1, "RR": 0.5}, {"query": 2, "RR": 1.0}]  # first hits at ranks 2 and 1
    seg = frame.rank_metrics(query="query").precision(2, by="country")
    assert seg.to_dicts() == [{"country": "de", "P@2": 0.5}, {"country": "fr", "P@2": 0.5}]
    ci = frame.rank_metrics.rr(ci=0.95)
    assert ci.columns == ["value", "n", "std_err", "ci_low", "ci_high"] and ci["n"].to_list() == [2]
    assert frame.rank_metrics.validate() is frame  # returns the (same) frame


def test_compare_and_renamed_columns():
    sys_rows = pl.DataFrame(
        {
            "sys": ["A", "A", "B", "B"],
            "qid": [1, 1, 1, 1],
            "doc": [1, 2, 1, 2],
            "pos": [1, 2, 2, 1],
            "grade": [0, 1, 0, 1],
        }
    )
    rm = sys_rows.rank_metrics(query="qid", item="doc", rank="pos", relevance="grade")
    out = rm.compare("RR", system="sys", baseline="A")
    # RR: A finds doc 2 at rank 2 (1/2), B at rank 1 (1): delta 1/2
    assert isinstance(out, pl.DataFrame) and out["delta"].to_list() == [0.5]


def test_bad_input_same_error_as_pandas(frames):
    pdf, pldf = frames
    with pytest.raises(rankframe.ValidationError) as want:
        pdf.rename(columns={"item": "itme"}).rank_metrics.ap()
    with pytest.raises(rankframe.ValidationError) as got:
        pldf.rename({"item": "itme"}).rank_metrics.ap()
    assert str(got.value) == str(want.value)


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_import_rankframe_does_not_import_polars_but_registers_on_import():
    done = _python(
        "import sys, rankframe\n"
        "assert 'polars' not in sys.modules, 'import rankframe imported polars'\n"
        "import polars as pl\n"
        "df = pl.DataFrame({'query': [1, 1], 'item': [1, 2], 'rank': [1, 2], 'relevance': [0, 1]})\n"
        "print(df.rank_metrics.rr(), df.lazy().rank_metrics.rr())\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.5", "0.5"]  # the relevant item at rank 2


def test_polars_absent():
    done = _python(
        "import sys\n"
        "sys.modules['polars'] = None\n"
        "import pandas as pd, rankframe\n"
        "df = pd.DataFrame({'query': [1], 'item': [1], 'rank': [1], 'relevance': [1]})\n"
        "print(df.rank_metrics.rr())\n"
        "try:\n"
        "    rankframe.evaluate(df, 'RR', output='polars')\n"
        "except rankframe.RankframeError as e:\n"
        "    print(e)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "1.0"
    assert 'pip install "rankframe[polars]"' in done.stdout
