"""compare's ``statistic``, ``df`` and ``sd_diff`` columns, held to scipy on the bundled data and on random designs.

t-test: ``scipy.stats.ttest_rel`` (statistic, df); Wilcoxon: ``scipy.stats.wilcoxon`` (its statistic, min(W+, W-)
two-sided); randomization: the mean difference (the test's statistic sum(d) / n), df NaN; Tukey: q and the blocked
ANOVA's error df (n - 1)(k - 1); sd_diff: the sample standard deviation of the differences (ddof=1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import rankframe
from rankframe import stats
from rankframe.compare import compare

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
METRICS = ["nDCG@5", "AP"]


@pytest.fixture(scope="module")
def paired() -> pd.DataFrame:
    return pd.read_parquet(PAIRED)


@pytest.fixture(scope="module")
def wide(paired) -> pd.DataFrame:
    per = rankframe.evaluate(paired, METRICS, by=["length", "system"], per_query=True)
    return per.pivot(index=["length", "metric", "query"], columns="system", values="value")


def _pairs(wide):
    for (length, metric), block in wide.groupby(level=["length", "metric"]):
        for system in ("dense", "hybrid"):
            yield length, metric, system, block[system].to_numpy(), block["bm25"].to_numpy()


def _row(out, length, metric, system):
    mask = (out["length"] == length) & (out["metric"] == metric) & (out["system"] == system)
    assert mask.sum() == 1
    return out[mask].iloc[0]


def test_t_statistic_df_and_sd_diff_match_scipy(paired, wide):
    out = compare(paired, METRICS, baseline="bm25", by="length")
    for length, metric, system, a, b in _pairs(wide):
        ref = sps.ttest_rel(a, b)
        row = _row(out, length, metric, system)
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-10)
        assert row["df"] == ref.df == len(a) - 1
        assert row["sd_diff"] == pytest.approx(np.std(a - b, ddof=1), rel=1e-12)


def test_wilcoxon_statistic_matches_scipy(paired, wide):
    out = compare(paired, METRICS, baseline="bm25", by="length", test="wilcoxon")
    for length, metric, system, a, b in _pairs(wide):
        d = np.round(a - b, 12)  # ties exact for scipy (rankframe ties |d| within 1e-9)
        row = _row(out, length, metric, system)
        assert row["statistic"] == sps.wilcoxon(d, zero_method="wilcox").statistic
        assert np.isnan(row["df"])


def test_randomization_statistic_is_the_mean_difference(paired, wide):
    out = compare(paired, METRICS, baseline="bm25", by="length", test="randomization", n_resamples=99, seed=0)
    for length, metric, system, a, b in _pairs(wide):
        row = _row(out, length, metric, system)
        assert row["statistic"] == pytest.approx(np.mean(a - b), abs=1e-12)
        assert np.isnan(row["df"])


def test_tukey_statistic_is_q_and_df_the_error_df():
    # The hand table of test_compare.py (P@10 x 10, A: 1 3 2 2, B: 4 5 6 5, C: 4 7 1 8): MSE = 22 / 6 / 100 on
    # df = (4 - 1)(3 - 1) = 6; B - A = 0.3, q = 0.3 / sqrt(MSE / 4) = 3 / sqrt(11 / 12)
    rows = []
    for system, hits in {"A": [1, 3, 2, 2], "B": [4, 5, 6, 5], "C": [4, 7, 1, 8]}.items():
        for q, h in enumerate(hits):
            rows += [(system, f"q{q}", f"d{i}", i + 1, int(i < h)) for i in range(10)]
    df = pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])
    out = compare(df, "P@10", pairs="all")
    assert out["df"].tolist() == [6.0, 6.0, 6.0]
    np.testing.assert_allclose(out["statistic"], [3 / np.sqrt(11 / 12), 3 / np.sqrt(11 / 12), 0.0], atol=1e-12)


def test_edge_rows_have_no_statistic():
    # segment "one": n = 1, no test (statistic, df and sd_diff NaN); segment "two": both queries tie (d = 0, 0):
    # t = 0 / 0 is NaN as in scipy, while df = n - 1 = 1 and sd_diff = 0 are defined
    df = pd.DataFrame(
        {
            "system": ["A", "B"] * 3,
            "seg": ["one", "one", "two", "two", "two", "two"],
            "query": ["q1", "q1", "q2", "q2", "q3", "q3"],
            "item": ["a"] * 6,
            "rank": [1] * 6,
            "relevance": [1, 0, 1, 1, 0, 0],
        }
    )
    out = compare(df, "P@1", baseline="A", by="seg")
    one, two = out.iloc[0], out.iloc[1]
    assert np.isnan(one["statistic"]) and np.isnan(one["df"]) and np.isnan(one["sd_diff"])
    assert np.isnan(two["statistic"]) and two["df"] == 1.0 and two["sd_diff"] == 0.0
    assert np.isnan(sps.ttest_rel([1.0, 0.0], [1.0, 0.0]).statistic)


@pytest.mark.parametrize("n", [2, 3, 5, 17, 200, 5000])
def test_t_kernel_statistic_and_df_on_random_designs(n):
    rng = np.random.default_rng(n)
    x, y = rng.random((n, 3)), rng.random((n, 3))
    x[:, 2] = np.round(x[:, 2], 1)  # discrete values, as P@10
    y[:, 2] = np.round(y[:, 2], 1)
    res = stats.ttest(stats.summarize(x, y, np.array([0, n])))
    for c in range(3):
        ref = sps.ttest_rel(x[:, c], y[:, c])
        assert res.statistic[0, c] == pytest.approx(ref.statistic, rel=1e-9)
        assert res.df[0, c] == ref.df


# --------------------------------------------------------------------------- docs/comparing.md's new examples run


DOC = (PAIRED.parent.parent / "docs" / "comparing.md").read_text()


def _shown(frame: pd.DataFrame) -> None:
    for line in frame.round(4).to_string(index=False).splitlines():
        assert line in DOC, line


def test_docs_reporting_example(paired):
    out = rankframe.compare(paired, "AP", baseline="bm25", by="length")
    r = out[(out["length"] == "short") & (out["system"] == "dense")].iloc[0]
    line = (
        f"{r.system} vs {r.baseline}, AP, {r.length} queries: t({r.df:.0f}) = {r.statistic:.2f}, p = {r.p_value:.3f} "
        f"(Holm-adjusted {r.p_adjusted:.3f}), delta = {r.delta:.3f}, 95% CI [{r.ci_low:.3f}, {r.ci_high:.3f}], "
        f"d_z = {r.effect_size:.2f}"
    )
    assert "\n" + line + "\n" in DOC
    per = rankframe.evaluate(paired, "AP", by=["length", "system"], per_query=True)
    short = per[per["length"] == "short"].pivot(index="query", columns="system", values="value")
    ref = sps.ttest_rel(short["dense"], short["bm25"])  # scipy: t(15) = -2.14 on the 16 short queries
    assert (round(float(ref.statistic), 2), ref.df) == (-2.14, 15)


def test_docs_non_inferiority_example(paired):
    gate = rankframe.compare(paired, ["nDCG@5", "AP"], baseline="bm25", margin=0.05)
    _shown(gate[["metric", "system", "delta", "ci_low", "statistic", "p_value", "p_adjusted"]])
    dense = gate[gate["system"] == "dense"]
    assert (dense["ci_low"] < -0.05).all() and (dense["p_adjusted"] >= 0.05).all()  # "not shown", as the text says


def test_docs_power_example(paired):
    allq = rankframe.compare(paired, "nDCG@5", baseline="bm25")
    _shown(allq[["system", "n", "delta", "ci_low", "ci_high", "p_value", "sd_diff", "mde"]])
    assert round(rankframe.power(0.2562, 32), 3) == 0.131 and ">>> round(rankframe.power(0.2562, 32), 3)" in DOC
    assert rankframe.topic_set_size(0.05, 0.2562) == 209 and "\n209\n" in DOC
