"""rankframe (every engine) against the oracle (every metric, every option value, every query-set policy)
and against pytrec_eval (trec_eval's metrics), on random long tables from tests/strategies.py."""

from __future__ import annotations

import oracle
import pandas as pd
import pytest
import strategies as S
from conftest import engines_slow_on, hypothesis_examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import rankframe
from rankframe.measures.registry import POLICY_CHOICES

# examples per engine in the "ci" profile (scaled by hypothesis_examples for dev/thorough)
EXAMPLES = {"pandas": 200, "duckdb": 30}
METRICS_PER_EXAMPLE = {"pandas": 10, "duckdb": 5}
SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def max_grades(df: pd.DataFrame) -> tuple[int, ...]:
    """max_grade values valid for this table (a grade above max_grade is an error): 4 when it covers the
    grades, else the top grade, and a larger one."""
    g = df["relevance"].dropna()
    top = int(g.max()) if len(g) else 0
    return tuple(sorted({max(4, top), max(top, 1) + 3}))


def measures_for(df: pd.DataFrame, k_values=(None, 1, 3, 5, 20)) -> list[str]:
    return S.all_measures(k_values=k_values, max_grades=max_grades(df))


def check_against_oracle(df, metrics, engine, policies, per_query, context=""):
    by = S.by_of(df)
    kw = dict(by=by, per_query=per_query, **policies)
    got = rankframe.evaluate(df, metrics, engine=engine, **kw)
    expected = oracle.evaluate(df, metrics, **kw)
    keys = [*(by or []), *(["query"] if per_query else []), "metric"]
    oracle.compare_frames(
        got,
        expected,
        keys,
        missing_is_nan=not per_query,
        context=f"{context} engine={engine} {policies} per_query={per_query}\n{df}\n",
    )


def test_measure_grid_covers_every_declared_choice():
    grid = [rankframe.parse(m) for m in S.all_measures()]
    for spec in rankframe.METRICS:
        for p in spec.params:
            if p.choices:
                seen = {m.kw[p.name] for m in grid if m.spec is spec}
                assert seen == set(p.choices), (spec.name, p.name)


def test_random_tables_equal_oracle(engine):
    n_metrics = METRICS_PER_EXAMPLE[engine]

    @settings(max_examples=hypothesis_examples(EXAMPLES[engine]), suppress_health_check=SUPPRESS)
    @given(data=st.data())
    def run(data):
        df = data.draw(S.tables(), label="table")
        metrics = data.draw(
            st.lists(st.sampled_from(measures_for(df)), min_size=1, max_size=n_metrics, unique=True), label="metrics"
        )
        policies = {
            p: data.draw(st.sampled_from(POLICY_CHOICES), label=p) for p in ("no_relevant", "no_retrieved", "no_judged")
        }
        per_query = data.draw(st.booleans(), label="per_query")
        check_against_oracle(df, metrics, engine, policies, per_query)

    run()


# the DuckDB case plans one statement of hundreds of metrics (~30 CPU-s): the whole suite's; the quick loop holds the
# DuckDB engine to the oracle on the random tables below
@pytest.mark.parametrize("engine", engines_slow_on("duckdb"))
def test_every_measure_and_option_on_fixed_tables(engine):
    """Full grid (every metric x every choice x cutoffs x thresholds) on a few derandomized tables."""
    n = 4 if engine == "pandas" else 1
    k_values = (None, 1, 3, 20) if engine == "pandas" else (None, 3)

    # no shrinking: each example is hundreds of metrics; a failure prints the whole (small) table instead
    @settings(
        max_examples=n,
        derandomize=True,
        database=None,
        suppress_health_check=SUPPRESS,
        phases=[Phase.explicit, Phase.generate],
    )
    @given(df=S.tables(segments=True, max_queries=6))
    def run(df):
        metrics = measures_for(df, k_values)
        check_against_oracle(df, metrics, engine, {}, per_query=True)
        check_against_oracle(
            df, metrics, engine, {"no_relevant": "nan", "no_retrieved": "skip", "no_judged": "zero"}, per_query=False
        )

    run()


def test_random_tables_equal_pytrec_eval(engine):
    """trec_eval's metrics straight against pytrec_eval (no -c: no_retrieved="skip"), per query."""
    trec_metrics = [m for m in S.all_measures() if S.trec_measure(m)]

    @settings(max_examples=hypothesis_examples(EXAMPLES[engine] // 2), suppress_health_check=SUPPRESS)
    @given(data=st.data())
    def run(data):
        df = data.draw(S.tables(), label="table")
        metrics = data.draw(
            st.lists(st.sampled_from(trec_metrics), min_size=1, max_size=METRICS_PER_EXAMPLE[engine], unique=True),
            label="metrics",
        )
        qrels, trec_run = S.to_trec(df)
        expected = S.pytrec_values(qrels, trec_run, metrics)
        got = rankframe.evaluate(df, metrics, engine=engine, by=S.by_of(df), per_query=True, no_retrieved="skip")
        values: dict = {}
        for rec in got.to_dict("records"):
            values.setdefault(rec["metric"], {})[S.qkey(rec.get("seg"), rec["query"])] = rec["value"]
        for m, per_q in expected.items():
            assert set(values.get(m, {})) == set(per_q), (m, values.get(m), per_q)
            for q, v in per_q.items():
                assert values[m][q] == pytest.approx(v, abs=1e-12), (m, q)

    run()
