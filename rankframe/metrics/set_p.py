"""SetP (trec_eval ``set_P``): relevant retrieved / retrieved, over the whole ranked list."""

from __future__ import annotations

import numpy as np


def set_counts(prep, rel):
    """(relevant retrieved, retrieved, |R|) per unit: the three counts of trec_eval's set measures."""
    return prep.segment_sum(prep.hits(rel)), prep.n_retrieved.astype(np.float64), prep.n_relevant(rel)


def compute(prep, *, rel):
    rel_ret, n_ret, _ = set_counts(prep, rel)
    return np.divide(rel_ret, n_ret, out=np.zeros(prep.n), where=n_ret > 0), None
