"""rankframe.agreement against its oracles.

- Cohen's kappa: scikit-learn's own cases (sklearn/metrics/tests/test_classification.py, ``test_cohen_kappa`` and
  ``test_cohen_kappa_undefined``, scikit-learn 1.9), and ``cohen_kappa_score`` on random tables, per segment looped.
- Krippendorff's alpha: the ``krippendorff`` package's published values (tests/test_krippendorff.py of
  github.com/pln-fing-udelar/fast-krippendorff), and ``krippendorff.alpha`` on random tables (second oracle).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

import rankframe

krippendorff = pytest.importorskip("krippendorff")


def _two(y1, y2, **extra) -> pd.DataFrame:
    return pd.DataFrame({"query": np.arange(len(y1)) // 3, "item": np.arange(len(y1)), "human": y1, "llm": y2, **extra})


# ------------------------------------------------------------------ scikit-learn's test_cohen_kappa, case by case
def test_sklearn_artstein_poesio_table_1():
    # sklearn: contingency [[20, 20], [10, 50]] -> kappa 0.348 (decimal=3), symmetric in its arguments
    y1 = np.array([0] * 40 + [1] * 60)
    y2 = np.array([0] * 20 + [1] * 20 + [0] * 10 + [1] * 50)
    k = rankframe.agreement(_two(y1, y2))["kappa"].iloc[0]
    assert round(k, 3) == 0.348
    assert k == rankframe.agreement(_two(y2, y1))["kappa"].iloc[0]
    assert rankframe.agreement(_two(y1, y1))["kappa"].iloc[0] == pytest.approx(1.0)


def test_sklearn_spurious_labels_are_an_error_here():
    # sklearn's labels=[0, 1] ignores the units labelled 2; rankframe's settled rule: a label outside the scale is
    # a ValidationError naming the column. Leaving those units out ourselves gives sklearn's kappa (0.348).
    y1 = np.array([0] * 40 + [1] * 60 + [2] * 4)
    y2 = np.array([0] * 20 + [1] * 20 + [0] * 10 + [1] * 50 + [2] * 4)
    with pytest.raises(rankframe.ValidationError, match="'human'.*outside the scale"):
        rankframe.agreement(_two(y1, y2), labels=[0, 1])
    k = rankframe.agreement(_two(y1[:100], y2[:100]), labels=[0, 1])["kappa"].iloc[0]
    assert k == cohen_kappa_score(y1, y2, labels=[0, 1])


def test_sklearn_multiclass_and_weights():
    # sklearn: Artstein and Poesio Table 4 -> 0.8013; the weighting example -> 0.9315, 0.9412, 0.9541 (decimal=4)
    y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
    y2 = np.array([0] * 52 + [1] * 32 + [2] * 16)
    assert round(rankframe.agreement(_two(y1, y2))["kappa"].iloc[0], 4) == 0.8013
    y2 = np.array([0] * 50 + [1] * 40 + [2] * 10)
    for weights, expected in ((None, 0.9315), ("linear", 0.9412), ("quadratic", 0.9541)):
        assert round(rankframe.agreement(_two(y1, y2), weights=weights)["kappa"].iloc[0], 4) == expected


@pytest.mark.filterwarnings("ignore::UserWarning")  # sklearn's UndefinedMetricWarning: the case under test
@pytest.mark.parametrize(
    ("y1", "y2", "labels", "weights"),
    [
        # sklearn test_cohen_kappa_undefined's cases. Its labels= drop the units outside the scale; here that is an
        # error, so the units outside `labels` are left out first (what sklearn's confusion_matrix does).
        ([1] * 5 + [2] * 5, [3] * 10, [1, 2], None),  # y2 has no label of the scale: nothing left
        ([3] * 10, [3] * 10, None, None),  # both coders one label
        ([1] * 5 + [2] * 5, [1] * 5 + [3] * 5, [1, 2], None),  # one label in common that is in labels
        ([1] * 5 + [2] * 5, [1] * 5 + [3] * 5, [1, 2], "linear"),
    ],
)
def test_sklearn_undefined_cases_are_nan_with_a_note(y1, y2, labels, weights):
    y1, y2 = np.array(y1), np.array(y2)
    assert np.isnan(cohen_kappa_score(y1, y2, labels=labels, weights=weights, replace_undefined_by=np.nan))
    inside = np.ones(y1.size, bool) if labels is None else np.isin(y1, labels) & np.isin(y2, labels)
    if not inside.any():
        with pytest.raises(rankframe.ValidationError, match="outside the scale"):
            rankframe.agreement(_two(y1, y2), labels=labels, weights=weights)
        return
    out = rankframe.agreement(_two(y1[inside], y2[inside]), labels=labels, weights=weights)
    assert np.isnan(out["kappa"].iloc[0])
    assert "kappa undefined" in out["note"].iloc[0]


# ------------------------------------------------------------------ random tables vs cohen_kappa_score per segment
@pytest.mark.filterwarnings("ignore::UserWarning")  # sklearn warns on one label (UndefinedMetricWarning too)
@settings(max_examples=hypothesis_examples(15), deadline=None)
@given(
    n=st.integers(2, 60),
    n_labels=st.integers(1, 5),
    weights=st.sampled_from([None, "linear", "quadratic"]),
    rel=st.sampled_from([None, 1, 2]),
    seed=st.integers(0, 2**32 - 1),
)
def test_kappa_matches_sklearn_per_segment(n, n_labels, weights, rel, seed):
    rng = np.random.default_rng(seed)
    grades = np.array([0.0, 0.5, 1, 2, 4])[:n_labels]
    df = _two(rng.choice(grades, n), rng.choice(grades, n), seg=rng.choice(["x", "y", "z"], n))
    df.loc[rng.random(n) < 0.1, "llm"] = np.nan
    out = rankframe.agreement(df, by="seg", weights=weights, rel=rel)
    kept = df.dropna(subset=["human", "llm"])
    scale = np.unique(kept[["human", "llm"]].to_numpy()) if rel is None else [0, 1]
    for _, row in out.iterrows():
        g = kept[kept["seg"] == row["seg"]]
        h, m = g["human"].to_numpy(), g["llm"].to_numpy()
        if rel is not None:
            h, m = (h >= rel).astype(int), (m >= rel).astype(int)
        else:  # scikit-learn takes no float labels (0.5): the index on the scale, the same kappa
            h, m = np.searchsorted(scale, h), np.searchsorted(scale, m)
            scale_idx = np.arange(len(scale))
        assert row["n"] == len(g)
        if len(g) == 0:
            assert np.isnan(row["kappa"])
            continue
        assert row["agreement"] == pytest.approx(np.mean(h == m), abs=1e-12)
        labels = scale_idx if rel is None else scale
        expected = cohen_kappa_score(h, m, weights=weights, labels=labels, replace_undefined_by=np.nan)
        assert row["kappa"] == pytest.approx(expected, abs=1e-12, nan_ok=True)


# ------------------------------------------------------------------ krippendorff's published values
_NOMINAL = [
    [np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
    [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
    [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4],
]
_ORDINAL = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]


def _ratings(data) -> pd.DataFrame:
    """The package's reliability matrix (coders x units, NaN = missing) as long rows (coder, unit, value)."""
    rows = [(f"c{c}", u, v) for c, r in enumerate(data) for u, v in enumerate(r)]
    return pd.DataFrame(rows, columns=["coder", "unit", "value"])


