"""rankframe.agreement on hand-derived cases (the derivation beside each value), and its bootstrap interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.agreement import UNDEFINED_NOTE


def test_two_segments_by_hand():
    # segment x: (human, llm) = (2,2) (1,0) (0,0) (2,1); scale = sorted labels of the whole call = [0, 1, 2]
    #   agreement 2/4. r (human counts of 0,1,2) = [1,1,2], c (llm) = [2,1,1]; unweighted expected disagreement
    #   n^2 - sum r_i c_i = 16 - (2 + 1 + 2) = 11, observed 2 units unequal -> kappa = 1 - 4*2/11 = 3/11
    #   linear: observed |1-0| + |2-1| = 2; expected sum_ij r_i c_j |i-j| = 1*(0*2+1*1+2*1) + 1*(1*2+0+1*1)
    #   + 2*(2*2+1*1+0) = 3 + 3 + 10 = 16 -> kappa = 1 - 4*2/16 = 1/2
    #   quadratic: observed 1 + 1 = 2; expected 1*(0+1+4) + 1*(2+0+1) + 2*(8+1+0) = 5 + 3 + 18 = 26 -> 1 - 8/26 = 9/13
    # segment y: (1,1) (1,1) (0, null): one unit (the null) left out; a single label 1 -> kappa undefined
    df = pd.DataFrame({
        "seg": ["x"] * 4 + ["y"] * 3,
        "query": [1, 1, 2, 2, 3, 3, 3], "item": list("abababc"),
        "human": [2, 1, 0, 2, 1, 1, 0], "llm": [2, 0, 0, 1, 1, 1, np.nan],
    })  # fmt: skip
    plain = rankframe.agreement(df, by="seg")
    assert plain.columns.tolist() == ["seg", "n", "agreement", "kappa", "note"]
    assert plain["n"].tolist() == [4, 2]
    assert plain["agreement"].tolist() == [0.5, 1.0]
    assert plain["kappa"].iloc[0] == pytest.approx(3 / 11, abs=1e-15)
    assert np.isnan(plain["kappa"].iloc[1])
    assert plain["note"].iloc[0] is None
    assert plain["note"].iloc[1] == "1 row(s) with a null label left out; " + UNDEFINED_NOTE
    lin = rankframe.agreement(df, by="seg", weights="linear")["kappa"].iloc[0]
    quad = rankframe.agreement(df, by="seg", weights="quadratic")["kappa"].iloc[0]
    assert lin == pytest.approx(1 / 2, abs=1e-15) and quad == pytest.approx(9 / 13, abs=1e-15)
    assert df["llm"].isna().sum() == 1  # the caller's frame untouched


def test_segments_share_the_scale_of_the_whole_call():
    # the call's scale is [0, 1, 2, 3] (segment w brings the 2). Segment z: (0,0) (1,1) (0,3)
    #   linear, call scale: observed |0-3| = 3; r = [2,1,0,0], c = [1,1,0,1]:
    #   expected 2*(0*1 + 1*1 + 3*1) + 1*(1*1 + 0*1 + 2*1) = 8 + 3 = 11 -> kappa = 1 - 3*3/11 = 2/11
    #   z alone: scale [0, 1, 3] (indices 0, 1, 2): observed 2; expected 2*(0+1+2) + 1*(1+0+1) = 8 -> 1 - 3*2/8 = 1/4
    df = pd.DataFrame({"seg": ["z"] * 3 + ["w"], "human": [0, 1, 0, 2], "llm": [0, 1, 3, 2]})
    out = rankframe.agreement(df, by="seg", weights="linear").set_index("seg")
    assert out.loc["z", "kappa"] == pytest.approx(2 / 11, abs=1e-15)
    alone = rankframe.agreement(df[df["seg"] == "z"], weights="linear")["kappa"].iloc[0]
    assert alone == pytest.approx(1 / 4, abs=1e-15)
    fixed = rankframe.agreement(df[df["seg"] == "z"], weights="linear", labels=[0, 1, 2, 3])["kappa"].iloc[0]
    assert fixed == pytest.approx(2 / 11, abs=1e-15)


def test_rel_binarises_first():
    # rel=2: human (3,2,1,0) -> (1,1,0,0), llm (2,0,1,3) -> (1,0,0,1): agreement 2/4; r = [2,2], c = [2,2]
    # expected 16 - 8 = 8, observed 2 -> kappa = 1 - 4*2/8 = 0
    df = pd.DataFrame({"human": [3, 2, 1, 0], "llm": [2, 0, 1, 3]})
    out = rankframe.agreement(df, rel=2)
    assert out["agreement"].iloc[0] == 0.5 and out["kappa"].iloc[0] == 0.0


def test_alpha_by_hand():
    # two coders, three units: (1,1) (2,2) (1,2). Nominal: pairable values n_1 = 3, n_2 = 3, n = 6
    # observed: unit 3 has the ordered pairs (1,2),(2,1), each / (m_u - 1) = 1 -> 2
    # expected: sum_{c != k} n_c n_k = 2 * 9 = 18 -> alpha = 1 - (n - 1) * 2 / 18 = 1 - 10/18 = 4/9
    r = pd.DataFrame({"query": [1] * 6, "item": list("aabbcc"), "coder": list("xyxyxy"), "value": [1, 1, 2, 2, 1, 2]})
    out = rankframe.agreement(r, coder="coder", value="value")
    assert out["n"].iloc[0] == 3 and out["alpha"].iloc[0] == pytest.approx(4 / 9, abs=1e-15)
    # interval: delta = (1-2)^2 = 1 for the same pairs: the same 4/9
    assert rankframe.agreement(r, level="interval")["alpha"].iloc[0] == pytest.approx(4 / 9, abs=1e-15)


def test_ci_of_identical_queries_is_the_point():
    # segment s: every query holds the same two units (1,1) (0,1): every resample has the same label counts, so the
    # interval is kappa itself: r = [1,1], c = [0,2]: expected 4 - 1*0 - 1*2 = 2, observed 1 -> 1 - 2*1/2 = 0.
    # Segment t's queries differ (its interval is wide): a resample of s never draws them (each segment alone).
    df = pd.DataFrame({
        "seg": ["s"] * 6 + ["t"] * 6,
        "query": np.repeat([1, 2, 3, 4, 5, 6], 2), "item": ["a", "b"] * 6,
        "human": [1, 0] * 3 + [2, 2, 0, 0, 2, 0], "llm": [1, 1] * 3 + [2, 2, 0, 2, 0, 0],
    })  # fmt: skip
    out = rankframe.agreement(df, by="seg", ci=0.9, n_resamples=200, seed=3)
    assert out[["kappa", "ci_low", "ci_high"]].iloc[0].tolist() == pytest.approx([0.0, 0.0, 0.0], abs=1e-15)
    assert out["ci_high"].iloc[1] - out["ci_low"].iloc[1] > 0.1
    assert out.attrs["seed"] == 3 and out.attrs["n_resamples"] == 200


@pytest.mark.slow  # 2,000 scikit-learn calls: ~10 s
def test_ci_matches_a_loop_cluster_bootstrap():
    """The interval against a plain loop over resamples (queries drawn with replacement, cohen_kappa_score on the
    drawn queries' units), within the Monte Carlo error of 2,000 resamples each."""
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(7)
    n_q, per = 40, 5
    human = rng.integers(0, 3, n_q * per)
    llm = np.where(rng.random(n_q * per) < 0.6, human, rng.integers(0, 3, n_q * per))
    df = pd.DataFrame({"query": np.repeat(np.arange(n_q), per), "item": np.tile(np.arange(per), n_q),
                       "human": human, "llm": llm})  # fmt: skip
    out = rankframe.agreement(df, weights="quadratic", ci=0.9, n_resamples=2000, seed=1)
    kappas = []
    for _ in range(2000):
        qs = rng.integers(0, n_q, n_q)
        rows = (qs[:, None] * per + np.arange(per)).ravel()
        kappas.append(cohen_kappa_score(human[rows], llm[rows], weights="quadratic", labels=[0, 1, 2]))
    low, high = np.quantile(kappas, [0.05, 0.95])
    assert out["ci_low"].iloc[0] == pytest.approx(low, abs=0.03)
    assert out["ci_high"].iloc[0] == pytest.approx(high, abs=0.03)
    assert out["ci_high"].iloc[0] - out["ci_low"].iloc[0] > 0.05


def test_accessor_is_the_function():
    df = pd.DataFrame({"qid": [1, 1, 2], "item": ["a", "b", "a"], "human": [1, 0, 1], "llm": [1, 1, 1]})
    via = df.rank_metrics(query="qid").agreement(ci=0.9, n_resamples=20, seed=0)
    direct = rankframe.agreement(df, ci=0.9, n_resamples=20, seed=0, columns={"query": "qid"})
    pd.testing.assert_frame_equal(via, direct)


def test_any_table_in_any_table_out():
    # (1,1) (0,0) (1,0) and a null: n = 3, agreement 2/3; r = [1,2], c = [2,1]: expected 9 - (2 + 2) = 5,
    # observed 1 -> kappa = 1 - 3/5 = 0.4
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    d = {"query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"], "human": [1, 0, 1, 1], "llm": [1, 0, 0, None]}
    for data in (pd.DataFrame(d), pa.table(d), pl.DataFrame(d), pl.DataFrame(d).lazy()):
        out = rankframe.agreement(data, output="arrow").to_pydict()
        assert out["n"] == [3] and out["kappa"][0] == pytest.approx(0.4, abs=1e-15)
    assert isinstance(pl.DataFrame(d).rank_metrics.agreement(), pl.DataFrame)
