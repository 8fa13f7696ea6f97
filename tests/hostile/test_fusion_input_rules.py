"""Fusion's input is a long table: rankframe.fuse, fuse_train and rf_fuse apply the long table's rules (issue 33).

Every table below breaks one rule of the long table (rankframe/table_rules.py) that ``evaluate`` applies; each road
refuses it with the same error class: pandas, a DuckDB relation, a Parquet file, the SQL macro ``rf_fuse`` and the
command. A score that overflows float64 once normalised or summed is refused too (it used to drop the candidate
silently), and a fused run named with a str next to integer system ids (a table evaluate refuses) is a
ParameterError. The property: whatever fuse accepts, evaluate and compare accept.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankframe
from rankframe.cli import main
from rankframe.core.errors import ParameterError, RankframeError, ValidationError
from rankframe.engines import duckdb_engine
from rankframe.engines.duckdb_engine import translate_error

BASE = {
    "system": ["a", "a", "b", "b"],
    "query": [1, 1, 1, 1],
    "item": ["x", "y", "y", "z"],
    "rank": [1, 2, 1, 2],
    "relevance": [1, 0, 1, 0],
}


def table(**cols) -> pd.DataFrame:
    return pd.DataFrame({**BASE, **cols})


def scored(**cols) -> pd.DataFrame:
    """The same runs by score (no rank column)."""
    return pd.DataFrame({**{k: v for k, v in BASE.items() if k != "rank"}, "score": [0.9, 0.1, 0.8, 0.2], **cols})


# name: (table, fuse's keyword arguments, column named by the failure, SQL applies (rf_fuse reads the column))
CASES = {
    "null item": (table(item=["x", None, "y", "z"]), {}, "item", True),
    "null query": (table(query=[1, None, 1, 1]), {}, "query", True),
    "bool rank": (table(rank=[True, False, True, False]), {}, "rank", True),
    "text rank": (table(rank=["1", "2", "1", "2"]), {}, "rank", True),
    "complex rank": (table(rank=np.array([1, 2, 1, 2], dtype=complex)), {}, "rank", False),
    "rank 0": (table(rank=[0, 2, 1, 2]), {}, "rank", True),
    "rank 1.5": (table(rank=[1.5, 2, 1, 2]), {}, "rank", True),
    "bool score": (scored(score=[True, False, True, False]), {"method": "combsum", "norm": "min-max"}, "score", True),
    "text score": (scored(score=["0.9", "0.1", "0.8", "0.2"]), {"method": "combsum", "norm": "min-max"}, "score", True),
    "complex score": (
        scored(score=np.array([0.9, 0.1, 0.8, 0.2], dtype=complex)),
        {"method": "combsum", "norm": "min-max"},
        "score",
        False,
    ),
    # rank orders the lists, but combsum adds the scores: an infinite one used to drop the candidate (NaN)
    "inf score next to rank": (
        table(score=[np.inf, 0.1, 0.8, 0.2]),
        {"method": "combsum", "norm": "min-max"},
        "score",
        True,
    ),
    # min-max of [1e308, -1e308]: max - min overflows to inf, (s - min) / inf is NaN: the candidate was dropped
    "overflowing min-max": (
        scored(score=[1e308, -1e308, 0.8, 0.2]),
        {"method": "combsum", "norm": "min-max"},
        "score",
        True,
    ),
    # 1e308 + 1e308 is inf: the fused score overflows
    "overflowing sum": (
        table(system=["a", "a", "b", "b"], item=["x", "y", "x", "y"], score=[1e308, 1.0, 1e308, 2.0]),
        {"method": "combsum", "norm": "none"},
        "score",
        True,
    ),
    "text relevance": (table(relevance=["1", "0", "1", "0"]), {}, "relevance", False),
    "infinite relevance": (table(relevance=[np.inf, 0, 1, 0]), {}, "relevance", False),
    "systems 1 and '1'": (table(system=[1, 1, "1", "1"]), {}, "system", False),
    "items 1 and '1'": (table(item=[1, "1", "y", "z"]), {}, "item", False),
    "list system": (table(system=[["a"], ["a"], ["b"], ["b"]]), {}, "system", False),
}


@pytest.mark.parametrize("case", CASES)
def test_pandas_refuses_what_evaluate_refuses(case):
    frame, kw, column, _ = CASES[case]
    before = frame.copy()
    with pytest.raises(ValidationError) as info:
        rankframe.fuse(frame, **kw)
    assert column in [f["column"] for f in info.value.failures], str(info.value)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][3] and "complex" not in c])
def test_duckdb_relation_and_parquet_roads_refuse_it_too(case, tmp_path):
    frame, kw, column, _ = CASES[case]
    con = duckdb.connect()
    relation = con.from_df(frame)
    with pytest.raises(ValidationError):
        rankframe.fuse(relation, **kw)
    path = tmp_path / "runs.parquet"
    frame.to_parquet(path)
    with pytest.raises(ValidationError):
        rankframe.fuse(str(path), **kw)


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][3]])
def test_rf_fuse_says_the_same_class(case):
    frame, kw, column, _ = CASES[case]
    con = duckdb_engine._cursor()
    con.register("rf_test_runs", frame)
    args = "".join(f", {k} := '{v}'" for k, v in kw.items())
    with pytest.raises(duckdb.Error) as info:
        con.execute(f"SELECT * FROM rf_fuse('rf_test_runs'{args})").fetchall()
    got = translate_error(info.value)
    assert type(got) is ValidationError, str(info.value)
    assert got.failures[0]["column"] == column, str(got)
    if case.startswith("overflowing"):  # the words of rankframe.fuse (fusion.fuse.OVERFLOW)
        from rankframe.fusion.fuse import OVERFLOW

        assert OVERFLOW in str(got)


def test_rf_fuse_refuses_a_repeated_rank_in_a_run():
    # rank 1 twice in system a's list of query 1: the long table's unique_rank rule (it used to fuse)
    con = duckdb_engine._cursor()
    con.register("rf_test_runs", table(rank=[1, 1, 1, 2]))
    with pytest.raises(duckdb.Error) as info:
        con.execute("SELECT * FROM rf_fuse('rf_test_runs')").fetchall()
    got = translate_error(info.value)
    assert type(got) is ValidationError and "rank must be unique within each (system, query)" in str(got)


def test_a_rank_method_next_to_a_bad_score_column_is_not_refused():
    # rrf reads ranks only: an infinite score beside a valid rank column is carried, as evaluate ignores it
    out = rankframe.fuse(table(score=[np.inf, 0.1, 0.8, 0.2]), "rrf")
    assert len(out) == 4 + 3
    con = duckdb_engine._cursor()
    con.register("rf_test_runs", table(score=[np.inf, 0.1, 0.8, 0.2]))
    assert len(con.execute("SELECT * FROM rf_fuse('rf_test_runs')").fetchall()) == 3


@pytest.mark.slow  # compare's first call imports scipy
def test_integer_systems_need_an_integer_name():
    runs = table(system=[1, 1, 2, 2])
    with pytest.raises(ParameterError, match="'name' parameter of fuse.*int values"):
        rankframe.fuse(runs)
    with pytest.raises(ParameterError, match="already a system"):
        rankframe.fuse(runs, name=2)
    out = rankframe.fuse(runs, name=3)
    assert out["system"].tolist() == [1, 1, 2, 2, 3, 3, 3]
    # the output evaluates and compares: ids of one type
    assert set(rankframe.evaluate(out, "nDCG", by="system")["system"]) == {1, 2, 3}
    rankframe.compare(out, "nDCG", baseline=1)


def test_cli_exit_status_of_a_bad_table(capsys, tmp_path):
    path = tmp_path / "runs.parquet"
    table(rank=[0, 2, 1, 2]).to_parquet(path)
    assert main(["fuse", str(path), "-o", str(tmp_path / "out.run")]) == 2
    assert "rank must be an integer >= 1" in capsys.readouterr().err
    # integer system ids in a long table: the command names runs by their text
    good = tmp_path / "int_systems.parquet"
    table(system=[1, 1, 2, 2]).to_parquet(good)
    assert main(["fuse", str(good), "-o", str(tmp_path / "out.parquet")]) == 0
    assert set(pd.read_parquet(tmp_path / "out.parquet")["system"]) == {"rrf"}


def test_fuse_train_applies_the_rules():
    with pytest.raises(ValidationError, match="rank must be numeric"):
        rankframe.fuse_train(table(rank=[True, False, True, False]), method="rrf", metric="nDCG")


_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1.0, -1.0, 1e308, -1e308, 5e-324, 0.5]),
)


@st.composite
def runs_tables(draw):
    n = draw(st.integers(1, 12))
    systems = draw(st.sampled_from([["a", "b"], [1, 2], ["a", "b", "c"], [1, "1"], [10, 20, 30]]))
    frame = pd.DataFrame(
        {
            "system": draw(st.lists(st.sampled_from(systems), min_size=n, max_size=n)),
            "query": draw(st.lists(st.sampled_from(["q1", "q2"]), min_size=n, max_size=n)),
            "item": draw(st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=n, max_size=n)),
        }
    )
    if draw(st.booleans()):
        frame["rank"] = draw(st.lists(st.sampled_from([1, 2, 3, None, 0]), min_size=n, max_size=n))
    if draw(st.booleans()) or "rank" not in frame:
        frame["score"] = draw(st.lists(_floats, min_size=n, max_size=n))
    if draw(st.booleans()):
        frame["relevance"] = draw(st.lists(st.sampled_from([0, 1, 2, None]), min_size=n, max_size=n))
    return frame


@pytest.mark.slow  # 150 random tables through fuse and evaluate
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frame=runs_tables(),
    method=st.sampled_from(["rrf", "combsum", "combmnz", "wsum", "bordafuse", "combmed", "rbc"]),
    norm=st.sampled_from([None, "none", "min-max", "max", "sum", "zmuv", "rank", "borda"]),
    name=st.sampled_from([None, 99]),
)
def test_fuse_output_evaluates(frame, method, norm, name):
    """Property: fuse refuses the table with a RankframeError, or evaluate and compare accept what it returns."""
    kw: dict = {"norm": norm, "name": name}
    if method == "wsum":
        kw["weights"] = {s: 1.0 for s in frame["system"].unique()}
    try:
        out = rankframe.fuse(frame, method, **kw)
    except RankframeError:
        return
    fused = out.iloc[len(frame) :]
    assert fused["score"].dropna().map(np.isfinite).all()
    if "relevance" not in out:
        out = out.assign(relevance=0)
    result = rankframe.evaluate(out, "nDCG@3", by="system")
    # by="system" is a plain segment: a (system, query) unit without a judged row follows no_judged="skip" (the
    # default, trec_eval's), so a system none of whose rows is judged has no unit and no row (docs/conventions.md)
    assert set(result["system"]) == set(out.loc[out["relevance"].notna(), "system"])
