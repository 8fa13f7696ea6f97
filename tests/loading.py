"""Another test file's module, loaded by path (test files are not a package: their cases and oracles are shared so);
a peer imported when a test first uses it, not when its file is collected."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def load(path: Path, prefix: str) -> ModuleType:
    """The module of the test file ``path``, under the name ``{prefix}_{stem}`` (one copy per loading file)."""
    spec = importlib.util.spec_from_file_location(f"{prefix}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Later:
    """A module imported (``pytest.importorskip``) at its first attribute, i.e. by the first test that uses it.

    Every xdist worker collects every file, the quick loop's included, though it runs none of a tier's items: a
    peer imported at the top of a file (dbt 4 CPU-s, ranx 4 CPU-s) costs each worker that much for nothing. A test
    that uses it is skipped, as ``importorskip`` skips, when the peer is not installed.

    >>> math = Later("math")
    >>> math.sqrt(4.0)
    2.0
    """

    def __init__(self, name: str, reason: str | None = None) -> None:
        self._name, self._reason = name, reason

    def __getattr__(self, attribute: str) -> Any:
        return getattr(pytest.importorskip(self._name, reason=self._reason), attribute)
