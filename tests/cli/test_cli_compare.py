"""`rankframe compare`: the rows of rankframe.compare, held to scipy/statsmodels/pytrec_eval, --fail-if-worse, errors.

Judges: ``rankframe.compare`` called with the same arguments (the command must only read, pass on and print),
``scipy.stats.ttest_rel`` and ``statsmodels``' Holm correction on per-query values from pytrec_eval or derived
by hand, and hand-built tables whose outcome is derived in a comment.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
PAIRED, RUN, RUN_B, QRELS = EX / "paired.parquet", EX / "tiny.run", EX / "tiny-b.run", EX / "tiny.qrels"
TREC = ROOT.parent / "shared" / "data" / "trec_eval" / "test"
RESULTS, TRUNC, TREC_QRELS = TREC / "results.test", TREC / "results.trunc", TREC / "qrels.test"


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def _need_trec() -> None:
    if not TREC_QRELS.exists():
        pytest.skip(f"SHARED DATA MISSING: {TREC} (expected the shared data folder next to the project)")


def _from_csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])


def _same_rows(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """The command's rows are compare's rows: same columns in the same order, same values (floats to 1e-12).

    One Parquet table takes the SQL road (its per-query values come from DuckDB's macros, whose sums are exact and
    order-free, sql/prepare.sql rf__xsum), the pandas engine sums in list order: the two may differ in the last bit.
    """
    assert list(got.columns) == list(expected.columns)
    expected = expected.reset_index(drop=True).copy()
    got = got.reset_index(drop=True).copy()
    for frame in (got, expected):
        frame["note"] = frame["note"].astype(object).where(frame["note"].notna(), None)
        for c in frame.columns:
            if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c]):
                frame[c] = frame[c].astype(object)
    for c in expected.columns:
        if pd.api.types.is_float_dtype(expected[c]):  # JSON's null is None: a float column's NaN
            got[c] = pd.to_numeric(got[c].astype(object).where(got[c].notna(), np.nan))
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, check_exact=False, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------------------- the rows of rankframe.compare

PAIRED_CASES = {
    "defaults (t, t interval, holm over all)": ([], {}),
    "randomization + bootstrap, seeded": (
        ["--test", "randomization", "--ci-method", "bootstrap", "--n-resamples", "500", "--seed", "7"],
        dict(test="randomization", ci_method="bootstrap", n_resamples=500, seed=7),
    ),
    "wilcoxon (hl_* columns) + BCa bootstrap, seeded": (
        ["--test", "wilcoxon", "--ci-method", "bca", "--n-resamples", "400", "--seed", "2"],
        dict(test="wilcoxon", ci_method="bca", n_resamples=400, seed=2),
    ),
    "wilcoxon, bh per metric, 90%": (
        ["--test", "wilcoxon", "--correction", "bh", "--family", "metric", "--ci", "0.9"],
        dict(test="wilcoxon", correction="bh", family=["metric"], ci=0.9),
    ),
    "all pairs (blocked Tukey HSD), no correction": (
        ["--pairs", "all", "--correction", "none"],
        dict(pairs="all", correction=None, baseline=None),
    ),
    "westfall-young per length, seeded": (
        ["--test", "randomization", "--correction", "westfall-young", "--family", "length", "--n-resamples", "300"]
        + ["--seed", "4"],
        dict(test="randomization", correction="westfall-young", family=["length"], n_resamples=300, seed=4),
    ),
    "bonferroni per (metric, length), duckdb engine": (
        ["--correction", "bonferroni", "--family", "metric,length", "--engine", "duckdb"],
        dict(correction="bonferroni", family=["metric", "length"], engine="duckdb"),
    ),
}


@pytest.mark.parametrize("case", list(PAIRED_CASES))
def test_same_rows_as_rankframe_compare_on_the_paired_example(capsys, case):
    flags, params = PAIRED_CASES[case]
    base = ["compare", str(PAIRED), "-m", "nDCG@5", "-m", "AP", "--by", "length", "--format", "csv"]
    baseline = [] if params.get("baseline", "bm25") is None else ["--baseline", "bm25"]
    code, out, err = run_main(capsys, *base, *baseline, *flags)
    assert code == 0 and err == "", err
    kwargs = {"baseline": "bm25", **params}
    expected = rankframe.compare(pd.read_parquet(PAIRED), ["nDCG@5", "AP"], by="length", **kwargs)
    _same_rows(_from_csv(out), expected)
    code, out, err = run_main(capsys, *base[:-1], "json", *baseline, *flags)
    assert code == 0
    _same_rows(pd.DataFrame(json.loads(out)), expected)


def test_paired_example_against_scipy_and_statsmodels(capsys):
    """Each row's delta, interval and p-value are scipy's paired t-test on the per-query values; p_adjusted is
    statsmodels' Holm over the 4 comparisons (2 metrics x 2 systems)."""
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    code, out, _ = run_main(
        capsys, "compare", str(PAIRED), "--baseline", "bm25", "-m", "nDCG@5", "-m", "AP", "--format", "csv"
    )
    assert code == 0
    got = _from_csv(out)
    per = rankframe.evaluate(pd.read_parquet(PAIRED), ["nDCG@5", "AP"], by="system", per_query=True)
    wide = per.pivot_table(index=["metric", "query"], columns="system", values="value")
    pvals = []
    for row in got.itertuples():
        x, y = wide.loc[row.metric][row.system], wide.loc[row.metric]["bm25"]
        res = stats.ttest_rel(x, y)
        ci = res.confidence_interval(0.95)
        assert (row.baseline, row.n) == ("bm25", 32)
        assert row.delta == pytest.approx(float(np.mean(x - y)), abs=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-12)
        assert row.p_value == pytest.approx(res.pvalue, rel=1e-9)
        pvals.append(res.pvalue)
    assert got["p_adjusted"].tolist() == pytest.approx(multipletests(pvals, method="holm")[1], rel=1e-9)


