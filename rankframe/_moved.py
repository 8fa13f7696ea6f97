"""The modules that moved into rooms (issue 34), still importable at their old dotted paths: one table, one hook.

``import rankframe.errors``, ``from rankframe.registry import METRICS`` and ``rankframe.io.read_trec_run`` keep
working and give the very module object of the new path (``rankframe.core.errors``, ...): not a copy, so
``isinstance`` checks, ``monkeypatch`` and ``mock.patch("rankframe.registry.X")`` act on the one module. A moved
package moves with its submodules (``rankframe.portable.render`` is ``rankframe.warehouse.render``).

The hook is a finder first on ``sys.meta_path`` that answers only for the names of :data:`MOVED` (and the
submodules of a moved package): nothing is imported before an old name is, so ``import rankframe`` stays cheap.
tests/project/test_architecture.py holds that every old path imports and is the new path's module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Any

#: old dotted path -> new dotted path; a package's entry covers its submodules
MOVED = {
    "rankframe.errors": "rankframe.core.errors",
    "rankframe.declare": "rankframe.core.declare",
    "rankframe.constraints": "rankframe.core.constraints",
    "rankframe.numeric": "rankframe.core.numeric",
    "rankframe.columns": "rankframe.core.columns",
    "rankframe.progress": "rankframe.core.progress",
    "rankframe.registry": "rankframe.measures.registry",
    "rankframe.names": "rankframe.measures.names",
    "rankframe.better": "rankframe.measures.better",
    "rankframe.arguments": "rankframe.measures.arguments",
    "rankframe.checks": "rankframe.measures.checks",
    "rankframe.inputs": "rankframe.tables.inputs",
    "rankframe.join": "rankframe.tables.join",
    "rankframe.schema": "rankframe.tables.schema",
    "rankframe.table_rules": "rankframe.tables.rules",
    "rankframe.prepare": "rankframe.tables.prepare",
    "rankframe._pandera": "rankframe.tables._pandera",
    "rankframe.units": "rankframe.tables.units",
    "rankframe.io": "rankframe.tables.io",
    "rankframe.engines.aggregate": "rankframe.stats.aggregate",
    "rankframe.table_writers": "rankframe.display.writers",
    "rankframe.portable": "rankframe.warehouse",
}


def new_path(name: str) -> str | None:
    """The new dotted path of an old one (``rankframe.io.trec`` -> ``rankframe.tables.io.trec``), else None."""
    head = name
    while head:
        if head in MOVED:
            return MOVED[head] + name[len(head) :]
        head = head.rpartition(".")[0]
    return None


class _Alias(importlib.abc.Loader):
    """Gives the new path's module for the old name (the import system then binds the old name to it)."""

    def __init__(self, old: str, target: str) -> None:
        self.old = old
        self.target = target
        self.spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.spec  # the import system wrote the old name's spec on it: the module keeps its own
        if hasattr(module, "__path__"):
            # a moved package's submodules already imported get their old names now: imported by an old name later,
            # one would be bound again as the package's attribute, over a name the package took from it (the
            # function rankframe.warehouse.render, from its module render)
            for name, loaded in list(sys.modules.items()):
                if name.startswith(self.target + "."):
                    sys.modules.setdefault(self.old + name[len(self.target) :], loaded)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not fullname.startswith("rankframe."):
            return None
        where = new_path(fullname)
        if where is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(fullname, where))


def install() -> None:
    """Put the finder first on ``sys.meta_path``, once.

    First: before the path finder, which would load a second copy of a moved package's submodule under its old name.
    """
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
