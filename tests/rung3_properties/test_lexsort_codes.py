"""units.lexsort_codes is np.lexsort (the oracle) on integer codes, packed into one sort or not."""

from __future__ import annotations

import numpy as np
import pytest

from rankframe.tables import units


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


def _descending_oracle(values):
    """np.unique's sorted distinct values, largest first, and each value's place among them."""
    distinct = np.unique(values)[::-1]
    return len(distinct) - 1 - np.searchsorted(distinct[::-1], values), distinct


@pytest.mark.parametrize("distinct", [1_000, 300_000])
def test_descending_codes_of_many_values(distinct):
    # 300,000 values: mostly distinct ones take one sort (units.order._codes_by_sort), 1,000 the hash; both = np.unique
    rng = np.random.default_rng(distinct)
    values = (rng.permutation(300_000) % distinct) / 7.0 - 3.0
    values[:2] = [0.0, -0.0]  # equal values share a code
    codes, found = units.descending_codes(values)
    want_codes, want = _descending_oracle(values)
    np.testing.assert_array_equal(found, want)
    np.testing.assert_array_equal(codes, want_codes)
    assert codes[0] == codes[1]


@pytest.mark.parametrize("span", [50, 2**40])
def test_any_repeat(span):
    # a short range is counted, a wide one sorted: both = "np.unique has fewer values than the key"
    rng = np.random.default_rng(span % 97)
    key = rng.choice(span, size=40, replace=False).astype(np.int64) - 7
    assert not units.any_repeat(key)
    key[-1] = key[3]
    assert units.any_repeat(key)
    assert not units.any_repeat(key[:1])
