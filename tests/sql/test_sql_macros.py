"""The DuckDB macros: registry parity, hand-computed values, bad parameters, loader and bundle."""

from __future__ import annotations

import ast
import math
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import rankframe.sql as rf_sql
from rankframe.core.declare import ENGINE_PARAMS, SCORE_PARAMS
from rankframe.measures.registry import BEYOND, METRICS

TABLE_MACROS = {"rf_prepare", "rf_per_query", "rf_means", "rf_validate", "rf_compare", "rf_anova", "rf_fuse"}
TABLE_MACROS |= {"rf_agreement"}  # sql/agreement.sql: rankframe.agreement's two-coder form
TABLE_MACROS |= {"rf_intent_per_query", "rf_intent_means"}  # sql/intent.sql: the intent-aware family (registry.INTENT)
HELPERS = {"rf_mean", "rf_agg_nothing_relevant", "rf_agg_n_retrieved", "rf_t_cdf", "rf_t_ppf", "rf_tie_gain"}


@pytest.fixture(scope="module")
def con():
    c = rf_sql.install(duckdb.connect())
    yield c
    c.close()


def one(con, expr: str) -> float:
    return con.execute(f"SELECT {expr}").fetchall()[0][0]


def _macros(con) -> dict[str, list[str]]:
    rows = con.execute(
        "SELECT function_name, parameters FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND function_name LIKE 'rf\\_%' ESCAPE '\\'"
    ).fetchall()
    return {name: list(params) for name, params in rows}


def test_every_metric_has_its_macros_with_the_registry_parameters(con):
    macros = _macros(con)
    for spec in METRICS:
        params = [p.name for p in spec.params if p.name not in SCORE_PARAMS]  # ties: needs scores (docs/sql.md)
        assert spec.sql_macro in macros, f"no macro {spec.sql_macro} for metric {spec.canonical}"
        assert macros[spec.sql_macro] == ["grades", *spec.sql_data_args, *params], spec.name
        agg = f"rf_agg_{spec.name}"
        # the aggregates take positions: judged_only is the caller's numbering of the judged rows (docs/sql.md)
        assert macros.get(agg) == ["pos", "grade", *(p for p in params if p not in ENGINE_PARAMS)], agg


def test_every_metric_macro_is_a_registry_metric(con):
    names = {s.name for s in METRICS} | {s.name for s in BEYOND}  # rf_<name>: the beyond-accuracy table macros
    for macro in _macros(con):
        if macro.startswith("rf__") or macro in TABLE_MACROS | HELPERS:
            continue
        base = macro.removeprefix("rf_agg_") if macro.startswith("rf_agg_") else macro.removeprefix("rf_")
        assert base in names, f"macro {macro} has no metric in rankframe.registry.METRICS or BEYOND"


def _sql_defaults(name: str) -> dict[str, str]:
    text = (rf_sql.directory() / f"{name}.sql").read_text()
    m = re.search(rf"MACRO rf_{name}\((.*?)\) AS", text, re.S)
    out = {}
    for part in m.group(1).split(","):
        if ":=" in part:
            k, v = part.split(":=")
            out[k.strip().strip('"')] = v.strip()
    return out


