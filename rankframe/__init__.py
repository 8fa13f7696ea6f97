"""rankframe: ranking-quality metrics over long-format tables, in pandas and DuckDB SQL.

``import rankframe`` registers the ``df.rank_metrics`` accessor.
"""

from __future__ import annotations

from .accessor import RankMetrics
from .columns import Columns
from .errors import ParameterError, RankframeError, UnknownMetricError, ValidationError
from .evaluate import evaluate, join_qrels
from .names import Measure, parse
from .registry import METRICS
from .schema import schema, validate

__all__ = ["Columns", "METRICS", "Measure", "ParameterError", "RankMetrics", "RankframeError",
           "UnknownMetricError", "ValidationError", "evaluate", "join_qrels", "parse", "schema", "validate"]
__version__ = "0.1.0"
