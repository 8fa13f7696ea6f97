"""The accuracy metrics' presets held to the peers' own published values: nDCG(like='rectools').

The fixture and the expected values are RecTools', written as RecTools wrote them, never rankframe's output:
MobileTeleSystems/RecTools tests/metrics/test_ranking.py, ``TestNDCG::test_calc``.
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql

# RecTools TestNDCG.test_calc: reco (Columns.User, Columns.Item, Columns.Rank) and interactions (User, Item)
RT_RECO = {
    "user_id": [1, 2, 3, 3, 3, 4, 5, 5, 5, 5, 6],
    "item_id": [1, 2, 1, 2, 3, 1, 1, 2, 3, 5, 1],
    "position": [9, 1, 1, 2, 3, 1, 3, 7, 9, 1, 1],
}
RT_INTERACTIONS = {
    "user_id": [1, 2, 3, 3, 3, 4, 5, 5, 5, 5],
    "item_id": [1, 1, 1, 2, 3, 1, 1, 2, 3, 4],
}
# _idcg_at_3 = 1 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)
IDCG_AT_3 = 1 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)
# (k, expected per-user NDCG of users 1..5); user 6 has no interactions: not in RecTools' per-user series
EXPECTED = [
    (1, [0, 0, 1, 1, 0]),
    (3, [0, 0, 1, 1 / IDCG_AT_3, 0.5 / IDCG_AT_3]),
]
COLUMNS = {"query": "user_id", "item": "item_id", "rank": "position", "relevance": "rating"}


def _run() -> pd.DataFrame:
    """RecTools' reco as a rankframe run. RecTools reads a rank as the position itself (user 1's item 1 at rank 9
    is out of the top 3), rankframe renumbers ranks 1..n: each gap gets an item no user interacted with ('pad'), so
    every recommended item keeps RecTools' position and the gaps stay non-relevant, as they are for RecTools."""
    rows = [(u, str(i), r) for u, i, r in zip(*RT_RECO.values())]
    taken = {(u, r) for u, _, r in rows}
    for u in sorted(set(RT_RECO["user_id"])):
        top = max(r for v, _, r in rows if v == u)
        rows += [(u, f"pad{r}", r) for r in range(1, top + 1) if (u, r) not in taken]
    return pd.DataFrame(rows, columns=["user_id", "item_id", "position"])


def _qrels() -> pd.DataFrame:
    """RecTools' interactions as judgments: every interaction is relevant (grade 1; RecTools reads no weight)."""
    return pd.DataFrame(
        {"user_id": RT_INTERACTIONS["user_id"], "item_id": [str(i) for i in RT_INTERACTIONS["item_id"]]}
    ).assign(rating=1)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize(("k", "want"), EXPECTED)
def test_rectools_ndcg(engine, k, want):
    got = rankframe.evaluate(
        _run(), [f"nDCG(like='rectools')@{k}"], qrels=_qrels(), columns=COLUMNS, per_query=True, engine=engine
    )
    assert got["user_id"].tolist() == [1, 2, 3, 4, 5]  # user 6: recommendations but no interaction, skipped
    assert got["value"].tolist() == pytest.approx(want, abs=1e-12)
    mean = rankframe.evaluate(_run(), [f"nDCG(like='rectools')@{k}"], qrels=_qrels(), columns=COLUMNS, engine=engine)
    assert mean["value"].iloc[0] == pytest.approx(np.mean(want), abs=1e-12)


def test_rectools_ndcg_is_its_two_options():
    # the preset is gain='binary', ideal='full'; an option given by name wins over it
    assert str(rankframe.parse("nDCG(gain='binary', ideal='full')@3")) == "nDCG(gain='binary', ideal='full')@3"
    assert rankframe.parse("nDCG(like='rectools')@3").kw == {
        **rankframe.parse("nDCG(gain='binary', ideal='full')@3").kw,
        "like": "rectools",
    }
    assert rankframe.parse("nDCG(like='rectools', gain='linear')@3").kw["gain"] == "linear"
    assert str(rankframe.parse("nDCG(like='rectools', ideal='judged')@3")) == "nDCG(ideal='judged', like='rectools')@3"


def _joined() -> pd.DataFrame:
    return _run().merge(_qrels(), how="outer", on=["user_id", "item_id"])


@pytest.mark.parametrize(("k", "want"), EXPECTED)
def test_rectools_ndcg_sql_macro_and_portable_sql(k, want):
    con = macro_connection()
    con.register("t", _joined())
    # the aggregate macro takes like := 'rectools' (gain and ideal: NULL = the preset's value)
    con.sql(
        "CREATE TEMP VIEW v AS SELECT user_id AS query, item_id AS item, position AS rank, rating AS relevance FROM t"
    )
    rows = con.execute(
        f"""SELECT query, rf_agg_ndcg(rf_pos, rf_g, k := {k}, "like" := 'rectools') AS v
        FROM rf_prepare('v') GROUP BY query HAVING count(rf_g) > 0 ORDER BY query"""
    ).fetchall()
    assert [v for _, v in rows] == pytest.approx(want, abs=1e-12)
    # the portable SQL of rankframe.sql.render, run on DuckDB
    sql = rankframe.sql.render([f"nDCG(like='rectools')@{k}"], dialect="duckdb", per_query=True, columns=COLUMNS)
    con.register("runs", _joined())
    got = con.execute(sql).df()
    assert got["value"].tolist() == pytest.approx(want, abs=1e-12)


def test_full_ideal_by_hand():
    # graded, ideal='full' without the binary gain: one query, judged grades 3 and 1 (item c unretrieved), ranking
    # [a (3), b (0)]. Ideal list [3, 1] filled to k = 4 with its last gain 1: IDCG@4 = 3 + 1/log2(3) + 1/log2(4) +
    # 1/log2(5); DCG@4 = 3. With k = 2 nothing is filled: the judged ideal, 3 + 1/log2(3)
    df = pd.DataFrame({"query": ["q"] * 3, "item": list("abc"), "rank": [1, 2, None], "relevance": [3, 0, 1]})
    idcg4 = 3 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    for engine in ("pandas", "duckdb"):
        got = rankframe.evaluate(
            df, ["IDCG(ideal='full')@4", "nDCG(ideal='full')@4", "nDCG(ideal='full')@2"], engine=engine
        )
        assert got["value"].tolist() == pytest.approx([idcg4, 3 / idcg4, 3 / (3 + 1 / math.log2(3))], abs=1e-12)


def test_full_ideal_takes_a_bounded_cutoff():
    with pytest.raises(rankframe.ParameterError, match="ideal='full' takes k <= 1000000"):
        rankframe.parse("nDCG(like='rectools')@1000001")
    con = macro_connection()
    with pytest.raises(duckdb.Error, match="ideal := 'full' takes k <= 1000000"):
        con.execute("SELECT rf_ndcg([1], [1], k := 1000001, ideal := 'full')").fetchall()
