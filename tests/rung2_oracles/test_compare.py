"""rankframe.compare: the public comparison, held to scipy/statsmodels on evaluate's per-query values.

The oracle side pivots ``rankframe.evaluate(..., per_query=True)`` with plain pandas and runs scipy on each
(segment, metric, system) pair, one at a time; compare computes everything at once through rankframe.stats.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from stats_oracle import wilcoxon_p
from statsmodels.stats.multitest import multipletests

import rankframe
from rankframe.compare import OUTPUT_COLUMNS, compare
from rankframe.core.errors import ParameterError, RankframeError, ValidationError

PAIRED = Path(__file__).resolve().parents[2] / "examples" / "paired.parquet"
METRICS = ["nDCG@5", "AP", "P@5"]
#: the columns docs/comparing.md's worked example leaves out (its text says so)
DOCS_LEFT_OUT = [
    *("ci_low_adjusted", "ci_high_adjusted", "statistic", "df", "sd_diff", "mde", "n_filled", "n_dropped", "note")
]
DOCS_LEFT_OUT += ["hedges_gz", "hedges_gz_low", "hedges_gz_high", "hl_estimate", "hl_low", "hl_high"]  # own sections


@pytest.fixture(scope="module")
def paired() -> pd.DataFrame:
    return pd.read_parquet(PAIRED)


def _wide(df: pd.DataFrame, metrics, by=()) -> pd.DataFrame:
    """Oracle input: evaluate's per-query values as one column per system, indexed by (segment, metric, query)."""
    per = rankframe.evaluate(df, metrics, by=[*by, "system"], per_query=True)
    return per.pivot(index=[*by, "metric", "query"], columns="system", values="value")


def _segments(wide: pd.DataFrame, by):
    keys = [*by, "metric"]
    for key, block in wide.groupby(level=keys, sort=False):
        yield (key if isinstance(key, tuple) else (key,)), block


def _row(out: pd.DataFrame, by, key, system, baseline="bm25") -> pd.Series:
    mask = (out["system"] == system) & (out["baseline"] == baseline)
    for col, val in zip([*by, "metric"], key):
        mask &= out[col] == val
    assert mask.sum() == 1, (key, system)
    return out[mask].iloc[0]


# --------------------------------------------------------------------------- against the oracles


@pytest.mark.parametrize("by", [[], ["length"]])
def test_t_test_rows_match_scipy_per_segment(paired, by):
    out = compare(paired, METRICS, baseline="bm25", by=by or None)
    assert list(out.columns) == [*by, *OUTPUT_COLUMNS]
    wide = _wide(paired, METRICS, by)
    n_rows = 0
    for key, block in _segments(wide, by):
        for system in ("dense", "hybrid"):
            a, b = block[system].to_numpy(), block["bm25"].to_numpy()
            d = a - b
            ref = sps.ttest_rel(a, b)
            ci = ref.confidence_interval(0.95)
            row = _row(out, by, key, system)
            assert row["n"] == len(a) and row["note"] is None
            assert row["mean"] == pytest.approx(a.mean(), abs=1e-12)
            assert row["baseline_mean"] == pytest.approx(b.mean(), abs=1e-12)
            assert row["delta"] == pytest.approx(d.mean(), abs=1e-12)
            assert row["ci_low"] == pytest.approx(ci.low, abs=1e-12)
            assert row["ci_high"] == pytest.approx(ci.high, abs=1e-12)
            assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
            assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-10)
            assert (row["wins"], row["ties"], row["losses"]) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
            n_rows += 1
    assert len(out) == n_rows
    # Holm over every comparison of the call (the default family)
    np.testing.assert_allclose(out["p_adjusted"], multipletests(out["p_value"], method="holm")[1], rtol=1e-12)
    assert out.attrs["test"] == "t" and out.attrs["ci_method"] == "t" and out.attrs["ci"] == 0.95
    assert out.attrs["correction"] == "holm" and out.attrs["family"] == f"all {len(out)} comparisons of the call"


@pytest.mark.parametrize("correction,sm", [("bonferroni", "bonferroni"), ("bh", "fdr_bh"), ("holm", "holm")])
def test_corrections_and_family_per_metric(paired, correction, sm):
    out = compare(paired, METRICS, baseline="bm25", by="length", correction=correction, family="metric")
    for metric, part in out.groupby("metric"):
        np.testing.assert_allclose(part["p_adjusted"], multipletests(part["p_value"], method=sm)[1], rtol=1e-12)
    assert out.attrs["family"] == "per metric (3 families)"
    none = compare(paired, METRICS, baseline="bm25", correction=None)
    np.testing.assert_array_equal(none["p_adjusted"], none["p_value"])


