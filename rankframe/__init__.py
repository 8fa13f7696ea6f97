"""rankframe: ranking-quality metrics over long-format tables, in pandas and DuckDB SQL.

``import rankframe`` registers the ``df.rank_metrics`` accessor (and ``pl_df.rank_metrics`` when polars is used).
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING

from . import better as _better
from . import inputs, polars_namespace, progress, registry
from ._version import __version__ as __version__
from .accessor import RankMetrics
from .agreement import agreement
from .anova import anova
from .better import direction
from .columns import Columns
from .compare import compare
from .errors import MetricSyntaxError, ParameterError, RankframeError, UnknownMetricError, ValidationError
from .evaluate import evaluate, validate
from .fusion import fuse, fuse_train
from .io import (
    InputFileError,
    read_long,
    read_trec_qrels,
    read_trec_run,
    write_long,
    write_trec_qrels,
    write_trec_run,
)
from .join import join_qrels, read_trec
from .names import Measure, parse
from .progress import options
from .qrels_compare import qrels_compare
from .registry import METRICS, on_change
from .report import report
from .schema import schema
from .segments import segment_means
from .stats.planning import power, topic_set_size

if TYPE_CHECKING:
    from . import display, plot, sql

#: submodules imported at their first use (``rankframe.plot``, ``from rankframe import display``), not by
#: ``import rankframe``: tests/project/test_import_time.py holds what a bare import loads
_LAZY = frozenset({"display", "plot", "sql"})


def __getattr__(name: str):
    if name in _LAZY:
        return _importlib.import_module(f".{name}", __name__)  # the import sets the attribute: called once
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "Columns",
    "agreement",
    "InputFileError",
    "METRICS",
    "Measure",
    "MetricSyntaxError",
    "ParameterError",
    "RankMetrics",
    "RankframeError",
    "UnknownMetricError",
    "ValidationError",
    "evaluate",
    "fuse",
    "fuse_train",
    "join_qrels",
    "parse",
    "qrels_compare",
    "read_long",
    "read_trec",
    "read_trec_qrels",
    "read_trec_run",
    "schema",
    "segment_means",
    "validate",
    "write_long",
    "write_trec_qrels",
    "write_trec_run",
    "sql",
    "display",
    "plot",
    "report",
    "compare",
    "direction",
    "anova",
    "power",
    "topic_set_size",
    "inputs",
    "options",
    "progress",
]

on_change(lambda: globals().update(METRICS=registry.METRICS))  # rankframe.METRICS follows register()
on_change(_better.clear_cache)  # a label's direction follows register() too
polars_namespace.install()  # pl_df.rank_metrics, once polars is imported (never imports polars itself)
