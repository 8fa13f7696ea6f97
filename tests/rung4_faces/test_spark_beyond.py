"""The beyond-accuracy family on ``rankframe.spark.evaluate`` (issue 21): equal to ``rankframe.evaluate`` to 1e-12 on
random tables (every option and preset of the portable cases, per segment, per query, mixed with accuracy metrics,
the inputs as Spark or pandas frames); Microsoft Recommenders' published Spark evaluation values with its preset;
hostile inputs refused with evaluate's words (slow: the Spark group)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from portable_cases import (
    BEYOND,
    BEYOND_CALIBRATION,
    BEYOND_FEATURES,
    BEYOND_LISTS,
    BEYOND_SERENDIPITY,
    features_for,
    inputs_for,
    paired_runs,
)
from sparkutil import assert_same_rows, collect, session, to_spark
from strategies import SMALL_GRADES, by_of, tables

import rankframe
import rankframe.spark as rs
from rankframe.core.errors import ParameterError, RankframeError

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]
SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
#: no shrinking: each example is a few Spark jobs (a failure prints its table as drawn)
PHASES = [Phase.explicit, Phase.reuse, Phase.generate]
#: the metrics that read features= (cosine, Hamming); the others read train= (co-occurrence)
BY_FEATURES = [m for m in BEYOND_FEATURES if "cooccurrence" not in m and "recommenders" not in m]


@pytest.fixture(scope="module")
def spark():
    return session()


def _spark_frame(spark, df: pd.DataFrame):
    """The table with real NULLs for missing ids and segments, ranks and scores as doubles (NaN where missing)."""
    from pyspark.sql import types as T

    def kind(s: pd.Series):
        if pd.api.types.is_integer_dtype(s):
            return T.LongType()
        if pd.api.types.is_float_dtype(s):
            return T.DoubleType()
        return T.StringType()

    schema = T.StructType([T.StructField(c, kind(df[c]), True) for c in df.columns])
    floats = [pd.api.types.is_float_dtype(df[c]) for c in df.columns]
    rows = [
        tuple(v if f else (None if pd.isna(v) else v) for v, f in zip(rec, floats))
        for rec in df.astype(object).itertuples(index=False)
    ]
    return spark.createDataFrame(rows, schema)


def _both(spark, frame: pd.DataFrame, as_spark: bool):
    return to_spark(spark, frame) if as_spark else frame


#: every portable case (portable_cases holds them to cover every declared option value and preset)
EVERY = [*BEYOND, *BEYOND_FEATURES, *BEYOND_CALIBRATION, *BEYOND_SERENDIPITY]


def _check_means(spark, df, metrics, seed, as_spark, extra=("P@2", "nDCG@3")):
    """rankframe.spark.evaluate's means against rankframe.evaluate's, per segment, with accuracy metrics."""
    by = by_of(df)
    train, catalog = inputs_for(df, seed)
    kw = {"train": train, "catalog": catalog, "features": features_for(df, seed)}
    asked = [*metrics, *extra]
    reads = {name for m in map(rankframe.parse, asked) for name in getattr(m.spec, "needed", lambda kw: [])(m.kw)}
    kw = {k: v for k, v in kw.items() if k in reads}
    got = rs.evaluate(_spark_frame(spark, df), asked, by=by, **{k: _both(spark, v, as_spark) for k, v in kw.items()})
    want = rankframe.evaluate(df, asked, by=by, **kw)
    assert_same_rows(got, want, [*(by or []), "metric"], cols=("value", "n"), msg=f"\n{df}")
    assert got["metric"].tolist() == want["metric"].tolist()  # evaluate's order: segments, then metrics as asked


def _fixed_table() -> pd.DataFrame:
    """Two segments, six lists of 2-5 items from 10 (text ids), one not-retrieved row, a list of one item."""
    rng = np.random.default_rng(21)
    rows = []
    for q in range(6):
        n = 1 if q == 5 else int(rng.integers(2, 6))
        items = rng.choice(10, size=n + 1, replace=False)
        rows += [(f"s{q % 2}", q, f"d{i}", float(r + 1) if r < n else np.nan, 1.0) for r, i in enumerate(items)]
    return pd.DataFrame(rows, columns=["seg", "query", "item", "rank", "relevance"])


def test_every_case_equals_evaluate(spark):
    # every option value and preset of the family at once, on one table, the inputs as Spark DataFrames
    _check_means(spark, _fixed_table(), EVERY, seed=3, as_spark=True)


@settings(max_examples=hypothesis_examples(2), deadline=None, suppress_health_check=SUPPRESS, phases=PHASES)
@given(
    df=tables(grades=SMALL_GRADES, dtypes=False),
    seed=st.integers(0, 10_000),
    as_spark=st.booleans(),
    metrics=st.lists(st.sampled_from(EVERY), min_size=3, max_size=6, unique=True),
)
def test_means_equal_evaluate(spark, df, seed, as_spark, metrics):
    # random tables (cold items, weights 0, a catalog with items never recommended, unknown features), a few cases
    # each (a statement of every case is a minute of Spark jobs here: test_every_case_equals_evaluate runs it once)
    _check_means(spark, df, metrics, seed, as_spark)


@settings(max_examples=hypothesis_examples(2), deadline=None, suppress_health_check=SUPPRESS, phases=PHASES)
@given(
    df=tables(grades=SMALL_GRADES, dtypes=False),
    seed=st.integers(0, 10_000),
    metrics=st.lists(st.sampled_from([*BEYOND_LISTS, *BY_FEATURES]), min_size=2, max_size=4, unique=True),
)
def test_per_query_and_intervals_equal_evaluate(spark, df, seed, metrics):
    # the per-list metrics per query (a Spark DataFrame, with an accuracy metric), then their means with intervals
    by = by_of(df)
    train, _ = inputs_for(df, seed)
    features = features_for(df, seed)
    kw = {"train": train, "features": features}
    reads = {name for m in map(rankframe.parse, metrics) for name in m.spec.needed(m.kw)}
    kw = {k: v for k, v in kw.items() if k in reads}
    sdf = _spark_frame(spark, df)
    asked = [*metrics, "AP"]
    per = rs.evaluate(sdf, asked, by=by, per_query=True, **{k: to_spark(spark, v) for k, v in kw.items()})
    want = rankframe.evaluate(df, asked, by=by, per_query=True, **kw)
    assert_same_rows(collect(per), want, [*(by or []), "query", "metric"], msg=f"\n{df}")
    got = rs.evaluate(sdf, metrics, by=by, ci=0.9, **kw)
    want = rankframe.evaluate(df, metrics, by=by, ci=0.9, **kw)
    assert_same_rows(got, want, [*(by or []), "metric"], cols=("value", "n", "std_err", "ci_low", "ci_high"))


def test_a_table_without_relevance_for_the_family_alone(spark):
    # the family never reads relevance: Spark, as evaluate, takes a table without the column
    df = pd.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1]})
    got = rs.evaluate(to_spark(spark, df), ["Coverage", "Personalization"], catalog=["a", "b", "c", "d"])
    # Coverage: {a, b} of 4 items = 0.5; Personalization: lists {a, b} and {a}: cos = 1 / sqrt(2)
    assert got["value"].tolist() == pytest.approx([0.5, 1 - 1 / math.sqrt(2)], abs=1e-12)
    with pytest.raises(RankframeError, match="relevance"):
        rs.evaluate(to_spark(spark, df), ["Coverage", "P@1"], catalog=["a", "b"])


# ------------------------------------------------------------------------------------- Microsoft Recommenders
# recommenders-team/recommenders tests/unit/recommenders/evaluation/conftest.py, fixture diversity_data, and the
# expected values of tests/unit/recommenders/evaluation/test_spark_evaluation.py (SparkDiversityEvaluation,
# TOL = 0.0001), written as they wrote them; the hand derivations are in tests/rung2_oracles/test_beyond_peers.py
# and test_beyond_ild.py (the same fixture on the python evaluation)
MS = {"query": "UserId", "item": "ItemId", "relevance": "Relevance"}
TOL = 1e-4


def ms_frames(spark):
    train = pd.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})
    reco = pd.DataFrame({"UserId": [1, 1, 2, 2, 3, 3], "ItemId": [3, 5, 2, 5, 1, 2], "Relevance": [1, 0, 1, 1, 1, 0]})
    reco["rank"] = reco.groupby("UserId").cumcount() + 1  # reco_df has no score: its rows in order
    vectors = {1: [0, 1, 1, 0, 0], 2: [0, 1, 0, 1, 0], 3: [0, 0, 1, 1, 0], 4: [0, 0, 1, 0, 1], 5: [0, 0, 0, 1, 1]}
    features = pd.DataFrame(  # item_feature_df's dense vectors as (item, feature, value) rows
        [(i, f"f{f}", float(v)) for i, vec in vectors.items() for f, v in enumerate(vec) if v],
        columns=["ItemId", "feature", "value"],
    )
    return to_spark(spark, train), to_spark(spark, reco), to_spark(spark, features)


def test_recommenders_spark_diversity_evaluation(spark):
    train, reco, features = ms_frames(spark)
    got = rs.evaluate(
        reco,
        [
            "Coverage(like='recommenders')",  # test_catalog_coverage
            "Entropy(like='recommenders')",  # test_distributional_coverage
            "Novelty(like='recommenders')",  # test_novelty
            "ILD(like='recommenders')",  # test_diversity
        ],
        columns=MS,
        train=train,
    )
    assert got["value"].tolist() == pytest.approx([0.8, 1.9183, 2.83333, 0.43096], abs=TOL)
    # test_user_diversity: per user
    per = collect(rs.evaluate(reco, "ILD(like='recommenders')", columns=MS, train=train, per_query=True))
    assert per.sort_values("UserId")["value"].tolist() == pytest.approx([0.29289, 1.0, 0.0], abs=TOL)
    # test_user_diversity_item_feature_vector / test_diversity_item_feature_vector
    metric = "ILD(like='recommenders', similarity='cosine')"
    per = collect(rs.evaluate(reco, metric, columns=MS, features=features, per_query=True))
    assert per.sort_values("UserId")["value"].tolist() == pytest.approx([0.5, 0.5, 0.5], abs=TOL)
    assert rs.evaluate(reco, metric, columns=MS, features=features)["value"].iloc[0] == pytest.approx(0.5, abs=TOL)


def test_recommenders_spark_novelty_of_one_item_and_item_novelty(spark):
    train, reco, _ = ms_frames(spark)
    # test_novelty, second part: train and recommendations of item 3 only -> novelty 0
    from pyspark.sql import functions as F

    one = reco.filter("ItemId == 3").withColumn("rank", F.lit(1))
    got = rs.evaluate(one, "Novelty(like='recommenders')", columns=MS, train=train.filter("ItemId == 3"))
    assert got["value"].iloc[0] == 0
    # test_item_novelty: historical_item_novelty = [3.0, 3.0, 2.0, 1.41504, 3.0] for items 1..5; a list of one item
    # per user gives each item's value
    lists = to_spark(spark, pd.DataFrame({"UserId": [1, 2, 3, 4, 5], "ItemId": [1, 2, 3, 4, 5], "rank": 1}))
    metric = "Novelty(like='recommenders', aggregate='per_list')"
    per = collect(rs.evaluate(lists, metric, columns=MS, train=train, per_query=True)).sort_values("UserId")
    np.testing.assert_allclose(per["value"].to_numpy(), [3.0, 3.0, 2.0, 1.41504, 3.0], atol=TOL)


# ------------------------------------------------------------------------------------------------ hostile inputs
RECS = pd.DataFrame({"query": [1, 1, 2], "item": ["a", "b", "a"], "rank": [1, 2, 1], "relevance": 0})
TRAIN = pd.DataFrame({"query": [7, 8], "item": ["a", "b"]})
FEATURES = pd.DataFrame({"item": ["a", "b"], "feature": ["x", "x"], "value": [1.0, 2.0]})


def _message(call) -> str:
    with pytest.raises(ParameterError) as e:
        call()
    return str(e.value)


@pytest.mark.parametrize(
    ("metric", "kw"),
    [
        ("ARP", {"train": TRAIN.rename(columns={"item": "doc"})}),  # a train table without the item column
        ("Novelty", {"train": TRAIN.assign(item=[1, 2])}),  # ids of another kind than the table's
        ("ARP", {"train": TRAIN.assign(weight=[1.0, -1.0])}),
        ("ARP", {"train": TRAIN.assign(weight=["1", "2"])}),
        ("Gini", {"catalog": pd.DataFrame({"x": ["a"], "y": ["b"]})}),
        ("Gini", {"catalog": pd.DataFrame({"item": [1, 2]})}),
        ("ILD", {"features": FEATURES.drop(columns="feature")}),
        ("ILD", {"features": FEATURES.assign(value=[1.0, np.inf])}),
        ("ILD", {"features": FEATURES.assign(item=["a", "a"])}),  # a pair twice
        ("Coverage@5", {}),  # a missing input
        ("Gini@2", {"catalog": ["a"], "per_query": True}),  # set-level per query
    ],
)
def test_spark_inputs_refused_with_evaluates_words(spark, metric, kw):
    sdf = to_spark(spark, RECS)
    as_spark = {k: to_spark(spark, v) if isinstance(v, pd.DataFrame) and len(v) else v for k, v in kw.items()}
    want = _message(lambda: rankframe.evaluate(RECS, metric, **kw))
    assert _message(lambda: rs.evaluate(sdf, metric, **kw)) == want  # pandas inputs: evaluate's own checks
    # Spark inputs: the same rule and words, counted on Spark (example rows are shown without pandas' row labels)
    assert _message(lambda: rs.evaluate(sdf, metric, **as_spark)).split("\n")[0] == want.split("\n")[0]


def test_spark_refuses_the_set_level_bootstrap(spark):
    # rankframe.evaluate gives a set-level metric a bootstrap interval over queries (decision 19); Spark does not yet
    with pytest.raises(ParameterError, match=r"ARP\(aggregate='rows'\): the interval of a set-level metric is a boot"):
        rs.evaluate(to_spark(spark, RECS), "ARP(aggregate='rows')", train=TRAIN, ci=0.9)
    assert rankframe.evaluate(RECS, "ARP(aggregate='rows')", train=TRAIN, ci=0.9, seed=0)["ci_low"].notna().all()


@pytest.mark.parametrize(
    ("metric", "kw", "words"),
    [
        ("ARP", {"train": TRAIN.assign(query=[7, None])}, r"train= has 1 null id\(s\) in 'query' \(find them"),
        ("Gini", {"catalog": pd.DataFrame({"item": ["a", None]})}, r"catalog= has 1 null item id\(s\)"),
        ("Gini", {"catalog": pd.DataFrame({"item": ["a", "b", "a"]})}, r"1 item id\(s\) more than once, e.g. \['a'\]"),
        ("ARP", {"train": TRAIN.assign(weight=[1.0, float("nan")])}, r"'weight' must hold finite numbers >= 0"),
    ],
)
def test_spark_frames_with_bad_rows(spark, metric, kw, words):
    # the rules that count rows, on Spark frames (row positions are pandas' words; Spark says how to find them)
    with pytest.raises(ParameterError, match=words):
        rs.evaluate(to_spark(spark, RECS), metric, **{k: to_spark(spark, v) for k, v in kw.items()})


def test_mixed_ids_and_bad_types(spark):
    sdf = to_spark(spark, RECS)
    with pytest.raises(ParameterError, match="neither numbers nor text"):  # a pandas catalog of mixed ids
        rs.evaluate(sdf, "Coverage", catalog=["a", 1])
    with pytest.raises(ParameterError, match="'catalog' parameter of evaluate must be a sequence"):
        rs.evaluate(sdf, "Coverage", catalog="abc")
    numbers = to_spark(spark, RECS.assign(item=[1, 2, 1]))
    with pytest.raises(ParameterError, match=r"are text \(e.g. 'a'\) but those .* are numbers \(e.g. 1\)"):
        rs.evaluate(numbers, "ARP", train=to_spark(spark, TRAIN))  # Spark train of text ids, a table of numbers


# ---------------------------------------------------------------------------------------------------- compare
def test_compare_of_the_per_list_metrics_equals_rankframe_compare(spark):
    # the per-list metrics' per-query values take the paired t-test as they are: rankframe.spark.compare equals
    # rankframe.compare (tests/rung2_oracles/test_compare_beyond.py holds that one to scipy), per segment, with an
    # accuracy metric; train= and features= as Spark frames
    from test_spark_compare import assert_same_comparison

    runs = paired_runs(5, n_queries=10)
    train, _ = inputs_for(runs, 5)
    features = features_for(runs, 5)
    metrics = ["ARP@5", "Novelty(like='recommenders', aggregate='per_list')", "ILD@4", "AP"]
    kw = {"train": train, "features": features}
    got = rs.compare(
        to_spark(spark, runs), metrics, baseline="base", by="seg", **{k: to_spark(spark, v) for k, v in kw.items()}
    )
    want = rankframe.compare(runs, metrics, baseline="base", by="seg", **kw)
    assert_same_comparison(got, want, ["seg", "metric", "system"])


def test_compare_refuses_the_set_level_metrics_and_anova_the_family():
    runs = pd.concat([RECS.assign(system="a"), RECS.assign(system="b")])
    words = "rankframe.spark.compare tests per-query differences, and a set-level metric has no value per query"
    with pytest.raises(RankframeError, match=words):
        rs.compare(runs, ["Gini@2"], system="system", baseline="a", catalog=["a", "b"])
    with pytest.raises(ParameterError, match="ARP@2 needs train="):
        rs.compare(runs, ["ARP@2"], system="system", baseline="a")
    with pytest.raises(ParameterError, match=words):  # issue 33: the true reason, not per_query=True
        rs.compare(runs, ["ARP(aggregate='rows')@2"], system="system", baseline="a", train=TRAIN)
    with pytest.raises(RankframeError, match="not served by rankframe.spark.anova"):
        rs.anova(runs, ["ARP@2"], system="system")