def test_wilcoxon_rows_match_scipy(paired):
    out = compare(paired, ["nDCG@5", "AP"], baseline="bm25", by="length", test="wilcoxon")
    wide = _wide(paired, ["nDCG@5", "AP"], ["length"])
    for key, block in _segments(wide, ["length"]):
        for system in ("dense", "hybrid"):
            d = np.round(block[system].to_numpy() - block["bm25"].to_numpy(), 12)  # ties exact for scipy
            assert _row(out, ["length"], key, system)["p_value"] == pytest.approx(wilcoxon_p(d), rel=1e-9)
    assert out.attrs["test"] == "wilcoxon"


def test_wilcoxon_p_at_5_equals_hits_at_5(paired):
    # P@5 = Hits@5 / 5 on every query: the differences rank the same way, so every p-value is the same; float
    # noise in the P@5 differences (0.6 - 0.4 != 0.4 - 0.2) used to rank equal differences apart
    out = compare(paired, ["P@5", "Hits@5"], baseline="bm25", by="length", test="wilcoxon", correction=None)
    p, hits = out[out["metric"] == "P@5"], out[out["metric"] == "Hits@5"]
    np.testing.assert_array_equal(p["p_value"].to_numpy(), hits["p_value"].to_numpy())
    wide = _wide(paired, ["Hits@5"], ["length"])
    for key, block in _segments(wide, ["length"]):
        for system in ("dense", "hybrid"):
            d = block[system].to_numpy() - block["bm25"].to_numpy()  # integers: exact ties
            assert _row(out, ["length"], key, system)["p_value"] == pytest.approx(wilcoxon_p(d), rel=1e-9)


def test_randomization_exact_rows_match_scipy_permutation_test(paired):
    # 8 queries per segment: 2**8 = 256 <= n_resamples, so both enumerate every sign pattern exactly
    small = paired[paired["query"].isin([f"q{i:02d}" for i in range(1, 17)])]
    out = compare(
        small, ["nDCG@5", "P@5"], baseline="bm25", by="length", test="randomization", n_resamples=1000, seed=1
    )
    assert out.attrs["exact_segments"] == 2 and out.attrs["n_resamples"] == 1000
    wide = _wide(small, ["nDCG@5", "P@5"], ["length"])
    for key, block in _segments(wide, ["length"]):
        for system in ("dense", "hybrid"):
            ref = sps.permutation_test(
                (block[system].to_numpy(), block["bm25"].to_numpy()),
                lambda a, b, axis: np.mean(a - b, axis=axis),
                permutation_type="samples",
                vectorized=True,
                n_resamples=1000,
            )
            assert _row(out, ["length"], key, system)["p_value"] == pytest.approx(ref.pvalue, abs=1e-12)


def test_randomization_is_seeded(paired):
    kw = dict(baseline="bm25", by="length", test="randomization", n_resamples=2000)
    a = compare(paired, ["AP"], seed=5, **kw)
    b = compare(paired, ["AP"], seed=5, **kw)
    pd.testing.assert_frame_equal(a, b)
    fresh = compare(paired, ["AP"], **kw)
    again = compare(paired, ["AP"], seed=fresh.attrs["seed"], **kw)  # the recorded entropy reproduces the run
    pd.testing.assert_series_equal(fresh["p_value"], again["p_value"])
    # 16 queries: random mode; p = (hits + 1) / (B + 1) is a multiple of 1 / 2001
    hits = a["p_value"].to_numpy() * 2001 - 1
    np.testing.assert_allclose(hits, np.round(hits), atol=1e-8)


