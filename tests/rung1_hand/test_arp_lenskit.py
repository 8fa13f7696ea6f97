"""ARP(like='lenskit'): LensKit's MeanPopRank, ARP with popularity_norm='rank' (issue 33).

Source: lenskit/lkpy src/lenskit/metrics/ranking/_pop.py (MeanPopRank): the popularity (distinct users by
default) of the items of positive popularity ranked ascending with average ties, / their number; 0 for an item
without one or absent from train; the mean over each list's top k. Its tests (tests/eval/test_rank_popularity.py):
the single most popular item scores 1.0. Every face: pandas, the DuckDB engine, the SQL macro rf_arp, the portable
SQL. A rank quantile, not a count: ARP's own choice (lower = less popular) reads it the same way.
"""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql

TRAIN = pd.DataFrame({"query": ["u1", "u2", "u3", "u1", "u2", "u4"], "item": ["a", "a", "a", "b", "c", "e"]})
RECS = pd.DataFrame({"query": [1, 1, 2, 2, 3], "item": ["a", "b", "z", "c", "a"], "rank": [1, 2, 1, 2, 1]})
# Hand derivation: users per item a 3, b 1, c 1, e 1 (z cold). Ranked ascending, average ties: b, c, e share ranks
# 1..3 -> 2, a -> 4; / 4 items: q_a = 1, q_b = q_c = q_e = 0.5, q_z = 0.
# q1 = (1 + 0.5) / 2 = 0.75, q2 = (0 + 0.5) / 2 = 0.25, q3 = 1 (the most popular item alone: LensKit's 1.0);
# the mean over the lists: 2 / 3.
PER_LIST = [0.75, 0.25, 1.0]
MEAN = 2 / 3


@pytest.mark.slow
def test_lenskit_preset_every_face():
    metric = "ARP(like='lenskit')"
    got = [
        float(rankframe.evaluate(RECS, metric, train=TRAIN, engine=e)["value"].iloc[0]) for e in ("pandas", "duckdb")
    ]
    con = macro_connection()
    con.register("recs", RECS)
    con.register("tr", TRAIN)
    got.append(
        float(con.execute("SELECT value FROM rf_arp('recs', train := 'tr', \"like\" := 'lenskit')").fetchall()[0][0])
    )
    portable = duckdb.connect()
    portable.register("runs", RECS)
    portable.register("train", TRAIN)
    got.append(
        float(portable.execute(rankframe.sql.render([metric], dialect="duckdb", train="train")).df()["value"].iloc[0])
    )
    assert got == pytest.approx([MEAN] * 4, abs=1e-12)


def test_lenskit_per_list_values_and_the_preset():
    from rankframe.measures.names import parse

    got = rankframe.evaluate(RECS, "ARP(like='lenskit')", train=TRAIN, per_query=True)["value"].tolist()
    assert got == pytest.approx(PER_LIST, abs=1e-12)
    kw = parse("ARP(like='lenskit')").kw
    assert (kw["popularity"], kw["cold"], kw["popularity_norm"]) == ("users", "zero", "rank")
    # the option alone, on the default popularity ('interactions' = rows here: the same counts)
    v = float(rankframe.evaluate(RECS, "ARP(popularity_norm='rank')", train=TRAIN)["value"].iloc[0])
    assert v == pytest.approx(MEAN, abs=1e-12)
