"""Random runs with judgments for the fusion training tests (ranx oracle, per-segment properties)."""

from __future__ import annotations

import numpy as np
import pandas as pd

SYSTEMS = ["bm25", "dense", "splade"]


def random_table(seed: int, systems: list[str], *, ties: bool, n_queries: int = 12) -> pd.DataFrame:
    """Runs of 11..16 items from a pool of 25 per query (every system has every query), judgments 0..2.

    Without ties: distinct random scores and every system ranking the same items of a query (an item missing from
    a run would score 0 there, a tie with the others missing from it).
    """
    rng = np.random.default_rng(seed)
    rows = []
    shared = [rng.choice(25, size=rng.integers(11, 17), replace=False) for _ in range(n_queries)]
    for s in systems:
        for q in range(n_queries):
            n = rng.integers(11, 17)
            items = rng.choice(25, size=n, replace=False) if ties else shared[q]
            n = len(items)
            scores = rng.uniform(0.05, 1.0, size=n)
            scores = np.round(scores, 1) if ties else scores
            rows += [(s, f"q{q:02d}", f"d{i:02d}", float(v)) for i, v in zip(items, scores)]
    runs = pd.DataFrame(rows, columns=["system", "query", "item", "score"])
    qrels = []
    for q in range(n_queries):
        judged = rng.choice(25, size=8, replace=False)
        grades = rng.integers(0, 3, size=8)
        grades[0] = max(grades[0], 1)  # every query has a relevant item
        qrels += [(f"q{q:02d}", f"d{i:02d}", int(g)) for i, g in zip(judged, grades)]
    return runs, pd.DataFrame(qrels, columns=["query", "item", "relevance"])