def test_bootstrap_interval_matches_scipy_in_distribution(paired):
    out = compare(paired, ["nDCG@5"], baseline="bm25", by="length", ci_method="bootstrap", n_resamples=20_000, seed=3)
    assert out.attrs["ci_method"] == "bootstrap"
    wide = _wide(paired, ["nDCG@5"], ["length"])
    for key, block in _segments(wide, ["length"]):
        for system in ("dense", "hybrid"):
            a, b = block[system].to_numpy(), block["bm25"].to_numpy()
            ref = sps.bootstrap(
                (a, b),
                lambda u, v, axis: np.mean(u - v, axis=axis),
                paired=True,
                vectorized=True,
                n_resamples=20_000,
                method="percentile",
                rng=np.random.default_rng(4),
            )
            se = (a - b).std(ddof=1) / np.sqrt(len(a))
            row = _row(out, ["length"], key, system)
            assert row["ci_low"] == pytest.approx(ref.confidence_interval.low, abs=0.15 * se)
            assert row["ci_high"] == pytest.approx(ref.confidence_interval.high, abs=0.15 * se)


# --------------------------------------------------------------------------- all pairs: blocked Tukey HSD


def _precision_table(counts: dict[str, list[int]], segment: str) -> pd.DataFrame:
    """A ranking table whose P@10 per query is counts / 10: query q's top `c` items are relevant."""
    rows = []
    for system, per_query in counts.items():
        for qi, c in enumerate(per_query):
            for r in range(1, 11):
                rows.append((system, f"{segment}{qi}", f"d{r}", r, int(r <= c), segment))
    return pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance", "segment"])


def test_all_pairs_tukey_hand_derivation_per_segment():
    # Segment "a": P@10 x 10 = the hand table of tests/rung2_oracles/test_stats.py (A: 1 3 2 2, B: 4 5 6 5, C: 4 7 1 8):
    # column means 2, 5, 5 (/10), MSE = 22 / 6 (/100), df = 6, se = sqrt(MSE / 4) = sqrt(11 / 12) / 10,
    # B - A = C - A = 0.3, C - B = 0, q = 3 / sqrt(11 / 12) = 3.1334, p = P(Q(3, 6) >= q).
    # Segment "b": C moved up by 0.2 on every query (C: 6 9 3 10): residuals unchanged (a constant per system
    # is absorbed by its column mean), so MSE and se are the same; C - A = 0.5, C - B = 0.2.
    df = pd.concat(
        [
            _precision_table({"A": [1, 3, 2, 2], "B": [4, 5, 6, 5], "C": [4, 7, 1, 8]}, "a"),
            _precision_table({"A": [1, 3, 2, 2], "B": [4, 5, 6, 5], "C": [6, 9, 3, 10]}, "b"),
        ]
    )
    out = compare(df, "P@10", by="segment", pairs="all")
    assert out.attrs["test"] == "tukey" and out.attrs["ci_method"] == "tukey"
    assert out[["segment", "system", "baseline"]].values.tolist() == [
        ["a", "B", "A"],
        ["a", "C", "A"],
        ["a", "C", "B"],
        ["b", "B", "A"],
        ["b", "C", "A"],
        ["b", "C", "B"],
    ]
    se = np.sqrt(11 / 12) / 10
    qcrit = sps.studentized_range.ppf(0.95, 3, 6)  # 4.339 in Tukey's table
    expected_delta = [0.3, 0.3, 0.0, 0.3, 0.5, 0.2]
    np.testing.assert_allclose(out["delta"], expected_delta, atol=1e-12)
    np.testing.assert_allclose(out["p_value"], sps.studentized_range.sf(np.abs(expected_delta) / se, 3, 6), rtol=1e-9)
    np.testing.assert_allclose(out["ci_high"] - out["delta"], qcrit * se, rtol=1e-9)
    assert out["p_value"].iloc[0] == pytest.approx(sps.studentized_range.sf(3.1334, 3, 6), rel=1e-4)
    # Tukey's p-values already hold for every pair of a segment and metric: no second correction by default
    assert out.attrs["correction"] is None
    np.testing.assert_array_equal(out["p_adjusted"], out["p_value"])
    holm = compare(df, "P@10", by="segment", pairs="all", correction="holm")  # asked for: Holm on top
    np.testing.assert_allclose(holm["p_adjusted"], multipletests(out["p_value"], method="holm")[1], rtol=1e-12)


