"""The beyond-accuracy family on the DuckDB engine and in its SQL table macros equals the pandas kernels (issue 21).

The pandas kernels (rankframe/beyond/) are the reference: their values are held to hand derivations and the peers'
published fixtures (tests/rung1_hand/test_beyond_hand.py, tests/rung2_oracles/test_beyond_peers.py, which runs on
both engines). Here every option value and both presets are compared, to 1e-12, on random tables with segments,
cold items (recommended, never in train), train rows of weight 0, ties of score, unranked rows and short lists;
and the SQL table macros ``rf_<name>`` (a SQL user's call, options resolved in SQL from the generated declarations)
give the rows of ``rankframe.evaluate``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from faces import macro_connection
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe
import rankframe.sql
from rankframe.beyond import sqlgen
from rankframe.core import constraints
from rankframe.measures.registry import BEYOND

K = 3


def _variants() -> list[str]:
    """Each metric with its defaults, each preset, and each value of each option (one at a time)."""
    out = []
    for spec in BEYOND:
        out.append(f"{spec.canonical}@{K}")
        out += [f"{spec.canonical}(like={peer!r})@{K}" for peer in spec.presets]
        for p in spec.params:
            if p.name in ("k", "like"):
                continue
            rule = p.constraint
            if rule.values() is not None:  # a choice's other values, a flag's other one
                values = [c for c in rule.values() if c != p.default]
            elif isinstance(rule, constraints.Threshold):
                values = [0.5, 2.0]
            else:
                values = {
                    constraints.BASE: [math.e, 10.0],
                    constraints.NONNEGATIVE: [0.0, 0.5, 2.0],
                    constraints.UNIT: [0.0, 0.5, 1.0],
                }[rule]
            out += [f"{spec.canonical}({p.name}={v!r})@{K}" for v in values]
    out.append("Novelty(list_denominator='k', cold='zero')@2")
    out.append("APLT(tail_rule='count', tail=1.0, cold='drop')@2")
    out.append("Gini(universe='train', denominator='n-1', complement=True)")
    return out


VARIANTS = _variants()


def _inputs(seed: int, n_queries: int = 6, scores: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, list[int]]:
    """A random table (2 segments, lists of 0-5 rows, an unranked row now and then, grades), train= and catalog=."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(n_queries):
        n = int(rng.integers(0, 6))
        items = rng.choice(12, size=n, replace=False)  # items 10 and 11: in no train row and no catalog (cold)
        for r, item in enumerate(items):
            ranked = rng.random() > 0.1
            score = float(rng.choice([0.5, 1.0, 2.0]))  # ties of score: broken by item id as text
            grade = float(rng.choice([0.0, 1.0, 2.0, np.nan]))  # read by Serendipity alone
            rows.append(
                ("ab"[q % 2], f"q{q}", int(item), r + 1 if ranked else np.nan, score if ranked else np.nan, grade)
            )
    recs = pd.DataFrame(rows, columns=["segment", "query", "item", "rank", "score", "relevance"])
    recs = recs.drop(columns="score" if not scores else "rank")
    n_train = int(rng.integers(1, 25))
    train = pd.DataFrame(
        {
            "query": [f"q{q}" for q in rng.integers(0, 8, size=n_train)],  # some of the lists' queries (histories)
            "item": rng.integers(0, 10, size=n_train),
            "weight": rng.choice([0.0, 1.0, 2.5], size=n_train),
        }
    )
    catalog = sorted({int(i) for i in rng.choice(10, size=int(rng.integers(1, 10)), replace=False)})
    return recs, train, catalog


#: features= of items 0..10 (item 11 and item 7 have no row: unknown), values with ties and zeros (Hamming's cases)
FEATURES = pd.DataFrame(
    [(i, f"f{f}", float((i * 7 + f * 3) % 4)) for i in range(11) if i != 7 for f in range(5) if (i + f) % 3],
    columns=["item", "feature", "value"],
)


def _kw(metric: str, train: pd.DataFrame, catalog: list[int]) -> dict:
    measure = rankframe.names.parse(metric)
    needed = measure.spec.needed(measure.kw)
    inputs = (("train", train), ("catalog", catalog), ("features", FEATURES))
    return {name: value for name, value in inputs if name in needed}


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_dtype=False, rtol=0, atol=1e-12)


