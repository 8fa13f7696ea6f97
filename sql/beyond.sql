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

-- a metric's label: its name, and @k when k is given (rankframe.names: 'ARP@10'); the mean of the lists' values with
-- NaN left out (NaN when none is left), and how many it averaged: every beyond-accuracy macro's one wording of each
CREATE OR REPLACE MACRO rf__beyond_label(name, k) AS
    name || CASE WHEN k IS NULL THEN '' ELSE '@' || CAST(k AS VARCHAR) END;
CREATE OR REPLACE MACRO rf__beyond_mean(v) AS
    coalesce(avg(v ORDER BY v) FILTER (WHERE NOT isnan(v)), CAST('NaN' AS DOUBLE));
CREATE OR REPLACE MACRO rf__beyond_n(v) AS count(*) FILTER (WHERE NOT isnan(v));

-- the options of every row-value metric (ARP, APLT, Novelty, ...) as one struct (rf__beyond_row_values reads them
-- all): NULL where not the metric's own (each metric's generated rf__<name>_opts names its own); the SQL loader
-- (rankframe.sql) fills in the options of every file's rf:row_option lines
CREATE OR REPLACE MACRO rf__beyond_list_opts(k, "like"/* rf:generated row_option_params */) AS
    struct_pack(k := k, "like" := "like"/* rf:generated row_option_fields */);

-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the input rules of rankframe/beyond/input_rules.py)
-- the kind of ids of a column of DuckDB type t (rankframe.units.id_kind): number, text, other, empty (NULL)
CREATE OR REPLACE MACRO rf__id_kind(t) AS
    CASE WHEN t = '"NULL"' THEN 'empty' WHEN t = 'VARCHAR' THEN 'text'
         WHEN t IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'FLOAT', 'DOUBLE') OR t LIKE 'DECIMAL%' THEN 'number' ELSE 'other' END;
CREATE OR REPLACE MACRO rf__kinds_clash(a, b) AS a <> 'empty' AND b <> 'empty' AND (a <> b OR a = 'other');
CREATE OR REPLACE MACRO rf__kind_words(k) AS CASE k WHEN 'number' THEN 'numbers' WHEN 'text' THEN 'text' WHEN 'other' THEN 'neither numbers nor text' END;
-- the ranking table's kinds of item and query ids (NULL columns when it has not got them: its own rule)
CREATE OR REPLACE MACRO rf__beyond_table_kinds(tbl) AS TABLE
    SELECT rf__id_kind(typeof(any_value(s.item))) AS rf__ik, any_value(s.item) AS rf__ix,
           rf__id_kind(typeof(any_value(s.query))) AS rf__qk, any_value(s.query) AS rf__qx
    FROM (SELECT * FROM query_table(tbl)
          UNION ALL BY NAME SELECT NULL AS item, NULL AS query WHERE false) AS s;
