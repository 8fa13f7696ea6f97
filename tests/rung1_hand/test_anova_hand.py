"""rankframe.anova on hand-derived cases: two systems reduce to the per-query differences d = B - A.

With s = 2 systems every deviation from a query's mean is +-d/2, so (N queries, groups h with n_h queries, mean
difference dbar, group means dbar_h):
SS_system = N dbar**2 / 2, SS_interaction = sum_h n_h (dbar_h - dbar)**2 / 2, SS_error = sum_h sum_i (d_i - dbar_h)**2 / 2.
F(1, k) is the square of Student's t with k df: P(F >= f) = P(|T_k| >= sqrt(f)); with k = 2, 1 - t / sqrt(2 + t**2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.anova import anova_values


def _per(values: dict[str, list[float]], groups: list[str] | None = None) -> pd.DataFrame:
    n = len(next(iter(values.values())))
    rows = []
    for system, xs in values.items():
        for i, x in enumerate(xs):
            rows.append(
                {"grp": (groups or ["all"] * n)[i], "system": system, "query": f"q{i}", "metric": "AP", "value": x}
            )
    return pd.DataFrame(rows)


def test_split_plot_by_hand():
    # d = B - A = 1, 2 (group a), -1, -1 (group b); dbar = 1/4, dbar_a = 3/2, dbar_b = -1
    # SS_system = 4 (1/16) / 2 = 1/8; SS_interaction = (2 (5/4)**2 + 2 (5/4)**2) / 2 = 25/8
    # SS_error = ((1 - 3/2)**2 + (2 - 3/2)**2 + 0 + 0) / 2 = 1/4, df_error = (2 - 1)(4 - 2) = 2, MSE = 1/8
    # F_system = (1/8) / (1/8) = 1, p = 1 - 1/sqrt(3); F_interaction = (25/8) / (1/8) = 25, p = 1 - 5/sqrt(27)
    per = _per({"A": [1, 3, 2, 4], "B": [2, 5, 1, 3]}, ["a", "a", "b", "b"])
    out = anova_values(per, ["AP"], [], "grp", "query", "system").set_index("term")
    assert out.loc["system", "ss"] == pytest.approx(1 / 8, abs=1e-15)
    assert out.loc["system:segment", "ss"] == pytest.approx(25 / 8, abs=1e-15)
    assert out.loc["system", "ss_error"] == pytest.approx(1 / 4, abs=1e-15)
    assert out.loc["system", "mse"] == pytest.approx(1 / 8, abs=1e-15)
    assert out.loc["system", "statistic"] == pytest.approx(1.0, abs=1e-12)
    assert out.loc["system", "p_value"] == pytest.approx(1 - 1 / np.sqrt(3), abs=1e-12)
    assert out.loc["system:segment", "statistic"] == pytest.approx(25.0, abs=1e-12)
    assert out.loc["system:segment", "p_value"] == pytest.approx(1 - 5 / np.sqrt(27), abs=1e-12)
    assert out.loc["system:segment", "df"] == 1 and out.loc["system:segment", "df_error"] == 2
    # partial eta squared = SS / (SS + SS_error): (25/8) / (25/8 + 2/8) = 25/27
    assert out.loc["system:segment", "partial_eta_sq"] == pytest.approx(25 / 27, abs=1e-12)
    assert list(out["groups"]) == [2, 2]


def test_sakai_effect_size_by_hand():
    # RR of the compare docstring: A = 1/2, 1/2, 1; B = 1, 1, 1/2; d = 1/2, 1/2, -1/2, dbar = 1/6
    # SS_error = sum (d - 1/6)**2 / 2 = (1/9 + 1/9 + 4/9) / 2 = 1/3, df_error = 2, MSE = 1/6
    # effect size = delta / sqrt(MSE) = (1/6) / sqrt(1/6) = sqrt(1/6)
    df = pd.DataFrame(
        {
            "system": ["A"] * 6 + ["B"] * 6,
            "query": [1, 1, 2, 2, 3, 3] * 2,
            "item": ["a", "b"] * 6,
            "rank": [1, 2] * 6,
            "relevance": [0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1],
        }
    )
    out = rankframe.anova(df, "RR", pairs=True)
    row = out.iloc[0]
    assert (row["system"], row["baseline"], row["n"]) == ("B", "A", 3)
    assert row["delta"] == pytest.approx(1 / 6, abs=1e-15)
    assert row["mse"] == pytest.approx(1 / 6, abs=1e-15)
    assert row["effect_size"] == pytest.approx(np.sqrt(1 / 6), abs=1e-15)
    assert out.attrs["effect_size"].startswith("delta / sqrt(MSE)")


def test_three_systems_by_hand():
    # x (queries x systems) = [[1, 2, 6], [3, 4, 2], [2, 3, 4]]: system means 2, 3, 4, grand 3
    # SS_system = 3 ((2-3)**2 + 0 + (4-3)**2) = 6, df 2; query means 3, 3, 3: residual = x - 3 - (col - 3) = x - col:
    # [[-1, -1, 2], [1, 1, -2], [0, 0, 0]], SS_error = 1+1+4+1+1+4 = 12, df (3-1)(3-1) = 4, MSE = 3
    # F = (6/2) / 3 = 1; F(2, 4): P(F >= f) = (1 + f/2)**-2 = 4/9
    per = _per({"A": [1, 3, 2], "B": [2, 4, 3], "C": [6, 2, 4]})
    row = anova_values(per, ["AP"], [], None, "query", "system").iloc[0]
    assert (row["ss"], row["ss_error"], row["df"], row["df_error"]) == pytest.approx((6, 12, 2, 4), abs=1e-12)
    assert row["statistic"] == pytest.approx(1.0, abs=1e-12)
    assert row["p_value"] == pytest.approx(4 / 9, abs=1e-12)
    pairs = anova_values(per, ["AP"], [], None, "query", "system", pairs=True)
    # Sakai: (mean_C - mean_A) / sqrt(MSE) = 2 / sqrt(3)
    ca = pairs[(pairs["system"] == "C") & (pairs["baseline"] == "A")].iloc[0]
    assert ca["effect_size"] == pytest.approx(2 / np.sqrt(3), abs=1e-12)


def test_random_query_components_by_hand():
    # A = 0.1, 0.5, 0.3; B = 0.2, 0.6, 0.7 (s = 2, N = 3): query means 0.15, 0.55, 0.5, grand 0.4
    # SS_query = 2 (0.25**2 + 0.15**2 + 0.1**2) = 0.19, df_query = 2, MS_query = 0.095
    # d = B - A = 0.1, 0.1, 0.4, dbar = 0.2: SS_error = (0.01 + 0.01 + 0.04) / 2 = 0.03, df_error = 2, MSE = 0.015
    # MS_query >= MSE: var_query = (0.095 - 0.015) / 2 = 0.04, var_error = 0.015, icc = 0.04 / 0.055 = 8/11
    per = _per({"A": [0.1, 0.5, 0.3], "B": [0.2, 0.6, 0.7]})
    row = anova_values(per, ["AP"], [], None, "query", "system", random=True).iloc[0]
    assert row["var_query"] == pytest.approx(0.04, abs=1e-15)
    assert row["var_error"] == pytest.approx(0.015, abs=1e-15)
    assert row["icc"] == pytest.approx(8 / 11, abs=1e-14)
    # queries alike, systems not: A = 1, 2, 3 and B = 3, 2, 1 give query means 2, 2, 2, SS_query = 0 < MSE: REML's
    # boundary, var_query = 0 and var_error = (SS_query + SS_error) / (df_query + df_error); d = 2, 0, -2, dbar = 0,
    # SS_error = (4 + 0 + 4) / 2 = 4: var_error = (0 + 4) / (2 + 2) = 1 (MSE would be 2)
    per = _per({"A": [1, 2, 3], "B": [3, 2, 1]})
    row = anova_values(per, ["AP"], [], None, "query", "system", random=True).iloc[0]
    assert (row["var_query"], row["var_error"], row["icc"]) == (0.0, pytest.approx(1.0, abs=1e-15), 0.0)
    assert row["mse"] == pytest.approx(2.0, abs=1e-15)


def test_random_query_split_plot_by_hand():
    # test_split_plot_by_hand's table: A = 1, 3 | 2, 4, B = 2, 5 | 1, 3 (groups a | b); query means 1.5, 4 | 1.5, 3.5
    # SS_query(group) = 2 ((1.5 - 2.75)**2 + (4 - 2.75)**2 + (1.5 - 2.5)**2 + (3.5 - 2.5)**2) = 2 (3.125 + 2) = 10.25
    # df_query = N - g = 2, MS_query = 5.125; MSE = 1/8 (above): var_query = (5.125 - 0.125) / 2 = 2.5
    per = _per({"A": [1, 3, 2, 4], "B": [2, 5, 1, 3]}, ["a", "a", "b", "b"])
    out = anova_values(per, ["AP"], [], "grp", "query", "system", random=True)
    assert list(out["var_query"]) == [pytest.approx(2.5, abs=1e-14)] * 2
    assert list(out["var_error"]) == [pytest.approx(0.125, abs=1e-15)] * 2
    assert out["icc"].iloc[0] == pytest.approx(2.5 / 2.625, abs=1e-14)
