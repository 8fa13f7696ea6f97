"""R-precision: hits in the top |R| / |R|; with a cutoff k, of the list cut at k (hits in the top min(|R|, k))."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel):
    top = prep.cut(k)
    n_rel = prep.n_relevant(rel)
    within = top.pos <= n_rel[top.group]
    hits = top.segment_sum(top.hits(rel), within)
    return np.divide(hits, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0
