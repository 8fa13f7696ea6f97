"""alpha_nDCG(like='informfully') against Informfully's own test of its alpha-nDCG.

Source: Informfully/Recommenders, tests/cornac/metrics/test_diversity.py (``test_alpha_ndcg``), the metric in
cornac/metrics/diversity.py (``Alpha_NDCG``): the subtopics are the genres of the user's history, the ideal is the
list's own gains sorted. Its genre vectors become a long ``features=`` table (every coordinate a row, so an
all-zero vector is a known item without genres, as in its dictionary), its histories ``train=``.
"""

from __future__ import annotations

import pandas as pd
import pytest

import rankframe

#: Informfully's Item_genre (test_alpha_ndcg)
GENRES = {
    0: [0, 1, 0, 1, 0, 0],
    1: [0, 1, 0, 0, 0, 0],
    2: [0, 1, 0, 0, 0, 0],
    3: [0, 0, 0, 0, 0, 0],
    4: [1, 0, 0, 0, 0, 1],
    5: [1, 0, 0, 0, 0, 0],
    6: [0, 0, 1, 0, 0, 0],
    7: [1, 0, 0, 0, 0, 0],
    8: [1, 1, 1, 1, 1, 1],
    9: [0, 1, 0, 1, 0, 0],
    10: [1, 1, 0, 0, 0, 0],
    11: [0, 1, 1, 1, 0, 0],
    12: [0, 0, 0, 1, 0, 1],
    13: [0, 1, 0, 1, 1, 1],
    14: [0, 0, 0, 0, 0, 0],
}
#: its three (rec_list, history) cases
RECS = {"u1": [0, 1, 2, 3, 4, 5, 6, 7], "u2": [11, 12, 13, 14], "u3": [14, 12]}
HISTORY = {"u1": [8], "u2": [9, 10], "u3": [1, 2]}


def tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    features = pd.DataFrame(
        [(i, f"g{g}", v) for i, vector in GENRES.items() for g, v in enumerate(vector)],
        columns=["item", "feature", "value"],
    )
    run = pd.DataFrame(
        [(u, i, p + 1) for u, items in RECS.items() for p, i in enumerate(items)], columns=["user", "item", "rank"]
    )
    train = pd.DataFrame([(u, i) for u, items in HISTORY.items() for i in items], columns=["user", "item"])
    return run, train, features


@pytest.mark.parametrize(
    ("metric", "user", "expected"),
    [
        ("alpha_nDCG(like='informfully')", "u1", 0.8759994181683827),  # Alpha_NDCG(item_genre) on u1
        ("alpha_nDCG(like='informfully', alpha=0.8)@5", "u1", 0.8641067652921767),  # k=5, alpha=0.8
        ("alpha_nDCG(like='informfully')", "u2", 0.9879801444388844),  # rec_list1, history1
        ("alpha_nDCG(like='informfully')", "u3", 0.0),  # rec_list2, history2: no history genre in the list
    ],
)
def test_informfully_published(metric, user, expected):
    run, train, features = tables()
    got = rankframe.evaluate(
        run, [metric], columns={"query": "user"}, train=train, features=features, per_query=True
    ).set_index("user")["value"]
    assert abs(got[user] - expected) < 1e-12
