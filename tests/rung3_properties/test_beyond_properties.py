"""Properties of the beyond-accuracy metrics on random tables: per segment equals each segment alone, row order
and query relabelling do not matter, the declared bounds hold (issue 21)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import hypothesis_examples
from hypothesis import given, settings
from hypothesis import strategies as st

import rankframe
from rankframe.measures.names import Measure
from rankframe.measures.registry import BEYOND

CATALOG = list(range(10))
#: features= of items 0..8 (item 9 unknown), two or three genres each (ILD, Calibration)
FEATURES = pd.DataFrame(
    [(i, f"g{g}", float(1 + (i + g) % 3)) for i in range(9) for g in range(4) if (i + g) % 4 != 3],
    columns=["item", "feature", "value"],
)


def _grid() -> list[str]:
    """Every declared metric at its defaults (k = None and 2), each other value of each choice option alone (k = 2),
    and each preset: every option value is met without the product of all of them (kept fast)."""
    out = []
    for spec in BEYOND:
        out += [spec.canonical, f"{spec.canonical}@2"]
        for p in spec.params:
            if p.name == "like" or p.constraint.values() is None:  # the choices and the flags
                continue
            for v in p.constraint.values():
                if v != p.default:
                    out.append(str(Measure.of(spec, k=2, **{p.name: v})))
        out += [f"{spec.canonical}(like={peer!r})@2" for peer in spec.presets]
    return out


GRID = _grid()


@st.composite
def tables(draw):
    n_queries = draw(st.integers(1, 6))
    rows = []
    for q in range(n_queries):
        items = draw(st.lists(st.integers(0, 7), min_size=0, max_size=4, unique=True))
        seg = draw(st.sampled_from("xyz"))
        grades = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, np.nan]), min_size=len(items), max_size=len(items)))
        rows += [(seg, q, item, r + 1, g) for r, (item, g) in enumerate(zip(items, grades))]  # grades: Serendipity
    if not rows:
        rows = [("x", 0, 0, 1, 1.0)]
    recs = pd.DataFrame(rows, columns=["seg", "query", "item", "rank", "relevance"])
    train_rows = draw(
        st.lists(
            st.tuples(st.integers(0, 8), st.integers(0, 9), st.sampled_from([0.0, 1.0, 2.5])),
            min_size=1,
            max_size=12,
        )
    )
    train = pd.DataFrame(train_rows, columns=["query", "item", "weight"])
    return recs, train


def _run(recs, train, by=None):
    return rankframe.evaluate(recs, GRID, by=by, catalog=CATALOG, train=train, features=FEATURES)


@settings(max_examples=hypothesis_examples(15))
@given(tables())
def test_each_segment_equals_the_segment_alone(data):
    recs, train = data
    together = _run(recs, train, by="seg")
    for seg, part in recs.groupby("seg"):
        alone = _run(part.drop(columns="seg"), train)
        mine = together[together["seg"] == seg]
        assert mine["metric"].tolist() == alone["metric"].tolist()
        np.testing.assert_allclose(mine["value"].to_numpy(), alone["value"].to_numpy(), rtol=1e-12, atol=1e-12)
        assert mine["n"].tolist() == alone["n"].tolist()


@settings(max_examples=hypothesis_examples(10))
@given(tables(), st.randoms(use_true_random=False))
def test_row_order_and_query_names_do_not_matter(data, rnd):
    recs, train = data
    want = _run(recs, train, by="seg")
    shuffled = recs.sample(frac=1, random_state=rnd.randint(0, 2**31)).reset_index(drop=True)
    shuffled["query"] = shuffled["query"].map(lambda q: f"user-{q}")  # relabelled (text ids)
    relabelled = train.assign(query=train["query"].map(lambda q: f"user-{q}"))  # the histories follow their queries
    got = _run(shuffled, relabelled.sample(frac=1, random_state=1), by="seg")
    pd.testing.assert_frame_equal(got, want)


@settings(max_examples=hypothesis_examples(10))
@given(tables())
def test_declared_bounds(data):
    recs, train = data
    got = _run(recs, train)
    for metric, rows in got.groupby("metric", sort=False):
        m = rankframe.parse(metric)
        if m.spec.is_bounded(m.kw):  # declared bounded, less the option values declared otherwise (unbounded_when)
            values = rows["value"].dropna()
            assert ((values >= -1e-12) & (values <= 1 + 1e-12)).all(), metric


@pytest.mark.parametrize("metric", ["Gini@2", "Entropy", "Coverage(output='count')"])
def test_one_item_everywhere(metric):
    # every list recommends only item 0: Gini over the recommended items alone is 0; entropy 0; count 1
    recs = pd.DataFrame({"query": [1, 2], "item": [0, 0], "rank": 1})
    metric = metric.replace("Gini@2", "Gini(universe='recommended')@2")
    got = rankframe.evaluate(recs, metric, catalog=CATALOG if "Coverage" in metric else None)
    assert got["value"].iloc[0] == (1.0 if "count" in metric else 0.0)
