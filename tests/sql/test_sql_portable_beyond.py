"""``rankframe.sql.render`` with the beyond-accuracy metrics (Coverage, Gini, Entropy, Personalization, ARP, APLT,
Novelty; train= and catalog= as tables) on DuckDB: the one plain SELECT equals ``rankframe.evaluate`` (random tables
with cold items and weights 0, per segment, per query, mixed with accuracy metrics), parses in the other dialects
without a DuckDB-only construct, and refuses what evaluate refuses. PostgreSQL: tests/sql/test_warehouse_postgres.py.
"""

from __future__ import annotations

import math
import re

import duckdb
import pandas as pd
import pytest
import sqlglot
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from portable_cases import (
    BEYOND,
    BEYOND_CALIBRATION,
    BEYOND_FEATURES,
    BEYOND_LISTS,
    BEYOND_SERENDIPITY,
    DUCKDB_ONLY,
    assert_same,
    features_for,
    inputs_for,
    order_by_of,
)
from strategies import SMALL_GRADES, by_of, tables

import rankframe
import rankframe.sql
from rankframe.beyond.declare import BeyondSpec
from rankframe.core.errors import ParameterError, RankframeError
from rankframe.measures.registry import BEYOND as DECLARED

OTHER_DIALECTS = ["bigquery", "snowflake", "spark", "trino"]


def _run(df: pd.DataFrame, sql: str, train: pd.DataFrame | None = None, catalog: pd.DataFrame | None = None):
    con = duckdb.connect()
    con.register("runs", df)
    if train is not None:
        con.register("train", train)
    if catalog is not None:
        con.register("catalog", catalog)
    return con.execute(sql).df()


@settings(max_examples=hypothesis_examples(10))
@given(
    df=tables(grades=SMALL_GRADES, dtypes=False),
    seed=st.integers(0, 10_000),
    weighted=st.booleans(),
    accuracy=st.booleans(),
)
def test_duckdb_equals_evaluate(df, seed, weighted, accuracy):
    by = by_of(df)
    train, catalog = inputs_for(df, seed)
    if not weighted:
        train = train.drop(columns="weight")
    metrics = [*BEYOND, *(["P@2", "nDCG@3"] if accuracy else [])]
    sql = rankframe.sql.render(
        metrics,
        dialect="duckdb",
        by=by,
        order_by=order_by_of(df),
        train="train",
        catalog="catalog",
        train_weight="weight" if weighted else None,
    )
    want = rankframe.evaluate(df, metrics, by=by, train=train, catalog=catalog)
    got = _run(df, sql, train, catalog)
    assert_same(want, got)
    assert got["metric"].tolist() == want["metric"].tolist()  # evaluate's order: segment, then metric as asked


@settings(max_examples=hypothesis_examples(8))
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000))
def test_per_query_equals_evaluate(df, seed):
    by = by_of(df)
    train, _ = inputs_for(df, seed)
    metrics = [*BEYOND_LISTS, "AP"]
    sql = rankframe.sql.render(
        metrics, dialect="duckdb", by=by, per_query=True, order_by=order_by_of(df), train="train", train_weight="weight"
    )
    assert_same(rankframe.evaluate(df, metrics, by=by, per_query=True, train=train), _run(df, sql, train))


def test_hand_case():
    # two lists of the segment: q1 = a, b (ranks 1, 2), c not retrieved; q2 = a, d. train: a 3 rows (users u1, u2,
    # u3), b 1 row (u1), e 1 row (u2); d is cold. catalog = a, b, c, d, e, f (6 items).
    # Coverage@2 = |{a, b, d}| / 6 = 0.5. Gini@2 over the 6 catalog items, counts sorted 0 0 0 1 1 2 (a twice):
    # sum (2i - 7) c_(i) = (1)(1) + (3)(1) + (5)(2) = 14; / (6 * 4) = 0.583333. Entropy@2: p = 1/2, 1/4, 1/4:
    # 0.5 + 0.5 + 0.5 = 1.5 bits. Personalization@2: one pair sharing a of 2 and 2 items: cos = 1/2, 1 - 1/2 = 0.5.
    # ARP@2 (users): q1 = (3 + 1) / 2 = 2, q2 = (3 + 0) / 2 = 1.5 (d cold = 0): mean 1.75.
    # Novelty@2 (discovery, 3 train users, cold dropped): q1 = (-log2(3/3) - log2(1/3)) / 2 = 0.792481, q2 = 0:
    # mean 0.396241
    df = pd.DataFrame({"query": [1, 1, 1, 2, 2], "item": list("abcad"), "rank": [1, 2, None, 1, 2]})
    train = pd.DataFrame({"query": ["u1", "u2", "u3", "u1", "u2"], "item": list("aaabe")})
    catalog = pd.DataFrame({"item": list("abcdef")})
    metrics = ["Coverage@2", "Gini@2", "Entropy@2", "Personalization@2", "ARP@2", "Novelty@2"]
    got = _run(df, rankframe.sql.render(metrics, dialect="duckdb", train="train", catalog="catalog"), train, catalog)
    assert got["metric"].tolist() == metrics
    want = [0.5, 14 / 24, 1.5, 0.5, 1.75, math.log2(3) / 4]
    assert got["value"].tolist() == pytest.approx(want, abs=1e-12)
    assert got["n"].tolist() == [2] * 6


