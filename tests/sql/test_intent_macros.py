"""The public SQL table macros of the intent-aware family: rf_intent_per_query / rf_intent_means (sql/intent.sql).

Oracle: ``rankframe.evaluate(..., engine='pandas')`` (the numpy kernels of rankframe/intent/, held to pyndeval,
ir_measures and TF-Ranking in tests/rung2_oracles/test_intent_ndeval.py and tests/rung1_hand/test_intent_hand.py):
the macros give its per-query values and means to 1e-12 on the seeded tables of tests/sql/test_intent_sql.py (tied
scores, ranks with gaps and unretrieved rows, @k, the presets, alpha/beta/rel, segments, the query-set policies), and
the same error class (through the DuckDB engine's translate_error of the rf:param / rf:table codes) on its hostile
tables. The defaults and the presets of the SQL are held to the declarations.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection
from loading import load

import rankframe
import rankframe.sql
from rankframe.core.errors import ParameterError, RankframeError, ValidationError
from rankframe.engines.duckdb_engine import translate_error
from rankframe.intent.declare import ALPHA, BETA, INFORMFULLY, REL
from rankframe.intent.lists import MAX_TERMS, series_terms
from rankframe.measures import registry

HERE = Path(__file__).resolve().parent
SQL = (HERE.parent.parent / "sql" / "intent.sql").read_text(encoding="utf-8")


def _load(path: Path):
    return load(path, "rf_intent_macros")


CASES = _load(HERE / "test_intent_sql.py")  # random_case, RUN, QRELS (the hostile tables)
SPECS = {s.canonical: s for s in registry.INTENT}
NAMES = list(SPECS)


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    yield c
    c.close()


def _sql_value(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return f"'{v}'"
    if isinstance(v, list):
        return "[" + ", ".join(_sql_value(x) for x in v) + "]"
    return repr(v)


def macro(con, name: str, run: pd.DataFrame, qrels: pd.DataFrame, **params) -> pd.DataFrame:
    # a cursor of its own: DuckDB 2 refuses work on a connection whose last result is not fetched to the end
    cur = con.cursor()
    cur.register("rf_t_run", run)
    cur.register("rf_t_qrels", qrels)
    args = "".join(f', "{k}" := {_sql_value(v)}' for k, v in params.items())
    try:
        return cur.execute(f"SELECT * FROM {name}('rf_t_run', 'rf_t_qrels'{args})").df()
    finally:
        cur.close()


def label(name: str, k=None, alpha=None, beta=None, rel=None, like=None) -> str:
    """The Python metric string of one measure at the macro's parameters (those the measure declares)."""
    declared = {p.name for p in SPECS[name].params}
    opts = []
    for pname, value in (("alpha", alpha), ("beta", beta), ("rel", rel), ("like", like)):
        if value is not None and pname in declared:
            opts.append(f"{pname}={value!r}")
    return name + (f"({', '.join(opts)})" if opts else "") + (f"@{k}" if k else "")


