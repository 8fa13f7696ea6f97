"""Every set-level kernel's weights form equals the metric of the table with each query copied w times.

A query of weight w is w lists (copies renamed ``q#j``), weight 0 leaves it out: for random tables, random integer
weights (0 to 3) and every option of the set-level metrics, the kernel run on ``Lists.with_weights`` equals
``rankframe.evaluate`` on the explicit table of copies (the oracle: no weights anywhere), segment by segment. This
is what the bootstrap over queries reads (docs/decisions/0019-set-level-bootstrap.md).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankframe
from rankframe.core.columns import Columns
from rankframe.engines.beyond_engine import lists_of
from rankframe.measures.names import parse
from rankframe.measures.registry import BEYOND_KERNELS

METRICS = [
    "Coverage@3",
    "Coverage(universe='train', output='count')",
    "Gini@2",
    "Gini(universe='recommended')",
    "Gini(universe='train', denominator='n-1', complement=True)@3",
    "Entropy@3",
    "Entropy(like='recbole')",
    "Personalization@2",
    "Personalization(output='similarity')",
    "ARP(aggregate='rows')@3",
    "APLT(aggregate='rows', cold='drop')",
    "Novelty(aggregate='rows', cold='zero', model='choice')@2",
]
CATALOG = [f"i{j}" for j in range(9)]
TRAIN = pd.DataFrame({"query": [50, 50, 51, 52, 52, 53], "item": ["i0", "i1", "i0", "i2", "i3", "i0"]})


def table(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for q in range(int(rng.integers(2, 7))):
        items = rng.choice(8, size=int(rng.integers(1, 5)), replace=False)  # i8: in the catalog, never recommended
        rows += [(("s", "t")[q % 2], q, f"i{i}", r) for r, i in enumerate(items, 1)]
    return pd.DataFrame(rows, columns=["seg", "query", "item", "rank"])


def copies(df: pd.DataFrame, weight: dict) -> pd.DataFrame:
    parts = [df[df["query"] == q].assign(query=f"{q}#{j}") for q, w in weight.items() for j in range(w)]
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("case", range(25))
def test_weights_are_copies(case):
    rng = np.random.default_rng(case)
    df = table(rng)
    queries = sorted(df["query"].unique())
    weight = dict(zip(queries, rng.integers(0, 4, len(queries)).tolist()))
    segs = sorted(df["seg"].unique())
    for s in segs:  # every segment keeps a list: the explicit table has every segment
        if not sum(weight[q] for q in df.loc[df["seg"] == s, "query"].unique()):
            weight[df.loc[df["seg"] == s, "query"].iloc[0]] = 1
    lists, units, _ = lists_of(df, Columns(), ["seg"], train=TRAIN, catalog=CATALOG)
    w = units.keys["query"].map(weight).to_numpy(np.float64)[None, :]
    expected = rankframe.evaluate(copies(df, weight), METRICS, by="seg", train=TRAIN, catalog=CATALOG)
    for name in METRICS:
        m = parse(name)
        got = BEYOND_KERNELS[m.spec.name](lists.with_weights(w), **m.kw)
        assert got.shape == (1, len(segs))
        want = expected[expected["metric"] == str(m)].set_index("seg")["value"].reindex(segs).to_numpy()
        np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-12, err_msg=f"{name} weights {weight}")
