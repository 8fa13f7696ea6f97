"""docs/warehouse.md's paste-ready SQL is what ``rankframe sql`` prints for the command line in each block's first
comment (so the page cannot drift from the code), and each block parses in its dialect."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import sqlglot

from rankframe.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "warehouse.md"
BLOCKS = re.findall(r"```sql\n-- (rankframe sql [^\n]*)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_page_has_a_bigquery_and_a_snowflake_statement():
    dialects = [shlex.split(cmd)[shlex.split(cmd).index("--dialect") + 1] for cmd, _ in BLOCKS]
    assert dialects == ["bigquery", "snowflake"]


def test_each_block_is_the_commands_output(capsys):
    for cmd, sql in BLOCKS:
        assert main(shlex.split(cmd)[1:]) == 0
        assert capsys.readouterr().out == sql, cmd
        dialect = shlex.split(cmd)[shlex.split(cmd).index("--dialect") + 1]
        assert isinstance(sqlglot.parse_one(sql, read=dialect), sqlglot.exp.Query)


def test_what_is_portable_names_every_declared_metric():
    from rankframe.measures.registry import METRICS

    section = DOC.read_text(encoding="utf-8").split("## What is portable", 1)[1].split("\n## ", 1)[0]
    missing = [s.canonical for s in METRICS if not re.search(rf"\b{re.escape(s.canonical)}\b", section)]
    assert not missing, f"docs/warehouse.md 'What is portable' does not name {missing}"