def parity(con, run, qrels, metrics=None, segments=(), policies=None, **params):
    """Per-query values of the macro vs evaluate(engine='pandas'), long and outer-joined; and the means."""
    names = NAMES if metrics is None else metrics
    policies = policies or {}
    order_by = "rank" if "rank" in run.columns else "score"
    asked = [label(n, **params) for n in names]
    expected = rankframe.evaluate(run, asked, qrels=qrels, by=list(segments), per_query=True, **policies)
    labels = dict(zip(pd.unique(expected["metric"]), names))
    assert len(labels) == len(names)
    expected = expected.assign(metric=expected["metric"].map(labels))
    sql_params = {k: v for k, v in params.items() if v is not None}
    got = macro(
        con,
        "rf_intent_per_query",
        run,
        qrels,
        metrics=metrics,
        segments=list(segments),
        order_by=order_by,
        **sql_params,
        **policies,
    )
    keys = [*segments, "query"]
    assert list(got.columns) == [*keys, *names]
    long = got.melt(id_vars=keys, var_name="metric", value_name="value")
    if "skip" in policies.values():  # NULL (skipped) and NaN both read as NaN: no test mixes 'skip' with 'nan'
        long = long.dropna(subset=["value"])
    for c in keys:  # the pandas frame's key dtypes (text ids as object, NaN segments)
        long[c] = long[c].astype(expected[c].dtype) if expected[c].dtype != object else long[c].astype(object)
    merged = expected.merge(long, on=[*keys, "metric"], how="outer", suffixes=("_pandas", "_sql"), indicator=True)
    assert (merged["_merge"] == "both").all(), merged[merged["_merge"] != "both"].head()
    x, y = merged["value_pandas"].to_numpy(float), merged["value_sql"].to_numpy(float)
    same = (np.abs(x - y) <= 1e-12) | (np.isnan(x) & np.isnan(y))
    assert same.all(), merged[~same].head(10)
    # the means: rf_intent_means against evaluate's mean rows (NaN left out of a mean, as rf_means)
    means = macro(
        con,
        "rf_intent_means",
        run,
        qrels,
        metrics=metrics,
        segments=list(segments),
        order_by=order_by,
        **sql_params,
        **policies,
    )
    em = rankframe.evaluate(run, asked, qrels=qrels, by=list(segments), **policies)
    em = em.assign(metric=em["metric"].map(labels))
    for name in names:
        for _, row in em[em["metric"] == name].iterrows():
            hit = means
            for s in segments:
                hit = hit[hit[s].isna()] if pd.isna(row[s]) else hit[hit[s] == row[s]]
            assert len(hit) == 1, (name, row)
            a, b = float(row["value"]), float(hit[name].iloc[0])
            assert (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-12, (name, a, b)
    return merged


GROUPS = [
    {},
    {"k": 5},
    {"k": 1},
    {"k": 3, "alpha": 0.0},
    {"alpha": 1.0, "k": 5},
    {"alpha": 0.2, "beta": 0.9},
    {"alpha": 0.9, "beta": 0.1, "k": 3},
    {"rel": 2, "k": 10},
    {"like": "ndeval", "k": 1},
    {"like": "ndeval", "k": 5},
    {"like": "ndeval"},
]


@pytest.mark.parametrize("params", GROUPS, ids=[str(g) for g in GROUPS])
def test_seeded_parity_scores(con, params):
    run, qrels = CASES.random_case(0)
    assert len(parity(con, run, qrels, **params)) > 90


@pytest.mark.parametrize("policy", ["zero", "nan", "skip"])
def test_seeded_parity_policies(con, policy):
    run, qrels = CASES.random_case(1)
    ranked = run.assign(rank=run.groupby("query").cumcount() + 1.0).drop(columns="score")
    ranked.loc[ranked["query"] == "q3", "rank"] = np.nan  # judged, nothing retrieved
    policies = {"no_relevant": policy, "no_retrieved": policy, "no_judged": policy}
    parity(con, ranked, qrels, policies=policies, k=5)
    parity(con, run, qrels, policies={"no_relevant": policy})


@pytest.mark.parametrize("like", ["tf_ranking", "ndeval", None])
def test_seeded_parity_tf_ranking(con, like):
    run, qrels = CASES.random_case(2)
    parity(con, run, qrels, metrics=["alpha_DCG", "P_IA"], like=like, k=5)
    parity(con, run, qrels, metrics=["P_IA"], like=like)


def test_seeded_parity_segments_and_ranks(con):
    """Two segments (a system and a query attribute), ranks with gaps, unretrieved rows, numeric query ids, a judged
    query no run row mentions (a unit of its own per system: rankframe/join.py rule 2)."""
    run, qrels = CASES.random_case(21, ties=False)
    rng = np.random.default_rng(4)
    runs = []
    for system in ("a", "b"):
        r = run.assign(system=system, score=rng.permutation(run["score"].to_numpy()))
        r["rank"] = 3.0 * r.groupby("query")["score"].rank(ascending=False, method="first")
        r.loc[r.sample(frac=0.1, random_state=1).index, "rank"] = np.nan
        runs.append(r.drop(columns="score"))
    both = pd.concat(runs, ignore_index=True)
    both = both[~((both["system"] == "b") & (both["query"] == "q2"))]  # a judged query system b did not retrieve
    codes = {q: i for i, q in enumerate(sorted(set(both["query"]) | set(qrels["query"])))}
    both = both.assign(query=both["query"].map(codes))
    qrels = qrels.assign(query=qrels["query"].map(codes))
    merged = parity(con, both, qrels, segments=["system"], k=5)
    assert len(merged) > 150
    one = both[both["system"] == "a"].drop(columns="system")
    parity(con, one.assign(tier=one["query"] % 2), qrels, segments=["tier"], metrics=["alpha_nDCG", "StRecall"])


def test_system_and_another_segment(con):
    """With a system segment and a query attribute, a judged query a system did not retrieve is a unit of that system
    in the segment the query has in the run (rankframe/join.py rules 2 and 3), not in a NULL segment; a judged query
    no run row mentions is one in a NULL segment per system."""
    run, qrels = CASES.random_case(21, ties=False)
    both = pd.concat([run.assign(system="a"), run.assign(system="b", score=run["score"][::-1].to_numpy())])
    both = both[~((both["system"] == "b") & both["query"].isin(["q2", "q3"]))]  # judged, not retrieved by b
    both = both.assign(tier=both["query"].str[-1].map(ord) % 2)
    assert set(qrels["query"]) - set(both["query"])  # a judged query no run row mentions
    merged = parity(con, both, qrels, segments=["system", "tier"], metrics=["alpha_nDCG", "P_IA"], k=5)
    b = merged[(merged["system"] == "b") & merged["query"].isin(["q2", "q3"])]
    assert len(b) == 4 and b["tier"].notna().all()  # the query's tier, as in the run


def test_text_grade_names_its_rows(con):
    """A text grade column is the "relevance must be numeric" error, its unparsable rows named first (never an
    unjudged row); a NULL grade in a numeric column is unjudged: the macro equals the pandas engine."""
    run, qrels = CASES.random_case(5)
    text = qrels.astype({"relevance": object})
    text.loc[2, "relevance"] = "two"
    text["relevance"] = text["relevance"].map(lambda v: None if v is None else str(v))
    row = text.loc[2]
    with pytest.raises(
        duckdb.Error, match=r"rf:table\[relevance\]: relevance must be numeric \(null = unjudged\)"
    ) as info:
        macro(con, "rf_intent_per_query", run, text, order_by="score")
    assert f"query={row['query']} subtopic={row['subtopic']} item={row['item']} relevance=two" in str(info.value)
    assert "1 of them do not parse as numbers" in str(info.value)
    null = qrels.astype({"relevance": float})
    null.loc[2, "relevance"] = np.nan
    parity(con, run, null, k=5)


def test_parity_repeated_items_and_numeric_ids(con):
    run, qrels = CASES.random_case(9)
    numeric = run.assign(item=run["item"].str[1:].astype(int))  # text order: 10 before 9 in the ties
    parity(con, numeric, qrels.assign(item=qrels["item"].str[1:].astype(int)), k=5)
    repeated = pd.concat([run, run[run["query"] == "q1"].head(3)], ignore_index=True)
    with pytest.raises(duckdb.Error, match=r"rf:table\[item\]"):
        macro(con, "rf_intent_per_query", repeated, qrels, order_by="score")
    got = macro(
        con, "rf_intent_per_query", repeated, qrels, order_by="score", allow_duplicates=True, metrics=["ERR_IA"]
    )
    exp = rankframe.evaluate(repeated, ["ERR_IA"], qrels=qrels, per_query=True, allow_duplicates=True)
    assert np.allclose(got.set_index("query")["ERR_IA"].loc[exp["query"]], exp["value"], atol=1e-12, rtol=0)


def test_hand_case(con):
    """tests/rung1_hand/test_intent_hand.py's hand derivations (beside each case there), through the macro."""
    hand = _load(HERE.parent / "rung1_hand" / "test_intent_hand.py")
    checked = 0
    for metric, expected in hand.CASES:
        m = re.fullmatch(r"(\w+)(?:\((.*)\))?(?:@(\d+))?", metric)
        assert m is not None
        opts = dict(re.findall(r"(\w+)=('?[\w.]+'?)", m[2] or ""))
        if opts.get("like") == f"'{INFORMFULLY}'":
            continue
        params = {k: (v.strip("'") if v.startswith("'") else float(v)) for k, v in opts.items()}
        name = next(n for n in NAMES if n.lower() == m[1].lower() or m[1] in SPECS[n].aliases)
        order_by = "rank" if "rank" in hand.RUN.columns else "score"
        got = macro(
            con,
            "rf_intent_per_query",
            hand.RUN,
            hand.QRELS,
            metrics=[name],
            order_by=order_by,
            k=int(m[3]) if m[3] else None,
            **params,
        )
        assert got.set_index("query")[name]["q"] == pytest.approx(expected, abs=1e-12), metric
        checked += 1
    assert checked >= 5


def _error_of(con, run, qrels, **params) -> RankframeError:
    with pytest.raises(duckdb.Error) as caught:
        macro(con, "rf_intent_per_query", run, qrels, order_by="score", **params)
    return translate_error(caught.value)


@pytest.mark.parametrize(
    ("metric", "qrels", "params", "error", "words"),
    [
        ("alpha_nDCG", CASES.QRELS.drop(columns="subtopic"), {}, ParameterError, "no column 'subtopic'"),
        ("alpha_nDCG", CASES.QRELS.assign(subtopic=[1, None, 2]), {}, ValidationError, r"null found"),
        ("alpha_nDCG", pd.concat([CASES.QRELS, CASES.QRELS.head(1)]), {}, ValidationError, "repeated rows"),
        ("alpha_nDCG", CASES.QRELS.assign(relevance=[1.0, np.inf, 1.0]), {}, ValidationError, "must be finite"),
        ("alpha_nDCG", CASES.QRELS.assign(relevance=["1", "x", "1"]), {}, ValidationError, "must be numeric"),
        ("alpha_nDCG(alpha=2)", CASES.QRELS, {"alpha": 2}, ParameterError, r"'alpha' parameter .* float in \[0, 1\]"),
        ("NRBP(beta=-0.5)", CASES.QRELS, {"beta": -0.5}, ParameterError, r"'beta' parameter"),
        (
            "ERR_IA(like='tf_ranking')",
            CASES.QRELS,
            {"like": "tf_ranking", "metrics": ["ERR_IA"]},
            ParameterError,
            r"'like' parameter of ERR_IA must be one of None, 'ndeval'",
        ),
        ("ERR_IA(alpha=0)@100000000", CASES.QRELS, {"alpha": 0, "k": 100000000}, ParameterError, "k must be <="),
    ],
    ids=["no-subtopic", "null-subtopic", "repeated", "inf-grade", "text-grade", "alpha", "beta", "preset", "terms"],
)
def test_hostile_same_error_class(con, metric, qrels, params, error, words):
    """tests/sql/test_intent_sql.py's hostile tables: the pandas engine's error class, rf: codes in the words."""
    with pytest.raises(RankframeError) as python:
        rankframe.evaluate(CASES.RUN, [metric], qrels=qrels, per_query=True)
    sql = _error_of(con, CASES.RUN, qrels, **params)
    assert isinstance(python.value, error)
    # a missing subtopic column is a ParameterError in Python (needs_subtopics) and a table error in SQL, whose
    # one code for a missing column is rf:table: both are RankframeErrors naming the column
    assert isinstance(sql, ValidationError if "no column" in words else error), type(sql)
    assert re.search(words, str(sql)), str(sql)


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"k": 0}, r"'k' parameter of rf_intent_per_query must be an int >= 1"),
        ({"rel": "x"}, r"'rel' parameter .* finite number"),
        ({"like": "trec"}, r"'like' parameter .* one of 'ndeval', 'tf_ranking'"),
        ({"like": "tf_ranking"}, r"ERR_IA, nERR_IA, NRBP, nNRBP, AP_IA, StRecall must be one of None"),
        ({"metrics": ["alpha_nDCG", "nope"]}, r"'metrics' parameter .* distinct names"),
        ({"metrics": []}, r"'metrics' parameter"),
        ({"no_relevant": "drop"}, r"'no_relevant' parameter"),
        ({"segments": ["nope"]}, r"'segments' parameter .* not in the table"),
    ],
)
def test_bad_parameters(con, params, words):
    run, qrels = CASES.random_case(0)
    err = _error_of(con, run, qrels, **params)
    assert isinstance(err, ParameterError)
    assert re.search(words, str(err)), str(err)


