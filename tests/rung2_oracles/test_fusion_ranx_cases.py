"""ranx's own fusion and normalisation test values (tests/unit/ranx/fusion/*_test.py and normalization/*_test.py
of AmenRa/ranx), on the same three runs, through rankframe.fuse: the values are transcribed, ranx is not called.

ranx's runs: run_1 = {q1: d1 1, d2 2, d3 3; q2: d1 1, d2 2}, run_2 = {q1: d1 3, d2 2; q2: d1 1, d3 3},
run_3 = {q1: d3 1; q2: d2 2, d3 3}. The scores have no ties within a run, so every order is ranx's too.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.core.columns import Columns
from rankframe.fusion.normalize import normalise
from rankframe.fusion.runs import candidates, read_runs

RANX_RUNS = {
    "run_1": {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},
    "run_2": {"q1": {"d1": 3, "d2": 2}, "q2": {"d1": 1, "d3": 3}},
    "run_3": {"q1": {"d3": 1}, "q2": {"d2": 2, "d3": 3}},
}


def long_table(runs: dict) -> pd.DataFrame:
    rows = [(s, q, d, float(v)) for s, qs in runs.items() for q, docs in qs.items() for d, v in docs.items()]
    return pd.DataFrame(rows, columns=["system", "query", "item", "score"])


def fused(method: str, runs: dict = RANX_RUNS, **options) -> dict:
    out = rankframe.fuse(long_table(runs), method, **options)
    rows = out[out.system == method]
    return {(q, d): v for q, d, v in zip(rows["query"], rows["item"], rows["score"])}


def by_query(values: dict) -> dict:
    """ranx's tests list q1 d1..d3, then q2 d1..d3: the same key order here."""
    return {(q, d): values[q][d] for q in ("q1", "q2") for d in ("d1", "d2", "d3") if d in values.get(q, {})}


