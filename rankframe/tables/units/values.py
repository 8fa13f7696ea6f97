"""A column's values as numpy arrays, copied only when they must be: integers, floats with NaN, ranks.

Every reader of the unit layer (codes, ranked order, packed lists) and the engines take a column's numbers
through these three functions, so a nullable ``Int64`` or an Arrow column is read one way everywhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def int_values(col: pd.Series) -> tuple[np.ndarray, np.ndarray | None] | None:
    """(integer values, null mask or None) of a numpy or pandas-nullable integer column without a copy; else None.

    A nullable column's values under its nulls are arbitrary: read them only where the mask is False.
    """
    dtype = col.dtype
    if isinstance(dtype, np.dtype):
        return (col.to_numpy(), None) if dtype.kind in "iu" else None
    arr = col.array
    if isinstance(arr, pd.arrays.IntegerArray) and hasattr(arr, "_data") and hasattr(arr, "_mask"):
        return arr._data, arr._mask  # BaseMaskedArray's buffers (pandas 2.x and 3.x): no conversion pass
    return None


def as_float(col: pd.Series) -> np.ndarray:
    """A numeric column as float64 with NaN for nulls (works for numpy, nullable and arrow dtypes)."""
    return col.to_numpy(dtype=np.float64, na_value=np.nan)


def rank_values(col: pd.Series) -> tuple[np.ndarray, np.ndarray | None]:
    """(values, null mask or None when nothing is null) of a numeric rank column, copied only when it must be.

    Integer columns (numpy or nullable ``Int64``) keep their integers (a nullable column's values under its nulls
    are arbitrary); float and other numeric columns are read as float64 with NaN for nulls.
    """
    found = int_values(col)
    if found is not None:
        values, null = found
    else:
        values = col.to_numpy() if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f" else as_float(col)
        values = values.astype(np.float64, copy=False)
        null = np.isnan(values)
    return values, null if null is not None and null.any() else None
