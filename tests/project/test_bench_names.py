"""A bench script's name must not hide an installed package: ``python bench/x.py`` puts bench/ first on sys.path.

bench/coverage.py hid the ``coverage`` package, which numba imports, so every ranx run of bench/fusion.py failed with
"module 'coverage' has no attribute 'types'" (renamed bench/interval_coverage.py).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
#: packages our dependencies import when they are there (numba: ``coverage``), installed or not
PROBED = {"coverage"}


def _installed(name: str) -> bool:
    saved = sys.path[:]
    try:
        sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != BENCH]
        spec = importlib.util.find_spec(name)
        # a folder without __init__.py (the checkout's sql/) is a namespace package nobody imports: not hidden
        return spec is not None and spec.origin not in (None, "namespace")
    finally:
        sys.path[:] = saved


def test_no_bench_script_hides_an_installed_package():
    hiding = [
        p.name
        for p in sorted(BENCH.glob("*.py"))
        if p.stem in PROBED or (p.stem not in sys.stdlib_module_names and _installed(p.stem))
    ]
    assert not hiding, f"bench scripts named like installed packages (rename them): {hiding}"
