"""Fusion's rounding digits are declared once (rankframe.fusion.methods.FUSED_DIGITS) and both faces read it (issue 34).

rf_fuse rounds with the macro rf__fused_digits(), which ``python -m rankframe.fusion.sqlgen`` writes into
sql/fuse.sql's generated block from the Python constant (test_fusion_scale_ratio's first test fails when the block is
out of date). The case, by hand: systems a and b, one query; a scores x 0 and y 1.234, b scores x 0 and z 1.0, two
systems on one scale (spans 1.234 and 1, ranges overlap at 0). CombSUM of the raw scores: y = 1.234, z = 1.0,
x = 0 + 0 = 0. At the declared 12 digits y stays 1.234; at 2 significant digits it is 1.2 on both faces.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import duckdb
import pandas as pd

import rankframe
import rankframe.sql as rf_sql

SQL = Path(__file__).resolve().parents[2] / "sql"
methods = importlib.import_module("rankframe.fusion.methods")
sqlgen = importlib.import_module("rankframe.fusion.sqlgen")

RUNS = pd.DataFrame(
    [("a", "q", "x", 0.0), ("a", "q", "y", 1.234), ("b", "q", "x", 0.0), ("b", "q", "z", 1.0)],
    columns=["system", "query", "item", "score"],
)
FUSE_SQL = "SELECT item, score FROM rf_fuse('runs', method := 'combsum') ORDER BY rank"


def sql_face(folder: Path | None = None) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    if folder is None:
        rf_sql.install(con)
    else:
        con.execute(rf_sql.text(folder))
    con.register("runs", RUNS)
    return con


def python_face() -> list[tuple[str, float]]:
    fused = rankframe.fuse(RUNS, "combsum").query("system == 'combsum'")
    return list(zip(fused["item"], fused["score"], strict=True))


def test_the_generated_macro_is_the_declared_digits():
    assert f"CREATE OR REPLACE MACRO rf__fused_digits() AS {methods.FUSED_DIGITS};" in sqlgen.fuse_sql_block()
    assert sql_face().execute("SELECT rf__fused_digits()").fetchone()[0] == methods.FUSED_DIGITS == 12


def test_both_faces_round_with_the_declared_digits():
    assert python_face() == [("y", 1.234), ("z", 1.0), ("x", 0.0)]
    assert sql_face().execute(FUSE_SQL).fetchall() == [("y", 1.234), ("z", 1.0), ("x", 0.0)]


def test_changing_the_one_definition_changes_both_faces(monkeypatch, tmp_path):
    # FUSED_DIGITS = 2, the SQL regenerated from it (sqlgen into a copy of sql/): 1.234 is 1.2 on both faces
    monkeypatch.setattr(methods, "FUSED_DIGITS", 2)
    for file in SQL.glob("*.sql"):
        shutil.copy(file, tmp_path / file.name)
    sqlgen.write(tmp_path / "fuse.sql")
    assert python_face() == [("y", 1.2), ("z", 1.0), ("x", 0.0)]
    con = sql_face(tmp_path)
    assert con.execute("SELECT rf__fused_digits()").fetchone()[0] == 2
    assert con.execute(FUSE_SQL).fetchall() == [("y", 1.2), ("z", 1.0), ("x", 0.0)]
