-- Gini@k (docs/beyond-accuracy.md "Gini"): sum_i (2i - n - 1) c_(i) / (d * sum c) over the n items of the universe
-- (catalog's, train's or the recommended ones; an item recommended outside the universe counts too), c_(i) the
-- i-th smallest number of the segment's top-k rows recommending it (0 when never), d = n or n - 1; 1 - Gini with
-- complement. One row per segment (NaN without a recommended row or with d = 0).
-- rf_gini(tbl, train := NULL, catalog := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL,
--         universe := NULL, denominator := NULL, complement := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/gini.py)
CREATE OR REPLACE MACRO rf__gini_opts(k, "like", universe, denominator, complement, owner) AS
    list_transform([rf__opt_choice("like", ['recbole', 'evidently', 'lenskit', 'elliot'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        universe := coalesce(rf__opt_choice(universe, ['catalog', 'train', 'recommended'], 'universe', owner), CASE rf__lk WHEN 'recbole' THEN 'catalog' WHEN 'evidently' THEN 'recommended' WHEN 'lenskit' THEN 'catalog' WHEN 'elliot' THEN 'train' END, 'catalog'),
        denominator := coalesce(rf__opt_choice(denominator, ['n', 'n-1'], 'denominator', owner), CASE rf__lk WHEN 'recbole' THEN 'n' WHEN 'evidently' THEN 'n-1' WHEN 'lenskit' THEN 'n' WHEN 'elliot' THEN 'n-1' END, 'n'),
        complement := coalesce(rf__opt_flag(complement, 'complement', owner), CASE rf__lk WHEN 'recbole' THEN false WHEN 'evidently' THEN false WHEN 'lenskit' THEN false WHEN 'elliot' THEN true END, false)))[1];
CREATE OR REPLACE MACRO rf__gini_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN struct_extract(x, 'universe') = 'catalog' AND NOT catalog_given THEN error('rf:param: Gini (' || owner || ') needs catalog := ''<table>'', a table with an item column (the catalog''s item ids)')
         WHEN struct_extract(x, 'universe') = 'train' AND NOT train_given THEN error('rf:param: Gini (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__gini_options(k, "like", universe, denominator, complement, train_given, catalog_given, owner) AS
    rf__gini_needs(rf__gini_opts(k, "like", universe, denominator, complement, owner), train_given, catalog_given, owner);
-- rf:generated-end

CREATE OR REPLACE MACRO rf__gini(tbl, train, catalog, segments, order_by, o, ok, base := NULL) AS TABLE
    WITH rf__pairs AS (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'rf__sk', 'item')),
               count(*) FILTER (WHERE b.rf__top) AS rf__c, count(*) FILTER (WHERE b.rf__first) AS rf__q,
               bool_or(u.rf__item IS NOT NULL) AS rf__in
        FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b
        LEFT JOIN rf__beyond_universe(tbl, train, catalog, struct_extract(o, 'universe')) AS u ON b.item = u.rf__item
        GROUP BY ALL
    ), rf__ranked AS (
        SELECT p.*,
               -- m = the items recommended in the segment, j = the rank of c among them (ascending; ties give the
               -- same sum in any order), n = the universe's items plus those recommended outside it
               -- (count(CASE ...) OVER, not count(*) FILTER (...) OVER: DuckDB computes a filtered window count
               -- row by row over the partition, 1.25 s on 20k items)
               count(CASE WHEN p.rf__c > 0 THEN 1 END) OVER (PARTITION BY p.rf__sk) AS rf__m,
               row_number() OVER (PARTITION BY p.rf__sk, p.rf__c > 0 ORDER BY p.rf__c) AS rf__j,
               CASE WHEN struct_extract(o, 'universe') = 'recommended' THEN count(CASE WHEN p.rf__c > 0 THEN 1 END) OVER (PARTITION BY p.rf__sk)
                    ELSE (SELECT count(*) FROM rf__beyond_universe(tbl, train, catalog, struct_extract(o, 'universe')))
                         + count(CASE WHEN p.rf__c > 0 AND NOT p.rf__in THEN 1 END) OVER (PARTITION BY p.rf__sk) END
                   AS rf__n
        FROM rf__pairs AS p
    )
    SELECT * EXCLUDE (rf__all, rf__g, n), CASE WHEN struct_extract(o, 'complement') THEN 1 - rf__g ELSE rf__g END AS value, n FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('Gini', struct_extract(o, 'k')) AS metric,
               CASE WHEN sum(r.rf__c ORDER BY r.rf__c) = 0
                         OR max(r.rf__n) - CASE WHEN struct_extract(o, 'denominator') = 'n' THEN 0 ELSE 1 END <= 0
                    THEN CAST('NaN' AS DOUBLE)
                    ELSE sum(CAST(2 * (r.rf__n - r.rf__m + r.rf__j) - r.rf__n - 1 AS DOUBLE) * r.rf__c
                             ORDER BY r.rf__c, r.rf__j) FILTER (WHERE r.rf__c > 0)
                         / (CAST(max(r.rf__n) - CASE WHEN struct_extract(o, 'denominator') = 'n' THEN 0 ELSE 1 END AS DOUBLE)
                            * sum(r.rf__c ORDER BY r.rf__c)) END AS rf__g,
               sum(r.rf__q ORDER BY r.rf__q) AS n
        FROM rf__ranked AS r
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;

CREATE OR REPLACE MACRO rf_gini(tbl, train := NULL, catalog := NULL, segments := [], k := NULL, order_by := 'rank',
                                "like" := NULL, universe := NULL, denominator := NULL, complement := NULL) AS TABLE
    SELECT * FROM rf__gini(tbl, train, catalog, segments, order_by,
                           (SELECT rf__gini_options(k, "like", universe, denominator, complement, train IS NOT NULL,
                                            catalog IS NOT NULL, 'rf_gini')),
                           (SELECT rf__ok FROM rf__beyond_ok(tbl, train, catalog, NULL, false, segments, order_by,
                               rf__gini_options(k, "like", universe, denominator, complement, train IS NOT NULL,
                                                catalog IS NOT NULL, 'rf_gini'), 'rf_gini')));