def test_metric_names_any_case_and_columns(con):
    run, qrels = CASES.random_case(3)
    got = macro(con, "rf_intent_per_query", run, qrels, metrics=["strecall", "ALPHA_NDCG"], order_by="score")
    assert list(got.columns) == ["query", "alpha_nDCG", "StRecall"]  # the family's order, canonical spelling


def test_every_declared_parameter_with_its_default(con):
    """Each table macro of the family takes every declared parameter of the family (rankframe/intent/*.py: k, alpha,
    beta, rel, like) and the query-set policies, with the declared default (registry.sql_literal), in the bundle the
    loader generates; the installed macros list them. The file's rf:intent block is the declarations' (generated by
    write_sql_params)."""
    declared = registry.intent_table_params()
    assert {p.name for p in declared} >= {"k", "alpha", "beta", "rel", "like", "no_relevant"}
    assert {p.name: p.default for p in declared}["alpha"] == ALPHA.default
    assert {p.name: p.default for p in declared}["beta"] == BETA.default
    assert {p.name: p.default for p in declared}["rel"] == REL.default
    assert registry.intent_sql_block() in SQL, (
        "run: python -c 'from rankframe.registry import write_sql_params; write_sql_params()'"
    )
    bundle = rankframe.sql.text()
    for name in ("rf_intent_per_query", "rf_intent_means"):
        sig = re.search(rf"MACRO {name}\((.*?)\) AS TABLE", bundle, re.S)
        assert sig is not None
        defaults = dict(re.findall(r"\"?(\w+)\"? := ([^,)]+)", sig[1]))
        for p in declared:
            assert defaults.get(p.name) == registry.sql_literal(p.default), (name, p.name, defaults)
        got = con.execute("SELECT parameters FROM duckdb_functions() WHERE function_name = ?", [name]).fetchall()
        assert got and {p.name for p in declared} <= set(got[0][0]), (name, got)


