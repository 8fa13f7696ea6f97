"""Multiple-testing corrections over one family of p-values (NaN p-values are not part of the family).

With ``m`` the number of (non-NaN) p-values in the family and ``p_(1) <= ... <= p_(m)`` their sorted values:

- ``"bonferroni"``: ``min(1, m * p)`` (family-wise error rate);
- ``"holm"`` (Holm 1979, step-down): ``max_{j <= i} min(1, (m - j + 1) * p_(j))`` (family-wise error rate,
  uniformly more powerful than Bonferroni);
- ``"bh"`` (Benjamini & Hochberg 1995, step-up): ``min_{j >= i} min(1, m / j * p_(j))`` (false discovery rate,
  valid for independent or positively dependent tests);
- ``None``: the p-values unchanged.

These are ``statsmodels.stats.multitest.multipletests`` with ``method="bonferroni" | "holm" | "fdr_bh"``.
"""

from __future__ import annotations

import numpy as np

CORRECTIONS = ("holm", "bonferroni", "bh", None)


def adjust(p: np.ndarray, method: str | None, groups: np.ndarray | None = None) -> np.ndarray:
    """Adjust ``p`` within each family; ``groups`` gives every p-value's family (default: one family).

    Examples
    --------
    >>> import numpy as np
    >>> adjust(np.array([0.01, 0.04, 0.03]), "holm").round(6).tolist()  # sorted: 3*.01, 2*.03, 1*.04; running max
    [0.03, 0.06, 0.06]
    >>> adjust(np.array([0.01, 0.04, 0.03]), "bh").round(6).tolist()  # sorted: 3/1*.01, 3/2*.03, 3/3*.04; min from top
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(p, dtype=np.float64)
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; expected one of {CORRECTIONS}")
    out = p.copy()
    if method is None:
        return out
    groups = np.zeros(p.shape, dtype=np.int64) if groups is None else np.asarray(groups)
    for g in np.unique(groups[~np.isnan(p)]):  # a loop over families (a handful), never over p-values
        idx = np.flatnonzero((groups == g) & ~np.isnan(p))
        out[idx] = _adjust_one(p[idx], method)
    return out


def _adjust_one(p: np.ndarray, method: str) -> np.ndarray:
    m = p.size
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    rank = np.arange(1, m + 1, dtype=np.float64)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1.0) * ps))
    else:  # bh
        adj = np.minimum.accumulate(np.minimum(1.0, m / rank * ps)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adj
    return out
