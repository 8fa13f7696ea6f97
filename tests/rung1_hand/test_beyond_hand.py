"""Beyond-accuracy metrics on small tables, every expected value derived by hand in the comment beside it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.measures.names import parse

# three users, lists in rank order (relevance 0 everywhere: these metrics never read it)
#   u1: a b c      u2: a b      u3: a d
# top-2 rows: a b | a b | a d  -> counts a 3, b 2, d 1 (6 rows); whole lists add c 1 (7 rows)
RECS = pd.DataFrame(
    {
        "query": ["u1", "u1", "u1", "u2", "u2", "u3", "u3"],
        "item": ["a", "b", "c", "a", "b", "a", "d"],
        "rank": [1, 2, 3, 1, 2, 1, 2],
        "relevance": 0,
    }
)
CATALOG = ["a", "b", "c", "d", "e"]
# train: a by u7, u8, u9 (u9 twice: 4 interactions, 3 users); b by u7; c by u8 with weight 0 (known, no
# interaction); d, e absent (cold). Train queries: u7, u8, u9 -> |U| = 3
TRAIN = pd.DataFrame(
    {
        "query": ["u7", "u8", "u9", "u9", "u7", "u8"],
        "item": ["a", "a", "a", "a", "b", "c"],
        "weight": [1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
    }
)


def value(metric: str, df: pd.DataFrame = RECS, **kw) -> float:
    got = rankframe.evaluate(df, metric, **kw)
    assert len(got) == 1
    return float(got["value"].iloc[0])


def per_query(metric: str, df: pd.DataFrame = RECS, **kw) -> list[float]:
    return rankframe.evaluate(df, metric, per_query=True, **kw)["value"].tolist()


def test_coverage():
    # top 2 covers a, b, d of the 5 catalog items; whole lists add c
    assert value("Coverage@2", catalog=CATALOG) == pytest.approx(3 / 5)
    assert value("Coverage", catalog=CATALOG) == pytest.approx(4 / 5)
    assert value("Coverage(output='count')@2", catalog=CATALOG) == 3
    # universe train = {a, b, c}: a, b covered in the top 2 (d is outside the universe) -> 2/3
    assert value("Coverage(universe='train')@2", train=TRAIN) == pytest.approx(2 / 3)


def test_gini():
    # top 2 over the catalog: counts sorted 0 (c), 0 (e), 1 (d), 2 (b), 3 (a); n = 5, sum = 6
    # sum (2i - n - 1) c_(i) = (-4)0 + (-2)0 + (0)1 + (2)2 + (4)3 = 16 -> 16 / (5 * 6) = 8/15
    assert value("Gini@2", catalog=CATALOG) == pytest.approx(8 / 15)
    assert value("Gini(denominator='n-1')@2", catalog=CATALOG) == pytest.approx(16 / (4 * 6))  # d = n - 1 = 4
    assert value("Gini(complement=True)@2", catalog=CATALOG) == pytest.approx(1 - 8 / 15)
    # universe recommended: 1, 2, 3 with n = 3: (-2)1 + (0)2 + (2)3 = 4 -> 4 / (3 * 6) = 2/9
    assert value("Gini(universe='recommended')@2") == pytest.approx(2 / 9)
    # universe train {a, b, c} plus d (recommended outside it) -> n = 4: 0 (c), 1 (d), 2 (b), 3 (a)
    # (-3)0 + (-1)1 + (1)2 + (3)3 = 10 -> 10 / (4 * 6) = 5/12
    assert value("Gini(universe='train')@2", train=TRAIN) == pytest.approx(5 / 12)


def test_entropy():
    # top 2: p = 3/6, 2/6, 1/6 -> H = 1/2 log2 2 + 1/3 log2 3 + 1/6 log2 6
    h2 = 0.5 * 1 + (1 / 3) * math.log2(3) + (1 / 6) * math.log2(6)
    assert value("Entropy@2") == pytest.approx(h2)
    assert value(f"Entropy(log_base={math.e})@2") == pytest.approx(h2 * math.log(2))  # nats
    assert value("Entropy(normalize='items')@2") == pytest.approx(h2 / 3)  # 3 distinct items


def test_arp():
    # popularity users: a 3 (u7, u8, u9), b 1, c 0 (weight 0), d cold 0
    # top 2: u1 (3 + 1)/2 = 2, u2 2, u3 (3 + 0)/2 = 1.5
    assert per_query("ARP@2", train=TRAIN) == pytest.approx([2.0, 2.0, 1.5])
    # interactions: a 4 -> u1 (4 + 1)/2, u2 2.5, u3 (4 + 0)/2
    assert per_query("ARP(popularity='interactions')@2", train=TRAIN) == pytest.approx([2.5, 2.5, 2.0])
    # cold='drop': d leaves u3's list -> 3/1; c (weight 0) is known: u1's whole list (3 + 1 + 0)/3
    assert per_query("ARP(cold='drop')@2", train=TRAIN) == pytest.approx([2.0, 2.0, 3.0])
    assert per_query("ARP(cold='drop')", train=TRAIN) == pytest.approx([4 / 3, 2.0, 3.0])
    # aggregate='rows': top-2 rows 3 1 3 1 3 0 -> 11/6 (set-level: one value)
    assert value("ARP(aggregate='rows')@2", train=TRAIN) == pytest.approx(11 / 6)
    assert value("ARP@2", train=TRAIN) == pytest.approx((2 + 2 + 1.5) / 3)


def test_aplt():
    # train items a (3 users), b (1), c (0): bottom 0.8 -> int(3 * 0.8) = 2 least popular: c, b (tail); a head.
    # cold d is a tail item by default. Top 2: u1 [a, b] 1/2, u2 1/2, u3 [a, d] 1/2
    assert per_query("APLT@2", train=TRAIN) == pytest.approx([0.5, 0.5, 0.5])
    assert per_query("APLT(cold='not_tail')@2", train=TRAIN) == pytest.approx([0.5, 0.5, 0.0])
    assert per_query("APLT(cold='drop')@2", train=TRAIN) == pytest.approx([0.5, 0.5, 0.0])  # u3: [a] -> 0/1
    # bottom 0.34 -> int(1.02) = 1 item: c (popularity 0); whole lists: u1 [a, b, c] 1/3, u2 0, u3 [a, d] 1/2 (d cold)
    assert per_query("APLT(tail=0.34)", train=TRAIN) == pytest.approx([1 / 3, 0.0, 0.5])
    # count rule: popularity <= 1 -> b, c: same as the bottom 0.8 here; <= 0 -> c only
    assert per_query("APLT(tail_rule='count', tail=1)@2", train=TRAIN) == pytest.approx([0.5, 0.5, 0.5])
    assert per_query("APLT(tail_rule='count', tail=0, cold='not_tail')", train=TRAIN) == pytest.approx(
        [1 / 3, 0.0, 0.0]
    )


def test_aplt_bottom_ties_broken_by_item_id():
    # RecBole sorts by (count, item id): x, y, z each 1 user; bottom int(3 * 0.34) = 1 -> x (smallest id)
    train = pd.DataFrame({"query": ["t1", "t2", "t3"], "item": ["z", "x", "y"]})
    recs = pd.DataFrame({"query": [1, 2, 3], "item": ["x", "y", "z"], "rank": 1, "relevance": 0})
    assert per_query("APLT(tail=0.34)", recs, train=train) == [1.0, 0.0, 0.0]


def test_novelty():
    # discovery, users: p(a) = 3/3 -> 0 bits; p(b) = 1/3 -> log2 3; c (weight 0) and d cold: dropped
    # top 2: u1 [a, b] (0 + log2 3)/2, u2 the same, u3 [a] 0
    l3 = math.log2(3)
    assert per_query("Novelty@2", train=TRAIN) == pytest.approx([l3 / 2, l3 / 2, 0.0])
    # choice, interactions: total 5 (a 4, b 1): a -log2(4/5), b -log2(1/5)
    na, nb = -math.log2(4 / 5), -math.log2(1 / 5)
    got = per_query("Novelty(model='choice', popularity='interactions')@2", train=TRAIN)
    assert got == pytest.approx([(na + nb) / 2, (na + nb) / 2, na])
    # cold='zero': d counts 0 in u3's list of 2 -> na / 2
    got = per_query("Novelty(model='choice', popularity='interactions', cold='zero')@2", train=TRAIN)
    assert got[2] == pytest.approx(na / 2)
    # list_denominator='k' @3: u2's list [a, b] sums log2 3, divided by 3 (not 2)
    assert per_query("Novelty(list_denominator='k')@3", train=TRAIN)[1] == pytest.approx(l3 / 3)


def test_personalization():
    # top 2 sets: u1 {a, b}, u2 {a, b}, u3 {a, d}; cosine of binary sets |A ∩ B| / sqrt(|A| |B|):
    # u1-u2 2/2 = 1, u1-u3 1/2, u2-u3 1/2 -> mean 2/3, personalization 1/3
    assert value("Personalization@2") == pytest.approx(1 / 3, abs=1e-12)
    assert value("Personalization(output='similarity')@2") == pytest.approx(2 / 3, abs=1e-12)
    # whole lists: u1 {a, b, c}: u1-u2 2/sqrt(6), u1-u3 1/sqrt(6), u2-u3 1/2 -> mean (3/sqrt(6) + 1/2) / 3
    assert value("Personalization") == pytest.approx(1 - (3 / math.sqrt(6) + 0.5) / 3, abs=1e-12)
    # top 1: every list is {a} -> similarity 1 everywhere, personalization 0; n = the segment's 3 queries
    got = rankframe.evaluate(RECS, "Personalization@1")
    assert got["value"].tolist() == [0.0] and got["n"].tolist() == [3]


def test_personalization_needs_two_lists_and_ignores_empty_ones():
    # one list: no pair -> NaN. A list whose rows are all unranked has no top-k set and is no list of the pairs:
    # u1 {a, b} and u3 {a, d} only -> similarity 1/2
    assert math.isnan(value("Personalization@2", RECS[RECS["query"] == "u1"]))
    df = RECS.assign(rank=RECS["rank"].where(RECS["query"] != "u2"))
    assert value("Personalization@2", df) == pytest.approx(1 / 2, abs=1e-12)


def test_per_segment_values_and_counts():
    # segment x = u1, u2; y = u3. Coverage@2 of x: a, b of 5; of y: a, d. n = the segment's queries
    df = RECS.assign(seg=np.where(RECS["query"] == "u3", "y", "x"))
    got = rankframe.evaluate(df, ["Coverage@2", "ARP@2"], by="seg", catalog=CATALOG, train=TRAIN)
    assert got["seg"].tolist() == ["x", "x", "y", "y"]
    assert got["metric"].tolist() == ["Coverage@2", "ARP@2"] * 2
    assert got["value"].tolist() == pytest.approx([2 / 5, 2.0, 2 / 5, 1.5])
    assert got["n"].tolist() == [2, 2, 1, 1]


def test_score_order_and_no_relevance_column():
    # no rank: positions from the score (descending); u1's top 1 is c (score 9) -> Coverage@1 = {c, a} of 5
    df = RECS.drop(columns=["rank", "relevance"]).assign(score=[1.0, 2.0, 9.0, 5.0, 4.0, 3.0, 2.0])
    assert value("Coverage@1", df, catalog=CATALOG) == pytest.approx(2 / 5)


def test_mixed_with_accuracy_metrics_keeps_the_order_asked():
    got = rankframe.evaluate(RECS.assign(relevance=[1, 0, 0, 0, 0, 0, 1]), ["Entropy@2", "P@2", "ARP@2"], train=TRAIN)
    assert got["metric"].tolist() == ["Entropy@2", "P@2", "ARP@2"]
    assert got["value"].iloc[1] == pytest.approx((1 / 2 + 0 + 1 / 2) / 3)


def test_presets_round_trip_and_named_options_override():
    m = parse("Gini(like='recbole')@10")
    assert str(m) == "Gini(like='recbole')@10" and parse(str(m)) == m
    m = parse("Entropy(like='recbole', log_base=2)")
    assert m.kw["normalize"] == "items" and m.kw["log_base"] == 2.0  # the named option wins
    assert parse(str(m)) == m
    assert parse("APLT(like='recbole')").kw["tail"] == 0.1
    assert str(parse("Novelty(like='recommenders')@5")) == "Novelty(like='recommenders')@5"


def test_caller_data_not_modified():
    recs, train = RECS.copy(), TRAIN.copy()
    rankframe.evaluate(recs, ["Gini@2", "Novelty"], catalog=CATALOG, train=train)
    pd.testing.assert_frame_equal(recs, RECS)
    pd.testing.assert_frame_equal(train, TRAIN)
