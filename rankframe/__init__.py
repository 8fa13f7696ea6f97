"""rankframe: ranking-quality metrics over long-format tables, in pandas and DuckDB SQL.

``import rankframe`` registers the ``df.rank_metrics`` accessor (and ``pl_df.rank_metrics`` when polars is used).

The public names are imported at their first use (``rankframe.evaluate``, ``from rankframe import compare``), so
that ``import rankframe`` itself costs almost nothing and the ``rankframe`` command's start-up (``--help``) loads
neither pandas nor numpy. The accessor needs pandas: it is registered now if pandas is imported, else as soon as it
is (rankframe._on_import). tests/project/test_import_time.py holds what a bare import loads.
"""

from __future__ import annotations

import importlib as _importlib
import importlib.util as _importlib_util
import sys as _sys
import types as _types
from typing import TYPE_CHECKING

from . import _moved, _on_import
from ._version import __version__ as __version__

if TYPE_CHECKING:  # the names as type checkers and the docs see them; at run time __getattr__ imports them
    from . import display, plot, sql
    from .accessor import RankMetrics
    from .agreement import agreement
    from .anova import anova
    from .compare import compare
    from .core import progress
    from .core.columns import Columns
    from .core.errors import MetricSyntaxError, ParameterError, RankframeError, UnknownMetricError, ValidationError
    from .core.progress import options
    from .evaluate import evaluate, validate
    from .fusion.fuse import fuse
    from .fusion.train import fuse_train
    from .measures.better import direction
    from .measures.names import Measure, parse
    from .measures.registry import METRICS
    from .qrels_compare import qrels_compare
    from .report import report
    from .segments import segment_means
    from .stats.planning import power, topic_set_size
    from .tables import inputs
    from .tables.io import (
        InputFileError,
        read_long,
        read_trec_qrels,
        read_trec_run,
        write_long,
        write_trec_qrels,
        write_trec_run,
    )
    from .tables.join import join_qrels, read_trec
    from .tables.schema import schema

#: each public name -> the module it lives in (imported at the name's first use); a submodule maps to itself
_WHERE = {
    "Columns": "core.columns",
    "agreement": "agreement",
    "InputFileError": "tables.io",
    "METRICS": "measures.registry",
    "Measure": "measures.names",
    "MetricSyntaxError": "core.errors",
    "ParameterError": "core.errors",
    "RankMetrics": "accessor",
    "RankframeError": "core.errors",
    "UnknownMetricError": "core.errors",
    "ValidationError": "core.errors",
    "evaluate": "evaluate",
    "fuse": "fusion",
    "fuse_train": "fusion",
    "join_qrels": "tables.join",
    "parse": "measures.names",
    "qrels_compare": "qrels_compare",
    "read_long": "tables.io",
    "read_trec": "tables.join",
    "read_trec_qrels": "tables.io",
    "read_trec_run": "tables.io",
    "schema": "tables.schema",
    "segment_means": "segments",
    "validate": "evaluate",
    "write_long": "tables.io",
    "write_trec_qrels": "tables.io",
    "write_trec_run": "tables.io",
    "sql": "sql",
    "display": "display",
    "plot": "plot",
    "report": "report",
    "compare": "compare",
    "direction": "measures.better",
    "anova": "anova",
    "power": "stats.planning",
    "topic_set_size": "stats.planning",
    "inputs": "tables.inputs",
    "options": "core.progress",
    "progress": "core.progress",
}
_SUBMODULES = frozenset({"sql", "display", "plot", "inputs", "progress"})
#: functions named like their module (rankframe.evaluate.evaluate): the name means the function, as it always did
_SHADOWED = frozenset(
    name for name, where in _WHERE.items() if name == where.rpartition(".")[2] and name not in _SUBMODULES
)


class _Package(_types.ModuleType):
    """The package's module object: importing ``rankframe.evaluate`` (the module) does not hide the function.

    The import system sets a package's attribute to each submodule it loads; for the functions named like their
    module, the function is kept (the eager ``from .evaluate import evaluate`` of old did the same).
    """

    def __setattr__(self, name: str, value: object) -> None:
        if (
            name in _SHADOWED
            and isinstance(value, _types.ModuleType)
            and value.__name__ == f"{__name__}.{_WHERE[name]}"
        ):
            value = getattr(value, name)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        # a submodule (rankframe.fusion, rankframe.stats, ...) as an attribute, as when the package imported them all
        if not name.startswith("_") and _importlib_util.find_spec(f"{__name__}.{name}") is not None:
            return _importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = _importlib.import_module(f".{where}", __name__)
    if name in _SUBMODULES:
        return module
    value = getattr(module, name)
    if name != "METRICS":  # METRICS follows register(): read from the registry each time
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = list(_WHERE)

_moved.install()  # the old dotted paths of the modules that moved into rooms (rankframe/_moved.py)
_on_import.install()  # df.rank_metrics once pandas is imported, pl_df.rank_metrics once polars is: now if they are