@pytest.mark.parametrize("spec", METRICS, ids=lambda s: s.name)
def test_macro_defaults_are_the_registry_defaults(spec):
    def lit(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return "NULL" if v is None else f"'{v}'" if isinstance(v, str) else repr(v)

    # an option a preset sets defaults to NULL: the preset's value, or the declared default (nDCG's gain, ideal)
    assert _sql_defaults(spec.name) == {
        p.name: "NULL" if p.name in spec.preset_params else lit(p.default)
        for p in spec.params
        if p.name not in SCORE_PARAMS
    }


L2_3 = math.log2(3)

# (expression, hand-computed value)
CASES = [
    ("rf_precision([1, 0, NULL, 2], k := 3)", 1 / 3),
    ("rf_precision([1, 0, NULL, 2], k := 5)", 2 / 5),  # denominator k
    ("rf_precision([1, 0, NULL, 2], k := 5, denominator := 'retrieved')", 2 / 4),
    ("rf_precision([1, 0, NULL, 2], rel := 2)", 1 / 4),
    ("rf_precision([]::INT[], k := 3)", 0.0),
    ("rf_recall([1, 0, 1], 4, k := 2)", 1 / 4),
    ("rf_recall([1, 0, 1], 4, k := 2, denominator := 'min_k')", 1 / 2),
    ("rf_recall([0], 0)", 0.0),
    ("rf_ap([1, 0, 1], 2)", (1 + 2 / 3) / 2),
    ("rf_ap([1, 0, 1], 2, k := 2)", 1 / 2),
    ("rf_ap([1, 0, 1], 4, denominator := 'retrieved')", (1 + 2 / 3) / 2),
    ("rf_ap([1, 0, 1], 4, k := 2, denominator := 'min_k')", 1 / 2),
    ("rf_ap([0, 2, 1], 3, rel := 2)", (1 / 2) / 3),
    ("rf_rr([0, NULL, 1])", 1 / 3),
    ("rf_rr([0, NULL, 1], k := 2)", 0.0),
    ("rf_cg([1, 2, 3], k := 2, gain := 'exponential')", 1 + 3),
    ("rf_cg([1, 2, 3, -1], rel := 2)", 5.0),
    ("rf_dcg([3, 2, NULL])", 3 + 2 / L2_3),
    ("rf_dcg([3, 2, 1], k := 1, gain := 'exponential')", 7.0),
    ("rf_idcg([0, 1], [2, 1, 0])", 2 + 1 / L2_3),
    ("rf_idcg([0, 1], [2, 1, 0], ideal := 'retrieved')", 1.0),
    ("rf_ndcg([2, 0, 1], [2, 0, 1, 3])", 2.5 / (3 + 2 / L2_3 + 0.5)),
    ("rf_ndcg([0, 1], [0, 1, 2], k := 1)", 0.0),
    ("rf_ndcg([1, 0], [0])", 0.0),
    ("rf_err([4, 0, 1])", 15 / 16 + (1 / 16) * (1 / 16) / 3),
    ("rf_err([1, 1], max_grade := 1)", 1 / 2 + (1 / 2) * (1 / 2) / 2),
    ("rf_nerr([1, 2], [2, 1])", (1 / 16 + (15 / 16) * (3 / 16) / 2) / (3 / 16 + (13 / 16) * (1 / 16) / 2)),
    ("rf_r_precision([1, 0, 1], 3)", 2 / 3),
    ("rf_r_precision([1, 0, 1, 1], 2)", 1 / 2),
    ("rf_hit_rate([0, 0, 1], k := 2)", 0.0),
    ("rf_hit_rate([0, 0, 1], k := 3)", 1.0),
    ("rf_f1([1, 0], 2, k := 2)", 0.5),
    ("rf_f1([1, 1, 0], 4, k := 3)", 2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2)),
    ("rf_bpref([1, 0, 1, NULL, 0, 1], 3, 3)", (1 + (1 - 1 / 3) + (1 - 2 / 3)) / 3),
    ("rf_bpref([0, 1, -1, 1], 3, 1)", ((1 - 1 / 1) + (1 - 1 / 1)) / 3),
    ("rf_rbp([1, 0, 1], p := 0.5)", 0.5 * (1 + 0.25)),
    ("rf_rbp([1, 0, 1], k := 2)", 0.2),
    ("rf_judged([1, NULL, 0], k := 5)", 2 / 3),
    ("rf_judged([1, NULL, 0], k := 1)", 1.0),
    ("rf_judged([]::INT[])", 0.0),
]


@pytest.mark.parametrize(("expr", "value"), CASES, ids=[c[0] for c in CASES])
def test_scalar_macros_hand_computed(con, expr, value):
    assert one(con, expr) == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_aggregate_macros_in_a_user_group_by(con):
    # query 1: ranks 1..3 with grades 0, 1, 1 plus an unretrieved relevant row; query 2: nothing relevant
    con.sql(
        "CREATE OR REPLACE TEMP TABLE hand AS SELECT * FROM (VALUES (1, 'a', 1, 0), (1, 'b', 2, 1), "
        "(1, 'c', 3, 1), (1, 'd', NULL, 1), (2, 'a', 1, 0)) v(query, item, rank, relevance)"
    )
    rows = con.execute(
        "SELECT query, rf_agg_ap(rf_pos, rf_g), rf_agg_rr(rf_pos, rf_g), rf_agg_recall(rf_pos, rf_g, k := 2),"
        " rf_agg_ndcg(rf_pos, rf_g, k := 2), rf_ap(list(relevance ORDER BY rank) FILTER (WHERE rank IS NOT NULL),"
        " count(*) FILTER (WHERE relevance >= 1)) "
        "FROM rf_prepare('hand') GROUP BY query ORDER BY query"
    ).fetchall()
    ap1 = (1 / 2 + 2 / 3) / 3
    assert rows[0][1:] == pytest.approx([ap1, 1 / 2, 1 / 3, (1 / L2_3) / (1 + 1 / L2_3), ap1], rel=1e-12)
    assert rows[1][1:] == pytest.approx([0, 0, 0, 0, 0])