SIGMA = 0.01
CASES = {
    "rrf": ({}, {"q1": {"d1": 1 / 63 + 1 / 61, "d2": 1 / 62 + 1 / 62, "d3": 1 / 61 + 1 / 61},
                 "q2": {"d1": 1 / 62 + 1 / 62, "d2": 1 / 61 + 1 / 62, "d3": 1 / 61 + 1 / 61}}),
    "isr": ({}, {"q1": {"d1": (1 / 9 + 1) * 2, "d2": (1 / 4 + 1 / 4) * 2, "d3": 2 * 2},
                 "q2": {"d1": (1 / 4 + 1 / 4) * 2, "d2": (1 + 1 / 4) * 2, "d3": 2 * 2}}),
    "log_isr": ({}, {"q1": {"d1": (1 / 9 + 1) * math.log(2), "d2": 0.5 * math.log(2), "d3": 2 * math.log(2)},
                     "q2": {"d1": 0.5 * math.log(2), "d2": 1.25 * math.log(2), "d3": 2 * math.log(2)}}),
    "logn_isr": ({"sigma": SIGMA}, {"q1": {"d1": (1 / 9 + 1) * math.log(2 + SIGMA), "d2": 0.5 * math.log(2 + SIGMA),
                                           "d3": 2 * math.log(2 + SIGMA)},
                                    "q2": {"d1": 0.5 * math.log(2 + SIGMA), "d2": 1.25 * math.log(2 + SIGMA),
                                           "d3": 2 * math.log(2 + SIGMA)}}),
    "combsum": ({"norm": "none"}, {"q1": {"d1": 4, "d2": 4, "d3": 4}, "q2": {"d1": 2, "d2": 4, "d3": 6}}),
    "combmnz": ({"norm": "none"}, {"q1": {"d1": 8, "d2": 8, "d3": 8}, "q2": {"d1": 4, "d2": 8, "d3": 12}}),
    "combanz": ({"norm": "none"}, {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    "combmax": ({"norm": "none"}, {"q1": {"d1": 3, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    "combmin": ({"norm": "none"}, {"q1": {"d1": 1, "d2": 2, "d3": 1}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    "combmed": ({"norm": "none"}, {"q1": {"d1": 2, "d2": 2, "d3": 2}, "q2": {"d1": 1, "d2": 2, "d3": 3}}),
    "combgmnz": ({"norm": "none", "gamma": 0.0}, {"q1": {"d1": 4, "d2": 4, "d3": 4},
                                                   "q2": {"d1": 2, "d2": 4, "d3": 6}}),
    "bordafuse": ({}, {"q1": {"d1": 1 + 3 + 1.5, "d2": 2 + 2 + 1.5, "d3": 3 + 1 + 3},
                       "q2": {"d1": 2 + 2 + 1, "d2": 3 + 1 + 2, "d3": 1 + 3 + 3}}),
    "w_bordafuse": ({"weights": {"run_1": 3, "run_2": 2, "run_3": 1}},
                    {"q1": {"d1": 3 * 1 + 2 * 3 + 1.5, "d2": 3 * 2 + 2 * 2 + 1.5, "d3": 3 * 3 + 2 * 1 + 3},
                     "q2": {"d1": 3 * 2 + 2 * 2 + 1, "d2": 3 * 3 + 2 * 1 + 2, "d3": 3 * 1 + 2 * 3 + 3}}),
    "wmnz": ({"norm": "none", "weights": {"run_1": 1, "run_2": 1, "run_3": 1}},
             {"q1": {"d1": 8, "d2": 8, "d3": 8}, "q2": {"d1": 4, "d2": 8, "d3": 12}}),
    "mixed": ({"norm": "none", "weights": {"run_1": 1, "run_2": 1, "run_3": 1}},
              {"q1": {"d1": 4 * math.sqrt(2), "d2": 4 * math.sqrt(2), "d3": 4 * math.sqrt(2)},
               "q2": {"d1": 2 * math.sqrt(2), "d2": 4 * math.sqrt(2), "d3": 6 * math.sqrt(2)}}),
}  # fmt: skip


@pytest.mark.parametrize("method", list(CASES))
def test_ranx_own_fusion_values(method):
    options, expected = CASES[method]
    got = fused(method, **options)
    want = by_query(expected)
    assert got.keys() == want.keys()
    # rtol 1e-11: fused scores are rounded to 12 significant digits (fusion.methods.FUSED_DIGITS), a relative change
    # of at most 5e-12; the issue holds the scores to 1e-9
    np.testing.assert_allclose([got[k] for k in want], list(want.values()), rtol=1e-11)


RBC_RUNS = {
    "run_1": {"q1": {"A": 7, "D": 6, "B": 5, "C": 4, "G": 3, "F": 2}},
    "run_2": {"q1": {"B": 7, "D": 6, "E": 5, "C": 4}},
    "run_3": {"q1": {"A": 7, "B": 6, "D": 5, "C": 4, "G": 3, "F": 2, "E": 1}},
    "run_4": {"q1": {"G": 7, "D": 6, "E": 5, "A": 4, "F": 3, "C": 2}},
}


@pytest.mark.parametrize(
    ("phi", "expected"),
    [
        (0.6, {"A": 0.89, "D": 0.86, "B": 0.78, "G": 0.50, "E": 0.31, "C": 0.29, "F": 0.11}),
        (0.8, {"D": 0.61, "A": 0.50, "B": 0.49, "C": 0.37, "G": 0.36, "E": 0.31, "F": 0.21}),
    ],
)
def test_ranx_own_rbc_values(phi, expected):
    out = rankframe.fuse(long_table(RBC_RUNS), "rbc", phi=phi)
    rows = out[out.system == "rbc"]
    assert list(rows["item"]) == list(expected)  # ranx lists them in its fused order
    assert {d: round(v, 2) for d, v in zip(rows["item"], rows["score"])} == expected


def normalised(runs: dict, norm: str) -> dict:
    table = long_table(runs)
    r = read_runs(table, Columns(), None)
    r, _ = normalise(r, candidates(r), norm)
    return {
        (r.systems[s], str(q), str(r.items[i])): v
        for s, q, i, v in zip(r.sys, np.asarray(["q1", "q2"])[r.unit], r.item, r.value)
    }


def test_ranx_own_min_max_and_zmuv_values():
    one = {"run_1": RANX_RUNS["run_1"], "run_2": RANX_RUNS["run_2"]}
    mm, z = normalised(one, "min-max"), normalised(one, "zmuv")
    assert [mm["run_1", "q1", d] for d in ("d1", "d2", "d3")] == [0.0, 0.5, 1.0]
    assert [mm["run_1", "q2", d] for d in ("d1", "d2")] == [0.0, 1.0]
    sd = 0.816496580927726
    np.testing.assert_allclose([z["run_1", "q1", d] for d in ("d1", "d2", "d3")], [-1 / sd, 0.0, 1 / sd])
    np.testing.assert_allclose([z["run_1", "q2", d] for d in ("d1", "d2")], [-1.0, 1.0])


def test_ranx_own_borda_norm_values():
    b = normalised(RANX_RUNS, "borda")
    expected = {
        ("run_1", "q1"): {"d1": 1 / 3, "d2": 2 / 3, "d3": 1.0},
        ("run_1", "q2"): {"d1": 2 / 3, "d2": 1.0, "d3": 1 / 3},
        ("run_2", "q1"): {"d1": 1.0, "d2": 2 / 3, "d3": 1 / 3},
    }
    for (s, q), docs in expected.items():
        np.testing.assert_allclose([b[s, q, d] for d in docs], list(docs.values()))