def test_trec_runs_same_rows_and_scipy_on_pytrec_eval(capsys):
    """results.test vs results.trunc on qrels.test: results.trunc retrieves nothing for the judged query 302,
    which counts as 0 (the join scores every system on every judged query), so both are compared on 301-303."""
    _need_trec()
    import pytrec_eval
    from scipy import stats

    args = ["compare", str(RESULTS), str(TRUNC), "--qrels", str(TREC_QRELS), "-m", "AP", "-m", "nDCG@10"]
    code, out, err = run_main(capsys, *args, "--format", "csv")
    assert code == 0 and err == "", err
    got = _from_csv(out)
    # both runs are tagged STANDARD: the systems are the file names, as in `rankframe evaluate`; the first is the
    # baseline by default
    assert got[["metric", "system", "baseline", "n"]].values.tolist() == [
        ["AP", "results.trunc", "results.test", 3],
        ["nDCG@10", "results.trunc", "results.test", 3],
    ]
    expected = rankframe.compare(
        rankframe.read_trec([str(RESULTS), str(TRUNC)], str(TREC_QRELS)), ["AP", "nDCG@10"], baseline="results.test"
    )
    _same_rows(got, expected)

    def read(path: Path, qrels: bool = False) -> dict:
        d: dict = {}
        for line in path.read_text().splitlines():
            f = line.split()
            if f:
                d.setdefault(f[0], {})[f[2]] = int(f[3]) if qrels else float(f[4])
        return d

    judged = read(TREC_QRELS, qrels=True)
    per = {}
    for path in (RESULTS, TRUNC):
        res = pytrec_eval.RelevanceEvaluator(judged, {"map", "ndcg_cut_10"}).evaluate(read(path))
        per[path.name] = res
    assert sorted(per["results.trunc"]) == ["301", "303"]  # pytrec_eval = trec_eval without -c
    for row, measure in zip(got.itertuples(), ("map", "ndcg_cut_10")):
        x = [per["results.trunc"].get(q, {measure: 0.0})[measure] for q in ("301", "302", "303")]  # -c: 302 -> 0
        y = [per["results.test"][q][measure] for q in ("301", "302", "303")]
        res = stats.ttest_rel(x, y)
        assert row.delta == pytest.approx(np.mean(x) - np.mean(y), abs=1e-12)
        assert (row.ci_low, row.ci_high) == pytest.approx(tuple(res.confidence_interval(0.95)), abs=1e-12)
        assert row.p_value == pytest.approx(res.pvalue, rel=1e-9)
    assert got["p_adjusted"].tolist() == [1.0, 1.0]  # Holm: 2 * 0.708 and max(that, 0.731) both exceed 1

    # trec_eval's default (skip what a run did not retrieve) misaligns the runs: an error in the command's words,
    # and --missing drop compares them on the queries both retrieved (301, 303)
    code, out, err = run_main(capsys, *args, "--no-retrieved", "skip")
    assert code == 2 and out == ""
    assert "systems must be compared on the same queries" in err and "--missing zero" in err
    assert "missing=" not in err and "302" in err and "results.trunc" in err
    code, out, err = run_main(capsys, *args, "--no-retrieved", "skip", "--missing", "drop", "--format", "csv")
    assert code == 0, err
    got = _from_csv(out)
    assert got["n"].tolist() == [2, 2]
    x = [per["results.trunc"][q]["map"] for q in ("301", "303")]
    y = [per["results.test"][q]["map"] for q in ("301", "303")]
    assert got["p_value"][0] == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-9)


