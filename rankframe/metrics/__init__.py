"""Numpy kernels, one module per metric, named like the registry entries and the ``sql/<name>.sql`` files.

Each module exposes ``compute(prep, **params) -> (values, nothing_relevant)``: one float per evaluation unit,
and for metrics declared ``needs_relevant`` the mask of units where the value is undefined (0/0), to which the
``no_relevant`` policy applies (None otherwise).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..registry import METRICS


def kernel(name: str) -> Callable:
    """The ``compute`` function of a declared metric."""
    return importlib.import_module(f"{__name__}.{name}").compute


KERNELS = {m.name: kernel(m.name) for m in METRICS}
