-- APLT@k (docs/beyond-accuracy.md "APLT"): the share of each top k that are tail items of train (tail_rule 'bottom':
-- the floor(tail * |train items|), at least 1, least popular, ties by item id; 'count': popularity <= tail), cold
-- items a tail item, not one, or left out (cold); averaged over the lists or over every counted row (aggregate).
-- rf_aplt(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL, popularity := NULL,
--         tail_rule := NULL, tail := NULL, cold := NULL, aggregate := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/aplt.py)
-- rf:row_option popularity VARCHAR
-- rf:row_option tail_rule VARCHAR
-- rf:row_option tail DOUBLE
-- rf:row_option cold VARCHAR
-- rf:row_option aggregate VARCHAR
CREATE OR REPLACE MACRO rf__aplt_opts(k, "like", popularity, tail_rule, tail, cold, aggregate, owner) AS
    list_transform([rf__opt_choice("like", ['recbole', 'elliot'], 'like', owner)], lambda rf__lk: rf__beyond_list_opts(
        rf__k(k, owner),
        rf__lk,
        popularity := coalesce(rf__opt_choice(popularity, ['users', 'interactions'], 'popularity', owner), CASE rf__lk WHEN 'recbole' THEN 'interactions' WHEN 'elliot' THEN 'users' END, 'users'),
        tail_rule := coalesce(rf__opt_choice(tail_rule, ['bottom', 'count', 'pareto'], 'tail_rule', owner), CASE rf__lk WHEN 'recbole' THEN 'bottom' WHEN 'elliot' THEN 'pareto' END, 'bottom'),
        tail := coalesce(rf__opt_nonnegative(tail, 'tail', owner), CASE rf__lk WHEN 'recbole' THEN CAST('0.1' AS DOUBLE) WHEN 'elliot' THEN CAST('0.8' AS DOUBLE) END, CAST('0.8' AS DOUBLE)),
        cold := coalesce(rf__opt_choice(cold, ['tail', 'not_tail', 'drop'], 'cold', owner), CASE rf__lk WHEN 'recbole' THEN 'not_tail' WHEN 'elliot' THEN 'not_tail' END, 'tail'),
        aggregate := coalesce(rf__opt_choice(aggregate, ['per_list', 'rows'], 'aggregate', owner), CASE rf__lk WHEN 'recbole' THEN 'per_list' WHEN 'elliot' THEN 'per_list' END, 'per_list')))[1];
CREATE OR REPLACE MACRO rf__aplt_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN true AND NOT train_given THEN error('rf:param: APLT (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__aplt_options(k, "like", popularity, tail_rule, tail, cold, aggregate, train_given, catalog_given, owner) AS
    rf__aplt_needs(rf__aplt_opts(k, "like", popularity, tail_rule, tail, cold, aggregate, owner), train_given, catalog_given, owner);
-- rf:generated-end

-- a row's value and whether it counts (rf__beyond_row_values; i: the item's row of rf__beyond_items, NULL fields
-- when cold; z: train's totals; o: the options): 1 for a tail item, else 0 (a cold item by cold)
CREATE OR REPLACE MACRO rf__aplt_row_value(i, z, o) AS
    CAST(CASE WHEN i.rf__item IS NULL THEN struct_extract(o, 'cold') = 'tail'
              WHEN struct_extract(o, 'tail_rule') = 'count' THEN i.rf__pop <= struct_extract(o, 'tail')
              WHEN struct_extract(o, 'tail_rule') = 'pareto'
              THEN i.rf__before >= struct_extract(o, 'tail') * i.rf__pop_sum
              ELSE i.rf__low <= greatest(CAST(floor(i.rf__n_known * struct_extract(o, 'tail')) AS BIGINT), 1)
              END AS DOUBLE);
CREATE OR REPLACE MACRO rf__aplt_row_counted(i, z, o) AS struct_extract(o, 'cold') <> 'drop' OR i.rf__item IS NOT NULL;

CREATE OR REPLACE MACRO rf_aplt(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank', "like" := NULL,
                                popularity := NULL, tail_rule := NULL, tail := NULL, cold := NULL,
                                aggregate := NULL) AS TABLE
    SELECT * FROM rf__beyond_list_means(tbl, train, segments, order_by, 'aplt', 'APLT',
                                        (SELECT rf__aplt_options(k, "like", popularity, tail_rule, tail, cold, aggregate,
                                                         train IS NOT NULL, false, 'rf_aplt')),
                                        (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, NULL, false, segments, order_by,
                                            (rf__aplt_options(k, "like", popularity, tail_rule, tail, cold, aggregate,
                                                             train IS NOT NULL, false, 'rf_aplt')), 'rf_aplt')));
