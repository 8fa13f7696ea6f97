"""Rank fusion over the long table: :func:`fuse` and the declared methods and normalisations.

One module per job: :mod:`.methods` (the declarations), :mod:`.runs` (the runs as arrays, in rankframe's order),
:mod:`.normalize` (per-list normalisations), :mod:`.kernels` (each method's arithmetic), :mod:`.fuse` (the public
function: checks and the fused rows).
"""

from __future__ import annotations

from .fuse import fuse
from .methods import (
    ALIASES,
    METHODS,
    NORMS,
    PARAM_DEFAULTS,
    FusionMethod,
    Normalisation,
    methods_markdown,
    norms_markdown,
)

__all__ = [
    "ALIASES",
    "METHODS",
    "NORMS",
    "PARAM_DEFAULTS",
    "FusionMethod",
    "Normalisation",
    "fuse",
    "methods_markdown",
    "norms_markdown",
]
