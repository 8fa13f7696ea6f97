"""rankframe.spark.evaluate equals the pandas engine (the oracle for other engines' parity) to 1e-12: every metric
and option of the registry on random tables, the real TREC data, queries split across partitions, a skewed
segment, a 100k-row query."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import strategies as S
from conftest import hypothesis_examples, load_real, long_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sparkutil import assert_same_rows, collect, session, to_spark

import rankframe
import rankframe.spark as rs

pytestmark = [
    pytest.mark.spark,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]
SUPPRESS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
FIVE = ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10"]
POLICIES = [
    {},
    {"no_relevant": "nan", "no_retrieved": "skip", "no_judged": "zero"},
    {"no_relevant": "skip", "no_retrieved": "nan", "no_judged": "nan"},
]


@pytest.fixture(scope="module")
def spark():
    return session()


def max_grades(df: pd.DataFrame) -> tuple[int, ...]:
    g = df["relevance"].dropna()
    top = int(g.max()) if len(g) else 0
    return (max(4, top),)


def check(spark, df, metrics, by=None, engine="pandas", ci=None, means_via_evaluate=False, **kw):
    """Per-query values and means (with intervals) on Spark against rankframe.evaluate on the same frame.

    The per-query Spark frame is computed once (cached) and its means come from rankframe.spark.means, so each
    call runs one grouped-pandas job; ``means_via_evaluate`` also runs evaluate's own means path.
    """
    sdf = to_spark(spark, df)
    per = rs.evaluate(sdf, metrics, by=by, per_query=True, engine=engine, **kw).cache()
    got = collect(per)
    expected = rankframe.evaluate(df, metrics, by=by, per_query=True, **kw)
    keys = [*(by or []), "query", "metric"]
    assert_same_rows(got, expected, keys, msg=f"per query {engine} {kw}\n{df}")
    if means_via_evaluate:
        means = rs.evaluate(sdf, metrics, by=by, engine=engine, ci=ci, **kw)
    else:
        means = rs.means(per, metrics, by=by, ci=ci)
    per.unpersist()
    exp_means = rankframe.evaluate(df, metrics, by=by, ci=ci, **kw)
    cols = ["value", "n"] + (["std_err", "ci_low", "ci_high"] if ci else [])
    assert_same_rows(means, exp_means, [*(by or []), "metric"], cols=cols, msg=f"means {engine} {kw}")
    # the order of the means frame is the pandas engine's (segments sorted, nulls last; metrics as asked)
    assert means["metric"].tolist() == exp_means["metric"].tolist()


@settings(max_examples=hypothesis_examples(2), deadline=None, suppress_health_check=SUPPRESS)
@given(df=S.tables(max_queries=4), policy=st.sampled_from(POLICIES))
def test_every_metric_and_option_equals_pandas(spark, df, policy):
    # every metric x every choice of every parameter x several cutoffs in one Spark job per example
    metrics = S.all_measures(k_values=(None, 1, 3), max_grades=max_grades(df), p_values=(0.8,))
    check(spark, df, metrics, by=S.by_of(df), ci=0.9, **policy)


def test_other_aggregations(spark):
    # agg= gmean (trec_eval's gm_map), median, sum: same means as rankframe.evaluate
    df = _gen_like(9, 6, 6).assign(seg=lambda d: d["query"] % 2)
    per = rs.evaluate(to_spark(spark, df), ["AP", "RR@3"], by="seg", per_query=True).cache()
    for agg in ["gmean", "median", "sum"]:
        got = rs.means(per, ["AP", "RR@3"], by="seg", agg=agg)
        expected = rankframe.evaluate(df, ["AP", "RR@3"], by="seg", agg=agg)
        assert_same_rows(got, expected, ["seg", "metric"], cols=["value", "n"], msg=agg)


def test_several_systems_with_duplicates_allowed(spark):
    # several systems as segments, a repeated (query, item) row kept with allow_duplicates (at distinct ranks)
    df = pd.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "query": ["q1", "q1", "q1", "q2"] * 2,
            "item": ["x", "x", "y", "x", "y", "z", "x", "x"],
            "rank": [1, 2, 3, 1, 1, 2, 3, None],
            "relevance": [1, 1, 0, 2, 0, None, 1, 3],
        }
    )
    check(spark, df, ["AP", "nDCG@2", "ERR", "P@2", "Judged@3"], by=["system"], allow_duplicates=True)


def test_real_trec_data_every_metric(spark, shared_data):
    run, qrels, _ = load_real(shared_data, "robust03_pircRBa1")
    queries = sorted(set(run["query"]))[:12]
    df = long_table(run[run["query"].isin(queries)], qrels)
    df = df[df["query"].isin(queries)].reset_index(drop=True)  # retrieved and judged-unretrieved rows
    metrics = S.all_measures(k_values=(None, 10, 100), max_grades=(max(4, int(df["relevance"].max())),))
    check(spark, df, metrics)


def _gen_like(n_queries: int, depth: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), depth)
    rank = np.tile(np.arange(1, depth + 1), n_queries).astype(float)
    rel = np.where(rng.random(q.size) < 0.2, rng.integers(1, 4, q.size), 0)
    rank[rng.random(q.size) < 0.05] = np.nan  # judged, not retrieved
    df = pd.DataFrame({"query": q, "item": np.tile(np.arange(depth), n_queries), "rank": rank, "relevance": rel})
    df["rank"] = df.groupby("query")["rank"].rank()  # ranks 1..n among the retrieved rows
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def test_query_split_across_partitions_and_buckets(spark):
    # rows of each query scattered over 7 input partitions; 1 and 64 buckets give the pandas numbers
    df = _gen_like(40, 25, 1)
    sdf = to_spark(spark, df).repartition(7)
    assert sdf.rdd.getNumPartitions() == 7
    expected = rankframe.evaluate(df, FIVE, per_query=True)
    for buckets in (1, 64):
        got = collect(rs.evaluate(sdf, FIVE, per_query=True, buckets=buckets))
        assert_same_rows(got, expected, ["query", "metric"], msg=f"buckets={buckets}")


def test_skewed_segment(spark):
    # one segment holds 90% of the queries
    df = _gen_like(60, 12, 2)
    df["segment"] = np.where(df["query"] < 54, "big", df["query"].map(lambda q: f"s{q % 3}"))
    check(spark, df, FIVE + ["ERR@5"], by=["segment"], ci=0.95, means_via_evaluate=True)


def test_query_with_100k_rows(spark):
    big = _gen_like(1, 100_000, 3)
    small = _gen_like(5, 10, 4).assign(query=lambda d: d["query"] + 1)
    df = pd.concat([big, small], ignore_index=True)
    check(spark, df, ["AP", "nDCG@1000", "R@50000", "RR", "P@100"])


def test_readme_spark_block_runs_as_written(spark, monkeypatch):
    # the README's Spark section: a plain ```python block on the bundled data with a local session (its
    # getOrCreate() returns the shared session here); tests/project/test_docs.py leaves blocks importing pyspark to
    # this test. Its means equal the pandas engine's on the same file.
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    section = (root / "README.md").read_text(encoding="utf-8").split("## On Spark", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
    assert len(blocks) == 1 and "pyspark" in blocks[0], "the README's Spark section has one fenced ```python block"
    namespace: dict = {"__name__": "readme_spark"}
    exec(compile(blocks[0], "README.md Spark block", "exec"), namespace)  # noqa: S102 - our own README
    local = rankframe.evaluate(pd.read_parquet(root / "examples" / "recs.parquet"), ["nDCG@10", "AP@10"], by="country")
    means = namespace["means"]
    assert means["n"].tolist() == local["n"].tolist()
    assert (means["value"] - local["value"]).abs().max() < 1e-12
    assert sorted(namespace["per_query"].columns) == ["country", "metric", "query", "value"]


def test_docs_spark_transcripts_run_as_written(spark, monkeypatch):
    # docs/spark.md's examples are >>> transcripts (tests/project/test_docs.py leaves them to their page's test): run them
    # here, with the shared session, from the repository root
    import doctest
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)
    text = (root / "docs" / "spark.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 2
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    globs: dict = {}
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, globs, f"docs/spark.md block {i}", "docs/spark.md", 0)
        runner.run(test, clear_globs=False)
        globs = test.globs  # the next block sees this one's names (get_doctest copies the dict)
    assert runner.failures == 0
