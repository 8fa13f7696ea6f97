"""Per-(system, query) normalisation of the runs' scores: ranx's min-max, max, sum, zmuv, rank and borda.

Every statistic (min, max, sum, mean, sd, length) is a segment reduction over all lists at once. A degenerate
denominator (one item, all scores tied, a non-positive maximum for ``max``) gives 0 for every item of that list.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .runs import Candidates, Runs, fill_candidates


def normalise(runs: Runs, cand: Candidates, norm: str | None) -> tuple[Runs, Candidates]:
    """The runs with their values normalised by ``norm`` (None / 'none': as they are)."""
    if norm in (None, "none"):
        return runs, cand
    if norm == "borda":
        return _borda(runs, cand)
    list_id = runs.sys.astype(np.int64) * runs.n_queries + runs.unit
    n_lists = runs.lengths.size
    length = runs.lengths.reshape(-1)[list_id].astype(np.float64)
    if norm == "rank":
        return replace(runs, value=1.0 - (runs.pos - 1) / length), cand
    v = runs.value
    high = _segment(np.maximum, list_id, v, n_lists, -np.inf)
    if norm == "max":
        return replace(runs, value=_ratio(v, high)), cand
    low = _segment(np.minimum, list_id, v, n_lists, np.inf)
    if norm == "zmuv":
        total = np.bincount(list_id, weights=v, minlength=n_lists)[list_id]
        mean = total / length
        sd = np.sqrt(np.bincount(list_id, weights=(v - mean) ** 2, minlength=n_lists)[list_id] / length)
        # a run of tied scores is degenerate however the mean rounds (numpy's mean of equal floats may be 1 ulp off,
        # leaving an sd of ~1e-16 that would turn 0/0 into +-1)
        return replace(runs, value=_ratio(v - mean, np.where(high > low, sd, 0.0))), cand
    if norm == "min-max":
        return replace(runs, value=_ratio(v - low, high - low)), cand
    if norm == "sum":
        total = np.bincount(list_id, weights=v, minlength=n_lists)[list_id]
        return replace(runs, value=_ratio(v - low, total - low * length)), cand
    raise AssertionError(norm)  # the declared names are all handled above


def _segment(ufunc: np.ufunc, list_id: np.ndarray, v: np.ndarray, n: int, start: float) -> np.ndarray:
    """The reduction ``ufunc`` of the values of each entry's list, per entry."""
    out = np.full(n, start)
    ufunc.at(out, list_id, v)
    return out[list_id]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Divide, giving 0 where the denominator is not positive (a degenerate list)."""
    good = den > 0
    return np.divide(num, den, out=np.zeros_like(num), where=good)


def _borda(runs: Runs, cand: Candidates) -> tuple[Runs, Candidates]:
    """Borda normalisation (ranx): every candidate, 1 - (rank - 1) / N, the missing ones 1/2 - (n - 1) / (2N)."""
    n_orig = len(runs.sys)
    lengths = runs.lengths.reshape(-1)
    filled, cand = fill_candidates(runs, cand)
    n_cand = cand.per_query[filled.unit].astype(np.float64)
    value = 1.0 - (filled.pos - 1) / n_cand
    added = slice(n_orig, None)
    own = lengths[filled.sys[added].astype(np.int64) * runs.n_queries + filled.unit[added]]
    value[added] = 0.5 - (own - 1) / (2.0 * n_cand[added])
    return replace(filled, value=value), cand
