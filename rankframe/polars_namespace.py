"""``pl_df.rank_metrics``: the pandas accessor's namespace on polars DataFrames and LazyFrames.

Same method names and signatures as ``df.rank_metrics`` (:class:`rankframe.RankMetrics`); results come back as
polars: ``evaluate``/``compare`` give a ``polars.DataFrame``, a metric method gives a float (the mean), or a
``polars.DataFrame`` with ``by=`` / ``per_query=True`` / ``ci=`` (the pandas accessor's Series, index as
columns). The frame is read through Arrow (``rankframe.inputs``) and never modified.

``import rankframe`` does not import polars: :func:`install` registers the namespace at once when polars is
already imported, and otherwise right after the program's own ``import polars`` (an import hook that removes
itself); without polars nothing happens.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from typing import Any

import pandas as pd

from .accessor import RankMetrics
from .core.columns import Columns
from .tables.inputs import import_polars

NAMESPACE = "rank_metrics"


def to_polars(result: Any) -> Any:
    """A pandas result of the accessor as polars (a float stays a float; an index becomes columns)."""
    if not isinstance(result, (pd.DataFrame, pd.Series)):
        return result
    pl = import_polars()
    if isinstance(result, pd.Series):
        if all(name is None for name in result.index.names):  # one row of named statistics (the ci= case)
            row = pl.DataFrame({str(k): [v] for k, v in result.items()})
            return row.with_columns(pl.col("n").cast(pl.Int64)) if "n" in row.columns else row
        result = result.reset_index()
    elif any(name is not None for name in result.index.names):
        result = result.reset_index()
    return pl.from_pandas(result)


class PolarsRankMetrics(RankMetrics):
    """Ranking metrics of a long-format polars DataFrame/LazyFrame (``pl_df.rank_metrics``).

    Call it to name the columns once: ``pl_df.rank_metrics(query="user_id", rank="position").ndcg(k=10)``.
    """

    def __call__(self, columns: Columns | dict | None = None, **names: str) -> PolarsRankMetrics:
        """Return the same API with other column names (``query=``, ``item=``, ``rank=``, ...)."""
        base = self._columns if columns is None else Columns.coerce(columns)
        return PolarsRankMetrics(self._obj, base.with_(**names))

    def _result(self, result: Any) -> Any:
        return to_polars(result)


def register(pl: Any) -> None:
    """Register ``rank_metrics`` on ``pl.DataFrame`` and ``pl.LazyFrame`` (once)."""
    for kind, registrar in (
        (pl.DataFrame, pl.api.register_dataframe_namespace),
        (pl.LazyFrame, pl.api.register_lazyframe_namespace),
    ):
        if not isinstance(getattr(kind, NAMESPACE, None), type) or not issubclass(
            getattr(kind, NAMESPACE), PolarsRankMetrics
        ):
            registrar(NAMESPACE)(PolarsRankMetrics)


class _Loader(importlib.abc.Loader):
    """polars' own loader, then :func:`register` on the module it has just executed."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        register(module)


class _Hook(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of the first ``import polars``, then leaves ``sys.meta_path``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "polars":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec("polars")
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


def install() -> None:
    """Register the namespace now if polars is imported, else when it is; nothing if polars is not installed."""
    module = sys.modules.get("polars")
    if module is not None:
        register(module)
        return
    if "polars" in sys.modules:  # set to None: imports of polars are blocked
        return
    if any(isinstance(f, _Hook) for f in sys.meta_path):
        return
    try:
        found = importlib.util.find_spec("polars") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        sys.meta_path.insert(0, _Hook())
