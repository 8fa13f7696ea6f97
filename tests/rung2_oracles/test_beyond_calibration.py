"""Calibration@k against Informfully's published values, scipy's divergences on random cases, and hand derivations.

The oracle here builds each user's dense genre vectors with a Python loop over users and calls
scipy.stats.entropy (KL) and scipy.spatial.distance.jensenshannon (the JS distance), which rankframe never does (it
sums over (list, genre) cells): the two share no code.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import ENGINES
from faces import macro_connection
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy

import rankframe
from rankframe.core.errors import ParameterError


def informfully(categories: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    # Informfully/Recommenders tests/cornac/metrics/test_diversity.py test_calibration: rec_list [1, 2, 3, 4, 5],
    # history_list [1, 2, 3, 4, 5, 9, 8, 7, 6, 2, 2, 3] (a repeated history item counts each time), k = -1
    recs = pd.DataFrame({"query": [1] * 5, "item": [1, 2, 3, 4, 5], "rank": [1, 2, 3, 4, 5]})
    train = pd.DataFrame({"query": [1] * 12, "item": [1, 2, 3, 4, 5, 9, 8, 7, 6, 2, 2, 3]})
    features = pd.DataFrame({"item": list(categories), "feature": [str(c) for c in categories.values()]})
    return recs, train, features


@pytest.mark.parametrize("engine", ENGINES)
def test_informfully_published_values(engine):
    # item_vectors = {1: 1, ..., 9: 9} (one category per item), Calibration(data_type="category"): expected
    # 3.039375 with its distributions rounded to 4 decimals; its comment gives the unrounded 3.039184897133893
    recs, train, features = informfully({i: i for i in range(1, 10)})
    got = rankframe.evaluate(recs, "Calibration(like='informfully')", train=train, features=features, engine=engine)
    assert got["value"].iloc[0] == pytest.approx(3.039184897133893, abs=1e-12)
    assert got["value"].iloc[0] == pytest.approx(3.039375, abs=1e-3)  # its assertion (tolerance 0.001)
    # item_vectors1 (genres), divergence_type="js": expected 0.363625, unrounded 0.36362464942732303
    genres = {1: "action", 2: "drama", 3: "comedy", 4: "comedy", 5: "western", 6: "romance", 7: "romance", 8: "drama"}
    recs, train, features = informfully({**genres, 9: "comedy"})
    metric = "Calibration(like='informfully', divergence='js')"
    got = rankframe.evaluate(recs, metric, train=train, features=features, engine=engine)
    assert got["value"].iloc[0] == pytest.approx(0.36362464942732303, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_hand_derivation(engine):
    # user 1: history a (x), b (y) -> p = (1/2, 1/2); list a, c (x, x) -> q = (1, 0).
    # Steck (alpha 0.01, smooth q): q~ = (0.99 + 0.005, 0.005) = (0.995, 0.005);
    # KL(p || q~) = 1/2 log2(0.5 / 0.995) + 1/2 log2(0.5 / 0.005) = 1/2 (log2 100 - log2 1.99) = 2.825560...
    # user 2: history b (y) with weight 3 and d (genres x 1, y 3: shares 1/4, 3/4) with weight 1 ->
    # p = (1/4 / 4, (3 + 3/4) / 4) = (1/16, 15/16); list d -> q = (1/4, 3/4); alpha = 0, JS distance in bits:
    # m = (5/32, 27/32); JS = 1/2 [1/16 log2(2/5) + 15/16 log2(30/27) + 1/4 log2(8/5) + 3/4 log2(24/27)]
    # user 3: no history: NaN. user 4: history of an unknown item only: NaN.
    recs = pd.DataFrame({"query": [1, 1, 2, 3, 4], "item": ["a", "c", "d", "a", "b"], "rank": [1, 2, 1, 1, 1]})
    train = pd.DataFrame(
        {"query": [1, 1, 2, 2, 4], "item": ["a", "b", "b", "d", "z"], "weight": [1.0, 1.0, 3.0, 1.0, 1.0]}
    )
    features = pd.DataFrame(
        {"item": ["a", "b", "c", "d", "d"], "feature": ["x", "y", "x", "x", "y"], "value": [1, 1, 1, 1, 3.0]}
    )
    kl = rankframe.evaluate(recs, "Calibration", train=train, features=features, per_query=True, engine=engine)
    assert kl["value"].iloc[0] == pytest.approx((math.log2(100) - math.log2(1.99)) / 2, abs=1e-12)
    assert kl["value"].iloc[2:].isna().all()
    js = rankframe.evaluate(
        recs, "Calibration(divergence='js', alpha=0)", train=train, features=features, per_query=True, engine=engine
    )
    half = (
        1 / 16 * math.log2(2 / 5) + 15 / 16 * math.log2(30 / 27) + 1 / 4 * math.log2(8 / 5) + 3 / 4 * math.log2(24 / 27)
    ) / 2
    assert js["value"].iloc[1] == pytest.approx(math.sqrt(half), abs=1e-12)
    # alpha = 0 and a history genre missing from the list: KL(p || q) is infinite (scipy's entropy says so too)
    inf = rankframe.evaluate(
        recs, "Calibration(alpha=0)", train=train, features=features, per_query=True, engine=engine
    )
    assert inf["value"].iloc[0] == math.inf == entropy([0.5, 0.5], [1.0, 0.0])
    mean = rankframe.evaluate(recs, "Calibration(alpha=0)", train=train, features=features, engine=engine)
    assert mean["value"].iloc[0] == math.inf and mean["n"].iloc[0] == 2  # users 3 and 4 left out of the mean


def brute_force(recs, train, features, *, k, divergence, direction, alpha, smooth, rank_weight, log_base):
    """A loop over users with dense genre vectors and scipy: {query: value}."""
    genres = sorted(features["feature"].unique())
    vec = {}
    for item, rows in features.groupby("item"):
        v = np.array([rows.loc[rows["feature"] == g, "value"].sum() for g in genres], dtype=float)
        if v.sum() > 0:
            vec[item] = v / v.sum()
    out = {}
    for query, rows in recs.groupby("query"):
        rows = rows.sort_values("rank")
        rows = rows.assign(pos=np.arange(1, len(rows) + 1))
        if k is not None:
            rows = rows[rows["pos"] <= k]
        q, wq = np.zeros(len(genres)), 0.0
        for item, pos in zip(rows["item"], rows["pos"]):
            if item in vec:
                w = {"none": 1.0, "reciprocal": 1 / pos, "log": 1 / math.log2(pos + 1)}[rank_weight]
                q, wq = q + w * vec[item], wq + w
        hist = train[(train["query"] == query) & (train["weight"] > 0)]
        p, wp = np.zeros(len(genres)), 0.0
        for item, w in zip(hist["item"], hist["weight"]):
            if item in vec:
                p, wp = p + w * vec[item], wp + w
        if wq == 0 or wp == 0:
            out[query] = math.nan
            continue
        p, q = p / wp, q / wq
        ps = (1 - alpha) * p + alpha * q if smooth == "both" else p
        qs = (1 - alpha) * q + alpha * p
        a, b = (ps, qs) if direction == "history_list" else (qs, ps)
        if divergence == "kl":
            out[query] = entropy(a, b, base=log_base)
        else:
            out[query] = jensenshannon(a, b, base=log_base)
    return out


def _random_case(seed: int):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(7):
        items = rng.choice(10, size=int(rng.integers(0, 6)), replace=False)
        rows += [(q, int(i), r + 1) for r, i in enumerate(items)]
    recs = pd.DataFrame(rows, columns=["query", "item", "rank"])
    n = int(rng.integers(1, 30))
    train = pd.DataFrame(
        {
            "query": rng.integers(0, 8, size=n),
            "item": rng.integers(0, 12, size=n),
            "weight": rng.choice([0.0, 1.0, 2.5, 0.5], size=n),
        }
    )
    # items 8 and 11 have no features row; item 9 only zeros (unknown too)
    features = pd.DataFrame(
        [(i, f"g{g}", float(rng.choice([1.0, 2.0, 0.5]) if i != 9 else 0.0)) for i in range(12) if i not in (8, 11)
         for g in range(4) if rng.random() < 0.5 or g == i % 4],
        columns=["item", "feature", "value"],
    )  # fmt: skip
    return recs, train, features


OPTIONS = [
    {},
    {"divergence": "js"},
    {"divergence": "js", "alpha": 0.0},
    {"direction": "list_history", "alpha": 0.2},
    {"direction": "list_history", "smooth": "both", "divergence": "js"},
    {"smooth": "both", "alpha": 0.001, "log_base": math.e},
    {"rank_weight": "reciprocal", "alpha": 0.05},
    {"rank_weight": "log", "divergence": "js", "log_base": 10.0},
    {"alpha": 1.0},
    {"alpha": 0.0},
]


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scipy_on_random_cases(options, seed):
    recs, train, features = _random_case(seed)
    kw = {"divergence": "kl", "direction": "history_list", "alpha": 0.01, "smooth": "q", "rank_weight": "none"}
    kw.update({"log_base": 2.0, **options})
    args = ", ".join(f"{key}={value!r}" for key, value in options.items())
    for k in (None, 3):
        metric = f"Calibration({args})" + ("" if k is None else f"@{k}")
        want = brute_force(recs, train, features, k=k, **kw)
        for engine in ENGINES if seed == 1 and k == 3 else ["pandas"]:  # pandas = DuckDB: test_sql_beyond_parity.py
            got = rankframe.evaluate(recs, metric, train=train, features=features, per_query=True, engine=engine)
            assert dict(zip(got["query"], got["value"])) == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True)


def test_preset_sets_every_convention_and_options_win():
    measure = rankframe.parse("Calibration(like='informfully', smooth='q')@5")
    assert measure.kw["alpha"] == 0.001 and measure.kw["smooth"] == "q" and measure.kw["log_base"] == 2.0
    assert str(measure) == "Calibration(like='informfully', smooth='q')@5"
    assert str(rankframe.parse("calibration(alpha=0.01, divergence='KL')")) == "Calibration"


# ------------------------------------------------------------------------------------------------ hostile inputs
RECS = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
TRAIN = pd.DataFrame({"query": [1], "item": ["a"]})
FEATURES = pd.DataFrame({"item": ["a", "b"], "feature": ["x", "y"]})


@pytest.mark.parametrize(
    ("metric", "kw", "words"),
    [
        ("Calibration", {"features": FEATURES}, "needs train="),
        ("Calibration", {"train": TRAIN}, "needs features="),
        ("Calibration(alpha=1.5)", {"train": TRAIN, "features": FEATURES}, "'alpha' parameter"),
        ("Calibration(alpha=-0.1)", {"train": TRAIN, "features": FEATURES}, "float in [0, 1]"),
        ("Calibration(alpha='x')", {"train": TRAIN, "features": FEATURES}, "'alpha' parameter"),
        ("Calibration(divergence='emd')", {"train": TRAIN, "features": FEATURES}, "'kl', 'js'"),
        ("Calibration(direction='both')", {"train": TRAIN, "features": FEATURES}, "'history_list'"),
        ("Calibration(like='recbole')", {"train": TRAIN, "features": FEATURES}, "'like'"),
        ("Calibration(log_base=1)", {"train": TRAIN, "features": FEATURES}, "'log_base'"),
        (
            "Calibration",
            {"train": TRAIN, "features": FEATURES.assign(value=[1.0, -1.0])},
            "1 row(s) are negative (rows [1])",  # the kernel's words, with the rows (the DuckDB engine's hook)
        ),
        (
            "Calibration",
            {"train": TRAIN.assign(query=["1"]), "features": FEATURES},
            "ids of different kinds never match",
        ),
        ("Calibration", {"train": TRAIN.assign(weight=[math.nan]), "features": FEATURES}, "'weight'"),
        ("Calibration", {"train": TRAIN, "features": FEATURES.assign(value=[1.0, math.nan])}, "'value'"),
        ("Calibration", {"train": TRAIN, "features": pd.concat([FEATURES, FEATURES])}, "same (item, feature) pair"),
        ("Calibration", {"train": TRAIN, "features": FEATURES.assign(item=[1, 2])}, "ids of different kinds"),
        ("Calibration", {"train": TRAIN.assign(item=[1]), "features": FEATURES}, "ids of different kinds"),
        ("Calibration", {"train": TRAIN, "features": FEATURES.iloc[:0]}, "features= is empty"),
    ],
)
@pytest.mark.parametrize("engine", ENGINES)
def test_hostile_inputs_name_the_rule(metric, kw, words, engine):
    with pytest.raises(ParameterError, match=None) as e:
        rankframe.evaluate(RECS, metric, engine=engine, **kw)
    assert words in str(e.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_inputs_are_not_modified_and_ids_match_across_int_and_float(engine):
    train = pd.DataFrame({"query": [1.0, 1.0], "item": ["a", "b"], "weight": [1, 3]})
    features = FEATURES.copy()
    before = (train.copy(), features.copy())
    got = rankframe.evaluate(RECS, "Calibration(alpha=0)", train=train, features=features, engine=engine)
    # p = (1/4, 3/4), q = (1/2, 1/2): KL = 1/4 log2(1/2) + 3/4 log2(3/2)
    assert got["value"].iloc[0] == pytest.approx(0.25 * math.log2(0.5) + 0.75 * math.log2(1.5), abs=1e-12)
    pd.testing.assert_frame_equal(train, before[0])
    pd.testing.assert_frame_equal(features, before[1])


def test_the_sql_macro_refuses_negative_shares():
    import duckdb

    con = macro_connection()
    con.register("recs", RECS)
    con.register("train", TRAIN)
    con.register("features", FEATURES.assign(value=[1.0, -1.0]))
    with pytest.raises(duckdb.Error, match="negative"):
        con.execute("SELECT * FROM rf_calibration('recs', train := 'train', features := 'features')").fetchall()
    con.register("features", FEATURES)
    got = con.sql("SELECT value FROM rf_calibration('recs', train := 'train', features := 'features', alpha := 0)")
    assert got.fetchall()[0][0] == pytest.approx(1.0)  # p = (1, 0), q = (1/2, 1/2): log2(2)
