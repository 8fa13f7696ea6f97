"""nERR@k = ERR@k / ERR@k of the ideal ordering."""

from __future__ import annotations

import numpy as np

from ..core.declare import IDEAL, MAX_GRADE, MetricSpec, k_param
from .err import compute as err
from .err import err_of_lists, portable_stop_probability, stop_probability
from .err import portable as err_portable
from .idcg import ideal_lists

SPEC = MetricSpec(
    name="nerr",
    canonical="nERR",
    better_why="ERR closer to the ideal's",
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


def portable(t, *, k, max_grade, ideal):
    """nERR@k as one aggregate: ERR@k over the ERR@k of the ideal list (Pr descending, a window over the unit).

    The ideal list's product of (1 - Pr) above each row is :meth:`~rankframe.warehouse.terms.Terms.
    ideal_log_product_before`'s (rows of equal Pr are interchangeable); 0 when the ideal ERR is 0.
    """
    pr = t.ideal_value(portable_stop_probability(t, max_grade), ideal)
    ip = t.ideal_position(pr)
    before = t.ideal_log_product_before(pr, f"1 - {pr}")
    cut = f"{pr} > 0" + ("" if k is None else f" AND {ip} <= {k:d}")
    best = t.total(t.ratio(f"{pr} * {before}", ip), cut)
    return t.ratio(err_portable(t, k=k, max_grade=max_grade), best)
