"""rf_fuse (sql/fuse.sql) on a table small enough to fuse by hand: the conventions of issue 22, one per test.

The runs (score descending, ties by item descending as a string: decision 2):
  a  q1: x 3.0, y 2.0, z 2.0  -> x(1) z(2) y(3)   (y and z tie: 'z' > 'y', so z first)
     q2: v 0.4, u 0.2         -> v(1) u(2)
  b  q1: y 5.0, w 1.0         -> y(1) w(2)        (b has no q2: it takes no part in q2)
  c  q1: x 0.5                -> x(1)
     q2: v 1.0                -> v(1)
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from faces import macro_connection

RUNS = pd.DataFrame(
    [
        ("a", "q1", "x", 3.0),
        ("a", "q1", "y", 2.0),
        ("a", "q1", "z", 2.0),
        ("a", "q2", "v", 0.4),
        ("a", "q2", "u", 0.2),
        ("b", "q1", "y", 5.0),
        ("b", "q1", "w", 1.0),
        ("c", "q1", "x", 0.5),
        ("c", "q2", "v", 1.0),
    ],
    columns=["system", "query", "item", "score"],
)


@pytest.fixture(scope="module")
def con():
    c = macro_connection()
    c.register("runs", RUNS)
    # the same runs with a rank column that reverses a's q1 list: rank wins over score
    c.register("ranked", RUNS.assign(rank=[3, 2, 1, 1, 2, 1, 2, 1, 1]))
    yield c
    c.close()


def fused(con, args: str, table: str = "runs") -> dict:
    """{query: [(item, score), ...] in fused rank order}; the ranks are checked to be 1..n."""
    got = con.execute(f"SELECT * FROM rf_fuse('{table}'{args}) ORDER BY query, rank").df()
    out: dict = {}
    for q, g in got.groupby("query"):
        assert list(g["rank"]) == list(range(1, len(g) + 1))
        out[q] = list(zip(g["item"], g["score"]))
    return out


def same(got: list, want: list) -> None:
    assert [i for i, _ in got] == [i for i, _ in want]
    for (_, g), (i, w) in zip(got, want):
        # rel 1e-11: fused scores are rounded to 12 significant digits (at most 5e-12 relative; decision 0015)
        assert math.isclose(g, w, rel_tol=1e-11, abs_tol=1e-15), (i, g, w)


def test_rrf_elasticsearch_convention(con):
    # k = 60, 1-based ranks: 1 / (60 + rank). q1: x = 1/61 (a) + 1/61 (c); y = 1/63 (a) + 1/61 (b);
    # z = 1/62 (a); w = 1/62 (b): z and w tie, 'z' > 'w' so z first. q2: v = 1/61 + 1/61, u = 1/62; b adds nothing.
    got = fused(con, "")
    same(got["q1"], [("x", 2 / 61), ("y", 1 / 63 + 1 / 61), ("z", 1 / 62), ("w", 1 / 62)])
    same(got["q2"], [("v", 2 / 61), ("u", 1 / 62)])


def test_rrf_qdrant_convention(con):
    # k = 2, 0-based ranks: 1 / (2 + rank - 1). x = 1/2 + 1/2; y = 1/4 + 1/2; z = w = 1/3
    got = fused(con, ", k := 2, rank_base := 0")
    same(got["q1"], [("x", 1.0), ("y", 0.75), ("z", 1 / 3), ("w", 1 / 3)])


def test_combmnz_counts_only_the_runs_holding_the_item(con):
    # sum of the scores times the number of runs holding the item: x = (3 + 0.5) * 2, y = (2 + 5) * 2, z = 2 * 1, w = 1
    same(fused(con, ", method := 'combmnz'")["q1"], [("y", 14.0), ("x", 7.0), ("z", 2.0), ("w", 1.0)])
    # ANZ: the mean over the runs holding it: y = 7 / 2, z = 2, x = 3.5 / 2, w = 1
    same(fused(con, ", method := 'combanz'")["q1"], [("y", 3.5), ("z", 2.0), ("x", 1.75), ("w", 1.0)])


def test_min_max_degenerate_run_gives_zero(con):
    # min-max per run: a (min 2, max 3): x 1, y 0, z 0; b: y 1, w 0; c holds one item: degenerate, 0.
    # CombSUM: x = 1, y = 1 (tie: 'y' > 'x', y first), z = 0, w = 0 (z first)
    same(fused(con, ", method := 'combsum', norm := 'min-max'")["q1"], [("y", 1.0), ("x", 1.0), ("z", 0.0), ("w", 0.0)])


def test_zmuv(con):
    # a: mean 7/3, population sd sqrt(((2/3)^2 + 2 (1/3)^2) / 3) = sqrt(2)/3: x = sqrt(2), y = z = -1/sqrt(2);
    # b: mean 3, sd 2: y = 1, w = -1; c: one item, sd 0: 0. CombSUM: x = sqrt 2, y = 1 - 1/sqrt 2, z = -1/sqrt 2, w = -1
    r2 = math.sqrt(2)
    same(
        fused(con, ", method := 'combsum', norm := 'zmuv'")["q1"],
        [("x", r2), ("y", 1 - 1 / r2), ("z", -1 / r2), ("w", -1.0)],
    )


def test_bordafuse_fills_every_candidate(con):
    # q1 has 4 candidates: a run gives 4 - i points to its item at 0-based position i and (4 - n + 1) / 2 to each
    # candidate it lacks (n its length): a: x 4, z 3, y 2, w (4-3+1)/2 = 1; b: y 4, w 3, x = z = 1.5; c: x 4, others 2.
    # x = 9.5, y = 8, z = 6.5, w = 6. q2 (2 candidates): a: v 2, u 1; c: v 2, u (2-1+1)/2 = 1; b lacks q2, an
    # empty run: (2-0+1)/2 = 1.5 to each. v = 5.5, u = 3.5
    got = fused(con, ", method := 'bordafuse'")
    same(got["q1"], [("x", 9.5), ("y", 8.0), ("z", 6.5), ("w", 6.0)])
    same(got["q2"], [("v", 5.5), ("u", 3.5)])


def test_a_query_a_system_lacks_is_its_empty_run(con):
    # q2 under norm := 'borda' (2 candidates v, u): a: v 1, u 1 - 1/2 = .5; c: v 1, u 0.5 - 0/4 = .5; b, empty:
    # 0.5 - (0 - 1)/4 = .75 to each, and counts. CombMNZ: v = (1 + 1 + .75) * 3 = 8.25, u = (.5 + .5 + .75) * 3 = 5.25.
    # Without a fill b adds nothing: RRF's q2 above, CombMNZ over ranks (norm := 'rank'): v = (1 + 1) * 2, u = .5 * 1
    same(fused(con, ", method := 'combmnz', norm := 'borda'")["q2"], [("v", 8.25), ("u", 5.25)])
    same(fused(con, ", method := 'combmnz', norm := 'rank'")["q2"], [("v", 4.0), ("u", 0.5)])


def test_borda_norm_fills_runs_in_a_deterministic_order(con):
    # borda norm over 4 candidates: own item at 0-based i -> 1 - i/4, a lacking one -> 0.5 - (n - 1)/8.
    # a: x 1, z .75, y .5, w .25; b: y 1, w .75, x = z = .375; c: x 1, y = z = w = .5.
    # CombSUM: x = 2.375, y = 2, z = 1.625, w = 1.5
    same(
        fused(con, ", method := 'combsum', norm := 'borda'")["q1"],
        [("x", 2.375), ("y", 2.0), ("z", 1.625), ("w", 1.5)],
    )
    # a rank-based method reads the filled runs' positions: the filled items come after the run's own, by item
    # descending (ranx: Python's set order). a: x z y | w; b: y w | z x; c: x | z y w. RRF (k = 60):
    # x = 1/61 + 1/64 + 1/61, y = 1/63 + 1/61 + 1/63, z = 1/62 + 1/63 + 1/62, w = 1/64 + 1/62 + 1/64
    same(
        fused(con, ", norm := 'borda'")["q1"],
        [
            ("x", 2 / 61 + 1 / 64),
            ("y", 2 / 63 + 1 / 61),
            ("z", 2 / 62 + 1 / 63),
            ("w", 2 / 64 + 1 / 62),
        ],
    )


def test_weighted_mnz(con):
    # weights a 1, b 2, c 0.5: the sum of the scores times the sum of the weights of the runs holding the item:
    # x = (3 + 0.5)(1 + 0.5) = 5.25, y = (2 + 5)(1 + 2) = 21, z = 2 * 1 = 2, w = 1 * 2 = 2 (tie: z first)
    same(
        fused(con, ", method := 'wmnz', weights := MAP {'a': 1, 'b': 2, 'c': 0.5}")["q1"],
        [("y", 21.0), ("x", 5.25), ("z", 2.0), ("w", 2.0)],
    )


def test_log_isr_gives_zero_to_an_item_of_one_run(con):
    # ISR contributions 1/rank^2, times ln(runs holding it): x = (1 + 1) ln 2, y = (1/9 + 1) ln 2, z = w = 0 (ln 1)
    ln2 = math.log(2)
    same(fused(con, ", method := 'log_isr'")["q1"], [("x", 2 * ln2), ("y", 10 / 9 * ln2), ("z", 0.0), ("w", 0.0)])


def test_depth_cuts_each_run_first(con):
    # depth 1: a keeps x, b keeps y, c keeps x: x = 2/61, y = 1/61; z and w are gone
    same(fused(con, ", depth := 1")["q1"], [("x", 2 / 61), ("y", 1 / 61)])


def test_rank_wins_over_score(con):
    # 'ranked' reverses a's q1 list by its rank column: a: z(1) y(2) x(3). RRF: x = 1/63 + 1/61, y = 1/62 + 1/61,
    # z = 1/61, w = 1/62
    same(
        fused(con, "", table="ranked")["q1"],
        [("y", 1 / 62 + 1 / 61), ("x", 1 / 63 + 1 / 61), ("z", 1 / 61), ("w", 1 / 62)],
    )