@settings(max_examples=hypothesis_examples(10))
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_features_metrics_equal_evaluate(df, seed, per_query):
    by = by_of(df)
    train, _ = inputs_for(df, seed)
    features = features_for(df, seed)
    metrics = [m for m in BEYOND_FEATURES if "cooccurrence" not in m and "recommenders" not in m]
    co = [m for m in BEYOND_FEATURES if m not in metrics]
    for asked, kw in ((metrics, {"features": features}), (co, {"train": train})):
        sql = rankframe.sql.render(
            asked,
            dialect="duckdb",
            by=by,
            per_query=per_query,
            order_by=order_by_of(df),
            features="features" if "features" in kw else None,
            features_value="value" if "features" in kw else None,
            train="train" if "train" in kw else None,
            train_weight="weight" if "train" in kw else None,
        )
        want = rankframe.evaluate(df, asked, by=by, per_query=per_query, **kw)
        con = duckdb.connect()
        con.register("runs", df)
        con.register("train", train)
        con.register("features", features)
        assert_same(want, con.execute(sql).df())


@settings(max_examples=hypothesis_examples(5))
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_calibration_equals_evaluate(df, seed, per_query):
    # each query's history in train= (some of the table's queries, weights with 0) x features= (zeros, unknown items)
    by = by_of(df)
    train, _ = inputs_for(df, seed)
    features = features_for(df, seed)
    sql = rankframe.sql.render(
        BEYOND_CALIBRATION,
        dialect="duckdb",
        by=by,
        per_query=per_query,
        order_by=order_by_of(df),
        train="train",
        train_weight="weight",
        features="features",
        features_value="value",
    )
    want = rankframe.evaluate(df, BEYOND_CALIBRATION, by=by, per_query=per_query, train=train, features=features)
    con = duckdb.connect()
    con.register("runs", df)
    con.register("train", train)
    con.register("features", features)
    assert_same(want, con.execute(sql).df())


@settings(max_examples=hypothesis_examples(6))
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_serendipity_equals_evaluate(df, seed, per_query):
    # the one metric reading relevance, with train= (history, popularity), features= and catalog=: every option
    by = by_of(df)
    train, catalog = inputs_for(df, seed)
    features = features_for(df, seed)
    sql = rankframe.sql.render(
        BEYOND_SERENDIPITY,
        dialect="duckdb",
        by=by,
        per_query=per_query,
        order_by=order_by_of(df),
        train="train",
        catalog="catalog",
        features="features",
        train_weight="weight",
        features_value="value",
    )
    want = rankframe.evaluate(
        df, BEYOND_SERENDIPITY, by=by, per_query=per_query, train=train, catalog=catalog, features=features
    )
    con = duckdb.connect()
    for name, frame in (("runs", df), ("train", train), ("catalog", catalog), ("features", features)):
        con.register(name, frame)
    assert_same(want, con.execute(sql).df())


