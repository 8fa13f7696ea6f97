"""The peers' own published test fixtures and expected values, reproduced with their presets (issue 21).

Each block names the file the fixture and the expected values come from; the expected values are the peers'
(written as they wrote them), never rankframe's output. The comments add the hand derivation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankframe

_ENGINE = {"name": "pandas"}


@pytest.fixture(autouse=True, params=["pandas", "duckdb"])
def engine_of_the_module(request):
    """Every fixture on both engines that serve the family: pandas kernels and the DuckDB SQL macros."""
    _ENGINE["name"] = request.param
    yield request.param
    _ENGINE["name"] = "pandas"


def evaluate(*args, **kwargs):
    """rankframe.evaluate on the engine of the running parametrization."""
    return rankframe.evaluate(*args, engine=_ENGINE["name"], **kwargs)


# ------------------------------------------------------------------------------------------------------ RecBole
# RUCAIBox/RecBole tests/metrics/test_topk_metrics.py: item_matrix (5 users x top 3), num_items = 8 and
# item_count = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5} (train interactions; item 7 is absent: popularity 0)
ITEM_MATRIX = np.array([[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]])
NUM_ITEMS = 8
ITEM_COUNT = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}


def recbole_recs() -> pd.DataFrame:
    rows = [(u, int(i), r + 1) for u, row in enumerate(ITEM_MATRIX) for r, i in enumerate(row)]
    return pd.DataFrame(rows, columns=["query", "item", "rank"])  # no relevance column: these metrics never read it


def recbole_train() -> pd.DataFrame:
    # item_count as train rows: item i interacted with item_count[i] times, one row each; item 1 (count 0) is in
    # RecBole's item_counter, so it is a known item with no interaction: one row of weight 0
    rows = [(f"u{j}", i, 1.0) for i, c in ITEM_COUNT.items() for j in range(c)] + [("u0", 1, 0.0)]
    return pd.DataFrame(rows, columns=["query", "item", "weight"])


def test_recbole_item_coverage():
    got = evaluate(recbole_recs(), "Coverage(like='recbole')", catalog=range(NUM_ITEMS))
    assert got["value"].iloc[0] == pytest.approx(7 / 8)  # test_itemcoverage: 7 distinct items of 8


def test_recbole_gini_index():
    got = evaluate(recbole_recs(), "Gini(like='recbole')", catalog=range(NUM_ITEMS))
    # test_giniindex: counts sorted 0 (item 0, never recommended), 1, 1, 2, 2, 2, 3, 4; sum (2i - n - 1) c_(i)
    want = ((-7) * 0 + (-5) * 1 + (-3) * 1 + (-1) * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (8 * (3 * 5))
    assert got["value"].iloc[0] == pytest.approx(want, abs=1e-12)


def test_recbole_shannon_entropy():
    got = evaluate(recbole_recs(), "Entropy(like='recbole')")
    # test_shannonentropy: the mean over the 7 recommended items of -p ln p (15 recommendations)
    want = -np.mean(
        [
            1 / 15 * np.log(1 / 15),
            2 / 15 * np.log(2 / 15),
            3 / 15 * np.log(3 / 15),
            2 / 15 * np.log(2 / 15),
            4 / 15 * np.log(4 / 15),
            1 / 15 * np.log(1 / 15),
            2 / 15 * np.log(2 / 15),
        ]
    )
    assert got["value"].iloc[0] == pytest.approx(want, abs=1e-12)


# test_averagepopularity: per user, the running mean of item_count over the top 1, 2, 3 (item 7 counts 0)
RECBOLE_ARP = np.array(
    [[4 / 1, 4 / 2, 6 / 3], [3 / 1, 7 / 2, 8 / 3], [1 / 1, 3 / 2, 7 / 3], [0 / 1, 3 / 2, 8 / 3], [4 / 1, 6 / 2, 6 / 3]]
)
# test_tailpercentage: tail_ratio 0.1 of the 6 items of item_count -> max(int(0.6), 1) = 1 item, the least popular
# (item 1, count 0); item 7 is not in item_count, so not a tail item: only user 3's item 1 at rank 1 is
RECBOLE_TAIL = np.array(
    [[0 / 1, 0 / 2, 0 / 3], [0 / 1, 0 / 2, 0 / 3], [0 / 1, 0 / 2, 0 / 3], [1 / 1, 1 / 2, 1 / 3], [0 / 1, 0 / 2, 0 / 3]]
)


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize(("name", "want"), [("ARP", RECBOLE_ARP), ("APLT", RECBOLE_TAIL)])
def test_recbole_average_popularity_and_tail_percentage_per_user(name, want, k):
    got = evaluate(recbole_recs(), f"{name}(like='recbole')@{k}", per_query=True, train=recbole_train())
    assert got["query"].tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_allclose(got["value"].to_numpy(), want[:, k - 1], rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------- Microsoft Recommenders
# recommenders-team/recommenders tests/unit/recommenders/evaluation/conftest.py, fixture diversity_data; expected
# values from tests/unit/recommenders/evaluation/test_python_evaluation.py (TOL = 0.0001)
MS_COLUMNS = {"query": "UserId", "item": "ItemId", "relevance": "Relevance"}


def ms_train() -> pd.DataFrame:
    return pd.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})


def ms_recs() -> pd.DataFrame:
    reco = pd.DataFrame({"UserId": [1, 1, 2, 2, 3, 3], "ItemId": [3, 5, 2, 5, 1, 2], "Relevance": [1, 0, 1, 1, 1, 0]})
    return reco.assign(rank=reco.groupby("UserId").cumcount() + 1)  # the rows in order: reco_df has no score


def _ms(metric: str, recs: pd.DataFrame | None = None, train: pd.DataFrame | None = None) -> float:
    recs = ms_recs() if recs is None else recs
    got = evaluate(recs, metric, columns=MS_COLUMNS, train=ms_train() if train is None else train)
    return float(got["value"].iloc[0])


def test_recommenders_catalog_coverage():
    # test_catalog_coverage: 4 distinct recommended items {1, 2, 3, 5} / 5 distinct train items
    assert _ms("Coverage(like='recommenders')") == pytest.approx(0.8, abs=1e-4)


def test_recommenders_distributional_coverage():
    # test_distributional_coverage: p = 1/6, 2/6, 2/6, 1/6 (items 1, 2, 3, 5): -sum p log2 p = 1.9183
    got = evaluate(ms_recs(), "Entropy(like='recommenders')", columns=MS_COLUMNS)
    assert got["value"].iloc[0] == pytest.approx(1.9183, abs=1e-4)


def test_recommenders_novelty():
    # test_novelty: item novelty -log2(count / 8 train rows): items 1, 2, 5 -> 3, item 3 -> 2; the six
    # recommendations 3, 5, 2, 5, 1, 2 -> (2 + 3 + 3 + 3 + 3 + 3) / 6 = 2.83333
    assert _ms("Novelty(like='recommenders')") == pytest.approx(2.83333, abs=1e-4)


def test_recommenders_novelty_is_zero_with_one_item():
    # test_novelty, second part: train and recommendations of item 3 only -> p = 1, novelty 0
    train = ms_train()
    recs = ms_recs()
    recs = recs[recs["ItemId"] == 3].assign(rank=1)
    assert _ms("Novelty(like='recommenders')", recs, train[train["ItemId"] == 3]) == 0


def test_recommenders_novelty_counts_cold_rows_in_the_denominator():
    # recommenders/evaluation/python_evaluation.py novelty(): an inner merge of the recommendation counts with the
    # train items, summed, divided by every recommendation row: an item absent from train adds 0 to the sum and 1
    # to the count, and lists weigh by their length. Item 9 (not in train) added to user 1's list: (17 + 0) / 7.
    # Per list (the default aggregate) it would be (5/3 + 3 + 3) / 3 = 23/9 (user 1: (2 + 3 + 0) / 3)
    recs = pd.concat(
        [ms_recs(), pd.DataFrame({"UserId": [1], "ItemId": [9], "Relevance": [0], "rank": [3]})], ignore_index=True
    )
    assert _ms("Novelty(like='recommenders')", recs) == pytest.approx(17 / 7, abs=1e-12)
    assert _ms("Novelty(like='recommenders', aggregate='per_list')", recs) == pytest.approx(23 / 9, abs=1e-12)


def test_recommenders_item_novelty_values_per_list():
    # test_item_novelty: item_novelty = [3.0, 3.0, 2.0, 1.41504, 3.0] for items 1..5; one list per item gives its value
    recs = pd.DataFrame({"UserId": [1, 2, 3, 4, 5], "ItemId": [1, 2, 3, 4, 5], "Relevance": 0, "rank": 1})
    metric = "Novelty(like='recommenders', aggregate='per_list')"  # per list: the preset's rows mean is set-level
    got = evaluate(recs, metric, columns=MS_COLUMNS, train=ms_train(), per_query=True)
    np.testing.assert_allclose(got["value"].to_numpy(), [3.0, 3.0, 2.0, 1.41504, 3.0], atol=1e-4)
    assert math.isclose(got["value"].iloc[3], -math.log2(3 / 8))


# ---------------------------------------------------------------------------------------------------- recmetrics
# statisticianinstilettos/recmetrics tests/test_metrics.py, test_personalization: three lists of four items, only
# X shared (lists 2 and 3): cosine 1/sqrt(4 * 4) = 1/4 for that pair, 0 for the others -> mean 1/12 over the 3
# pairs, personalization 1 - 1/12 = 0.91667 (assertAlmostEqual(..., 0.916, places=2))
RECMETRICS_PREDICTIONS = [["1", "2", "C", "D"], ["4", "3", "m", "X"], ["7", "B", "t", "X"]]


def _lists_table(predicted: list[list]) -> pd.DataFrame:
    rows = [(u, item, r + 1) for u, items in enumerate(predicted) for r, item in enumerate(items)]
    return pd.DataFrame(rows, columns=["query", "item", "rank"])


def test_recmetrics_personalization():
    got = evaluate(_lists_table(RECMETRICS_PREDICTIONS), "Personalization(like='recmetrics')")
    assert got["value"].iloc[0] == pytest.approx(0.916, abs=0.005)  # their published value and tolerance
    assert got["value"].iloc[0] == pytest.approx(1 - 1 / 12, abs=1e-12)  # the hand derivation above


def _recmetrics_personalization(predicted: list[list]) -> float:
    """recmetrics.metrics.personalization's algorithm: sklearn's cosine similarity of the binary user x item
    matrix, (similarity.sum() - dim) / (dim * (dim - 1)), 1 minus that (the dense matrix the kernel avoids)."""
    from sklearn.metrics.pairwise import cosine_similarity

    items = sorted({i for row in predicted for i in row})
    matrix = np.array([[float(i in row) for i in items] for row in predicted])
    similarity = cosine_similarity(matrix)
    dim = similarity.shape[0]
    return 1 - (similarity.sum() - dim) / (dim * (dim - 1))


@pytest.mark.parametrize("seed", range(5))
def test_recmetrics_personalization_on_random_lists(seed):
    rng = np.random.default_rng(seed)
    predicted = [list(rng.choice(30, size=int(rng.integers(1, 8)), replace=False)) for _ in range(12)]
    got = evaluate(_lists_table(predicted), "Personalization(like='recmetrics')")
    assert got["value"].iloc[0] == pytest.approx(_recmetrics_personalization(predicted), abs=1e-12)
