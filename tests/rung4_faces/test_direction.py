"""Which way is better, declared once, read by every face; and the one rule of equal values.

Every declared metric (accuracy and beyond-accuracy) has a direction decision with its reason, for every option
value; a lower-is-better metric (ARP: popularity bias) is held on each face that says better or worse: compare's
wins/losses, the styled table's bold, the report's best system, ``rankframe compare --fail-if-worse``, the
non-inferiority margin, anova's pairs and ``rankframe.spark.compare`` (slow). A metric without a direction (NumRet)
gets no wins or losses (NA in pandas, NULL in ``rf_compare``). Two per-query values equal but for rounding noise
(0.1 + 0.2 against 0.3) are a tie and a zero difference for both Wilcoxon zero methods, with
``scipy.stats.wilcoxon`` on the exactly equal values as the oracle.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from faces import macro_connection
from scipy import stats as sps

import rankframe
from rankframe import display, stats
from rankframe.core.declare import BETTER
from rankframe.measures.names import Measure
from rankframe.measures.registry import BEYOND, METRICS

SPECS = (*METRICS, *BEYOND)

# ---------------------------------------------------------------------------------------------- the declarations


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.canonical)
def test_every_metric_declares_its_direction_for_every_option_value(spec):
    assert spec.better in BETTER and spec.better_why, f"{spec.canonical}: declare better= and better_why="
    for p in spec.params:  # every value of every choice or flag: the direction is one of +1, -1, 0
        values = p.constraint.values() or ()
        for v in values:
            if v is None and p.name == "like":
                continue
            try:
                m = Measure.of(spec, **{p.name: v})
            except rankframe.ParameterError:
                continue  # a combination the metric refuses (ILD's hamming similarity)
            assert rankframe.direction(m) in (1, -1, 0)
            assert rankframe.direction(str(m)) == rankframe.direction(m)  # the label answers the same


@pytest.mark.parametrize(
    ("metric", "way"),
    [
        # the issue's decisions, by hand: popularity bias, concentration and miscalibration are lower-is-better,
        # and so are the similarity outputs; complement=True (and Elliot's preset, which sets it) is 1 - Gini
        ("ARP@10", -1),
        ("Gini@10", -1),
        ("Gini(complement=True)@10", 1),
        ("Gini(like='elliot')@10", 1),
        ("Calibration@10", -1),
        ("ILD@10", 1),
        ("ILD(output='similarity')@10", -1),
        ("Personalization@10", 1),
        ("Personalization(output='similarity')@10", -1),
        ("APLT@10", 1),
        ("Coverage@10", 1),
        ("Entropy@10", 1),
        ("Novelty@10", 1),
        ("Serendipity@10", 1),
        ("nDCG@10", 1),
        ("NumRet", 0),
        ("NumRel", 0),
        ("NumQ", 0),
        ("NumRelRet", 1),
        ("IDCG", 0),
        ("Judged@10", 0),
    ],
)
def test_direction_of_the_metrics_the_issue_names(metric, way):
    assert rankframe.direction(metric) == way


# ------------------------------------------------------------------------------------- a lower-is-better metric
# train: item h is in 4 users' histories (popularity 4), m in 2, t in 1. Each list is one item, so ARP per query is
# that item's popularity. A recommends h on q1..q9 (ARP 4); B recommends t on q1..q4 (1), m on q5..q8 (2) and h on
# q9 (4). B - A: -3 (x4), -2 (x4), 0: B has the lower popularity bias on 8 queries, ties on 1. B is BETTER.
TRAIN = pd.DataFrame({"query": ["u1", "u2", "u3", "u4", "u1", "u2", "u1"], "item": ["h", "h", "h", "h", "m", "m", "t"]})
B_ITEMS = ["t"] * 4 + ["m"] * 4 + ["h"]


def _runs() -> pd.DataFrame:
    queries = [f"q{i}" for i in range(1, 10)]
    a = pd.DataFrame({"system": "A", "query": queries, "item": ["h"] * 9, "rank": 1, "relevance": 1})
    b = pd.DataFrame({"system": "B", "query": queries, "item": B_ITEMS, "rank": 1, "relevance": 1})
    return pd.concat([a, b], ignore_index=True)


@pytest.fixture(scope="module")
def arp():
    return rankframe.compare(_runs(), ["ARP", "NumRet"], baseline="A", train=TRAIN)


def test_compare_counts_a_lower_arp_as_a_win(arp):
    row = arp.set_index("metric").loc["ARP"]
    # d = B - A = -3, -3, -3, -3, -2, -2, -2, -2, 0: the 8 lower values are wins (lower is better), 1 tie
    assert row["delta"] == pytest.approx(-20 / 9)
    assert (row["wins"], row["ties"], row["losses"]) == (8, 1, 0)
    # NumRet (1 on every query for both): no direction, no wins or losses, 9 ties
    count = arp.set_index("metric").loc["NumRet"]
    assert pd.isna(count["wins"]) and pd.isna(count["losses"]) and count["ties"] == 9


def test_the_styled_table_bolds_the_lower_arp(arp):
    m = display.model(arp)
    col = {h: j for j, h in enumerate(m.header)}
    rows = {r[col["metric"]].text: r for r in m.rows}
    row = rows["ARP"]
    assert row[col["mean"]].bold and not row[col["baseline mean"]].bold  # B's 1.78 is better than A's 4
    assert row[col["delta"]].tone == "up"  # a significant gain, although delta < 0
    assert row[col["W/T/L"]].text == "8/1/0"
    none = rows["NumRet"]
    assert not none[col["mean"]].bold and not none[col["baseline mean"]].bold
    means = rankframe.evaluate(_runs(), "ARP", by="system", train=TRAIN)
    cells = {r[0].text: r[2] for r in display.model(means).rows}  # the best value of a means table: the lowest
    assert cells["B"].bold and not cells["A"].bold


def test_the_report_names_the_lowest_arp_best(arp):
    from rankframe.report import _summary

    html = _summary(arp, None, [], "A")
    arp_row = html.split("ARP (lower is better)")[1].split("</tr>")[0]
    assert ">B<" in arp_row and "1 / 0 / 0" in arp_row  # best: B; better / worse / n.s.
    count_row = html.split(">NumRet<")[1].split("</tr>")[0]
    assert "no direction" in count_row and ">B<" not in count_row


def test_anova_pairs_name_the_lower_arp_better():
    pairs = rankframe.anova(_runs(), ["ARP", "NumRet"], pairs=True, train=TRAIN)
    by_metric = pairs.set_index("metric")
    assert by_metric.loc["ARP", "delta"] == pytest.approx(-20 / 9)  # B - A, as it was
    assert by_metric.loc["ARP", "better"] == "B"
    assert by_metric.loc["NumRet", "better"] is None


def test_a_margin_is_non_inferiority_on_the_metrics_side(arp):
    # ARP, lower is better: H0 delta >= m against delta < m; t = (delta - m) / (sd / sqrt(n)), p = T.cdf(t): the
    # oracle is scipy's one-sample t-test of d against m with alternative='less'
    d = np.array([-3, -3, -3, -3, -2, -2, -2, -2, 0], dtype=float)
    gate = rankframe.compare(_runs(), "ARP", baseline="A", train=TRAIN, margin=0.5)
    want = sps.ttest_1samp(d, 0.5, alternative="less")
    assert gate.attrs["alternative"] == "less"
    assert gate["statistic"].iloc[0] == pytest.approx(want.statistic)
    assert gate["p_value"].iloc[0] == pytest.approx(want.pvalue)
    assert gate["ci_low"].iloc[0] == -np.inf
    with pytest.raises(rankframe.ParameterError, match="got alternative='greater'"):
        rankframe.compare(_runs(), "ARP", baseline="A", train=TRAIN, margin=0.5, alternative="greater")
    with pytest.raises(rankframe.ParameterError, match="NumRet has no direction"):
        rankframe.compare(_runs(), ["NumRet"], baseline="A", train=TRAIN, margin=0.5)
    with pytest.raises(rankframe.ParameterError, match="separate calls"):
        rankframe.compare(_runs(), ["ARP", "Hits"], baseline="A", train=TRAIN, margin=0.5)


def test_fail_if_worse_fails_on_a_significantly_higher_arp(tmp_path, capsys):
    from rankframe.cli import main

    runs, train = tmp_path / "runs.csv", tmp_path / "train.csv"
    _runs().to_csv(runs, index=False)
    TRAIN.to_csv(train, index=False)
    args = ["compare", str(runs), "-m", "ARP", "--train", str(train), "--fail-if-worse"]
    # against B, A has the higher popularity bias on 8 of 9 queries (t = 8.6 on 8 df, p < 0.001): worse, exit 1
    assert main([*args, "--baseline", "B"]) == 1
    err = capsys.readouterr().err
    assert "rankframe: worse: A > B on ARP (lower is better)" in err
    # against A, B is better: nothing fails
    assert main([*args, "--baseline", "A"]) == 0
    capsys.readouterr()
    # --alternative less cannot show a higher ARP: refused (usage error, exit 2)
    assert main([*args, "--baseline", "B", "--alternative", "less"]) == 2
    assert "cannot show on ARP (lower is better)" in capsys.readouterr().err


@pytest.mark.slow  # > 5 s: installs the macros / imports matplotlib
def test_rf_compare_reads_the_declared_direction_and_the_rule_of_equal_values():

    con = macro_connection()
    columns = con.execute("SELECT rf__metric_columns()").fetchall()[0][0]
    got = dict(con.execute(f"SELECT unnest({columns!r}) AS c, rf__direction(c, false)").fetchall())
    assert got == {c: rankframe.direction(c) for c in columns}  # generated from the rf:column lines
    # an option that turns a direction (rf:column better_when=): RBP's residual is never better or worse
    residual = dict(con.execute(f"SELECT unnest({columns!r}) AS c, rf__direction(c, true)").fetchall())
    assert residual["RBP"] == rankframe.direction("RBP(residual=True)") == 0
    # rf__equal is rankframe.stats.equal: 0.1 + 0.2 and 0.3 are equal, 0.3 and 0.3 + 1e-9 are not
    pairs = [(0.1 + 0.2, 0.3), (0.7, 0.1 * 7), (0.3, 0.3 + 1e-9), (1e6, 1e6 + 1e-7), (1e6, 1e6 + 1e-5)]
    for a, b in pairs:
        assert con.execute(f"SELECT rf__equal({a!r}::DOUBLE, {b!r}::DOUBLE)").fetchall()[0][0] == bool(
            stats.equal(a, b)
        )
    con.register("runs", _runs())
    out = con.execute(
        "SELECT metric, wins, ties, losses FROM rf_compare('runs', baseline := 'A', metrics := ['P', 'NumRet'])"
    ).fetchall()
    assert ("NumRet", None, 9, None) in out  # no direction: NULL wins and losses
    assert ("P", 0, 9, 0) in out


# ------------------------------------------------------------------------------------- one rule of equal values


def _noisy_pair() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """System x, baseline y (queries 1-2 equal but for rounding noise) and y_exact (those two exactly equal)."""
    x = np.array([0.3, (1 + 0.4) / 2, 0.9, 0.2, 0.55, 0.8, 0.1, 0.65])
    y = np.array([0.1 + 0.2, 0.1 * 7, 0.5, 0.4, 0.25, 0.3, 0.45, 0.35])
    assert y[0] != x[0] and y[1] != x[1]  # 0.30000000000000004 and 0.7000000000000001: noise, not equal in float
    exact = y.copy()
    exact[:2] = x[:2]
    return x, y, exact


def test_values_equal_but_for_noise_are_a_tie():
    x, y, _ = _noisy_pair()
    s = stats.summarize(x, y, np.array([0, len(x)]))
    # by hand: queries 1, 2 equal (ties); 0.9 > 0.5, 0.55 > 0.25, 0.8 > 0.3, 0.65 > 0.35 (above); 0.2 < 0.4, 0.1 <
    # 0.45 (below)
    assert (int(s.wins[0, 0]), int(s.ties[0, 0]), int(s.losses[0, 0])) == (4, 2, 2)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_values_equal_but_for_noise_are_a_zero_difference_for_wilcoxon(zero_method):
    x, y, exact = _noisy_pair()
    got = stats.wilcoxon_test(x, y, np.array([0, len(x)]), zero_method=zero_method)
    # the oracle: scipy on the exactly equal values (the two zeros), its exact/permutation rule matched by method
    want = sps.wilcoxon(x, exact, zero_method=zero_method, method="exact" if zero_method == "wilcox" else "auto")
    assert got.n_nonzero[0, 0] == 6
    assert got.statistic[0, 0] == pytest.approx(want.statistic)
    assert got.pvalue[0, 0] == pytest.approx(want.pvalue, rel=1e-9)


def test_compare_counts_the_noise_as_a_tie_on_the_pandas_face():
    from rankframe.compare import checked_call, compare_values

    x, y, exact = _noisy_pair()
    queries = [f"q{i}" for i in range(len(x))]
    per = pd.DataFrame(
        {"system": ["s"] * len(x) + ["b"] * len(x), "query": queries * 2, "metric": "AP", "value": [*x, *y]}
    )
    call = checked_call(_runs().assign(system=lambda f: f["system"].map({"A": "b", "B": "s"})), "AP", baseline="b",
                        test="wilcoxon")  # fmt: skip
    out = compare_values(per, call).iloc[0]
    assert (out["wins"], out["ties"], out["losses"]) == (4, 2, 2)
    assert out["p_value"] == pytest.approx(sps.wilcoxon(x, exact, method="exact").pvalue, rel=1e-9)


@pytest.mark.spark  # one JVM per run (tests/tiers.py)
def test_spark_compare_counts_a_lower_arp_as_a_win_and_noise_as_a_tie():
    from pyspark.sql import functions as F
    from sparkutil import session

    from rankframe.spark import compare as spark_compare
    from rankframe.spark.compare import equal_column

    spark = session()
    runs, train = spark.createDataFrame(_runs()), spark.createDataFrame(TRAIN)
    out = spark_compare(runs, ["ARP", "NumRet"], baseline="A", train=train).set_index("metric")
    assert (out.loc["ARP", "wins"], out.loc["ARP", "ties"], out.loc["ARP", "losses"]) == (8, 1, 0)
    assert pd.isna(out.loc["NumRet", "wins"]) and out.loc["NumRet", "ties"] == 9
    x, y, _ = _noisy_pair()
    pairs = spark.createDataFrame(pd.DataFrame({"x": x, "y": y}))
    got = [r[0] for r in pairs.select(equal_column(F.col("x"), F.col("y"))).collect()]
    assert got == stats.equal(x, y).tolist() == [True, True, *[False] * 6]


@pytest.mark.slow  # > 5 s: installs the macros / imports matplotlib
def test_the_differences_plot_colours_a_lower_arp_as_the_systems_win():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    per = rankframe.evaluate(_runs(), "ARP", by="system", per_query=True, train=TRAIN)
    ax = rankframe.plot.differences(per, "ARP", system="B", baseline="A")
    labels = ax.get_legend_handles_labels()[1]
    # B - A = -3 (x4), -2 (x4), 0: 8 queries where B has the lower popularity bias, 1 tie, none where A is better
    assert "B better (8)" in labels and "tie (1)" in labels and not any(t.startswith("A better") for t in labels)


def test_a_set_level_call_keeps_a_metric_without_a_direction():
    # Coverage (set-level: a paired bootstrap) beside NumRet (no direction) and ARP: NumRet's NA wins survive the
    # merge of the two parts; ARP's wins are those of the per-query rows (8 lower values, 1 tie)
    out = rankframe.compare(
        _runs(), ["Coverage", "NumRet", "ARP"], baseline="A", train=TRAIN, catalog=["h", "m", "t"], n_resamples=200,
        seed=1,
    ).set_index("metric")  # fmt: skip
    assert pd.isna(out.loc["NumRet", "wins"]) and out.loc["NumRet", "ties"] == 9
    assert (out.loc["ARP", "wins"], out.loc["ARP", "ties"], out.loc["ARP", "losses"]) == (8, 1, 0)
