"""The DuckDB engine ranks the table once per evaluate call and every beyond-accuracy metric reads those rows.

Issue 35: each metric used to check the table again and rank it again (the public ``rf_<name>`` macros, a window over
every row per metric). The values are held by test_sql_beyond_parity.py; this file holds the shape of the call.
"""

from __future__ import annotations

import pandas as pd

import rankframe
from rankframe.engines import duckdb_beyond

RECS = pd.DataFrame(
    {
        "query": [1, 1, 1, 2, 2, 2],
        "item": [1, 2, 3, 2, 3, 4],
        "rank": [1, 2, 3, 1, 2, 3],
        "relevance": [1, 0, 1, 0, 1, 0],
    }
)
TRAIN = pd.DataFrame({"query": [1, 2, 2], "item": [1, 2, 4]})
FEATURES = pd.DataFrame({"item": [1, 2, 3, 4], "feature": ["a", "b", "a", "b"], "value": 1.0})
#: every declared metric, and ARP with aggregate='rows' (a per-list metric's set-level road)
METRICS = [
    "Coverage@2", "Gini@2", "Entropy@2", "Personalization@2", "ARP@2", "APLT@2", "Novelty@2", "ILD@2",
    "Serendipity@2", "Calibration@2", "ARP(aggregate='rows')@2",
]  # fmt: skip


def test_one_ranked_base_per_call_read_by_every_metric(monkeypatch):
    statements: list[str] = []
    make = duckdb_beyond._cursor

    class Spy:
        def __init__(self) -> None:
            self.con = make()

        def execute(self, sql: str, *args: object) -> object:
            statements.append(sql)
            return self.con.execute(sql, *args)

        def __getattr__(self, name: str) -> object:
            return getattr(self.con, name)

    monkeypatch.setattr(duckdb_beyond, "_cursor", Spy)
    out = rankframe.evaluate(RECS, METRICS, engine="duckdb", train=TRAIN, catalog=[1, 2, 3, 4, 5], features=FEATURES)
    assert len(out) == len(METRICS)
    ranked = [s for s in statements if "rf__beyond_ranked(" in s]
    assert len(ranked) == 1, ranked  # the window over every row, once
    metric_sql = [s for s in statements if s.startswith("SELECT") and "typeof(" not in s]
    assert len(metric_sql) == len(METRICS)
    options = [s for s in statements if s.startswith("SELECT") and "typeof(" in s]
    assert len(options) == 1, options  # every metric's options as constants in one statement (one bind, one plan)
    for sql in metric_sql:  # the internal macros over the stored rows: no public rf_<name> (checks + its own window)
        assert f"base := '{duckdb_beyond.BASE}'" in sql, sql
        assert " rf_" not in sql.replace("FROM rf__", ""), sql
