"""units.lexsort_codes is np.lexsort (the oracle) on integer codes, packed into one sort or not."""

from __future__ import annotations

import numpy as np
import pytest

from rankframe import units


@pytest.mark.parametrize("seed", range(20))
def test_lexsort_codes_is_numpy_lexsort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    sizes = tuple(int(s) for s in rng.integers(1, 6, size=int(rng.integers(1, 4))))  # few values: many ties
    keys = tuple(rng.integers(0, s, size=n) for s in sizes)
    np.testing.assert_array_equal(units.lexsort_codes(keys, sizes), np.lexsort(keys))  # stable: ties keep row order


def test_codes_too_wide_to_pack_fall_back_to_lexsort():
    rng = np.random.default_rng(1)
    sizes = (2**40, 2**30)  # 2**70 > 2**63
    keys = (rng.integers(0, 2**40, size=500), rng.integers(0, 3, size=500))
    np.testing.assert_array_equal(units.lexsort_codes(keys, sizes), np.lexsort(keys))


def test_descending_codes():
    codes, distinct = units.descending_codes(np.array([0.5, 2.0, -1.0, 2.0, 0.0, -0.0]))
    # distinct values 2.0 > 0.5 > 0.0 (= -0.0) > -1.0 get 0, 1, 2, 3
    assert distinct.tolist() == [2.0, 0.5, 0.0, -1.0] and codes.tolist() == [1, 0, 3, 0, 2, 2]
    # small integers take the path without hashing: 3 > 1 > 0 (2 absent) -> 0, 1, 2
    codes, distinct = units.descending_codes(np.array([1.0, 3.0, 0.0, 3.0]))
    assert distinct.tolist() == [3.0, 1.0, 0.0] and codes.tolist() == [1, 0, 2, 0]
