"""The co-occurrence budget (rankframe.beyond.similarity.COOCCURRENCE_BUDGET) on every face that computes the
co-occurrence forms of ILD and Serendipity: pandas, the DuckDB engine and the SQL macros raise the same words,
naming the parameter, the work, the budget and the longest histories of train=; at the budget they compute.

By hand: train's queries hold t1 {a, b}, t2 {a, c}, t3 {b}, t4 {e} (d has weight 0: in no history), so the
histories' lengths are 2, 2, 1, 1 (the longest three: [2, 2, 1]); the ranked rows recommend a, b, c, d, f, so the
work, sum over the train queries of |H| x |H ∩ recommended|, is 2x2 + 2x2 + 1x1 + 1x0 = 9.
"""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from faces import macro_connection

import rankframe
import rankframe.sql
from rankframe.beyond import similarity
from rankframe.core.errors import ParameterError
from rankframe.engines.duckdb_engine import translate_error

TRAIN = pd.DataFrame(
    {
        "query": ["t1", "t1", "t2", "t2", "t3", "t4", "t4"],
        "item": ["a", "b", "a", "c", "b", "e", "d"],
        "weight": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
    }
)
RECS = pd.DataFrame(
    {
        "query": ["t1", "t1", "t1", "t2", "t2", "t3", "t3", "t3", "t5"],
        "item": ["a", "b", "c", "b", "c", "a", "c", "d", "f"],
        "rank": [1, 2, 3, 1, 2, 1, 2, 3, 1],
        "relevance": [1, 0, 2, 1, 1, 0, 3, 1, 1],
    }
)
METRICS = {"ILD": "ILD(like='recommenders')", "Serendipity": "Serendipity(like='recommenders')"}


def words(owner: str, budget: int) -> str:
    """The error's words with this data's fields (the declared template, filled in by hand)."""
    return similarity.BUDGET_WORDS.format(owner=owner, work="9", budget=f"{budget:,}", longest="[2, 2, 1]")


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize("owner", list(METRICS))
def test_the_engines_name_the_parameter_the_work_and_the_longest_histories(monkeypatch, engine, owner):
    monkeypatch.setattr(similarity, "COOCCURRENCE_BUDGET", 8)
    with pytest.raises(ParameterError) as err:
        rankframe.evaluate(RECS, METRICS[owner], train=TRAIN, engine=engine)
    assert str(err.value) == words(owner, 8)
    assert "'similarity' parameter" in str(err.value) and "[2, 2, 1]" in str(err.value)
    monkeypatch.setattr(similarity, "COOCCURRENCE_BUDGET", 9)  # at the budget: computed
    assert rankframe.evaluate(RECS, METRICS[owner], train=TRAIN, engine=engine)["value"].notna().all()


@pytest.fixture
def con():
    c = duckdb.connect()
    rankframe.sql.install(c)
    c.register("recs", RECS)
    c.register("train", TRAIN)
    yield c
    c.close()


@pytest.mark.parametrize("owner", list(METRICS))
def test_the_sql_macros_read_the_budget_and_say_the_same_words(con, owner):
    call = f"SELECT * FROM rf_{owner.lower()}('recs', train := 'train', \"like\" := 'recommenders')"
    assert con.execute(call).fetchall()  # the generated budget, 400M: computed
    con.execute("SET VARIABLE rf__cooccurrence_budget = 8")
    with pytest.raises(duckdb.Error) as err:
        con.execute(call).fetchall()
    assert str(err.value).split("Error: ", 1)[1] == "rf:param: " + words(owner, 8)
    failure = translate_error(err.value)
    assert isinstance(failure, ParameterError) and str(failure) == words(owner, 8)
    con.execute("SET VARIABLE rf__cooccurrence_budget = 9")
    assert con.execute(call).fetchall()


def test_the_generated_budget_is_the_python_constant():
    con = macro_connection()
    assert con.execute("SELECT rf__cooccurrence_budget()").fetchone()[0] == similarity.COOCCURRENCE_BUDGET
