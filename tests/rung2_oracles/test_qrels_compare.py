"""rankframe.qrels_compare: the systems' rankings under two judgment sets, their tau-b and tau_AP, the verdict flips.

Judges: scipy.stats.kendalltau (tau-b, its default variant) over the systems' means; trectools' tau_AP, ported
literally below from joaopalotti/trectools ``trectools/misc.py`` (``sort_systems_by`` and ``get_correlation``'s
``tau_ap``); hand derivations beside the values. The means themselves are rankframe.evaluate's (held to trec_eval
elsewhere): here they are recomputed with evaluate(qrels=...) directly.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

import rankframe
from rankframe.core.errors import ParameterError


# -------------------------------------------------------------------------------------------------- trectools' code
def sort_systems_by(results: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """trectools/misc.py sort_systems_by: values descending, then the run name ascending (sorting twice)."""
    return sorted(sorted(results, key=lambda x: x[1]), key=lambda x: x[0], reverse=True)


def trectools_tau_ap(sorted1: list[tuple[float, str]], sorted2: list[tuple[float, str]]) -> float:
    """trectools/misc.py get_correlation(sorted1, sorted2, correlation="tauap")[0], line by line."""

    def tau_ap(list1, list2):
        # List2 is the ground truth and list 1 is the list that we want to compare the tau_ap with.
        N = len(list1)
        c = [0] * N
        for i, element in enumerate(list1[1:]):
            index_element_in_2 = list2.index(element)
            for other_element in list1[: i + 1]:
                index_other_in_2 = list2.index(other_element)
                if index_element_in_2 > index_other_in_2 or other_element == element:
                    c[i] += 1
        summation = 0
        for i in range(1, N):
            summation += 1.0 * c[i - 1] / (i)
        p = 1.0 / (N - 1) * summation
        return (2 * p - 1.0, -1)

    s1 = list(zip(*sorted1))[1]
    s2 = list(zip(*sorted2))[1]
    m = dict(list(zip(s1, list(range(len(s2))))))
    new_rank = []
    for s in s2:
        new_rank.append(m[s])
    return tau_ap(new_rank, range(len(s1)))[0]


# ------------------------------------------------------------------------------------------------------- hand case
RUNS = pd.DataFrame(
    {
        "system": ["A", "A", "B", "B", "C", "C"],
        "query": ["q"] * 6,
        "item": ["x", "y", "y", "z", "z", "x"],
        "rank": [1, 2, 1, 2, 1, 2],
    }
)
HUMAN = pd.DataFrame({"query": ["q"] * 3, "item": ["x", "y", "z"], "relevance": [1, 0, 0]})
LLM = pd.DataFrame({"query": ["q"] * 3, "item": ["x", "y", "z"], "relevance": [1, 1, 0]})


def test_hand_case():
    out = rankframe.qrels_compare(RUNS, HUMAN, LLM, ["RR", "P@1"])
    rr = out[out["metric"] == "RR"]
    # RR under HUMAN (x relevant): A [x, y] 1, B [y, z] 0, C [z, x] 1/2 -> order A, C, B
    # under LLM (x, y relevant): A 1, B 1, C 1/2 -> order A, B (tied with A: by name), C
    assert rr["system"].tolist() == ["A", "C", "B"]  # rows by rank under qrels_a
    assert rr["mean_a"].tolist() == [1.0, 0.5, 0.0] and rr["mean_b"].tolist() == [1.0, 0.5, 1.0]
    assert rr["rank_b"].tolist() == [1, 3, 2]
    # tau-b: A-C concordant, B-C discordant, A-B tied under LLM only: (1 - 1) / sqrt(3 * 2) = 0
    # tau_AP (HUMAN the truth): B 2nd under LLM, A above it correctly: 1/1; C 3rd, A of {A, B} correctly: 1/2
    #   p = (1 + 1/2) / 2 = 3/4, tau_AP = 2 p - 1 = 1/2
    assert rr["kendall_tau"].tolist() == [0.0] * 3 and rr["tau_ap"].tolist() == [0.5] * 3
    p1 = out[out["metric"] == "P@1"]
    # P@1: HUMAN A 1, B 0, C 0 (B, C tied); LLM A 1, B 1, C 0: pairs A-B (+, 0), A-C (+, +), B-C (0, +):
    #   tau-b = 1 / sqrt(2 * 2) = 1/2; orders A, B, C under both (ties by name): tau_AP = 1
    assert p1["kendall_tau"].tolist() == [0.5] * 3 and p1["tau_ap"].tolist() == [1.0] * 3
    assert out["metric"].unique().tolist() == ["RR", "P@1"]  # the metrics in the order given
    assert (out["n_systems"] == 3).all() and (out["note"] == "").all()


# ------------------------------------------------------------------------------------------- the oracles, at random
def _random(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """7 systems x 8 queries (in two segments) ranking 4 of 10 items; qrels_b flips a quarter of qrels_a's labels."""
    rng = random.Random(seed)
    rows = []
    for s in range(7):
        for q in range(8):
            for r, item in enumerate(rng.sample(range(10), 4), start=1):
                rows.append({"system": f"s{s}", "seg": "x" if q < 4 else "y", "query": q, "item": item, "rank": r})
    runs = pd.DataFrame(rows)
    qa = pd.DataFrame(
        [{"query": q, "item": i, "relevance": rng.choice([0, 0, 1])} for q in range(8) for i in range(10)]
    )
    qb = qa.assign(relevance=[1 - g if rng.random() < 0.25 else g for g in qa["relevance"]])
    return runs, qa, qb


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kendall_tau_is_scipys_and_tau_ap_is_trectools(seed):
    runs, qa, qb = _random(seed)
    # P@2 and P@4 over 4 queries per segment: means are multiples of 1/8 and 1/16, exact in binary, so equal means
    # are tied alike here and in trectools' exact sort
    metrics = ["P@2", "P@4"]
    out = rankframe.qrels_compare(runs, qa, qb, metrics, by="seg")
    checked = 0
    for (seg, metric), grp in out.groupby(["seg", "metric"]):
        part = runs[runs["seg"] == seg]  # and its queries' judgments (a judged query outside it is no unit of it)
        ea = rankframe.evaluate(part, [metric], by="system", qrels=qa[qa["query"].isin(part["query"])])
        eb = rankframe.evaluate(part, [metric], by="system", qrels=qb[qb["query"].isin(part["query"])])
        a = dict(zip(ea["system"], ea["value"]))
        b = dict(zip(eb["system"], eb["value"]))
        names = sorted(a)
        assert dict(zip(grp["system"], grp["mean_a"])) == a and dict(zip(grp["system"], grp["mean_b"])) == b
        want = kendalltau([a[s] for s in names], [b[s] for s in names]).statistic
        got = grp["kendall_tau"].iloc[0]
        assert (math.isnan(want) and math.isnan(got)) or math.isclose(got, want, abs_tol=1e-12), (seg, metric)
        want_ap = trectools_tau_ap(
            sort_systems_by([(a[s], s) for s in names]), sort_systems_by([(b[s], s) for s in names])
        )
        assert math.isclose(grp["tau_ap"].iloc[0], want_ap, abs_tol=1e-12), (seg, metric)
        # the ranks are trectools' orders (1 = first)
        order_a = [s for _, s in sort_systems_by([(a[s], s) for s in names])]
        assert grp.sort_values("rank_a")["system"].tolist() == order_a
        checked += 1
    assert checked == 4


