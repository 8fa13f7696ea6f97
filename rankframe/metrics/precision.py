"""P@k: hits in the top k / k (or / min(k, retrieved))."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.segment_sum(top.hits(rel))
    if denominator == "k" and k is not None:
        denom = np.full(prep.n, float(k))
    else:
        denom = top.n_retrieved.astype(np.float64)
    return np.divide(hits, denom, out=np.zeros(prep.n), where=denom > 0), None
