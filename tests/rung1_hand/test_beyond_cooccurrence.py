"""The co-occurrence forms of ILD and Serendipity on pandas: pair look-ups in the co-occurrence counts of train=.

Every expected value is derived by hand in the comment beside it; the chunk size is shrunk so that lists and
histories straddle chunk boundaries, the counts' dense block so that some pairs are hash look-ups, and the
budget so that it is exceeded.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

import rankframe
from rankframe.beyond import similarity
from rankframe.core.errors import ParameterError

# train queries: t1 {a, b}, t2 {a, c}, t3 {b}, t4 {e} (t4 also holds d with weight 0: known, no query)
#   |Q_a| = 2, |Q_b| = 2, |Q_c| = 1, |Q_e| = 1, |Q_d| = 0
#   C_ab = 1 (t1), C_ac = 1 (t2), C_bc = 0, anything with d or e = 0 (e only with itself)
#   cos(a, b) = 1 / sqrt(2 * 2) = 1/2, cos(a, c) = 1 / sqrt(2 * 1) = 1/sqrt(2), cos(b, c) = 0
TRAIN = pd.DataFrame(
    {
        "query": ["t1", "t1", "t2", "t2", "t3", "t4", "t4"],
        "item": ["a", "b", "a", "c", "b", "e", "d"],
        "weight": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
    }
)
# lists: u1 a b c, u2 b c, u3 a a d (a twice: a pair of cosine 1), u4 f (unknown alone)
RECS = pd.DataFrame(
    {
        "query": ["u1", "u1", "u1", "u2", "u2", "u3", "u3", "u3", "u4"],
        "item": ["a", "b", "c", "b", "c", "a", "a", "d", "f"],
        "rank": [1, 2, 3, 1, 2, 1, 2, 3, 1],
    }
)
R2 = 1 / math.sqrt(2)
# ILD(like='recommenders'): 1 - the mean cosine of the pairs, unknown items the zero vector
#   u1: pairs ab 1/2, ac 1/sqrt2, bc 0 -> 1 - (1/2 + 1/sqrt2) / 3
#   u2: bc 0 -> 1;  u3: aa 1, ad 0, ad 0 -> 1 - 1/3 = 2/3 (d: known, no query: the zero vector);  u4: no pair, NaN
ILD = {"u1": 1 - (0.5 + R2) / 3, "u2": 1.0, "u3": 2 / 3, "u4": math.nan}


@pytest.fixture(params=[1, 2, 3, 1_000_000], ids=lambda n: f"chunk{n}")
def chunk(request, monkeypatch):
    """Pairs looked up 1, 2, 3 at a time (lists and histories across chunk boundaries) and all at once."""
    monkeypatch.setattr(similarity, "PAIRS_PER_CHUNK", request.param)


@pytest.fixture(params=[0, 8, 64 * 2**20], ids=lambda n: f"table{n}")
def table(request, monkeypatch):
    """The counts' dense block of 0 items (every pair a hash look-up), 2 (8 bytes of uint16: both ways mixed), all."""
    monkeypatch.setattr(similarity, "PAIR_TABLE_BYTES", request.param)


def per_query(metric: str, recs: pd.DataFrame = RECS, **kw) -> dict:
    got = rankframe.evaluate(recs, metric, train=TRAIN, per_query=True, allow_duplicates=True, **kw)
    return dict(zip(got["query"], got["value"], strict=True))


def test_ild_cooccurrence_pairs_by_hand(chunk, table):
    got = per_query("ILD(like='recommenders')")
    assert got.keys() == ILD.keys()
    for query, want in ILD.items():
        assert got[query] == pytest.approx(want, abs=1e-12, nan_ok=True), query


def test_ild_cooccurrence_similarity_and_drop_by_hand(chunk, table):
    # output='similarity', unknown='drop': f (no train row) leaves, d stays (known: a row of weight 0; the zero
    # vector); u1 (1/2 + 1/sqrt2) / 3; u2 0; u3 aa 1, ad 0, ad 0 -> 1/3; u4 no counted item: NaN
    got = per_query("ILD(similarity='cooccurrence', output='similarity', unknown='drop')")
    want = {"u1": (0.5 + R2) / 3, "u2": 0.0, "u3": 1 / 3, "u4": math.nan}
    for query, value in want.items():
        assert got[query] == pytest.approx(value, abs=1e-12, nan_ok=True), query


def test_serendipity_cooccurrence_by_hand(chunk, table):
    # histories: the recommendation queries are the train queries t1, t2, t3, t5 (t5 has none)
    #   t1 H = {a, b}: row a: s = (cos(a,a) + cos(a,b)) / 2 = (1 + 1/2) / 2 = 3/4; row c: (1/sqrt2 + 0) / 2
    #   t2 H = {a, c}: row b: (1/2 + 0) / 2 = 1/4;  row e: (0 + 0) / 2 = 0
    #   t3 H = {b}: row b: 1; row a: 1/2
    # relevance='grade' of each row (the preset); value = mean over the list of rel (1 - s)
    #   t1: (1 (1 - 3/4) + 2 (1 - 1/(2 sqrt2))) / 2;  t2: (1 (1 - 1/4) + 1 (1 - 0)) / 2;  t3: (0 + 3 (1 - 1/2)) / 2
    #   t5: no history: NaN
    recs = pd.DataFrame(
        {
            "query": ["t1", "t1", "t2", "t2", "t3", "t3", "t5"],
            "item": ["a", "c", "b", "e", "b", "a", "a"],
            "rank": [1, 2, 1, 2, 1, 2, 1],
            "relevance": [1, 2, 1, 1, 0, 3, 1],
        }
    )
    got = per_query("Serendipity(like='recommenders')", recs)
    want = {
        "t1": (0.25 + 2 * (1 - R2 / 2)) / 2,
        "t2": (0.75 + 1.0) / 2,
        "t3": 1.5 / 2,
        "t5": math.nan,
    }
    for query, value in want.items():
        assert got[query] == pytest.approx(value, abs=1e-12, nan_ok=True), query


def test_cooccurrence_beyond_its_budget_says_so(monkeypatch):
    # the Gram matrix's work: sum over the train queries of |H| x |H ∩ recommended| = t1 2x2 + t2 2x2 (a, b, c
    # recommended) + t3 1x1 + t4 1x0 (d has weight 0: not in H; e is not recommended) = 9
    monkeypatch.setattr(similarity, "COOCCURRENCE_BUDGET", 8)
    with pytest.raises(ParameterError, match=r"similarity='cooccurrence'.* 9 multiply-adds.*budget of 8") as err:
        rankframe.evaluate(RECS, "ILD(like='recommenders')", train=TRAIN, allow_duplicates=True)
    assert err.value.parameter == "similarity" and "features=" in str(err.value)
    monkeypatch.setattr(similarity, "COOCCURRENCE_BUDGET", 9)  # at the budget: computed
    assert (
        rankframe.evaluate(RECS, "ILD(like='recommenders')", train=TRAIN, allow_duplicates=True)["value"].notna().all()
    )