def test_table_macros_hand_computed(con):
    con.sql(
        "CREATE OR REPLACE TEMP TABLE hand2 AS SELECT * FROM (VALUES "
        "('A', 1, 'a', 1, 0), ('A', 1, 'b', 2, 1), ('A', 1, 'c', 3, 1), "  # AP = (1/2 + 2/3) / 2
        "('B', 1, 'a', 1, 1), ('B', 1, 'b', NULL, 1), "  # AP = 1/2
        "('B', 2, 'x', 1, NULL), "  # no judgments: skipped by default
        "('B', 3, 'y', NULL, 1)) v(model, query, item, rank, relevance)"
    )  # nothing retrieved: 0
    got = con.execute(
        "SELECT model, query, AP FROM rf_per_query('hand2', segments := ['model']) ORDER BY ALL"
    ).fetchall()
    assert got == [("A", 1, pytest.approx(7 / 12)), ("B", 1, pytest.approx(0.5)), ("B", 3, 0.0)]
    means = con.execute("SELECT model, n_queries, AP FROM rf_means('hand2', segments := ['model'])").fetchall()
    assert means == [("A", 1, pytest.approx(7 / 12)), ("B", 2, pytest.approx(0.25))]
    con.sql("CREATE OR REPLACE TEMP VIEW hand2b AS SELECT * EXCLUDE (model) FROM hand2 WHERE model = 'B'")
    overall = con.execute(
        "SELECT n_queries, AP FROM rf_means('hand2b', no_retrieved := 'skip', no_judged := 'zero')"
    ).fetchall()
    assert overall == [(2, pytest.approx((1 / 2 + 0) / 2))]  # query 3 skipped, query 2 scores 0
    nan = con.execute(
        "SELECT query, isnan(AP) FROM rf_per_query('hand2', segments := ['model'], no_retrieved := 'nan') WHERE query = 3"
    ).fetchall()
    assert nan == [(3, True)]


def test_score_ranks_use_trec_eval_tie_break(con):
    # equal scores: item id descending as a string, so '9' before '10' before '007'
    con.sql(
        "CREATE OR REPLACE TEMP TABLE sc AS SELECT * FROM (VALUES (1, '10', 0.5, 0), (1, '9', 0.5, 1), "
        "(1, '007', 0.5, 0), (1, 'top', 2.0, 0), (1, 'gone', NULL, 1)) v(query, item, score, relevance)"
    )
    pos = dict(con.execute("SELECT item, rf_pos FROM rf_prepare('sc', order_by := 'score')").fetchall())
    assert pos == {"top": 1, "9": 2, "10": 3, "007": 4, "gone": None}
    assert con.execute("SELECT RR FROM rf_per_query('sc', order_by := 'score')").fetchall() == [(0.5,)]