def test_baseline_verdicts_and_flips_are_compares():
    runs, qa, qb = _random(7)
    out = rankframe.qrels_compare(runs, qa, qb, ["P@4"], baseline="s0")
    for side, q in (("a", qa), ("b", qb)):
        c = rankframe.compare(runs, ["P@4"], system="system", baseline="s0", qrels=q)
        sig = c["p_adjusted"] < 0.05
        want = np.where(sig & (c["delta"] > 0), "better", np.where(sig & (c["delta"] < 0), "worse", "same"))
        got = out.set_index("system").loc[c["system"], f"verdict_{side}"]
        assert got.tolist() == want.tolist()
    rows = out[out["system"] != "s0"]
    assert (rows["flipped"] == (rows["verdict_a"] != rows["verdict_b"])).all()
    assert out.loc[out["system"] == "s0", "flipped"].isna().all()


def test_a_flip_shows():
    # 4 queries; B finds the item LLM calls relevant, A the one the human does: A > B under HUMAN, B > A under LLM
    runs = pd.DataFrame(
        {"system": ["A"] * 4 + ["B"] * 4, "query": [1, 2, 3, 4] * 2, "item": ["h"] * 4 + ["l"] * 4, "rank": [1] * 8}
    )
    human = pd.DataFrame({"query": [1, 2, 3, 4] * 2, "item": ["h"] * 4 + ["l"] * 4, "relevance": [1] * 4 + [0] * 4})
    llm = human.assign(relevance=[0] * 4 + [1] * 4)
    out = rankframe.qrels_compare(runs, human, llm, "P@1", baseline="A")
    b = out[out["system"] == "B"].iloc[0]
    # B - A is -1 on every query under HUMAN, +1 under LLM (4 of 4 queries, no spread): compare calls B worse, then
    # better; the ranks swap (tau-b = -1, tau_AP = -1)
    assert (b["verdict_a"], b["verdict_b"], bool(b["flipped"])) == ("worse", "better", True)
    assert b["kendall_tau"] == -1.0 and b["tau_ap"] == -1.0 and (b["rank_a"], b["rank_b"]) == (2, 1)


