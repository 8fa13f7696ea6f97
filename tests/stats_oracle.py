"""scipy as the oracle of rankframe's Wilcoxon rule, whatever the installed scipy version.

``scipy.stats.wilcoxon``'s ``method="auto"`` changed across versions (1.11 and 1.13 pick different methods on the
same data), so the oracle names the method of docs/comparing.md's rule itself: exact without ties and zeros up to
50 queries, permutation (every sign pattern, ``scipy.stats.permutation_test``) up to 13 queries otherwise, the
normal approximation (tie-corrected, no continuity correction) beyond. scipy compares differences exactly, so the
caller passes differences whose ties are exact (integers, or values rounded to a grid).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps


def _asymptotic(d: np.ndarray) -> float:
    for name in ("asymptotic", "approx"):  # "approx" before scipy 1.13
        try:
            return float(sps.wilcoxon(d, method=name, correction=False).pvalue)
        except ValueError:
            continue
    raise AssertionError("scipy.stats.wilcoxon knows neither method='asymptotic' nor 'approx'")


def wilcoxon_p(d: np.ndarray) -> float:
    """The two-sided p-value of the signed-rank test of the differences ``d`` (ties must be exact in ``d``)."""
    d = np.asarray(d, dtype=np.float64)
    nz = d[d != 0]
    if nz.size == 0:
        return float("nan")
    tied = np.unique(np.abs(nz)).size < nz.size
    if not tied and nz.size == d.size and d.size <= 50:
        return float(sps.wilcoxon(d, method="exact").pvalue)
    if d.size <= 13:
        ranks = sps.rankdata(np.abs(nz))
        res = sps.permutation_test(
            (nz,),
            lambda v, axis: np.sum(np.where(v > 0, ranks, 0.0), axis=axis),
            permutation_type="samples",
            n_resamples=np.inf,
            vectorized=True,
        )
        return float(res.pvalue)
    return _asymptotic(d)
