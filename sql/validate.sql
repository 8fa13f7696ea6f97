-- rankframe: validation of a long table in SQL — the rules of rankframe's pandera schema.
--
--   SELECT * FROM rf_validate('runs');                            -- no rows = the table is valid
--   SELECT * FROM rf_validate('runs', segments := ['model']);     -- uniqueness per (model, query)
--   SELECT * FROM rf_validate('runs', order_by := 'score');       -- a run ranked by score
--   SELECT * FROM rf_validate('runs', allow_duplicates := true);  -- repeated (query, item) rows are allowed
--
-- One row per broken rule: column, rule, n_rows (offending rows) and examples (up to 5 offending rows as text).
-- Rules: query not null; item not null; relevance numeric and finite (null = unjudged); rank numeric, an integer
-- >= 1 (null = judged but not retrieved) and unique within each (segments..., query); score numeric and finite
-- (order_by := 'score'); item unique within each (segments..., query) unless allow_duplicates := true.
-- The rules' words are declared once, in rankframe/table_rules.py (RULES); tests/hostile/test_table_rules.py breaks each
-- rule here and on the Python faces and holds the words against the declaration.
-- Errors (not rows): a bad parameter, a segment list that does not name columns of the table (each once, not
-- query), a column named rf_pos, rf_g or rf__* (the names the other table macros add).

-- a column type that holds numbers (or only NULLs)
CREATE OR REPLACE MACRO rf__is_numeric_type(type_name) AS
    rf__is_number_type(type_name) OR type_name IN ('"NULL"', 'NULL');

CREATE OR REPLACE MACRO rf_validate(tbl, segments := [], order_by := 'rank', allow_duplicates := false) AS TABLE
    WITH rf__src AS (
        SELECT row(*COLUMNS(lambda c: rf__is_unit_col(c, segments))) AS rf__unit,
               s.query AS rf__query, s.item AS rf__item, s.relevance AS rf__rel,
               COLUMNS(lambda c: lower(c) = CASE WHEN rf__lc(order_by) IN ('rank', 'position') THEN 'rank'
                                          WHEN rf__lc(order_by) = 'score' THEN 'score' ELSE 'query' END) AS rf__ord
        FROM rf__input(tbl, rf__required(order_by)) AS s
        WHERE (SELECT rf__ok
               FROM rf__check_table(tbl, segments, 'rf_validate', [],
                                    CASE WHEN rf__choice(order_by, ['rank', 'score', 'position'], 'order_by',
                                                         'rf_validate') = '' THEN false
                                         WHEN rf__flag(allow_duplicates, 'allow_duplicates', 'rf_validate') IS NULL
                                         THEN false
                                         ELSE true END))
    ), rf__base AS (
        SELECT rf__unit,
               rf__query IS NULL AS null_query,
               rf__item IS NULL AS null_item,
               CAST(rf__item AS VARCHAR) AS item_txt,
               printf('query=%s item=%s', coalesce(CAST(rf__query AS VARCHAR), 'NULL'),
                      coalesce(CAST(rf__item AS VARCHAR), 'NULL')) AS row_txt,
               CAST(rf__rel AS VARCHAR) AS rel_txt,
               CASE WHEN rf__is_numeric_type(typeof(rf__rel)) THEN TRY_CAST(rf__rel AS DOUBLE) END AS rel_num,
               CAST(rf__ord AS VARCHAR) AS ord_txt,
               CASE WHEN rf__is_numeric_type(typeof(rf__ord)) THEN TRY_CAST(rf__ord AS DOUBLE) END AS ord_num,
               CASE rf__lc(order_by) WHEN 'score' THEN 'score' ELSE 'rank' END AS ord_name
        FROM rf__src AS src
    ), rf__flagged AS (
        SELECT *,
               row_txt || printf(' %s=%s relevance=%s', ord_name, coalesce(ord_txt, 'NULL'),
                                 coalesce(rel_txt, 'NULL')) AS example,
               NOT null_item AND NOT rf__as_bool(allow_duplicates)
                   AND count(*) OVER (PARTITION BY rf__unit, item_txt) > 1 AS dup_item,
               ord_name = 'rank' AND ord_num IS NOT NULL
                   AND count(*) OVER (PARTITION BY rf__unit, ord_num) > 1 AS dup_rank
        FROM rf__base AS base
    ), rf__rules AS (
        SELECT 1 AS rule_no, 'query' AS "column", 'query must not be null' AS rule, null_query AS bad, example
        FROM rf__flagged AS flagged
        UNION ALL SELECT 2, 'item', 'item must not be null', null_item, example FROM rf__flagged AS flagged
        UNION ALL SELECT 3, 'relevance', 'relevance must be numeric (null = unjudged)',
                         rel_txt IS NOT NULL AND rel_num IS NULL, example FROM rf__flagged AS flagged
        UNION ALL SELECT 4, 'relevance', 'relevance must be finite (null = unjudged)',
                         rel_num IS NOT NULL AND NOT isfinite(rel_num), example FROM rf__flagged AS flagged
        UNION ALL SELECT 5, ord_name,
                         CASE ord_name WHEN 'rank' THEN 'rank must be numeric (null = judged but not retrieved)'
                                       ELSE 'score must be numeric (null = not retrieved)' END,
                         ord_txt IS NOT NULL AND ord_num IS NULL, example FROM rf__flagged AS flagged
        UNION ALL SELECT 6, 'rank', 'rank must be an integer >= 1 (null = judged but not retrieved)',
                         ord_name = 'rank' AND ord_num IS NOT NULL
                             AND (NOT isfinite(ord_num) OR ord_num < 1 OR ord_num <> floor(ord_num)),
                         example FROM rf__flagged AS flagged
        UNION ALL SELECT 7, 'score', 'score must be finite', ord_name = 'score' AND ord_num IS NOT NULL
                         AND NOT isfinite(ord_num), example FROM rf__flagged AS flagged
        UNION ALL SELECT 8, 'rank', 'rank must be unique within each (' || array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', ') || ')',
                         dup_rank, example FROM rf__flagged AS flagged
        UNION ALL SELECT 9, 'item', 'item must be unique within each (' || array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', ')
                                    || ') (pass allow_duplicates := true to keep repeated rows)',
                         dup_item, example FROM rf__flagged AS flagged
    )
    SELECT "column", rule, count(*) AS n_rows, list_slice(list(example ORDER BY example), 1, 5) AS examples
    FROM rf__rules AS rules WHERE bad
    GROUP BY rule_no, "column", rule
    ORDER BY rule_no;
