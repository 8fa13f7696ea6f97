"""SQL vs pandas engine (1e-12) on hypothesis tables, and the scalar list macros vs the independent oracle."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest
from conftest import hypothesis_examples
from faces import macro_connection
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import build_queries, compare_frames, metric_value
from strategies import all_measures, by_of, tables

import rankframe
from rankframe.core.declare import SCORE_PARAMS
from rankframe.core.errors import RankframeError
from rankframe.measures.names import Measure, parse

MEASURES = all_measures(max_grades=(50,))
POLICY = st.sampled_from(["zero", "nan", "skip"])


def _run(df, metrics, engine, **kw):
    try:
        return rankframe.evaluate(df, metrics, engine=engine, **kw), None
    except RankframeError as e:  # a duckdb.Error (or any other exception) escaping is a failure of the test
        return None, e


@settings(max_examples=hypothesis_examples(12))
@given(df=tables(), seed=st.integers(0, 2**32 - 1), nr=POLICY, nre=POLICY, nj=POLICY, per_query=st.booleans())
def test_engine_parity_with_pandas(df, seed, nr, nre, nj, per_query):
    metrics = random.Random(seed).sample(MEASURES, 20)
    by = by_of(df)
    kw = dict(by=by, per_query=per_query, no_relevant=nr, no_retrieved=nre, no_judged=nj)
    want, want_err = _run(df, metrics, "pandas", **kw)
    got, got_err = _run(df, metrics, "duckdb", **kw)
    assert (want_err is None) == (got_err is None), f"pandas: {want_err!r}, duckdb: {got_err!r}"
    if want is None:  # both engines refuse the table: with the same exception and the same message
        assert type(got_err) is type(want_err) and str(got_err) == str(want_err), (want_err, got_err)
        return
    keys = [*(by or []), *(["query"] if per_query else []), "metric"]
    assert list(got.columns) == list(want.columns)
    compare_frames(got, want, keys, context="duckdb vs pandas", missing_is_nan=not per_query)
    if per_query:  # same rows in the same order
        assert [tuple(map(str, r)) for r in got[keys].itertuples(index=False)] == [
            tuple(map(str, r)) for r in want[keys].itertuples(index=False)
        ]


def _scalar_call(m) -> str:
    """The cookbook form: rf_<name>(grades, <data args>, param := value, ...)."""
    from rankframe.engines.duckdb_engine import _literal

    data = m.spec.sql_data_args  # declared beside the metric (rankframe/metrics/<name>.py)
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
    args = [
        a.replace("grades", "coalesce(list(rf_g ORDER BY rf_pos) FILTER (WHERE rf_pos IS NOT NULL), [])")
        if a == "grades"
        else a
        for a in args
    ]
    args += [f"{n} := {_literal(v)}" for n, v in m.params if n not in SCORE_PARAMS]  # (ties: needs the scores)
    return f"rf_{m.spec.name}({', '.join(args)})"


@settings(max_examples=hypothesis_examples(6))
@given(df=tables(grades=st.integers(-1, 4)), seed=st.integers(0, 2**32 - 1))
def test_scalar_list_macros_match_oracle(df, seed):
    # the list macros see grades in rank order, not scores: ties='average' is the engines' and the table macros'
    # (its SQL recipe for the aggregates is held to scikit-learn in tests/rung2_oracles/test_ties.py)
    listed = [m for m in all_measures(max_grades=(4,)) if "ties='average'" not in m]
    measures = [parse(m) for m in random.Random(seed).sample(listed, 25)]
    by = by_of(df) or []
    order_by = "rank" if "rank" in df.columns else "score"
    con = macro_connection()
    con.register("t", df)
    segs = "[" + ", ".join(f"'{b}'" for b in by) + "]"
    keys = ", ".join([*by, "query"])
    cols = ", ".join(f"{_scalar_call(m)} AS m{i}" for i, m in enumerate(measures))
    res = con.execute(
        f"SELECT {keys}, {cols} FROM rf_prepare('t', segments := {segs}, order_by := '{order_by}') GROUP BY ALL"
    ).df()
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
    df = pd.DataFrame(
        {
            "seg": ["A"] * 4 + ["B"] * 3,
            "query": [1, 1, 1, 1, 1, 2, 2],
            "item": ["a", "b", "c", "d", "a", "b", "c"],
            "rank": [1, 2, 3, None, 2, 1, None],
            "relevance": [1, 0, 2, 1, 0, None, 3],
        }
    )
    con = macro_connection()
    con.register("t", df)
    wide = con.execute("FROM rf_per_query('t', k := 3, segments := ['seg']) ORDER BY seg, query").df()
    means = con.execute("FROM rf_means('t', k := 3, segments := ['seg'])").df()
    con.register("a_only", df[df.seg == "A"].drop(columns="seg"))
    overall = con.execute("FROM rf_means('a_only', k := 3)").df()
    con.close()
    # every column of the table macros (declared table_column) at k := 3 where the metric has a cutoff
    names = {
        spec.canonical: str(Measure.of(spec, **({"k": 3} if any(p.name == "k" for p in spec.params) else {})))
        for spec in rankframe.METRICS
        if spec.table_column
    }
    per_q = rankframe.evaluate(df, list(names.values()), by="seg", per_query=True)
    mean = rankframe.evaluate(df, list(names.values()), by="seg")
    glob = rankframe.evaluate(df[df.seg == "A"].drop(columns="seg"), list(names.values()))
    for col, label in names.items():
        exp = per_q[per_q.metric == label].sort_values(["seg", "query"])["value"].tolist()
        assert wide[col].tolist() == pytest.approx(exp, rel=1e-12, abs=1e-12, nan_ok=True), col
        exp = mean[mean.metric == label].sort_values("seg")["value"].tolist()
        assert means[col].tolist() == pytest.approx(exp, rel=1e-12, abs=1e-12, nan_ok=True), col
        assert overall[col].tolist() == pytest.approx(glob[glob.metric == label]["value"].tolist(), rel=1e-12)


# ------------------------------------------------------------------------------------------------------------------
# rf_per_query against rankframe.evaluate(..., per_query=True) across every option of the table macros: a seeded
# grid of small random tables, each with its own option values (before this test the table macros were only
# compared at the default parameters, and rf_per_query ignoring `gain` passed every SQL test).

OPTIONS = {
    "k": [None, 1, 3, 10],
    "rel": [1, 2, 0.5],
    "graded_rel": [None, 1, 2.5],
    "gain": ["linear", "exponential"],
    "ideal": ["judged", "retrieved"],
    "max_grade": [4, 5, 7],
    "p": [0.8, 0.5, 0.95],
    "p_denominator": ["k", "retrieved"],
    "r_denominator": ["relevant", "min_k"],
    "ap_denominator": ["relevant", "min_k", "retrieved"],
    "beta": [1.0, 0.25, 4.0],
    "log_base": [2.0, 10.0, 1.5],
    "gains": [None, {0: 0, 1: 1, 2: 3, 3: 7}, {1: 5.5, -1: 2}],
    "judged_only": [False, True],
    "ties": ["first", "average"],
    "no_relevant": ["zero", "nan", "skip"],
    "no_retrieved": ["zero", "nan", "skip"],
    "no_judged": ["skip", "zero", "nan"],
    "order_by": ["rank", "score", "position"],
    "segments": [[], ["seg"], ["seg", "seg2"]],
    "allow_duplicates": [False, False, True],
    # last: the options above keep the draws they had before these came (each option draws in turn)
    "residual": [False, True, True],
    "tail": ["cwl", "trec_eval", "trectools"],
}
N_CASES = 30


def grid_case(i: int) -> dict:
    """Option values of case i: each option cycles through its values at its own pace (seeded shuffle)."""
    rng = random.Random(1000 + i)
    case = {name: values[(i + rng.randrange(len(values))) % len(values)] for name, values in OPTIONS.items()}
    case["seed"] = i
    return case


def grid_table(case: dict) -> pd.DataFrame:
    """A small table for the case: every unit kind (normal, nothing relevant, nothing retrieved, no judgments)."""
    rng = random.Random(case["seed"])
    units = [()]
    for seg, values in (("seg", ["A", "B"]), ("seg2", ["x", "y"])):
        if seg in case["segments"]:
            units = [(*u, v) for u in units for v in values]
    grades = [None, None, -1, 0, 0, 1, 1, 1.5, 2, 3, 4]
    rows = []
    for unit in units:
        for query in rng.sample([1, 2, 3, 4, 5], 3):
            kind = rng.choice(["normal", "normal", "normal", "nothing_relevant", "nothing_retrieved", "no_judgments"])
            n_ret = 0 if kind == "nothing_retrieved" else rng.randint(1, 7)
            n_unret = rng.randint(1, 3) if kind == "nothing_retrieved" else rng.randint(0, 2)
            items = [f"i{j}" for j in rng.sample(range(30), n_ret + n_unret)]
            if case["allow_duplicates"] and n_ret >= 2:
                items[1] = items[0]  # a repeated (unit, item) among the retrieved rows
            ranks = (
                list(range(1, n_ret + 1)) if case["order_by"] == "position" else sorted(rng.sample(range(1, 25), n_ret))
            )
            for j, item in enumerate(items):
                g = rng.choice(grades)
                if kind == "no_judgments":
                    g = None
                elif kind == "nothing_relevant" and g is not None:
                    g = min(g, 0)
                row = dict(zip(("seg", "seg2"), unit))
                row.update(query=query, item=item, relevance=g)
                if case["order_by"] == "score":
                    row["score"] = float(rng.choice([0.1, 0.2, 0.2, 0.5, 0.9])) if j < n_ret else None
                else:
                    row["rank"] = ranks[j] if j < n_ret else None
                rows.append(row)
    rng.shuffle(rows)
    df = pd.DataFrame(rows)
    df["relevance"] = df["relevance"].astype("float64")
    return df


def grid_metrics(case: dict) -> dict[str, str]:
    """rf_per_query column -> the metric string with the same parameters (as rankframe.evaluate labels it)."""
    out = {}
    for spec in rankframe.METRICS:  # each parameter under its declared table-macro name (sql_table_params)
        if spec.table_column:
            # like: a preset the table macros do not take (their options are shared: they take its values)
            given = {p.name: case[spec.table_param(p.name)] for p in spec.params if p.name != "like"}
            out[spec.canonical] = str(Measure.of(spec, **given))
    return out


def grid_sql_args(case: dict) -> str:
    def lit(v):
        if v is None:
            return "NULL"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return f"'{v}'"
        if isinstance(v, list):
            return "[" + ", ".join(map(lit, v)) + "]"
        if isinstance(v, dict):
            return "MAP {" + ", ".join(f"{lit(g)}: {lit(x)}" for g, x in v.items()) + "}"
        return repr(v)

    names = [n for n in OPTIONS if n != "allow_duplicates" or case[n]]
    return ", ".join(f"{n} := {lit(case[n])}" for n in names)


@pytest.fixture(scope="module")
def grid_con():
    c = macro_connection()
    yield c
    c.close()


def test_the_grid_covers_every_option_value():
    for name, values in OPTIONS.items():
        seen = [grid_case(i)[name] for i in range(N_CASES)]
        assert all(v in seen for v in values), (name, values, seen)


@pytest.mark.quick_sample(6)  # the quick loop: 6 of the option grid's cases (tests/tiers.py)
@pytest.mark.parametrize("i", range(N_CASES))
def test_table_macros_equal_the_pandas_engine_across_options(grid_con, i):
    case = grid_case(i)
    df = grid_table(case)
    metrics = grid_metrics(case)
    by = case["segments"] or None
    want = rankframe.evaluate(
        df,
        list(metrics.values()),
        by=by,
        per_query=True,
        no_relevant=case["no_relevant"],
        no_retrieved=case["no_retrieved"],
        no_judged=case["no_judged"],
        allow_duplicates=case["allow_duplicates"],
    )
    grid_con.register("t", df)
    rel = grid_con.sql(f"SELECT * FROM rf_per_query('t', {grid_sql_args(case)})")
    got = [dict(zip(rel.columns, row)) for row in rel.fetchall()]  # NULL (skipped) stays None, NaN stays NaN
    keys = [*case["segments"], "query"]

    def key(row) -> tuple:
        return tuple(str(row[c]) for c in keys)

    for col, label in metrics.items():
        sql = {key(r): r[col] for r in got if r[col] is not None}
        py = {key(r): r["value"] for r in want[want["metric"] == label].to_dict("records")}
        assert sql.keys() == py.keys(), (case, col, sorted(sql), sorted(py))
        for k, v in py.items():
            ok = (math.isnan(v) and math.isnan(sql[k])) or math.isclose(sql[k], v, rel_tol=1e-12, abs_tol=1e-12)
            assert ok, (case, col, k, sql[k], v)
