"""R-precision: hits in the top |R| / |R|."""

from __future__ import annotations

import numpy as np


def compute(prep, *, rel):
    n_rel = prep.n_relevant(rel)
    top = prep.pos <= n_rel[prep.group]
    hits = prep.segment_sum(prep.hits(rel), top)
    return np.divide(hits, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0