def test_all_pairs_tukey_one_segment_is_not_corrected_twice():
    # One segment, one metric, the hand table above (A: 1 3 2 2, B: 4 5 6 5, C: 4 7 1 8, P@10 x 10):
    # B - A = 0.3, q = 3 / sqrt(11 / 12) = 3.1334 on k = 3, df = 6; scipy's studentized range is the oracle.
    # Holm over the 3 pairs used to be applied on top (p_adjusted = min(1, 3 * p) for the smallest p).
    # A and D are identical on every query: q = 0, Tukey's p = P(Q >= 0) = 1 (a p-value, not NaN); only the
    # effect size (0 / 0) is undefined, and the note says so.
    df = _precision_table({"A": [1, 3, 2, 2], "B": [4, 5, 6, 5], "C": [4, 7, 1, 8]}, "a")
    out = compare(df, "P@10", pairs="all")
    p = sps.studentized_range.sf(3 / np.sqrt(11 / 12), 3, 6)
    assert out["p_value"].iloc[0] == pytest.approx(p, rel=1e-9)
    assert out["p_adjusted"].iloc[0] == out["p_value"].iloc[0] and out.attrs["correction"] is None
    same = pd.concat([df, df[df["system"] == "A"].assign(system="D")])
    out = compare(same, "P@10", pairs="all").set_index(["system", "baseline"])
    row = out.loc[("D", "A")]
    assert row["p_value"] == 1.0 and np.isnan(row["effect_size"])
    assert row["note"] == "identical on every query (all differences 0): no effect size"


def test_all_pairs_with_a_paired_test_and_baseline_first(paired):
    out = compare(paired, ["AP"], pairs="all", test="t", baseline="hybrid")
    assert out[["system", "baseline"]].values.tolist() == [["bm25", "hybrid"], ["dense", "hybrid"], ["dense", "bm25"]]
    wide = _wide(paired, ["AP"])
    ref = sps.ttest_rel(wide["dense"], wide["bm25"])
    assert out["p_value"].iloc[2] == pytest.approx(ref.pvalue, rel=1e-9)


# --------------------------------------------------------------------------- engines and faces


def test_duckdb_engine_gives_the_same_rows(paired):
    a = compare(paired, METRICS, baseline="bm25", by="length")
    b = compare(paired, METRICS, baseline="bm25", by="length", engine="duckdb")
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12, atol=1e-12)


def test_input_is_not_modified_and_columns_are_configurable(paired):
    before = paired.copy()
    renamed = paired.rename(columns={"system": "run", "query": "qid"})
    out = compare(renamed, ["AP"], system="run", baseline="bm25", columns={"query": "qid"})
    pd.testing.assert_frame_equal(paired, before)
    ref = compare(paired, ["AP"], baseline="bm25")
    pd.testing.assert_frame_equal(out, ref)


def test_default_baseline_is_the_first_rows_system(paired):
    out = compare(paired.iloc[::-1], ["AP"])  # the reversed table starts with a hybrid row
    assert set(out["baseline"]) == {"hybrid"} and out.attrs["baseline"] == "hybrid"


# --------------------------------------------------------------------------- hostile inputs


def _two_systems(values_a, values_b, queries=None, segment=None) -> pd.DataFrame:
    """Systems A and B with the same judgments: per query a relevant item "r" and a non-relevant one "n".

    Value 1: the system ranks r first (P@1 = RR = AP = 1); value 0: n first, r second (P@1 = 0, RR = AP = 1/2);
    value None: the query has nothing relevant (both items graded 0; P@1 = 0, AP undefined).
    """
    queries = queries or [f"q{i}" for i in range(len(values_a))]
    rows = []
    for system, values in (("A", values_a), ("B", values_b)):
        for q, v in zip(queries, values):
            first, second = ("r", "n") if v == 1 else ("n", "r")
            rows.append((system, q, first, 1, int(first == "r" and v is not None)))
            rows.append((system, q, second, 2, int(second == "r" and v is not None)))
    df = pd.DataFrame(rows, columns=["system", "query", "item", "rank", "relevance"])
    if segment is not None:
        df["seg"] = [segment(q) for q in df["query"]]
    return df


def test_misaligned_queries_are_an_error_naming_them():
    df = _two_systems([1, 0, 1, 1], [1, 1, 0, 1])
    df = df[~((df["system"] == "B") & df["query"].isin(["q2", "q3"]))]  # B never saw q2 and q3
    with pytest.raises(ValidationError) as e:
        compare(df, "P@1", baseline="A", qrels=None)
    msg = str(e.value)
    assert "same queries" in msg and "missing='zero'" in msg and "missing='drop'" in msg
    assert "q2" in msg and "q3" in msg and "2 (segment, query)" in msg
    # missing="zero": B scores 0 on q2, q3 (trec_eval -c); missing="drop": only q0, q1 are compared
    zero = compare(df, "P@1", baseline="A", missing="zero")
    assert zero["n"].iloc[0] == 4 and zero["mean"].iloc[0] == pytest.approx(0.5)  # B: 1, 1, 0, 0
    assert zero.attrs["filled"] == 2
    drop = compare(df, "P@1", baseline="A", missing="drop")
    assert drop["n"].iloc[0] == 2 and drop["delta"].iloc[0] == pytest.approx(0.5)  # q0: 0, q1: +1
    assert drop.attrs["dropped"] == 2


