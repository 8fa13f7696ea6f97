"""Fused scores equal in exact arithmetic tie on every face, and the item tie-break orders them (decision 0015).

The case (found by a search over random permutations; worked here by hand): w_bordafuse, weights s1 = 0.6,
s2 = 0.9, five items, N = 5 candidates, Borda points 5 - rank + 1:
  s1 ranks c b a e d  -> points c 5, b 4, a 3, e 2, d 1
  s2 ranks e c d a b  -> points e 5, c 4, d 3, a 2, b 1
  c = 0.6*5 + 0.9*4 = 6.6     e = 0.6*2 + 0.9*5 = 5.7     a = 0.6*3 + 0.9*2 = 3.6
  b = 0.6*4 + 0.9*1 = 3.3     d = 0.6*1 + 0.9*3 = 3.3     (a tie: 'd' > 'b', so d before b)
In floats, 0.6*4 + 0.9*1 = 3.3000000000000003 and 0.6*1 + 0.9*3 = 3.3: ordered by the raw floats, b came first
in pandas. DuckDB sums in another order and got this one right by luck, so a second case (found the same way for
the SQL) is worked too: weights s1 = 0.2, s2 = 0.6,
  s1 ranks b a e c d  -> points b 5, a 4, e 3, c 2, d 1
  s2 ranks e c d a b  -> points e 5, c 4, d 3, a 2, b 1
  e = 0.6 + 3.0 = 3.6   c = 0.4 + 2.4 = 2.8   a = 0.8 + 1.2 = 2.0   d = 0.2 + 1.8 = 2.0   b = 1.0 + 0.6 = 1.6
  (a and d tie: d first); the raw SQL put a first.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
from rankframe.fusion.kernels import round_significant
from rankframe.fusion.methods import FUSED_DIGITS

#: (s1's list, s2's list, weights, the fused run by hand)
CASES = {
    "pandas-raw-wrong": ("cbaed", "ecdab", (0.6, 0.9), [("c", 6.6), ("e", 5.7), ("a", 3.6), ("d", 3.3), ("b", 3.3)]),
    "sql-raw-wrong": ("baecd", "ecdab", (0.2, 0.6), [("e", 3.6), ("c", 2.8), ("d", 2.0), ("a", 2.0), ("b", 1.6)]),
}


def runs_of(s1: str, s2: str) -> pd.DataFrame:
    rows = [("s1", "q", item, r + 1) for r, item in enumerate(s1)] + [
        ("s2", "q", item, r + 1) for r, item in enumerate(s2)
    ]
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank"])


def test_the_raw_floats_differ_so_the_cases_test_something():
    assert 0.6 * 4 + 0.9 * 1 != 0.6 * 1 + 0.9 * 3
    assert 0.2 * 4 + 0.6 * 2 != 0.2 * 1 + 0.6 * 3


@pytest.mark.parametrize("case", list(CASES))
def test_pandas_orders_exact_ties_by_item(case):
    s1, s2, (w1, w2), want = CASES[case]
    out = rankframe.fuse(runs_of(s1, s2), "w_bordafuse", weights={"s1": w1, "s2": w2})
    out = out.query("system == 'w_bordafuse'")
    assert list(out["item"]) == [i for i, _ in want]
    np.testing.assert_allclose(out["score"], [s for _, s in want], rtol=1e-12)
    assert list(out["rank"]) == [1, 2, 3, 4, 5]
    assert out["score"].iloc[2] == out["score"].iloc[3] or out["score"].iloc[3] == out["score"].iloc[4]


@pytest.mark.parametrize("case", list(CASES))
def test_sql_orders_exact_ties_by_item(case):
    s1, s2, (w1, w2), want = CASES[case]
    con = macro_connection()
    con.register("runs_t", runs_of(s1, s2))
    got = con.execute(
        f"SELECT item, score, rank FROM rf_fuse('runs_t', method := 'w_bordafuse', "
        f"weights := MAP {{'s1': {w1}, 's2': {w2}}}) ORDER BY rank"
    ).fetchall()
    assert [g[0] for g in got] == [i for i, _ in want]
    np.testing.assert_allclose([g[1] for g in got], [s for _, s in want], rtol=1e-12)


def test_sql_rounds_with_the_declared_digits():
    con = macro_connection()
    assert con.execute("SELECT rf__fused_digits()").fetchone()[0] == FUSED_DIGITS


@pytest.mark.parametrize(
    ("x", "want"),
    # by hand: 12 significant digits
    [(3.3000000000000003, 3.3), (0.9999999999999999, 1.0), (123456.78901234567, 123456.789012), (-2.5e-7, -2.5e-7),
     (1.23456789012345e-9, 1.23456789012e-9), (0.0, 0.0)],
)  # fmt: skip
def test_round_significant_on_both_engines(x, want):
    assert round_significant(np.array([x]), FUSED_DIGITS)[0] == pytest.approx(want, rel=1e-15)
    con = macro_connection()
    got = con.execute("SELECT rf__round_significant(?::DOUBLE, rf__fused_digits())", [x]).fetchone()[0]
    assert got == pytest.approx(want, rel=1e-15)


def test_nan_and_infinities_pass_through():
    got = round_significant(np.array([np.nan, np.inf, -np.inf]), FUSED_DIGITS)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == -np.inf