BAD = [
    (
        "SELECT rf_ap([1], 1, k := 0)",
        r"The 'k' parameter of rf_ap must be an int >= 1 \(at most 2\*\*63 - 1\) or NULL\. Got 0 instead\.$",
    ),
    ("SELECT rf_precision([1], k := 2.5)", r"'k' parameter of rf_precision must be an int >= 1"),
    (
        "SELECT rf_ap([1], 1, denominator := 'all')",
        r"'denominator' parameter of rf_ap must be one of 'relevant', 'min_k', 'retrieved'\. Got 'all'",
    ),
    ("SELECT rf_ndcg([1], [1], gain := 'log')", r"'gain' parameter of rf_ndcg must be one of 'linear', 'exponential'"),
    ("SELECT rf_idcg([1], [1], ideal := 'best')", r"'ideal' parameter of rf_idcg must be one of"),
    ("SELECT rf_rbp([1], p := 1)", r"'p' parameter of rf_rbp must be a float in the open interval \(0, 1\)"),
    ("SELECT rf_err([1], max_grade := 0)", r"'max_grade' parameter of rf_err must be an int >= 1"),
    (
        "SELECT rf_err([5, 1])",
        r"The 'max_grade' parameter of ERR must be >= every grade in the table\. Got 4 but the table has grade 5; "
        r"pass max_grade := 5",
    ),
    (
        "SELECT rf_err([1, 0, 5], k := 1)",
        r"parameter of ERR must be >= every grade in the table\. Got 4 but the table has grade 5",
    ),
    ("SELECT rf_precision([1], rel := NULL)", r"'rel' parameter of rf_precision must be a finite number"),
    (
        "SELECT rf_agg_ap(rf_pos, rf_g, k := -1) FROM rf_prepare('bad') GROUP BY query",
        r"'k' parameter of rf_agg_ap must be",
    ),
    ("SELECT * FROM rf_per_query('bad', k := 0)", r"'k' parameter of rf_per_query must be"),
    (
        "SELECT * FROM rf_per_query('bad', ap_denominator := 'x')",
        r"The 'ap_denominator' parameter of rf_per_query must be one of 'relevant', 'min_k', 'retrieved'\. Got 'x' instead\.$",
    ),
    (
        "SELECT * FROM rf_per_query('bad', no_judged := 'drop')",
        r"The 'no_judged' parameter of rf_per_query must be one of 'zero', 'nan', 'skip'\. Got 'drop' instead\.$",
    ),
    (
        "SELECT * FROM rf_prepare('bad', order_by := 'alphabetical')",
        r"'order_by' parameter of rf_prepare must be one of",
    ),
]