@pytest.mark.parametrize("system", ["system", "run"])
def test_qrels_score_every_system_on_every_judged_query(system):
    # B retrieved nothing for q2: with qrels= the join gives B the unit (q2, nothing retrieved), which the
    # default no_retrieved="zero" counts as 0 (trec_eval -c): aligned, no error, whatever the system column's name
    run = pd.DataFrame(
        {
            system: ["A", "A", "A", "B", "B"],
            "query": ["q0", "q1", "q2", "q0", "q1"],
            "item": ["r", "r", "r", "n", "r"],
            "rank": [1, 1, 1, 1, 1],
        }
    )
    qrels = pd.DataFrame({"query": ["q0", "q1", "q2"], "item": ["r", "r", "r"], "relevance": [1, 1, 1]})
    out = compare(run, "P@1", system=system, baseline="A", qrels=qrels)
    assert out[["n", "mean", "baseline_mean", "wins", "ties", "losses"]].values.tolist() == [[3, 1 / 3, 1.0, 0, 1, 2]]


def test_nan_per_query_values():
    # q3 has no relevant item: with no_relevant="nan" AP is NaN for both systems -> not compared;
    # P@1 stays 0 for both -> compared (NaN is per metric)
    df = _two_systems([1, 0, 1, None], [1, 1, 0, None])
    out = compare(df, ["AP", "P@1"], baseline="A", no_relevant="nan")
    assert out.set_index("metric")["n"].to_dict() == {"AP": 3, "P@1": 4}
    # a NaN for one system only is a misaligned query: ValidationError unless a policy says what to do
    one = _two_systems([1, 0, 1, 1], [1, 1, 0, 1])
    one = pd.concat([one, pd.DataFrame([("B", "q9", "r", np.nan, 1)], columns=one.columns)])  # B: judged, unretrieved
    one = pd.concat([one, pd.DataFrame([("A", "q9", "r", 1, 1)], columns=one.columns)]).astype({"rank": float})
    ok = compare(one, "P@1", baseline="A")  # no_retrieved="zero": B's q9 counts 0, aligned
    assert ok["n"].iloc[0] == 5
    with pytest.raises(ValidationError, match="same queries"):
        compare(one, "P@1", baseline="A", no_retrieved="nan")


def test_unknown_baseline_suggests_a_close_name(paired):
    with pytest.raises(ParameterError, match=r"did you mean 'bm25'\?") as e:
        compare(paired, "AP", baseline="bm52")
    assert "'dense'" in str(e.value) and "'hybrid'" in str(e.value)


def test_baseline_of_another_type_is_named(paired):
    ints = paired.assign(system=paired["system"].map({"bm25": 1, "dense": 2, "hybrid": 3}))
    assert compare(ints, "AP", baseline=1)["system"].tolist() == [2, 3]
    with pytest.raises(ParameterError, match="the table's value 1 has another type"):
        compare(ints, "AP", baseline="1")


def test_categorical_columns_and_a_null_segment(paired):
    cat = paired.assign(
        system=paired["system"].astype("category").cat.add_categories(["never used"]),
        length=paired["length"].astype("category"),
    )
    out = compare(cat, "AP", baseline="bm25", by="length")
    ref = compare(paired, "AP", baseline="bm25", by="length")
    assert out["system"].astype(str).tolist() == ref["system"].tolist() == ["dense", "hybrid"] * 2
    np.testing.assert_allclose(out["p_value"], ref["p_value"], rtol=1e-12)
    # q01 has no segment value: it becomes its own (null) segment, listed last, with n = 1 and a note
    null = compare(
        paired.assign(length=paired["length"].where(paired["query"] != "q01")), "AP", baseline="bm25", by="length"
    )
    assert null["length"].isna().tolist() == [False] * 4 + [True] * 2
    assert null["n"].tolist() == [16, 16, 15, 15, 1, 1]
    assert null["note"].dtype == object and null["note"].iloc[0] is None


