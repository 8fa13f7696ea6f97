"""rankframe.anova held to statsmodels: AnovaRM and OLS for the omnibus F, two nested OLS models for the interaction.

Oracles:
- the two-way (system x query) ANOVA without replication: ``statsmodels.stats.anova.AnovaRM(d, "v", "query",
  within=["system"])`` (F, its dfs, p) and ``anova_lm(ols("v ~ C(system) + C(query)"))`` (sums of squares, MSE);
- the split-plot system x group interaction: ``anova_lm(ols("v ~ C(query) + C(system)"), ols("v ~ C(query) +
  C(system) + C(system):C(group)"))`` (the drop in residual SS, its df, F and p over the full model's residual);
  the system row of the split plot: ``anova_lm`` type I of the full model (C(query) first, then C(system): the
  sums of squares of C(system) are orthogonal to the queries', so its row is exact; the rank-deficient
  C(group) / C(query) rows are not used).
Random designs: n = 2..500 queries (interaction: 4..150), 2..6 systems, 1..4 groups.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from statsmodels.stats.anova import AnovaRM, anova_lm

import rankframe
from rankframe.anova import anova_values

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
DESIGNS = [(2, 2), (3, 2), (5, 3), (9, 4), (17, 6), (40, 5), (120, 3), (500, 6), (250, 2), (64, 4)]


def _design(seed: int, n: int, s: int, groups: int = 1):
    rng = np.random.default_rng(seed)
    x = rng.random((n, s)) + rng.normal(0, 0.3, n)[:, None] + np.linspace(0, 0.2, s)[None, :]
    group = np.sort(np.concatenate([np.arange(groups), rng.integers(0, groups, n - groups)]))
    per = pd.DataFrame(
        {
            "grp": np.repeat(np.array([f"g{h}" for h in group], dtype=object), s),
            "system": np.tile(np.array([f"s{j}" for j in range(s)], dtype=object), n),
            "query": np.repeat(np.array([f"q{i:03d}" for i in range(n)], dtype=object), s),
            "metric": "AP",
            "value": x.ravel(),
        }
    )
    return per


@pytest.mark.quick_sample(4)  # a sweep of designs x seeds: 4 in the quick loop
@pytest.mark.parametrize("n, s, seed", [(n, s, seed) for n, s in DESIGNS for seed in range(2 if n < 200 else 1)])
def test_omnibus_f_equals_anovarm_and_ols(n, s, seed):
    per = _design(seed, n, s)
    out = anova_values(per, ["AP"], [], None, "query", "system")
    row = out.iloc[0]
    rm = AnovaRM(per, "value", "query", within=["system"]).fit().anova_table.iloc[0]
    assert row["statistic"] == pytest.approx(rm["F Value"], rel=1e-9)
    assert (row["df"], row["df_error"]) == (rm["Num DF"], rm["Den DF"])
    assert row["p_value"] == pytest.approx(rm["Pr > F"], rel=1e-9, abs=1e-15)
    if n > 250:  # the OLS with 500 query dummies takes seconds; AnovaRM above held F, dfs and p
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = anova_lm(smf.ols("value ~ C(system) + C(query)", per).fit())
    assert row["ss"] == pytest.approx(table.loc["C(system)", "sum_sq"], rel=1e-9)
    assert row["ss_error"] == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-9)
    assert row["mse"] == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-9)
    ss = table.loc["C(system)", "sum_sq"]
    assert row["partial_eta_sq"] == pytest.approx(ss / (ss + table.loc["Residual", "sum_sq"]), rel=1e-9)
    assert (row["n"], row["systems"], row["groups"], row["term"]) == (n, s, 1, "system")


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("n, s, g", [(4, 2, 2), (7, 3, 2), (12, 4, 3), (30, 6, 4), (90, 3, 2), (150, 5, 3)])
def test_split_plot_interaction_equals_nested_ols_models(n, s, g, seed):
    per = _design(100 + seed, n, s, g)
    out = anova_values(per, ["AP"], [], "grp", "query", "system").set_index("term")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = smf.ols("value ~ C(query) + C(system)", per).fit()
        full = smf.ols("value ~ C(query) + C(system) + C(system):C(grp)", per).fit()
        cmp = anova_lm(small, full).iloc[1]
        full_table = anova_lm(full)
    inter = out.loc["system:segment"]
    assert inter["ss"] == pytest.approx(cmp["ss_diff"], rel=1e-9)
    assert inter["df"] == cmp["df_diff"] == (s - 1) * (g - 1)
    assert inter["df_error"] == full.df_resid == (s - 1) * (n - g)
    assert inter["statistic"] == pytest.approx(cmp["F"], rel=1e-9)
    assert inter["p_value"] == pytest.approx(cmp["Pr(>F)"], rel=1e-9, abs=1e-15)
    assert inter["mse"] == pytest.approx(full.ssr / full.df_resid, rel=1e-9)
    main = out.loc["system"]
    assert main["ss"] == pytest.approx(full_table.loc["C(system)", "sum_sq"], rel=1e-9)
    assert main["statistic"] == pytest.approx(full_table.loc["C(system)", "sum_sq"] / (s - 1) / inter["mse"], rel=1e-9)
    assert main["df_error"] == inter["df_error"]


def test_segments_are_separate_anovas_and_the_bundled_table_matches_anovarm():
    """by= runs one ANOVA per segment: each equals AnovaRM on that segment's per-query values (evaluate's)."""
    df = pd.read_parquet(PAIRED)
    out = rankframe.anova(df, ["AP", "nDCG@5"], by="length")
    per = rankframe.evaluate(df, ["AP", "nDCG@5"], by=["length", "system"], per_query=True)
    for (length, metric), part in per.groupby(["length", "metric"]):
        rm = AnovaRM(part, "value", "query", within=["system"]).fit().anova_table.iloc[0]
        row = out[(out["length"] == length) & (out["metric"] == metric)].iloc[0]
        assert row["statistic"] == pytest.approx(rm["F Value"], rel=1e-9)
        assert row["p_value"] == pytest.approx(rm["Pr > F"], rel=1e-9)


def test_the_bundled_example_has_the_interaction_the_issue_describes():
    """Dense wins on long queries and loses on short ones: the split-plot test finds the system x length interaction."""
    df = pd.read_parquet(PAIRED)
    out = rankframe.anova(df, "AP", interaction="length").set_index("term")
    per = rankframe.evaluate(df, "AP", by=["length", "system"], per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = smf.ols("value ~ C(query) + C(system)", per).fit()
        full = smf.ols("value ~ C(query) + C(system) + C(system):C(length)", per).fit()
        cmp = anova_lm(small, full).iloc[1]
    assert out.loc["system:segment", "statistic"] == pytest.approx(cmp["F"], rel=1e-9)
    assert out.loc["system:segment", "p_value"] < 0.001


# --------------------------------------------------------------------------- docs/comparing.md's examples are current

DOC = (PAIRED.parent.parent / "docs" / "comparing.md").read_text()


def _shown(frame: pd.DataFrame) -> None:
    for line in frame.round(4).to_string(index=False).splitlines():
        assert line in DOC, line


def test_docs_anova_examples_are_current():
    df = pd.read_parquet(PAIRED)
    a = rankframe.anova(df, ["nDCG@5", "AP"])
    _shown(a[["metric", "term", "n", "systems", "statistic", "df", "df_error", "p_value", "mse", "partial_eta_sq"]])
    b = rankframe.anova(df, ["nDCG@5", "AP"], interaction="length")
    _shown(b[["metric", "term", "n", "groups", "statistic", "df", "df_error", "p_value", "mse", "partial_eta_sq"]])
    c = rankframe.anova(df, "nDCG@5", pairs=True)
    _shown(c[["metric", "system", "baseline", "delta", "mse", "effect_size"]])
    assert '>>> b = rankframe.anova(df, ["nDCG@5", "AP"], interaction="length")' in DOC
