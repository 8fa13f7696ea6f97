"""Fusion's one numbering of the (query, item) candidates: ``np.unique(keys, return_inverse=True)`` (the oracle)."""

from __future__ import annotations

import numpy as np
import pytest

from rankframe.fusion.runs import sorted_codes


@pytest.mark.parametrize("high", [300, 2**50])
@pytest.mark.parametrize("offset", [0, 5])
def test_sorted_codes_is_numpy_unique(high, offset):
    # keys over a short range are counted (units.dense_codes), over a wide one hashed; both = np.unique
    rng = np.random.default_rng(high % 101 + offset)
    keys = rng.integers(offset, high, size=500).astype(np.int64)
    codes, uniques = sorted_codes(keys)
    want, inverse = np.unique(keys, return_inverse=True)
    np.testing.assert_array_equal(uniques, want)
    np.testing.assert_array_equal(codes, inverse.reshape(-1))
