"""Entropy(like='elliot'): Elliot's ShannonEntropy (SEntropy), each top-k row weighted 1 / |its list| (issue 33).

Source: sisinflab/elliot, elliot/evaluation/metrics/diversity/shannon_entropy/shannon_entropy.py:
``p_i = item_count[i] / free_norm`` (free_norm = every top-k row), ``w_i = sum over the lists recommending i of
1 / |list|``, the value ``sum_i w_i * -log2(p_i) / len(recommendations)``. Equal to the entropy only when every
list has the same length. Every face: pandas, the DuckDB engine, the SQL macro rf_entropy, the portable SQL.
"""

from __future__ import annotations

import math

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql

# q1 recommends x, y, z (cut at k=2: x, y); q2 recommends x only.
UNEVEN = pd.DataFrame({"query": [1, 1, 1, 2], "item": ["x", "y", "z", "x"], "rank": [1, 2, 3, 1]})
# Hand derivation (k=2): the top-k rows x, y (q1) and x (q2): free_norm = 3, p_x = 2/3, p_y = 1/3.
# w_x = 1/2 (q1) + 1/1 (q2) = 3/2, w_y = 1/2; two lists:
# (3/2 * -log2(2/3) + 1/2 * -log2(1/3)) / 2 = (3/2 (L - 1) + L / 2) / 2 = L - 3/4, L = log2(3) = 1.5849625:
ELLIOT = math.log2(3) - 0.75  # 0.8349625
# our Entropy (each row once): -(2/3 log2 2/3 + 1/3 log2 1/3) = L - 2/3 = 0.9182958
ROWS = math.log2(3) - 2 / 3
# equal lengths: q1 = x, y and q2 = x, z: p = 1/2, 1/4, 1/4 -> 1.5 bits; Elliot: w = 1, 1/2, 1/2, / 2 lists:
# (1 * 1 + 1/2 * 2 + 1/2 * 2) / 2 = 1.5 (the same)
EVEN = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["x", "y", "x", "z"], "rank": [1, 2, 1, 2]})


def _faces(df: pd.DataFrame, metric: str, sql_call: str) -> list[float]:
    got = [float(rankframe.evaluate(df, metric, engine=e)["value"].iloc[0]) for e in ("pandas", "duckdb")]
    con = macro_connection()
    con.register("recs", df)
    got.append(float(con.execute(f"SELECT value FROM {sql_call}").fetchall()[0][0]))
    portable = duckdb.connect()
    portable.register("runs", df)
    got.append(float(portable.execute(rankframe.sql.render([metric], dialect="duckdb")).df()["value"].iloc[0]))
    return got


def test_elliot_preset_on_uneven_lists_every_face():
    got = _faces(UNEVEN, "Entropy(like='elliot')@2", "rf_entropy('recs', k := 2, \"like\" := 'elliot')")
    assert got == pytest.approx([ELLIOT] * 4, abs=1e-12)
    rows = _faces(UNEVEN, "Entropy@2", "rf_entropy('recs', k := 2)")
    assert rows == pytest.approx([ROWS] * 4, abs=1e-12)


def test_weigh_lists_option_equals_the_entropy_on_equal_lengths():
    got = _faces(EVEN, "Entropy(weigh='lists')", "rf_entropy('recs', weigh := 'lists')")
    assert got == pytest.approx([1.5] * 4, abs=1e-12)


def test_elliot_preset_sets_the_options_and_named_ones_win():
    from rankframe.measures.names import parse

    m = parse("Entropy(like='elliot')")
    assert (m.kw["weigh"], m.kw["log_base"], m.kw["normalize"]) == ("lists", 2.0, "none")
    assert parse("Entropy(like='elliot', weigh='rows')").kw["weigh"] == "rows"
    # normalize='items' on top: / the 3 distinct items of the whole lists? no: of the top 2 rows, x and y: 2
    v = float(rankframe.evaluate(UNEVEN, "Entropy(like='elliot', normalize='items')@2")["value"].iloc[0])
    assert v == pytest.approx(ELLIOT / 2, abs=1e-12)
