"""Judged@k: fraction of the top min(k, retrieved) that has a judgment."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k):
    top = prep.cut(k)
    judged = top.segment_sum((~np.isnan(top.grade)).astype(np.float64))
    denom = top.n_retrieved.astype(np.float64)
    return np.divide(judged, denom, out=np.zeros(prep.n), where=denom > 0), None
