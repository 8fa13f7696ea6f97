"""nDCG@k = DCG@k / IDCG@k."""

from __future__ import annotations

import numpy as np

from .dcg import dcg
from .idcg import idcg


def compute(prep, *, k, rel, gain, ideal, log_base, gains):
    num = dcg(prep, k, rel, gain, log_base, gains)
    den = idcg(prep, k, rel, gain, ideal, log_base, gains)
    # "nothing relevant" = the ideal list has no gain at all (not only within the cutoff)
    none = idcg(prep, None, rel, gain, ideal, 2.0, gains) == 0
    return np.divide(num, den, out=np.zeros(prep.n), where=den > 0), none
