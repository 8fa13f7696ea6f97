"""docs/sql.md: every ```sql example runs, in Python and through the duckdb CLI, and equals the Python results."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankframe
import rankframe.sql as rf_sql

DOC = Path(__file__).resolve().parents[1] / "docs" / "sql.md"


def examples() -> dict[str, str]:
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(), re.S)
    out = {}
    for b in blocks:
        m = re.match(r"-- example: (\w+)\n", b)
        assert m, f"every sql block of docs/sql.md starts with '-- example: <name>':\n{b}"
        out[m.group(1)] = b
    return out


def make_export(path: Path) -> pd.DataFrame:
    """A small export: 2 models x 40 users, 20 shown rows (+3 judged, not shown), some unjudged, ranks with gaps."""
    rng = np.random.default_rng(7)
    rows = []
    for model in ("v1", "v2"):
        for user in range(40):
            items = rng.permutation(200)[:23]
            for i, movie in enumerate(items):
                pos = i + 1 if i < 20 else None
                if pos is not None and model == "v2":
                    pos = 2 * pos + 1  # gaps: ranks only define the order
                rating = None if rng.random() < 0.2 else int(rng.choice([0, 0, 0, 1, 2, 3]))
                if pos is None and rating is None:
                    rating = int(rng.integers(1, 4))
                if user == 39 and model == "v1":
                    rating = None  # no judgments: skipped by default
                    if pos is None:
                        continue
                rows.append((model, ["DE", "FR", "US"][user % 3], user, int(movie), pos, rating))
    df = pd.DataFrame(rows, columns=["model", "country", "user_id", "movie_id", "position", "rating"])
    df["position"] = df["position"].astype("Int64")
    df["rating"] = df["rating"].astype("Int64")
    df.to_parquet(path)
    return df


def standard(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns={"user_id": "query", "movie_id": "item", "position": "rank", "rating": "relevance"})


def _wide(res: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    return res.pivot(index=index, columns="metric", values="value").reset_index()


def expected(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    s = standard(df)
    ev = rankframe.evaluate
    per_q = _wide(ev(s, ["AP@10", "nDCG@10", "RR@10", "P@10"], by="model", per_query=True), ["model", "query"])
    per_q = per_q.rename(columns={"AP@10": "AP", "nDCG@10": "nDCG", "RR@10": "RR", "P@10": "P"})
    seg = ev(s, "AP@10", by=["model", "country"]).rename(columns={"value": "MAP@10"}).drop(columns="metric")
    several = []
    for k in (5, 10, 20):
        w = _wide(ev(s, [f"P@{k}", f"R@{k}", f"AP@{k}", f"nDCG@{k}"], by="model"), ["model"])
        w.columns = [c.split("@")[0] if "@" in c else c for c in w.columns]
        several.append(w.assign(k=k))
    several = pd.concat(several, ignore_index=True)
    blocks = _wide(ev(s, ["AP@10", "nDCG@10", "P@10", "R@100", "RR@10", "nDCG(gain='exponential')@5"], by="model"),
                   ["model"])
    nd = ev(s, "nDCG@10", by="model", per_query=True)
    v1 = nd[nd.model == "v1"].set_index("query")["value"]
    v2 = nd[nd.model == "v2"].set_index("query")["value"]
    both = v1.index.intersection(v2.index)
    compare = pd.DataFrame({"query": both, "v1": v1[both].to_numpy(), "v2": v2[both].to_numpy()})
    compare["delta"] = compare["v2"] - compare["v1"]
    scalar = _wide(ev(s, ["nDCG@10", "AP@10"], by="model", per_query=True), ["model", "query"])
    scalar = scalar.rename(columns={"nDCG@10": "ndcg10", "AP@10": "ap10"})
    return {"per_query": (per_q, ["model", "query"]), "map_per_segment": (seg, ["model", "country"]),
            "several_k": (several, ["k", "model"]), "building_blocks": (blocks, ["model"]),
            "compare_models": (compare, ["query"]), "scalar": (scalar, ["model", "query"])}


def assert_same(got: pd.DataFrame, want: pd.DataFrame, keys: list[str], name: str) -> None:
    assert len(got) == len(want), f"{name}: {len(got)} rows, expected {len(want)}"
    g = {tuple(str(r[k]) for k in keys): r for r in got.to_dict("records")}
    for rec in want.to_dict("records"):
        key = tuple(str(rec[k]) for k in keys)
        assert key in g, f"{name}: missing row {key}"
        for col, v in rec.items():
            if col in keys or col == "metric":
                continue
            x = g[key][col]
            if isinstance(v, float) or isinstance(x, float):
                assert (math.isnan(v) and math.isnan(x)) or math.isclose(x, v, rel_tol=1e-12, abs_tol=1e-12), \
                    f"{name} {key} {col}: sql {x!r}, python {v!r}"
            else:
                assert str(x) == str(v), f"{name} {key} {col}: sql {x!r}, python {v!r}"


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    d = tmp_path_factory.mktemp("cookbook")
    df = make_export(d / "export.parquet")
    return d, df


def test_docs_have_every_example():
    assert set(examples()) >= {"view", "validate", "per_query", "map_per_segment", "several_k",
                               "building_blocks", "compare_models", "scalar"}


def test_cookbook_in_python(export, monkeypatch):
    d, df = export
    monkeypatch.chdir(d)
    con = rf_sql.install(duckdb.connect())
    results = {name: con.sql(sql).df() if name != "view" else con.sql(sql) for name, sql in examples().items()}
    assert len(results["validate"]) == 0, results["validate"].to_string()
    for name, (want, keys) in expected(df).items():
        assert_same(results[name], want, keys, name)


def test_cookbook_through_the_duckdb_cli(export):
    binary = shutil.which("duckdb")
    if binary is None:
        pytest.skip("!!! the `duckdb` command-line binary is not installed (pip install duckdb-cli) — the DuckDB "
                    "CLI cookbook test was NOT run !!!")
    d, df = export
    bundle = rf_sql.directory() / rf_sql.BUNDLE
    lines = [f".read '{bundle}'", ".bail on", ".mode csv", ".headers on", ".nullvalue NULL"]
    for name, sql in examples().items():
        lines += [f".output '{d / (name + '.csv')}'", sql.strip(), ".output"]
    script = d / "cookbook.sql"
    script.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([binary, "-batch", "-init", "/dev/null"], stdin=script.open(), cwd=d,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stderr
    validate = d / "validate.csv"
    assert validate.read_text().strip().count("\n") == 0, validate.read_text()  # header only
    for name, (want, keys) in expected(df).items():
        got = pd.read_csv(d / f"{name}.csv", na_values=["NULL"], keep_default_na=False)
        assert_same(got, want, keys, f"CLI {name}")


def test_cli_default_empty_segments(tmp_path):
    # the CLI (duckdb 1.x) types an empty list literal as INTEGER[]: the default segments := [] must still bind
    binary = shutil.which("duckdb")
    if binary is None:
        pytest.skip("!!! the `duckdb` command-line binary is not installed (pip install duckdb-cli) — the DuckDB "
                    "CLI default-segments test was NOT run !!!")
    df = pd.DataFrame({"query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "b"],
                       "rank": [1, 2, None, 1, 2], "relevance": [0, 1, 1, 1, 0]})
    df.to_parquet(tmp_path / "t.parquet")
    script = "\n".join([f".read '{rf_sql.directory() / rf_sql.BUNDLE}'", ".bail on", ".mode csv",
                        "CREATE VIEW t AS SELECT * FROM 't.parquet';",
                        "SELECT count(*) AS n FROM rf_validate('t');",
                        "SELECT n_queries, AP FROM rf_means('t');"]) + "\n"
    proc = subprocess.run([binary, "-batch", "-init", "/dev/null"], input=script, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stderr
    lines = proc.stdout.split()
    # AP by hand: q1 relevant {b, c}, hit at 2: (1/2) / 2 = 0.25 ; q2: 1.0 -> mean 0.625
    assert lines == ["n", "0", "n_queries,AP", "2,0.625"]
    assert rankframe_mean(df) == 0.625


def rankframe_mean(df: pd.DataFrame) -> float:
    import rankframe

    return float(rankframe.evaluate(df, "AP")["value"].item())
