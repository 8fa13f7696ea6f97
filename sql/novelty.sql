-- Novelty@k (docs/beyond-accuracy.md "Novelty"): the mean self-information -log p(i) of the items of each top k,
-- p(i) = popularity / |queries of train| (model 'discovery') or / the sum of every popularity ('choice'); an item
-- of popularity 0 is left out (cold 'drop') or adds 0 (cold 'zero'); a list's sum divided by its counted rows or
-- by k (list_denominator); averaged over the lists or over every counted row (aggregate).
-- rf_novelty(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL, popularity := NULL,
--            model := NULL, log_base := NULL, cold := NULL, list_denominator := NULL, aggregate := NULL,
--            scale := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/novelty.py)
-- rf:row_option popularity VARCHAR
-- rf:row_option model VARCHAR
-- rf:row_option log_base DOUBLE
-- rf:row_option cold VARCHAR
-- rf:row_option list_denominator VARCHAR
-- rf:row_option aggregate VARCHAR
-- rf:row_option scale VARCHAR
CREATE OR REPLACE MACRO rf__novelty_opts(k, "like", popularity, model, log_base, cold, list_denominator, aggregate, scale, owner) AS
    list_transform([rf__opt_choice("like", ['recommenders', 'evidently', 'rectools', 'replay'], 'like', owner)], lambda rf__lk: rf__beyond_list_opts(
        rf__k(k, owner),
        rf__lk,
        popularity := coalesce(rf__opt_choice(popularity, ['users', 'interactions'], 'popularity', owner), CASE rf__lk WHEN 'recommenders' THEN 'interactions' WHEN 'evidently' THEN 'users' WHEN 'rectools' THEN 'users' WHEN 'replay' THEN 'users' END, 'users'),
        model := coalesce(rf__opt_choice(model, ['discovery', 'choice'], 'model', owner), CASE rf__lk WHEN 'recommenders' THEN 'choice' WHEN 'evidently' THEN 'discovery' WHEN 'rectools' THEN 'discovery' WHEN 'replay' THEN 'discovery' END, 'discovery'),
        log_base := coalesce(rf__opt_base(log_base, owner), CASE rf__lk WHEN 'recommenders' THEN CAST('2.0' AS DOUBLE) WHEN 'evidently' THEN CAST('2.0' AS DOUBLE) WHEN 'rectools' THEN CAST('2.0' AS DOUBLE) WHEN 'replay' THEN CAST('2.0' AS DOUBLE) END, CAST('2.0' AS DOUBLE)),
        cold := coalesce(rf__opt_choice(cold, ['drop', 'zero', 'one'], 'cold', owner), CASE rf__lk WHEN 'recommenders' THEN 'zero' WHEN 'evidently' THEN 'drop' WHEN 'rectools' THEN 'one' WHEN 'replay' THEN 'one' END, 'drop'),
        list_denominator := coalesce(rf__opt_choice(list_denominator, ['present', 'k'], 'list_denominator', owner), CASE rf__lk WHEN 'recommenders' THEN 'present' WHEN 'evidently' THEN 'present' WHEN 'rectools' THEN 'present' WHEN 'replay' THEN 'k' END, 'present'),
        aggregate := coalesce(rf__opt_choice(aggregate, ['per_list', 'rows'], 'aggregate', owner), CASE rf__lk WHEN 'recommenders' THEN 'rows' WHEN 'evidently' THEN 'per_list' WHEN 'rectools' THEN 'per_list' WHEN 'replay' THEN 'per_list' END, 'per_list'),
        scale := coalesce(rf__opt_choice(scale, ['none', 'log_users'], 'scale', owner), CASE rf__lk WHEN 'recommenders' THEN 'none' WHEN 'evidently' THEN 'none' WHEN 'rectools' THEN 'none' WHEN 'replay' THEN 'log_users' END, 'none')))[1];