-- train: true, or the first input rule it breaks (train IS NULL: nothing read)
CREATE OR REPLACE MACRO rf__beyond_check_train(tbl, train, history, owner) AS (
    SELECT CASE WHEN train IS NULL THEN true
         WHEN len(rf__lacking(m.rf__names, ['query', 'item'])) > 0 THEN error('rf:param: ' || 'train' || '= must have ' || 'the ranking table''s query and item columns' || ' ' || '[''query'', ''item'']' || ' (and optionally ' || '''weight''' || '); ' || CAST(rf__lacking(m.rf__names, ['query', 'item']) AS VARCHAR) || ' not in its columns ' || CAST(m.rf__names AS VARCHAR))
         WHEN c.rf__nq > 0 THEN error('rf:param: ' || 'train= has ' || CAST(c.rf__nq AS VARCHAR) || ' null id(s) in ' || '''query''' || ' (' || 'find them with WHERE query IS NULL' || ')')
         WHEN c.rf__ni > 0 THEN error('rf:param: ' || 'train=''s column ''item''' || ' has ' || CAST(c.rf__ni AS VARCHAR) || ' null item id(s) (' || 'find them with WHERE item IS NULL' || '); item ids are never null')
         WHEN rf__kinds_clash(c.rf__ik, r.rf__ik) THEN error('rf:param: ' || 'the item ids of ' || 'train=''s column ''item''' || ' are ' || CAST(rf__kind_words(c.rf__ik) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN c.rf__ik = 'text' THEN '''' || CAST(c.rf__ix AS VARCHAR) || '''' ELSE CAST(c.rf__ix AS VARCHAR) END AS VARCHAR) || ') but those of the ranking table''s column ' || '''item''' || ' are ' || CAST(rf__kind_words(r.rf__ik) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN r.rf__ik = 'text' THEN '''' || CAST(r.rf__ix AS VARCHAR) || '''' ELSE CAST(r.rf__ix AS VARCHAR) END AS VARCHAR) || '): ids of different kinds never match; convert one of them first')
         WHEN c.rf__nw > 0 THEN error('rf:param: ' || 'train=''s column ''weight'' must hold finite numbers >= 0 (0 = a known item without interactions); ' || CAST(c.rf__nw AS VARCHAR) || ' row(s) do not, e.g.
' || CAST(c.rf__rows AS VARCHAR))
         WHEN history AND rf__kinds_clash(c.rf__qk, r.rf__qk) THEN error('rf:param: ' || CAST(owner AS VARCHAR) || ' reads each query''s history in train=, but train=''s query ids in ' || '''query''' || ' are ' || CAST(rf__kind_words(c.rf__qk) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN c.rf__qk = 'text' THEN '''' || CAST(c.rf__qx AS VARCHAR) || '''' ELSE CAST(c.rf__qx AS VARCHAR) END AS VARCHAR) || ') and the ranking table''s are ' || CAST(rf__kind_words(r.rf__qk) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN r.rf__qk = 'text' THEN '''' || CAST(r.rf__qx AS VARCHAR) || '''' ELSE CAST(r.rf__qx AS VARCHAR) END AS VARCHAR) || '): ids of different kinds never match; convert one of them first')
         ELSE true END
    FROM (SELECT count(t.rf__one) AS rf__n, count(t.rf__one) FILTER (WHERE t.query IS NULL) AS rf__nq,
                 count(t.rf__one) FILTER (WHERE t.item IS NULL) AS rf__ni,
                 rf__id_kind(typeof(any_value(t.item))) AS rf__ik, any_value(t.item) AS rf__ix,
                 rf__id_kind(typeof(any_value(t.query))) AS rf__qk, any_value(t.query) AS rf__qx,
                 count(t.rf__one) FILTER (WHERE NOT (NOT list_contains(m.rf__names, 'weight') OR rf__id_kind(typeof(t.weight)) = 'number') OR list_contains(m.rf__names, 'weight') AND NOT coalesce(TRY_CAST(t.weight AS DOUBLE) IS NOT NULL AND isfinite(TRY_CAST(t.weight AS DOUBLE)) AND TRY_CAST(t.weight AS DOUBLE) >= 0, false)) AS rf__nw,
                 CAST(list(struct_pack(query := t.query, item := t.item, weight := t.weight) ORDER BY t.query, t.item, t.weight) FILTER (WHERE NOT (NOT list_contains(m.rf__names, 'weight') OR rf__id_kind(typeof(t.weight)) = 'number') OR list_contains(m.rf__names, 'weight') AND NOT coalesce(TRY_CAST(t.weight AS DOUBLE) IS NOT NULL AND isfinite(TRY_CAST(t.weight AS DOUBLE)) AND TRY_CAST(t.weight AS DOUBLE) >= 0, false))[1:5] AS VARCHAR) AS rf__rows
          FROM rf__columns(coalesce(train, tbl)) AS m,
               (SELECT *, 1 AS rf__one FROM query_table(coalesce(train, tbl)) WHERE train IS NOT NULL
                UNION ALL BY NAME SELECT NULL AS query, NULL AS item, NULL AS weight WHERE false) AS t
          ) AS c, rf__columns(coalesce(train, tbl)) AS m, rf__beyond_table_kinds(tbl) AS r);
-- catalog: its one column, the item ids (whatever its name); true, or the first input rule it breaks
CREATE OR REPLACE MACRO rf__beyond_catalog(tbl, catalog) AS TABLE
    SELECT struct_extract(row(*COLUMNS(*)), 1) AS item FROM query_table(coalesce(catalog, tbl))
    WHERE catalog IS NOT NULL;
CREATE OR REPLACE MACRO rf__beyond_check_catalog(tbl, catalog) AS (
    SELECT CASE WHEN catalog IS NULL THEN true
         WHEN len(m.rf__names) <> 1 THEN error('rf:param: ' || 'catalog= as a table must have one column (the item ids); it has ' || CAST(m.rf__names AS VARCHAR))
         WHEN coalesce(c.rf__n, 0) = 0 THEN error('rf:param: ' || 'catalog' || '= is empty: ' || 'it lists the items that could be recommended')
         WHEN c.rf__ni > 0 THEN error('rf:param: ' || 'catalog=' || ' has ' || CAST(c.rf__ni AS VARCHAR) || ' null item id(s) (' || 'find them with WHERE item IS NULL' || '); item ids are never null')
         WHEN rf__kinds_clash(c.rf__ik, r.rf__ik) THEN error('rf:param: ' || 'the item ids of ' || 'catalog=' || ' are ' || CAST(rf__kind_words(c.rf__ik) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN c.rf__ik = 'text' THEN '''' || CAST(c.rf__ix AS VARCHAR) || '''' ELSE CAST(c.rf__ix AS VARCHAR) END AS VARCHAR) || ') but those of the ranking table''s column ' || '''item''' || ' are ' || CAST(rf__kind_words(r.rf__ik) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN r.rf__ik = 'text' THEN '''' || CAST(r.rf__ix AS VARCHAR) || '''' ELSE CAST(r.rf__ix AS VARCHAR) END AS VARCHAR) || '): ids of different kinds never match; convert one of them first')
         WHEN c.rf__nd < c.rf__n THEN error('rf:param: ' || 'catalog= lists ' || CAST(c.rf__n - c.rf__nd AS VARCHAR) || ' item id(s) more than once, e.g. ' || CAST(c.rf__rep AS VARCHAR) || ': give each item once')
         ELSE true END
    FROM rf__columns(coalesce(catalog, tbl)) AS m, rf__beyond_table_kinds(tbl) AS r,
         (SELECT count(*) AS rf__n, count(*) FILTER (WHERE t.item IS NULL) AS rf__ni,
                 count(DISTINCT t.item) AS rf__nd, rf__id_kind(typeof(any_value(t.item))) AS rf__ik,
                 any_value(t.item) AS rf__ix,
                 (SELECT CAST(list(d.item ORDER BY d.item)[1:5] AS VARCHAR) FROM (SELECT u.item
                  FROM rf__beyond_catalog(tbl, catalog) AS u GROUP BY u.item HAVING count(*) > 1) AS d)
                 AS rf__rep
          FROM rf__beyond_catalog(tbl, catalog) AS t) AS c);
-- features: true, or the first input rule it breaks (features IS NULL: nothing read)
CREATE OR REPLACE MACRO rf__beyond_check_features(tbl, features) AS (
    SELECT CASE WHEN features IS NULL THEN true
         WHEN len(rf__lacking(m.rf__names, ['item', 'feature'])) > 0 THEN error('rf:param: ' || 'features' || '= must have ' || 'the ranking table''s item column and ''feature''' || ' ' || '[''item'', ''feature'']' || ' (and optionally ' || '''value''' || '); ' || CAST(rf__lacking(m.rf__names, ['item', 'feature']) AS VARCHAR) || ' not in its columns ' || CAST(m.rf__names AS VARCHAR))
         WHEN c.rf__n = 0 THEN error('rf:param: ' || 'features' || '= is empty: ' || 'it holds the items'' (item, feature, value) rows')
         WHEN c.rf__nf > 0 THEN error('rf:param: ' || 'features= has ' || CAST(c.rf__nf AS VARCHAR) || ' null feature name(s) in ''feature'' (' || 'find them with WHERE feature IS NULL' || ')')
         WHEN c.rf__ni > 0 THEN error('rf:param: ' || 'features=''s column ''item''' || ' has ' || CAST(c.rf__ni AS VARCHAR) || ' null item id(s) (' || 'find them with WHERE item IS NULL' || '); item ids are never null')
         WHEN rf__kinds_clash(c.rf__ik, r.rf__ik) THEN error('rf:param: ' || 'the item ids of ' || 'features=''s column ''item''' || ' are ' || CAST(rf__kind_words(c.rf__ik) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN c.rf__ik = 'text' THEN '''' || CAST(c.rf__ix AS VARCHAR) || '''' ELSE CAST(c.rf__ix AS VARCHAR) END AS VARCHAR) || ') but those of the ranking table''s column ' || '''item''' || ' are ' || CAST(rf__kind_words(r.rf__ik) AS VARCHAR) || ' (e.g. ' || CAST(CASE WHEN r.rf__ik = 'text' THEN '''' || CAST(r.rf__ix AS VARCHAR) || '''' ELSE CAST(r.rf__ix AS VARCHAR) END AS VARCHAR) || '): ids of different kinds never match; convert one of them first')
         WHEN c.rf__nv > 0 THEN error('rf:param: ' || 'features=''s column ''value'' must hold finite numbers (a pair not listed is 0); ' || CAST(c.rf__nv AS VARCHAR) || ' row(s) do not, e.g.
' || CAST(c.rf__rows AS VARCHAR))
         WHEN c.rf__np > 0 THEN error('rf:param: ' || 'features= lists ' || CAST(c.rf__np AS VARCHAR) || ' row(s) of the same (item, feature) pair, e.g.
' || CAST(c.rf__prows AS VARCHAR) || '
give each pair once')
         ELSE true END
    FROM (SELECT count(t.rf__one) AS rf__n, count(t.rf__one) FILTER (WHERE t.feature IS NULL) AS rf__nf,
                 count(t.rf__one) FILTER (WHERE t.item IS NULL) AS rf__ni,
                 rf__id_kind(typeof(any_value(t.item))) AS rf__ik, any_value(t.item) AS rf__ix,
                 count(t.rf__one) FILTER (WHERE NOT (NOT list_contains(m.rf__names, 'value') OR rf__id_kind(typeof(t.value)) = 'number') OR list_contains(m.rf__names, 'value') AND NOT coalesce(TRY_CAST(t.value AS DOUBLE) IS NOT NULL AND isfinite(TRY_CAST(t.value AS DOUBLE)), false)) AS rf__nv,
                 CAST(list(struct_pack(item := t.item, feature := t.feature, value := t.value) ORDER BY t.item, t.feature, t.value) FILTER (WHERE NOT (NOT list_contains(m.rf__names, 'value') OR rf__id_kind(typeof(t.value)) = 'number') OR list_contains(m.rf__names, 'value') AND NOT coalesce(TRY_CAST(t.value AS DOUBLE) IS NOT NULL AND isfinite(TRY_CAST(t.value AS DOUBLE)), false))[1:5] AS VARCHAR) AS rf__rows,
                 (SELECT coalesce(sum(p.rf__c), 0) FROM (SELECT count(*) AS rf__c
                  FROM rf__beyond_features(tbl, features) AS f
                  GROUP BY f.item, f.rf__dim HAVING count(*) > 1) AS p) AS rf__np,
                 (SELECT CAST(list(struct_pack(item := p.item, feature := p.rf__dim)
                              ORDER BY p.item, p.rf__dim)[1:5] AS VARCHAR) FROM
                  (SELECT f.item, f.rf__dim FROM rf__beyond_features(tbl, features) AS f
                   GROUP BY f.item, f.rf__dim HAVING count(*) > 1) AS p) AS rf__prows
          FROM rf__columns(coalesce(features, tbl)) AS m,
               (SELECT *, 1 AS rf__one FROM query_table(coalesce(features, tbl)) WHERE features IS NOT NULL
                UNION ALL BY NAME SELECT NULL AS item, NULL AS feature, NULL AS value WHERE false) AS t
          ) AS c, rf__columns(coalesce(features, tbl)) AS m, rf__beyond_table_kinds(tbl) AS r);
-- every input given: true, or the first rule one breaks (history: a metric reading each query's history)
CREATE OR REPLACE MACRO rf__beyond_check_inputs(tbl, train, catalog, features, history, owner) AS
    rf__beyond_check_train(tbl, train, history, owner) AND rf__beyond_check_catalog(tbl, catalog)
    AND rf__beyond_check_features(tbl, features);
-- the co-occurrence budget (rankframe/beyond/similarity.py COOCCURRENCE_BUDGET; SET VARIABLE
-- rf__cooccurrence_budget = n changes it) and its error, in the declared words
CREATE OR REPLACE MACRO rf__cooccurrence_budget() AS
    coalesce(TRY_CAST(getvariable('rf__cooccurrence_budget') AS DOUBLE), 400000000.0);
CREATE OR REPLACE MACRO rf__cooccurrence_over(owner, work, longest) AS
    error('rf:param: ' || 'The ''similarity'' parameter of ' || CAST(owner AS VARCHAR) || ': similarity=''cooccurrence'' needs sum over train=''s queries of |history| x |history items among the recommended| = ' || format('{:,}', CAST(round(work) AS BIGINT)) || ' multiply-adds, beyond the budget of ' || format('{:,}', CAST(round(rf__cooccurrence_budget()) AS BIGINT)) || ' (rankframe.beyond.similarity.COOCCURRENCE_BUDGET; in SQL: SET VARIABLE rf__cooccurrence_budget = ...); the longest histories of train= have ' || CAST(longest AS VARCHAR) || ' distinct items. Use similarity=''cosine'' with features=, or keep fewer items per query in train= (e.g. the most recent)');
-- rf:generated-end

-- the checks of a call (the options o, already checked when bound; the table's columns and segments; the inputs
-- given, by the generated rf__beyond_check_<input>: history = a metric reading each query's history), one row
CREATE OR REPLACE MACRO rf__beyond_ok(tbl, train, catalog, features, history, segments, order_by, o, owner) AS TABLE
    SELECT * FROM rf__check_table(tbl, segments, owner, ['metric', 'value', 'n'],
                                  o IS NOT NULL
                                  AND rf__choice(order_by, ['rank', 'score', 'position'], 'order_by', owner) <> ''
                                  AND rf__beyond_check_inputs(tbl, train, catalog, features, history, owner));

-- every row of tbl ranked: its segment columns, query, item, rf__all (a constant: the segment key without segments),
-- rf__sk (the segment as one named struct: DuckDB 1.4 stores no unnamed one in a table), rf__first (true on one row
-- of each list: the segment's lists are counted from it) and rf__pos (the position of a ranked row, NULL when not
-- retrieved: rank ascending, or score descending then item descending as text, rankframe's order; a NULL rank or
-- score is not retrieved), and relevance when tbl has it (Serendipity's grades: read from these rows, not joined
-- back from tbl). One window, one sort, whatever the cutoff: the DuckDB engine stores these rows once per call and
-- every metric of the call reads them (base :=).
CREATE OR REPLACE MACRO rf__beyond_ranked(tbl, segments, order_by, ok) AS TABLE
    SELECT b.* EXCLUDE (rf__key, rf__tie, rf__row),
           CASE WHEN b.rf__key IS NOT NULL THEN b.rf__row END AS rf__pos,
           b.rf__row = 1 AS rf__first
    FROM (SELECT c.*,
                 -- unranked rows (NULL key) sort last: the ranked rows are numbered 1..n first
                 row_number() OVER (PARTITION BY c.rf__sk, c.query ORDER BY c.rf__key NULLS LAST, c.rf__tie DESC)
                     AS rf__row
          FROM (SELECT a.*,
                       struct_pack(*COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'))
                           AS rf__sk
          FROM (SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('query', 'item', 'relevance')), 0 AS rf__all,
                       CAST(COLUMNS(lambda c: c = CASE WHEN rf__lc(order_by) = 'score' THEN 'score' ELSE 'rank' END)
                            AS DOUBLE) * CASE WHEN rf__lc(order_by) = 'score' THEN -1.0 ELSE 1.0 END AS rf__key,
                       CASE WHEN rf__lc(order_by) = 'score' THEN CAST(s.item AS VARCHAR) END AS rf__tie
                FROM rf__input(tbl, ['query', 'item',
                                     CASE WHEN rf__lc(order_by) = 'score' THEN 'score' ELSE 'rank' END]) AS s
                WHERE ok) AS a) AS c) AS b;

-- the ranked rows (rf__beyond_ranked, relevance too when tbl has it) with rf__top: ranked at a position <= k. base:
-- NULL (rank tbl's rows here), or
-- the name of a table holding rf__beyond_ranked's rows of tbl already (the DuckDB engine's one prepared base per
-- call; its other columns are left out)
CREATE OR REPLACE MACRO rf__beyond_base(tbl, segments, order_by, k, ok, base := NULL) AS TABLE
    SELECT r.*, coalesce(r.rf__pos <= coalesce(k, 9223372036854775807), false) AS rf__top
    FROM (SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c)
                                   OR c IN ('query', 'item', 'relevance', 'rf__all', 'rf__sk', 'rf__pos', 'rf__first'))
          FROM (SELECT * FROM rf__beyond_ranked(tbl, segments, order_by, ok) WHERE base IS NULL
                UNION ALL BY NAME
                SELECT * FROM query_table(coalesce(base, tbl)) WHERE base IS NOT NULL)) AS r;

-- the rows of train (NULL: none; tbl is only the name the pruned branch binds to) with their weight (1 without
-- the column)
CREATE OR REPLACE MACRO rf__beyond_train(tbl, train) AS TABLE
    SELECT t.query, t.item, coalesce(CAST(t.weight AS DOUBLE), 1.0) AS rf__w
    FROM (SELECT * FROM query_table(coalesce(train, tbl)) WHERE train IS NOT NULL
          UNION ALL BY NAME
          SELECT NULL AS query, NULL AS item, NULL AS weight WHERE false) AS t;

-- the universe of Coverage and Gini: the distinct items of catalog (its item column) or of train
CREATE OR REPLACE MACRO rf__beyond_universe(tbl, train, catalog, universe) AS TABLE
    SELECT DISTINCT c.item AS rf__item FROM rf__beyond_catalog(tbl, catalog) AS c
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

-- the row-value metrics (ARP, APLT, Novelty, ...): each row with its value rf__v and whether it counts (rf__c), by
-- the metric's own rf__<name>_row_value / rf__<name>_row_counted (sql/<name>.sql) over the item's row i of
-- rf__beyond_items (NULL fields when cold), train's totals z and the metric's resolved options o; the SQL loader
-- generates the CASE from the files that define them
CREATE OR REPLACE MACRO rf__beyond_row_values(tbl, train, segments, order_by, metric, o, ok, base := NULL) AS TABLE
    SELECT b.*,
           CASE metric /* rf:generated row_values */ END AS rf__v,
           CASE metric /* rf:generated row_counted */ END AS rf__c
    FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base) AS b
    LEFT JOIN rf__beyond_items(tbl, train, struct_extract(o, 'popularity')) AS i ON b.item = i.rf__item
    -- train's queries and the sum of every item's popularity (the distinct (query, item) pairs with a positive
    -- weight for 'users', the weights for 'interactions'), for the cold rows too
    CROSS JOIN (SELECT CAST(count(DISTINCT t.query) AS DOUBLE) AS rf__nu,
                       CASE WHEN struct_extract(o, 'popularity') = 'users'
                            THEN CAST(count(DISTINCT (t.query, t.item)) FILTER (WHERE t.rf__w > 0) AS DOUBLE)
                            ELSE sum(t.rf__w ORDER BY t.rf__w) END AS rf__psum
                FROM rf__beyond_train(tbl, train) AS t) AS z;

-- one row per list (segments..., query): rf__rows counted, rf__sum their values, value (NaN without a counted row;
-- list_denominator 'k', Novelty's, divides the sum by k; NULL in the other metrics' options)
CREATE OR REPLACE MACRO rf__beyond_lists(tbl, train, segments, order_by, metric, o, ok, base := NULL) AS TABLE
    SELECT l.*,
           CASE WHEN l.rf__rows = 0 THEN CAST('NaN' AS DOUBLE)
                WHEN struct_extract(o, 'list_denominator') = 'k' THEN l.rf__sum / struct_extract(o, 'k')
                ELSE l.rf__sum / l.rf__rows END AS value
    FROM (SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'query')),
                 count(*) FILTER (WHERE r.rf__top AND r.rf__c) AS rf__rows,
                 coalesce(rf__xsum(CASE WHEN r.rf__top AND r.rf__c THEN r.rf__v END), 0.0) AS rf__sum
          FROM rf__beyond_row_values(tbl, train, segments, order_by, metric, o, ok, base := base) AS r
          GROUP BY ALL) AS l;

-- the rows of a per-list metric: segments..., metric, value, n (aggregate 'per_list': the mean of the lists'
-- values, NaN left out, n = the lists averaged; 'rows': one mean over every counted row, n = the segment's lists)
CREATE OR REPLACE MACRO rf__beyond_list_means(tbl, train, segments, order_by, metric, label, o, ok, base := NULL) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label(label, struct_extract(o, 'k')) AS metric,
               CASE WHEN struct_extract(o, 'aggregate') = 'rows'
                    THEN CASE WHEN sum(l.rf__rows ORDER BY l.rf__rows) > 0
                              THEN sum(l.rf__sum ORDER BY l.rf__sum) / sum(l.rf__rows ORDER BY l.rf__rows)
                              ELSE CAST('NaN' AS DOUBLE) END
                    ELSE rf__beyond_mean(l.value) END AS value,
               CASE WHEN struct_extract(o, 'aggregate') = 'rows' THEN count(*)
                    ELSE rf__beyond_n(l.value) END AS n
        FROM rf__beyond_lists(tbl, train, segments, order_by, metric, o, ok, base := base) AS l
        GROUP BY ALL)
    ORDER BY ALL NULLS LAST;

-- the rows of features (NULL: none; tbl is only the name the pruned branch binds to): item, rf__dim (the feature as
-- text) and rf__x (its value, 1 without a value column)
CREATE OR REPLACE MACRO rf__beyond_features(tbl, features) AS TABLE
    SELECT f.item, CAST(f.feature AS VARCHAR) AS rf__dim, coalesce(CAST(f.value AS DOUBLE), 1.0) AS rf__x
    FROM (SELECT * FROM query_table(coalesce(features, tbl)) WHERE features IS NOT NULL
          UNION ALL BY NAME
          SELECT NULL AS item, NULL AS feature, NULL AS value WHERE false) AS f;

-- the items known to a similarity (rankframe/beyond/similarity.py): a row in features (cosine, hamming) or in train
-- (cooccurrence, any weight)
CREATE OR REPLACE MACRO rf__beyond_known(tbl, train, features, similarity) AS TABLE
    SELECT DISTINCT f.item AS rf__item FROM rf__beyond_features(tbl, features) AS f
    WHERE similarity IN ('cosine', 'hamming')
    UNION ALL
    SELECT DISTINCT t.item AS rf__item FROM rf__beyond_train(tbl, train) AS t
    WHERE similarity = 'cooccurrence';

-- the item vectors of a similarity: (rf__item, rf__dim, rf__u). cosine: the features row divided by the item's L2
-- norm (0 for a zero vector; the values scaled by their largest magnitude first, as rankframe/beyond/similarity.py); hamming: the raw value; cooccurrence: none (its vectors
-- would have one dimension per train query: rf__beyond_cooccurrence gives its pairs' cosines instead)
CREATE OR REPLACE MACRO rf__beyond_vectors(tbl, train, features, similarity) AS TABLE
    SELECT f.item AS rf__item, f.rf__dim,
           CASE WHEN similarity = 'hamming' THEN f.rf__x
                WHEN m.rf__norm2 > 0 THEN f.rf__x / m.rf__big / sqrt(m.rf__norm2) ELSE 0.0 END AS rf__u
    FROM rf__beyond_features(tbl, features) AS f
    -- the norm of the item's values over their largest magnitude rf__big: no square overflows (values > 1e154)
    LEFT JOIN (SELECT g.item, b.rf__big,
                      sum((g.rf__x / b.rf__big) * (g.rf__x / b.rf__big) ORDER BY (g.rf__x / b.rf__big) * (g.rf__x / b.rf__big)) AS rf__norm2
               FROM rf__beyond_features(tbl, features) AS g
               JOIN (SELECT h.item, max(abs(h.rf__x)) AS rf__big FROM rf__beyond_features(tbl, features) AS h
                     GROUP BY h.item) AS b ON g.item = b.item
               WHERE b.rf__big > 0 AND similarity = 'cosine'
               GROUP BY g.item, b.rf__big) AS m ON f.item = m.item
    WHERE similarity IN ('cosine', 'hamming');

-- the co-occurrence cosines (rankframe/beyond/similarity.py) of the pairs (rf__i, rf__j), rf__i an item of tbl's
-- ranked rows and rf__j an item sharing a train query with it: rf__cos = C_ij / sqrt(C_ii C_jj), C_ij the train
-- queries holding both with a positive weight. Counted over the pairs of each train query's items: sum over the
-- queries of |H ∩ L| x |H| (history lengths, not popularities; never a sum over each item's queries), and beyond
-- rf__cooccurrence_budget() an rf:param error naming the longest histories, before any pair is counted. No rows
-- unless similarity = 'cooccurrence'; owner names the metric in the error.
CREATE OR REPLACE MACRO rf__beyond_cooccurrence(tbl, train, segments, order_by, ok, similarity, owner, base := NULL) AS TABLE
    WITH rf__c_pairs AS (  -- each train query's distinct items with a positive weight
        SELECT DISTINCT t.query, t.item FROM rf__beyond_train(tbl, train) AS t
        WHERE t.rf__w > 0 AND similarity = 'cooccurrence'),
    rf__c_listed AS (
        SELECT DISTINCT b.item FROM rf__beyond_base(tbl, segments, order_by, NULL, ok, base := base) AS b
        WHERE b.rf__pos IS NOT NULL AND similarity = 'cooccurrence'),
    rf__c_rows AS (SELECT p.query, p.item FROM rf__c_pairs AS p SEMI JOIN rf__c_listed AS l ON p.item = l.item),
    rf__c_lengths AS (  -- |H| and |H ∩ L| of each train query
        SELECT n.query, n.rf__len, coalesce(i.rf__in, 0) AS rf__in
        FROM (SELECT p.query, count(*) AS rf__len FROM rf__c_pairs AS p GROUP BY p.query) AS n
        LEFT JOIN (SELECT r.query, count(*) AS rf__in FROM rf__c_rows AS r GROUP BY r.query) AS i
               ON n.query = i.query),
    rf__c_check AS (  -- the work as an exact integer sum (HUGEINT): the same in any order of the rows
        SELECT CASE WHEN coalesce(sum(w.rf__len * w.rf__in), 0) > rf__cooccurrence_budget()
                    THEN rf__cooccurrence_over(owner, sum(w.rf__len * w.rf__in),
                                               list(w.rf__len ORDER BY w.rf__len DESC)[1:3])
                    ELSE true END AS rf__ok
        FROM rf__c_lengths AS w),
    rf__c_users AS (SELECT p.item, 1.0 / sqrt(count(*)) AS rf__scale FROM rf__c_pairs AS p GROUP BY p.item)
    SELECT g.rf__i, g.rf__j, CAST(g.rf__c AS DOUBLE) * ui.rf__scale * uj.rf__scale AS rf__cos
    FROM (SELECT r.item AS rf__i, p.item AS rf__j, count(*) AS rf__c
          FROM (SELECT * FROM rf__c_rows WHERE (SELECT c.rf__ok FROM rf__c_check AS c)) AS r
          JOIN rf__c_pairs AS p ON r.query = p.query
          GROUP BY r.item, p.item) AS g
    JOIN rf__c_users AS ui ON g.rf__i = ui.item
    JOIN rf__c_users AS uj ON g.rf__j = uj.item;
