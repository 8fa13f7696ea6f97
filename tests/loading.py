"""Another test file's module, loaded by path (test files are not a package: their cases and oracles are shared so)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load(path: Path, prefix: str) -> ModuleType:
    """The module of the test file ``path``, under the name ``{prefix}_{stem}`` (one copy per loading file)."""
    spec = importlib.util.spec_from_file_location(f"{prefix}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