@pytest.mark.parametrize(("sql", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_parameters_raise_a_clear_error(con, sql, message):
    con.sql("CREATE OR REPLACE TEMP TABLE bad AS SELECT 1 AS query, 'a' AS item, 1 AS rank, 1 AS relevance")
    with pytest.raises(duckdb.Error, match=message):
        con.execute(sql).fetchall()


def test_loader_order_and_the_generated_bundle(tmp_path):
    names = [f.name for f in rf_sql.files()]
    # helpers first, then the metrics, then the table macros (compare.sql uses evaluate.sql's rf_per_query, anova.sql
    # compare.sql's per-query values and incomplete beta)
    assert names[0] == "prepare.sql" and names[-4:] == ["evaluate.sql", "compare.sql", "anova.sql", "validate.sql"]
    assert {f"{s.name}.sql" for s in METRICS} <= set(names)
    assert rf_sql.BUNDLE not in names  # a generated bundle lying in the folder is never read as a source
    # a file comes after the files whose macros it calls (read from the SQL: no list to keep in sync)
    assert names.index("dcg.sql") < names.index("ndcg.sql") and names.index("err.sql") < names.index("nerr.sql")
    assert names.index("hits.sql") < names.index("num_rel_ret.sql")
    bundle = rf_sql.bundle()
    assert bundle.read_text() == rf_sql.text() and rf_sql.bundle() == bundle  # generated once per process
    c = duckdb.connect()
    c.execute(bundle.read_text())
    if hasattr(c, "complete"):
        c.complete()
    assert c.execute("SELECT rf_rr([0, 1])").fetchall() == [(0.5,)]


def test_dependency_order_comes_from_the_sql(tmp_path):
    # a new metric file that calls another file's macro is placed after it, whatever its name; a cycle is an error
    for name in ("prepare.sql", "evaluate.sql", "compare.sql", "anova.sql", "validate.sql"):
        (tmp_path / name).write_text("-- empty\n")
    (tmp_path / "a_new.sql").write_text("CREATE OR REPLACE MACRO rf_a_new(x) AS rf__zz(x) + 1;\n")
    (tmp_path / "zz.sql").write_text(
        "-- rf_a_new( in a comment is not a call\nCREATE OR REPLACE MACRO rf__zz(x) AS x;\n"
    )
    assert [f.name for f in rf_sql.files(tmp_path)][1:3] == ["zz.sql", "a_new.sql"]
    (tmp_path / "zz.sql").write_text("CREATE OR REPLACE MACRO rf__zz(x) AS rf_a_new(x);\n")
    with pytest.raises(ValueError, match="cycle: a_new.sql, zz.sql"):
        rf_sql.files(tmp_path)


def test_install_on_the_default_connection():
    con = rf_sql.install()
    assert con.execute("SELECT rf_hit_rate([0, 1], k := 1)").fetchall() == [(0.0,)]


def test_position_order_skips_the_window_and_checks_ranks(con):
    # ranks 1..n per query: order_by := 'position' gives the same values as the windowed 'rank' path
    con.sql(
        "CREATE OR REPLACE TABLE pos_ok AS SELECT * FROM (VALUES (1, 'a', 1, 1), (1, 'b', 2, 0), (1, 'c', 3, 2),"
        " (1, 'd', NULL, 1), (2, 'a', 1, 0), (2, 'b', 2, 1)) AS t(query, item, rank, relevance)"
    )
    cols = "query, P, AP, RR, nDCG, Bpref"
    a = con.execute(f"SELECT {cols} FROM rf_per_query('pos_ok', order_by := 'position') ORDER BY query").fetchall()
    b = con.execute(f"SELECT {cols} FROM rf_per_query('pos_ok', order_by := 'rank') ORDER BY query").fetchall()
    assert a == b
    # AP of query 1 by hand: relevant {a, c, d}; hits at 1 and 3: (1/1 + 2/3) / 3
    assert a[0][2] == pytest.approx((1 + 2 / 3) / 3)
    # a gap in the ranks is an error with 'position', never a silently different number
    con.sql(
        "CREATE OR REPLACE TABLE pos_gap AS SELECT * FROM (VALUES (1, 'a', 1, 1), (1, 'b', 3, 1))"
        " AS t(query, item, rank, relevance)"
    )
    with pytest.raises(duckdb.Error, match=r"needs ranks 1\.\.n in every query"):
        con.execute("SELECT * FROM rf_per_query('pos_gap', order_by := 'position')").fetchall()
    assert con.execute("SELECT AP FROM rf_per_query('pos_gap')").fetchall() == [(1.0,)]


def test_install_after_a_plain_import_rankframe():
    # rankframe.sql is reachable as an attribute after `import rankframe` (it used to be an AttributeError)
    code = (
        "import duckdb, rankframe; c = rankframe.sql.install(duckdb.connect()); "
        "print(c.sql('SELECT rf_rr([0, 1])').fetchall()[0][0])"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0.5"


def test_the_sql_module_imports_nothing_heavy():
    # duckdb is imported inside install(); at import time only the standard library (the wheel's build hook loads
    # the file by path, without rankframe)
    tree = ast.parse(Path(rf_sql.__file__).read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
    names |= {("." * n.level) + (n.module or "") for n in top if isinstance(n, ast.ImportFrom)}
    assert names <= {"__future__", "pathlib", "typing", "re"}, names


def test_cli_sql_writes_the_bundle(tmp_path, capsys):
    from rankframe.cli import main

    assert main(["sql", "-o", str(tmp_path / "rankframe.sql")]) == 0
    assert (tmp_path / "rankframe.sql").read_text() == rf_sql.text() and capsys.readouterr().out == ""
    assert main(["sql", "-o", str(tmp_path)]) == 2  # a folder: one line on stderr, no traceback
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write --output" in err


def test_per_query_keys_come_segments_first_then_query(con):
    # the key columns of rf_per_query in the order of evaluate(..., per_query=True): [*segments, query] (issue 36),
    # also when the table has query before its segment, and query alone without segments
    con.execute(
        "CREATE OR REPLACE TEMP TABLE keyed AS SELECT * FROM (VALUES ('q1', 'x', 'br', 1, 1), ('q1', 'y', 'br', 2, 0)) "
        "AS t(query, item, country, rank, relevance)"
    )
    names = [d[0] for d in con.execute("SELECT * FROM rf_per_query(keyed, segments := ['country'])").description]
    assert names[:3] == ["country", "query", "P"]
    names = [d[0] for d in con.execute("SELECT * FROM rf_per_query(keyed)").description]
    assert names[:2] == ["query", "P"]
