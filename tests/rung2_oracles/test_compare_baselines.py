"""Several baselines in one call, and the per-row n_filled / n_dropped of ``missing=``.

Oracles: scipy's ttest_rel on evaluate's per-query values for each (system, baseline) pair, statsmodels' Holm over
every row of the call, and hand counts of what the missing policy did.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

import rankframe
from rankframe.core.errors import ParameterError

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"


@pytest.fixture(scope="module")
def paired() -> pd.DataFrame:
    return pd.read_parquet(PAIRED)


@pytest.mark.parametrize("by", [[], ["length"]])
def test_each_system_against_each_baseline_with_one_correction(paired, by):
    baselines = ["dense", "bm25"]
    out = rankframe.compare(paired, ["AP", "nDCG@5"], baseline=baselines, by=by or None)
    # the pairs: every other system against dense, then every system but dense against bm25 (dense vs bm25 once)
    expected_pairs = [("bm25", "dense"), ("hybrid", "dense"), ("hybrid", "bm25")]
    per_block = out.groupby([*by, "metric"], sort=False)[["system", "baseline"]].apply(
        lambda g: list(zip(g["system"], g["baseline"]))
    )
    assert all(pairs == expected_pairs for pairs in per_block), per_block
    per = rankframe.evaluate(paired, ["AP", "nDCG@5"], by=[*by, "system"], per_query=True)
    wide = per.pivot(index=[*by, "metric", "query"], columns="system", values="value")
    for row in out.to_dict("records"):
        key = tuple(row[c] for c in [*by, "metric"])
        block = wide.xs(key, level=[*by, "metric"]) if by else wide.xs(row["metric"], level="metric")
        res = sps.ttest_rel(block[row["system"]], block[row["baseline"]])
        assert row["p_value"] == pytest.approx(res.pvalue, rel=1e-9)
        assert row["delta"] == pytest.approx((block[row["system"]] - block[row["baseline"]]).mean(), abs=1e-12)
    # Holm over every row of the call: one family, whatever the baseline of a row
    holm = multipletests(out["p_value"].to_numpy(), method="holm")[1]
    np.testing.assert_allclose(out["p_adjusted"].to_numpy(), holm, rtol=1e-12)
    assert out.attrs["baseline"] == baselines


def test_one_baseline_in_a_list_is_that_baseline(paired):
    one = rankframe.compare(paired, "AP", baseline="bm25")
    listed = rankframe.compare(paired, "AP", baseline=["bm25"])
    pd.testing.assert_frame_equal(one, listed)
    assert one.attrs == listed.attrs


@pytest.mark.parametrize(
    "baseline, pairs, words",
    [
        ([], "baseline", "at least one system"),
        (["bm25", "bm25"], "baseline", "'bm25' is repeated"),
        (["bm25", "dens"], "baseline", "did you mean 'dense'"),
        (["bm25", "dense"], "all", "needs pairs='baseline'"),
        (("bm25", 3), "baseline", "Got 3 instead"),
    ],
)
def test_bad_baselines_are_parameter_errors(paired, baseline, pairs, words):
    with pytest.raises(ParameterError, match=words.replace("(", r"\(")):
        rankframe.compare(paired, "AP", baseline=baseline, pairs=pairs)


def test_the_report_refuses_several_baselines(paired, tmp_path):
    with pytest.raises(ParameterError, match="one baseline"):
        rankframe.report(paired, ["AP"], baseline=["bm25", "dense"], path=tmp_path / "r.html")


def _holes() -> pd.DataFrame:
    """Systems A, B, C on queries 1-4 (one item each, relevant, at rank 1: RR 1), segment s for all.

    B has no row for query 2; C has no row for queries 2 and 3.
    - missing="zero": B's query 2 and C's queries 2, 3 are filled with 0. Rows (RR):
      B vs A: query 2 filled (B's)            -> n_filled 1
      C vs A: queries 2, 3 filled (C's)       -> n_filled 2
      C vs B: query 2 (both), query 3 (C's)   -> n_filled 2
    - missing="drop": queries 2 and 3 are misaligned (some systems have them, others not): dropped from every
      comparison of the segment -> n_dropped 2 on every row, n = 2 (queries 1 and 4).
    """
    rows = [
        (s, "s", q, "d", 1, 1)
        for s in "ABC"
        for q in (1, 2, 3, 4)
        if not (s == "B" and q == 2) and not (s == "C" and q in (2, 3))
    ]
    return pd.DataFrame(rows, columns=["system", "segment", "query", "item", "rank", "relevance"])


def test_n_filled_counts_the_queries_filled_for_either_system():
    out = rankframe.compare(_holes(), "RR", baseline=["A", "B"], by="segment", missing="zero")
    got = {(r["system"], r["baseline"]): (r["n"], r["n_filled"], r["n_dropped"]) for r in out.to_dict("records")}
    assert got == {("B", "A"): (4, 1, 0), ("C", "A"): (4, 2, 0), ("C", "B"): (4, 2, 0)}
    assert out.attrs["filled"] == 3  # the values set to 0: B's query 2, C's queries 2 and 3
    # the baseline's holes count too: A vs C has C's queries 2, 3 filled; B vs C query 2 (both) and 3 (C's)
    out = rankframe.compare(_holes(), "RR", baseline="C", by="segment", missing="zero")
    assert out[["system", "n_filled"]].values.tolist() == [["A", 2], ["B", 2]]


def test_n_dropped_counts_the_queries_left_out_of_the_segment():
    out = rankframe.compare(_holes(), "RR", baseline="A", by="segment", missing="drop")
    assert out[["n", "n_filled", "n_dropped"]].values.tolist() == [[2, 0, 2], [2, 0, 2]]


def test_without_a_policy_the_counts_are_zero(paired):
    out = rankframe.compare(paired, "AP", baseline="bm25")
    assert (out["n_filled"] == 0).all() and (out["n_dropped"] == 0).all()
    assert out["n_filled"].dtype == np.int64
