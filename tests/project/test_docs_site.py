"""The documentation site (mkdocs.yml, docs/reference/): every public name is in the API reference, and the site
builds in strict mode (issue 36; docs/decisions/0022-documentation-site.md).

The cheap tests read the reference pages' ``::: path`` lines (no build); the slow one runs ``mkdocs build --strict``
into a temporary folder and finds each public name's anchor in the HTML it wrote.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from rankframe.accessor import RankMetrics

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"
#: the public modules and the reference page of each (their names are their ``__all__``)
PAGES = {
    "rankframe": "rankframe.md",
    "rankframe.sql": "sql.md",
    "rankframe.plot": "plot.md",
    "rankframe.spark": "spark.md",
}
ACCESSOR = ("accessor.md", "rankframe.accessor.RankMetrics")


def directives(page: str) -> list[str]:
    """The objects a reference page renders: its ``::: dotted.path`` lines."""
    return re.findall(r"^::: ([\w.]+)\s*$", (REFERENCE / page).read_text(encoding="utf-8"), flags=re.M)


def target(module: str, name: str) -> str:
    """The path a page names ``module.name`` by: a function named like its own module (``rankframe.evaluate``,
    ``rankframe.plot.at_k``) by the module's path, since mkdocstrings would read ``module.name`` as the module."""
    mod = importlib.import_module(module)
    obj = getattr(mod, name)
    is_package = hasattr(mod, "__path__")
    if (
        not isinstance(obj, types.ModuleType)
        and is_package
        and importlib.util.find_spec(f"{module}.{name}") is not None
    ):
        return f"{obj.__module__}.{obj.__qualname__}"
    return f"{module}.{name}"


def public_names() -> list[tuple[str, str]]:
    return [(module, name) for module in PAGES for name in importlib.import_module(module).__all__]


def accessor_methods() -> list[str]:
    """The accessor's public methods: the fixed ones and one per declared metric and alias (made at import)."""
    return [n for n in dir(RankMetrics) if not n.startswith("_") and callable(getattr(RankMetrics, n))]


@pytest.mark.parametrize(("module", "name"), public_names(), ids=lambda v: v)
def test_every_public_name_has_its_line_in_the_reference(module, name):
    want = target(module, name)
    assert want in directives(PAGES[module]), f"add the line '::: {want}' to docs/reference/{PAGES[module]}"


def test_the_reference_names_nothing_that_is_not_public():
    # a line for a name that left __all__ (or a typo) would render a private object, or fail the build
    for module, page in PAGES.items():
        public = {target(module, n) for n in importlib.import_module(module).__all__}
        extra = [d for d in directives(page) if d != module and d not in public]
        assert not extra, f"docs/reference/{page} names objects outside {module}.__all__: {extra}"


def test_the_accessor_page_renders_every_method():
    # the page renders the running class (force_inspection: the metric methods are made from the declarations):
    # a method shows when the page names the class and the method has a docstring (show_if_no_docstring is off)
    page, path = ACCESSOR
    text = (REFERENCE / page).read_text(encoding="utf-8")
    assert path in directives(page) and "force_inspection: true" in text
    assert "members:" not in text, "a members: list would leave out the metric methods a new declaration adds"
    undocumented = [n for n in accessor_methods() if not (getattr(RankMetrics, n).__doc__ or "").strip()]
    assert not undocumented, f"accessor methods without a docstring are left out of the reference: {undocumented}"
    assert {"evaluate", "compare", "ap", "ndcg"} <= set(accessor_methods())


def test_the_navigation_lists_every_page():
    # the site's navigation is by task: a page left out of mkdocs.yml's nav would be built but not reachable
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    missing = [p for p in pages if f" {p}\n" not in nav and f"- {p}\n" not in nav]
    assert not missing, f"add these pages to mkdocs.yml's nav: {missing}"


@pytest.mark.slow  # the strict build: ~35 s on 2 cores (mkdocstrings reads every reference page's module)
def test_the_site_builds_strictly_with_every_name(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-6000:]
    for module, name in public_names():
        html = (site / "reference" / PAGES[module].removesuffix(".md") / "index.html").read_text(encoding="utf-8")
        assert f'id="{target(module, name)}"' in html, (module, name)
    html = (site / "reference" / "accessor" / "index.html").read_text(encoding="utf-8")
    missing = [n for n in accessor_methods() if f'id="{ACCESSOR[1]}.{n}"' not in html]
    assert not missing, f"accessor methods missing from the built reference: {missing}"
