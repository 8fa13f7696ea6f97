-- Beyond-accuracy metrics (docs/beyond-accuracy.md "SQL"): the rows, inputs and checks shared by the table macros
-- rf_coverage, rf_gini, rf_entropy, rf_personalization, rf_arp, rf_aplt and rf_novelty (one file each, named like
-- the declaration in rankframe/beyond/). Every option of those macros is NULL by default: NULL = the preset like :=
-- names, else the declared default (the generated rf__<name>_options of each file).

-- an option as given: NULL (not given) or checked
CREATE OR REPLACE MACRO rf__opt_choice(v, choices, pname, owner) AS
    CASE WHEN v IS NULL THEN CAST(NULL AS VARCHAR) ELSE rf__choice(v, choices, pname, owner) END;
CREATE OR REPLACE MACRO rf__opt_nonnegative(v, pname, owner) AS
    CASE WHEN v IS NULL THEN CAST(NULL AS DOUBLE)
         WHEN rf__number(v) >= 0 AND isfinite(rf__number(v)) THEN rf__number(v)
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be a finite float >= 0. Got %s instead.',
                           pname, owner, rf__repr(v))) END;
CREATE OR REPLACE MACRO rf__opt_base(v, owner) AS
    CASE WHEN v IS NULL THEN CAST(NULL AS DOUBLE) ELSE rf__log_base(v, owner) END;
CREATE OR REPLACE MACRO rf__opt_unit(v, pname, owner) AS
    CASE WHEN v IS NULL THEN CAST(NULL AS DOUBLE) ELSE rf__unit(v, pname, owner) END;
CREATE OR REPLACE MACRO rf__opt_flag(v, pname, owner) AS
    CASE WHEN v IS NULL THEN CAST(NULL AS BOOLEAN) ELSE rf__flag(v, pname, owner) END;

