"""The presets of RecTools, Evidently, RePlay, LensKit and Elliot held to the peers' own published values (issue 21).

Each block names the file its fixture and expected values come from (the peers' tests or docstring examples);
the expected values are the peers', written as they wrote them, never rankframe's output. Where a peer publishes no
number for a convention (Elliot; LensKit's Gini), the value is derived by hand in the comment next to it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankframe


@pytest.fixture(params=["pandas", "duckdb"])
def engine(request):
    """Every fixture on both engines that serve the family: the pandas kernels and the DuckDB SQL macros."""
    return request.param


def _table(rows, columns=("query", "item", "rank")) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns))


def _one(engine, recs, metric, **kw) -> float:
    return float(rankframe.evaluate(recs, metric, engine=engine, **kw)["value"].iloc[0])


def _per_query(engine, recs, metric, **kw) -> list[float]:
    got = rankframe.evaluate(recs, metric, engine=engine, per_query=True, **kw)
    return got["value"].tolist()


# ---------------------------------------------------------------------------------------------------------- RecTools
# MobileTeleSystems/RecTools tests/metrics/test_popularity.py (TestAvgRecPopularity)
RT_POP_TRAIN = _table(
    [["u1", "i1"], ["u1", "i2"], ["u2", "i1"], ["u2", "i3"], ["u3", "i1"], ["u3", "i2"]], ("query", "item")
)
RT_POP_RECS = _table(
    [
        ["u1", "i1", 1],
        ["u1", "i2", 2],
        ["u2", "i3", 1],
        ["u2", "i1", 2],
        ["u2", "i2", 3],
        ["u3", "i3", 1],
        ["u3", "i2", 2],
    ]
)


@pytest.mark.parametrize(
    ("k", "normalize", "want"),
    [
        (1, False, [3.0, 1.0, 1.0]),
        (3, False, [2.5, 2.0, 1.5]),
        (1, True, [0.5, 1 / 6, 1 / 6]),
        (3, True, [5 / 12, 1 / 3, 0.25]),
    ],
)
def test_rectools_avg_rec_popularity(engine, k, normalize, want):
    norm = ", popularity_norm='total'" if normalize else ""
    metric = f"ARP(like='rectools'{norm})@{k}"
    got = _per_query(engine, RT_POP_RECS, metric, train=RT_POP_TRAIN)
    assert got == pytest.approx(want, abs=1e-12)
    assert _one(engine, RT_POP_RECS, metric, train=RT_POP_TRAIN) == pytest.approx(np.mean(want), abs=1e-12)


@pytest.mark.parametrize(("k", "want"), [(1, [3.0, 1.0, 1.0]), (3, [2.5, 4 / 3, 1.5])])
def test_rectools_avg_rec_popularity_new_item(engine, k, want):
    # test_when_new_item_in_reco: i4 (not in the interactions) counts 0 in u2's list
    recs = RT_POP_RECS.copy()
    recs.loc[4, "item"] = "i4"
    assert _per_query(engine, recs, f"ARP(like='rectools')@{k}", train=RT_POP_TRAIN) == pytest.approx(want, abs=1e-12)


# tests/metrics/test_novelty.py (TestMeanInvUserFreq)
RT_NOV_TRAIN = _table([["u1", "i1"], ["u1", "i2"], ["u2", "i1"], ["u3", "i1"]], ("query", "item"))
RT_NOV_RECS = _table([["u1", "i3", 1], ["u2", "i2", 1], ["u2", "i3", 2], ["u3", "i1", 1], ["u3", "i2", 2]])


@pytest.mark.parametrize(
    ("k", "want"),
    [
        (1, [-np.log2(1 / 3), -np.log2(1 / 3), 0]),
        (2, [-np.log2(1 / 3), -np.log2(1 / 3), -np.log2(1 / 3) / 2]),
    ],
)
def test_rectools_mean_inv_user_freq(engine, k, want):
    # i3 is cold: "treated as if consumed by a single user", -log2(1/3)
    got = _per_query(engine, RT_NOV_RECS, f"Novelty(like='rectools')@{k}", train=RT_NOV_TRAIN)
    assert got == pytest.approx(want, abs=1e-12)


def test_rectools_mean_inv_user_freq_docstring(engine):
    # rectools/metrics/novelty.py MeanInvUserFreq docstring: k=1 [1.5849625, 1.5849625, 0.], k=3 [..., 0.79248125]
    recs = _table([[1, 3, 1], [2, 2, 1], [2, 3, 2], [3, 1, 1], [3, 2, 2]])
    train = _table([[1, 1], [1, 2], [2, 1], [3, 1]], ("query", "item"))
    got1 = _per_query(engine, recs, "Novelty(like='rectools')@1", train=train)
    got3 = _per_query(engine, recs, "Novelty(like='rectools')@3", train=train)
    assert got1 == pytest.approx([1.5849625, 1.5849625, 0.0], abs=1e-7)
    assert got3 == pytest.approx([1.5849625, 1.5849625, 0.79248125], abs=1e-7)


def test_rectools_catalog_coverage(engine):
    # tests/metrics/test_catalog.py: CatalogCoverage(k=2) over catalog np.arange(5): 2.0, normalize=True 0.4. Its
    # ranks are not 1..n: user 2 has two rank-1 rows (rankframe refuses a repeated rank: here 1, 2, both <= 2 as
    # there), user 3 one rank-3 row (rankframe renumbers it 1); the top 2 hold the same items {1, 2} either way
    recs = pd.DataFrame({"query": [1, 1, 1, 2, 2, 3, 4], "item": [1, 2, 3, 1, 2, 1, 1], "rank": [1, 2, 3, 1, 2, 3, 2]})
    assert _one(engine, recs, "Coverage(like='rectools')@2", catalog=np.arange(5)) == 2.0
    assert _one(engine, recs, "Coverage(like='rectools', output='share')@2", catalog=np.arange(5)) == 0.4


def test_rectools_catalog_coverage_counts_items_outside_the_catalog(engine):
    # rectools/metrics/catalog.py: reco's nunique over every top-k item, the catalog only its len(): item 9 (not in
    # the catalog) counts, 3 items / 2 = 1.5; the default outside='ignore' counts 2 of 2
    recs = _table([[1, 1, 1], [1, 9, 2], [2, 2, 1]])
    assert _one(engine, recs, "Coverage(like='rectools', output='share')", catalog=[1, 2]) == 1.5
    assert _one(engine, recs, "Coverage", catalog=[1, 2]) == 1.0


# tests/metrics/test_diversity.py (TestIntraListDiversity): the dense features_df as a long features= table with
# every value, zeros included (i1 = (0, 0) is a known item; i4 has no row: its pairs are NaN)
RT_FEATURES = pd.DataFrame(
    [(i, f, float(v)) for i, vec in {"i1": (0, 0), "i2": (0, 1), "i3": (1, 1)}.items() for f, v in zip("ab", vec)],
    columns=["item", "feature", "value"],
)
RT_ILD_RECS = _table(
    [["u1", "i1", 1], ["u1", "i2", 2], ["u1", "i3", 3], ["u2", "i1", 1], ["u2", "i4", 2], ["u3", "i1", 1]]
)


@pytest.mark.parametrize(("k", "want"), [(1, [0, 0, 0]), (2, [1, np.nan, 0]), (3, [4 / 3, np.nan, 0])])
def test_rectools_intra_list_diversity(engine, k, want):
    got = rankframe.evaluate(
        RT_ILD_RECS, f"ILD(like='rectools')@{k}", features=RT_FEATURES, per_query=True, engine=engine
    )
    np.testing.assert_allclose(got["value"].to_numpy(), want, atol=1e-12)
    mean = _one(engine, RT_ILD_RECS, f"ILD(like='rectools')@{k}", features=RT_FEATURES)
    assert mean == pytest.approx(np.nanmean(want), abs=1e-12)  # actual_mean == expected.mean() (NaN skipped)


# --------------------------------------------------------------------------------------------------------- Evidently
# evidentlyai/evidently tests/metrics/recsys/test_popularity_bias.py, test_novelty.py (the same curr/train)
EV_CURR = pd.DataFrame({"user_id": [1, 2, 2, 3, 3], "item_id": [3, 2, 3, 1, 2], "rank": [1, 1, 2, 1, 2]})
EV_TRAIN = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [1, 2, 1, 1]})
EV = {"query": "user_id", "item": "item_id"}


@pytest.mark.parametrize("order_by", ["rank", "score"])
def test_evidently_popularity_bias(engine, order_by):
    # test_curr_rank / test_curr_score (predictions 3, 3, 2, 3, 2 as scores): apr 1.5, coverage 1.0, gini 0.2 at k=3
    curr = EV_CURR if order_by == "rank" else EV_CURR.drop(columns="rank").assign(score=[3, 3, 2, 3, 2])
    kw = {"columns": EV, "train": EV_TRAIN, "engine": engine}
    got = rankframe.evaluate(
        curr, ["ARP(like='evidently')@3", "Coverage(like='evidently')@3", "Gini(like='evidently')@3"], **kw
    )
    assert got["value"].tolist() == pytest.approx([1.5, 1.0, 0.2], abs=1e-12)


@pytest.mark.parametrize(("k", "want"), [(1, 1 / 3), (2, 2 / 3), (3, 1.0)])
def test_evidently_coverage(engine, k, want):
    # test_popularity_bias.py test_coverage
    curr = pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2, 3, 3, 3], "item_id": [1, 2, 3] * 3, "rank": [1, 2, 3] * 3})
    train = pd.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [1, 2, 1, 3]})
    assert _one(engine, curr, f"Coverage(like='evidently')@{k}", columns=EV, train=train) == pytest.approx(want)


def test_evidently_normalized_arp(engine):
    # popularity_bias.py get_apr(normalize_arp=True): popularity / train_stats.max(); users 2 and 3 of
    # test_curr_rank: item 2 -> 1/3, item 1 -> 3/3; (1/3 + (1 + 1/3) / 2) / 2 = 1/2 (hand: 1.5 / 3)
    got = _one(engine, EV_CURR, "ARP(like='evidently', popularity_norm='max')@3", columns=EV, train=EV_TRAIN)
    assert got == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("order_by", ["rank", "score"])
def test_evidently_novelty(engine, order_by):
    # test_novelty.py test_curr_rank / test_curr_score: np.isclose(current_value, 1.18872199999)
    curr = EV_CURR if order_by == "rank" else EV_CURR.drop(columns="rank").assign(score=[3, 3, 2, 3, 2])
    got = _one(engine, curr, "Novelty(like='evidently')@3", columns=EV, train=EV_TRAIN)
    assert np.isclose(got, 1.18872199999)
    # hand: item 3 is cold (user 1 out of the mean), item 2 -log2(1/3), item 1 -log2(3/3) = 0
    assert got == pytest.approx((math.log2(3) + math.log2(3) / 2) / 2, abs=1e-12)


def test_evidently_personalisation(engine):
    # test_personalisation.py test_curr_rank: np.isclose(current_value, 0.16666666) at k=4
    curr = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
            "item_id": [1, 2, 3, 4, 1, 2, 3, 4, 1, 3, 2, 5],
            "rank": [1, 2, 3, 4] * 3,
        }
    )
    assert np.isclose(_one(engine, curr, "Personalization(like='evidently')@4", columns=EV), 0.16666666)


def test_evidently_personalisation_with_a_short_list_by_hand(engine):
    # personalisation.py get_diversity with k = 4 and a list of 2 items: value_counts 1: 2, 2: 2, 3: 1, 4: 1, so
    # sum c² - n k = 10 - 8 = 2; all_user_couples_count = 2; (2 - 2 / 4) / 2 = 0.75 (the cosine form would give
    # 1 - 2 / sqrt(4 * 2) = 0.2929)
    curr = pd.DataFrame({"user_id": [1, 1, 1, 1, 2, 2], "item_id": [1, 2, 3, 4, 1, 2], "rank": [1, 2, 3, 4, 1, 2]})
    assert _one(engine, curr, "Personalization(like='evidently')@4", columns=EV) == pytest.approx(0.75, abs=1e-12)
    cosine = _one(engine, curr, "Personalization(like='evidently', norm='cosine')@4", columns=EV)
    assert cosine == pytest.approx(1 - 2 / math.sqrt(8), abs=1e-12)


def test_evidently_diversity(engine):
    # test_diversity.py test_curr_rank: DiversityMetric(k=4, item_features=["item_f1", "item_f2"]) 1.0963345074906863
    # (the cosine distances of test_pairwise_distances.py; each list's pair sum divided by its 4 items)
    items = ["0a", "1a", "5a", "6a", "0a", "1a", "5a", "6a", "0a", "4a", "6a", "10a"]
    f1 = [1, 1, 1, -0.1, 1, 1, 1, -0.1, 1, 1, -0.1, -1]
    f2 = [0, 0.1, 1, 0.9, 0, 0.1, 1, 0.9, 0, 0.9, 0.9, -1]
    curr = pd.DataFrame({"user_id": np.repeat(["1", "2", "3"], 4), "item_id": items, "rank": [1, 2, 3, 4] * 3})
    dense = pd.DataFrame({"item_id": items, "f1": f1, "f2": f2}).drop_duplicates("item_id")
    features = dense.melt(id_vars="item_id", var_name="feature", value_name="value")
    got = _one(engine, curr, "ILD(like='evidently')@4", columns=EV, features=features)
    assert np.isclose(got, 1.0963345074906863)


# ------------------------------------------------------------------------------------------------------------ RePlay
# sb-ai-lab/RePlay tests/metrics/conftest.py (recs_data, gt_data, recs_with_cold_items_data,
# recs_with_missing_users_data) and tests/metrics/test_metrics.py (test_coverage_metric, test_surprisal; ABS = 1e-5)
RP_RECS = pd.DataFrame(
    [
        (1, 3, 0.6), (1, 7, 0.5), (1, 10, 0.4), (1, 11, 0.3), (1, 2, 0.2),
        (2, 5, 0.6), (2, 8, 0.5), (2, 11, 0.4), (2, 1, 0.3), (2, 3, 0.2),
        (3, 4, 1.0), (3, 9, 0.5), (3, 2, 0.1),
    ],
    columns=["query", "item", "score"],
)  # fmt: skip
RP_GT = pd.DataFrame(
    [(1, 5), (1, 6), (1, 7), (1, 8), (1, 9), (1, 10), (2, 6), (2, 7), (2, 4), (2, 10), (2, 11),
     (3, 1), (3, 2), (3, 3), (3, 4), (3, 5)],
    columns=["query", "item"],
)  # fmt: skip
RP_COLD = pd.DataFrame(
    [(1, 42, 0.5), (1, 5, 1.0), (2, 221, 0.2), (2, 7, 0.3), (3, 2, 0.4), (3, 934, 0.6)],
    columns=["query", "item", "score"],
)
RP_MISSING = pd.DataFrame([(1, 7, 0.5), (1, 5, 1.0), (3, 2, 0.4), (3, 6, 0.6)], columns=["query", "item", "score"])


@pytest.mark.parametrize(("k", "want"), [(3, 0.9), (5, 1.0)])
def test_replay_coverage(engine, k, want):
    # test_coverage_metric: Coverage([3, 5])(predict, predict) == [0.9, 1.0]
    got = _one(engine, RP_RECS, f"Coverage(like='replay')@{k}", train=RP_RECS[["query", "item"]])
    assert got == pytest.approx(want, abs=1e-5)


def test_replay_coverage_docstring(engine):
    # replay/metrics/coverage.py docstring: Coverage(2)(recommendations, train) {'Coverage@2': 0.5555555555555556};
    # item 7 is not in train and is not counted (a join): 5 of train's 9 items
    train = pd.DataFrame({"query": [1] * 5 + [2] * 5 + [3] * 3, "item": [5, 6, 8, 9, 2, 5, 8, 11, 1, 3, 4, 9, 2]})
    assert _one(engine, RP_RECS, "Coverage(like='replay')@2", train=train) == pytest.approx(0.5555555555555556)


@pytest.mark.parametrize(
    ("recs", "train", "k", "want"),
    [
        ("recs", "recs", 3, 0.78969),
        ("recs", "recs", 5, 0.614294),
        ("recs", "gt", 3, 0.719586),
        ("recs", "gt", 5, 0.698418),
        ("cold", "gt", 5, 0.315876),
        ("missing", "gt", 5, 0.210721),
    ],
)
def test_replay_surprisal(engine, recs, train, k, want):
    tables = {"recs": RP_RECS, "gt": RP_GT, "cold": RP_COLD, "missing": RP_MISSING}
    history = tables[train][["query", "item"]]
    assert _one(engine, tables[recs], f"Novelty(like='replay')@{k}", train=history) == pytest.approx(want, abs=1e-5)


def test_replay_surprisal_docstring_per_user(engine):
    # replay/metrics/surprisal.py docstring: Surprisal(2, mode=PerUser()) {1: 1.0, 2: 0.3690702464285426,
    # 3: 0.6845351232142713}, mean 0.6845351232142715 (train = the docstring's train, as in test_replay_coverage_docstring)
    train = pd.DataFrame({"query": [1] * 5 + [2] * 5 + [3] * 3, "item": [5, 6, 8, 9, 2, 5, 8, 11, 1, 3, 4, 9, 2]})
    got = _per_query(engine, RP_RECS, "Novelty(like='replay')@2", train=train)
    assert got == pytest.approx([1.0, 0.3690702464285426, 0.6845351232142713], abs=1e-12)


# ----------------------------------------------------------------------------------------------------------- LensKit
# lenskit/lkpy tests/eval/test_ils.py: intra_list_similarity of unit-normalized category vectors
def _ils(engine, vectors: list[list[float]]) -> float:
    recs = _table([[1, i, i + 1] for i in range(len(vectors))])
    rows = [(i, f"c{j}", float(v)) for i, vec in enumerate(vectors) for j, v in enumerate(vec)]
    features = pd.DataFrame(rows, columns=["item", "feature", "value"])
    return _one(engine, recs, "ILD(like='lenskit')", features=features)


@pytest.mark.parametrize(
    ("vectors", "want"),
    [
        ([[1, 0, 0], [1, 0, 0], [1, 0, 0]], 1.0),  # test_ils_identical_items
        ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], 0.0),  # test_ils_orthogonal_items
        ([[1, 0], [1, 0], [0, 1]], 0.333),  # test_ils_partial_overlap (abs=0.01)
        ([[1, 0, 0]], 1.0),  # test_ils_single_item: == 1.0
        ([[1, 0], [1, 0]], 1.0),  # test_ils_two_items_similar
        ([[1, 0], [0, 1]], 0.0),  # test_ils_two_items_different
    ],
)
def test_lenskit_ils(engine, vectors, want):
    assert _ils(engine, vectors) == pytest.approx(want, abs=0.01)


def test_lenskit_ils_empty_is_nan(engine):
    # test_ils_empty_list / test_ils_class_measure_list_empty: no item with a vector -> NaN
    recs = _table([[1, "x", 1]])
    features = pd.DataFrame({"item": ["y"], "feature": ["c0"], "value": [1.0]})
    assert math.isnan(_one(engine, recs, "ILD(like='lenskit')", features=features))


# ------------------------------------------------------------------------- hand derivations (no published number)
# Microsoft Recommenders' diversity_data (docs/beyond-accuracy.md's running example): catalog items 1..6, train
# items 1..5; whole lists: 3 5 | 2 5 | 1 2, so item counts 1: 1, 2: 2, 3: 1, 5: 2 (4 and 6 never recommended)
MS_RECS = pd.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2], "rank": [1, 2, 1, 2, 1, 2]})
MS_TRAIN = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
MS = {"query": "user"}


def test_lenskit_list_gini_by_hand(engine):
    # lenskit.stats.gini over the catalog vocabulary (6 items): sorted 0, 0, 1, 1, 2, 2; ranks 2i - n - 1 =
    # -5 -3 -1 1 3 5: (-1 + 1 + 6 + 10) / (6 * 6) = 16 / 36 = 0.4444 (the RecBole value: the same convention)
    got = _one(engine, MS_RECS, "Gini(like='lenskit')", columns=MS, catalog=range(1, 7))
    assert got == pytest.approx(16 / 36, abs=1e-12)


def test_elliot_gini_and_item_coverage_by_hand(engine):
    # elliot/evaluation/metrics/diversity/gini_index/gini_index.py: num_items = train's 5 items, m = 4 recommended,
    # shares sorted 1/6 1/6 2/6 2/6 at ranks j + (5 - 4) + 1 = 2..5: sum (2 r - 6) s = (-2 + 0 + 4 + 8) / 6 = 10/6,
    # / (5 - 1) = 5/12, 1 - 5/12 = 7/12. ItemCoverage: 4 distinct items
    got = rankframe.evaluate(
        MS_RECS, ["Gini(like='elliot')", "Coverage(like='elliot')"], columns=MS, train=MS_TRAIN, engine=engine
    )
    assert got["value"].tolist() == pytest.approx([7 / 12, 4.0], abs=1e-12)


def test_elliot_arp_by_hand(engine):
    # elliot/evaluation/metrics/bias/arp/arp.py: pop_items = the users of each train item (1: 1, 2: 1, 3: 2, 4: 3,
    # 5: 1); per user (2 + 1) / 2, (1 + 1) / 2, (1 + 1) / 2 -> 1.5, 1, 1
    got = _per_query(engine, MS_RECS, "ARP(like='elliot')", columns=MS, train=MS_TRAIN)
    assert got == pytest.approx([1.5, 1.0, 1.0], abs=1e-12)


def test_rectools_coverage_of_the_running_example_by_hand(engine):
    # the "coverage 6": RecTools counts, every other peer divides; here 4 distinct items
    assert _one(engine, MS_RECS, "Coverage(like='rectools')", columns=MS, catalog=range(1, 7)) == 4.0


# ------------------------------------------------------------------------------------------ hostile option values
@pytest.mark.parametrize(
    ("metric", "words"),
    [
        ("Novelty(like='replay')", "divides by the cutoff"),  # RePlay divides by k: a cutoff is needed
        ("Novelty(scale='log_users', model='choice')@2", "needs model='discovery'"),
        ("Coverage(outside='all')", "'outside'"),
        ("ARP(popularity_norm='sum')", "'popularity_norm'"),
        ("ILD(single_item='two')", "'single_item'"),
        ("ILD(pair_denominator=2)", "'pair_denominator'"),
        ("Gini(like='rectools')", "'like'"),  # RecTools has no Gini
        ("Personalization(like='evidently')", "divides each overlap by the cutoff"),
    ],
)
def test_bad_options_name_the_parameter(engine, metric, words):
    inputs = {
        "train": MS_TRAIN,
        "catalog": range(1, 7),
        "features": pd.DataFrame({"item": [1, 2], "feature": ["f", "g"]}),
    }
    spec = rankframe.parse(metric.split("(")[0]).spec
    kw = {
        name: inputs[name]
        for name in ("train", "catalog", "features")
        if name in spec.needed({"universe": "catalog", "similarity": "cosine"})
    }
    with pytest.raises(rankframe.errors.ParameterError, match=words):
        rankframe.evaluate(MS_RECS, metric, columns=MS, engine=engine, **kw)


def test_elliot_aplt_pareto_tail_by_hand(engine):
    # elliot/evaluation/metrics/bias/aplt/aplt.py with popularity.py's get_long_tail (pop_ratio 0.8): train's users
    # per item 4: 3, 3: 2, 1: 1, 2: 1, 5: 1 (8 interactions, limit 6.4); the short head takes 4, 3, 1, 2 (the sums
    # before them 0, 3, 5, 6 are below 6.4), 5 (7 before it) is the long tail: lists 3 5 | 2 5 | 1 2 -> 1/2, 1/2, 0
    got = _per_query(engine, MS_RECS, "APLT(like='elliot')", columns=MS, train=MS_TRAIN)
    assert got == pytest.approx([0.5, 0.5, 0.0], abs=1e-12)