@pytest.mark.parametrize(
    ("data", "level", "digits", "expected"),
    [
        (_NOMINAL, "nominal", 6, 0.691358),  # test_nominal_metric_reliability_data
        (_ORDINAL, "ordinal", 3, 0.815),  # test_ordinal_metric
        (_NOMINAL, "interval", 6, 0.810845),  # test_interval_metric
        (_ORDINAL, "ratio", 3, 0.797),  # test_ratio_metric
        ([[0, 1, 2], [0, 1, 2]], "ratio", 12, 1.0),  # test_ratio_metric_with_zeros
        ([[1, 2, 3, 4]] * 3, "nominal", 12, 1.0),  # test_perfect_agreement
        ([[1, 2, 3, 4]] * 3, "interval", 12, 1.0),
    ],
)
def test_krippendorff_published_values(data, level, digits, expected):
    out = rankframe.agreement(_ratings(data), unit="unit", level=level)
    assert round(out["alpha"].iloc[0], digits) == expected


def test_krippendorff_undefined_is_nan_with_a_note():
    # test_error_single_value_in_domain and test_error_insufficient_coders_per_unit raise in the package; here NaN
    one = rankframe.agreement(_ratings([[1, 1], [1, 1]]), unit="unit")
    assert one["n"].iloc[0] == 2 and np.isnan(one["alpha"].iloc[0]) and "alpha undefined" in one["note"].iloc[0]
    none = rankframe.agreement(_ratings([[1, np.nan], [np.nan, 2]]), unit="unit")
    assert none["n"].iloc[0] == 0 and np.isnan(none["alpha"].iloc[0]) and "2 row(s) with a null" in none["note"].iloc[0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the krippendorff package's own 0/0 (expected NaN)
@settings(max_examples=hypothesis_examples(15), deadline=None)
@given(
    n_units=st.integers(2, 25),
    n_coders=st.integers(2, 5),
    level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_alpha_matches_krippendorff_per_segment(n_units, n_coders, level, seed):
    rng = np.random.default_rng(seed)
    data = rng.choice([0.0, 1, 2, 3, 5.5], size=(n_coders, n_units))
    data[rng.random(data.shape) < 0.25] = np.nan
    seg = rng.choice(["x", "y"], n_units)
    long = _ratings(data)
    long["seg"] = seg[long["unit"]]
    out = rankframe.agreement(long.sample(frac=1, random_state=1), unit="unit", level=level, by="seg")
    for _, row in out.iterrows():
        block = data[:, seg == row["seg"]]
        pairable = (~np.isnan(block)).sum(axis=0) >= 2
        assert row["n"] == pairable.sum()
        try:
            expected = krippendorff.alpha(block, level_of_measurement=level)
        except ValueError:  # no pairable unit, or one value: the package refuses, rankframe gives NaN
            expected = np.nan
        assert row["alpha"] == pytest.approx(expected, abs=1e-12, nan_ok=True)
