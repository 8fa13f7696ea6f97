"""RR@k: 1 / position of the first relevant item within the top k."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel):
    hit = prep.hits(rel) > 0
    top = prep.top(k)
    if top is not None:
        hit = hit & top
    idx = np.flatnonzero(hit)
    g = prep.group[idx]
    first = np.ones(len(idx), dtype=bool)
    first[1:] = g[1:] != g[:-1]  # lists are contiguous and in rank order
    out = np.zeros(prep.n)
    out[g[first]] = 1.0 / prep.pos[idx[first]]
    return out, None
