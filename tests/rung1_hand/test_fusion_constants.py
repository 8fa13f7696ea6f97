"""Fusion's constants are declared once in Python and both faces read them (issues 34, 35).

rf_fuse takes them from the macros rf__fuse_scale_ratio() (rankframe.fusion.fuse.SCALE_RATIO) and rf__fused_digits()
(rankframe.fusion.methods.FUSED_DIGITS), which ``python -m rankframe.fusion.sqlgen`` writes into sql/fuse.sql's
generated block from the Python constants; the first test fails when the block is out of date, the others change a
constant, regenerate the SQL into a copy of sql/ and see both faces follow.

The scale ratio, by hand: systems a and b, one query, a's scores 0 and 1 (span 1), b's scores 0 and 5 (span 5); the
ranges overlap (max of the lows 0 <= min of the highs 1). CombSUM with norm := None checks the scales: 5 / 10 = 0.5 > 1
is false, so at the ratio 10 they are one scale and both faces fuse them; at a ratio of 4, 5 / 4 = 1.25 > 1, so both
faces refuse them ("on different scales").

The digits, by hand: a scores x 0 and y 1.234, b scores x 0 and z 1.0 (spans 1.234 and 1, one scale). CombSUM of the
raw scores: y = 1.234, z = 1.0, x = 0 + 0 = 0. At the declared 12 significant digits y stays 1.234; at 2 it is 1.2 on
both faces.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import rankframe
import rankframe.sql as rf_sql
from rankframe.core.errors import ParameterError

SQL = Path(__file__).resolve().parents[2] / "sql"
fuse_module = importlib.import_module("rankframe.fusion.fuse")
methods = importlib.import_module("rankframe.fusion.methods")
sqlgen = importlib.import_module("rankframe.fusion.sqlgen")

COLUMNS = ["system", "query", "item", "score"]
RUNS = pd.DataFrame(
    [("a", "q", "x", 0.0), ("a", "q", "y", 1.0), ("b", "q", "x", 0.0), ("b", "q", "z", 5.0)], columns=COLUMNS
)
DIGITS_RUNS = pd.DataFrame(
    [("a", "q", "x", 0.0), ("a", "q", "y", 1.234), ("b", "q", "x", 0.0), ("b", "q", "z", 1.0)], columns=COLUMNS
)
FUSE_SQL = "SELECT item, score FROM rf_fuse('runs', method := 'combsum') ORDER BY rank"


def sql_face(runs: pd.DataFrame = RUNS, folder: Path | None = None) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    if folder is None:
        rf_sql.install(con)
    else:
        con.execute(rf_sql.text(folder))
    con.register("runs", runs)
    return con


def regenerated(tmp_path: Path) -> Path:
    """A copy of sql/ with fuse.sql's block written by sqlgen from the constants as they are now."""
    for file in SQL.glob("*.sql"):
        shutil.copy(file, tmp_path / file.name)
    sqlgen.write(tmp_path / "fuse.sql")
    return tmp_path


def python_face(runs: pd.DataFrame) -> list[tuple[str, float]]:
    fused = rankframe.fuse(runs, "combsum").query("system == 'combsum'")
    return list(zip(fused["item"], fused["score"], strict=True))


def test_the_generated_macros_are_current():
    assert sqlgen.fuse_sql_block() in (SQL / "fuse.sql").read_text(encoding="utf-8"), (
        "run: python -m rankframe.fusion.sqlgen"
    )


def test_both_faces_read_the_declared_ratio():
    # the declared ratio, 10: one scale on both faces; z = 5, y = 1, x = 0 + 0 (combsum of the raw scores)
    assert fuse_module.SCALE_RATIO == 10.0
    assert sql_face().execute("SELECT rf__fuse_scale_ratio()").fetchone()[0] == fuse_module.SCALE_RATIO
    assert python_face(RUNS) == [("z", 5.0), ("y", 1.0), ("x", 0.0)]
    assert sql_face().execute(FUSE_SQL).fetchall() == [("z", 5.0), ("y", 1.0), ("x", 0.0)]


def test_changing_the_ratio_changes_both_faces(monkeypatch, tmp_path):
    # SCALE_RATIO = 4, the SQL regenerated from it: both faces refuse the runs
    monkeypatch.setattr(fuse_module, "SCALE_RATIO", 4.0)
    con = sql_face(RUNS, regenerated(tmp_path))
    with pytest.raises(ParameterError, match="different scales"):
        rankframe.fuse(RUNS, "combsum")
    assert con.execute("SELECT rf__fuse_scale_ratio()").fetchone()[0] == 4.0
    with pytest.raises(duckdb.InvalidInputException, match="different scales"):
        con.execute(FUSE_SQL).fetchall()


def test_both_faces_round_with_the_declared_digits():
    assert methods.FUSED_DIGITS == 12
    assert sql_face().execute("SELECT rf__fused_digits()").fetchone()[0] == methods.FUSED_DIGITS
    assert python_face(DIGITS_RUNS) == [("y", 1.234), ("z", 1.0), ("x", 0.0)]
    assert sql_face(DIGITS_RUNS).execute(FUSE_SQL).fetchall() == [("y", 1.234), ("z", 1.0), ("x", 0.0)]


def test_changing_the_digits_changes_both_faces(monkeypatch, tmp_path):
    # FUSED_DIGITS = 2, the SQL regenerated from it: 1.234 is 1.2 on both faces
    monkeypatch.setattr(methods, "FUSED_DIGITS", 2)
    con = sql_face(DIGITS_RUNS, regenerated(tmp_path))
    assert python_face(DIGITS_RUNS) == [("y", 1.2), ("z", 1.0), ("x", 0.0)]
    assert con.execute("SELECT rf__fused_digits()").fetchone()[0] == 2
    assert con.execute(FUSE_SQL).fetchall() == [("y", 1.2), ("z", 1.0), ("x", 0.0)]
