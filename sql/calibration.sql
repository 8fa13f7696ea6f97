-- Calibration@k (docs/beyond-accuracy.md "Calibration"): the divergence of each top k's genre distribution from its
-- query's history (Steck 2018), never built per user (rankframe/beyond/calibration.py): p(g|i) = an item's
-- features value over the sum of its values; the history is one GROUP BY (query, genre) of train x features, the
-- lists one GROUP BY (list, genre) of the top-k rows x features; the divergence sums over the union of the cells.
-- rf_calibration(tbl, train := NULL, features := NULL, segments := [], k := NULL, order_by := 'rank', like := NULL,
--                divergence := NULL, direction := NULL, alpha := NULL, smooth := NULL, rank_weight := NULL,
--                log_base := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/calibration.py)
CREATE OR REPLACE MACRO rf__calibration_opts(k, "like", divergence, direction, alpha, smooth, rank_weight, log_base, owner) AS
    list_transform([rf__opt_choice("like", ['informfully'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        divergence := coalesce(rf__opt_choice(divergence, ['kl', 'js'], 'divergence', owner), CASE rf__lk WHEN 'informfully' THEN 'kl' END, 'kl'),
        direction := coalesce(rf__opt_choice(direction, ['history_list', 'list_history'], 'direction', owner), CASE rf__lk WHEN 'informfully' THEN 'history_list' END, 'history_list'),
        alpha := coalesce(rf__opt_unit(alpha, 'alpha', owner), CASE rf__lk WHEN 'informfully' THEN CAST('0.001' AS DOUBLE) END, CAST('0.01' AS DOUBLE)),
        smooth := coalesce(rf__opt_choice(smooth, ['q', 'both'], 'smooth', owner), CASE rf__lk WHEN 'informfully' THEN 'both' END, 'q'),
        rank_weight := coalesce(rf__opt_choice(rank_weight, ['none', 'reciprocal', 'log'], 'rank_weight', owner), CASE rf__lk WHEN 'informfully' THEN 'none' END, 'none'),
        log_base := coalesce(rf__opt_base(log_base, owner), CASE rf__lk WHEN 'informfully' THEN CAST('2.0' AS DOUBLE) END, CAST('2.0' AS DOUBLE))))[1];
CREATE OR REPLACE MACRO rf__calibration_needs(o, train_given, catalog_given, features_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         WHEN true AND NOT train_given THEN error('rf:param: Calibration (' || owner || ') needs train := ''<table>'', a table of past interactions with the query and item columns (and optionally weight)')
         WHEN true AND NOT features_given THEN error('rf:param: Calibration (' || owner || ') needs features := ''<table>'', a table of item features with the item column, feature (and optionally value)')
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__calibration_options(k, "like", divergence, direction, alpha, smooth, rank_weight, log_base, train_given, catalog_given, features_given, owner) AS
    rf__calibration_needs(rf__calibration_opts(k, "like", divergence, direction, alpha, smooth, rank_weight, log_base, owner), train_given, catalog_given, features_given, owner);
-- rf:generated-end

-- x log(x / y): 0 when x = 0, infinite when x > 0 = y (scipy.special.rel_entr)
CREATE OR REPLACE MACRO rf__rel_entr(x, y) AS
    CASE WHEN x <= 0 THEN 0.0
         WHEN y <= 0 THEN CAST('Infinity' AS DOUBLE)
         ELSE x * ln(CASE WHEN x > 0 THEN x END / CASE WHEN y > 0 THEN y END) END;

-- one row per list (segments..., rf__all, query): value (NaN without a known history or a known top-k item)
CREATE OR REPLACE MACRO rf__calibration_lists(tbl, train, features, segments, order_by, o, ok, base := NULL) AS TABLE
    WITH rf__citems AS (  -- each item's total value (a negative value is refused: calibration.py check_shares)
        SELECT f.item AS rf__item,
               CASE WHEN min(f.rf__x) < 0
                    THEN error('rf:param: Calibration reads features=''s column ''value'' as an item''s share of each genre: negative values are not shares; give values >= 0')
                    ELSE sum(f.rf__x ORDER BY f.rf__x) END AS rf__t
        FROM rf__beyond_features(tbl, features) AS f GROUP BY f.item),
    rf__cknown AS (SELECT i.rf__item, i.rf__t FROM rf__citems AS i WHERE i.rf__t > 0),
    rf__cshares AS (  -- p(g|i)
        SELECT f.item AS rf__item, f.rf__dim, f.rf__x / k.rf__t AS rf__s
        FROM rf__beyond_features(tbl, features) AS f JOIN rf__cknown AS k ON f.item = k.rf__item),
    rf__chrows AS (  -- the history's rows with a positive weight and a known item
        SELECT t.query, t.item, t.rf__w FROM rf__beyond_train(tbl, train) AS t JOIN rf__cknown AS k ON t.item = k.rf__item
        WHERE t.rf__w > 0),
    rf__chtot AS (SELECT h.query AS rf__user, sum(h.rf__w ORDER BY h.rf__w) AS rf__t FROM rf__chrows AS h GROUP BY h.query),
    rf__chist AS (
        SELECT h.query AS rf__user, s.rf__dim, rf__xsum(h.rf__w * s.rf__s) AS rf__m
        FROM rf__chrows AS h JOIN rf__cshares AS s ON h.item = s.rf__item GROUP BY h.query, s.rf__dim),
    rf__crows AS (
        SELECT b.*,
               CASE struct_extract(o, 'rank_weight') WHEN 'reciprocal' THEN 1.0 / b.rf__pos
                    WHEN 'log' THEN ln(2.0) / ln(b.rf__pos + 1.0) ELSE 1.0 END AS rf__v
        FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b),
    rf__clrows AS (SELECT r.rf__sk, r.query, r.item, r.rf__v FROM rf__crows AS r JOIN rf__cknown AS k ON r.item = k.rf__item
              WHERE r.rf__top),
    rf__cltot AS (SELECT l.rf__sk, l.query, rf__xsum(l.rf__v) AS rf__t FROM rf__clrows AS l GROUP BY l.rf__sk, l.query),
    rf__clcells AS (
        SELECT l.rf__sk, l.query, s.rf__dim, rf__xsum(l.rf__v * s.rf__s) AS rf__m
        FROM rf__clrows AS l JOIN rf__cshares AS s ON l.item = s.rf__item GROUP BY l.rf__sk, l.query, s.rf__dim),
    rf__clists AS (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'query', 'rf__sk'))
        FROM rf__crows AS r WHERE r.rf__first),  -- one row per list (rf__first): no grouping of every row
    rf__ccells AS (  -- (list, genre): p from the query's history, q from the list (0 where a side has no mass)
        SELECT l.rf__sk, l.query, h.rf__dim, h.rf__m / ht.rf__t AS rf__p, 0.0 AS rf__q
        FROM rf__clists AS l JOIN rf__chist AS h ON l.query = h.rf__user JOIN rf__chtot AS ht ON h.rf__user = ht.rf__user
        UNION ALL
        SELECT c.rf__sk, c.query, c.rf__dim, 0.0 AS rf__p, c.rf__m / t.rf__t AS rf__q
        FROM rf__clcells AS c JOIN rf__cltot AS t ON c.rf__sk IS NOT DISTINCT FROM t.rf__sk AND c.query = t.query),
    rf__cmerged AS (  -- a cell has at most one p row and one q row (the other side's 0): max is their sum, in any order
        SELECT c.rf__sk, c.query, max(c.rf__p) AS rf__p, max(c.rf__q) AS rf__q
        FROM rf__ccells AS c GROUP BY c.rf__sk, c.query, c.rf__dim),
    rf__csmoothed AS (
        SELECT m.rf__sk, m.query,
               CASE WHEN struct_extract(o, 'smooth') = 'both'
                    THEN (1.0 - struct_extract(o, 'alpha')) * m.rf__p + struct_extract(o, 'alpha') * m.rf__q
                    ELSE m.rf__p END AS rf__ps,
               (1.0 - struct_extract(o, 'alpha')) * m.rf__q + struct_extract(o, 'alpha') * m.rf__p AS rf__qs
        FROM rf__cmerged AS m),
    rf__cpairs AS (  -- (first, second) of the divergence
        SELECT s.rf__sk, s.query,
               CASE WHEN struct_extract(o, 'direction') = 'history_list' THEN s.rf__ps ELSE s.rf__qs END AS rf__a,
               CASE WHEN struct_extract(o, 'direction') = 'history_list' THEN s.rf__qs ELSE s.rf__ps END AS rf__b
        FROM rf__csmoothed AS s),
    rf__cterms AS (
        SELECT p.rf__sk, p.query,
               CASE WHEN struct_extract(o, 'divergence') = 'kl' THEN rf__rel_entr(p.rf__a, p.rf__b)
                    ELSE rf__rel_entr(p.rf__a, (p.rf__a + p.rf__b) / 2) + rf__rel_entr(p.rf__b, (p.rf__a + p.rf__b) / 2)
                    END AS rf__term
        FROM rf__cpairs AS p),
    rf__cper_list AS (
        SELECT t.rf__sk, t.query, rf__xsum(t.rf__term) AS rf__sum FROM rf__cterms AS t
        GROUP BY t.rf__sk, t.query)
    SELECT l.* EXCLUDE (rf__sk),
           CASE WHEN ht.rf__t IS NULL OR lt.rf__t IS NULL THEN CAST('NaN' AS DOUBLE)
                WHEN struct_extract(o, 'divergence') = 'kl' THEN p.rf__sum / ln(struct_extract(o, 'log_base'))
                ELSE sqrt(greatest(p.rf__sum / ln(struct_extract(o, 'log_base')) / 2, 0.0)) END AS value
    FROM rf__clists AS l
    LEFT JOIN rf__chtot AS ht ON l.query = ht.rf__user
    LEFT JOIN rf__cltot AS lt ON l.rf__sk IS NOT DISTINCT FROM lt.rf__sk AND l.query = lt.query
    LEFT JOIN rf__cper_list AS p ON l.rf__sk IS NOT DISTINCT FROM p.rf__sk AND l.query = p.query;

CREATE OR REPLACE MACRO rf_calibration(tbl, train := NULL, features := NULL, segments := [], k := NULL,
                                       order_by := 'rank', "like" := NULL, divergence := NULL, direction := NULL,
                                       alpha := NULL, smooth := NULL, rank_weight := NULL, log_base := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('Calibration', k) AS metric,
               rf__beyond_mean(l.value) AS value,
               rf__beyond_n(l.value) AS n
        FROM rf__calibration_lists(tbl, train, features, segments, order_by,
                                   (SELECT rf__calibration_options(k, "like", divergence, direction, alpha, smooth, rank_weight,
                                                           log_base, train IS NOT NULL, false, features IS NOT NULL,
                                                           'rf_calibration')),
                                   (SELECT rf__ok FROM rf__beyond_ok(tbl, train, NULL, features, true, segments, order_by,
                                       rf__calibration_options(k, "like", divergence, direction, alpha, smooth,
                                                               rank_weight, log_base, train IS NOT NULL, false,
                                                               features IS NOT NULL, 'rf_calibration'),
                                       'rf_calibration'))) AS l
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;
