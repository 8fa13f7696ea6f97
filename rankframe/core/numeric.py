"""The one rule of a numeric parameter (``k``, ``rel``, a level, ``n_resamples``, ``seed``, ``margin``, ``depth``, ...).

Every public function checks its numeric parameters here, before any work: a bool is not a number, the value is an
int (``integer=True``) or a real number, finite, in its range, and a Python int too large for the arithmetic that
follows (``10**40`` as a depth, an int64 array index) is refused rather than met as numpy's OverflowError. The
failure is always a :class:`~rankframe.errors.ParameterError` naming the parameter and its owner, in the words
``The 'k' parameter of fuse must be an int >= 1. Got 10**40 instead.`` Arrays (``rankframe.power``) go through
:func:`check_array` and :func:`broadcast`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .errors import ParameterError, parameter_error

#: the largest int a numeric parameter takes by default (numpy's int64: array sizes, positions, cutoffs)
INT64_MAX = 2**63 - 1


def _interval(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high:g}"
    return ""


def describe(
    integer: bool = False,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> str:
    """The words of a numeric rule: ``an int >= 1``, ``a finite number in (0, 1)``."""
    kind = "an int" if integer else "a finite number"
    interval = _interval(low, high, low_open, high_open)
    return f"{kind} {interval}".strip()


def check_number(
    owner: str,
    name: str,
    value: object,
    *,
    integer: bool = False,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    expected: str | None = None,
    largest: int | None = INT64_MAX,
) -> Any:
    """``value`` as an ``int`` (``integer=True``) or a ``float``, or the ParameterError of ``owner``'s ``name``.

    Refused: a bool (``True`` is not 1 here), a value of another type, NaN or an infinity, a value outside
    ``low``/``high`` (closed unless ``low_open``/``high_open``), an int above ``largest`` (int64's largest by
    default; None: no bound, as a seed), a Python int too large for a float. ``expected`` are the words of the rule
    (default: :func:`describe`'s).
    """

    def refuse() -> ParameterError:
        words = expected or describe(integer, low, high, low_open, high_open)
        return parameter_error(owner, name, words, value)

    if isinstance(value, (bool, np.bool_)):
        raise refuse()
    v: int | float
    if integer:
        if not isinstance(value, numbers.Integral):
            raise refuse()
        v = int(value)
        if largest is not None and abs(v) > largest:
            raise refuse()
    else:
        if not isinstance(value, numbers.Real):
            raise refuse()
        try:
            v = float(value)
        except (OverflowError, TypeError, ValueError):
            raise refuse() from None
        if not math.isfinite(v):
            raise refuse()
    if low is not None and not (v > low if low_open else v >= low):
        raise refuse()
    if high is not None and not (v < high if high_open else v <= high):
        raise refuse()
    return v


def check_array(owner: str, name: str, value: object, rule: str, ok: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """A number or an array-like of numbers as a float64 array whose every element passes ``ok``, else the error."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise parameter_error(owner, name, rule, value)
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise parameter_error(owner, name, rule, value) from None
    if arr.dtype != np.float64 or arr.size == 0:
        raise parameter_error(owner, name, rule, value)
    with np.errstate(invalid="ignore"):
        good = np.asarray(ok(arr), dtype=bool)
    if not good.all():
        bad = value if arr.ndim == 0 else arr[~good][:3].tolist()
        raise parameter_error(owner, name, rule, bad)
    return arr


def broadcast(owner: str, arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The arrays broadcast together (numpy's rule), or the ParameterError naming the parameters whose shapes clash."""
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{name} {np.shape(a)}" for name, a in arrays.items())
        raise ParameterError(
            f"The parameters {', '.join(repr(n) for n in arrays)} of {owner} must be numbers or arrays of one "
            f"shape (or shapes that broadcast, such as a number and an array). Got shapes {shapes} instead.",
            owner=owner,
            parameter=next(iter(arrays)),
            expected="numbers or arrays of one shape (or shapes that broadcast)",
            got=shapes,
        ) from None
