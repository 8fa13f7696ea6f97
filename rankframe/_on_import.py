"""The namespaces on other libraries' frames, registered when those libraries are imported.

``import rankframe`` loads neither pandas nor polars (the ``rankframe`` command's start-up stays light), yet
``df.rank_metrics`` must work whichever of ``import pandas`` and ``import rankframe`` came first. So: a library
already imported gets its namespace now; otherwise a finder on ``sys.meta_path`` wraps the loader of its first
import and registers the namespace right after the library's own module has run, then leaves ``sys.meta_path``.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from typing import Any


class _Forward(type):
    """``pd.DataFrame.rank_metrics.ndcg`` (the class, as ``help()`` and editors read it) is the real class's."""

    def __getattr__(cls, name: str) -> Any:
        from .accessor import RankMetricsAccessor

        return getattr(RankMetricsAccessor, name)


class _RankMetrics(metaclass=_Forward):
    """What pandas registers as ``df.rank_metrics``: it makes the real namespace at the first use.

    That is :class:`rankframe.accessor.RankMetricsAccessor`, imported then. Registering the class itself would
    import the engines while pandas is being imported, which may happen in the middle of rankframe's own imports.
    """

    def __new__(cls, obj: Any) -> Any:
        from .accessor import RankMetricsAccessor

        return RankMetricsAccessor(obj)


def _register(name: str, module: Any) -> None:
    if name == "pandas":
        if not isinstance(getattr(module.DataFrame, "rank_metrics", None), type):  # once (pandas warns on a second)
            module.api.extensions.register_dataframe_accessor("rank_metrics")(_RankMetrics)
    else:
        from . import polars_namespace

        polars_namespace.register(module)


class _Loader(importlib.abc.Loader):
    """The library's own loader, then :func:`_register` on the module it has just executed."""

    def __init__(self, name: str, loader: Any) -> None:
        self._name = name
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._loader.exec_module(module)
        _register(self._name, module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of the first ``import <name>``, then leaves ``sys.meta_path``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(fullname, spec.loader)
        return spec


def install() -> None:
    """Register on pandas and polars now where imported, else at their first import; nothing if not installed."""
    for name in ("pandas", "polars"):
        module = sys.modules.get(name)
        if module is not None:
            _register(name, module)
            continue
        if name in sys.modules:  # set to None: imports of it are blocked
            continue
        if any(isinstance(f, _Finder) and f.name == name for f in sys.meta_path):
            continue
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            sys.meta_path.insert(0, _Finder(name))
