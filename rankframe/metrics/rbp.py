"""RBP@k: (1 - p) * sum of p^(position - 1) over relevant items in the top k."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, p):
    top = prep.cut(k)
    return (1.0 - p) * top.segment_sum(top.hits(rel) * np.power(p, top.pos - 1.0)), None
