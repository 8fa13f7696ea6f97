"""rankframe.agreement's properties on random tables: each segment is computed alone (with the call's label scale),
and nothing depends on the order of the rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe


def _table(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    human = rng.choice([0.0, 1, 2, 3], n)
    llm = np.where(rng.random(n) < 0.5, human, rng.choice([0.0, 1, 2, 3], n))
    df = pd.DataFrame({"seg": rng.choice(["a", "b", "c"], n), "query": rng.integers(0, 6, n), "item": np.arange(n),
                       "human": human, "llm": llm})  # fmt: skip
    df.loc[rng.random(n) < 0.1, "human"] = np.nan
    return df


@settings(max_examples=hypothesis_examples(10), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 50), weights=st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_per_segment_is_each_segment_alone(seed, n, weights):
    df = _table(seed, n)
    if df[["human", "llm"]].notna().all(axis=1).sum() == 0:
        return
    out = rankframe.agreement(df, by="seg", weights=weights)
    scale = out.attrs["labels"]
    for _, row in out.iterrows():
        part = df[df["seg"] == row["seg"]]
        if part[["human", "llm"]].notna().all(axis=1).sum() == 0:
            assert row["n"] == 0 and np.isnan(row["kappa"])
            continue
        alone = rankframe.agreement(part, weights=weights, labels=scale).iloc[0]
        assert (row["n"], row["note"]) == (alone["n"], alone["note"])
        assert row[["agreement", "kappa"]].tolist() == pytest.approx(
            alone[["agreement", "kappa"]].tolist(), abs=1e-12, nan_ok=True
        )
    shuffled = rankframe.agreement(df.sample(frac=1, random_state=seed % 1000), by="seg", weights=weights)
    pd.testing.assert_frame_equal(out, shuffled, atol=1e-12)


@settings(max_examples=hypothesis_examples(10), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40))
def test_ci_does_not_depend_on_row_order(seed, n):
    df = _table(seed, n).dropna()
    if df.empty:
        return
    out = rankframe.agreement(df, by="seg", ci=0.8, n_resamples=30, seed=5)
    shuffled = rankframe.agreement(df.sample(frac=1, random_state=1), by="seg", ci=0.8, n_resamples=30, seed=5)
    pd.testing.assert_frame_equal(out, shuffled, atol=1e-12)


@settings(max_examples=hypothesis_examples(10), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_units=st.integers(1, 20),
    level=st.sampled_from(["nominal", "ordinal", "interval", "ratio"]),
)
def test_alpha_per_segment_is_each_segment_alone(seed, n_units, level):
    rng = np.random.default_rng(seed)
    rows = [(u, c, rng.choice([np.nan, 0, 1, 2, 4]), "s" if u % 3 else "t") for u in range(n_units) for c in "xyz"]
    r = pd.DataFrame(rows, columns=["unit", "coder", "value", "seg"])
    out = rankframe.agreement(r, unit="unit", level=level, by="seg")
    for _, row in out.iterrows():
        alone = rankframe.agreement(r[r["seg"] == row["seg"]], unit="unit", level=level).iloc[0]
        assert row["n"] == alone["n"] and row["alpha"] == pytest.approx(alone["alpha"], abs=1e-12, nan_ok=True)
    shuffled = rankframe.agreement(r.sample(frac=1, random_state=2), unit="unit", level=level, by="seg")
    pd.testing.assert_frame_equal(out, shuffled, atol=1e-12)