CREATE OR REPLACE MACRO rf__novelty_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN true AND NOT train_given THEN error('rf:param: Novelty (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__novelty_options(k, "like", popularity, model, log_base, cold, list_denominator, aggregate, scale, train_given, catalog_given, owner) AS
    rf__novelty_needs(rf__novelty_opts(k, "like", popularity, model, log_base, cold, list_denominator, aggregate, scale, owner), train_given, catalog_given, owner);
-- rf:generated-end

-- a row's value and whether it counts (rf__beyond_row_values; i: the item's row of rf__beyond_items, NULL fields
-- when cold; z: train's totals rf__nu (queries) and rf__psum (every popularity); o: the options): -log p(i). cold
-- 'one' takes popularity 1 for an item of popularity 0; scale 'log_users' divides by log |queries of train| (when
-- that is more than 1); an empty train: no history, NaN (issue 33)
CREATE OR REPLACE MACRO rf__novelty_row_value(i, z, o) AS
    CASE WHEN coalesce(CASE WHEN struct_extract(o, 'model') = 'discovery' THEN z.rf__nu
                            ELSE z.rf__psum END, 0) <= 0 THEN CAST('NaN' AS DOUBLE)
         WHEN coalesce(i.rf__pop, 0) > 0 OR struct_extract(o, 'cold') = 'one'
         THEN -ln(CASE WHEN coalesce(i.rf__pop, 0) > 0 THEN i.rf__pop ELSE 1.0 END
                  / CASE WHEN struct_extract(o, 'model') = 'discovery' THEN z.rf__nu ELSE z.rf__psum END)
              / ln(struct_extract(o, 'log_base'))
              / CASE WHEN struct_extract(o, 'scale') = 'log_users' AND z.rf__nu > 1
                     THEN ln(z.rf__nu) / ln(struct_extract(o, 'log_base')) ELSE 1.0 END
         ELSE 0.0 END;
CREATE OR REPLACE MACRO rf__novelty_row_counted(i, z, o) AS
    struct_extract(o, 'cold') IN ('zero', 'one') OR coalesce(i.rf__pop, 0) > 0;

-- the options, with the rules between them (rankframe/beyond/novelty.py compute)
CREATE OR REPLACE MACRO rf__novelty_rules(o) AS list_transform([o], lambda x:
    CASE WHEN struct_extract(x, 'list_denominator') = 'k' AND struct_extract(x, 'k') IS NULL
         THEN error('rf:param: Novelty(list_denominator=''k'') divides by the cutoff: give one, e.g. k := 10')
         WHEN struct_extract(x, 'list_denominator') = 'k' AND struct_extract(x, 'aggregate') = 'rows'
         THEN error('rf:param: Novelty(list_denominator=''k'') divides each list by k; aggregate=''rows'' has no lists')
         WHEN struct_extract(x, 'scale') = 'log_users' AND struct_extract(x, 'model') <> 'discovery'
         THEN error('rf:param: Novelty(scale=''log_users'') divides by log |queries of train|: it needs model=''discovery''')
         ELSE x END)[1];

CREATE OR REPLACE MACRO rf_novelty(tbl, train := NULL, segments := [], k := NULL, order_by := 'rank', "like" := NULL,
                                   popularity := NULL, model := NULL, log_base := NULL, cold := NULL,
                                   list_denominator := NULL, aggregate := NULL, scale := NULL) AS TABLE
    SELECT * FROM rf__beyond_list_means(tbl, train, segments, order_by, 'novelty', 'Novelty',
                                        (SELECT rf__novelty_rules(rf__novelty_options(k, "like", popularity, model, log_base,
                                            cold, list_denominator, aggregate, scale, train IS NOT NULL, false,
                                            'rf_novelty'))),
                                        (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, NULL, false, segments, order_by,
                                            rf__novelty_rules(rf__novelty_options(k, "like", popularity, model,
                                                log_base, cold, list_denominator, aggregate, scale, train IS NOT NULL,
                                                false, 'rf_novelty')), 'rf_novelty')));
