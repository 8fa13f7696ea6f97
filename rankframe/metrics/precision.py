"""P@k: hits in the top k / k (or / min(k, retrieved))."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, denominator):
    hits = prep.segment_sum(prep.hits(rel), prep.top(k))
    if denominator == "k" and k is not None:
        denom = np.full(prep.n, float(k))
    else:
        denom = prep.cutoff_len(k).astype(np.float64)
    return np.divide(hits, denom, out=np.zeros(prep.n), where=denom > 0), None
