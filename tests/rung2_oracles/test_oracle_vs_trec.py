"""The oracle (tests/oracle.py) against pytrec_eval, i.e. trec_eval: the oracle is only trusted after this."""

from __future__ import annotations

import math

import oracle
import pytest
import strategies as S
from conftest import REAL_MEASURES, hypothesis_examples, load_real, long_table, trec_dicts, with_level
from hypothesis import given, settings

TREC_MEASURES = [m for m in S.all_measures(k_values=(None, 1, 3, 5, 20)) if S.trec_measure(m)]


def _oracle_by_key(df, measures, **policies):
    res = oracle.evaluate(df, measures, by=S.by_of(df), per_query=True, **policies)
    got: dict = {}
    for rec in res.to_dict("records"):
        got.setdefault(rec["metric"], {})[S.qkey(rec.get("seg"), rec["query"])] = rec["value"]
    return got


def _check(expected: dict, got: dict, context=""):
    assert expected, "pytrec_eval returned nothing to compare"
    for m, vals in expected.items():
        assert set(vals) == set(got.get(m, {})), f"{context} {m}: queries {sorted(vals)} vs {sorted(got.get(m, {}))}"
        bad = {q: (v, got[m][q]) for q, v in vals.items() if not math.isclose(v, got[m][q], abs_tol=1e-12)}
        assert not bad, f"{context} {m}: (trec_eval, oracle) differ on {bad}"


def test_trec_measure_set_covers_every_trec_metric():
    names = {S.trec_measure(m)[0].split(".")[0] for m in TREC_MEASURES}
    assert names == {
        *("P", "recall", "map", "map_cut", "recip_rank", "ndcg", "ndcg_cut", "Rprec", "bpref", "success"),
        *("iprec_at_recall", "infAP", "set_P", "set_recall", "set_F", "set_map"),  # issue 12's measures
    }


@settings(max_examples=hypothesis_examples(60))
@given(df=S.tables())
def test_oracle_equals_pytrec_eval_on_random_tables(df):
    # pytrec_eval skips queries with nothing retrieved (no -c) and queries without judgments
    qrels, run = S.to_trec(df)
    _check(S.pytrec_values(qrels, run, TREC_MEASURES), _oracle_by_key(df, TREC_MEASURES, no_retrieved="skip"))


def test_oracle_tie_break_is_trec_evals():
    # scores tie; trec_eval orders docno descending as strings: "b" > "a", "9" > "10" > "007"
    import pandas as pd

    df = pd.DataFrame(
        {
            "query": "q",
            "item": ["a", "b", "10", "9", "007"],
            "score": [1.0, 1.0, 2.0, 2.0, 2.0],
            "relevance": [1, 0, 0, 1, 0],
        }
    )
    qd = oracle.build_queries(df)[("q",)]
    assert qd.ranked == [1.0, 0.0, 0.0, 0.0, 1.0]  # 9, 10, 007, b, a
    qrels, run = S.to_trec(df)
    _check(
        S.pytrec_values(qrels, run, ["RR", "AP", "P@1", "nDCG@3"]),
        _oracle_by_key(df, ["RR", "AP", "P@1", "nDCG@3"], no_retrieved="skip"),
    )


@pytest.mark.parametrize(
    "name", ["trec_eval_test", "trec_eval_rel_level", "compat", "robust03_MU03rob01", "robust03_NLPR03vb10"]
)
def test_oracle_equals_pytrec_eval_on_real_data(shared_data, name):
    run, qrels, level = load_real(shared_data, name)
    measures = [with_level(m, level) for m in REAL_MEASURES]
    q, r = trec_dicts(run, qrels)
    _check(
        S.pytrec_values(q, r, measures),
        _oracle_by_key(long_table(run, qrels), measures, no_retrieved="skip"),
        context=name,
    )
