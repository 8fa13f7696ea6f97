"""A user's table may be named anything, including a name our macros use inside.

DuckDB 1.4 refuses ``query_table('runs')`` inside a macro whose own WITH item is named ``runs`` ("There is a WITH
item named "runs", but it cannot be referenced from this part of the query"): rf_fuse over a table called ``runs``
failed on the 1.4 CI leg. Every WITH item of every macro is therefore ``rf__``-named (a prefix our docs reserve), and
each table macro is called on tables named like the WITH items it used to have.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import rankframe.sql as rf_sql

SQL_DIR = Path(rf_sql.__file__).resolve().parent.parent / "sql"
WITH_ITEM = re.compile(
    r"(?:\bWITH|\),)\s+(?:RECURSIVE\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+AS\s+(?:NOT\s+)?(?:MATERIALIZED\s+)?\(",
    re.IGNORECASE,
)
# the names the WITH items had before they were prefixed, and a few a user might well pick
USER_NAMES = ["runs", "ranked", "w", "v", "f", "src", "base", "flagged", "rules", "input", "judgments"]

TABLE = pd.DataFrame(
    {
        "system": ["a", "a", "b", "b"],
        "query": ["q1", "q1", "q1", "q1"],
        "item": ["x", "y", "x", "y"],
        "rank": [1, 2, 2, 1],
        "score": [2.0, 1.0, 1.0, 2.0],
        "relevance": [1, 0, 1, 0],
    }
)


def test_every_with_item_of_the_macros_is_rf_prefixed():
    files = sorted(SQL_DIR.glob("*.sql"))
    assert files, SQL_DIR
    loose = [
        (f.name, name)
        for f in files
        for name in WITH_ITEM.findall(re.sub(r"--[^\n]*", "", f.read_text()))
        if not name.lower().startswith("rf__")
    ]
    assert loose == []


@pytest.fixture(scope="module")
def con():
    c = rf_sql.install(duckdb.connect())
    c.execute("CREATE SCHEMA cat")
    for name in USER_NAMES:
        c.register(name, TABLE)
        # catalog= is a one-column table of distinct ids (rankframe/beyond/input_rules.py): named like the inner name
        # too, in a schema of its own
        c.execute(f'CREATE TABLE cat."{name}" AS SELECT DISTINCT item FROM "{name}"')
    yield c
    c.close()


CALLS = {
    "rf_validate": "SELECT count(*) FROM rf_validate('{t}', segments := ['system'])",
    "rf_per_query": "SELECT count(*) FROM rf_per_query('{t}', segments := ['system'])",
    "rf_means": "SELECT count(*) FROM rf_means('{t}', segments := ['system'])",
    "rf_compare": "SELECT count(*) FROM rf_compare('{t}', baseline := 'a', metrics := ['ndcg'])",
    "rf_anova": "SELECT count(*) FROM rf_anova('{t}', metrics := ['ndcg'])",
    "rf_fuse": "SELECT count(*) FROM rf_fuse('{t}')",
    "rf_prepare": "SELECT count(*) FROM rf_prepare('{t}', segments := ['system'])",
    # the beyond-accuracy macros read two more tables: the user's table is passed as each of them too
    "rf_coverage": "SELECT count(*) FROM rf_coverage('{t}', catalog := 'cat.{t}', segments := ['system'])",
    "rf_gini": "SELECT count(*) FROM rf_gini('{t}', train := '{t}', universe := 'train', segments := ['system'])",
    "rf_entropy": "SELECT count(*) FROM rf_entropy('{t}', segments := ['system'])",
    "rf_arp": "SELECT count(*) FROM rf_arp('{t}', train := '{t}', segments := ['system'])",
    "rf_aplt": "SELECT count(*) FROM rf_aplt('{t}', train := '{t}', segments := ['system'])",
    "rf_novelty": "SELECT count(*) FROM rf_novelty('{t}', train := '{t}', segments := ['system'])",
    "rf_personalization": "SELECT count(*) FROM rf_personalization('{t}', segments := ['system'])",
}

# rows by hand: 2 systems x 1 query per query-level macro; rf_means one row per system; rf_compare one metric x 1
# challenger; rf_anova one metric x one term; rf_fuse the 2 distinct items of q1; rf_prepare the 4 rows
EXPECTED_ROWS = {"rf_per_query": 2, "rf_means": 2, "rf_compare": 1, "rf_anova": 1, "rf_fuse": 2, "rf_prepare": 4}
# the beyond-accuracy macros: one row per segment (system a, system b)
EXPECTED_ROWS.update({m: 2 for m in ("rf_coverage", "rf_gini", "rf_entropy", "rf_arp", "rf_aplt", "rf_novelty")})
EXPECTED_ROWS["rf_personalization"] = 2


@pytest.mark.quick_sample(1, per="macro")  # the quick loop: each macro with one of the names (tests/tiers.py)
@pytest.mark.parametrize("name", USER_NAMES)
@pytest.mark.parametrize("macro", sorted(CALLS))
def test_a_table_named_like_an_inner_name_works(con, macro, name):
    (count,) = con.execute(CALLS[macro].format(t=name)).fetchone()
    # rf_validate lists the broken rules: none here
    assert count == (0 if macro == "rf_validate" else EXPECTED_ROWS[macro])


# the WITH items of the files every accuracy macro goes through (prepare.sql's rf__prepare, evaluate.sql's
# rf__per_query_raw): a query_table call in the scope of one of them would read it instead of a table so named (on
# DuckDB 2.0 silently: a MATERIALIZED rf__checked in rf__prepare did, issue 35), so none may be
ACCURACY_WITH_ITEMS = sorted(
    {
        name
        for f in ("prepare.sql", "evaluate.sql")
        for name in WITH_ITEM.findall(re.sub(r"--[^\n]*", "", (SQL_DIR / f).read_text()))
    }
)
ACCURACY_MACROS = ["rf_validate", "rf_per_query", "rf_means", "rf_compare", "rf_anova", "rf_prepare"]


def test_the_accuracy_macros_list_their_with_items():
    assert {"rf__in", "rf__keyed", "rf__w"} <= set(ACCURACY_WITH_ITEMS)


@pytest.mark.parametrize("name", ACCURACY_WITH_ITEMS)
def test_a_table_named_like_a_with_item_of_the_accuracy_macros_is_the_table(con, name):
    cur = con.cursor()  # its own: the module's connection may hold another test's unfinished result
    cur.register(name, TABLE)
    try:
        for macro in ACCURACY_MACROS:
            (count,) = cur.execute(CALLS[macro].format(t=name)).fetchall()[0]
            assert count == (0 if macro == "rf_validate" else EXPECTED_ROWS[macro]), (macro, name)
    finally:
        cur.close()
