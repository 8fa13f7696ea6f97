"""``rankframe.sql.render`` on a real PostgreSQL 15: the statement equals ``rankframe.evaluate``, and each
portability trap is held by a hand case that fails when its handling is removed.

The fixture starts a throwaway cluster (tests/postgres_cluster.py: a temporary folder, a unix socket only, an ICU
``en-US`` default collation, the hostile case for the item tie-break) and stops it at teardown; without
PostgreSQL's binaries the tests skip, saying so.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pandas as pd
import postgres_cluster
import pytest
from conftest import hypothesis_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from portable_cases import (
    BEYOND,
    BEYOND_CALIBRATION,
    BEYOND_FEATURES,
    BEYOND_LISTS,
    BEYOND_SERENDIPITY,
    METRICS,
    POLICY_SETS,
    assert_same,
    expected,
    features_for,
    inputs_for,
    order_by_of,
    paired_runs,
)
from strategies import SMALL_GRADES, by_of, tables

import rankframe
import rankframe.sql

psycopg = pytest.importorskip("psycopg", reason="psycopg (the test extra) runs the SQL on PostgreSQL")
#: one cluster per run (conftest postgres_socket), every test of the tier on one xdist worker (tests/tiers.py)
pytestmark = pytest.mark.warehouse


@pytest.fixture(scope="module")
def pg(postgres_socket) -> Iterator[object]:
    """A connection to a database of this module's own on the run's PostgreSQL cluster (unix socket only)."""
    home = postgres_socket
    dbname = postgres_cluster.database(home, "rf_warehouse")
    with psycopg.connect(
        host=home, user=postgres_cluster.USER, dbname=dbname, autocommit=True, prepare_threshold=None
    ) as con:
        yield con


def _pg_type(s: pd.Series) -> str:
    if pd.api.types.is_integer_dtype(s):
        return "BIGINT"
    if pd.api.types.is_float_dtype(s):
        return "DOUBLE PRECISION"
    return "TEXT"


def _load(con, df: pd.DataFrame, table: str = "runs") -> None:
    con.execute(f'DROP TABLE IF EXISTS "{table}"')
    con.execute(f'CREATE TABLE "{table}" (' + ", ".join(f'"{c}" {_pg_type(df[c])}' for c in df.columns) + ")")
    rows = [
        tuple(None if (isinstance(v, float) and math.isnan(v)) or v is None else v for v in rec)
        for rec in df.astype(object).itertuples(index=False)
    ]
    if rows:
        with con.cursor() as cur:
            marks = ", ".join(["%s"] * len(df.columns))
            cur.executemany(f'INSERT INTO "{table}" VALUES ({marks})', rows)


def _query(con, sql: str) -> pd.DataFrame:
    with con.cursor() as cur:
        cur.execute(sql)
        names = [d.name for d in cur.description]
        return pd.DataFrame(cur.fetchall(), columns=names)


@settings(max_examples=hypothesis_examples(8), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=tables(grades=SMALL_GRADES, dtypes=False), per_query=st.booleans(), policies=st.sampled_from(POLICY_SETS))
def test_postgres_equals_evaluate(pg, df, per_query, policies):
    by = by_of(df)
    _load(pg, df)
    sql = rankframe.sql.render(
        METRICS, dialect="postgres", by=by, per_query=per_query, order_by=order_by_of(df), **policies
    )
    assert_same(expected(df, METRICS, by, per_query, policies), _query(pg, sql))


# ------------------------------------------------------------------------------ the traps, one hand case each


def test_null_scores_are_not_retrieved(pg):
    # Postgres sorts NULL first under DESC: a NULL score must be the judged-not-retrieved branch, not position 1.
    # Ranking by score: b (2.0, grade 0), c (1.0, grade 1); a (NULL, grade 1) judged, not retrieved.
    # P@1 = 0 (b); RR = 1/2 (c at 2); R = 1/2 (c of a, c); P = 1/2 (2 retrieved)
    df = pd.DataFrame({"query": ["q"] * 3, "item": list("abc"), "score": [None, 2.0, 1.0], "relevance": [1, 0, 1]})
    _load(pg, df)
    got = _query(pg, rankframe.sql.render(["P@1", "RR", "R", "P"], dialect="postgres", order_by="score"))
    assert got["value"].tolist() == pytest.approx([0.0, 0.5, 0.5, 0.5], abs=1e-12)
    assert got["n"].tolist() == [1, 1, 1, 1]


def test_tie_break_is_byte_order_whatever_the_collation(pg):
    # three tied scores; trec_eval's order is item descending by bytes: b (0x62), a (0x61), B (0x42). Only b is
    # relevant: RR = 1. The database's ICU en-US collation sorts a < b < B, descending B b a: RR would be 1/2.
    df = pd.DataFrame({"query": ["q"] * 3, "item": ["B", "a", "b"], "score": [1.0, 1.0, 1.0], "relevance": [0, 0, 1]})
    _load(pg, df)
    got = _query(pg, rankframe.sql.render(["RR", "P@1"], dialect="postgres", order_by="score"))
    assert got["value"].tolist() == [1.0, 1.0]
    # the database does reorder them (else this test would prove nothing)
    icu = _query(pg, "SELECT item FROM runs ORDER BY item DESC")["item"].tolist()
    assert icu == ["B", "b", "a"]


def test_ratios_are_float_division(pg):
    # one hit in the top 2 of a 3-item list, two relevant: P@2 = 1/2, R@2 = 1/2, Rprec = 1/2 (hits at <= 2);
    # integer division (Postgres bigint / bigint) would give 0 for each
    df = pd.DataFrame({"query": [7, 7, 7], "item": [1, 2, 3], "rank": [1, 2, 3], "relevance": [1, 0, 1]})
    _load(pg, df)
    got = _query(pg, rankframe.sql.render(["P@2", "R@2", "Rprec"], dialect="postgres"))
    assert got["value"].tolist() == [0.5, 0.5, 0.5]


def test_logarithms_are_ln_ratios(pg):
    # DCG with log_base 3 of grades 1, 2 at positions 1, 2: 1 / log3(2) + 2 / log3(3) = 1.584962500721156 + 2.
    # Postgres' two-argument log() takes numerics only and LOG's argument order differs between dialects:
    # the statement writes LN(i + 1) / LN(b)
    df = pd.DataFrame({"query": [1, 1], "item": ["x", "y"], "rank": [1, 2], "relevance": [1, 2]})
    _load(pg, df)
    sql = rankframe.sql.render(["DCG(log_base=3)", "nDCG"], dialect="postgres")
    got = _query(pg, sql)
    assert "LOG(" not in sql.upper()
    # nDCG: DCG = 1 + 2/log2(3) = 2.26186; ideal 2 then 1: 2 + 1/log2(3) = 2.63093
    assert got["value"].tolist() == pytest.approx(
        [math.log(3) / math.log(2) + 2, (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))], abs=1e-12
    )


def test_postgres_paired_t_equals_compare(pg):
    # the comparison statement on a real PostgreSQL: rankframe.compare(test="t")'s statistics, per segment
    df = paired_runs(11)
    _load(pg, df)
    got = _query(pg, rankframe.sql.render_compare(["AP", "nDCG@10", "P@5"], baseline="base", by="seg"))
    want = rankframe.compare(df, ["AP", "nDCG@10", "P@5"], baseline="base", by="seg", test="t")
    m = want.merge(got, on=["seg", "metric", "system", "baseline"], suffixes=("", "_pg"))
    assert len(m) == len(want) == len(got) == 12
    for c in ["n", "mean", "baseline_mean", "delta", "sd_diff", "statistic", "df"]:
        np.testing.assert_allclose(m[f"{c}_pg"].astype(float), m[c].astype(float), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------ the beyond-accuracy metrics


@settings(max_examples=hypothesis_examples(6), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_postgres_beyond_equals_evaluate(pg, df, seed, per_query):
    # train= and catalog= as tables (cold items, weights 0), with accuracy metrics in the same statement
    by = by_of(df)
    train, catalog = inputs_for(df, seed)
    for name, frame in (("runs", df), ("train", train), ("catalog", catalog)):
        _load(pg, frame, name)
    metrics = [*BEYOND_LISTS, "AP"] if per_query else [*BEYOND, "nDCG@3"]
    inputs = {"train": train} if per_query else {"train": train, "catalog": catalog}
    sql = rankframe.sql.render(
        metrics,
        dialect="postgres",
        by=by,
        per_query=per_query,
        order_by=order_by_of(df),
        train_weight="weight",
        **{k: k for k in inputs},
    )
    assert_same(rankframe.evaluate(df, metrics, by=by, per_query=per_query, **inputs), _query(pg, sql))


def test_tail_tie_break_is_the_ids_order_whatever_the_collation(pg):
    # APLT(like='recbole'): the int(0.1 * 10) = 1 least popular train item, ties by item id (RecBole, rankframe's
    # sorted ids: byte order for text). Train items B, a, b (1 interaction each) and seven popular ones: the tail
    # is B (0x42 < 0x61 < 0x62). The database's ICU en-US collation sorts a < b < B: the tail would be a.
    # Lists: q1 = [B] -> 1, q2 = [a] -> 0: APLT = 1/2 with q1's tail item (ICU would give q1 0, q2 1: also 1/2),
    # so per query: q1 = 1.0, q2 = 0.0
    popular = [f"p{i}" for i in range(7)]
    train = pd.DataFrame(
        {"query": ["u"] * 3 + ["u", "v"] * 7, "item": ["B", "a", "b"] + [p for p in popular for _ in "uv"]}
    )
    df = pd.DataFrame({"query": ["q1", "q2"], "item": ["B", "a"], "rank": [1, 1]})
    _load(pg, df)
    _load(pg, train, "train")
    sql = rankframe.sql.render(["APLT(like='recbole')"], dialect="postgres", per_query=True, train="train")
    got = _query(pg, sql)
    assert got["value"].tolist() == [1.0, 0.0]
    assert rankframe.evaluate(df, ["APLT(like='recbole')"], per_query=True, train=train)["value"].tolist() == [1.0, 0.0]
    icu = _query(pg, "SELECT item FROM train WHERE item IN ('B', 'a', 'b') GROUP BY item ORDER BY item")["item"]
    assert icu.tolist() == ["a", "b", "B"]  # the database does reorder them (else this test would prove nothing)


def test_beyond_ratios_are_float_division(pg):
    # integer ids, integer counts: Coverage@1 = 1 covered / 2 catalog items = 0.5; ARP@2 = (1 + 0) / 2 = 0.5;
    # Gini@1 over 2 items, counts 0, 1: (2*2 - 3) * 1 / (2 * 1) = 0.5. Integer division would give 0 each
    df = pd.DataFrame({"query": [7, 7], "item": [1, 2], "rank": [1, 2]})
    train = pd.DataFrame({"query": [3], "item": [1]})
    catalog = pd.DataFrame({"item": [1, 2]})
    for name, frame in (("runs", df), ("train", train), ("catalog", catalog)):
        _load(pg, frame, name)
    sql = rankframe.sql.render(["Coverage@1", "ARP@2", "Gini@1"], dialect="postgres", train="train", catalog="catalog")
    assert _query(pg, sql)["value"].tolist() == [0.5, 0.5, 0.5]


@settings(max_examples=hypothesis_examples(4), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_postgres_ild_equals_evaluate(pg, df, seed, per_query):
    # ILD from a features= table (cosine, Hamming) and from train= (co-occurrence), every option of the cases
    by = by_of(df)
    train, _ = inputs_for(df, seed)
    features = features_for(df, seed)
    for name, frame in (("runs", df), ("train", train), ("features", features)):
        _load(pg, frame, name)
    by_features = [m for m in BEYOND_FEATURES if "cooccurrence" not in m and "recommenders" not in m]
    by_train = [m for m in BEYOND_FEATURES if m not in by_features]
    for asked, inputs, extra in (
        (by_features, {"features": features}, {"features": "features", "features_value": "value"}),
        (by_train, {"train": train}, {"train": "train", "train_weight": "weight"}),
    ):
        sql = rankframe.sql.render(
            asked, dialect="postgres", by=by, per_query=per_query, order_by=order_by_of(df), **extra
        )
        assert_same(rankframe.evaluate(df, asked, by=by, per_query=per_query, **inputs), _query(pg, sql))


@settings(max_examples=hypothesis_examples(4), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_postgres_calibration_equals_evaluate(pg, df, seed, per_query):
    # each query's history (train=, weights with 0) x features= (zeros, unknown items); every option of the cases,
    # Infinity (alpha=0) included
    by = by_of(df)
    train, _ = inputs_for(df, seed)
    features = features_for(df, seed)
    for name, frame in (("runs", df), ("train", train), ("features", features)):
        _load(pg, frame, name)
    sql = rankframe.sql.render(
        BEYOND_CALIBRATION,
        dialect="postgres",
        by=by,
        per_query=per_query,
        order_by=order_by_of(df),
        train="train",
        train_weight="weight",
        features="features",
        features_value="value",
    )
    want = rankframe.evaluate(df, BEYOND_CALIBRATION, by=by, per_query=per_query, train=train, features=features)
    assert_same(want, _query(pg, sql))


def test_postgres_calibration_hand_case(pg):
    # history a (x), b (y); list a, c (x, x): p = (1/2, 1/2), q = (1, 0); alpha = 0: KL = inf (Infinity in
    # PostgreSQL); Steck's alpha 0.01: q~ = (0.995, 0.005), KL = (log2 100 - log2 1.99) / 2
    df = pd.DataFrame({"query": [1, 1], "item": ["a", "c"], "rank": [1, 2]})
    train = pd.DataFrame({"query": [1, 1], "item": ["a", "b"]})
    features = pd.DataFrame({"item": ["a", "b", "c"], "feature": ["x", "y", "x"]})
    for name, frame in (("runs", df), ("train", train), ("features", features)):
        _load(pg, frame, name)
    sql = rankframe.sql.render(
        ["Calibration", "Calibration(alpha=0)"], dialect="postgres", train="train", features="features"
    )
    got = _query(pg, sql)["value"].astype(float).tolist()
    assert got[0] == pytest.approx((math.log2(100) - math.log2(1.99)) / 2, abs=1e-12)
    assert got[1] == math.inf


@settings(max_examples=hypothesis_examples(4), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(df=tables(grades=SMALL_GRADES, dtypes=False), seed=st.integers(0, 10_000), per_query=st.booleans())
def test_postgres_serendipity_equals_evaluate(pg, df, seed, per_query):
    # Serendipity reads relevance, train= (history, popularity ranks), features= and catalog=: every option
    by = by_of(df)
    train, catalog = inputs_for(df, seed)
    features = features_for(df, seed)
    for name, frame in (("runs", df), ("train", train), ("catalog", catalog), ("features", features)):
        _load(pg, frame, name)
    sql = rankframe.sql.render(
        BEYOND_SERENDIPITY,
        dialect="postgres",
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
    assert_same(want, _query(pg, sql))


# ------------------------------------------------------------------------------ the intent-aware family (issue 38)


def _intent_cases():
    """The seeded tables and measures of tests/sql/test_intent_sql.py (read from that file)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent / "test_intent_sql.py"
    spec = importlib.util.spec_from_file_location("rf_pg_intent_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _intent_depth(qrels: pd.DataFrame) -> int:
    return int(qrels[qrels["relevance"] >= 1].groupby("query")["item"].nunique().max())


@pytest.mark.slow
@pytest.mark.parametrize("per_query", [True, False])
def test_postgres_intent_equals_evaluate(pg, per_query):
    """The intent-aware family's statement on PostgreSQL equals evaluate (pandas) to 1e-12: tied scores (the greedy
    ideal's and the run's tie-break by bytes under the ICU collation), @k and whole lists, every preset, a segment,
    a judged query the run does not mention, non-default policies."""
    cases = _intent_cases()
    run, qrels = cases.random_case(2, n_queries=5)
    run = run.assign(group=np.where(run["query"].isin(["q1", "q3"]), "x", "y"))
    metrics = [m for m in cases.MEASURES if "alpha=0.0" not in m][:34]
    _load(pg, run, "runs")
    _load(pg, qrels, "qrels")
    policies = {"no_relevant": "nan", "no_retrieved": "zero"}
    sql = rankframe.sql.render(
        metrics, dialect="postgres", by="group", per_query=per_query, order_by="score", qrels="qrels",
        ideal_depth=_intent_depth(qrels), **policies,
    )  # fmt: skip
    want = rankframe.evaluate(run, metrics, qrels=qrels, by="group", per_query=per_query, **policies)
    assert_same(want, _query(pg, sql))


def test_postgres_intent_ties_are_byte_order(pg):
    """Items B, a, b tie: the run's order is b, a, B (bytes, descending; ICU en-US would give B b a) and the greedy
    ideal's tie (one subtopic each, gain 1) goes to the largest id by bytes, b. Only b and B are relevant, to s1 and
    s2: the run covers s1 at 1 and s2 at 3; the ideal b (1), B (1).
    alpha_nDCG@2 = (1 + 0 / log2 3) / (1 + 1 / log2 3); StRecall@1 = 1/2."""
    run = pd.DataFrame({"query": ["q"] * 3, "item": ["B", "a", "b"], "score": [1.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query": ["q", "q"], "subtopic": ["s1", "s2"], "item": ["b", "B"], "relevance": [1, 1]})
    _load(pg, run, "runs")
    _load(pg, qrels, "qrels")
    sql = rankframe.sql.render(["alpha_nDCG@2", "StRecall@1"], dialect="postgres", order_by="score", qrels="qrels")
    got = _query(pg, sql)["value"].astype(float).tolist()
    assert got == pytest.approx([1 / (1 + 1 / math.log2(3)), 0.5], abs=1e-12)
