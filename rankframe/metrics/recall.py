"""R@k: hits in the top k / |R| (or / min(k, |R|))."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.segment_sum(top.hits(rel))
    n_rel = prep.n_relevant(rel)
    denom = n_rel if denominator == "relevant" or k is None else np.minimum(n_rel, k)
    return np.divide(hits, denom, out=np.zeros(prep.n), where=denom > 0), n_rel == 0
