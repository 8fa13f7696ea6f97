"""Write ``paired.parquet``: three systems ranking the same queries, for ``rankframe.compare`` examples.

Run from anywhere: ``python examples/make_paired.py``. Everything comes from
``numpy.random.default_rng(20250101)``: the same file on every machine.

The table (long format, one row per (system, query, item)):

- ``system``: ``bm25`` (the baseline), ``dense`` and ``hybrid``;
- ``query``: ``q01`` .. ``q32``, the same 32 queries for every system;
- ``length``: a segment column, ``short`` (16 queries) or ``long`` (16 queries);
- ``item``, ``rank`` (1..5 for the five items a system shows; null for a judged relevant item it did not
  show), ``relevance`` (graded 0..2).

Each query has a pool of 12 judged items with grades 0/1/2. A system scores an item as
``skill * grade + noise`` and shows its top 5. ``hybrid`` follows the grades more closely than ``bm25`` on
every query; ``dense`` is better than ``bm25`` on long queries and worse on short ones — the kind of
segment-dependent result that a single mean hides.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SEED = 20250101
N_QUERIES, POOL, DEPTH = 32, 12, 5
SKILL = {  # how strongly each system's score follows the true grade, per segment
    "bm25": {"short": 1.0, "long": 1.0},
    "dense": {"short": 0.2, "long": 1.8},
    "hybrid": {"short": 1.7, "long": 1.9},
}


def paired() -> pd.DataFrame:
    """Build the three systems' rankings of the same queries."""
    rng = np.random.default_rng(SEED)
    rows = []
    for qi in range(N_QUERIES):
        query = f"q{qi + 1:02d}"
        length = "short" if qi % 2 == 0 else "long"
        grade = rng.choice(3, size=POOL, p=[0.6, 0.25, 0.15])
        if grade.max() == 0:
            grade[rng.integers(POOL)] = 1  # every query has at least one relevant item
        items = [f"d{qi + 1:02d}-{i:02d}" for i in range(POOL)]
        for system, skill in SKILL.items():
            score = skill[length] * grade + rng.normal(size=POOL)
            order = np.argsort(-score, kind="stable")
            shown = order[:DEPTH]
            for pos, i in enumerate(shown, start=1):
                rows.append((system, query, length, items[i], pos, int(grade[i])))
            for i in range(POOL):  # judged relevant items the system did not show
                if grade[i] > 0 and i not in shown:
                    rows.append((system, query, length, items[i], None, int(grade[i])))
    df = pd.DataFrame(rows, columns=["system", "query", "length", "item", "rank", "relevance"])
    return df.astype({"rank": "Int64", "relevance": "int64"})


def main() -> None:
    """Write examples/paired.parquet."""
    df = paired()
    df.to_parquet(HERE / "paired.parquet", index=False)
    print(
        f"wrote {HERE / 'paired.parquet'}: {len(df)} rows, {df['system'].nunique()} systems, "
        f"{df['query'].nunique()} queries"
    )


if __name__ == "__main__":
    main()
