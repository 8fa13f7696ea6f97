"""Fusion's constants in the SQL face, generated from their Python definitions into ``sql/fuse.sql``.

``sql/fuse.sql`` holds one generated block between ``-- rf:generated-begin`` and ``-- rf:generated-end``: the macros
``rf__fused_digits()``, :data:`rankframe.fusion.methods.FUSED_DIGITS` (fused scores are rounded to this many
significant digits before they are ordered), and ``rf__fuse_scale_ratio()``, :data:`rankframe.fusion.fuse.SCALE_RATIO`
(two systems' score spans that differ more than this many times are "on different scales" for a score method without
``norm``). ``python -m rankframe.fusion.sqlgen`` rewrites the block; ``tests/rung1_hand/test_fusion_constants.py``
fails when it is out of date, and changes each constant to see both faces follow.

Examples
--------
>>> for line in fuse_sql_block().splitlines()[1:3]:
...     print(line)
CREATE OR REPLACE MACRO rf__fused_digits() AS 12;
CREATE OR REPLACE MACRO rf__fuse_scale_ratio() AS CAST(10.0 AS DOUBLE);
"""

from __future__ import annotations

import importlib
from pathlib import Path

BEGIN = "-- rf:generated-begin (python -m rankframe.fusion.sqlgen: rankframe.fusion's constants)"
END = "-- rf:generated-end"
#: the modules rankframe.fusion.fuse (its name in the package is the function fuse) and rankframe.fusion.methods:
#: their constants are read at each call
_FUSE = importlib.import_module(f"{__package__}.fuse")
_METHODS = importlib.import_module(f"{__package__}.methods")
FUSE_SQL = Path(__file__).resolve().parents[2] / "sql" / "fuse.sql"


def fuse_sql_block() -> str:
    """The generated block of sql/fuse.sql: its marker lines around the macros of fusion's constants."""
    lines = [
        f"CREATE OR REPLACE MACRO rf__fused_digits() AS {int(_METHODS.FUSED_DIGITS)};",
        f"CREATE OR REPLACE MACRO rf__fuse_scale_ratio() AS CAST({float(_FUSE.SCALE_RATIO)!r} AS DOUBLE);",
    ]
    return "\n".join([BEGIN, *lines, END])


def write(path: str | Path = FUSE_SQL) -> None:
    """Rewrite the generated block of ``path`` (sql/fuse.sql) from the Python constants."""
    file = Path(path)
    head, rest = file.read_text(encoding="utf-8").split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    file.write_text(head + fuse_sql_block() + tail, encoding="utf-8")


if __name__ == "__main__":
    write()
