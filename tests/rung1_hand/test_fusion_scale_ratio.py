"""Fusion's one-scale ratio is declared once (rankframe.fusion.fuse.SCALE_RATIO) and both faces read it (issue 35).

rf_fuse takes it from the macro rf__fuse_scale_ratio(), which ``python -m rankframe.fusion.sqlgen`` writes into
sql/fuse.sql from the Python constant. The case, by hand: systems a and b, one query, a's scores 0 and 1 (span 1),
b's scores 0 and 5 (span 5); the ranges overlap (max of the lows 0 <= min of the highs 1). CombSUM with norm := None
checks the scales: 5 / 10 = 0.5 > 1 is false, so at the ratio 10 they are one scale and both faces fuse them;
at a ratio of 4, 5 / 4 = 1.25 > 1, so both faces refuse them ("on different scales").
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
sqlgen = importlib.import_module("rankframe.fusion.sqlgen")

RUNS = pd.DataFrame(
    [("a", "q", "x", 0.0), ("a", "q", "y", 1.0), ("b", "q", "x", 0.0), ("b", "q", "z", 5.0)],
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


def test_the_generated_macro_is_current():
    assert sqlgen.fuse_sql_block() in (SQL / "fuse.sql").read_text(encoding="utf-8"), (
        "run: python -m rankframe.fusion.sqlgen"
    )


def test_both_faces_read_the_declared_ratio():
    # the declared ratio, 10: one scale on both faces; z = 5, y = 1, x = 0 + 0 (combsum of the raw scores)
    assert fuse_module.SCALE_RATIO == 10.0
    assert sql_face().execute("SELECT rf__fuse_scale_ratio()").fetchone()[0] == fuse_module.SCALE_RATIO
    py = rankframe.fuse(RUNS, "combsum").query("system == 'combsum'")
    assert list(py["item"]) == ["z", "y", "x"] and list(py["score"]) == [5.0, 1.0, 0.0]
    assert sql_face().execute(FUSE_SQL).fetchall() == [("z", 5.0), ("y", 1.0), ("x", 0.0)]


def test_changing_the_one_definition_changes_both_faces(monkeypatch, tmp_path):
    # SCALE_RATIO = 4, the SQL regenerated from it (sqlgen into a copy of sql/): both faces refuse the runs
    monkeypatch.setattr(fuse_module, "SCALE_RATIO", 4.0)
    for file in SQL.glob("*.sql"):
        shutil.copy(file, tmp_path / file.name)
    sqlgen.write(tmp_path / "fuse.sql")
    with pytest.raises(ParameterError, match="different scales"):
        rankframe.fuse(RUNS, "combsum")
    con = sql_face(tmp_path)
    assert con.execute("SELECT rf__fuse_scale_ratio()").fetchone()[0] == 4.0
    with pytest.raises(duckdb.InvalidInputException, match="different scales"):
        con.execute(FUSE_SQL).fetchall()
