"""The built wheel ships the SQL macros (rankframe/_sql) and rankframe.sql finds them in an installed copy."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rankframe.measures.registry import METRICS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = list(out.glob("rankframe-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def test_wheel_contains_every_sql_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {"prepare.sql", "evaluate.sql", "validate.sql", "rankframe.sql", *(f"{m.name}.sql" for m in METRICS)}
    missing = {n for n in expected if f"rankframe/_sql/{n}" not in names}
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert "rankframe/sql.py" in names
    assert "hatch_build.py" not in names


def test_wheel_bundle_is_generated_from_the_sql_files(wheel):
    # the bundle is built at build time (hatch_build.py), never committed: it is exactly rankframe.sql.text()
    import rankframe.sql as rf_sql

    shipped = zipfile.ZipFile(wheel).read("rankframe/_sql/rankframe.sql").decode()
    assert shipped == rf_sql.text()
    tracked = subprocess.run(["git", "ls-files", "sql/rankframe.sql"], cwd=ROOT, capture_output=True, text=True)
    assert tracked.stdout.strip() == "", "sql/rankframe.sql is generated: do not commit it"


def test_installed_copy_loads_macros_from_the_wheel(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)  # a wheel is a zip of the installed tree
    code = (
        "import duckdb, rankframe.sql as s; d = s.directory(); "
        "assert d.name == '_sql', d; c = s.install(duckdb.connect()); "
        "print(d); print(c.sql('SELECT rf_rr([0, 0, 1])').fetchall()[0][0])"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    where, value = proc.stdout.split()
    assert Path(where).is_relative_to(site)
    assert float(value) == pytest.approx(1 / 3)
