"""rf_anova (sql/anova.sql) = rankframe.anova (itself held to statsmodels in test_anova_oracle.py); the F tail = scipy.

Random long tables (2..5 systems, 2..40 queries, segments and a between-query group column), the bundled table, the
degenerate designs' notes, and the parameter errors (rf:param / rf:table codes, as rf_compare's).
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection
from scipy import special

import rankframe
from rankframe.core.errors import ParameterError, ValidationError

FLOATS = ["statistic", "df", "df_error", "p_value", "ss", "ss_error", "mse", "partial_eta_sq"]


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


def _table(seed: int, n_sys: int, n_q: int) -> pd.DataFrame:
    """Random graded judgments of 6 ranked items per (system, query); seg and grp are per query."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_q):
        seg = "a" if q % 3 else "b"
        grp = "short" if rng.random() < 0.5 else "long"
        for s in range(n_sys):
            rel = rng.integers(0, 3, 6)
            for r, g in enumerate(rel, start=1):
                rows.append(
                    dict(system=f"s{s}", query=f"q{q:02d}", seg=seg, grp=grp, item=f"d{r}", rank=r, relevance=g)
                )
    return pd.DataFrame(rows)


def _parity(got: pd.DataFrame, want: pd.DataFrame, keys: list[str]) -> None:
    assert list(got.columns) == list(want.columns)
    got = got.sort_values(keys).reset_index(drop=True)
    want = want.sort_values(keys).reset_index(drop=True)
    for col in ("n", "systems", "groups"):
        assert got[col].tolist() == want[col].tolist(), col
    for col in FLOATS:
        for a, b in zip(got[col].tolist(), want[col].tolist()):
            a = float("nan") if a is None else a
            assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (col, a, b)
    assert [x if isinstance(x, str) else None for x in got["note"]] == [
        x if isinstance(x, str) else None for x in want["note"]
    ]


# each rf_anova call plans for about a second: two tables, each segment / interaction layout once
@pytest.mark.parametrize(
    "seed, n_sys, n_q, layouts",
    [(1, 3, 7, [([], None), (["seg"], "grp")]), (2, 5, 40, [([], "grp"), (["seg"], None)])],
)
def test_rf_anova_equals_rankframe_anova(con, seed, n_sys, n_q, layouts):
    df = _table(seed, n_sys, n_q)
    con.register("rf_t_anova", df)
    for segs, inter in layouts:
        got = con.execute(
            "SELECT * FROM rf_anova('rf_t_anova', metrics := ['AP', 'nDCG', 'P'], k := 5, "
            f"segments := {segs!r}::VARCHAR[], interaction := {inter!r})".replace("None", "NULL")
        ).df()
        want = rankframe.anova(df, ["AP@5", "nDCG@5", "P@5"], by=segs or None, interaction=inter)
        _parity(got, want, [*segs, "metric", "term"])


def test_f_tail_equals_scipy(con):
    cases = [(1.0, 1, 2), (25.0, 1, 2), (3.7, 4, 37), (0.2, 5, 1000), (40.0, 2, 60), (1e-6, 3, 9)]
    for f, d1, d2 in cases:
        got = con.execute(f"SELECT rf__f_sf({f}, {d1}, {d2})").fetchall()[0][0]
        assert got == pytest.approx(special.fdtrc(d1, d2, f), rel=1e-10, abs=1e-300)


def test_degenerate_notes_match(con):
    df = _table(5, 3, 6)
    one_query = df[df["query"] == "q00"]
    con.register("rf_t_anova1", one_query)
    got = con.execute("SELECT * FROM rf_anova('rf_t_anova1', metrics := ['AP'], interaction := 'grp')").df()
    _parity(got, rankframe.anova(one_query, "AP", interaction="grp"), ["metric", "term"])


@pytest.mark.parametrize(
    "call, code, words",
    [
        ("metrics := ['APP']", "rf:param", "The 'metrics' parameter of rf_anova"),
        ("metrics := ['AP'], system := 'sytem'", "rf:param", "(did you mean 'system'?)"),
        ("metrics := ['AP'], interaction := 'lenght'", "rf:param", "(did you mean 'length'?)"),
        ("metrics := ['AP'], interaction := 'length', segments := ['length']", "rf:param", "the interaction column"),
        ("metrics := ['AP'], segments := ['system']", "rf:param", "the system column 'system' is also in segments"),
    ],
)
def test_rf_anova_parameter_errors(con, call, code, words):
    with pytest.raises(duckdb.Error) as e:
        con.execute(f"SELECT * FROM rf_anova('examples/paired.parquet', {call})").fetchall()
    assert code in str(e.value) and words in str(e.value)


def test_rf_anova_table_errors(con):
    df = pd.read_parquet("examples/paired.parquet")
    con.register("rf_t_one", df[df["system"] == "bm25"])
    with pytest.raises(duckdb.Error, match="rf_anova needs at least 2 systems"):
        con.execute("SELECT * FROM rf_anova('rf_t_one', metrics := ['AP'])").fetchall()
    con.register("rf_t_hole", df[~((df["system"] == "dense") & (df["query"] == "q03"))])
    with pytest.raises(duckdb.Error, match="systems must be compared on the same queries"):
        con.execute("SELECT * FROM rf_anova('rf_t_hole', metrics := ['AP'])").fetchall()
    # q03 again, every system, in another length group: aligned within each group, but in two groups
    two = pd.concat([df, df[df["query"] == "q03"].assign(length="other")], ignore_index=True)
    con.register("rf_t_two", two)
    with pytest.raises(duckdb.Error, match="every query must lie in one group of the interaction column 'length'"):
        con.execute("SELECT * FROM rf_anova('rf_t_two', metrics := ['AP'], interaction := 'length')").fetchall()
    # the Python face says the same rule
    with pytest.raises(ValidationError, match="every query must lie in one group of the interaction column 'length'"):
        rankframe.anova(two, "AP", interaction="length", missing="drop")
    with pytest.raises(ParameterError):
        rankframe.anova(df, "AP", interaction="length", by="length")
