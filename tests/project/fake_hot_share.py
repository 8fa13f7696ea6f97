"""A fake row-value beyond-accuracy metric for tests/project/test_add_a_beyond_metric.py: its one module.

``HotShare@k``: the share of each top k's items with a popularity in train= of at least ``most`` (a cold item is
not hot), averaged over the lists. A *row-value* metric (``BeyondSpec.row_values``, as ARP, APLT and Novelty): a
mean of one value per top-k row, each read from the item's row of train's popularity, so its SQL is two scalar
macros, ``rf__hot_share_row_value(i, z, o)`` and ``rf__hot_share_row_counted(i, z, o)``, which the shared
``rf__beyond_row_values`` of ``sql/beyond.sql`` calls by the CASE the SQL loader generates (no edit there), and its
own option ``most`` goes into the shared options struct by the ``-- rf:row_option`` line the generated block lists.
One metric per module, as in ``rankframe/beyond/``: ``rankframe.registry.beyond_hook`` finds ``portable`` beside
``compute``. Its SQL file text is ``SQL``.
"""

from __future__ import annotations

import numpy as np

from rankframe.beyond import sqlgen
from rankframe.beyond.declare import POPULARITY, BeyondSpec, like_param
from rankframe.core.declare import Param, k_param

SPEC = BeyondSpec(
    name="hot_share",
    canonical="HotShare",
    better="lower",
    better_why="less of each list spent on the items everybody has (a fake metric: tests only)",
    aliases=("hot_items_share",),
    summary="share of each top k's items with a popularity of at least `most` in train= (a fake metric: tests only)",
    params=(
        k_param(),
        like_param(("recbole",)),
        POPULARITY,
        Param("most", 2.0, "an item is hot with at least this popularity in train=", kind="nonnegative"),
    ),
    presets={"recbole": {"popularity": "interactions", "most": 1.0}},  # a made-up preset
    bounded=True,
    level="list",
    needs=("train",),
    order=2992,
)


def compute(lists, *, k, popularity, most, like):
    """One value per list: hot rows / top-k rows (NaN without a top-k row)."""
    top = lists.cut(k)
    if top.train is None:
        raise RuntimeError("train= was not checked before the kernel")
    hot = top.train.popularity(popularity)[top.item] >= most
    return top.mean(hot.astype(np.float64), None, "per_list")


def portable(b, i, *, k, popularity, most, like):
    """A top-k row's (value, counted) over train's items ``t`` (rankframe.portable.beyond.Builder)."""
    return f"CASE WHEN COALESCE(t.rf__pop, 0) >= {b.num(most)} THEN 1 ELSE 0 END", "1"


SQL = sqlgen.rewritten(
    SPEC,
    """
-- HotShare@k: the share of each top k's items with a popularity of at least `most` in train (a fake metric)
-- rf:generated-begin
-- rf:generated-end

-- a row's value and whether it counts (i: the item's row of rf__beyond_items, NULL fields when cold; o: options)
CREATE OR REPLACE MACRO rf__hot_share_row_value(i, z, o) AS
    CAST(coalesce(i.rf__pop, 0) >= struct_extract(o, 'most') AS DOUBLE);
CREATE OR REPLACE MACRO rf__hot_share_row_counted(i, z, o) AS true;

CREATE OR REPLACE MACRO rf_hot_share(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank',
                                     "like" := NULL, popularity := NULL, most := NULL) AS TABLE
    SELECT * FROM rf__beyond_list_means(tbl, train, segments, order_by, 'hot_share', 'HotShare',
                  (SELECT rf__hot_share_options(k, "like", popularity, most, train IS NOT NULL, false, 'rf_hot_share')),
                  (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, NULL, false, segments, order_by,
                      rf__hot_share_options(k, "like", popularity, most, train IS NOT NULL, false, 'rf_hot_share'),
                      'rf_hot_share')));
""",
)
