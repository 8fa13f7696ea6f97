"""Judged@k: fraction of the top min(k, retrieved) that has a judgment."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k):
    judged = prep.segment_sum((~np.isnan(prep.grade)).astype(np.float64), prep.top(k))
    denom = prep.cutoff_len(k).astype(np.float64)
    return np.divide(judged, denom, out=np.zeros(prep.n), where=denom > 0), None
