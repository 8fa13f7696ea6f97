"""The df.rank_metrics namespace: return shapes, column names said once, dtypes, segments."""

from __future__ import annotations

import inspect
import pydoc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankframe


def table() -> pd.DataFrame:
    # q1: R N R (+1 judged relevant not retrieved) ; q2: N R ; two countries
    return pd.DataFrame(
        {
            "query": [1, 1, 1, 1, 2, 2],
            "item": [10, 11, 12, 13, 10, 14],
            "rank": [1, 2, 3, None, 1, 2],
            "relevance": [1, 0, 2, 1, 0, 1],
            "country": ["de", "de", "de", "de", "fr", "fr"],
        }
    )


# AP by hand: q1 relevant = {10, 12, 13}: (1/1 + 2/3) / 3 = 5/9 ; q2: (1/2) / 1 = 1/2
AP1, AP2 = 5 / 9, 1 / 2


def test_method_returns_float_mean():
    assert table().rank_metrics.ap() == pytest.approx((AP1 + AP2) / 2)


def test_an_alias_method_warns_and_gives_the_canonical_value():
    # deprecated (CHANGELOG): aliases are metric strings, not methods; df.rank_metrics.map answers for one release,
    # with a FutureWarning naming the canonical method and the metric string
    df = table()
    with pytest.warns(FutureWarning, match=r"df\.rank_metrics\.ap\(\).*'map'"):
        value = df.rank_metrics.map()
    assert value == pytest.approx((AP1 + AP2) / 2)  # AP1, AP2 by hand above
    assert value == df.rank_metrics.ap() == df.rank_metrics.evaluate(["map"])["value"].iloc[0]
    with pytest.warns(FutureWarning, match=r"\.rr\(\)"):
        assert df.rank_metrics.mrr(by="country").equals(df.rank_metrics.rr(by="country"))


def test_every_alias_method_is_its_metric_s_method():
    from rankframe.accessor import _ALIASES

    rm = table().rank_metrics
    assert len(_ALIASES) == 22, sorted(_ALIASES)
    for alias, (spelling, spec) in _ALIASES.items():
        with pytest.warns(FutureWarning, match=f"'{spelling}'"):
            method = getattr(rm, alias)
        assert method.__func__ is getattr(type(rm), spec.name), alias
        assert spelling in spec.aliases, alias  # the message names a metric string of the same metric


def test_dir_shows_one_method_per_metric():
    # 57 names before the aliases left the namespace (22 alias methods), 35 after: the 27 metrics and 8 verbs
    names = [n for n in dir(table().rank_metrics) if not n.startswith("_")]
    assert len(names) == 35, names
    assert {"ap", "rr", "ndcg", "evaluate", "compare"} <= set(names)
    assert not {"map", "mrr", "recip_rank", "success"} & set(names)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        table().rank_metrics.nope  # noqa: B018


def test_by_returns_series_per_segment():
    s = table().rank_metrics.ap(by="country")
    assert isinstance(s, pd.Series) and s.name == "AP"
    assert s.to_dict() == pytest.approx({"de": AP1, "fr": AP2})


def test_per_query_indexed_by_segment_and_query():
    s = table().rank_metrics.ap(by=["country"], per_query=True)
    assert list(s.index.names) == ["country", "query"]
    assert s.loc[("de", 1)] == pytest.approx(AP1)


def test_k_positional_and_label():
    s = table().rank_metrics.precision(2, per_query=True)
    assert s.name == "P@2" and s.tolist() == [0.5, 0.5]


def test_evaluate_tidy_frame_stable_columns(engine):
    df = table()
    out = df.rank_metrics.evaluate(["map@10", "nDCG@10", "P@5", "R@100", "RR", "ERR@20"], engine=engine)
    assert list(out.columns) == ["metric", "value", "n"]
    assert out["metric"].tolist() == ["AP@10", "nDCG@10", "P@5", "R@100", "RR", "ERR@20"]
    per = df.rank_metrics.evaluate(["AP", "RR"], by="country", per_query=True, engine=engine)
    assert list(per.columns) == ["country", "query", "metric", "value"]
    assert len(per) == 4


def test_column_names_said_once_per_chain():
    df = table().rename(columns={"query": "user_id", "item": "movie_id", "rank": "position", "relevance": "rating"})
    rm = df.rank_metrics(query="user_id", item="movie_id", rank="position", relevance="rating")
    assert rm.ap() == pytest.approx((AP1 + AP2) / 2)
    out = rm.evaluate(["AP"], per_query=True)
    assert "user_id" in out.columns
    cols = rankframe.Columns(query="user_id", item="movie_id", rank="position", relevance="rating")
    assert rankframe.evaluate(df, "AP", columns=cols)["value"].item() == pytest.approx((AP1 + AP2) / 2)


