"""The package's furniture (issue 36): a LICENSE matching pyproject's license, a Keep-a-Changelog CHANGELOG with an
"Unreleased" section, one version everywhere (rankframe/_version.py, the wheel's metadata, the CLI, the changelog's
newest release), and a checkout that ignores the bundle `rankframe sql -o rankframe.sql` writes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import rankframe
from rankframe._version import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_license_file_matches_pyproject():
    from hatchling.metadata.core import ProjectMetadata
    from hatchling.plugin.manager import PluginManager

    meta = ProjectMetadata(str(ROOT), PluginManager())
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert meta.core.license == "MIT" and text.startswith("MIT License\n"), meta.core.license
    assert "Permission is hereby granted, free of charge" in text  # the MIT text, not a stub
    assert "License :: OSI Approved :: MIT License" in meta.core.classifiers


def test_changelog_has_an_unreleased_section_above_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "keepachangelog.com" in text
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.M)
    assert headings[0] == ("Unreleased", ""), headings[:2]
    version, date = headings[1]
    assert version == __version__ and date, (version, date)  # the newest release is the version the code says


def test_one_version_everywhere(capsys):
    from hatchling.metadata.core import ProjectMetadata
    from hatchling.plugin.manager import PluginManager

    from rankframe.cli import main

    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__) and __version__ != "0.1.0"
    assert rankframe.__version__ == __version__
    meta = ProjectMetadata(str(ROOT), PluginManager())
    assert "version" in meta.core.dynamic  # pyproject writes no second copy: the wheel's version is read from
    assert meta.version == __version__  # rankframe/_version.py by [tool.hatch.version]
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"rankframe {__version__}"


def test_a_checkout_ignores_the_sql_bundle():
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for path in ("rankframe.sql", "sql/rankframe.sql"):  # `rankframe sql -o rankframe.sql`; the build's bundle
        proc = subprocess.run([git, "check-ignore", "-q", path], cwd=ROOT, capture_output=True, timeout=30)
        assert proc.returncode == 0, (path, "would be left as an untracked file in a checkout", proc.stderr)
