"""The modules that moved into rooms (issue 34) are importable at their old dotted paths, as the very module object of
the new path (rankframe/_moved.py: one table, one import hook)."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

from rankframe._moved import MOVED, new_path


def _old_paths() -> list[tuple[str, str]]:
    """Every old path: each entry of MOVED, and each submodule of a moved package under its old name."""
    pairs = []
    for old, new in MOVED.items():
        pairs.append((old, new))
        module = importlib.import_module(new)
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{new}."):
            pairs.append((old + info.name[len(new) :], info.name))
    return pairs


@pytest.mark.parametrize("old, new", _old_paths())
def test_an_old_path_is_the_new_module(old, new):
    assert new_path(old) == new
    module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert module.__name__ == new and module.__spec__.name == new  # the module keeps its own name and spec
    assert sys.modules[old] is module


def test_old_imports_in_a_fresh_interpreter():
    # the forms users write, before anything else is imported: names from an old module, a submodule of a moved
    # package, the attribute of the package; and the function rankframe.schema stays the function after
    # `import rankframe.schema` (the module of that name moved to rankframe.tables.schema)
    code = """
import rankframe, rankframe.errors, rankframe.schema
from rankframe.registry import METRICS
from rankframe.io import read_trec_run
from rankframe.portable.render import render
import rankframe.io.trec as trec
import rankframe.tables.io.trec as trec2
import rankframe.core.errors as errors
assert trec is trec2 and rankframe.errors is errors, (trec, trec2)
assert callable(rankframe.schema) and not isinstance(rankframe.schema, type(rankframe)), rankframe.schema
assert read_trec_run is rankframe.read_trec_run and METRICS is rankframe.METRICS
assert rankframe.table_rules is rankframe.tables.rules
import rankframe.warehouse as warehouse  # the function render is still the package's render, not its module
assert not isinstance(warehouse.render, type(rankframe)) and render is warehouse.render, warehouse.render
import pickle
error = pickle.loads(pickle.dumps(rankframe.errors.ParameterError("x")))
assert type(error) is errors.ParameterError
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_moved_module_is_loaded_once():
    # the hook answers before the path finder: no second copy of a moved package's submodule under its old name
    code = (
        "import sys, rankframe.portable.terms, rankframe.units.codes, rankframe.io.trec\n"
        "files = {}\n"
        "for m in list(sys.modules.values()):\n"
        "    if getattr(m, '__file__', None) and m.__name__.startswith('rankframe'):\n"
        "        files.setdefault(m.__file__, set()).add(id(m))\n"
        "print(sorted(f for f, ids in files.items() if len(ids) > 1))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr
