"""Multiple-testing corrections over one family of p-values (NaN p-values are not part of the family).

With ``m`` the number of (non-NaN) p-values in the family and ``p_(1) <= ... <= p_(m)`` their sorted values:

- ``"bonferroni"``: ``min(1, m * p)`` (family-wise error rate);
- ``"holm"`` (Holm 1979, step-down): ``max_{j <= i} min(1, (m - j + 1) * p_(j))`` (family-wise error rate,
  uniformly more powerful than Bonferroni);
- ``"bh"`` (Benjamini & Hochberg 1995, step-up): ``min_{j >= i} min(1, m / j * p_(j))`` (false discovery rate,
  valid for independent or positively dependent tests);
- ``"westfall-young"``: the resampling step-down adjustment of :mod:`.westfall_young` (it needs the sign flips,
  not only the p-values: :func:`adjust` refuses it);
- ``None``: the p-values unchanged.

:func:`adjusted_alpha` gives each comparison the level its interval needs to agree with the adjusted decision
(docs/decisions/0017-adjusted-intervals.md).

These are ``statsmodels.stats.multitest.multipletests`` with ``method="bonferroni" | "holm" | "fdr_bh"``.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

#: the multiple-testing corrections (the type of ``correction=``; None = no correction)
Correction = Literal["holm", "bonferroni", "bh", "westfall-young"]
CORRECTIONS: tuple[Correction | None, ...] = (*get_args(Correction), None)
#: the corrections computed from the p-values alone (Westfall-Young resamples)
P_VALUE_CORRECTIONS = ("holm", "bonferroni", "bh", None)


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
    if method not in P_VALUE_CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; expected one of {P_VALUE_CORRECTIONS}")
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


def adjusted_alpha(p: np.ndarray, method: str | None, alpha: float, groups: np.ndarray | None = None) -> np.ndarray:
    """The per-comparison level whose interval agrees with the adjusted p-value at ``alpha`` (decision 0017).

    ``None``: ``alpha``; ``"bonferroni"`` and ``"holm"``: ``alpha / m`` (``m``: the non-NaN p-values of the
    family; for Holm a conservative choice: a Bonferroni interval that excludes 0 marks a Holm-significant row,
    not every Holm-significant row has one); ``"bh"``: ``max(R, 1) * alpha / m`` with ``R`` the rows of the family
    with ``p_adjusted <= alpha`` (the false-coverage-rate intervals of Benjamini & Yekutieli 2005: BH rejects a row
    exactly when ``p <= R * alpha / m``). Every row gets its family's level, NaN p-values too.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([0.001, 0.02, 0.5, np.nan])
    >>> adjusted_alpha(p, "bonferroni", 0.05).tolist()   # m = 3 non-NaN p-values
    [0.016666666666666666, 0.016666666666666666, 0.016666666666666666, 0.016666666666666666]
    >>> adjusted_alpha(p, "bh", 0.05).round(6).tolist()   # BH adjusted: .003, .03, .5: R = 2
    [0.033333, 0.033333, 0.033333, 0.033333]
    """
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, float(alpha))
    if method is None:
        return out
    if method not in P_VALUE_CORRECTIONS:
        raise ValueError(
            f"adjusted_alpha: {method!r} is not a p-value correction; expected one of {P_VALUE_CORRECTIONS}"
        )
    groups = np.zeros(p.shape, dtype=np.int64) if groups is None else np.asarray(groups)
    p_adj = adjust(p, method, groups) if method == "bh" else None
    for g in np.unique(groups):  # a loop over families (a handful)
        idx = np.flatnonzero(groups == g)
        ok = ~np.isnan(p[idx])
        m = int(ok.sum())
        if m == 0:
            continue
        r = 1
        if p_adj is not None:
            r = max(1, int((p_adj[idx][ok] <= alpha).sum()))
        out[idx] = alpha * r / m
    return out