# --------------------------------------------------------------------------------------------------------- hostile
def test_mismatched_columns_name_both_sides():
    with pytest.raises(
        ParameterError, match=r"qrels_b.*qrels_a alone has \['relevance'\], qrels_b alone has \['grade'\]"
    ):
        rankframe.qrels_compare(RUNS, HUMAN, LLM.rename(columns={"relevance": "grade"}), "RR")


def test_a_system_without_a_mean_under_one_qrels_is_left_out_with_a_note():
    # C retrieves only q2's items; qrels_b judges only q1: under no_retrieved="skip" C has no unit under qrels_b
    runs = pd.DataFrame(
        {
            "system": ["A", "A", "B", "B", "C"],
            "query": ["q1", "q2", "q1", "q2", "q2"],
            "item": ["x", "u", "y", "u", "u"],
            "rank": [1, 1, 1, 1, 1],
        }
    )
    qa = pd.DataFrame({"query": ["q1", "q1", "q2"], "item": ["x", "y", "u"], "relevance": [1, 0, 1]})
    qb = pd.DataFrame({"query": ["q1", "q1"], "item": ["x", "y"], "relevance": [0, 1]})
    out = rankframe.qrels_compare(runs, qa, qb, "P@1", no_retrieved="skip")
    c = out[out["system"] == "C"].iloc[0]
    assert math.isnan(c["mean_b"]) and pd.isna(c["rank_a"]) and "no mean under qrels_b" in c["note"]
    # A and B: q1 only under qrels_b (A 0, B 1), q1 and q2 under qrels_a (A 1, B 1/2): reversed, tau-b = -1
    assert (out["n_systems"] == 2).all() and out.loc[out["system"] == "A", "kendall_tau"].item() == -1.0


def test_one_system_gives_nan_taus_with_a_note():
    out = rankframe.qrels_compare(RUNS[RUNS["system"] == "A"], HUMAN, LLM, "RR")
    assert math.isnan(out["kendall_tau"].item()) and math.isnan(out["tau_ap"].item())
    assert "fewer than 2 systems" in out["note"].item()


def test_a_bad_baseline_says_did_you_mean():
    runs = RUNS.replace({"system": {"A": "bm25", "B": "dense", "C": "splade"}})
    with pytest.raises(ParameterError, match="did you mean 'bm25'"):
        rankframe.qrels_compare(runs, HUMAN, LLM, "RR", baseline="bm52")


def test_inputs_are_not_changed():
    before = [RUNS.copy(), HUMAN.copy(), LLM.copy()]
    rankframe.qrels_compare(RUNS, HUMAN, LLM, "RR", baseline="A")
    for frame, copy in zip((RUNS, HUMAN, LLM), before):
        pd.testing.assert_frame_equal(frame, copy)


# ------------------------------------------------------------------------------------------------------ properties
@pytest.mark.parametrize("seed", [4, 5])
def test_each_segment_alone_and_row_order(seed):
    runs, qa, qb = _random(seed)
    cols = ["metric", "system", "mean_a", "mean_b", "rank_a", "rank_b", "n_systems", "kendall_tau", "tau_ap"]
    whole = rankframe.qrels_compare(runs, qa, qb, ["P@2", "AP"], by="seg", baseline="s0")
    for seg in ("x", "y"):
        part = runs[runs["seg"] == seg]
        alone = rankframe.qrels_compare(
            part.drop(columns="seg"),
            qa[qa["query"].isin(part["query"])],
            qb[qb["query"].isin(part["query"])],
            ["P@2", "AP"],
            baseline="s0",
        )
        mine = whole[whole["seg"] == seg].drop(columns="seg").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine[cols], alone[cols], check_dtype=False)
    # the rows' order of the inputs does not matter
    shuffled = rankframe.qrels_compare(
        runs.sample(frac=1, random_state=seed), qa.sample(frac=1, random_state=1), qb, ["P@2", "AP"], by="seg"
    )
    pd.testing.assert_frame_equal(shuffled[cols], whole[cols], check_dtype=False)
