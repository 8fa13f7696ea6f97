-- rankframe: agreement between two label columns (issue 37): rf_agreement(tbl, a := 'human', b := 'llm',
-- segments := [], weights := NULL, rel := NULL) -> one row per segment: the segment columns, n (units with both
-- labels), agreement (share of equal labels), kappa (Cohen's, scikit-learn's cohen_kappa_score), note. The SQL side
-- of rankframe.agreement's two-coder form (docs/judgments.md); tests/sql/test_sql_agreement.py holds it to pandas to
-- 1e-12. No labels := and no ci := here (the bootstrap over queries is pandas-only).
--
-- Flat aggregate SQL: the label scale is the sorted distinct labels of the whole call (a subquery over every segment,
-- so segments share one scale), each label its index on it; per segment the unit counts and the sum of the
-- disagreement weights w(i, j) (1 - [i = j], |i - j| or (i - j)^2: integers, so every sum is exact and order-free);
-- per segment the label counts r_i (a) and c_j (b); the expected disagreement sum_ij r_i c_j w(i, j) over the pairs
-- of labels of each segment; kappa = 1 - n * disagree / expected, NaN when expected is 0 (chance agreement 1).
-- Rows where either label is NULL (or NaN) are left out of n; the note says how many.

CREATE OR REPLACE MACRO rf__agreement_outputs() AS ['n', 'agreement', 'kappa', 'note'];

-- the disagreement weight of two label indices (rankframe.stats.agreement.pair_weight)
CREATE OR REPLACE MACRO rf__agreement_w(i, j, weights) AS
    CASE WHEN weights IS NULL THEN CAST(i <> j AS HUGEINT)
         WHEN weights = 'linear' THEN CAST(abs(i - j) AS HUGEINT)
         ELSE CAST((i - j) * (i - j) AS HUGEINT) END;

