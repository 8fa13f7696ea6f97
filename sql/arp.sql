-- ARP@k (docs/beyond-accuracy.md "ARP"): the mean popularity in train of the items of each top k (cold items 0, or
-- left out with cold 'drop'), averaged over the lists (aggregate 'per_list') or over every counted row ('rows').
-- rf_arp(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL, popularity := NULL,
--        cold := NULL, aggregate := NULL, popularity_norm := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/arp.py)
-- rf:row_option popularity VARCHAR
-- rf:row_option cold VARCHAR
-- rf:row_option aggregate VARCHAR
-- rf:row_option popularity_norm VARCHAR
CREATE OR REPLACE MACRO rf__arp_opts(k, "like", popularity, cold, aggregate, popularity_norm, owner) AS
    list_transform([rf__opt_choice("like", ['recbole', 'rectools', 'evidently', 'elliot', 'lenskit'], 'like', owner)], lambda rf__lk: rf__beyond_list_opts(
        rf__k(k, owner),
        rf__lk,
        popularity := coalesce(rf__opt_choice(popularity, ['users', 'interactions'], 'popularity', owner), CASE rf__lk WHEN 'recbole' THEN 'interactions' WHEN 'rectools' THEN 'interactions' WHEN 'evidently' THEN 'users' WHEN 'elliot' THEN 'users' WHEN 'lenskit' THEN 'users' END, 'users'),
        cold := coalesce(rf__opt_choice(cold, ['zero', 'drop'], 'cold', owner), CASE rf__lk WHEN 'recbole' THEN 'zero' WHEN 'rectools' THEN 'zero' WHEN 'evidently' THEN 'drop' WHEN 'elliot' THEN 'zero' WHEN 'lenskit' THEN 'zero' END, 'zero'),
        aggregate := coalesce(rf__opt_choice(aggregate, ['per_list', 'rows'], 'aggregate', owner), CASE rf__lk WHEN 'recbole' THEN 'per_list' WHEN 'rectools' THEN 'per_list' WHEN 'evidently' THEN 'per_list' WHEN 'elliot' THEN 'per_list' WHEN 'lenskit' THEN 'per_list' END, 'per_list'),
        popularity_norm := coalesce(rf__opt_choice(popularity_norm, ['none', 'total', 'max', 'rank'], 'popularity_norm', owner), CASE rf__lk WHEN 'recbole' THEN 'none' WHEN 'rectools' THEN 'none' WHEN 'evidently' THEN 'none' WHEN 'elliot' THEN 'none' WHEN 'lenskit' THEN 'rank' END, 'none')))[1];
CREATE OR REPLACE MACRO rf__arp_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN true AND NOT train_given THEN error('rf:param: ARP (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__arp_options(k, "like", popularity, cold, aggregate, popularity_norm, train_given, catalog_given, owner) AS
    rf__arp_needs(rf__arp_opts(k, "like", popularity, cold, aggregate, popularity_norm, owner), train_given, catalog_given, owner);
-- rf:generated-end

-- a row's value and whether it counts (rf__beyond_row_values; i: the item's row of rf__beyond_items, NULL fields
-- when cold; z: train's totals; o: the options): its popularity (normalised by popularity_norm), a cold item 0
CREATE OR REPLACE MACRO rf__arp_row_value(i, z, o) AS
    CASE WHEN i.rf__item IS NULL THEN 0.0
         WHEN struct_extract(o, 'popularity_norm') = 'total'
         THEN CASE WHEN i.rf__pop_sum > 0 THEN i.rf__pop / i.rf__pop_sum ELSE 0.0 END
         WHEN struct_extract(o, 'popularity_norm') = 'max'
         THEN CASE WHEN i.rf__pop_max > 0 THEN i.rf__pop / i.rf__pop_max ELSE 0.0 END
         WHEN struct_extract(o, 'popularity_norm') = 'rank' THEN i.rf__pop_rank
         ELSE i.rf__pop END;
CREATE OR REPLACE MACRO rf__arp_row_counted(i, z, o) AS struct_extract(o, 'cold') <> 'drop' OR i.rf__item IS NOT NULL;

CREATE OR REPLACE MACRO rf_arp(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank', "like" := NULL,
                               popularity := NULL, cold := NULL, aggregate := NULL,
                               popularity_norm := NULL) AS TABLE
    SELECT * FROM rf__beyond_list_means(tbl, train, segments, order_by, 'arp', 'ARP',
                                        (SELECT rf__arp_options(k, "like", popularity, cold, aggregate, popularity_norm, train IS NOT NULL,
                                                        false, 'rf_arp')),
                                        (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, NULL, false, segments, order_by,
                                            (rf__arp_options(k, "like", popularity, cold, aggregate, popularity_norm, train IS NOT NULL,
                                                            false, 'rf_arp')), 'rf_arp')));
