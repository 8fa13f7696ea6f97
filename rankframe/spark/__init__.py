"""rankframe on Apache Spark: ``evaluate``, ``compare``, ``anova``, ``fuse`` on Spark DataFrames, as pandas gives.

Needs the ``spark`` extra (``pip install "rankframe[spark]"``, PySpark >= 3.5). Importing this package does not
import PySpark; the functions do, and say which extra to install when it is missing. See ``docs/spark.md``.
"""

from __future__ import annotations

from ._compat import MissingExtraError
from .agreement import agreement
from .anova import anova
from .compare import compare
from .evaluate import evaluate, means
from .fuse import fuse
from .validate import validate

__all__ = ["MissingExtraError", "agreement", "anova", "compare", "evaluate", "fuse", "means", "validate"]
