"""The ``test`` extra lists every third-party module the tests and the package import.

A fresh ``pip install ".[test]"`` must run the whole suite (the README's second set-up command); a module that is
installed on a developer's machine but missing from the extra fails here instead of on a new user's machine.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; CI runs 3.11

ROOT = Path(__file__).resolve().parents[2]


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imported_modules(files: list[Path]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], path)
    return found


def _local_modules() -> set[str]:
    local = {"rankframe", "conftest"}
    for folder in ("tests", "examples", "bench"):
        local |= {p.stem for p in (ROOT / folder).rglob("*.py")}
    return local


@pytest.mark.slow  # reads every import of the tree and the installed distributions (a packaging check CI makes)
def test_every_imported_third_party_module_is_in_the_test_extra_or_the_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    allowed = {_requirement_name(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    files = sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "rankframe").rglob("*.py"))
    files += sorted((ROOT / "examples").glob("*.py"))
    distributions = md.packages_distributions()
    missing = []
    for module, path in sorted(_imported_modules(files).items()):
        if module in sys.stdlib_module_names or module in _local_modules():
            continue
        names = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
        if not names & allowed:
            missing.append(f"{module} (imported by {path.relative_to(ROOT)}; distribution {sorted(names)})")
    assert not missing, "add to the `test` extra of pyproject.toml: " + "; ".join(missing)