def test_one_system_is_an_error(paired):
    with pytest.raises(ValidationError, match="at least 2 systems"):
        compare(paired[paired["system"] == "bm25"], "AP")


def test_system_column_missing_and_by_equal_to_system(paired):
    with pytest.raises(ValidationError, match="'run' not in dataframe"):
        compare(paired, "AP", system="run")
    with pytest.raises(ParameterError, match="also in by"):
        compare(paired, "AP", by=["length", "system"])
    with pytest.raises(ParameterError, match="query column"):
        compare(paired, "AP", system="query")
    with pytest.raises(ParameterError, match="output column"):
        compare(paired.rename(columns={"length": "delta"}), "AP", by="delta")


def test_null_system_names_are_an_error(paired):
    bad = paired.copy()
    bad.loc[bad.index[:3], "system"] = None
    with pytest.raises(ValidationError, match="no null values"):
        compare(bad, "AP", baseline="bm25")


def test_small_segments_identical_and_constant_differences():
    # segment "one": a single query -> n = 1, documented NaN with a note;
    # segment "same": A and B identical on every query -> p NaN (no evidence either way), interval [0, 0];
    # segment "up": B beats A by exactly 1 on every query -> sd 0: t = inf, p = 0, effect size inf (scipy's)
    seg = {"q0": "one", "q1": "same", "q2": "same", "q3": "same", "q4": "up", "q5": "up"}
    df = _two_systems([1, 1, 0, 1, 0, 0], [0, 1, 0, 1, 1, 1], segment=seg.get)
    for test in ("t", "randomization", "wilcoxon"):
        out = compare(df, "P@1", baseline="A", by="seg", test=test, seed=0).set_index("seg")
        assert out.loc["one", "n"] == 1 and out.loc["one", "note"].startswith("only 1 query")
        assert (
            out.loc["one", "delta"] == -1
            and np.isnan(out.loc["one", ["p_value", "ci_low", "effect_size"]].astype(float)).all()
        )
        assert out.loc["same", "note"].startswith("identical on every query") and np.isnan(out.loc["same", "p_value"])
        assert out.loc["same", "ties"] == 3
        assert out.loc["up", "note"] == "every difference is the same (sd = 0)"
        assert np.isnan(out["p_adjusted"]).sum() == 2  # NaN p-values are not part of the correction family
    t = compare(df, "P@1", baseline="A", by="seg").set_index("seg")
    assert t.loc["up", "p_value"] == 0 and t.loc["up", "effect_size"] == np.inf
    assert t.loc["same", "ci_low"] == t.loc["same", "ci_high"] == 0


def test_system_absent_from_a_segment():
    df = pd.concat(
        [
            _two_systems([1, 0, 1], [0, 0, 1], segment=lambda q: "s1"),
            _two_systems([1, 1], [0, 1], queries=["r0", "r1"], segment=lambda q: "s2"),
        ]
    )
    c = df[df["system"] == "B"].assign(system="C")
    df = pd.concat([df, c[c["seg"] == "s1"]])  # C only exists in segment s1
    out = compare(df, "P@1", baseline="A", by="seg")
    row = out[(out["seg"] == "s2") & (out["system"] == "C")].iloc[0]
    assert row["n"] == 0 and row["note"] == "system has no queries in this segment" and np.isnan(row["delta"])
    assert (out[(out["seg"] == "s2") & (out["system"] == "B")]["n"] == 2).all()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(test="ttest"), "'test' parameter of compare must be one of"),
        (dict(ci=1.5), "'ci' parameter"),
        (dict(ci=True), "'ci' parameter"),
        (dict(ci_method="percentile"), "'ci_method'"),
        (dict(correction="fdr"), "'correction'"),
        (dict(missing="ignore"), "'missing'"),
        (dict(pairs="some"), "'pairs'"),
        (dict(n_resamples=0), "'n_resamples'"),
        (dict(n_resamples=10.0), "'n_resamples'"),
        (dict(n_resamples=10**30), r"'n_resamples' parameter of compare must be an int from 1 to 10,000,000"),
        (dict(n_resamples=10**7 + 1, ci_method="bootstrap"), "'n_resamples'"),
        (dict(n_resamples=True), "'n_resamples'"),
        (dict(seed=-1), "'seed'"),
        (dict(seed="x"), "'seed'"),
        (dict(family="metrics"), r"did you mean 'metric'\?"),
        (dict(family=3), "'family'"),
        (dict(engine="spark"), "'engine'"),
        (dict(test="tukey"), "pass pairs='all'"),
        (dict(ci_method="tukey"), "needs test='tukey'"),
        (dict(no_relevent="nan"), r"did you mean 'no_relevant'\?"),
        (dict(no_relevant="maybe"), "no_relevant"),
        (dict(metrics=[]), "'metrics'"),
    ],
)
def test_parameter_errors(paired, kwargs, match):
    metrics = kwargs.pop("metrics", "AP")
    with pytest.raises(RankframeError, match=match):
        compare(paired, metrics, baseline="bm25", **kwargs)


