"""ERR@k: cascade model, Pr(g) = (2^g - 1) / 2^max_grade."""

from __future__ import annotations

import numpy as np

from ..core.declare import MAX_GRADE, MetricSpec, k_param
from ..core.errors import ParameterError
from ..tables.prepare import cumprod_in_lists

SPEC = MetricSpec(
    name="err",
    canonical="ERR",
    better_why="the user is satisfied earlier",
    aliases=("err", "expected_reciprocal_rank"),
    summary="expected reciprocal rank (cascade model)",
    params=(
        k_param(),
        MAX_GRADE,
    ),
    binary=False,
    ir_measures="ERR",
    example="0.11068",
    example_why="(1/2)(3/16) + (1/3)(1/16)(13/16)",
    order=90,
)


def stop_probability(grades: np.ndarray, max_grade: int) -> np.ndarray:
    """Pr(g) of each grade; null and negative grades give 0; a grade above max_grade is an error."""
    g = np.where(np.isnan(grades), 0.0, np.maximum(grades, 0.0))
    if g.size and g.max() > max_grade:
        raise ParameterError(
            f"The 'max_grade' parameter of ERR must be >= every grade in the table. Got {max_grade!r} "
            f"but the table has grade {g.max():g}.",
            owner="ERR",
            parameter="max_grade",
            expected=">= every grade in the table",
            got=max_grade,
        )
    # (2^g - 1) / 2^m written as 2^(g - m) - 2^-m: finite for any max_grade (2.0**m overflows past m = 1023)
    return np.exp2(g - max_grade) - np.exp2(-float(max_grade))


def err_of_lists(prep, group, pos, prob):
    """ERR of lists given as (unit, 1-based position, Pr), contiguous per unit in position order."""
    if len(prob) == 0:
        return np.zeros(prep.n)
    inclusive = cumprod_in_lists(group, 1.0 - prob)
    # prod_{j<i} (1 - Pr_j): the inclusive product of the previous element of the same list
    before = np.ones_like(prob)
    before[1:] = inclusive[:-1]
    before[pos == 1] = 1.0
    return np.bincount(group, weights=prob * before / pos, minlength=prep.n)


def compute(prep, *, k, max_grade):
    top = prep.cut(k)
    return err_of_lists(prep, top.group, top.pos, stop_probability(top.grade, max_grade)), None


def portable_stop_probability(t, max_grade: int) -> str:
    """``stop_probability`` of the row's grade as an expression: 2^(g - m) - 2^-m, 0 for a null or negative grade."""
    g, m = t.grade, float(max_grade)
    return (
        f"(CASE WHEN {g} IS NULL OR {g} <= 0 THEN {t.num(0)} "
        f"ELSE POWER({t.num(2)}, {g} - {t.num(m)}) - POWER({t.num(2)}, {t.num(-m)}) END)"
    )


def portable(t, *, k, max_grade):
    """ERR@k as one aggregate: the sum of Pr_i / i times the product of (1 - Pr_j) above i.

    The product is a window, as a sum of logarithms (1 - Pr >= 2^-max_grade > 0). A grade above max_grade gives
    NULL (SQL cannot raise the error).
    """
    g, m = t.grade, float(max_grade)
    pr = portable_stop_probability(t, max_grade)
    before = t.running_log_product_before(f"1 - {pr}")
    value = t.total(t.ratio(f"{pr} * {before}", t.pos), t.within(k))
    return t.when(f"MAX({g}) > {t.num(m)}", "NULL", value)
