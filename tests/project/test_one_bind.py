"""One-shot DuckDB queries bind once: ``con.execute(sql).df()``, never ``con.sql(sql).df()``.

A relation (``con.sql``) binds the statement to learn its columns, and binds it again when it runs; binding is most
of a small macro call (``rf_means`` on 3 rows: 0.76 s through ``sql().df()``, 0.43 s through ``execute().df()`` on
DuckDB 2.0; 0.56 / 0.30 s on 1.4; 0.63 / 0.35 s on 1.5). This finds ``<name>.sql(...).<fetch>()`` in the package
and the tests, by tokens (a string holding parentheses cannot fool it).
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FETCH = {"df", "fetchall", "fetchone", "fetchdf", "fetchnumpy", "fetch_df"}
#: owners whose .sql() is not a DuckDB connection's (sqlglot expressions, the duckdb module's default connection in
#: docstrings, Spark sessions)
NOT_A_CONNECTION = {"duckdb", "spark", "statement", "exp", "self"}


def double_binds(source: str) -> list[int]:
    """Line numbers of ``<name>.sql(...).<fetch>()`` calls in ``source``."""
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    toks = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skip]
    lines = []
    for i, t in enumerate(toks):
        if not (t.type == tokenize.NAME and t.string == "sql" and 2 <= i < len(toks) - 1):
            continue
        owner = toks[i - 2]
        if toks[i - 1].string != "." or toks[i + 1].string != "(" or owner.type != tokenize.NAME:
            continue
        if owner.string in NOT_A_CONNECTION:
            continue
        depth, j = 0, i + 1
        while j < len(toks):
            if toks[j].type == tokenize.OP and toks[j].string in "([{":
                depth += 1
            elif toks[j].type == tokenize.OP and toks[j].string in ")]}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j + 2 < len(toks) and toks[j + 1].string == "." and toks[j + 2].string in FETCH:
            lines.append(t.start[0])
    return lines


def test_the_finder_finds_a_double_bind():
    assert double_binds('x = con.sql(f"SELECT {a} FROM (SELECT 1)").df()\ny = con.execute("SELECT 1").df()\n') == [1]
    assert double_binds('rel = con.sql("SELECT 1")\nrel.filter("x > 1").df()\n') == []  # a relation kept: fine


@pytest.mark.slow  # parses the whole package (a code-style check CI makes)
def test_one_shot_queries_bind_once():
    found = {
        str(p.relative_to(ROOT)): lines
        for folder in ("rankframe", "tests", "bench")
        for p in sorted((ROOT / folder).rglob("*.py"))
        if (lines := double_binds(p.read_text()))
    }
    assert not found, f"con.sql(...).df() binds twice; use con.execute(...).df(): {found}"
