"""Properties of every metric, read from its declaration in the registry (not from hand-kept lists):
range, perfect ranking, row-order and query-relabelling invariance, the no_relevant policy, and the
run/qrels split. Every test runs on every engine."""

from __future__ import annotations

import functools
import math

import oracle
import pandas as pd
import pytest
import strategies as S
from conftest import engines_slow_on, hypothesis_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hypothesis_parity import measures_for

import rankframe
from rankframe.measures.registry import METRICS, POLICY_CHOICES

EXAMPLES = {"pandas": 40, "duckdb": 6}
SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
POLICIES = st.fixed_dictionaries(
    {p: st.sampled_from(POLICY_CHOICES) for p in ("no_relevant", "no_retrieved", "no_judged")}
)


def choice_grid(spec, k=None) -> list[str]:
    """Every combination of the spec's choice parameters, other parameters at their defaults, cutoff k."""
    # a parameter without a default (IPrec's recall level) at the levels 0, 0.5 and 1
    grids: list[dict] = [{}]
    for p in spec.params:
        if p.default is None and not p.constraint.accepts_none:  # a level in [0, 1] to give
            grids = [{**g, p.name: r} for g in grids for r in (0.0, 0.5, 1.0)]
        if p.choices:
            grids = [{**g, p.name: c} for g in grids for c in p.choices]
    return [
        str(rankframe.Measure.of(spec, k=k, **g))
        if "k" in {p.name for p in spec.params}
        else str(rankframe.Measure.of(spec, **g))
        for g in grids
    ]


def measures(draw_from: st.DataObject, df, n=6) -> list[str]:
    return draw_from.draw(
        st.lists(st.sampled_from(measures_for(df)), min_size=1, max_size=n, unique=True), label="metrics"
    )


def _run(engine, body, factor=1):
    settings(max_examples=hypothesis_examples(EXAMPLES[engine] * factor), suppress_health_check=SUPPRESS)(
        given(data=st.data())(body)
    )()


def test_bounded_metrics_stay_in_unit_interval(engine):
    bounded = {m.canonical for m in METRICS if m.bounded}
    assert bounded and bounded != {m.canonical for m in METRICS}  # the registry declares both kinds

    def body(data):
        df = data.draw(S.tables(), label="table")
        ms = measures(data, df)
        res = rankframe.evaluate(
            df, ms, engine=engine, by=S.by_of(df), per_query=True, **data.draw(POLICIES, label="policies")
        )
        for m, v in zip(res["metric"], res["value"]):
            spec = rankframe.parse(m).spec
            if spec.bounded and not math.isnan(v):
                assert -1e-12 <= v <= 1 + 1e-12, (m, v)
            if not spec.bounded and not math.isnan(v):
                assert v >= -1e-12, (m, v)  # CG, DCG, IDCG: sums of non-negative gains

    _run(engine, body)


PERFECT = [m for m in METRICS if m.perfect_is_one]


@pytest.mark.parametrize("spec", PERFECT, ids=[m.name for m in PERFECT])
def test_perfect_ranking_scores_one(engine, spec):
    # all judged items retrieved, grade-descending, from the top; each query has something relevant
    grades = (
        st.lists(st.integers(0, 4), min_size=1, max_size=8)
        .map(lambda g: g + [1])
        .map(lambda g: sorted(g, reverse=True))
    )
    metrics = choice_grid(spec)

    @settings(max_examples=hypothesis_examples(15 if engine == "pandas" else 3), suppress_health_check=SUPPRESS)
    @given(by_query=st.dictionaries(st.sampled_from(["a", "b", "007", "7"]), grades, min_size=1, max_size=3))
    def body(by_query):
        df = S.perfect_table(by_query)
        res = rankframe.evaluate(df, metrics, engine=engine, per_query=True)
        assert len(res) == len(metrics) * len(by_query)
        for m, q, v in zip(res["metric"], res["query"], res["value"]):
            assert v == pytest.approx(1.0, abs=1e-12), (m, q, by_query[q])

    body()


def test_row_order_invariance(engine):
    def body(data):
        df = data.draw(S.tables(), label="table")
        ms = measures(data, df)
        policies = data.draw(POLICIES, label="policies")
        perm = data.draw(st.permutations(range(len(df))), label="permutation")
        shuffled = df.iloc[list(perm)].reset_index(drop=True)
        by = S.by_of(df)
        keys = [*(by or []), "query", "metric"]
        a = rankframe.evaluate(df, ms, engine=engine, by=by, per_query=True, **policies)
        b = rankframe.evaluate(shuffled, ms, engine=engine, by=by, per_query=True, **policies)
        oracle.compare_frames(b, a, keys, missing_is_nan=False, context="shuffled rows")
        a = rankframe.evaluate(df, ms, engine=engine, by=by, **policies)
        b = rankframe.evaluate(shuffled, ms, engine=engine, by=by, **policies)
        oracle.compare_frames(b, a, [*(by or []), "metric"], context="shuffled rows, means")

    _run(engine, body)


def test_query_relabelling_invariance(engine):
    def body(data):
        df = data.draw(S.tables(), label="table")
        ms = measures(data, df)
        policies = data.draw(POLICIES, label="policies")
        old = sorted(df["query"].unique(), key=str)
        new = data.draw(st.permutations(range(len(old))), label="new order")
        if df["query"].dtype == object:
            mapping = {q: f"r{n:03d}" for q, n in zip(old, new)}
        else:
            mapping = {q: 5000 - 3 * n for q, n in zip(old, new)}
        relabelled = df.assign(query=df["query"].map(mapping))
        by = S.by_of(df)
        a = rankframe.evaluate(df, ms, engine=engine, by=by, per_query=True, **policies)
        b = rankframe.evaluate(relabelled, ms, engine=engine, by=by, per_query=True, **policies)
        a = a.assign(query=a["query"].map(mapping))
        oracle.compare_frames(
            b, a, [*(by or []), "query", "metric"], missing_is_nan=False, context="relabelled queries"
        )
        a = rankframe.evaluate(df, ms, engine=engine, by=by, **policies)
        b = rankframe.evaluate(relabelled, ms, engine=engine, by=by, **policies)
        oracle.compare_frames(b, a, [*(by or []), "metric"], context="relabelled queries, means")

    _run(engine, body)