def test_presets_and_names_are_the_declared_ones(con):
    """rf__intent_measures(), rf__intent_column's list and the like := choices, as installed: each measure of
    registry.INTENT (the qrels form) and its presets, generated from the declarations."""
    got = con.execute("SELECT rf__intent_measures()").fetchall()[0][0]
    declared = [(s.canonical, sorted(p for p in s.presets if p != INFORMFULLY)) for s in registry.INTENT]
    assert [(m["name"], sorted(m["presets"])) for m in got] == declared
    col = re.search(r"MACRO rf__intent_column\(c, metrics\) AS\s+list_contains\(\[(.*?)\]", rankframe.sql.text(), re.S)
    assert col is not None
    assert re.findall(r"'(\w+)'", col[1]) == [s.canonical.lower() for s in registry.INTENT]
    run, qrels = CASES.random_case(3)
    every = macro(con, "rf_intent_per_query", run, qrels, order_by="score")
    assert list(every.columns) == ["query", *[s.canonical for s in registry.INTENT]]


def test_a_marker_in_a_comment_is_an_error(tmp_path):
    """The loader refuses a generated-part marker inside a -- comment (it would be filled where no SQL reads it)."""
    from rankframe.sql import _wire, wiring

    with pytest.raises(ValueError, match="inside a -- comment"):
        _wire("-- see /* rf:generated intent_names */\nSELECT 1;", wiring())
    assert _wire("SELECT [/* rf:generated intent_names */];", wiring()).startswith("SELECT ['alpha_dcg', ")


