"""Wheel build hook: ship ``sql/*.sql`` as ``rankframe/_sql`` and generate the ``rankframe.sql`` bundle there.

The bundle (every macro in one ``.read``-able file) is built from ``sql/`` at build time by ``rankframe/sql.py``
(loaded by path: it needs only the standard library), so it is never committed and never stale.
"""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class SqlBundleHook(BuildHookInterface):
    """Add the SQL files and the generated bundle to the wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:  # noqa: D102 - hatchling's interface
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        spec = importlib.util.spec_from_file_location("_rankframe_sql_for_build", root / "rankframe" / "sql.py")
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot load {root / 'rankframe' / 'sql.py'}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sources = root / "sql"
        for path in module.files(sources):
            build_data["force_include"][str(path)] = f"rankframe/_sql/{path.name}"
        self._tmp = tempfile.TemporaryDirectory(prefix="rankframe-bundle-")
        bundle = Path(self._tmp.name) / module.BUNDLE
        bundle.write_text(module.text(sources), encoding="utf-8")
        build_data["force_include"][str(bundle)] = f"rankframe/_sql/{module.BUNDLE}"

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:  # noqa: D102
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