def test_n_resamples_is_checked_before_any_work(paired, monkeypatch):
    # 10**30 used to crash the bootstrap with numpy's dimension error and run the randomization test forever
    def no_work(*args, **kwargs):
        raise AssertionError("evaluate ran before n_resamples was checked")

    monkeypatch.setattr(sys.modules["rankframe.compare"], "evaluate", no_work)
    for kw in (dict(test="randomization"), dict(ci_method="bootstrap")):
        with pytest.raises(ParameterError, match="from 1 to 10,000,000"):
            compare(paired, "AP", baseline="bm25", n_resamples=10**30, **kw)


def test_seed_none_is_recorded_and_reproduces_every_random_result(paired):
    # randomization test and bootstrap interval in one call, fresh entropy: attrs["seed"] must reproduce both
    # (16 queries per segment > log2(300): random sign flips, not the exact enumeration)
    kw = dict(baseline="bm25", by="length", test="randomization", ci_method="bootstrap", n_resamples=300)
    fresh = compare(paired, ["AP", "nDCG@5"], **kw)
    assert fresh.attrs["exact_segments"] == 0 and isinstance(fresh.attrs["seed"], int)
    again = compare(paired, ["AP", "nDCG@5"], seed=fresh.attrs["seed"], **kw)
    for col in ("p_value", "p_adjusted", "ci_low", "ci_high"):
        np.testing.assert_array_equal(fresh[col].to_numpy(), again[col].to_numpy(), err_msg=col)
    assert again.attrs["seed"] == fresh.attrs["seed"]


@pytest.mark.parametrize("metrics", [["iprec_at_recall"], "iprec_at_recall", ("AP", "iprec_at_recall")])
def test_metric_families_in_a_list_are_their_levels_as_in_evaluate(paired, metrics):
    # trec_eval's iprec_at_recall is its 11 levels IPrec@0.0 ... IPrec@1.0 in a list of metrics (evaluate's rule):
    # compare used to answer ['iprec_at_recall'] with "give it in a list of metrics"
    out = compare(paired, metrics, baseline="bm25", correction=None)  # p_adjusted = p_value: comparable below
    levels = [f"IPrec@{i / 10:.1f}" for i in range(11)]
    expected = (["AP"] if "AP" in metrics else []) + levels
    assert list(dict.fromkeys(out["metric"])) == expected and len(out) == 2 * len(expected)
    ref = compare(paired, ["IPrec@0.5"], baseline="bm25", correction=None)
    cols = ["metric", "system", "n", "delta", "p_value", "p_adjusted"]
    pd.testing.assert_frame_equal(out[out["metric"] == "IPrec@0.5"][cols].reset_index(drop=True), ref[cols])


def test_a_metric_given_twice_is_named(paired):
    with pytest.raises(ParameterError, match=r"asks for AP twice \(as 'AP' and 'map'\)"):
        compare(paired, ["AP", "map"], baseline="bm25")


def test_parameter_errors_are_parameter_errors(paired):
    with pytest.raises(ParameterError):
        compare(paired, "AP", test="z")
    with pytest.raises(ParameterError):
        compare(paired, "AP", baseline="nope")


# --------------------------------------------------------------------------- the docs show real output


@pytest.mark.parametrize("by", [None, "length"])
def test_docs_worked_example_is_current(paired, by):
    doc = (PAIRED.parent.parent / "docs" / "comparing.md").read_text()
    out = compare(paired, ["nDCG@5", "AP"], baseline="bm25", by=by)
    text = out.drop(columns=DOCS_LEFT_OUT).round(4).to_string(index=False)
    for line in text.splitlines():
        assert line in doc, line