def _nothing_relevant_table() -> pd.DataFrame:
    # query "a": something relevant; query "z": judged and retrieved, nothing relevant (grades 0 and -1, an
    # unjudged row, and an unretrieved grade-0 judgment)
    return pd.DataFrame(
        {
            "query": ["a", "a", "a", "z", "z", "z", "z"],
            "item": ["x", "y", "w", "x", "y", "v", "w"],
            "rank": pd.array([1, 2, None, 1, 2, 3, None], dtype="Int64"),
            "relevance": [2.0, 0.0, 1.0, 0.0, -1.0, None, 0.0],
        }
    )


def _policy_grid(spec) -> list[str]:
    return choice_grid(spec, k=3) if any(p.name == "k" for p in spec.params) else choice_grid(spec)


#: every metric's option grid, the metrics test_no_relevant_policy evaluates (read at import: the collected specs)
POLICY_GRIDS = {spec.name: _policy_grid(spec) for spec in METRICS}


@functools.cache
def _policy_results(engine: str, per_query: bool) -> dict[str, pd.DataFrame]:
    """Every metric's option grid on the nothing-relevant table, one call per policy (3 per engine and output,
    not 3 per metric and output): on DuckDB the 27 metrics' calls cost ~17 CPU-s (each call's own set-up, and nDCG's
    36 measures), one call of all 86 measures ~1.4 CPU-s. Each metric's case reads its own rows; a metric's value
    does not depend on the other metrics of its call (a window or term they share is one column, as on any call of
    several metrics)."""
    metrics = [m for grid in POLICY_GRIDS.values() for m in grid]
    df = _nothing_relevant_table()
    return {
        pol: rankframe.evaluate(df, metrics, engine=engine, per_query=per_query, no_relevant=pol)
        for pol in POLICY_CHOICES
    }


# the DuckDB cases plan every option grid of every metric 6 times (~8 CPU-s, once per process): the whole suite's;
# the quick loop holds DuckDB's policies by test_hypothesis_parity's random tables
@pytest.mark.parametrize("engine", engines_slow_on("duckdb"))
@pytest.mark.parametrize("spec", METRICS, ids=[m.name for m in METRICS])
def test_no_relevant_policy(engine, spec):
    metrics = POLICY_GRIDS[spec.name]
    try:
        results, mean_results = _policy_results(engine, True), _policy_results(engine, False)
    except Exception:  # noqa: BLE001 - the list failed: this metric's grid alone, so the failure is this metric's
        df = _nothing_relevant_table()
        results, mean_results = (
            {
                pol: rankframe.evaluate(df, metrics, engine=engine, per_query=pq, no_relevant=pol)
                for pol in POLICY_CHOICES
            }
            for pq in (True, False)
        )
    for m in metrics:
        label = str(rankframe.parse(m))
        z = {
            pol: res[(res["metric"] == label) & (res["query"] == "z")]["value"].tolist() for pol, res in results.items()
        }
        a = {
            pol: res[(res["metric"] == label) & (res["query"] == "a")]["value"].tolist() for pol, res in results.items()
        }
        assert a["zero"] == a["nan"] == a["skip"] and len(a["zero"]) == 1, (label, a)  # untouched
        if spec.needs_relevant:
            assert z["zero"] == [0.0], (label, z)
            assert len(z["nan"]) == 1 and math.isnan(z["nan"][0]), (label, z)
            assert z["skip"] == [], (label, z)
            # the mean leaves the query out under "nan" and "skip", counts 0 under "zero"
            means = {pol: dict(zip(res["metric"], res["value"]))[label] for pol, res in mean_results.items()}
            assert means["nan"] == pytest.approx(a["zero"][0], abs=1e-12), label
            assert means["skip"] == pytest.approx(a["zero"][0], abs=1e-12), label
            assert means["zero"] == pytest.approx(a["zero"][0] / 2, abs=1e-12), label
        else:
            assert z["zero"] == z["nan"] == z["skip"] and len(z["zero"]) == 1, (label, z)


def test_qrels_split_equals_single_table(engine):
    def body(data):
        df = data.draw(S.tables(segments=False), label="table")
        ms = measures(data, df)
        policies = data.draw(POLICIES, label="policies")
        per_query = data.draw(st.booleans(), label="per_query")
        order = "rank" if "rank" in df.columns else "score"
        run_cols = ["query", "item", *[c for c in ("rank", "score") if c in df.columns]]
        run = df.loc[df[order].notna(), run_cols].reset_index(drop=True)
        qrels = df.loc[df["relevance"].notna(), ["query", "item", "relevance"]].reset_index(drop=True)
        a = rankframe.evaluate(df, ms, engine=engine, per_query=per_query, **policies)
        b = rankframe.evaluate(run, ms, qrels=qrels, engine=engine, per_query=per_query, **policies)
        keys = [*(["query"] if per_query else []), "metric"]
        oracle.compare_frames(b, a, keys, missing_is_nan=not per_query, context=f"qrels= split\n{run}\n{qrels}")

    _run(engine, body)
