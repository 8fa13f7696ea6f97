"""The blocked ANOVA from sufficient statistics (Spark's road) equals the one from the values (numpy's), which
tests/rung2_oracles/test_anova_oracle.py holds to statsmodels: random aligned designs with absent systems."""

from __future__ import annotations

import numpy as np
import pytest

from rankframe.stats._segments import segment_sum
from rankframe.stats.tukey import blocked_anova, blocked_anova_from_sums


@pytest.mark.parametrize("seed", range(20))
def test_sums_give_the_same_cells(seed):
    rng = np.random.default_rng(seed)
    n_seg, n_blocks, n_systems = rng.integers(1, 5), rng.integers(1, 4), rng.integers(2, 6)
    sizes = rng.integers(0, 9, size=n_seg)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    values = rng.random((offsets[-1], n_blocks, n_systems)) * rng.choice([1.0, 30.0])
    for s in range(n_seg):  # a system absent from a (segment, block): NaN on all its rows there
        if rng.random() < 0.4:
            values[offsets[s] : offsets[s + 1], rng.integers(n_blocks), rng.integers(n_systems)] = np.nan
    expected = blocked_anova(values, offsets)
    have = ~np.isnan(values)
    v0 = np.where(have, values, 0.0)
    got = blocked_anova_from_sums(
        segment_sum(have.any(axis=2), offsets),
        segment_sum(v0, offsets),
        segment_sum(have, offsets),
        segment_sum((v0 * v0).sum(axis=2), offsets),
        segment_sum(v0.sum(axis=2) ** 2, offsets),
    )
    np.testing.assert_array_equal(got.n, expected.n)
    np.testing.assert_array_equal(got.k, expected.k)
    np.testing.assert_allclose(got.means, expected.means, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(got.df, expected.df)
    scale = np.nanmax(np.abs(values)) ** 2 if values.size and not np.isnan(values).all() else 1.0
    np.testing.assert_allclose(got.mse, expected.mse, rtol=1e-9, atol=1e-12 * scale, equal_nan=True)
