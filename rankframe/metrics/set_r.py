"""SetR (trec_eval ``set_recall``): relevant retrieved / |R|, over the whole ranked list."""

from __future__ import annotations

import numpy as np

from .set_p import set_counts


def compute(prep, *, rel):
    rel_ret, _, n_rel = set_counts(prep, rel)
    return np.divide(rel_ret, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0
