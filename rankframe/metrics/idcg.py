"""IDCG@k: DCG@k of the ideal ordering of the judged (or the retrieved) items."""

from __future__ import annotations

import numpy as np

from ..prepare import discount, gain_of, sorted_desc_in_unit


def compute(prep, *, k, rel, gain, ideal, log_base, gains):
    return idcg(prep, k, rel, gain, ideal, log_base, gains), None


def ideal_lists(prep, gains_of, ideal, key):
    """(unit, value, position) of each unit's ideal list of ``gains_of(grades)``, best first (memoised by key)."""
    if ideal == "judged":
        group, grades = prep.judged_group, prep.judged_grade
    else:
        group, grades = prep.group, prep.grade
    return prep.memo(("ideal", ideal, *key), lambda: sorted_desc_in_unit(group, gains_of(grades), prep.n))


def idcg(prep, k, rel, gain, ideal, log_base=2.0, gains=None):
    """IDCG@k per unit (shared with nDCG)."""

    def make():
        g, v, pos = ideal_lists(
            prep, lambda grades: gain_of(grades, gain, rel, gains), ideal, ("gain", gain, rel, gains)
        )
        keep = slice(None) if k is None else pos <= k
        return np.bincount(g[keep], weights=(v * discount(pos, log_base))[keep], minlength=prep.n)

    return prep.memo(("idcg", k, rel, gain, ideal, log_base, gains), make)
