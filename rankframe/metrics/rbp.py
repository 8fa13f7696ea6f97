"""RBP@k: (1 - p) * sum of p^(position - 1) over relevant items in the top k."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, p):
    weights = prep.hits(rel) * np.power(p, prep.pos - 1.0)
    return (1.0 - p) * prep.segment_sum(weights, prep.top(k)), None
