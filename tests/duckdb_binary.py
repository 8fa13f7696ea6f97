"""Where the duckdb command-line binary is (the duckdb-cli test extra), for the tests that run SQL through it."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def duckdb_cli() -> str | None:
    """The duckdb command-line binary (duckdb-cli test extra): on PATH or next to this Python."""
    found = shutil.which("duckdb")
    if found:
        return found
    here = Path(sys.executable).parent / "duckdb"
    return str(here) if here.is_file() else None