def test_accessor_is_stateless():
    df = table()
    df.rank_metrics(query="nope")  # a configured copy must not leak into the next access
    assert df.rank_metrics.ap() == pytest.approx((AP1 + AP2) / 2)


@pytest.mark.parametrize("backend", ["numpy", "numpy_nullable", "pyarrow"])
def test_dtype_backends(backend):
    df = table()
    if backend != "numpy":
        df = df.convert_dtypes(dtype_backend=backend)
    assert df.rank_metrics.ap() == pytest.approx((AP1 + AP2) / 2)
    assert df.rank_metrics.ap(by="country").to_dict() == pytest.approx({"de": AP1, "fr": AP2})


def test_string_ids_and_categorical_segments():
    df = table().astype({"query": str, "item": str, "country": "category"})
    s = df.rank_metrics.ap(by="country", per_query=True)
    assert s.loc[("fr", "2")] == pytest.approx(AP2)


def test_score_instead_of_rank_uses_trec_eval_ties():
    # equal scores: trec_eval order is item id descending as strings, so "9" comes before "10"
    df = pd.DataFrame({"query": 1, "item": ["10", "9"], "score": [0.5, 0.5], "relevance": [1, 0]})
    assert df.rank_metrics.rr() == pytest.approx(1 / 2)


def test_rank_wins_over_score():
    df = table().assign(score=[0.0, 0.0, 9.0, np.nan, 0.0, 9.0])
    assert df.rank_metrics.ap() == pytest.approx((AP1 + AP2) / 2)


def test_qrels_argument_equals_single_table(engine):
    df = table()
    run = df[df["rank"].notna()].drop(columns="relevance")
    qrels = df[["query", "item", "relevance"]]
    a = rankframe.evaluate(df, ["AP", "nDCG", "R@2", "Bpref"], per_query=True, engine=engine)
    b = rankframe.evaluate(run, ["AP", "nDCG", "R@2", "Bpref"], per_query=True, qrels=qrels, engine=engine)
    pd.testing.assert_frame_equal(a.drop(columns=[]), b)


def test_unknown_keyword_names_known_ones():
    with pytest.raises(rankframe.UnknownMetricError, match="denominator"):
        table().rank_metrics.ap(k=3, denominatr="min_k")


def test_mean_over_empty_selection_is_nan():
    df = table().assign(relevance=np.nan)  # nothing judged: every query skipped
    assert np.isnan(df.rank_metrics.ap())


def test_compare_through_the_accessor_equals_the_function():
    df = pd.read_parquet(Path(__file__).resolve().parents[2] / "examples" / "paired.parquet")
    via_accessor = df.rank_metrics.compare(["AP", "nDCG@10"], baseline="bm25", by="length")
    direct = rankframe.compare(df, ["AP", "nDCG@10"], baseline="bm25", by="length")
    pd.testing.assert_frame_equal(via_accessor, direct)
    assert set(direct["system"]) == {"dense", "hybrid"} and (direct["baseline"] == "bm25").all()


# ---------------------------------------------------------------------------------------------------------
# the metric methods: real signatures, and every evaluate option passed on

#: evaluate's options a metric method passes on: every keyword of evaluate but the table, the metrics and the two
#: the method names itself (by, per_query)
OPTIONS = [p for p in inspect.signature(rankframe.evaluate).parameters if p not in ("df", "metrics", "by", "per_query")]
MEAN = (AP1 + AP2) / 2  # 19/36


def with_query(extra: dict) -> pd.DataFrame:
    """table() plus a query 3 of one row."""
    return pd.concat([table(), pd.DataFrame({"query": [3], "country": ["de"], **extra})], ignore_index=True)


def _case_columns():
    return table().rename(columns={"query": "q"}).rank_metrics.ap(columns={"query": "q"}), MEAN


def _case_qrels():
    t = table()
    run = t[t["rank"].notna()].drop(columns="relevance")
    return run.rank_metrics.ap(qrels=t[["query", "item", "relevance"]]), MEAN  # item 13: judged, not retrieved


def _case_qrels_columns():
    t = table()
    run = t[t["rank"].notna()].drop(columns="relevance")
    qrels = t[["query", "item", "relevance"]].rename(columns={"item": "doc"})
    return run.rank_metrics.ap(qrels=qrels, qrels_columns={"item": "doc"}), MEAN


def _case_validate():
    return table().rank_metrics.ap(validate=False), MEAN


def _case_engine():
    return table().rank_metrics.ap(engine="duckdb"), MEAN


def _case_allow_duplicates():
    t = pd.concat([table(), table().iloc[[4]].assign(rank=3)], ignore_index=True)  # q2's item 10 again, grade 0
    with pytest.raises(rankframe.ValidationError):
        t.rank_metrics.ap()
    return t.rank_metrics.ap(allow_duplicates=True), MEAN  # a non-relevant row at rank 3 leaves q2's AP at 1/2


