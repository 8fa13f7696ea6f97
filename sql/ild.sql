-- ILD@k, intra-list diversity (docs/beyond-accuracy.md "ILD"): the mean distance (or similarity) of every pair of
-- items in each top k, never pair by pair (rankframe/beyond/ild.py): with unit vectors (cosine) the
-- pairs' sum is (||sum u||² - sum ||u||²) / 2 from one GROUP BY (list, dimension); with hamming the differing pairs
-- of a dimension are C(n, 2) - C(zeros, 2) - sum_v C(c_v, 2) from one GROUP BY (list, dimension, value); with
-- cooccurrence each list's pairs of rows are looked up in rf__beyond_cooccurrence (rows x (k - 1) / 2 look-ups).
-- rf_ild(tbl, train := NULL, features := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL,
--        similarity := NULL, output := NULL, unknown := NULL, single_item := NULL, pair_denominator := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/ild.py)
CREATE OR REPLACE MACRO rf__ild_opts(k, "like", similarity, output, unknown, single_item, pair_denominator, owner) AS
    list_transform([rf__opt_choice("like", ['recommenders', 'rectools', 'evidently', 'lenskit'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        similarity := coalesce(rf__opt_choice(similarity, ['cosine', 'hamming', 'cooccurrence'], 'similarity', owner), CASE rf__lk WHEN 'recommenders' THEN 'cooccurrence' WHEN 'rectools' THEN 'hamming' WHEN 'evidently' THEN 'cosine' WHEN 'lenskit' THEN 'cosine' END, 'cosine'),
        output := coalesce(rf__opt_choice(output, ['distance', 'similarity'], 'output', owner), CASE rf__lk WHEN 'recommenders' THEN 'distance' WHEN 'rectools' THEN 'distance' WHEN 'evidently' THEN 'distance' WHEN 'lenskit' THEN 'similarity' END, 'distance'),
        unknown := coalesce(rf__opt_choice(unknown, ['drop', 'zero'], 'unknown', owner), CASE rf__lk WHEN 'recommenders' THEN 'zero' WHEN 'rectools' THEN 'drop' WHEN 'evidently' THEN 'drop' WHEN 'lenskit' THEN 'drop' END, 'drop'),
        single_item := coalesce(rf__opt_choice(single_item, ['nan', 'zero', 'one', 'zero_if_one_row'], 'single_item', owner), CASE rf__lk WHEN 'recommenders' THEN 'nan' WHEN 'rectools' THEN 'zero_if_one_row' WHEN 'evidently' THEN 'zero' WHEN 'lenskit' THEN 'one' END, 'nan'),
        pair_denominator := coalesce(rf__opt_choice(pair_denominator, ['pairs', 'items'], 'pair_denominator', owner), CASE rf__lk WHEN 'recommenders' THEN 'pairs' WHEN 'rectools' THEN 'pairs' WHEN 'evidently' THEN 'items' WHEN 'lenskit' THEN 'pairs' END, 'pairs')))[1];
CREATE OR REPLACE MACRO rf__ild_needs(o, train_given, catalog_given, features_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN struct_extract(x, 'similarity') = 'cosine' AND NOT features_given THEN error('rf:param: ILD (' || owner || ') needs features := ''<table>'', a table of item features with the item column, feature (and optionally value)')
         WHEN struct_extract(x, 'similarity') = 'hamming' AND NOT features_given THEN error('rf:param: ILD (' || owner || ') needs features := ''<table>'', a table of item features with the item column, feature (and optionally value)')
         WHEN struct_extract(x, 'similarity') = 'cooccurrence' AND NOT train_given THEN error('rf:param: ILD (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__ild_options(k, "like", similarity, output, unknown, single_item, pair_denominator, train_given, catalog_given, features_given, owner) AS
    rf__ild_needs(rf__ild_opts(k, "like", similarity, output, unknown, single_item, pair_denominator, owner), train_given, catalog_given, features_given, owner);
-- rf:generated-end

-- the options, with the rules between them (rankframe/beyond/ild.py check_rules)
CREATE OR REPLACE MACRO rf__ild_rules(o) AS list_transform([o], lambda x:
    CASE WHEN struct_extract(x, 'similarity') = 'hamming' AND struct_extract(x, 'output') = 'similarity'
         THEN error('rf:param: ILD(similarity=''hamming'') is a count of differing features, a distance: output=''similarity'' does not apply (use similarity=''cosine'' for a similarity)')
         ELSE x END)[1];

-- one row per list (segments..., rf__all, query): rf__n counted items, value (NaN without a pair; 0 for one item
-- with single_item 'zero')
CREATE OR REPLACE MACRO rf__ild_lists(tbl, train, features, segments, order_by, o, ok, base := NULL) AS TABLE
    WITH rf__rows AS (
        SELECT b.*, kn.rf__item IS NOT NULL AS rf__known
        FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b
        LEFT JOIN rf__beyond_known(tbl, train, features, struct_extract(o, 'similarity')) AS kn
               ON b.item = kn.rf__item),
    rf__counted AS (
        SELECT r.rf__sk, r.query, r.item, r.rf__pos FROM rf__rows AS r
        WHERE r.rf__top AND (r.rf__known OR struct_extract(o, 'unknown') = 'zero')),
    rf__cells AS (  -- (list, dimension[, value]): the unit vectors' sums, or the hamming counts
        SELECT c.rf__sk, c.query, v.rf__dim,
               CASE WHEN struct_extract(o, 'similarity') = 'hamming' THEN v.rf__u END AS rf__val,
               rf__xsum(v.rf__u) AS rf__s, count(*) AS rf__c,
               rf__xsum(v.rf__u * v.rf__u) AS rf__self
        FROM rf__counted AS c JOIN rf__beyond_vectors(tbl, train, features, struct_extract(o, 'similarity')) AS v
             ON c.item = v.rf__item
        WHERE struct_extract(o, 'similarity') <> 'hamming' OR v.rf__u <> 0
        GROUP BY c.rf__sk, c.query, v.rf__dim, rf__val),
    rf__dims AS (  -- (list, dimension): one cell each but for hamming (a cell per value), which reads neither
                   -- rf__s nor rf__self: max is the one cell's sums, no second exact sum over 160k cells
        SELECT d.rf__sk, d.query, d.rf__dim,
               max(d.rf__s) AS rf__s, max(d.rf__self) AS rf__self,
               CAST(sum(d.rf__c ORDER BY d.rf__c) AS DOUBLE) AS rf__nz,
               sum(d.rf__c * (d.rf__c - 1) / 2.0 ORDER BY d.rf__c) AS rf__same
        FROM rf__cells AS d GROUP BY d.rf__sk, d.query, d.rf__dim),
    rf__lists AS (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'query', 'rf__sk')),
               CAST(count(*) FILTER (WHERE r.rf__top AND (r.rf__known OR struct_extract(o, 'unknown') = 'zero'))
                    AS DOUBLE) AS rf__n,
               count(*) FILTER (WHERE r.rf__top) AS rf__rows
        FROM rf__rows AS r GROUP BY ALL),
    rf__co AS (SELECT * FROM rf__beyond_cooccurrence(tbl, train, segments, order_by, ok, struct_extract(o, 'similarity'),
                                                     'ILD', base := base)),
    rf__co_lists AS (  -- cooccurrence: twice the sum of the cosines of each list's pairs of rows (as rf__per_list's)
        SELECT a.rf__sk, a.query, 2 * rf__xsum(g.rf__cos) AS rf__sum
        FROM rf__counted AS a
        JOIN rf__counted AS b ON a.rf__sk IS NOT DISTINCT FROM b.rf__sk AND a.query = b.query AND a.rf__pos < b.rf__pos
        JOIN rf__co AS g ON a.item = g.rf__i AND b.item = g.rf__j
        GROUP BY a.rf__sk, a.query),
    rf__per_list AS (
        SELECT l.rf__sk, l.query,
               sum(CASE WHEN struct_extract(o, 'similarity') = 'hamming'
                        THEN l.rf__n * (l.rf__n - 1) / 2 - (l.rf__n - d.rf__nz) * (l.rf__n - d.rf__nz - 1) / 2 - d.rf__same
                        ELSE d.rf__s * d.rf__s - d.rf__self END ORDER BY d.rf__dim) AS rf__sum
        FROM rf__lists AS l JOIN rf__dims AS d ON l.rf__sk IS NOT DISTINCT FROM d.rf__sk AND l.query = d.query
        GROUP BY l.rf__sk, l.query
        UNION ALL
        SELECT c.rf__sk, c.query, c.rf__sum FROM rf__co_lists AS c)
    -- the pairs' sum (the Hamming counts; the cosines; P - the cosines for a distance) over P = n (n - 1) / 2
    -- (pair_denominator 'pairs') or n ('items')
    SELECT l.* EXCLUDE (rf__sk, rf__rows),
           CASE WHEN l.rf__rows = 1 AND struct_extract(o, 'single_item') = 'zero_if_one_row' THEN 0.0
                WHEN l.rf__n < 2
                THEN CASE WHEN l.rf__n = 1 AND struct_extract(o, 'single_item') = 'zero' THEN 0.0
                          WHEN l.rf__n = 1 AND struct_extract(o, 'single_item') = 'one' THEN 1.0
                          ELSE CAST('NaN' AS DOUBLE) END
                ELSE CASE WHEN struct_extract(o, 'similarity') = 'hamming' THEN coalesce(p.rf__sum, 0.0)
                          WHEN struct_extract(o, 'output') = 'similarity' THEN coalesce(p.rf__sum, 0.0) / 2
                          ELSE l.rf__n * (l.rf__n - 1) / 2 - coalesce(p.rf__sum, 0.0) / 2 END
                     / CASE WHEN struct_extract(o, 'pair_denominator') = 'items' THEN l.rf__n
                            ELSE l.rf__n * (l.rf__n - 1) / 2 END END AS value
    FROM rf__lists AS l LEFT JOIN rf__per_list AS p ON l.rf__sk IS NOT DISTINCT FROM p.rf__sk AND l.query = p.query;

CREATE OR REPLACE MACRO rf_ild(tbl, train := NULL, features := NULL, segments := [], k := NULL, order_by := 'rank',
                               "like" := NULL, similarity := NULL, output := NULL, unknown := NULL,
                               single_item := NULL, pair_denominator := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('ILD', k) AS metric,
               rf__beyond_mean(l.value) AS value,
               rf__beyond_n(l.value) AS n
        FROM rf__ild_lists(tbl, train, features, segments, order_by,
                           (SELECT rf__ild_rules(rf__ild_options(k, "like", similarity, output, unknown, single_item, pair_denominator,
                                                         train IS NOT NULL, false, features IS NOT NULL, 'rf_ild'))),
                           (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, features, false, segments, order_by,
                               rf__ild_rules(rf__ild_options(k, "like", similarity, output, unknown, single_item, pair_denominator,
                                   train IS NOT NULL, false, features IS NOT NULL, 'rf_ild')), 'rf_ild'))) AS l
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;