def test_several_tables_and_a_system_column_of_another_name(tmp_path, capsys):
    """Several long tables are the systems (file names); one table names its system column with --system."""
    df = pd.read_parquet(PAIRED)
    for name in ("bm25", "dense"):
        df[df["system"] == name].drop(columns="system").to_parquet(tmp_path / f"{name}.parquet")
    code, out, err = run_main(
        capsys, "compare", str(tmp_path / "bm25.parquet"), str(tmp_path / "dense.parquet"), "-m", "AP",
        "--by", "length", "--format", "csv",
    )  # fmt: skip
    assert code == 0, err
    got = _from_csv(out)
    assert got[["length", "system", "baseline"]].values.tolist() == [
        ["long", "dense.parquet", "bm25.parquet"],
        ["short", "dense.parquet", "bm25.parquet"],
    ]
    expected = rankframe.compare(df[df["system"] != "hybrid"], "AP", by="length", baseline="bm25")
    assert got["delta"].tolist() == expected["delta"].tolist()
    assert got["p_value"].tolist() == expected["p_value"].tolist()

    model = tmp_path / "model.parquet"
    df.rename(columns={"system": "model"}).to_parquet(model)
    code, out, err = run_main(capsys, "compare", str(model), "--system", "model", "--baseline", "bm25", "-m", "AP")
    assert code == 0, err
    assert out.splitlines()[0].startswith("two-sided paired t-test against baseline 'bm25'")


