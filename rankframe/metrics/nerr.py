"""nERR@k = ERR@k / ERR@k of the ideal ordering."""

from __future__ import annotations

import numpy as np

from ..declare import IDEAL, MAX_GRADE, MetricSpec, k_param
from .err import compute as err
from .err import err_of_lists, stop_probability
from .idcg import ideal_lists

SPEC = MetricSpec(
    name="nerr",
    canonical="nERR",
    aliases=("nerr",),
    summary="ERR / ERR of the ideal ordering",
    params=(
        k_param(),
        MAX_GRADE,
        IDEAL,
    ),
    perfect_is_one=True,
    nothing_relevant="any_gain",
    binary=False,
    example="0.48381",
    example_why="/ (3/16 + (1/2)(1/16)(13/16) + (1/3)(1/16)(13/16)(15/16))",
    sql_data_args=("judged_grades",),
    order=100,
    sql_windows=(
        ("before", "rf__err_before({part}, rf_pos, rf_g, {max_grade})"),
        ("ipos", "rf__ideal_pos({part}, rf_pos, rf_g, {ideal})"),
        ("ibefore", "rf__ideal_before({part}, rf_pos, rf_g, {ideal}, {max_grade})"),
    ),
    sql_windowed="rf__agg_nerr_w(rf_pos, rf_g, {before}, {ipos}, {ibefore}, {k}, {max_grade})",
)


def compute(prep, *, k, max_grade, ideal):
    actual, _ = err(prep, k=k, max_grade=max_grade)
    g, prob, pos = ideal_lists(prep, lambda grades: stop_probability(grades, max_grade), ideal, ("err", max_grade))
    none = np.bincount(g, minlength=prep.n) == 0
    if k is not None:
        keep = pos <= k
        g, prob, pos = g[keep], prob[keep], pos[keep]
    best = err_of_lists(prep, g, pos, prob)
    return np.divide(actual, best, out=np.zeros(prep.n), where=best > 0), none
