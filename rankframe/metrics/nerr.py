"""nERR@k = ERR@k / ERR@k of the ideal ordering."""

from __future__ import annotations

import numpy as np

from .err import compute as err
from .err import err_of_lists, stop_probability
from .idcg import ideal_lists


def compute(prep, *, k, max_grade, ideal):
    actual, _ = err(prep, k=k, max_grade=max_grade)
    g, prob, pos = ideal_lists(prep, lambda grades: stop_probability(grades, max_grade), ideal, ("err", max_grade))
    none = np.bincount(g, minlength=prep.n) == 0
    if k is not None:
        keep = pos <= k
        g, prob, pos = g[keep], prob[keep], pos[keep]
    best = err_of_lists(prep, g, pos, prob)
    return np.divide(actual, best, out=np.zeros(prep.n), where=best > 0), none
