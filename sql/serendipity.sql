-- Serendipity@k (docs/beyond-accuracy.md "Serendipity"): relevance x unexpectedness of each top-k item, per list
-- (rankframe/beyond/serendipity.py), the one metric of the family that reads relevance. form 'unexpectedness':
-- the mean of rel(i) * (1 - s(i)), s(i) = the mean similarity of i to the query's train items H; 'summed_similarity':
-- 1 - the sum of rel(i) * s(i); 'popularity': the mean of rel(i) * max(p(position) - p(popularity rank), 0) with
-- N = the catalog's items. Never pair by pair: s(i) = u_i . (sum_{h in H} u_h) / |H|, one GROUP BY (query,
-- dimension) of the history, one GROUP BY row of the dot products; with cooccurrence each row's item against each
-- item of H, looked up in rf__beyond_cooccurrence (rows x |H| look-ups).
-- rf_serendipity(tbl, train := NULL, features := NULL, catalog := NULL, segments := [], k := NULL,
--                order_by := 'rank', like := NULL, form := NULL, similarity := NULL, relevance := NULL, rel := NULL,
--                unknown := NULL, no_relevant_item := NULL, popularity := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/serendipity.py)
CREATE OR REPLACE MACRO rf__serendipity_opts(k, "like", form, similarity, relevance, rel, unknown, no_relevant_item, popularity, owner) AS
    list_transform([rf__opt_choice("like", ['recommenders', 'evidently', 'rectools'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        form := coalesce(rf__opt_choice(form, ['unexpectedness', 'summed_similarity', 'popularity'], 'form', owner), CASE rf__lk WHEN 'recommenders' THEN 'unexpectedness' WHEN 'evidently' THEN 'summed_similarity' WHEN 'rectools' THEN 'popularity' END, 'unexpectedness'),
        similarity := coalesce(rf__opt_choice(similarity, ['cosine', 'cooccurrence'], 'similarity', owner), CASE rf__lk WHEN 'recommenders' THEN 'cooccurrence' WHEN 'evidently' THEN 'cosine' WHEN 'rectools' THEN 'cooccurrence' END, 'cosine'),
        relevance := coalesce(rf__opt_choice(relevance, ['binary', 'grade'], 'relevance', owner), CASE rf__lk WHEN 'recommenders' THEN 'grade' WHEN 'evidently' THEN 'binary' WHEN 'rectools' THEN 'binary' END, 'binary'),
        rel := coalesce(rf__threshold(rel, 'rel', owner), CASE rf__lk WHEN 'evidently' THEN 1 WHEN 'rectools' THEN 1 END, 1),
        unknown := coalesce(rf__opt_choice(unknown, ['zero', 'drop'], 'unknown', owner), CASE rf__lk WHEN 'recommenders' THEN 'zero' WHEN 'evidently' THEN 'zero' END, 'zero'),
        no_relevant_item := coalesce(rf__opt_choice(no_relevant_item, ['zero', 'skip'], 'no_relevant_item', owner), CASE rf__lk WHEN 'recommenders' THEN 'zero' WHEN 'evidently' THEN 'skip' WHEN 'rectools' THEN 'zero' END, 'zero'),
        popularity := coalesce(rf__opt_choice(popularity, ['users', 'interactions'], 'popularity', owner), CASE rf__lk WHEN 'rectools' THEN 'interactions' END, 'users')))[1];
CREATE OR REPLACE MACRO rf__serendipity_needs(o, train_given, catalog_given, features_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN true AND NOT train_given THEN error('rf:param: Serendipity (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         WHEN struct_extract(x, 'similarity') = 'cosine' AND struct_extract(x, 'form') <> 'popularity' AND NOT features_given THEN error('rf:param: Serendipity (' || owner || ') needs features := ''<table>'', a table of item features with the item column, feature (and optionally value)')
         WHEN struct_extract(x, 'form') = 'popularity' AND NOT catalog_given THEN error('rf:param: Serendipity (' || owner || ') needs catalog := ''<table>'', a table with an item column (the catalog''s item ids)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__serendipity_options(k, "like", form, similarity, relevance, rel, unknown, no_relevant_item, popularity, train_given, catalog_given, features_given, owner) AS
    rf__serendipity_needs(rf__serendipity_opts(k, "like", form, similarity, relevance, rel, unknown, no_relevant_item, popularity, owner), train_given, catalog_given, features_given, owner);
-- rf:generated-end

-- the options, with the rules between them (rankframe/beyond/serendipity.py check_rules: none yet)
CREATE OR REPLACE MACRO rf__serendipity_rules(o) AS o;

-- one row per list (segments..., rf__all, query): rf__n counted top-k rows, value (NaN without a counted row,
-- without a history for the similarity forms, or without a relevant item for no_relevant_item 'skip')
CREATE OR REPLACE MACRO rf__serendipity_lists(tbl, train, features, segments, order_by, o, ok, catalog := NULL, base := NULL) AS TABLE
    WITH rf__s_known AS (SELECT * FROM rf__beyond_known(tbl, train, features, struct_extract(o, 'similarity'))),
    rf__s_vectors AS (SELECT * FROM rf__beyond_vectors(tbl, train, features, struct_extract(o, 'similarity'))
                WHERE struct_extract(o, 'form') <> 'popularity'),
    rf__s_rows AS (  -- each row's grade from the ranked rows themselves (a NULL or NaN grade is unjudged: 0); tbl
                     -- without a relevance column is refused by rf__input's check (the column NULL until then)
        SELECT b.* EXCLUDE (relevance), kn.rf__item IS NOT NULL AS rf__known,
               CASE WHEN struct_extract(o, 'relevance') = 'binary'
                    THEN CASE WHEN coalesce(b.rf__g, 0.0) >= struct_extract(o, 'rel') THEN 1.0 ELSE 0.0 END
                    ELSE coalesce(b.rf__g, 0.0) END AS rf__r
        FROM (SELECT a.*, CASE WHEN a.relevance IS NULL OR isnan(CAST(a.relevance AS DOUBLE)) THEN 0.0
                               ELSE CAST(a.relevance AS DOUBLE) END AS rf__g
              FROM (SELECT * FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base)
                    UNION ALL BY NAME SELECT NULL AS relevance WHERE false) AS a
              WHERE (SELECT count(*) FROM (SELECT 1 FROM rf__input(tbl, ['query', 'item', 'relevance']) LIMIT 1)) >= 0
              ) AS b
        LEFT JOIN rf__s_known AS kn ON b.item = kn.rf__item),
    rf__s_counted AS (
        SELECT r.* FROM rf__s_rows AS r
        WHERE r.rf__top AND (struct_extract(o, 'form') = 'popularity' OR r.rf__known
                             OR struct_extract(o, 'unknown') = 'zero')),
    rf__s_history AS (  -- H: each query's distinct train items with a positive weight (known ones only for 'drop')
        SELECT DISTINCT t.query, t.item FROM rf__beyond_train(tbl, train) AS t
        LEFT JOIN rf__s_known AS kn ON t.item = kn.rf__item
        WHERE t.rf__w > 0 AND (kn.rf__item IS NOT NULL OR struct_extract(o, 'unknown') = 'zero')
              AND struct_extract(o, 'form') <> 'popularity'),
    rf__s_sizes AS (SELECT h.query, CAST(count(*) AS DOUBLE) AS rf__hn FROM rf__s_history AS h GROUP BY h.query),
    rf__s_sums AS (  -- sum_{h in H} u_h, one row per (query, dimension)
        SELECT h.query, v.rf__dim, rf__xsum(v.rf__u) AS rf__s
        FROM rf__s_history AS h JOIN rf__s_vectors AS v ON h.item = v.rf__item GROUP BY h.query, v.rf__dim),
    -- each counted row's vector (with its grade), stored before the join with the sums: joined the other way round
    -- (every vector with every query sharing one of its dimensions, as DuckDB's join order chose) it took 77 s on
    -- 200k rows
    rf__s_cells AS MATERIALIZED (
        SELECT c.rf__sk, c.query, c.rf__r, v.rf__dim, v.rf__u
        FROM rf__s_counted AS c JOIN rf__s_vectors AS v ON c.item = v.rf__item),
    rf__s_co AS (SELECT * FROM rf__beyond_cooccurrence(tbl, train, segments, order_by, ok,
                   CASE WHEN struct_extract(o, 'form') <> 'popularity' THEN struct_extract(o, 'similarity') END,
                   'Serendipity', base := base)),
    rf__s_dots AS (  -- sum_i rel(i) u_i . sum_{h in H} u_h over each list's counted rows: one exact sum per list,
                     -- not one per row joined back to its row (750k groups and an 800k-row join on 800k rows);
                     -- cooccurrence (no vectors): sum_i rel(i) sum_{h in H} cos(i, h), the same sum per list
        SELECT c.rf__sk, c.query, rf__xsum(c.rf__r * (c.rf__u * s.rf__s)) AS rf__dot
        FROM rf__s_cells AS c JOIN rf__s_sums AS s ON c.query = s.query AND c.rf__dim = s.rf__dim
        GROUP BY c.rf__sk, c.query
        UNION ALL
        SELECT c.rf__sk, c.query, rf__xsum(c.rf__r * g.rf__cos) AS rf__dot
        FROM rf__s_counted AS c
        JOIN rf__s_history AS h ON c.query = h.query
        JOIN rf__s_co AS g ON c.item = g.rf__i AND h.item = g.rf__j
        GROUP BY c.rf__sk, c.query),
    rf__s_ranks AS (  -- the dense popularity rank of every train item (1 = the most popular)
        SELECT i.rf__item, CAST(dense_rank() OVER (ORDER BY i.rf__pop DESC) AS DOUBLE) AS rf__dr
        FROM rf__beyond_items(tbl, train, struct_extract(o, 'popularity')) AS i
        WHERE struct_extract(o, 'form') = 'popularity'),
    rf__s_n_catalog AS (SELECT CAST(count(DISTINCT c.item) AS DOUBLE) AS rf__nc FROM rf__beyond_catalog(tbl, catalog) AS c
                  WHERE catalog IS NOT NULL AND struct_extract(o, 'form') = 'popularity'),
    rf__s_terms AS (  -- rel(i) * the form's term of each counted row, but the dot products' part (rf__s_dots):
                      -- popularity's term, unexpectedness' rel(i) (1 - u_i . sum u_h / |H|), the similarity's 0
        SELECT c.rf__sk, c.query, c.rf__r,
               c.rf__r * CASE struct_extract(o, 'form')
                   WHEN 'popularity'
                   THEN greatest((n.rf__nc + 1 - c.rf__pos) / n.rf__nc
                                 - CASE WHEN p.rf__item IS NULL THEN 0.0 ELSE (n.rf__nc + 1 - p.rf__dr) / n.rf__nc END,
                                 0.0)
                   WHEN 'unexpectedness' THEN 1.0
                   ELSE 0.0 END AS rf__t
        FROM rf__s_counted AS c
        LEFT JOIN rf__s_ranks AS p ON c.item = p.rf__item
        LEFT JOIN rf__s_n_catalog AS n ON true),
    rf__s_per_list AS (  -- the terms' sum, minus (unexpectedness) or plus (similarity) the list's dot products / |H|
        SELECT t.rf__sk, t.query, t.rf__n, t.rf__nrel,
               CASE struct_extract(o, 'form') WHEN 'popularity' THEN t.rf__sum
                    WHEN 'unexpectedness' THEN t.rf__sum - coalesce(d.rf__dot, 0.0) / z.rf__hn
                    ELSE coalesce(d.rf__dot, 0.0) / z.rf__hn END AS rf__sum
        FROM (SELECT t.rf__sk, t.query, CAST(count(*) AS DOUBLE) AS rf__n,
                     count(*) FILTER (WHERE t.rf__r > 0) AS rf__nrel, rf__xsum(t.rf__t) AS rf__sum
              FROM rf__s_terms AS t GROUP BY t.rf__sk, t.query) AS t
        LEFT JOIN rf__s_dots AS d ON t.rf__sk IS NOT DISTINCT FROM d.rf__sk AND t.query = d.query
        LEFT JOIN rf__s_sizes AS z ON t.query = z.query),
    rf__s_lists AS (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'query', 'rf__sk'))
        FROM rf__s_rows AS r WHERE r.rf__first)  -- one row per list (rf__first): no grouping of every row
    SELECT l.* EXCLUDE (rf__sk), coalesce(p.rf__n, 0.0) AS rf__n,
           CASE WHEN coalesce(p.rf__n, 0) = 0
                  OR (struct_extract(o, 'form') <> 'popularity' AND coalesce(z.rf__hn, 0) = 0)
                  OR (struct_extract(o, 'no_relevant_item') = 'skip' AND p.rf__nrel = 0)
                THEN CAST('NaN' AS DOUBLE)
                WHEN struct_extract(o, 'form') = 'summed_similarity' THEN 1.0 - p.rf__sum
                ELSE p.rf__sum / p.rf__n END AS value
    FROM rf__s_lists AS l
    LEFT JOIN rf__s_per_list AS p ON l.rf__sk IS NOT DISTINCT FROM p.rf__sk AND l.query = p.query
    LEFT JOIN rf__s_sizes AS z ON l.query = z.query;

CREATE OR REPLACE MACRO rf_serendipity(tbl, train := NULL, features := NULL, catalog := NULL, segments := [],
                                       k := NULL, order_by := 'rank', "like" := NULL, form := NULL,
                                       similarity := NULL, relevance := NULL, rel := NULL, unknown := NULL,
                                       no_relevant_item := NULL, popularity := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('Serendipity', k) AS metric,
               rf__beyond_mean(l.value) AS value,
               rf__beyond_n(l.value) AS n
        FROM rf__serendipity_lists(tbl, train, features, segments, order_by,
                 (SELECT rf__serendipity_rules(rf__serendipity_options(k, "like", form, similarity, relevance, rel, unknown,
                     no_relevant_item, popularity, train IS NOT NULL, catalog IS NOT NULL, features IS NOT NULL,
                     'rf_serendipity'))),
                 (SELECT rf__ok FROM rf__beyond_ok(tbl, train, catalog, features, true, segments, order_by,
                     rf__serendipity_rules(rf__serendipity_options(k, "like", form, similarity, relevance, rel,
                         unknown, no_relevant_item, popularity, train IS NOT NULL, catalog IS NOT NULL,
                         features IS NOT NULL, 'rf_serendipity')), 'rf_serendipity')),
                 catalog := catalog) AS l
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;