@pytest.mark.quick_sample(8)  # the quick loop: 8 of the series cases (tests/tiers.py)
@pytest.mark.parametrize("alpha", [0.0, 0.01, 0.2, 0.5, 0.99, 1.0])
@pytest.mark.parametrize(("longest", "k"), [(0, None), (7, None), (7, 3), (7, 500), (3000, None), (5, 10_000_000)])
def test_series_terms_is_the_python_rule(con, alpha, longest, k):
    got = con.execute("SELECT rf__intent_terms(?, ?, ?)", [alpha, longest, k]).fetchall()[0][0]
    assert got == series_terms(alpha, longest, k)


def test_series_terms_error(con):
    with pytest.raises(duckdb.Error, match="k must be <= 10000000"):
        con.execute("SELECT rf__intent_terms(0.0, 3, ?)", [MAX_TERMS + 1]).fetchall()
    with pytest.raises(ParameterError, match="k must be <= 10000000"):
        series_terms(0.0, 3, MAX_TERMS + 1)


def test_shipped_files(con):
    """The shipped example files run through the macro as documented (docs/sql.md), the pandas values to 1e-12."""
    base = HERE.parent.parent / "examples"
    run = pd.read_csv(base / "intent_run.csv")
    qrels = pd.read_csv(base / "intent_qrels.csv")
    parity(con, run, qrels, k=5)


def test_face_flags_and_the_faces_that_still_refuse():
    """The macros are public: IntentSpec.sql and FACES say so; dbt and the DuckDB engine's file road (Spark's
    evaluate, compare and anova serve the family; render writes the qrels form, tests/sql/test_sql_portable_intent.py)
    still raise the family's error, which now names the macros."""
    from rankframe.intent.declare import FACES, refuse
    from rankframe.measures.arguments import parse_metrics

    assert "sql" in FACES and all(s.sql for s in registry.INTENT)
    for call in (
        lambda: refuse(parse_metrics(["alpha_nDCG@3"]), "duckdb_files", "the DuckDB engine's file road"),
        lambda: parse_metrics(["alpha_nDCG@3"], "rankframe sql --dbt"),
    ):
        with pytest.raises(ParameterError, match=r"pandas-only for now.*rf_intent_per_query"):
            call()