@pytest.mark.quick_sample(15)  # the quick loop: 15 of the option values (tests/tiers.py)
@pytest.mark.parametrize("metric", VARIANTS)
def test_duckdb_engine_equals_pandas_for_every_option_value(metric):
    recs, train, catalog = _inputs(11)
    kw = _kw(metric, train, catalog)
    # with segments (the random tables and the SQL macros' test below take the table without segments too)
    want = rankframe.evaluate(recs, metric, by="segment", **kw)
    _same(rankframe.evaluate(recs, metric, by="segment", engine="duckdb", **kw), want)


@settings(max_examples=hypothesis_examples(4), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    metrics=st.lists(st.sampled_from(VARIANTS), min_size=1, max_size=3, unique=True),
    scores=st.booleans(),
    segments=st.booleans(),
)
def test_duckdb_engine_equals_pandas_on_random_tables(seed, metrics, scores, segments):
    recs, train, catalog = _inputs(seed, scores=scores)
    kw: dict = {}
    for m in metrics:
        kw.update(_kw(m, train, catalog))
    by = ["segment"] if segments else []
    want = rankframe.evaluate(recs, metrics, by=by, **kw)
    _same(rankframe.evaluate(recs, metrics, by=by, engine="duckdb", **kw), want)
    per_list = [m for m in metrics if not rankframe.engines.beyond_engine.is_set_level(rankframe.names.parse(m))]
    if per_list:
        kw_q: dict = {}
        for m in per_list:
            kw_q.update(_kw(m, train, catalog))
        want_q = rankframe.evaluate(recs, per_list, by=by, per_query=True, **kw_q)
        _same(rankframe.evaluate(recs, per_list, by=by, per_query=True, engine="duckdb", **kw_q), want_q)


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


def _sql_call(spec, options: dict, segments: bool, given: dict, k: int | None = K) -> str:
    args = "".join(f", {name} := '{name}'" for name in given)
    args += ", segments := ['segment']" if segments else ""
    args += "" if k is None else f", k := {k}"
    for name, value in options.items():
        args += f", {name} := " + ("'" + value + "'" if isinstance(value, str) else repr(value).lower())
    return f"SELECT * FROM rf_{spec.name}('recs'{args})"


CASES = [(spec, like) for spec in BEYOND for like in (None, *spec.presets)]


@pytest.mark.quick_sample(1, per="spec")  # the quick loop: each metric's macro with one of its presets (tests/tiers.py)
@pytest.mark.parametrize(("spec", "like"), CASES, ids=[f"{s.name}-{like}" for s, like in CASES])
def test_the_sql_macros_give_the_rows_of_evaluate(con, spec, like):
    recs, train, catalog = _inputs(5)
    con.register("recs", recs)
    con.register("train", train)
    con.register("catalog", pd.DataFrame({"item": catalog}))
    con.register("features", FEATURES)
    metric = f"{spec.canonical}@{K}" if like is None else f"{spec.canonical}(like={like!r})@{K}"
    kw = _kw(metric, train, catalog)
    for segments in (False, True):
        want = rankframe.evaluate(recs, metric, by=["segment"] if segments else [], **kw)
        got = con.execute(_sql_call(spec, {} if like is None else {"like": like}, segments, kw)).df()
        assert list(got["metric"]) == [f"{spec.canonical}@{K}"] * len(want)  # the label: name and cutoff
        _same(got.drop(columns="metric"), want.drop(columns="metric"))


def test_the_generated_option_blocks_are_current():
    # sql/<name>.sql's rf__<name>_options is generated from the declaration (python -m rankframe.beyond.sqlgen)
    for spec in BEYOND:
        text = sqlgen.sql_path(spec).read_text(encoding="utf-8")
        assert sqlgen.rewritten(spec, text) == text, f"sql/{spec.name}.sql: run python -m rankframe.beyond.sqlgen"
    # and sql/beyond.sql's input checks from rankframe/beyond/input_rules.py
    text = sqlgen.inputs_path().read_text(encoding="utf-8")
    assert sqlgen.inputs_rewritten(text) == text, "sql/beyond.sql: run python -m rankframe.beyond.sqlgen"
