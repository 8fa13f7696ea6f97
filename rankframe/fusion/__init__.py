"""Rank fusion over the long table: :func:`fuse` and the declared methods and normalisations.

One module per job: :mod:`.methods` (the declarations), :mod:`.runs` (the runs as arrays, in rankframe's order),
:mod:`.normalize` (per-list normalisations), :mod:`.kernels` (each method's arithmetic), :mod:`.fuse` (the public
function: checks and the fused rows), :mod:`.train` (``fuse_train``: ranx's supervised grid search).
"""

from __future__ import annotations

from .fuse import fuse
from .methods import (
    ALIASES,
    METHODS,
    NORMS,
    PARAM_DEFAULTS,
    TRAINING,
    FusionMethod,
    Normalisation,
    methods_markdown,
    norms_markdown,
    training_markdown,
)
from .train import fuse_train

__all__ = [
    "ALIASES",
    "METHODS",
    "NORMS",
    "PARAM_DEFAULTS",
    "TRAINING",
    "FusionMethod",
    "Normalisation",
    "fuse",
    "fuse_train",
    "methods_markdown",
    "norms_markdown",
    "training_markdown",
]