-- a label column name, present in the table and not a segment, or the error in rankframe.agreement's words
CREATE OR REPLACE MACRO rf__agreement_col(names, col, pname, segments) AS
    CASE WHEN col IS NULL OR typeof(col) <> 'VARCHAR'
         THEN error(printf('rf:param: The ''%s'' parameter of rf_agreement must be a column name (str). Got %s '
                           || 'instead.', pname, rf__repr(col)))
         WHEN NOT list_contains(names, CAST(col AS VARCHAR))
         THEN error(printf('rf:table[%s]: column ''%s'' not in the table%s. Columns in the table: %s.', col, col,
                           coalesce(' (did you mean ''' || rf__closest(CAST(col AS VARCHAR), names) || '''?)', ''),
                           rf__quoted(names)))
         WHEN list_contains(list_transform(TRY_CAST(segments AS VARCHAR[]), lambda x: lower(x)), lower(CAST(col AS VARCHAR)))
         THEN error(printf('rf:param: The ''segments'' parameter of rf_agreement names ''%s'', a label column; a '
                           || 'segment column must be another column.', col))
         ELSE true END;

-- true, or the error of the first bad parameter or column of rf_agreement
CREATE OR REPLACE MACRO rf__agreement_check(names, a, b, segments, weights, rel) AS
    CASE WHEN NOT rf__check_columns(names, segments, 'rf_agreement', rf__agreement_outputs()) THEN false
         WHEN NOT rf__agreement_col(names, a, 'a', segments) THEN false
         WHEN NOT rf__agreement_col(names, b, 'b', segments) THEN false
         WHEN lower(CAST(a AS VARCHAR)) = lower(CAST(b AS VARCHAR))
         THEN error(printf('rf:param: The ''a'' and ''b'' parameters of rf_agreement name the same column ''%s''; '
                           || 'name two columns.', a))
         WHEN weights IS NOT NULL AND rf__choice(weights, ['linear', 'quadratic'], 'weights', 'rf_agreement') = ''
         THEN false
         WHEN rel IS NOT NULL AND NOT coalesce(isfinite(rf__number(rel)), false)
         THEN error(printf('rf:param: The ''rel'' parameter of rf_agreement must be a finite number or NULL. Got %s '
                           || 'instead.', rf__repr(rel)))
         ELSE true END;

-- a label as a DOUBLE (NULL for NULL and NaN), or the error of a non-numeric column or an infinite label
CREATE OR REPLACE MACRO rf__agreement_label(v, col) AS
    CASE WHEN typeof(v) = 'NULL' THEN NULL
         WHEN NOT rf__is_number_type(typeof(v))
         THEN error(printf('rf:table[%s]: labels must be finite numbers (grades; null = not labelled): column ''%s'' '
                           || 'has type %s.', col, col, typeof(v)))
         WHEN isinf(TRY_CAST(v AS DOUBLE))
         THEN error(printf('rf:table[%s]: labels must be finite numbers (grades; null = not labelled): %s.', col,
                           CAST(v AS VARCHAR)))
         WHEN isnan(TRY_CAST(v AS DOUBLE)) THEN NULL
         ELSE TRY_CAST(v AS DOUBLE) END;

CREATE OR REPLACE MACRO rf_agreement(tbl, a := 'human', b := 'llm', segments := [], weights := NULL,
                                     rel := NULL) AS TABLE
    WITH rf__rows AS MATERIALIZED (
        SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                                 OR c = 'rf__all'),
               struct_pack(*COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c)
                                               AND NOT rf__reserved(c)) OR c = 'rf__all')) AS rf__seg,
               rf__agreement_label(coalesce(*COLUMNS(lambda c: c = CAST(a AS VARCHAR) OR c = 'rf__noa')), a) AS rf__x,
               rf__agreement_label(coalesce(*COLUMNS(lambda c: c = CAST(b AS VARCHAR) OR c = 'rf__nob')), b) AS rf__y
        FROM (SELECT *, NULL AS rf__noa, NULL AS rf__nob, true AS rf__all
              FROM query_table(tbl)) AS t
        WHERE (SELECT rf__agreement_check(n.rf__names, a, b, segments, lower(CAST(weights AS VARCHAR)), rel)
               FROM rf__columns(tbl) AS n)),
    rf__kept AS MATERIALIZED (
        SELECT r.rf__seg,
               CASE WHEN rel IS NULL THEN r.rf__x ELSE CAST(r.rf__x >= rf__as_num(rel) AS DOUBLE) END AS rf__x,
               CASE WHEN rel IS NULL THEN r.rf__y ELSE CAST(r.rf__y >= rf__as_num(rel) AS DOUBLE) END AS rf__y
        FROM rf__rows AS r
        WHERE r.rf__x IS NOT NULL AND r.rf__y IS NOT NULL),
    rf__any AS (
        SELECT CASE WHEN (SELECT count(*) FROM rf__rows) = 0
                    THEN error(printf('rf:table[%s]: the table is empty: no unit to compare.', a))
                    WHEN count(*) = 0
                    THEN error(printf('rf:table[%s]: no row has both labels (''%s'' and ''%s'' not null).', a, a, b))
                    ELSE true END AS rf__ok
        FROM rf__kept),
    -- one row per (query, item) unit when the table has both columns (the table rule "unique_item")
    rf__repeated AS (
        SELECT CASE WHEN count(*) > 0 AND (SELECT list_has_all(n.rf__names, ['query', 'item']) FROM rf__columns(tbl) AS n)
                    THEN error(printf('rf:table[item]: item must be unique within each (%s): %s unit(s) repeat.',
                                      array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', '),
                                      CAST(count(*) AS VARCHAR)))
                    ELSE true END AS rf__ok
        -- one row per repeated unit: the unit's columns are grouped where they are selected (an outer GROUP BY ALL
        -- over count(*) alone would be one group of every row)
        FROM (SELECT COLUMNS(lambda c: lower(c) IN ('query', 'item') OR c = 'rf__all'
                                       OR (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))),
                     count(*) AS rf__c
              FROM (SELECT *, true AS rf__all FROM query_table(tbl)) AS t
              GROUP BY ALL HAVING count(*) > 1) AS d),
    -- the label scale of the whole call: every segment on it
    rf__scale AS (
        SELECT s.rf__v, dense_rank() OVER (ORDER BY s.rf__v) - 1 AS rf__i
        FROM (SELECT k.rf__x AS rf__v FROM rf__kept AS k UNION SELECT k.rf__y FROM rf__kept AS k) AS s),
    rf__units AS (
        SELECT k.rf__seg, sa.rf__i AS rf__i, sb.rf__i AS rf__j
        FROM rf__kept AS k
        JOIN rf__scale AS sa ON sa.rf__v = k.rf__x
        JOIN rf__scale AS sb ON sb.rf__v = k.rf__y
        WHERE (SELECT o.rf__ok FROM rf__any AS o) AND (SELECT d.rf__ok FROM rf__repeated AS d)),
    rf__observed AS (
        SELECT u.rf__seg, count(*) AS rf__n, count(*) FILTER (WHERE u.rf__i = u.rf__j) AS rf__equal,
               sum(rf__agreement_w(u.rf__i, u.rf__j, lower(CAST(weights AS VARCHAR)))) AS rf__disagree
        FROM rf__units AS u GROUP BY u.rf__seg),
    rf__r AS (SELECT u.rf__seg, u.rf__i, count(*) AS rf__cnt FROM rf__units AS u GROUP BY u.rf__seg, u.rf__i),
    rf__c AS (SELECT u.rf__seg, u.rf__j, count(*) AS rf__cnt FROM rf__units AS u GROUP BY u.rf__seg, u.rf__j),
    rf__expected AS (
        SELECT r.rf__seg,
               sum(CAST(r.rf__cnt AS HUGEINT) * c.rf__cnt
                   * rf__agreement_w(r.rf__i, c.rf__j, lower(CAST(weights AS VARCHAR)))) AS rf__expected
        FROM rf__r AS r JOIN rf__c AS c ON r.rf__seg IS NOT DISTINCT FROM c.rf__seg
        GROUP BY r.rf__seg),
    rf__segments AS (
        SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                                 OR c = 'rf__all'),
               any_value(r.rf__seg) AS rf__seg,
               count(*) FILTER (WHERE r.rf__x IS NULL OR r.rf__y IS NULL) AS rf__nulls
        FROM rf__rows AS r GROUP BY ALL)
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                                 OR c = 'rf__all'),
               coalesce(o.rf__n, 0) AS n,
               CASE WHEN coalesce(o.rf__n, 0) > 0 THEN o.rf__equal / o.rf__n ELSE 'NaN'::DOUBLE END AS agreement,
               CASE WHEN coalesce(e.rf__expected, 0) > 0
                    THEN 1.0 - CAST(o.rf__n AS DOUBLE) * CAST(o.rf__disagree AS DOUBLE) / CAST(e.rf__expected AS DOUBLE)
                    ELSE 'NaN'::DOUBLE END AS kappa,
               nullif(concat_ws('; ',
                                CASE WHEN s.rf__nulls > 0
                                     THEN printf('%d row(s) with a null label left out', s.rf__nulls) END,
                                CASE WHEN coalesce(e.rf__expected, 0) = 0
                                     THEN 'kappa undefined: chance agreement is 1 (a single label on the scale)' END),
                      '') AS note
        FROM rf__segments AS s
        LEFT JOIN rf__observed AS o ON o.rf__seg IS NOT DISTINCT FROM s.rf__seg
        LEFT JOIN rf__expected AS e ON e.rf__seg IS NOT DISTINCT FROM s.rf__seg)
    ORDER BY COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                               OR c = 'n');
