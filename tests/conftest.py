"""Shared fixtures: hypothesis profiles, the ../shared/data path, and the engine parametrization."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracle.py, tests/strategies.py

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=_SUPPRESS,
                          print_blob=True)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_SUPPRESS)
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=_SUPPRESS)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (real TREC data); skip loudly when it is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"!!! SHARED TEST DATA NOT FOUND at {SHARED_DATA} — trec_eval/robust03/ir_measures parity "
                    f"tests were NOT run. Put the shared/ folder next to the repository. !!!")
    return SHARED_DATA


def _engines() -> list[str]:
    engines = ["pandas"]
    try:
        importlib.import_module("rankframe.engines.duckdb_engine")
    except Exception:  # noqa: BLE001 - not written yet, or duckdb missing
        pass
    else:
        engines.append("duckdb")
    return engines


ENGINES = _engines()


@pytest.fixture(params=ENGINES)
def engine(request) -> str:
    """Every engine rankframe has: the same test body runs on each."""
    return request.param


def hypothesis_examples(ci: int, dev: int | None = None) -> int:
    """Scale a test's example count by the active profile (ci / dev / thorough)."""
    name = settings._current_profile  # noqa: SLF001
    if name == "ci":
        return ci
    if name == "thorough":
        return 10 * ci
    return dev or 2 * ci
