"""docs/sql.md and the README's SQL block run as written on the shipped examples/recs.parquet, in Python and through
the duckdb CLI, and give the Python results."""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from duckdb_binary import duckdb_cli

import rankframe
import rankframe.sql as rf_sql

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "sql.md"
README = ROOT / "README.md"
DATA = ROOT / "examples" / "recs.parquet"
PAIRED = ROOT / "examples" / "paired.parquet"


def examples() -> dict[str, str]:
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(), re.S)
    out = {}
    for b in blocks:
        m = re.match(r"-- example: (\w+)\n", b)
        assert m, f"every sql block of docs/sql.md starts with '-- example: <name>':\n{b}"
        out[m.group(1)] = b
    return out


def readme_block() -> str:
    section = README.read_text().split("## In DuckDB SQL", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sql\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the README's DuckDB SQL section has one ```sql block"
    return blocks[0]


def statements(sql: str) -> list[str]:
    """The SQL statements of a block (CLI dot-commands and comments left out)."""
    lines = [ln.split("--", 1)[0] if not ln.lstrip().startswith(".") else "" for ln in sql.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _wide(res: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    return res.pivot(index=index, columns="metric", values="value").reset_index()


def expected(df: pd.DataFrame) -> dict[str, tuple[pd.DataFrame, list[str]]]:
    """What each docs/sql.md example must return, from rankframe.evaluate on the same file."""
    ev = rankframe.evaluate
    per_q = _wide(ev(df, ["AP@10", "nDCG@10", "RR@10", "P@10"], by="model", per_query=True), ["model", "query"])
    per_q = per_q.rename(columns={"AP@10": "AP", "nDCG@10": "nDCG", "RR@10": "RR", "P@10": "P"})
    seg = ev(df, "AP@10", by=["model", "country"]).rename(columns={"value": "MAP@10", "n": "n_queries"})
    seg = seg.drop(columns="metric")
    several = []
    for k in (5, 10, 20):
        w = _wide(ev(df, [f"P@{k}", f"R@{k}", f"AP@{k}", f"nDCG@{k}"], by="model"), ["model"])
        w.columns = [c.split("@")[0] if "@" in c else c for c in w.columns]
        several.append(w.assign(k=k))
    several = pd.concat(several, ignore_index=True)
    blocks = _wide(
        ev(df, ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10", "nDCG(gain='exponential')@5"], by="model"), ["model"]
    )
    nd = ev(df, "nDCG@10", by=["model", "country"])
    base = nd[nd.model == "baseline"].set_index("country")["value"]
    cand = nd[nd.model == "candidate"].set_index("country")["value"]
    compare = pd.DataFrame(
        {"country": base.index, "baseline": base.to_numpy(), "candidate": cand[base.index].to_numpy()}
    )
    compare["delta"] = compare["candidate"] - compare["baseline"]
    scalar = _wide(ev(df, ["nDCG@10", "AP@10"], by="model", per_query=True), ["model", "query"])
    scalar = scalar.rename(columns={"nDCG@10": "ndcg10", "AP@10": "ap10"})
    fused, with_rrf = _rrf_by_hand()
    compared = rankframe.compare(
        with_rrf, ["AP@10", "nDCG@10"], system="system", baseline="bm25", test="t", ci_method="t"
    )[["metric", "system", "n", "delta", "p_value", "wins", "ties", "losses"]]
    paired = pd.read_parquet(ROOT / "examples" / "paired.parquet")
    anova = rankframe.anova(paired, ["AP@10", "nDCG@10"], interaction="length")[
        ["metric", "term", "n", "groups", "statistic", "df", "df_error", "mse", "partial_eta_sq"]
    ]
    gini = ev(df, "Gini(like='recbole')@10", by="model", catalog=list(df["item"].unique())).drop(columns="metric")
    return {
        "beyond": (gini, ["model"]),
        "anova_interaction": (anova, ["metric", "term"]),
        "fuse": (fused[fused["rank"] <= 3], ["query", "rank"]),
        "fuse_compare": (compared, ["metric", "system"]),
        "per_query": (per_q, ["model", "query"]),
        "map_per_segment": (seg, ["model", "country"]),
        "several_k": (several, ["k", "model"]),
        "building_blocks": (blocks, ["model"]),
        "compare_models": (compare, ["country"]),
        "scalar": (scalar, ["model", "query"]),
    }


def _rrf_by_hand() -> tuple[pd.DataFrame, pd.DataFrame]:
    """docs/sql.md's rf_fuse examples in pandas: RRF (k = 60) of bm25 and dense on examples/paired.parquet, and that
    run stacked with its parts and the judgments (its judged unretrieved items with a NULL rank)."""
    paired = pd.read_parquet(PAIRED)
    parts = paired[paired["system"].isin(["bm25", "dense"])][["system", "query", "item", "rank", "relevance"]]
    ranked = parts[parts["rank"].notna()].sort_values(["system", "query", "rank"])
    ranked = ranked.assign(rrf=1.0 / (60 + ranked.groupby(["system", "query"]).cumcount() + 1))
    fused = ranked.groupby(["query", "item"], as_index=False)["rrf"].sum().rename(columns={"rrf": "score"})
    fused = fused.sort_values(["query", "item"], ascending=[True, False])  # ties: item descending as a string
    fused = fused.sort_values(["query", "score"], ascending=[True, False], kind="stable")
    fused["rank"] = fused.groupby("query").cumcount() + 1
    judged = parts[parts["relevance"].notna()][["query", "item", "relevance"]].drop_duplicates()
    run = fused[["query", "item", "rank"]].merge(judged, on=["query", "item"], how="outer").assign(system="rrf")
    with_rrf = pd.concat([parts, run], ignore_index=True)
    return fused, with_rrf


def assert_same(got: pd.DataFrame, want: pd.DataFrame, keys: list[str], name: str) -> None:
    assert len(got) == len(want) > 0, f"{name}: {len(got)} rows, expected {len(want)}"
    g = {tuple(str(r[k]) for k in keys): r for r in got.to_dict("records")}
    for rec in want.to_dict("records"):
        key = tuple(str(rec[k]) for k in keys)
        assert key in g, f"{name}: missing row {key}"
        for col, v in rec.items():
            if col in keys:
                continue
            x = g[key][col]
            if isinstance(v, float) or isinstance(x, float):
                assert (math.isnan(v) and math.isnan(x)) or math.isclose(x, v, rel_tol=1e-12, abs_tol=1e-12), (
                    f"{name} {key} {col}: sql {x!r}, python {v!r}"
                )
            else:
                assert str(x) == str(v), f"{name} {key} {col}: sql {x!r}, python {v!r}"


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return pd.read_parquet(DATA)


def test_docs_have_every_example():
    assert set(examples()) >= {
        "view",
        "validate",
        "per_query",
        "map_per_segment",
        "several_k",
        "building_blocks",
        "compare_models",
        "scalar",
    }
    # the docs run on shipped files only
    for name, sql in [*examples().items(), ("README", readme_block())]:
        for path in re.findall(r"'([^']+\.(?:parquet|csv|json))'", sql):
            assert (ROOT / path).is_file(), f"{name} reads {path}, which does not ship"


@pytest.mark.slow  # every SQL block of docs/sql.md (a docs check; the macros' hand cases are in test_sql_macros)
def test_cookbook_in_python(data, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples read 'examples/recs.parquet' from the repository's top folder
    con = rf_sql.install(duckdb.connect())
    results = {}
    for name, sql in examples().items():
        if name == "view":
            con.execute(sql)
            if hasattr(con, "complete"):
                con.complete()
        else:
            results[name] = con.execute(sql).df()
    assert len(results["validate"]) == 0, results["validate"].to_string()
    for name, (want, keys) in expected(data).items():
        assert_same(results[name], want, keys, name)


@pytest.mark.slow  # every SQL block of docs/sql.md through the duckdb binary
def test_cookbook_through_the_duckdb_cli(data, tmp_path):
    binary = duckdb_cli()
    if binary is None:
        pytest.skip(
            "!!! the `duckdb` command-line binary is not installed (pip install duckdb-cli) — the DuckDB "
            "CLI cookbook test was NOT run !!!"
        )
    lines = [f".read '{rf_sql.bundle()}'", ".bail on", ".mode csv", ".headers on", ".nullvalue NULL"]
    for name, sql in examples().items():
        lines += [f".output '{tmp_path / (name + '.csv')}'", sql.strip(), ".output"]
    proc = subprocess.run(
        [binary, "-batch", "-init", "/dev/null"],
        input="\n".join(lines) + "\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stderr
    validate = tmp_path / "validate.csv"
    assert validate.read_text().strip().count("\n") == 0, validate.read_text()  # header only
    for name, (want, keys) in expected(data).items():
        got = pd.read_csv(tmp_path / f"{name}.csv", na_values=["NULL"], keep_default_na=False)
        assert_same(got, want, keys, f"CLI {name}")


def _readme_means(data: pd.DataFrame) -> pd.DataFrame:
    res = rankframe.evaluate(data, ["AP@10", "nDCG@10"], by="model")
    wide = _wide(res, ["model"]).rename(columns={"AP@10": "AP", "nDCG@10": "nDCG"})
    return wide.merge(res.groupby("model", as_index=False)["n"].first().rename(columns={"n": "n_queries"}))


def test_readme_sql_block_in_python(data, monkeypatch):
    monkeypatch.chdir(ROOT)
    con = rf_sql.install(duckdb.connect())
    results = [
        con.execute(s).df() if s.upper().startswith("SELECT") else con.execute(s) for s in statements(readme_block())
    ]
    validate, means, per_query = (r for r in results if isinstance(r, pd.DataFrame))
    assert len(validate) == 0, validate.to_string()
    assert_same(means, _readme_means(data), ["model"], "README rf_means")
    want = _wide(rankframe.evaluate(data, ["AP@10", "nDCG@10"], by="model", per_query=True), ["model", "query"])
    assert_same(
        per_query[["model", "query", "AP", "nDCG"]],
        want.rename(columns={"AP@10": "AP", "nDCG@10": "nDCG"}),
        ["model", "query"],
        "README rf_per_query",
    )


def test_readme_sql_block_through_the_duckdb_cli(data):
    binary = duckdb_cli()
    if binary is None:
        pytest.skip(
            "!!! the `duckdb` command-line binary is not installed (pip install duckdb-cli) — the README's "
            "SQL block was NOT run through the CLI !!!"
        )
    # exactly the README's lines, in CSV mode, from the repository's top folder; its `.read` line reads the bundle
    # (generated, not committed: `rankframe sql -o rankframe.sql` makes it)
    block = re.sub(r"^\.read .*$", f".read '{rf_sql.bundle()}'", readme_block(), count=1, flags=re.M)
    script = ".bail on\n.mode csv\n.headers on\n" + block
    proc = subprocess.run(
        [binary, "-batch", "-init", "/dev/null"], input=script, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stderr
    out = proc.stdout.splitlines()
    start = out.index("model,n_queries,AP,nDCG")
    got = pd.read_csv(pd.io.common.StringIO("\n".join(out[start : start + 3])))
    assert_same(got, _readme_means(data), ["model"], "README rf_means (CLI)")
    # rf_validate printed no row: the header alone (DuckDB 2.x CLI) or nothing (1.x prints no header for 0 rows)
    assert out[:start] in ([], ["column,rule,n_rows,examples"]), out[:start]


def test_cli_default_empty_segments(tmp_path):
    # the CLI (duckdb 1.x) types an empty list literal as INTEGER[]: the default segments := [] must still bind
    binary = duckdb_cli()
    if binary is None:
        pytest.skip(
            "!!! the `duckdb` command-line binary is not installed (pip install duckdb-cli) — the DuckDB "
            "CLI default-segments test was NOT run !!!"
        )
    df = pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2"],
            "item": ["a", "b", "c", "a", "b"],
            "rank": [1, 2, None, 1, 2],
            "relevance": [0, 1, 1, 1, 0],
        }
    )
    df.to_parquet(tmp_path / "t.parquet")
    script = (
        "\n".join(
            [
                f".read '{rf_sql.bundle()}'",
                ".bail on",
                ".mode csv",
                "CREATE VIEW t AS SELECT * FROM 't.parquet';",
                "SELECT count(*) AS n FROM rf_validate('t');",
                "SELECT n_queries, AP FROM rf_means('t');",
            ]
        )
        + "\n"
    )
    proc = subprocess.run(
        [binary, "-batch", "-init", "/dev/null"], input=script, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stderr
    lines = proc.stdout.split()
    # AP by hand: q1 relevant {b, c}, hit at 2: (1/2) / 2 = 0.25 ; q2: 1.0 -> mean 0.625
    assert lines == ["n", "0", "n_queries,AP", "2,0.625"]
    assert float(rankframe.evaluate(df, "AP")["value"].item()) == 0.625
