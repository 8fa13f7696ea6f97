"""A fake set-level beyond-accuracy metric for tests/project/test_add_a_beyond_metric.py: its one module.

``DistinctItems@k``: the number of distinct items in the segment's top k lists (Elliot's ItemCoverage; Coverage
with ``output='count', outside='count'`` computes the same). One metric per module, as in ``rankframe/beyond/``:
``rankframe.registry.beyond_hook`` finds ``portable`` beside ``compute``. Its SQL file text is ``SQL``.
"""

from __future__ import annotations

from rankframe.beyond import sqlgen
from rankframe.beyond.declare import BeyondSpec, like_param
from rankframe.core.declare import k_param

SPEC = BeyondSpec(
    name="distinct_items",
    canonical="DistinctItems",
    better_why="more items recommended somewhere (a fake metric: tests only)",
    aliases=("distinct_recommended",),
    summary="number of distinct items in the segment's top k lists (set-level; a fake metric: tests only)",
    params=(k_param(), like_param(("elliot",))),
    presets={"elliot": {}},
    bounded=False,
    level="set",
    order=2991,
)


def compute(lists, *, k, like):
    """One value per segment (per resample of ``lists.weights``): the items with a top-k row."""
    counts, seg, _ = lists.cut(k).weighted_counts()
    return lists.out(lists.by_segment(counts > 0, seg))


def portable(b, i, *, k, like):
    """The CTE of its segment rows (rankframe.portable.beyond.Builder)."""
    p = b.pairs(k, None)  # (segment..., rf__item, rf__c = its top-k rows)
    return b.segment_rows(
        f"rf__bm{i}", [b.contribution(p, "CASE WHEN rf__c > 0 THEN 1 ELSE 0 END")], 1, "COALESCE(SUM(a0), 0)"
    )


SQL = sqlgen.rewritten(
    SPEC,
    """
-- DistinctItems@k: the distinct items of the segment's top k lists; one row per segment (a fake metric: tests only)
-- rf:generated-begin
-- rf:generated-end

CREATE OR REPLACE MACRO rf__distinct_items(tbl, train, catalog, segments, order_by, o, ok, base := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('DistinctItems', struct_extract(o, 'k')) AS metric,
               CAST(count(DISTINCT b.item) FILTER (WHERE b.rf__top) AS DOUBLE) AS value,
               count(DISTINCT b.query) AS n
        FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;

CREATE OR REPLACE MACRO rf_distinct_items(tbl, segments := [], k := NULL, order_by := 'rank', "like" := NULL) AS TABLE
    SELECT * FROM rf__distinct_items(tbl, NULL, NULL, segments, order_by,
                                     (SELECT rf__distinct_items_options(k, "like", false, false, 'rf_distinct_items')),
                                     (SELECT rf__ok FROM rf__beyond_ok(tbl, NULL, NULL, NULL, false, segments, order_by,
                                         rf__distinct_items_options(k, "like", false, false, 'rf_distinct_items'),
                                         'rf_distinct_items')));
""",
)