def _case_ci():
    got = table().rank_metrics.ap(ci=0.9)
    sem = stats.sem([AP1, AP2])
    low, high = stats.t.interval(0.9, 1, loc=MEAN, scale=sem)
    return list(got[["value", "n", "std_err", "ci_low", "ci_high"]]), [MEAN, 2, sem, low, high]


def _case_agg():
    return table().rank_metrics.ap(agg="sum"), AP1 + AP2


def _case_n_resamples():  # passed on: evaluate's own check (the set-level metrics' bootstrap; AP keeps its t interval)
    with pytest.raises(rankframe.ParameterError, match="'n_resamples' parameter of evaluate"):
        table().rank_metrics.ap(ci=0.9, n_resamples=0)
    return table().rank_metrics.ap(n_resamples=5), MEAN


def _case_seed():  # passed on: evaluate's own check
    with pytest.raises(rankframe.ParameterError, match="'seed' parameter of evaluate"):
        table().rank_metrics.ap(seed=-1)
    return table().rank_metrics.ap(seed=3), MEAN


def _case_no_relevant():  # query 3: one judged item, not relevant (default 'zero' would count a 0)
    return with_query({"item": [20], "rank": [1], "relevance": [0]}).rank_metrics.ap(no_relevant="skip"), MEAN


def _case_no_retrieved():  # query 3: relevant, nothing retrieved (default 'zero' would count a 0)
    return with_query({"item": [21], "rank": [np.nan], "relevance": [1]}).rank_metrics.ap(no_retrieved="skip"), MEAN


def _case_no_judged():  # query 3: retrieved, nothing judged (default 'skip' would leave it out)
    return with_query({"item": [22], "rank": [1], "relevance": [np.nan]}).rank_metrics.ap(no_judged="zero"), (
        (AP1 + AP2) / 3
    )


def _case_duckdb_config():  # passed on: evaluate's own answer (DuckDB's settings are for a path or a relation)
    with pytest.raises(rankframe.ParameterError, match="duckdb_config= sets DuckDB's memory"):
        table().rank_metrics.ap(duckdb_config={"threads": 1})
    return MEAN, MEAN


def _case_output():
    got = table().rank_metrics.ap(by="country", output="arrow")
    assert got.column_names == ["country", "AP"]
    return got.to_pydict(), {"country": ["de", "fr"], "AP": [AP1, AP2]}


def _case_progress():
    with pytest.raises(rankframe.ParameterError, match="'progress' parameter must be True, False or None"):
        table().rank_metrics.ap(progress="yes")
    return table().rank_metrics.ap(progress=False), MEAN


def _case_train():  # passed on: evaluate's own answer (train= is read by the beyond-accuracy metrics, not AP: left alone, issue 33)
    return table().rank_metrics.ap(train=table()), MEAN


def _case_catalog():  # passed on: evaluate's own answer (catalog= is read by Coverage and Gini, not AP: left alone, issue 33)
    return table().rank_metrics.ap(catalog=[10, 11]), MEAN


def _case_features():  # passed on: evaluate's own answer (features= is read by ILD, not AP: left alone, issue 33)
    return table().rank_metrics.ap(features=table()), MEAN


@pytest.mark.parametrize("option", OPTIONS)
def test_every_evaluate_option_through_a_shortcut(option):
    case = globals().get(f"_case_{option}")
    assert case is not None, f"evaluate has an option {option!r}: add a _case_{option} to this test"
    got, want = case()
    if isinstance(want, dict):
        assert got.keys() == want.keys() and got["country"] == want["country"]
        assert got["AP"] == pytest.approx(want["AP"])
    else:
        assert got == pytest.approx(want)


def test_metric_methods_have_real_signatures_and_docstrings():
    from rankframe.measures.registry import METRICS

    for spec in METRICS:
        method = getattr(pd.DataFrame.rank_metrics, spec.name)
        sig = inspect.signature(method)
        names = list(sig.parameters)
        own = [p.name for p in spec.params]
        assert names[0] == "self" and sorted(names[1 : 1 + len(own)]) == sorted(own), spec.name
        assert names[1 + len(own) :] == ["by", "per_query", *OPTIONS], spec.name
        for p in spec.params:
            assert sig.parameters[p.name].default == p.default
        first = sig.parameters[names[1]] if own else None
        if first is not None and first.name == spec.at:  # k (IPrec's recall) is the one positional argument
            assert first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert all(sig.parameters[n].kind is inspect.Parameter.KEYWORD_ONLY for n in names[2:])
        assert sig.parameters["progress"].default is None and sig.parameters["engine"].default == "pandas"
        for option in ["by", "per_query", *OPTIONS]:
            assert option in method.__doc__, (spec.name, option)
    text = pydoc.render_doc(pd.DataFrame.rank_metrics.ndcg, renderer=pydoc.plaintext)
    assert "ndcg(self, k=None, *, rel=None, gain='linear'" in text and "progress" in text