def test_serendipity_hand_case():
    # Microsoft Recommenders' diversity_data (tests/unit/recommenders/evaluation/conftest.py) with its published
    # user_serendipity (test_python_evaluation.py test_user_serendipity: 0.363915, 0.53455, 0.403775; mean 0.43408)
    df = pd.DataFrame(
        {"query": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2], "rank": [1, 2, 1, 2, 1, 2],
         "relevance": [1, 0, 1, 1, 1, 0]}
    )  # fmt: skip
    train = pd.DataFrame({"query": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
    metric = "Serendipity(like='recommenders')"
    got = _run(df, rankframe.sql.render([metric], dialect="duckdb", per_query=True, train="train"), train)
    assert got["value"].tolist() == pytest.approx([0.363915, 0.53455, 0.403775], abs=1e-4)
    assert '"relevance"' in rankframe.sql.render([metric], train="train")  # the one beyond metric naming it


def test_every_declared_option_value_is_in_the_cases():
    # the case list covers every beyond-accuracy metric and every choice of every option (from the declarations)
    parsed = [rankframe.parse(m) for m in [*BEYOND, *BEYOND_FEATURES, *BEYOND_CALIBRATION, *BEYOND_SERENDIPITY]]
    for spec in DECLARED:
        if not isinstance(spec, BeyondSpec):
            continue
        seen = [m.kw for m in parsed if m.spec.name == spec.name]
        assert seen, f"{spec.canonical} is not in portable_cases.BEYOND"
        for p in spec.params:
            values = p.constraint.values() or ()  # a choice's values, a flag's two
            for v in values:
                assert any(kw.get(p.name) == v for kw in seen), f"{spec.canonical}({p.name}={v!r}) is not in the cases"


def _without_literals(sql: str) -> str:
    return re.sub(r"'(?:[^'\\]|''|\\.)*'", "''", sql)  # '' or \' inside (BigQuery escapes with a backslash)


@pytest.mark.slow  # sqlglot parses the family's whole portable SQL per dialect (~5-20 s each)
@pytest.mark.parametrize("dialect", OTHER_DIALECTS)
def test_parses_in_the_other_dialects(dialect):
    sql = rankframe.sql.render(
        [*BEYOND, *BEYOND_FEATURES, *BEYOND_CALIBRATION, *BEYOND_SERENDIPITY, "AP"],
        dialect=dialect,
        by="seg",
        train=("db", "train"),
        catalog="catalog",
        train_weight="weight",
        features="features",
        features_value="value",
    )
    sqlglot.parse_one(sql, read=dialect)
    upper = _without_literals(sql).upper()
    assert not [c for c in DUCKDB_ONLY if c in upper]
    assert " LOG(" not in upper and "PG_TYPEOF" not in upper


def test_presets_resolve_before_the_sql():
    # like='recbole' is Gini(universe='catalog', denominator='n'): the same statement as its options by name
    a = rankframe.sql.render(["Gini(like='recbole')@10"], catalog="c")
    b = rankframe.sql.render(["Gini(universe='catalog', denominator='n')@10"], catalog="c")
    assert a.replace("Gini(like=''recbole'')@10", "X") == b.replace("Gini@10", "X")


# ------------------------------------------------------------------------------ refused as evaluate refuses


def _evaluate_error(metrics, **kw) -> str:
    df = pd.DataFrame({"query": [1], "item": ["a"], "rank": [1]})
    with pytest.raises(ParameterError) as e:
        rankframe.evaluate(df, metrics, **kw)
    return str(e.value)


def test_an_input_no_metric_reads_is_left_alone():
    """issue 33: one dict of inputs serves every call; train= read by no asked metric changes nothing (as evaluate)."""
    assert rankframe.sql.render(["Coverage"], catalog="c", train="t") == rankframe.sql.render(["Coverage"], catalog="c")


@pytest.mark.parametrize(
    ("metrics", "kw"),
    [
        (["ARP@5"], {}),  # needs train=
        (["Coverage@5"], {}),  # universe='catalog' needs catalog=
        (["Gini(universe='train')"], {"catalog": "c"}),  # needs train=, and catalog= is read by no metric
        (["Gini@5", "ARP@5"], {"catalog": "c", "per_query": True}),  # set-level with per_query
        (["Novelty(list_denominator='k')"], {"train": "t"}),  # the option rules of the declaration
        (["Novelty(list_denominator='k', aggregate='rows')@5"], {"train": "t"}),
    ],
)
def test_refused_with_evaluates_words(metrics, kw):
    with pytest.raises(ParameterError) as e:
        rankframe.sql.render(metrics, **kw)
    if "Novelty" not in metrics[0]:
        frames = {"catalog": ["a"], "train": pd.DataFrame({"query": [1], "item": ["a"]})}
        assert str(e.value) == _evaluate_error(metrics, **{k: frames.get(k, v) for k, v in kw.items()})


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        ({"train": 5}, "'train'"),
        ({"train": ("db", "")}, "'train'"),
        ({"train": "t", "train_weight": 3}, "'train_weight'"),
        ({"train_weight": "weight", "catalog": "c"}, "no train= was given"),
        ({"catalog": ["a", "b"]}, "'catalog'"),  # a table name, not the ids (render cannot take data)
        ({"catalog": "c", "by": "rf__seg"}, "rf__"),
    ],
)
def test_bad_inputs_name_the_parameter(kw, words):
    kw = {"train": None, **kw}
    metrics = ["ARP@3"] if kw["train"] is not None else ["Coverage@3"]
    with pytest.raises(RankframeError) as e:
        rankframe.sql.render(metrics, **kw)
    assert words in str(e.value)


def test_a_table_without_relevance_for_the_beyond_metrics_alone():
    # the beyond-accuracy metrics never read relevance: a statement of them alone does not name the column
    df = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    sql = rankframe.sql.render(["Personalization", "Entropy"], dialect="duckdb")
    assert '"relevance"' not in sql
    got = _run(df, sql)
    assert got["value"].tolist()[1] == pytest.approx(1.0)  # two items once each: 1 bit
    assert math.isnan(got["value"].tolist()[0])  # one list: no pair
