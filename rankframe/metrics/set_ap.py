"""SetAP (trec_eval ``set_map``): SetP x SetR = relevant retrieved^2 / (retrieved |R|)."""

from __future__ import annotations

import numpy as np

from .set_p import set_counts


def compute(prep, *, rel):
    rel_ret, n_ret, n_rel = set_counts(prep, rel)
    den = n_ret * n_rel
    return np.divide(rel_ret * rel_ret, den, out=np.zeros(prep.n), where=den > 0), n_rel == 0
