"""Checks of the data against the requested metrics, run once before any engine (same error on every face)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError
from ..tables import units
from .names import Measure

#: 2 ** 1023 is the largest power of two in float64
_EXP_LIMIT = 1023


def _top_grade(df: pd.DataFrame, columns: Columns) -> float | None:
    if columns.relevance not in df.columns or not len(df):
        return None
    col = df[columns.relevance]
    if not (pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)):
        return None  # the schema reports a non-numeric relevance column
    grades = units.as_float(col)
    if np.isnan(grades).all():
        return None
    return float(np.nanmax(grades))


def check_grades(df: pd.DataFrame, columns: Columns, measures: Sequence[Measure]) -> None:
    """Raise a ParameterError when a grade of the table is outside what a requested metric can take.

    * A metric that declares ``max_grade`` (ERR, nERR: ``MetricSpec.limits_grades``): every judged grade must be
      <= ``max_grade`` (anywhere in the table, not only in the top k, so
      that the answer does not depend on the cutoff or the engine).
    * Exponential gain (2^g - 1): the gains and their sums over the table must stay finite in float64, i.e.
      top grade + log2(rows) <= 1023; beyond that nDCG would be inf/inf = NaN and silently leave the mean.
    """
    if not needs_grade_check(measures):
        return
    check_top_grade(_top_grade(df, columns), len(df), columns, measures)


def needs_grade_check(measures: Sequence[Measure]) -> bool:
    """Whether a requested metric limits the grades (ERR/nERR's ``max_grade``, the exponential gain)."""
    return any(m.spec.limits_grades or m.kw.get("gain") == "exponential" for m in measures)


def check_top_grade(top: float | None, n_rows: int, columns: Columns, measures: Sequence[Measure]) -> None:
    """The rule of :func:`check_grades` given the table's top judged grade and its row count (any engine)."""
    if top is None:
        return
    wanted = [m for m in measures if m.spec.limits_grades or m.kw.get("gain") == "exponential"]
    for m in wanted:
        if m.spec.limits_grades and top > m.kw["max_grade"]:
            raise ParameterError(
                f"The 'max_grade' parameter of {m.spec.canonical} must be >= every grade in the table. Got "
                f"{m.kw['max_grade']!r} but column {columns.relevance!r} has grade {top:g}; pass "
                f"max_grade={math.ceil(top)} (the top grade of your scale) in {str(m)!r}.",
                owner=m.spec.canonical,
                parameter="max_grade",
            )
        if m.kw.get("gain") == "exponential":
            limit = _EXP_LIMIT - math.ceil(math.log2(n_rows + 1))
            if top > limit:
                raise ParameterError(
                    f"gain='exponential' (2^g - 1) overflows float64 for grade {top:g} in column "
                    f"{columns.relevance!r} of this {n_rows}-row table (grades up to {limit} work); use "
                    f"gain='linear' or rescale the grades ({str(m)!r}).",
                    owner=m.spec.canonical,
                    parameter="gain",
                    got="exponential",
                )