def test_a_table_without_judgments_and_a_qrels_file(tmp_path, capsys):
    """A run table (system column 'model', no relevance) + TREC qrels = the same table with its relevance."""
    df = pd.read_parquet(PAIRED)
    assert df.groupby(["query", "item"])["relevance"].nunique().max() == 1  # one judgment per (query, item)
    judged = df.dropna(subset=["relevance"]).drop_duplicates(["query", "item"])
    qrels = tmp_path / "paired.qrels"
    qrels.write_text("".join(f"{r.query} 0 {r.item} {int(r.relevance)}\n" for r in judged.itertuples()))
    run = tmp_path / "run.parquet"
    df.drop(columns="relevance").rename(columns={"system": "model"}).to_parquet(run)
    args = ["compare", str(run), "--qrels", str(qrels), "--system", "model", "--baseline", "bm25", "-m", "AP"]
    code, out, err = run_main(capsys, *args, "--by", "length", "--format", "csv")
    assert code == 0, err
    expected = rankframe.compare(df, "AP", by="length", baseline="bm25")
    got = _from_csv(out)
    assert got["system"].tolist() == expected["system"].tolist()
    assert got["delta"].tolist() == pytest.approx(expected["delta"].tolist(), abs=1e-15)
    assert got["p_value"].tolist() == pytest.approx(expected["p_value"].tolist(), rel=1e-12)
    # a system none of whose queries the qrels judge is named
    other = df.drop(columns="relevance").rename(columns={"system": "model"})
    other.loc[other["model"] == "dense", "query"] = "x" + other["query"]
    other.to_parquet(run)
    code, out, err = run_main(capsys, *args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{qrels}: none of the 32 queries of system 'dense' has judgments in the qrels ('xq01'," in err


def test_system_names_that_are_numbers(tmp_path, capsys):
    """--baseline is text; a table's system column may hold numbers: matched by its text."""
    df = pd.read_parquet(PAIRED)
    df["system"] = df["system"].map({"bm25": 1, "dense": 2, "hybrid": 3})
    t = tmp_path / "t.parquet"
    df.to_parquet(t)
    code, out, err = run_main(capsys, "compare", str(t), "--baseline", "1", "-m", "AP", "--format", "csv")
    assert code == 0, err
    expected = rankframe.compare(df, "AP", baseline=1)
    _same_rows(_from_csv(out), expected)


def test_every_option_reaches_rankframe_compare(monkeypatch, capsys):
    """The command passes each option on under compare's name (engine, policies and duplicates included: the
    engines give the same numbers, so only a spy can tell that --engine was passed)."""
    seen = {}
    real = rankframe.compare

    def spy(df, metrics, **kwargs):
        seen.update(kwargs)
        return real(df, metrics, **kwargs)

    monkeypatch.setattr("rankframe.cli.compare.compare", spy)  # where the command looks it up
    code, _, err = run_main(
        capsys, "compare", str(PAIRED), "-m", "AP", "--baseline", "dense", "--by", "length", "--engine", "duckdb",
        "--no-relevant", "nan", "--no-retrieved", "skip", "--no-judged", "zero", "--allow-duplicates",
        "--test", "wilcoxon", "--ci", "0.8", "--ci-method", "bootstrap", "--correction", "bonferroni",
        "--family", "metric", "--family", "length", "--n-resamples", "50", "--seed", "4", "--missing", "drop",
        "--alternative", "less", "--zero-method", "pratt",
    )  # fmt: skip
    assert code == 0, err
    columns = seen.pop("columns")
    assert columns.system == "system" and columns.query == "query"
    assert seen == dict(
        system="system", baseline="dense", by=["length"], engine="duckdb", no_relevant="nan", no_retrieved="skip",
        no_judged="zero", allow_duplicates=True, test="wilcoxon", ci=0.8, ci_method="bootstrap",
        correction="bonferroni", family=["metric", "length"], n_resamples=50, seed=4, missing="drop",
        pairs="baseline", qrels=None, alternative="less", margin=None, zero_method="pratt",
    )  # fmt: skip
    seen.clear()
    code, _, err = run_main(capsys, "compare", str(PAIRED), "-m", "AP", "--baseline", "dense", "--margin", "0.02")
    assert code == 0, err
    assert seen["margin"] == 0.02 and seen["alternative"] is None  # compare's default: "greater" with a margin


# ------------------------------------------------------------------------------------------------ table formats


def test_table_and_markdown_are_rounded_under_a_caption(capsys):
    code, out, _ = run_main(
        capsys, "compare", str(PAIRED), "--baseline", "bm25", "-m", "nDCG@5", "-m", "AP", "--by", "length"
    )
    assert code == 0
    lines = out.splitlines()
    # the caption: test, interval, correction and its family (compare's attrs); 2 systems x 2 metrics x 2 lengths
    assert lines[0] == (
        "two-sided paired t-test against baseline 'bm25'; 95% t interval; p_adjusted: Holm over all 8 comparisons "
        "of the call; effect_size: d_z = delta / sd of the differences"
    )
    # every column but note (every note is None) and hl_* (NaN: no Wilcoxon test)
    assert (
        lines[1].split()
        == (
            "length metric system baseline n mean baseline_mean delta ci_low ci_high p_value p_adjusted "
            "ci_low_adjusted ci_high_adjusted statistic df "
            "sd_diff effect_size hedges_gz hedges_gz_low hedges_gz_high mde wins ties losses"
        ).split()
    )
    expected = rankframe.compare(pd.read_parquet(PAIRED), ["nDCG@5", "AP"], baseline="bm25", by="length")
    first = expected.iloc[0]
    assert lines[2].split()[:5] == ["long", "nDCG@5", "dense", "bm25", "16"]
    assert lines[2].split()[7] == f"{first['delta']:.4f}" and len(lines) == 2 + 8
    code, out, _ = run_main(
        capsys, "compare", str(PAIRED), "--baseline", "bm25", "-m", "AP", "--format", "markdown", "--pairs", "all",
        "--test", "randomization", "--seed", "3", "--n-resamples", "999", "--ci-method", "t", "--family", "metric",
    )  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "two-sided paired randomization test (999 sign flips, seed 3) on every pair of systems; 95% t interval; "
        "p_adjusted: Holm per metric (1 family); effect_size: d_z = delta / sd of the differences"
    )
    assert lines[1] == "" and lines[2].startswith("| metric | system | baseline | n | mean |")
    assert lines[3].startswith("|---|---|---|---:|---:|") and len(lines) == 4 + 3  # 3 pairs of 3 systems


def test_tiny_p_values_keep_their_digits(capsys):
    """hybrid vs bm25 on nDCG@5 over all 32 queries: p ~ 5e-6, shown as 2 significant digits, never 0.0000."""
    code, out, _ = run_main(capsys, "compare", str(PAIRED), "--baseline", "bm25", "-m", "nDCG@5")
    assert code == 0
    row = out.splitlines()[3].split()
    assert row[1] == "hybrid" and "e-0" in row[10], row


def test_notes_are_shown_when_there_are_some(tmp_path, capsys):
    # two systems, identical on both queries: every difference 0 -> p NaN, note "identical on every query ..."
    t = tmp_path / "same.csv"
    t.write_text("system,query,item,rank,relevance\n" + "".join(f"{s},{q},a,1,1\n" for s in "AB" for q in (1, 2)))
    code, out, err = run_main(capsys, "compare", str(t), "-m", "P@1")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split()[-1] == "note" and "identical on every query" in lines[2]
    code, out, err = run_main(capsys, "compare", str(t), "-m", "P@1", "--format", "json")
    row = json.loads(out)[0]
    assert row["p_value"] is None and row["note"].startswith("identical on every query") and row["delta"] == 0.0


# ------------------------------------------------------------------------------------------------ --fail-if-worse


def _worse_table(tmp_path: Path, with_c: bool = False) -> Path:
    """Systems A and B (and C, a copy of B), 7 queries, one relevant item each, two segments (x: queries 1-5,
    y: queries 6-7).

    Segment x: A ranks the relevant item first (RR 1), B at ranks 2, 2, 3, 2, 4 (RR 1/2, 1/2, 1/3, 1/2, 1/4).
    Differences B - A: -1/2, -1/2, -2/3, -1/2, -3/4; mean -7/12 = -0.5833; deviations 1/12, 1/12, -1/12, 1/12,
    -1/6: sum of squares 4/144 + 4/144 = 1/18, sd = sqrt(1/72) = 0.11785, se = sd / sqrt(5) = 0.052705,
    t = -11.07 on 4 df; t_{4, 0.9995} = 8.610, so the two-sided p < 0.001.
    Segment y: A and B rank the relevant item first on both queries: every difference 0, p NaN (no evidence).
    Holm over the 2 comparisons: the NaN one is left out, so x's p_adjusted = p < 0.001.
    """
    ranks_b = {1: 2, 2: 2, 3: 3, 4: 2, 5: 4, 6: 1, 7: 1}
    lines = ["system,segment,query,item,rank,relevance"]
    for q, rb in ranks_b.items():
        seg = "x" if q <= 5 else "y"
        for system, pos in (("A", 1), ("B", rb), *((("C", rb),) if with_c else ())):
            # the relevant item 'r' at `pos`, non-relevant fillers above it
            lines += [f"{system},{seg},{q},f{i},{i},0" for i in range(1, pos)] + [f"{system},{seg},{q},r,{pos},1"]
    t = tmp_path / "worse.csv"
    t.write_text("\n".join(lines) + "\n")
    return t


def test_fail_if_worse_exits_1_naming_the_losses(tmp_path, capsys):
    t = _worse_table(tmp_path)
    args = ["compare", str(t), "-m", "RR", "--by", "segment", "--fail-if-worse", "--format", "csv"]
    code, out, err = run_main(capsys, *args, "--baseline", "A")
    assert code == 1
    got = _from_csv(out)  # the results are printed as usual
    x = got[got["segment"] == "x"].iloc[0]
    assert x["delta"] == pytest.approx(-7 / 12) and x["p_adjusted"] < 0.001 and x["n"] == 5
    assert math.isnan(got[got["segment"] == "y"].iloc[0]["p_value"])
    # scipy's t-test on the differences derived above (the interval and p-value to 4 decimals, as printed)
    from scipy import stats

    res = stats.ttest_1samp([-1 / 2, -1 / 2, -2 / 3, -1 / 2, -3 / 4], 0.0)
    low, high = res.confidence_interval(0.95)
    assert 1e-4 < res.pvalue < 1e-3
    assert err.splitlines() == [
        f"rankframe: worse: B < A on RR (segment=x): delta -0.5833 [{low:.4f}, {high:.4f}], "
        f"p_adjusted {res.pvalue:.4f} < alpha 0.05"
    ]
    # B as the baseline: A is clearly better, nothing is worse -> exit 0, nothing on stderr
    code, out, err = run_main(capsys, *args, "--baseline", "B")
    assert code == 0 and err == "" and _from_csv(out)["delta"].iloc[0] == pytest.approx(7 / 12)
    # the level: p ~ 4e-4 is not below alpha = 1e-4
    code, out, err = run_main(capsys, *args, "--baseline", "A", "--alpha", "0.0001")
    assert code == 0 and err == ""
    # without the flag the command never fails on results
    code, out, err = run_main(capsys, *[a for a in args if a != "--fail-if-worse"], "--baseline", "A")
    assert code == 0 and err == ""


def test_fail_if_worse_with_a_margin_is_a_non_inferiority_gate(tmp_path, capsys):
    # _worse_table: segment x, B - A = -1/2, -1/2, -2/3, -1/2, -3/4 (mean -7/12, se = sqrt(1/72) / sqrt(5));
    # segment y: B = A on both queries.
    t = _worse_table(tmp_path)
    args = ["compare", str(t), "-m", "RR", "--by", "segment", "--fail-if-worse", "--format", "csv", "--baseline"]
    from scipy import stats

    d = [-1 / 2, -1 / 2, -2 / 3, -1 / 2, -3 / 4]
    # margin 0.1: t = (-7/12 + 0.1) / se = -9.17, p = 0.9996: not shown in x -> exit 1, naming x only; in y the
    # systems are identical, t = 0.1 / 0 = +inf, p = 0: non-inferior (an unchanged system passes the gate)
    code, out, err = run_main(capsys, *args, "A", "--margin", "0.1")
    ref = stats.ttest_1samp(d, -0.1, alternative="greater")
    got = _from_csv(out).set_index("segment")
    assert code == 1 and got.loc["x", "statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert got.loc["x", "p_value"] == pytest.approx(ref.pvalue, rel=1e-12) and got.loc["y", "p_value"] == 0
    assert got.loc["x", "ci_high"] == math.inf
    assert err.splitlines() == [
        f"rankframe: worse: B not shown non-inferior to A on RR (segment=x) within margin 0.1: delta -0.5833, "
        f"lower bound {got.loc['x', 'ci_low']:.4f}, p_adjusted {got.loc['x', 'p_adjusted']:.4f} >= alpha 0.05"
    ]
    # margin 1: t = (1 - 7/12) / se = 7.91 on 4 df, one-sided p = 0.0007 (Holm x 1: y's p = 0 is the smallest):
    # B is worse than A, but by less than 1 RR: non-inferior everywhere -> exit 0
    ref = stats.ttest_1samp(d, -1.0, alternative="greater")
    assert ref.pvalue < 0.025
    code, out, err = run_main(capsys, *args, "A", "--margin", "1")
    assert code == 0 and err == "", err
    assert _from_csv(out).set_index("segment").loc["x", "p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    # --alternative greater without a margin cannot find a worse system: a usage error before any file is read
    code, out, err = run_main(capsys, *args, "A", "--alternative", "greater")
    assert code == 2 and out == "" and "--alternative greater cannot show" in err
    code, out, err = run_main(capsys, *args, "A", "--margin", "0.1", "--alternative", "less")
    assert code == 2 and "got --alternative less" in err


def test_fail_if_worse_with_all_pairs_looks_at_the_baseline(tmp_path, capsys):
    t = _worse_table(tmp_path)
    base = ["compare", str(t), "-m", "RR", "--by", "segment", "--pairs", "all", "--test", "t", "--fail-if-worse"]
    code, out, err = run_main(capsys, *base, "--baseline", "A")
    assert code == 1 and err.startswith("rankframe: worse: B < A on RR (segment=x)")
    code, out, err = run_main(capsys, *base, "--baseline", "B")
    assert code == 0 and err == ""
    code, out, err = run_main(capsys, *base)
    assert code == 2 and out == "" and "--fail-if-worse with --pairs all needs --baseline" in err
    # C is a copy of B: against the baseline B, A is better and C the same (exit 0), though C is significantly
    # worse than A in the pair (C, A), which does not involve the baseline
    t = _worse_table(tmp_path, with_c=True)
    base[1] = str(t)
    code, out, err = run_main(capsys, *base, "--baseline", "B", "--format", "csv")
    assert code == 0 and err == "", err
    got = _from_csv(out).set_index(["segment", "system", "baseline"])
    assert got.loc[("x", "C", "A"), "delta"] == pytest.approx(-7 / 12) and got.loc[("x", "C", "A"), "p_adjusted"] < 0.05
    code, out, err = run_main(capsys, *base, "--baseline", "A")
    assert code == 1 and len(err.splitlines()) == 2 and "C < A on RR (segment=x)" in err


def test_exit_status_1_in_a_process(tmp_path):
    t = _worse_table(tmp_path)
    p = subprocess.run(
        [sys.executable, "-m", "rankframe", "compare", str(t), "-m", "RR", "--baseline", "A", "--fail-if-worse"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("rankframe: worse: B < A on RR: delta ") and p.stdout.startswith(
        "two-sided paired t-test"
    )


# ------------------------------------------------------------------------------------------------ hostile inputs


def _one_system(tmp_path: Path) -> Path:
    t = tmp_path / "one.csv"
    t.write_text("system,query,item,rank,relevance\nA,1,a,1,1\nA,2,a,1,0\n")
    return t


HOSTILE = {
    "unknown baseline, did you mean": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--baseline", "bm52"],
        # compare's own rule (compare._pick_baseline), in the command's words
        "--baseline bm52: no such system; it must be one of the systems in column 'system': ['bm25', 'dense', "
        "'hybrid']. Got 'bm52' instead. Hint: did you mean 'bm25'?",
    ),
    "unknown baseline among runs": (
        lambda tmp: [str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--baseline", "tiny-c"],
        "--baseline tiny-c: no such system; it must be one of the systems (the runs' tags, or the tables' file "
        "names): ['tiny', 'tiny-b']. Got 'tiny-c' instead. Hint: did you mean 'tiny-b'?",
    ),
    "one TREC run": (
        lambda tmp: [str(RUN), "--qrels", str(QRELS), "-m", "AP"],
        f"compare needs at least 2 systems: give 2 or more TREC runs (got only {str(RUN)!r})",
    ),
    "one system in the table": (
        lambda tmp: [str(_one_system(tmp)), "-m", "AP"],
        "compare needs at least 2 systems in column 'system'; found 1: ['A'] (or give the column with --system COL)",
    ),
    "unknown metric": (
        lambda tmp: [str(PAIRED), "-m", "nDGC@5"],
        "unknown metric 'nDGC'. Known: ",
    ),
    "no metric": (lambda tmp: [str(PAIRED)], "compare needs the metrics to compare on: -m METRIC"),
    "--alpha 2": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--alpha", "2", "--fail-if-worse"],
        "--alpha must be a level in the open interval (0, 1), e.g. 0.05; got 2",
    ),
    "--alpha 0": (lambda tmp: [str(PAIRED), "-m", "AP", "--alpha", "0"], "--alpha must be a level"),
    "--alpha nan": (lambda tmp: [str(PAIRED), "-m", "AP", "--alpha", "nan"], "--alpha must be a level"),
    "--ci 1": (lambda tmp: [str(PAIRED), "-m", "AP", "--ci", "1"], "--ci must be a float in the open interval (0, 1)"),
    "--ci checked before any file is read": (
        lambda tmp: [str(tmp / "nope.parquet"), "-m", "AP", "--ci", "1.5"],
        "--ci must be a float in the open interval (0, 1), e.g. 0.95. Got 1.5 instead.",
    ),
    "--test tukey without --pairs all": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--test", "tukey"],
        "--test tukey compares every pair of systems at once (the blocked Tukey HSD); pass --pairs all with it",
    ),
    "--n-resamples 0": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--test", "randomization", "--n-resamples", "0"],
        "--n-resamples must be an int from 1 to 10,000,000",  # compare's rule, before any file is read, in the option's words
    ),
    "--family unknown": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--family", "metirc"],
        "--family must be 'all' or column name(s) among",
    ),
    "--system with runs": (
        lambda tmp: [str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--system", "tag"],
        "--system names the system column of one long table; with several TREC runs each one is a system",
    ),
    "--system misspelled": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--system", "sytem"],
        f"{PAIRED}: no column 'sytem' (--system sytem) (did you mean 'system'?)",
    ),
    "--by system": (
        lambda tmp: [str(PAIRED), "-m", "AP", "--by", "system"],
        "the system column 'system' is also in --by system",  # the command's flag (rankframe.errors.keyword)
    ),
    "--by with runs": (
        lambda tmp: [str(RUN), str(RUN_B), "--qrels", str(QRELS), "-m", "AP", "--by", "length"],
        "--by length: TREC runs have no segment columns",
    ),
    "run without qrels": (lambda tmp: [str(RUN), str(RUN_B), "-m", "AP"], "needs judgments: add --qrels QRELS"),
    "missing file": (
        lambda tmp: [str(RUN), str(tmp / "nope.run"), "--qrels", str(QRELS), "-m", "AP"],
        "nope.run: file not found",
    ),
    "a table with its own system column among several": (
        lambda tmp: [str(PAIRED), str(PAIRED), "-m", "AP"],
        "already has a column 'system', which the command adds to tell several tables apart (the file name); "
        "compare the systems of one table with --system COL",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_inputs_exit_2_with_one_clear_line(tmp_path, capsys, case):
    make, expected = HOSTILE[case]
    code, out, err = run_main(capsys, "compare", *make(tmp_path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rankframe: error: "), err
    assert expected in err, err


def test_bad_choices_are_argparse_errors(capsys):
    for flags in (["--test", "anova"], ["--correction", "sidak"], ["--missing", "skip"], ["--seed", "x"]):
        with pytest.raises(SystemExit) as e:
            main(["compare", str(PAIRED), "-m", "AP", *flags])
        assert e.value.code == 2
        assert "invalid" in capsys.readouterr().err


def test_one_parquet_table_is_compared_in_duckdb_without_pandas(monkeypatch, capsys, tmp_path):
    # the SQL road (issue 10): the table never goes through rankframe.io.read_long; same rows as compare() on the
    # frame (the oracle, test_same_rows_as_rankframe_compare_on_the_paired_example covers the options)
    import rankframe.io
    import rankframe.io.tables

    def no_pandas(*args, **kwargs):
        raise AssertionError("read into pandas")

    monkeypatch.setattr(rankframe.io, "read_long", no_pandas)
    monkeypatch.setattr(rankframe.io.tables, "read_long", no_pandas)  # where rankframe.inputs takes it from
    code, out, err = run_main(capsys, "compare", str(PAIRED), "-m", "AP", "--by", "length", "--format", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    want = rankframe.compare(pd.read_parquet(PAIRED), "AP", by="length")
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=1e-9)
    assert got["system"].tolist() == want["system"].tolist()
    # a misspelled --system is named with the file's columns, one line, exit 2
    code, _, err = run_main(capsys, "compare", str(PAIRED), "-m", "AP", "--system", "sytem")
    assert code == 2 and "no column 'sytem' (--system sytem) (did you mean 'system'?" in err
    # null systems: the rule and the count
    df = pd.read_parquet(PAIRED)
    df.loc[0, "system"] = None
    df.to_parquet(tmp_path / "nulls.parquet")
    code, _, err = run_main(capsys, "compare", str(tmp_path / "nulls.parquet"), "-m", "AP")
    assert code == 2 and "every row must name its system" in err


def test_several_baselines_gate_the_systems_that_are_not_baselines(tmp_path, capsys):
    # _worse_table with C (a copy of B): B and C lose to A on segment x (delta -7/12, p < 0.001, derived there).
    # --baseline A --baseline B: rows B vs A, C vs A, then C vs B (A vs B is not repeated). B is a baseline, so its
    # loss to A is reported in the table but does not fail the gate; C's loss to A does.
    t = _worse_table(tmp_path, with_c=True)
    args = ["compare", str(t), "-m", "RR", "--by", "segment", "--format", "csv", "--fail-if-worse"]
    code, out, err = run_main(capsys, *args, "--baseline", "A", "--baseline", "B")
    got = _from_csv(out)
    x = got[got["segment"] == "x"]
    assert list(zip(x["system"], x["baseline"])) == [("B", "A"), ("C", "A"), ("C", "B")]
    assert code == 1
    assert [line.split(" on ")[0] for line in err.splitlines()] == ["rankframe: worse: C < A"]
