"""IDCG@k: DCG@k of the ideal ordering of the judged (or the retrieved) items."""

from __future__ import annotations

import numpy as np

from ..declare import GAIN, GAINS, IDEAL, LOG_BASE, MetricSpec, k_param, rel_param
from ..prepare import discount, gain_of, sorted_desc_in_unit

SPEC = MetricSpec(
    name="idcg",
    canonical="IDCG",
    aliases=("idcg",),
    summary="DCG of the ideal ordering",
    params=(
        k_param(),
        rel_param(None),
        GAIN,
        IDEAL,
        LOG_BASE,
        GAINS,
    ),
    bounded=False,
    binary=False,
    example="3.13093",
    example_why="2 + 1/log2(3) + 1/log2(4)",
    sql_data_args=("judged_grades",),
    sql_table_params=(("rel", "graded_rel"),),
    order=70,
)


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
