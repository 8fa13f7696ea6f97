"""R@k: hits in the top k / |R| (or / min(k, |R|))."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.segment_sum(top.hits(rel))
    n_rel = prep.n_relevant(rel)
    # K = k, or the list length when there is no cutoff (docs/metrics.md)
    denom = n_rel if denominator == "relevant" else np.minimum(n_rel, prep.n_retrieved if k is None else k)
    return np.divide(hits, denom, out=np.zeros(prep.n), where=denom > 0), n_rel == 0
