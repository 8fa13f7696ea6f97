-- Entropy@k (docs/beyond-accuracy.md "Entropy"): -sum_i p_i log p_i over the items recommended in the segment's top
-- k rows (p_i = item i's share of them), divided by the number of those items with normalize 'items'; one row per
-- segment (NaN without a recommended row).
-- With weigh 'lists' (Elliot) the weights of -sum_i q_i log p_i are q_i = the mean over the lists of item i's share
-- of the list (each top-k row 1 / |its list|) instead of p_i.
-- rf_entropy(tbl, segments := [], k := NULL, order_by := 'rank', like := NULL, log_base := NULL, normalize := NULL,
--            weigh := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/entropy.py)
CREATE OR REPLACE MACRO rf__entropy_opts(k, "like", log_base, normalize, weigh, owner) AS
    list_transform([rf__opt_choice("like", ['recommenders', 'recbole', 'elliot'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        log_base := coalesce(rf__opt_base(log_base, owner), CASE rf__lk WHEN 'recommenders' THEN CAST('2.0' AS DOUBLE) WHEN 'recbole' THEN CAST('2.718281828459045' AS DOUBLE) WHEN 'elliot' THEN CAST('2.0' AS DOUBLE) END, CAST('2.0' AS DOUBLE)),
        normalize := coalesce(rf__opt_choice(normalize, ['none', 'items'], 'normalize', owner), CASE rf__lk WHEN 'recommenders' THEN 'none' WHEN 'recbole' THEN 'items' WHEN 'elliot' THEN 'none' END, 'none'),
        weigh := coalesce(rf__opt_choice(weigh, ['rows', 'lists'], 'weigh', owner), CASE rf__lk WHEN 'recommenders' THEN 'rows' WHEN 'recbole' THEN 'rows' WHEN 'elliot' THEN 'lists' END, 'rows')))[1];
CREATE OR REPLACE MACRO rf__entropy_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__entropy_options(k, "like", log_base, normalize, weigh, train_given, catalog_given, owner) AS
    rf__entropy_needs(rf__entropy_opts(k, "like", log_base, normalize, weigh, owner), train_given, catalog_given, owner);
-- rf:generated-end

CREATE OR REPLACE MACRO rf__entropy(tbl, train, catalog, segments, order_by, o, ok, base := NULL) AS TABLE
    WITH rf__pairs AS (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'rf__sk', 'item')),
               count(*) FILTER (WHERE b.rf__top) AS rf__c, count(*) FILTER (WHERE b.rf__first) AS rf__q,
               -- weigh 'lists' (Elliot): each top-k row 1 / |its list|
               sum(1.0 / b.rf__len ORDER BY b.rf__len) FILTER (WHERE b.rf__top) AS rf__w
        -- (count(CASE ...) OVER: a count(*) FILTER (...) OVER is computed row by row over the partition)
        FROM (SELECT a.*, count(CASE WHEN a.rf__top THEN 1 END) OVER (PARTITION BY a.rf__sk, a.query) AS rf__len
              FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS a) AS b
        GROUP BY ALL
    )
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('Entropy', struct_extract(o, 'k')) AS metric,
               CASE WHEN sum(p.rf__c ORDER BY p.rf__c) = 0 THEN CAST('NaN' AS DOUBLE)
                    ELSE sum(-CASE WHEN struct_extract(o, 'weigh') = 'lists' THEN p.rf__wq ELSE p.rf__p END * ln(CASE WHEN p.rf__p > 0 THEN p.rf__p END) ORDER BY p.rf__p) FILTER (WHERE p.rf__c > 0) / ln(struct_extract(o, 'log_base'))
                         / CASE WHEN struct_extract(o, 'normalize') = 'items' THEN count(*) FILTER (WHERE p.rf__c > 0) ELSE 1 END
                    END AS value,
               sum(p.rf__q ORDER BY p.rf__q) AS n
        FROM (SELECT q.*, q.rf__c / sum(q.rf__c) OVER (PARTITION BY q.rf__sk ORDER BY q.rf__c
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__p,
                     q.rf__w / sum(q.rf__w) OVER (PARTITION BY q.rf__sk ORDER BY q.rf__w
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__wq
              FROM rf__pairs AS q) AS p
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;

CREATE OR REPLACE MACRO rf_entropy(tbl, segments := [], k := NULL, order_by := 'rank', "like" := NULL,
                                   log_base := NULL, normalize := NULL, weigh := NULL) AS TABLE
    SELECT * FROM rf__entropy(tbl, NULL, NULL, segments, order_by,
                              (SELECT rf__entropy_options(k, "like", log_base, normalize, weigh, false, false, 'rf_entropy')),
                              (SELECT rf__ok FROM rf__beyond_ok(tbl, NULL, NULL, NULL, false, segments, order_by,
                                  rf__entropy_options(k, "like", log_base, normalize, weigh, false, false, 'rf_entropy'),
                                  'rf_entropy')));
