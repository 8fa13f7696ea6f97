-- Coverage@k (docs/beyond-accuracy.md "Coverage"): the items of the universe (catalog's or train's) recommended in
-- some top k of the segment, as a share of the universe ('share') or their number ('count'); one row per segment.
-- rf_coverage(tbl, train := NULL, catalog := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL,
--             universe := NULL, output := NULL, outside := NULL): tables by name; options NULL = the preset's, else the default.
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/coverage.py)
CREATE OR REPLACE MACRO rf__coverage_opts(k, "like", universe, output, outside, owner) AS
    list_transform([rf__opt_choice("like", ['recommenders', 'recbole', 'evidently', 'rectools', 'replay', 'elliot'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        universe := coalesce(rf__opt_choice(universe, ['catalog', 'train'], 'universe', owner), CASE rf__lk WHEN 'recommenders' THEN 'train' WHEN 'recbole' THEN 'catalog' WHEN 'evidently' THEN 'train' WHEN 'rectools' THEN 'catalog' WHEN 'replay' THEN 'train' WHEN 'elliot' THEN 'train' END, 'catalog'),
        output := coalesce(rf__opt_choice(output, ['share', 'count'], 'output', owner), CASE rf__lk WHEN 'recommenders' THEN 'share' WHEN 'recbole' THEN 'share' WHEN 'evidently' THEN 'share' WHEN 'rectools' THEN 'count' WHEN 'replay' THEN 'share' WHEN 'elliot' THEN 'count' END, 'share'),
        outside := coalesce(rf__opt_choice(outside, ['ignore', 'count'], 'outside', owner), CASE rf__lk WHEN 'recommenders' THEN 'count' WHEN 'recbole' THEN 'count' WHEN 'evidently' THEN 'ignore' WHEN 'rectools' THEN 'count' WHEN 'replay' THEN 'ignore' WHEN 'elliot' THEN 'count' END, 'ignore')))[1];
CREATE OR REPLACE MACRO rf__coverage_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN struct_extract(x, 'universe') = 'catalog' AND NOT catalog_given THEN error('rf:param: Coverage (' || owner || ') needs catalog := ''<table>'', a table with an item column (the catalog''s item ids)')
         WHEN struct_extract(x, 'universe') = 'train' AND NOT train_given THEN error('rf:param: Coverage (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__coverage_options(k, "like", universe, output, outside, train_given, catalog_given, owner) AS
    rf__coverage_needs(rf__coverage_opts(k, "like", universe, output, outside, owner), train_given, catalog_given, owner);
-- rf:generated-end

CREATE OR REPLACE MACRO rf__coverage(tbl, train, catalog, segments, order_by, o, ok, base := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('Coverage', struct_extract(o, 'k')) AS metric,
               CAST(count(DISTINCT b.item) FILTER (WHERE b.rf__top AND (u.rf__item IS NOT NULL
                                                             OR struct_extract(o, 'outside') = 'count')) AS DOUBLE)
                   / CASE WHEN struct_extract(o, 'output') = 'count' THEN 1
                          ELSE greatest((SELECT count(*) FROM rf__beyond_universe(tbl, train, catalog, struct_extract(o, 'universe'))), 1)
                          END AS value,
               count(DISTINCT b.query) AS n
        FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b
        LEFT JOIN rf__beyond_universe(tbl, train, catalog, struct_extract(o, 'universe')) AS u ON b.item = u.rf__item
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;

CREATE OR REPLACE MACRO rf_coverage(tbl, train := NULL, catalog := NULL, segments := [], k := NULL,
                                    order_by := 'rank', "like" := NULL, universe := NULL, output := NULL,
                                    outside := NULL) AS TABLE
    SELECT * FROM rf__coverage(tbl, train, catalog, segments, order_by,
                               (SELECT rf__coverage_options(k, "like", universe, output, outside, train IS NOT NULL,
                                                            catalog IS NOT NULL, 'rf_coverage')),
                               (SELECT rf__ok FROM rf__beyond_ok(tbl, train, catalog, NULL, false, segments, order_by,
                                   rf__coverage_options(k, "like", universe, output, outside, train IS NOT NULL,
                                                        catalog IS NOT NULL, 'rf_coverage'), 'rf_coverage')));
