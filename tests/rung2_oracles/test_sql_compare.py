"""rf_compare (sql/compare.sql) = rankframe.compare(test="t", ci_method="t"); the t CDF/quantile macros = scipy."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
from faces import macro_connection
from scipy import stats

import rankframe
import rankframe.sql as rf_sql

ROOT = Path(__file__).resolve().parents[2]
PAIRED = ROOT / "examples" / "paired.parquet"
COLS = [
    "metric",
    "system",
    "baseline",
    "n",
    "mean",
    "baseline_mean",
    "delta",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "ci_low_adjusted",
    "ci_high_adjusted",
    "statistic",
    "df",
    "sd_diff",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "note",
]


@pytest.fixture(scope="module")
def con():
    return macro_connection()


def _close(a: float, b: float, tol: float) -> bool:
    a_nan = a is None or (isinstance(a, float) and math.isnan(a))
    b_nan = b is None or (isinstance(b, float) and math.isnan(b))
    if a_nan or b_nan:
        return a_nan and b_nan
    return a == b or math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def assert_parity(got: pd.DataFrame, want: pd.DataFrame, by: list[str]) -> None:
    """SQL rows = pandas rows: 1e-9 on means, deltas, intervals, effect sizes; 1e-6 on p-values; exact counts."""
    assert list(got.columns) == [*by, *COLS]
    keys = [*by, "metric", "system"]
    got = got.sort_values(keys).reset_index(drop=True)
    want = want.sort_values(keys).reset_index(drop=True)
    assert len(got) == len(want) > 0
    for col in COLS:
        for i, (g, w) in enumerate(zip(got[col], want[col])):
            if col in ("p_value", "p_adjusted"):
                ok = _close(g, w, 1e-6)
            elif col in ("mean", "baseline_mean", "delta", "ci_low", "ci_high", "effect_size", "sd_diff", "df") or (
                col in ("ci_low_adjusted", "ci_high_adjusted")
            ):
                ok = _close(g, w, 1e-9)
            elif col == "statistic":  # t = delta / (sd / sqrt(n)): relative, t is large when sd is tiny
                ok = _close(g, w, 1e-9)
            else:  # counts, names and notes (a missing note is None in pandas, None or NaN from duckdb's .df())
                ok = (pd.isna(g) and pd.isna(w)) or str(g) == str(w)
            assert ok, f"row {i} {dict(got.loc[i, keys])} {col}: sql {g!r}, pandas {w!r}"


def test_paired_example_parity(con):
    df = pd.read_parquet(PAIRED)
    con.register("paired", df)
    for by, correction in (([], "holm"), (["length"], "bh")):  # bonferroni and none: the random tables below
        sql = (
            "SELECT * FROM rf_compare('paired', baseline := 'bm25', metrics := ['AP', 'nDCG', 'RR'], "
            f"k := 10, segments := {by!r}, correction := '{correction}')"
        )
        want = rankframe.compare(
            df,
            ["AP@10", "nDCG@10", "RR@10"],
            system="system",
            baseline="bm25",
            by=by,
            test="t",
            ci_method="t",
            correction=correction,
        )
        assert_parity(con.execute(sql).df(), want, by)


def _random_table(seed: int, n_systems: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_systems):
        for q in range(12):
            seg = "abc"[q % 3]
            n_items = int(rng.integers(2, 6))
            for i in range(n_items):
                rows.append(
                    {
                        "sys": f"S{s}",
                        "query": q,
                        "seg": seg,
                        "dev": ["m", "d"][q % 2],
                        "item": f"i{i}",
                        "rank": i + 1,
                        "relevance": int(rng.integers(0, 3)),
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "seed, n_systems, correction, by",
    [
        (1, 2, "bonferroni", ["seg"]),
        (2, 3, None, ["seg", "dev"]),
        (3, 4, "holm", ["seg"]),
    ],
)
def test_random_tables_parity(con, seed, n_systems, correction, by):
    df = _random_table(seed, n_systems)
    con.register("rnd", df)
    corr = "NULL" if correction is None else f"'{correction}'"
    got = con.execute(
        f"SELECT * FROM rf_compare('rnd', system := 'sys', baseline := 'S1', metrics := ['AP', 'nDCG', "
        f"'P'], k := 3, segments := {by!r}, correction := {corr}, ci := 0.9)"
    ).df()
    want = rankframe.compare(
        df,
        ["AP@3", "nDCG@3", "P@3"],
        system="sys",
        baseline="S1",
        by=by,
        test="t",
        ci_method="t",
        correction=correction,
        ci=0.9,
    )
    assert_parity(got, want, by)


@pytest.mark.parametrize(
    "sql_args, kw",
    [
        ("alternative := 'greater'", dict(alternative="greater")),
        ("alternative := 'LESS', ci := 0.8", dict(alternative="less", ci=0.8)),
        ("margin := 0.05", dict(margin=0.05)),
        ("margin := 0, alternative := 'greater'", dict(margin=0, alternative="greater")),
        ("alternative := 'two-sided', correction := 'bh'", dict(alternative="two-sided", correction="bh")),
    ],
)
def test_alternative_and_margin_parity(con, sql_args, kw):
    # one-sided p-values, one-sided bounds (inf on the open side) and the non-inferiority shift of t, as pandas
    df = _random_table(5, 3)
    con.register("rnd", df)
    got = con.execute(
        f"SELECT * FROM rf_compare('rnd', system := 'sys', baseline := 'S0', metrics := ['AP', 'P'], k := 3, "
        f"segments := ['seg'], {sql_args})"
    ).df()
    want = rankframe.compare(df, ["AP@3", "P@3"], system="sys", baseline="S0", by=["seg"], **kw)
    assert_parity(got, want, ["seg"])
    side = want.attrs["alternative"]
    assert np.isinf(got["ci_high" if side == "greater" else "ci_low"]).all() == (side != "two-sided")


def test_identical_systems_with_a_margin_match_pandas(con):
    df = _random_table(6, 2)
    df = pd.concat([df, df[df["sys"] == "S0"].assign(sys="S2")])  # S2 = S0 on every query
    con.register("same", df)
    got = con.execute(
        "SELECT * FROM rf_compare('same', system := 'sys', baseline := 'S0', metrics := ['AP'], margin := 0.1)"
    ).df()
    want = rankframe.compare(df, ["AP"], system="sys", baseline="S0", margin=0.1)
    assert_parity(got, want, [])
    assert got.loc[got["system"] == "S2", "p_value"].item() == 0.0


def test_t_cdf_against_scipy(con):
    dfs = [1, 2, 3, 5, 10, 30, 100, 1000, 10**4, 10**5, 10**6]
    ts = [
        -1e6,
        -30.0,
        -3.0,
        -1.96,
        -0.5,
        -1e-8,
        0.0,
        1e-8,
        0.01,
        0.5,
        1.0,
        2.0,
        3.0,
        5.0,
        10.0,
        30.0,
        100.0,
        1e3,
        1e5,
        1e10,
    ]
    rows = con.execute(
        "SELECT t, df, rf_t_cdf(t, df), rf__t_p2(t, df) FROM unnest(?) a(t) CROSS JOIN unnest(?) b(df)", [ts, dfs]
    ).fetchall()
    assert len(rows) == len(ts) * len(dfs)
    for t, df, cdf, p2 in rows:
        assert _close(cdf, float(stats.t.cdf(t, df)), 1e-8), (t, df, cdf)
        # the two-sided tail, relative even far in the tail (1e-300 and below: scipy and we both give ~0)
        want = float(2 * stats.t.sf(abs(t), df))
        assert math.isclose(p2, want, rel_tol=1e-8, abs_tol=1e-300), (t, df, p2, want)


def test_t_ppf_against_scipy(con):
    dfs = [1, 2, 3, 5, 10, 30, 1000, 10**6]
    qs = [1e-10, 0.001, 0.025, 0.3, 0.5, 0.6, 0.95, 0.975, 0.999, 1 - 1e-10]
    rows = con.execute(
        "SELECT q, df, rf_t_ppf(q, df) FROM unnest(?) a(q) CROSS JOIN unnest(?) b(df)", [qs, dfs]
    ).fetchall()
    for q, df, v in rows:
        assert _close(v, float(stats.t.ppf(q, df)), 1e-8), (q, df, v)
    ends = con.execute("SELECT rf_t_ppf(0, 5), rf_t_ppf(1, 5), isnan(rf_t_ppf(1.5, 5))").fetchall()[0]
    assert ends == (-math.inf, math.inf, True)


def test_edge_rows_match_pandas(con):
    # hand-made: segment 'x' has 1 query (n < 2), segment 'y' identical systems (all differences 0), segment 'z'
    # the same difference on every query (sd = 0: p = 0, zero-width interval, effect +inf in pandas)
    rows = []
    for sysname, rel_y in (("A", 1), ("B", 1)):
        rows += [
            {"system": sysname, "seg": "x", "query": 1, "item": "a", "rank": 1, "relevance": 1 if sysname == "A" else 0}
        ]
        for q in (2, 3):
            rows += [{"system": sysname, "seg": "y", "query": q, "item": "a", "rank": 1, "relevance": rel_y}]
        for q in (4, 5, 6):
            rel = [1, 0] if sysname == "A" else [0, 1]  # RR: A = 1, B = 1/2 on every query
            rows += [
                {"system": sysname, "seg": "z", "query": q, "item": it, "rank": r + 1, "relevance": rel[r]}
                for r, it in enumerate("ab")
            ]
    df = pd.DataFrame(rows)
    con.register("edge", df)
    got = con.execute("SELECT * FROM rf_compare('edge', baseline := 'A', metrics := ['RR'], segments := ['seg'])").df()
    want = rankframe.compare(df, ["RR"], baseline="A", by="seg", test="t")
    assert_parity(got, want, ["seg"])
    z = got[got.seg == "z"].iloc[0]
    assert z.p_value == 0 and z.ci_low == z.ci_high == -0.5 and z.effect_size == -math.inf


@pytest.mark.parametrize(
    "call, message",
    [
        ("baseline := 'bm26', metrics := ['AP']", "The 'baseline' parameter of rf_compare must be one of the systems"),
        ("metrics := ['AP']", "Got NULL instead"),
        ("baseline := 'bm25', metrics := ['AP'], segments := ['lenght']", "did you mean 'length'"),
        ("baseline := 'bm25', metrics := ['AP'], k := '10'", "The 'k' parameter of rf_compare must be an int >= 1"),
        ("baseline := 'bm25', metrics := ['MAP']", "The 'metrics' parameter of rf_compare"),
        ("baseline := 'bm25', metrics := ['AP'], system := 'sytem'", "did you mean 'system'"),
        ("baseline := 'bm25', metrics := ['AP'], ci := 1.5", "The 'ci' parameter of rf_compare"),
        ("baseline := 'bm25', metrics := ['AP'], correction := 'fdr'", "The 'correction' parameter of rf_compare"),
        ("baseline := 'bm25', metrics := ['AP'], correction := 'Westfall-Young'", "resamples the sign flips"),
        ("baseline := 'bm25', metrics := ['AP'], alternative := 'bigger'", "The 'alternative' parameter of rf_compare"),
        ("baseline := 'bm25', metrics := ['AP'], alternative := 1", "The 'alternative' parameter of rf_compare"),
        ("baseline := 'bm25', metrics := ['AP'], margin := -0.1", "The 'margin' parameter of rf_compare must be NULL"),
        ("baseline := 'bm25', metrics := ['AP'], margin := 'x'", "The 'margin' parameter of rf_compare must be NULL"),
        ("baseline := 'bm25', metrics := ['AP'], margin := 'inf'::DOUBLE", "The 'margin' parameter of rf_compare"),
        (
            "baseline := 'bm25', metrics := ['AP'], margin := 0.1, alternative := 'less'",
            "margin := (non-inferiority: H0 delta <= -margin) is a one-sided test of alternative := 'greater'",
        ),
    ],
)
def test_hostile_parameters(con, call, message):
    con.register("paired", pd.read_parquet(PAIRED))
    with pytest.raises(duckdb.Error, match=message.replace("(", r"\(").replace(")", r"\)")):
        con.execute(f"SELECT * FROM rf_compare('paired', {call})").fetchall()


def test_hostile_tables(con):
    df = pd.read_parquet(PAIRED)
    con.register("one", df[df.system == "bm25"])
    with pytest.raises(duckdb.Error, match="rf_compare needs at least 2 systems"):
        con.execute("SELECT * FROM rf_compare('one', baseline := 'bm25', metrics := ['AP'])").fetchall()
    # q01 removed for dense only: a query present for some systems and missing for another
    con.register("holes", df[~((df.system == "dense") & (df["query"] == "q01"))])
    with pytest.raises(duckdb.Error, match=r"systems must be compared on the same queries.*e\.g\. query=q01 .*'dense'"):
        con.execute("SELECT * FROM rf_compare('holes', baseline := 'bm25', metrics := ['AP'])").fetchall()


def test_through_the_duckdb_cli(tmp_path):
    from duckdb_binary import duckdb_cli

    binary = duckdb_cli()
    if binary is None:
        pytest.skip(
            "!!! the `duckdb` command-line binary is not installed — rf_compare was NOT run through the CLI !!!"
        )
    script = (
        "\n".join(
            [
                f".read '{rf_sql.bundle()}'",
                ".bail on",
                ".mode csv",
                ".headers on",
                ".nullvalue NULL",
                f"SELECT * FROM rf_compare('{PAIRED}', baseline := 'bm25', metrics := ['AP', 'nDCG'], "
                "k := 10, segments := ['length']);",
            ]
        )
        + "\n"
    )
    proc = subprocess.run(
        [binary, "-batch", "-init", "/dev/null"],
        input=script,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "Error" not in proc.stderr, proc.stderr
    got = pd.read_csv(pd.io.common.StringIO(proc.stdout), keep_default_na=False, na_values=["NULL"])
    got["note"] = got["note"].astype(object).where(got["note"].notna(), None)
    want = rankframe.compare(pd.read_parquet(PAIRED), ["AP@10", "nDCG@10"], baseline="bm25", by="length")
    assert_parity(got, want, ["length"])


@pytest.mark.parametrize("policy", ["zero", "nan"])
def test_absent_systems_null_segment_int_systems(con, policy):
    # system 2 has no row in segment 'c', the baseline (1) none in segment 'b': notes, n = 0; a NULL segment value
    # is a segment of its own (pandas groupby dropna=False); systems are integers, baseline := 1 (an int)
    df = _random_table(7, 3)
    df = df[~((df.sys == "S2") & (df.seg == "c")) & ~((df.sys == "S1") & (df.seg == "b"))].copy()
    df["sysn"] = df.pop("sys").str[1].astype(int)
    df.loc[df.seg == "a", "dev"] = None
    con.register("absent", df)
    got = con.execute(
        "SELECT * FROM rf_compare('absent', system := 'sysn', baseline := 1, metrics := ['AP', 'RR'], "
        f"k := 3, segments := ['seg', 'dev'], no_relevant := '{policy}')"
    ).df()
    want = rankframe.compare(df, ["AP@3", "RR@3"], system="sysn", baseline=1, by=["seg", "dev"], no_relevant=policy)
    assert_parity(got, want, ["seg", "dev"])
    assert set(got.note.dropna()) == {
        "system has no queries in this segment",
        "baseline has no queries in this segment",
    }


def test_docs_example(con, monkeypatch):
    # docs/sql.md "Comparing systems in SQL": its block = rankframe.compare on the same file
    import re

    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "sql.md").read_text()
    block = re.search(r"```sql\n-- example: compare_systems\n(.*?)```", text, re.S).group(1)
    got = con.execute(block).df()
    want = rankframe.compare(pd.read_parquet(PAIRED), ["AP@10", "nDCG@10"], baseline="bm25", by="length")
    cols = list(got.columns)
    assert cols == [
        "length",
        "metric",
        "system",
        "n",
        "delta",
        "ci_low",
        "ci_high",
        "p_value",
        "p_adjusted",
        "wins",
        "ties",
        "losses",
    ]
    assert list(got["metric"] + got["system"]) == list(want["metric"] + want["system"])  # same order
    for c in cols[3:]:
        tol = 1e-6 if c.startswith("p_") else 1e-9
        assert np.allclose(got[c].astype(float), want[c].astype(float), rtol=tol, atol=tol), c
    t = con.execute(re.search(r"```sql\n-- example: t_distribution\n(.*?)```", text, re.S).group(1)).fetchall()[0]
    assert math.isclose(t[0], stats.t.cdf(2.0, 10), rel_tol=1e-9) and math.isclose(
        t[1], stats.t.ppf(0.975, 10), rel_tol=1e-9
    )
