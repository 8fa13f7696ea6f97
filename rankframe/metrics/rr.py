"""RR@k: 1 / position of the first relevant item within the top k."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel):
    top = prep.cut(k)
    idx = np.flatnonzero(top.hits(rel))
    g = top.group[idx]
    first = np.ones(len(idx), dtype=bool)
    first[1:] = g[1:] != g[:-1]  # lists are contiguous and in rank order
    out = np.zeros(prep.n)
    out[g[first]] = 1.0 / top.pos[idx[first]]
    return out, None