-- the checks of a call (the options o, already checked when bound; the table's columns and segments), one row
CREATE OR REPLACE MACRO rf__beyond_ok(tbl, segments, order_by, o, owner) AS TABLE
    SELECT * FROM rf__check_table(tbl, segments, owner, ['metric', 'value', 'n'],
                                  o IS NOT NULL
                                  AND rf__choice(order_by, ['rank', 'score', 'position'], 'order_by', owner) <> '');

-- every row of tbl: its segment columns, query, item, rf__all (a constant: the segment key without segments),
-- rf__sk (the segment as one struct), rf__first (true on one row of each list: the segment's lists are counted
-- from it), rf__pos (the position of a ranked row, NULL when not retrieved) and rf__top (ranked at a position <= k: rank ascending, or score descending then item descending as
-- text, rankframe's order; a NULL rank or score is not retrieved). One window, one sort.
CREATE OR REPLACE MACRO rf__beyond_base(tbl, segments, order_by, k, ok) AS TABLE
    SELECT b.* EXCLUDE (rf__key, rf__tie, rf__row),
           coalesce(b.rf__key IS NOT NULL AND b.rf__row <= coalesce(k, 9223372036854775807), false) AS rf__top,
           CASE WHEN b.rf__key IS NOT NULL THEN b.rf__row END AS rf__pos,
           b.rf__row = 1 AS rf__first
    FROM (SELECT c.*,
                 -- unranked rows (NULL key) sort last: the ranked rows are numbered 1..n first
                 row_number() OVER (PARTITION BY c.rf__sk, c.query ORDER BY c.rf__key NULLS LAST, c.rf__tie DESC)
                     AS rf__row
          FROM (SELECT a.*, row(*COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all')) AS rf__sk
          FROM (SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('query', 'item')), 0 AS rf__all,
                       CAST(COLUMNS(lambda c: c = CASE WHEN rf__lc(order_by) = 'score' THEN 'score' ELSE 'rank' END)
                            AS DOUBLE) * CASE WHEN rf__lc(order_by) = 'score' THEN -1.0 ELSE 1.0 END AS rf__key,
                       CASE WHEN rf__lc(order_by) = 'score' THEN CAST(s.item AS VARCHAR) END AS rf__tie
                FROM rf__input(tbl, ['query', 'item',
                                     CASE WHEN rf__lc(order_by) = 'score' THEN 'score' ELSE 'rank' END]) AS s
                WHERE ok) AS a) AS c) AS b;

-- the rows of train (NULL: none; tbl is only the name the pruned branch binds to) with their weight (1 without
-- the column)
CREATE OR REPLACE MACRO rf__beyond_train(tbl, train) AS TABLE
    SELECT t.query, t.item, coalesce(CAST(t.weight AS DOUBLE), 1.0) AS rf__w
    FROM (SELECT * FROM query_table(coalesce(train, tbl)) WHERE train IS NOT NULL
          UNION ALL BY NAME
          SELECT NULL AS weight WHERE false) AS t;

-- the universe of Coverage and Gini: the distinct items of catalog (its item column) or of train
CREATE OR REPLACE MACRO rf__beyond_universe(tbl, train, catalog, universe) AS TABLE
    SELECT DISTINCT c.item AS rf__item FROM query_table(coalesce(catalog, tbl)) AS c
    WHERE universe = 'catalog' AND catalog IS NOT NULL
    UNION ALL
    SELECT DISTINCT t.item AS rf__item FROM rf__beyond_train(tbl, train) AS t
    WHERE universe = 'train';

-- the items of train: popularity ('users' = distinct queries with a positive weight, 'interactions' = the sum of
-- the weights), rf__low = rank by popularity then id (APLT's bottom tail, RecBole's tie-break), their number and
-- the sum of every popularity (Novelty's 'choice' model)
CREATE OR REPLACE MACRO rf__beyond_items(tbl, train, popularity) AS TABLE
    SELECT p.*,
           row_number() OVER (ORDER BY p.rf__pop, p.rf__item) AS rf__low,
           count(*) OVER () AS rf__n_known,
           max(p.rf__pop) OVER () AS rf__pop_max,
           -- ARP popularity_norm 'rank' (LensKit MeanPopRank): the average rank from the least popular among the
           -- items of positive popularity / their number, 0 for popularity 0
           CASE WHEN p.rf__pop > 0
                THEN (rank() OVER (PARTITION BY p.rf__pop > 0 ORDER BY p.rf__pop)
                      + (count(*) OVER (PARTITION BY p.rf__pop > 0, p.rf__pop) - 1) / 2.0)
                     / count(*) OVER (PARTITION BY p.rf__pop > 0)
                ELSE 0.0 END AS rf__pop_rank,
           -- APLT 'pareto': the popularity of the items before this one, most popular first (ties by id)
           coalesce(sum(p.rf__pop) OVER (ORDER BY p.rf__pop DESC, p.rf__item
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0.0) AS rf__before,
           sum(p.rf__pop) OVER (ORDER BY p.rf__pop, p.rf__item
                                ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__pop_sum
    FROM (SELECT t.item AS rf__item,
                 CASE WHEN popularity = 'users'
                      THEN CAST(count(DISTINCT t.query) FILTER (WHERE t.rf__w > 0) AS DOUBLE)
                      ELSE sum(t.rf__w ORDER BY t.rf__w) END AS rf__pop
          FROM rf__beyond_train(tbl, train) AS t
          GROUP BY t.item) AS p;

-- the per-list metrics (ARP, APLT, Novelty): each row with its value rf__v and whether it counts (rf__c);
-- o holds the metric's resolved options
CREATE OR REPLACE MACRO rf__beyond_row_values(tbl, train, segments, order_by, metric, o, ok) AS TABLE
    SELECT b.*,
           CASE metric
                WHEN 'arp' THEN CASE WHEN i.rf__item IS NULL THEN 0.0
                                     WHEN struct_extract(o, 'popularity_norm') = 'total'
                                     THEN CASE WHEN i.rf__pop_sum > 0 THEN i.rf__pop / i.rf__pop_sum ELSE 0.0 END
                                     WHEN struct_extract(o, 'popularity_norm') = 'max'
                                     THEN CASE WHEN i.rf__pop_max > 0 THEN i.rf__pop / i.rf__pop_max ELSE 0.0 END
                                     WHEN struct_extract(o, 'popularity_norm') = 'rank' THEN i.rf__pop_rank
                                     ELSE i.rf__pop END
                WHEN 'aplt' THEN CAST(CASE WHEN i.rf__item IS NULL THEN struct_extract(o, 'cold') = 'tail'
                                           WHEN struct_extract(o, 'tail_rule') = 'count' THEN i.rf__pop <= struct_extract(o, 'tail')
                                           WHEN struct_extract(o, 'tail_rule') = 'pareto'
                                           THEN i.rf__before >= struct_extract(o, 'tail') * i.rf__pop_sum
                                           ELSE i.rf__low <= greatest(CAST(floor(i.rf__n_known * struct_extract(o, 'tail')) AS BIGINT), 1)
                                           END AS DOUBLE)
                -- Novelty: cold 'one' takes popularity 1 for an item of popularity 0; scale 'log_users' divides by
                -- log |queries of train| (when that is more than 1); an empty train: no history, NaN (issue 33)
                ELSE CASE WHEN coalesce(CASE WHEN struct_extract(o, 'model') = 'discovery' THEN z.rf__nu
                                             ELSE z.rf__psum END, 0) <= 0 THEN CAST('NaN' AS DOUBLE)
                          WHEN coalesce(i.rf__pop, 0) > 0 OR struct_extract(o, 'cold') = 'one'
                          THEN -ln(CASE WHEN coalesce(i.rf__pop, 0) > 0 THEN i.rf__pop ELSE 1.0 END
                                   / CASE WHEN struct_extract(o, 'model') = 'discovery' THEN z.rf__nu ELSE z.rf__psum END)
                               / ln(struct_extract(o, 'log_base'))
                               / CASE WHEN struct_extract(o, 'scale') = 'log_users' AND z.rf__nu > 1
                                      THEN ln(z.rf__nu) / ln(struct_extract(o, 'log_base')) ELSE 1.0 END
                          ELSE 0.0 END END AS rf__v,
           CASE metric
                WHEN 'novelty' THEN struct_extract(o, 'cold') IN ('zero', 'one') OR coalesce(i.rf__pop, 0) > 0
                ELSE struct_extract(o, 'cold') <> 'drop' OR i.rf__item IS NOT NULL END AS rf__c
    FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok) AS b
    LEFT JOIN rf__beyond_items(tbl, train, struct_extract(o, 'popularity')) AS i ON b.item = i.rf__item
    -- train's queries and the sum of every item's popularity (the distinct (query, item) pairs with a positive
    -- weight for 'users', the weights for 'interactions'), for the cold rows too
    CROSS JOIN (SELECT CAST(count(DISTINCT t.query) AS DOUBLE) AS rf__nu,
                       CASE WHEN struct_extract(o, 'popularity') = 'users'
                            THEN CAST(count(DISTINCT (t.query, t.item)) FILTER (WHERE t.rf__w > 0) AS DOUBLE)
                            ELSE sum(t.rf__w ORDER BY t.rf__w) END AS rf__psum
                FROM rf__beyond_train(tbl, train) AS t) AS z;

-- one row per list (segments..., query): rf__rows counted, rf__sum their values, value (NaN without a counted row;
-- Novelty's list_denominator 'k' divides the sum by k)
CREATE OR REPLACE MACRO rf__beyond_lists(tbl, train, segments, order_by, metric, o, ok) AS TABLE
    SELECT l.*,
           CASE WHEN l.rf__rows = 0 THEN CAST('NaN' AS DOUBLE)
                WHEN metric = 'novelty' AND struct_extract(o, 'list_denominator') = 'k' THEN l.rf__sum / struct_extract(o, 'k')
                ELSE l.rf__sum / l.rf__rows END AS value
    FROM (SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'query')),
                 count(*) FILTER (WHERE r.rf__top AND r.rf__c) AS rf__rows,
                 coalesce(sum(r.rf__v ORDER BY r.rf__v) FILTER (WHERE r.rf__top AND r.rf__c), 0.0) AS rf__sum
          FROM rf__beyond_row_values(tbl, train, segments, order_by, metric, o, ok) AS r
          GROUP BY ALL) AS l;

-- the rows of a per-list metric: segments..., metric, value, n (aggregate 'per_list': the mean of the lists'
-- values, NaN left out, n = the lists averaged; 'rows': one mean over every counted row, n = the segment's lists)
CREATE OR REPLACE MACRO rf__beyond_list_means(tbl, train, segments, order_by, metric, label, o, ok) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               label || CASE WHEN struct_extract(o, 'k') IS NULL THEN '' ELSE '@' || CAST(struct_extract(o, 'k') AS VARCHAR) END AS metric,
               CASE WHEN struct_extract(o, 'aggregate') = 'rows'
                    THEN CASE WHEN sum(l.rf__rows ORDER BY l.rf__rows) > 0
                              THEN sum(l.rf__sum ORDER BY l.rf__sum) / sum(l.rf__rows ORDER BY l.rf__rows)
                              ELSE CAST('NaN' AS DOUBLE) END
                    ELSE coalesce(avg(l.value ORDER BY l.value) FILTER (WHERE NOT isnan(l.value)),
                                  CAST('NaN' AS DOUBLE)) END AS value,
               CASE WHEN struct_extract(o, 'aggregate') = 'rows' THEN count(*)
                    ELSE count(*) FILTER (WHERE NOT isnan(l.value)) END AS n
        FROM rf__beyond_lists(tbl, train, segments, order_by, metric, o, ok) AS l
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;

-- the rows of features (NULL: none; tbl is only the name the pruned branch binds to): item, rf__dim (the feature as
-- text) and rf__x (its value, 1 without a value column)
CREATE OR REPLACE MACRO rf__beyond_features(tbl, features) AS TABLE
    SELECT f.item, CAST(f.feature AS VARCHAR) AS rf__dim, coalesce(CAST(f.value AS DOUBLE), 1.0) AS rf__x
    FROM (SELECT * FROM query_table(coalesce(features, tbl)) WHERE features IS NOT NULL
          UNION ALL BY NAME
          SELECT NULL AS feature, NULL AS value WHERE false) AS f;

-- the items known to a similarity (rankframe/beyond/similarity.py): a row in features (cosine, hamming) or in train
-- (cooccurrence, any weight)
CREATE OR REPLACE MACRO rf__beyond_known(tbl, train, features, similarity) AS TABLE
    SELECT DISTINCT f.item AS rf__item FROM rf__beyond_features(tbl, features) AS f
    WHERE similarity IN ('cosine', 'hamming')
    UNION ALL
    SELECT DISTINCT t.item AS rf__item FROM rf__beyond_train(tbl, train) AS t
    WHERE similarity = 'cooccurrence';

-- the item vectors of a similarity: (rf__item, rf__dim, rf__u). cosine: the features row divided by the item's L2
-- norm (0 for a zero vector); hamming: the raw value; cooccurrence: the item's distinct train queries with a
-- positive weight, each 1 / sqrt(their number)
CREATE OR REPLACE MACRO rf__beyond_vectors(tbl, train, features, similarity) AS TABLE
    SELECT f.item AS rf__item, f.rf__dim,
           CASE WHEN similarity = 'hamming' THEN f.rf__x
                WHEN m.rf__norm2 > 0 THEN f.rf__x / sqrt(m.rf__norm2) ELSE 0.0 END AS rf__u
    FROM rf__beyond_features(tbl, features) AS f
    JOIN (SELECT g.item, sum(g.rf__x * g.rf__x ORDER BY g.rf__x * g.rf__x) AS rf__norm2
          FROM rf__beyond_features(tbl, features) AS g GROUP BY g.item) AS m ON f.item = m.item
    WHERE similarity IN ('cosine', 'hamming')
    UNION ALL
    SELECT p.item AS rf__item, CAST(p.query AS VARCHAR) AS rf__dim, 1.0 / sqrt(c.rf__users) AS rf__u
    FROM (SELECT DISTINCT t.query, t.item FROM rf__beyond_train(tbl, train) AS t WHERE t.rf__w > 0) AS p
    JOIN (SELECT q.item, CAST(count(DISTINCT q.query) AS DOUBLE) AS rf__users FROM rf__beyond_train(tbl, train) AS q
          WHERE q.rf__w > 0 GROUP BY q.item) AS c ON p.item = c.item
    WHERE similarity = 'cooccurrence';
