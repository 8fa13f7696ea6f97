"""rankframe: ranking-quality metrics over long-format tables, in pandas and DuckDB SQL."""

from __future__ import annotations

from .columns import Columns
from .errors import ParameterError, RankframeError, UnknownMetricError, ValidationError
from .names import Measure, parse
from .registry import METRICS

__all__ = ["Columns", "Measure", "METRICS", "ParameterError", "RankframeError", "UnknownMetricError",
           "ValidationError", "parse"]
__version__ = "0.1.0"
