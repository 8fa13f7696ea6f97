"""SQL vs pandas engine (1e-12) on hypothesis tables, and the scalar list macros vs the independent oracle."""

from __future__ import annotations

import math
import random

import duckdb
import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import build_queries, compare_frames, metric_value
from strategies import all_measures, by_of, tables

import rankframe
import rankframe.sql as rf_sql
from rankframe.errors import RankframeError
from rankframe.names import parse

MEASURES = all_measures(max_grades=(50,))
POLICY = st.sampled_from(["zero", "nan", "skip"])


def _run(df, metrics, engine, **kw):
    try:
        return rankframe.evaluate(df, metrics, engine=engine, **kw), None
    except (RankframeError, duckdb.Error) as e:  # both engines must refuse the same tables
        return None, e


@settings(max_examples=hypothesis_examples(20))
@given(df=tables(), seed=st.integers(0, 2**32 - 1), nr=POLICY, nre=POLICY, nj=POLICY,
       per_query=st.booleans())
def test_engine_parity_with_pandas(df, seed, nr, nre, nj, per_query):
    metrics = random.Random(seed).sample(MEASURES, 20)
    by = by_of(df)
    kw = dict(by=by, per_query=per_query, no_relevant=nr, no_retrieved=nre, no_judged=nj)
    want, want_err = _run(df, metrics, "pandas", **kw)
    got, got_err = _run(df, metrics, "duckdb", **kw)
    assert (want_err is None) == (got_err is None), f"pandas: {want_err!r}, duckdb: {got_err!r}"
    if want is None:
        return
    keys = [*(by or []), *(["query"] if per_query else []), "metric"]
    assert list(got.columns) == list(want.columns)
    compare_frames(got, want, keys, context="duckdb vs pandas", missing_is_nan=not per_query)
    if per_query:  # same rows in the same order
        assert [tuple(map(str, r)) for r in got[keys].itertuples(index=False)] == \
               [tuple(map(str, r)) for r in want[keys].itertuples(index=False)]


def _scalar_call(m) -> str:
    """The cookbook form: rf_<name>(grades, <data args>, param := value, ...)."""
    from rankframe.engines.duckdb_engine import _literal

    data = {"recall": ["n_rel"], "ap": ["n_rel"], "r_precision": ["n_rel"], "f1": ["n_rel"],
            "bpref": ["n_rel", "n_nonrel"], "idcg": ["judged_grades"], "ndcg": ["judged_grades"],
            "nerr": ["judged_grades"]}.get(m.spec.name, [])
    kw = m.kw
    rel = kw.get("rel")
    args = ["grades"]
    for d in data:
        if d == "n_rel":
            args.append(f"count(rf_g) FILTER (WHERE rf_g >= {_literal(rel)})")
        elif d == "n_nonrel":
            args.append(f"count(rf_g) FILTER (WHERE rf_g >= 0 AND rf_g < {_literal(rel)})")
        else:
            args.append("list(rf_g) FILTER (WHERE rf_g IS NOT NULL)")
    args = [a.replace("grades", "coalesce(list(rf_g ORDER BY rf_pos) FILTER (WHERE rf_pos IS NOT NULL), [])")
            if a == "grades" else a for a in args]
    args += [f"{n} := {_literal(v)}" for n, v in m.params]
    return f"rf_{m.spec.name}({', '.join(args)})"


@settings(max_examples=hypothesis_examples(10))
@given(df=tables(grades=st.integers(-1, 4)), seed=st.integers(0, 2**32 - 1))
def test_scalar_list_macros_match_oracle(df, seed):
    measures = [parse(m) for m in random.Random(seed).sample(all_measures(max_grades=(4,)), 25)]
    by = by_of(df) or []
    order_by = "rank" if "rank" in df.columns else "score"
    con = rf_sql.install(duckdb.connect())
    con.register("t", df)
    segs = "[" + ", ".join(f"'{b}'" for b in by) + "]"
    keys = ", ".join([*by, "query"])
    cols = ", ".join(f"{_scalar_call(m)} AS m{i}" for i, m in enumerate(measures))
    res = con.sql(f"SELECT {keys}, {cols} FROM rf_prepare('t', segments := {segs}, order_by := '{order_by}') "
                  f"GROUP BY ALL").df()
    con.close()
    units = build_queries(df, by=by)
    got = {tuple(str(r[c]) for c in [*by, "query"]): r for r in res.to_dict("records")}
    assert len(got) == len(units)
    for key, qd in units.items():
        row = got[tuple(str(v) for v in key)]
        for i, m in enumerate(measures):
            want = metric_value(m.spec.name, m.kw, qd)
            assert math.isclose(row[f"m{i}"], want, rel_tol=1e-12, abs_tol=1e-12), (key, str(m), row[f"m{i}"], want)


def test_per_query_table_macro_matches_engine():
    df = pd.DataFrame({"seg": ["A"] * 4 + ["B"] * 3, "query": [1, 1, 1, 1, 1, 2, 2],
                       "item": ["a", "b", "c", "d", "a", "b", "c"], "rank": [1, 2, 3, None, 2, 1, None],
                       "relevance": [1, 0, 2, 1, 0, None, 3]})
    con = rf_sql.install(duckdb.connect())
    con.register("t", df)
    wide = con.sql("FROM rf_per_query('t', k := 3, segments := ['seg']) ORDER BY seg, query").df()
    means = con.sql("FROM rf_means('t', k := 3, segments := ['seg'])").df()
    con.register("a_only", df[df.seg == "A"].drop(columns="seg"))
    overall = con.sql("FROM rf_means('a_only', k := 3)").df()
    con.close()
    names = {"P": "P@3", "R": "R@3", "AP": "AP@3", "RR": "RR@3", "nDCG": "nDCG@3", "ERR": "ERR@3",
             "Rprec": "Rprec", "Success": "Success@3", "F1": "F1@3", "Bpref": "Bpref", "RBP": "RBP@3",
             "Judged": "Judged@3", "CG": "CG@3", "DCG": "DCG@3", "IDCG": "IDCG@3", "nERR": "nERR@3"}
    per_q = rankframe.evaluate(df, list(names.values()), by="seg", per_query=True)
    mean = rankframe.evaluate(df, list(names.values()), by="seg")
    glob = rankframe.evaluate(df[df.seg == "A"].drop(columns="seg"), list(names.values()))
    for col, label in names.items():
        exp = per_q[per_q.metric == label].sort_values(["seg", "query"])["value"].tolist()
        assert wide[col].tolist() == pytest.approx(exp, rel=1e-12, abs=1e-12, nan_ok=True), col
        exp = mean[mean.metric == label].sort_values("seg")["value"].tolist()
        assert means[col].tolist() == pytest.approx(exp, rel=1e-12, abs=1e-12, nan_ok=True), col
        assert overall[col].tolist() == pytest.approx(glob[glob.metric == label]["value"].tolist(), rel=1e-12)
