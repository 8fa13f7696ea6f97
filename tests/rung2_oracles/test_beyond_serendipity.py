"""Serendipity@k against the peers' published values (Microsoft Recommenders, Evidently, RecTools), hand
derivations and a brute-force loop over every (recommended item, history item) pair.

The loop builds the pairs and the dense vectors, which rankframe never does (it sums each history once per
dimension): the two share no code.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from beyond_data import MS, ms_data
from conftest import ENGINES

import rankframe
from rankframe.core.errors import ParameterError


@pytest.mark.parametrize("engine", ENGINES)
def test_recommenders_serendipity_cooccurrence(engine):
    # tests/unit/recommenders/evaluation/test_python_evaluation.py test_user_serendipity ([0.363915, 0.53455,
    # 0.403775]) and test_serendipity (0.43408), TOL = 1e-4, col_relevance="Relevance"
    train, reco, _ = ms_data()
    metric = "Serendipity(like='recommenders')"
    got = rankframe.evaluate(reco, metric, columns=MS, train=train, per_query=True, engine=engine)
    assert got["value"].tolist() == pytest.approx([0.363915, 0.53455, 0.403775], abs=1e-4)
    mean = rankframe.evaluate(reco, metric, columns=MS, train=train, engine=engine)
    assert mean["value"].iloc[0] == pytest.approx(0.43408, abs=1e-4)
    # hand (test_user_item_serendipity's 0.72783 for user 1, item 3): train users of 3 = {2, 3}, of 1 = {1}, of
    # 2 = {1}, of 4 = {1, 2, 3}; H(1) = {1, 2, 4}: s = (0 + 0 + 2 / sqrt(6)) / 3; item 5 has relevance 0
    assert got["value"].iloc[0] == pytest.approx((1 - 2 / math.sqrt(6) / 3) / 2, abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_recommenders_serendipity_item_feature_vector(engine):
    # test_user_serendipity_item_feature_vector ([0.25, 0.625, 0.3333], atol TOL) and
    # test_serendipity_item_feature_vector (0.4028)
    train, reco, features = ms_data()
    metric = "Serendipity(like='recommenders', similarity='cosine')"
    got = rankframe.evaluate(reco, metric, columns=MS, train=train, features=features, per_query=True, engine=engine)
    assert got["value"].tolist() == pytest.approx([0.25, 0.625, 0.3333], abs=1e-4)
    mean = rankframe.evaluate(reco, metric, columns=MS, train=train, features=features, engine=engine)
    assert mean["value"].iloc[0] == pytest.approx(0.4028, abs=1e-4)


def evidently_data():
    # evidentlyai/evidently tests/metrics/recsys/test_serendipity.py test_curr_rank / test_curr_scores: the item
    # features are columns of the current and train tables; rankframe reads them as a long features= table
    curr = pd.DataFrame(
        {
            "user_id": ["1b", "1b", "1b", "1b", "2b", "2b", "2b", "2b", "3b", "3b", "3b", "3b"],
            "item_id": ["0a", "1a", "5a", "6a", "0a", "1a", "5a", "6a", "0a", "4a", "6a", "10a"],
            "item_f1": [1, 1, 1, -0.1, 1, 1, 1, -0.1, 1, 1, -0.1, -1],
            "item_f2": [0, 0.1, 1, 0.9, 0, 0.1, 1, 0.9, 0, 0.9, 0.9, 0],
            "target": [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0],
            "prediction": [1, 2, 3, 4] * 3,
            "score": [100, 20, 3, 1] * 3,
        }
    )
    train = pd.DataFrame(
        {
            "user_id": ["1b", "2b", "3b"],
            "item_id": ["10a", "2a", "5a"],
            "item_f1": [-1, 1, 1],
            "item_f2": [-0.0, 0.2, 1],
        }
    )
    items = pd.concat([curr, train])[["item_id", "item_f1", "item_f2"]].drop_duplicates("item_id")
    features = items.melt(id_vars="item_id", var_name="feature", value_name="value")
    return curr, train[["user_id", "item_id"]], features


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("order", ["prediction", "score"])
def test_evidently_serendipity(engine, order):
    # test_curr_rank (RecomType.RANK) and test_curr_scores (RecomType.SCORE): 0.8632630527478137 for k=3
    curr, train, features = evidently_data()
    columns = {"query": "user_id", "item": "item_id", "relevance": "target"}
    columns.update({"rank": "prediction"} if order == "prediction" else {"score": "score"})
    table = curr.drop(columns=["score" if order == "prediction" else "prediction"])
    got = rankframe.evaluate(
        table, "Serendipity(like='evidently')@3", columns=columns, train=train, features=features, engine=engine
    )
    assert got["value"].iloc[0] == pytest.approx(0.8632630527478137, abs=1e-12)
    # hand: 1b's relevant item 5a = (1, 1), history 10a = (-1, 0): cosine -1/sqrt(2), 1 - (-1/sqrt(2)) / 1;
    # 2b's 0a = (1, 0), history 2a = (1, 0.2): cosine 1/sqrt(1.04); 3b has no relevant item in its top 3: skipped
    per = rankframe.evaluate(
        table, "Serendipity(like='evidently')@3", columns=columns, train=train, features=features, per_query=True,
        engine=engine,
    )  # fmt: skip
    want = [1 + 1 / math.sqrt(2), 1 - 1 / math.sqrt(1.04), math.nan]
    assert per["value"].tolist() == pytest.approx(want, abs=1e-12, nan_ok=True)


def rectools_data():
    # MobileTeleSystems/RecTools tests/metrics/test_serendipity.py TestSerendipityCalculator: interactions_test
    # becomes the relevance column (1 = in interactions_test, 0 otherwise), interactions_train is train=
    reco = pd.DataFrame(
        [["u1", "i1", 1], ["u1", "i2", 2], ["u2", "i2", 1], ["u2", "i3", 2], ["u3", "i3", 1], ["u4", "i2", 1],
         ["u4", "i3", 2]],
        columns=["user", "item", "rank"],
    )  # fmt: skip
    test = pd.DataFrame(
        [["u1", "i1"], ["u1", "i2"], ["u2", "i2"], ["u2", "i3"], ["u3", "i2"], ["u4", "i2"]], columns=["user", "item"]
    )
    train = pd.DataFrame(
        [["u1", "i1"], ["u1", "i2"], ["u2", "i1"], ["u2", "i2"], ["u3", "i1"]], columns=["user", "item"]
    )
    reco = reco.merge(test.assign(relevance=1), how="left").fillna({"relevance": 0})
    return reco, train, ["i1", "i2", "i3", "i4"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("k", "want"), [(1, [0, 0.25, 0, 0.25]), (2, [0, 0.5, 0, 0.125])])
def test_rectools_serendipity(engine, k, want):
    # test_correct_serendipity_values: per user and calc() = the mean of the per-user values
    reco, train, catalog = rectools_data()
    metric = f"Serendipity(like='rectools')@{k}"
    args = dict(columns={"query": "user"}, train=train, catalog=catalog, engine=engine)
    got = rankframe.evaluate(reco, metric, per_query=True, **args)
    assert got["value"].tolist() == pytest.approx(want, abs=1e-12)
    assert rankframe.evaluate(reco, metric, **args)["value"].iloc[0] == pytest.approx(np.mean(want), abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_rectools_form_with_tied_popularity_by_hand(engine):
    # RecTools publishes no tie; hand case: N = |catalog| = 5, train counts a: 2, b: 2, c: 1 (rows), so the dense
    # popularity ranks are a: 1, b: 1, c: 2; d is cold (pu = 0). List q (all relevant): c at 1, d at 2, a at 3:
    # c: p = (6 - 1) / 5 = 1, pu = (6 - 2) / 5 = 0.8 -> 0.2; d: p = 4/5, pu = 0 -> 0.8; a: p = 3/5, pu = 1 -> 0
    # mean (0.2 + 0.8 + 0) / 3 = 1/3. List r: b at 1, relevant: p = 1, pu = 1 -> 0; c at 2 not relevant -> 0
    recs = pd.DataFrame(
        {"query": ["q", "q", "q", "r", "r"], "item": ["c", "d", "a", "b", "c"], "rank": [1, 2, 3, 1, 2],
         "relevance": [1, 1, 2, 1, 0]}
    )  # fmt: skip
    train = pd.DataFrame({"query": ["x", "y", "x", "y", "z"], "item": ["a", "a", "b", "b", "c"]})
    got = rankframe.evaluate(
        recs, "Serendipity(like='rectools')", train=train, catalog=list("abcde"), per_query=True, engine=engine
    )
    assert got["value"].tolist() == pytest.approx([1 / 3, 0.0], abs=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_default_form_grades_and_unknown_by_hand(engine):
    # defaults but the similarity: form='unexpectedness', relevance='binary' (grade >= 1), unknown='zero'.
    # train query sets: a {1, 2}, b {2}, c {3}. List 1 (history {a}): b (grade 2 -> 1): s = cos(b, a) = 1/sqrt(2);
    # c (grade NaN: unjudged -> 0); e (cold: the zero vector, s = 0, grade 1) -> ((1 - 1/sqrt(2)) + 0 + 1) / 3.
    # List 3 has no history (absent from train): NaN. List 2 (history {a, b}): a (grade 0): 0 -> 0.
    recs = pd.DataFrame(
        {"query": [1, 1, 1, 2, 3], "item": ["b", "c", "e", "a", "a"], "rank": [1, 2, 3, 1, 1],
         "relevance": [2, np.nan, 1, 0, 1]}
    )  # fmt: skip
    train = pd.DataFrame({"query": [1, 2, 2, 9], "item": ["a", "a", "b", "c"]})
    co = "similarity='cooccurrence'"
    got = rankframe.evaluate(recs, f"Serendipity({co})", train=train, per_query=True, engine=engine)
    want = [((1 - 1 / math.sqrt(2)) + 1) / 3, 0.0, math.nan]
    assert got["value"].tolist() == pytest.approx(want, abs=1e-12, nan_ok=True)
    # relevance='grade' multiplies by 2 for b; unknown='drop' leaves e out (2 counted rows: b and c)
    got = rankframe.evaluate(
        recs, f"Serendipity({co}, relevance='grade', unknown='drop')", train=train, per_query=True, engine=engine
    )
    assert got["value"].iloc[0] == pytest.approx(2 * (1 - 1 / math.sqrt(2)) / 2, abs=1e-12)
    # summed_similarity: 1 - 1 * 1/sqrt(2) (c: relevance 0, e: s = 0); list 2: no relevant item, 'zero' -> 1 - 0
    got = rankframe.evaluate(
        recs, f"Serendipity({co}, form='summed_similarity')", train=train, per_query=True, engine=engine
    )
    assert got["value"].tolist() == pytest.approx([1 - 1 / math.sqrt(2), 1.0, math.nan], abs=1e-12, nan_ok=True)
    skip = rankframe.evaluate(
        recs, f"Serendipity({co}, no_relevant_item='skip')", train=train, per_query=True, engine=engine
    )
    assert skip["value"].tolist() == pytest.approx([want[0], math.nan, math.nan], abs=1e-12, nan_ok=True)


# ------------------------------------------------------------------------ the brute-force loop on random tables
def brute_force(recs, features, train, catalog, *, k, form, similarity, relevance, rel, unknown, no_relevant_item,
                popularity):  # fmt: skip
    """Every (recommended item, history item) pair of every list: {query: value}."""
    pos = train[train["weight"] > 0] if "weight" in train else train
    history = pos.groupby("query")["item"].apply(lambda s: sorted(set(s))).to_dict()
    if similarity == "cooccurrence":
        sets = pos.groupby("item")["query"].apply(set).to_dict()
        known = set(train["item"])

        def sim(a, b):
            sa, sb = sets.get(a, set()), sets.get(b, set())
            return len(sa & sb) / math.sqrt(len(sa) * len(sb)) if sa and sb else 0.0

    else:
        names = sorted(features["feature"].unique())
        dense = {}
        for item, rows in features.groupby("item"):
            vec = np.zeros(len(names))
            for f, v in zip(rows["feature"], rows["value"]):
                vec[names.index(f)] = v
            dense[item] = vec
        known = set(dense)

        def sim(a, b):
            va, vb = dense.get(a, np.zeros(len(names))), dense.get(b, np.zeros(len(names)))
            na, nb = np.linalg.norm(va), np.linalg.norm(vb)
            return float(va @ vb / (na * nb)) if na > 0 and nb > 0 else 0.0

    if "weight" in train and popularity == "interactions":
        counts = train.groupby("item")["weight"].sum().to_dict()
    elif popularity == "interactions":
        counts = train.groupby("item").size().astype(float).to_dict()
    else:
        counts = pos.groupby("item")["query"].nunique().astype(float).to_dict()
        counts.update({i: 0.0 for i in set(train["item"]) - set(counts)})
    levels = sorted(set(counts.values()), reverse=True)
    n_cat = len(catalog)
    out = {}
    for q, rows in recs.sort_values("rank").groupby("query"):
        rows = rows.head(k) if k else rows
        terms, any_relevant = [], False
        hist = [h for h in history.get(q, []) if unknown == "zero" or h in known]
        for position, (item, grade) in enumerate(zip(rows["item"], rows["relevance"]), start=1):
            g = 0.0 if pd.isna(grade) else float(grade)
            r = float(g >= rel) if relevance == "binary" else g
            if form == "popularity":
                pu = (n_cat + 1 - (levels.index(counts[item]) + 1)) / n_cat if item in counts else 0.0
                terms.append(r * max((n_cat + 1 - position) / n_cat - pu, 0.0))
            elif unknown == "zero" or item in known:
                s = sum(sim(item, h) for h in hist) / len(hist) if hist else math.nan
                terms.append(r * (1 - s) if form == "unexpectedness" else r * s)
            else:
                continue
            any_relevant |= r > 0
        if not terms or (form != "popularity" and not hist) or (no_relevant_item == "skip" and not any_relevant):
            out[q] = math.nan
        elif form == "summed_similarity":
            out[q] = 1 - sum(terms)
        else:
            out[q] = sum(terms) / len(terms)
    return out


def random_case(seed):
    rng = np.random.default_rng(seed)
    n_q, n_items = int(rng.integers(1, 12)), int(rng.integers(2, 15))
    rows = []
    for q in range(n_q):
        items = rng.choice(n_items, size=int(rng.integers(1, min(n_items, 7) + 1)), replace=False)
        rows += [(q, f"i{i}", r + 1, q % 2, rng.choice([0.0, 1.0, 2.0, 0.5, np.nan])) for r, i in enumerate(items)]
    recs = pd.DataFrame(rows, columns=["query", "item", "rank", "seg", "relevance"])
    feats = [
        (f"i{i}", f"f{f}", float(rng.choice([0.0, 1.0, 2.0, -0.5])))
        for i in range(n_items)
        if rng.random() < 0.8
        for f in range(5)
        if rng.random() < 0.5
    ]
    features = pd.DataFrame(feats or [("i0", "f0", 1.0)], columns=["item", "feature", "value"])
    train = pd.DataFrame(
        [
            (int(u), f"i{i}", float(rng.choice([0.0, 1.0, 3.0])))
            for u in range(-2, 10)
            for i in range(n_items + 2)
            if rng.random() < 0.3
        ]
        or [(0, "i0", 1.0)],
        columns=["query", "item", "weight"],
    )
    catalog = [f"i{i}" for i in range(n_items + 3)]
    return recs, features, train, catalog


BASE = dict(form="unexpectedness", similarity="cooccurrence", relevance="binary", rel=1, unknown="zero",
            no_relevant_item="zero", popularity="users")  # fmt: skip
OPTIONS = [
    BASE,
    {**BASE, "similarity": "cosine", "unknown": "drop", "relevance": "grade"},
    {**BASE, "form": "summed_similarity", "no_relevant_item": "skip", "rel": 0.5},
    {**BASE, "form": "summed_similarity", "similarity": "cosine", "relevance": "grade"},
    {**BASE, "unknown": "drop", "no_relevant_item": "skip", "rel": 2},
    {**BASE, "form": "popularity", "popularity": "interactions"},
    {**BASE, "form": "popularity", "relevance": "grade", "no_relevant_item": "skip"},
]


def metric_of(options, k):
    args = ", ".join(f"{key}={value!r}" for key, value in options.items())
    return f"Serendipity({args})" + (f"@{k}" if k else "")


def extra_of(options, features, train, catalog):
    extra = {"train": train}
    if options["similarity"] == "cosine":
        extra["features"] = features
    if options["form"] == "popularity":
        extra["catalog"] = catalog
    return extra


@pytest.mark.quick_sample(3, per="engine")  # a sweep of seeds x options: 3 per engine in the quick loop
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_serendipity_equals_the_pair_loop(engine, seed, options):
    if engine == "duckdb" and seed >= 2:  # the DuckDB engine plans each call (~0.2 s): two tables of four
        pytest.skip("the pandas engine covers seeds 2 and 3")
    recs, features, train, catalog = random_case(seed)
    k = [None, 2, 4][seed % 3]
    metric = metric_of(options, k)
    extra = extra_of(options, features, train, catalog)
    got = rankframe.evaluate(recs, metric, per_query=True, engine=engine, **extra)
    want = brute_force(recs, features, train, catalog, k=k, **options)
    assert got["value"].to_numpy() == pytest.approx([want[q] for q in got["query"]], abs=1e-12, nan_ok=True)
    # per segment equals each segment alone
    by_seg = rankframe.evaluate(recs, metric, by="seg", engine=engine, **extra)
    for seg, part in recs.groupby("seg"):
        alone = rankframe.evaluate(part, metric, engine=engine, **extra)
        row = by_seg[by_seg["seg"] == seg]
        assert row["value"].to_numpy() == pytest.approx(alone["value"].to_numpy(), abs=1e-12, nan_ok=True)


# ------------------------------------------------------------------------------------------- hostile inputs
def test_serendipity_hostile_inputs():
    recs, features, train, catalog = random_case(1)
    with pytest.raises(ParameterError, match=r"Serendipity@2 needs train="):
        rankframe.evaluate(recs, "Serendipity@2")
    with pytest.raises(ParameterError, match=r"needs features="):  # the default similarity reads features=
        rankframe.evaluate(recs, "Serendipity", train=train)
    with pytest.raises(ParameterError, match=r"needs catalog="):
        rankframe.evaluate(recs, "Serendipity(like='rectools')", train=train)
    for metric, kw in (  # features= no metric reads: left alone (issue 33), the same values as without it
        ("Serendipity(similarity='cooccurrence')", dict(train=train)),
        ("Serendipity(form='popularity')", dict(train=train, catalog=catalog)),  # no similarity read
    ):
        pd.testing.assert_frame_equal(
            rankframe.evaluate(recs, metric, features=features, **kw), rankframe.evaluate(recs, metric, **kw)
        )
    rankframe.evaluate(recs, "Serendipity(form='popularity', similarity='cosine')", train=train, catalog=catalog)
    with pytest.raises(ParameterError, match=r"(?i)'form' parameter of serendipity"):
        rankframe.evaluate(recs, "Serendipity(form='mean')", train=train, features=features)
    with pytest.raises(ParameterError, match=r"(?i)'rel' parameter of serendipity"):
        rankframe.evaluate(recs, "Serendipity(rel=None)", train=train, features=features)
    with pytest.raises(ParameterError, match=r"unknown peer|'like' parameter"):
        rankframe.evaluate(recs, "Serendipity(like='recbole')", train=train, features=features)
    S = "Serendipity(similarity='cooccurrence')"
    # the one metric of the family that reads relevance: a table without the column is refused, naming it
    with pytest.raises(rankframe.RankframeError, match=r"relevance"):
        rankframe.evaluate(recs.drop(columns="relevance"), S, train=train)
    with pytest.raises(ParameterError, match=r"reads the relevance column 'relevance'"):
        rankframe.evaluate(recs.drop(columns="relevance"), S, train=train, validate=False)
    # ... while the others still take such a table
    rankframe.evaluate(recs.drop(columns="relevance"), "Novelty", train=train)
    with pytest.raises(ParameterError, match=r"ids of different kinds"):
        rankframe.evaluate(recs, S, train=pd.DataFrame({"query": [1], "item": [3]}))
    for engine in ENGINES:  # an empty train= (issue 33): no query has a history to be unexpected against, NaN
        assert np.isnan(rankframe.evaluate(recs, S, train=train.head(0), engine=engine)["value"]).all()
    with pytest.raises(ParameterError, match=r"set-level|per_query"):
        rankframe.evaluate(recs, S, train=train, per_query=True, ci=0.95)
    # NaN grades are unjudged: 0, as a grade of 0 (and never an error)
    nan = rankframe.evaluate(recs.assign(relevance=np.nan), S, train=train, per_query=True)
    zero = rankframe.evaluate(recs.assign(relevance=0.0), S, train=train, per_query=True)
    assert nan["value"].to_numpy() == pytest.approx(zero["value"].to_numpy(), nan_ok=True)
    before = (recs.copy(), train.copy())
    rankframe.evaluate(recs, S, train=train)
    pd.testing.assert_frame_equal(recs, before[0])
    pd.testing.assert_frame_equal(train, before[1])  # never modified
