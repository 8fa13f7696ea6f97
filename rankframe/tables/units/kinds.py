"""The kind of the values of an id column, read from every value (one rule for the ranking table and its inputs).

:func:`inferred` is pandas' inferred kind of all the non-null values of an object column (``infer_dtype``: one pass
in C, no sample), ``"typed"`` for a column whose dtype says it. The ranking table's rule "one id type"
(``rankframe.schema``) and the rule "ids of the ranking table's kind" of the beyond-accuracy inputs
(``rankframe.beyond.input_rules``) both read it, so an id of another kind anywhere in a column is found, not only
in its first rows.

Examples
--------
>>> import pandas as pd
>>> id_kind(pd.Series(["a"] * 2000 + [1]))  # the last id is a number: no longer text
'other'
>>> id_kind(pd.Series([1, 2.5], dtype=object)), id_kind(pd.Series(["a", None])), id_kind(pd.Series([None]))
('number', 'text', 'empty')
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: pandas' inferred kinds of an object column that are numbers (ints and floats match: 1 == 1.0)
NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "decimal"})


def inferred(values: pd.Series) -> str:
    """``infer_dtype`` of every non-null value (categories of a categorical), ``"typed"`` for a typed column."""
    values = values.cat.categories.to_series() if isinstance(values.dtype, pd.CategoricalDtype) else values
    if values.dtype != object:
        return "typed"
    return pd.api.types.infer_dtype(values, skipna=True)


def id_kind(values: pd.Series) -> str:
    """``'number'``, ``'text'``, ``'other'`` (booleans, dates, several kinds mixed) or ``'empty'`` (no value).

    Every value is looked at (vectorised): ids of different kinds never match, so a column of text ids with one
    number among them is ``'other'``.
    """
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "other"
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return "number"
    if isinstance(dtype, pd.CategoricalDtype):
        return id_kind(dtype.categories.to_series()) if len(dtype.categories) else "empty"
    if values.notna().sum() == 0:
        return "empty"
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind == "string":
        return "text"
    return "number" if kind in NUMBER_KINDS else "other"


def value_kind(value: object) -> str:
    """The kind of one id, in :func:`id_kind`'s words (for the example an error shows)."""
    if isinstance(value, (bool, np.bool_)):
        return "other"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    return "other"
