-- rankframe: shared preparation and parameter checks (load first; every other file uses these).
--
-- Conventions of the whole macro set (docs/metrics.md is the definition of every metric):
--   * rf_<name>(grades, ...)      scalar macro of metric <name> over the list of grades in rank order
--                                 (NULL = unjudged); parameters named and defaulted as in rankframe/registry.py
--   * rf_agg_<name>(pos, grade, ...)  the same metric as an aggregate over the rows of one ranking unit,
--                                 for GROUP BY over rf_prepare(...) output (set-based, fast)
--   * rf_prepare / rf_per_query / rf_means / rf_validate   table macros for the whole job
--   * rf__<name>                  internal helpers (not part of the API)
-- Macro parameters never use the names rank/query/relevance: a parameter shadows a column.

-- ---------------------------------------------------------------------------------------------- checks
-- Each returns the (normalised) value or raises a clear error naming the parameter and the allowed values.

CREATE OR REPLACE MACRO rf__k(k, owner) AS
    CASE WHEN k IS NULL THEN NULL
         WHEN k < 1 OR k <> floor(k)
         THEN error(printf('The ''k'' parameter of %s must be an int >= 1 or NULL. Got %s instead.',
                           owner, CAST(k AS VARCHAR)))
         ELSE CAST(k AS BIGINT) END;

CREATE OR REPLACE MACRO rf__choice(v, choices, pname, owner) AS
    CASE WHEN v IS NOT NULL AND list_contains(choices, lower(CAST(v AS VARCHAR))) THEN lower(CAST(v AS VARCHAR))
         ELSE error(printf('The ''%s'' parameter of %s must be one of %s. Got %s instead.', pname, owner,
                           array_to_string(list_transform(choices, lambda x: '''' || x || ''''), ', '),
                           coalesce('''' || CAST(v AS VARCHAR) || '''', 'NULL'))) END;

-- relevance threshold that must be set (binary metrics)
CREATE OR REPLACE MACRO rf__rel(rel, owner) AS
    CASE WHEN rel IS NULL OR NOT isfinite(CAST(rel AS DOUBLE))
         THEN error(printf('The ''rel'' parameter of %s must be a finite number. Got %s instead.',
                           owner, coalesce(CAST(rel AS VARCHAR), 'NULL')))
         ELSE CAST(rel AS DOUBLE) END;

-- relevance threshold that may be NULL (graded metrics: NULL = no threshold)
CREATE OR REPLACE MACRO rf__relopt(rel, owner) AS
    CASE WHEN rel IS NULL THEN CAST(NULL AS DOUBLE)
         WHEN NOT isfinite(CAST(rel AS DOUBLE))
         THEN error(printf('The ''rel'' parameter of %s must be a finite number or NULL. Got %s instead.',
                           owner, CAST(rel AS VARCHAR)))
         ELSE CAST(rel AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__max_grade(m, owner) AS
    CASE WHEN m IS NULL OR m < 1 OR m <> floor(m)
         THEN error(printf('The ''max_grade'' parameter of %s must be an int >= 1. Got %s instead.',
                           owner, coalesce(CAST(m AS VARCHAR), 'NULL')))
         ELSE CAST(m AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__p(p, owner) AS
    CASE WHEN p IS NULL OR NOT (p > 0 AND p < 1)
         THEN error(printf('The ''p'' parameter of %s must be a float in the open interval (0, 1). Got %s instead.',
                           owner, coalesce(CAST(p AS VARCHAR), 'NULL')))
         ELSE CAST(p AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__policy_choice(v, pname) AS
    rf__choice(v, ['zero', 'nan', 'skip'], pname, 'rankframe');

-- ----------------------------------------------------------------------------------------------- gains
-- gain of a grade g (docs: CG, DCG, IDCG, nDCG): NULL -> 0, below rel -> 0, linear max(g, 0),
-- exponential 2^max(g, 0) - 1. rel, gain already checked.
CREATE OR REPLACE MACRO rf__gain(g, rel, gain) AS
    CASE WHEN g IS NULL OR g < rel OR g <= 0 THEN CAST(0 AS DOUBLE)
         WHEN gain = 'linear' THEN CAST(g AS DOUBLE)
         ELSE pow(2.0, CAST(g AS DOUBLE)) - 1.0 END;

-- ERR's probability of satisfaction (2^max(g, 0) - 1) / 2^max_grade; a grade above max_grade is an error.
CREATE OR REPLACE MACRO rf__pr(g, max_grade) AS
    CASE WHEN g IS NULL OR g <= 0 THEN CAST(0 AS DOUBLE)
         WHEN g > max_grade
         THEN error(printf('ERR: grade %s is above max_grade %s; set max_grade to the top grade of your scale.',
                           CAST(g AS VARCHAR), CAST(CAST(max_grade AS BIGINT) AS VARCHAR)))
         ELSE (pow(2.0, CAST(g AS DOUBLE)) - 1.0) / pow(2.0, max_grade) END;

-- DCG of a list of gains already in order, cut at k (NULL = whole list)
CREATE OR REPLACE MACRO rf__dcg_list(gains, k) AS
    coalesce(list_sum(list_transform(list_slice(gains, 1, coalesce(k, len(gains))),
                                     lambda x, i: x / log2(i + 1))), 0.0);

-- ERR of a list of (position i, Pr) structs sorted by position (cascade: sum Pr_i / i prod_{j<i} (1 - Pr_j));
-- the prefix products are taken over the list itself (lists are short: top k, or only the items with Pr > 0)
CREATE OR REPLACE MACRO rf__err_list(items) AS
    coalesce(list_sum(list_transform(items, lambda x, n: x.pr / x.i
        * coalesce(list_product(list_transform(list_slice(items, 1, n - 1), lambda y: 1.0 - y.pr)), 1.0))),
             CAST(0 AS DOUBLE));

-- ERR of a list of Pr values in order, cut at k (the ideal list for nERR)
CREATE OR REPLACE MACRO rf__err_pr(prs, k) AS
    rf__err_list(list_transform(list_slice(prs, 1, coalesce(k, len(prs))), lambda x, i: {'i': i, 'pr': x}));

-- positions i <= k (k NULL = all) where grades[i] >= rel, ascending
CREATE OR REPLACE MACRO rf__hitpos(grades, k, rel) AS
    list_filter(list_transform(list_slice(grades, 1, coalesce(k, len(grades))),
                               lambda x, i: CASE WHEN x >= rel THEN i END),
                lambda i: i IS NOT NULL);

-- AP's sum over the sorted hit positions p_j of j / p_j
CREATE OR REPLACE MACRO rf__ap_sum(hitpos) AS
    coalesce(list_sum(list_transform(hitpos, lambda p, j: CAST(j AS DOUBLE) / p)), 0.0);

-- NaN-aware helpers for the query-set policies
CREATE OR REPLACE MACRO rf__policy_value(choice) AS
    CASE choice WHEN 'zero' THEN CAST(0 AS DOUBLE) WHEN 'nan' THEN CAST('NaN' AS DOUBLE) ELSE NULL END;

-- ------------------------------------------------------------------------------------------ preparation
-- rf_prepare(tbl): every column of the table/view tbl plus
--   rf_pos  position 1..n of the row in its ranking unit (segments..., query), NULL if not retrieved;
--           from `rank` ascending (order_by := 'rank', the rank values only define the order), or from
--           `score` descending with ties broken by item descending compared as strings (order_by := 'score',
--           trec_eval); NULL rank / NULL score = judged but not retrieved;
--           order_by := 'position' takes `rank` as the position itself (ranks already 1..n in every unit, as
--           most exports are): no window and no sort, about 3x faster on large tables. The table macros and
--           rf_agg_n_retrieved stop with an error when a unit's ranks are not exactly 1..n.
--   rf_g    the relevance as DOUBLE (NULL = unjudged)
-- The table must use the standard column names query, item, rank|score, relevance (make a view to rename).
-- Without segments the window partitions by query itself (fast); with segments by a struct of the unit's columns.
-- Both branches are bound; the one whose constant condition is false is pruned by DuckDB's planner.
CREATE OR REPLACE MACRO rf_prepare(tbl, segments := [], order_by := 'rank') AS TABLE
    SELECT s.*,
           CAST(COLUMNS(lambda c: c = CASE WHEN order_by = 'position' THEN 'rank' ELSE 'query' END) AS BIGINT)
               AS rf_pos,
           CAST(s.relevance AS DOUBLE) AS rf_g
    FROM query_table(tbl) AS s
    WHERE rf__choice(order_by, ['rank', 'score', 'position'], 'order_by', 'rf_prepare') = 'position'
    UNION ALL BY NAME
    SELECT t.* EXCLUDE (rf__key, rf__unit, rf__tie, rf__none, rf__part, rf__second),
           CASE WHEN t.rf__key IS NOT NULL THEN row_number() OVER (
                PARTITION BY t.rf__part ORDER BY t.rf__key ASC NULLS LAST, t.rf__second DESC) END AS rf_pos,
           CAST(t.relevance AS DOUBLE) AS rf_g
    FROM (SELECT u.*,
                 -- the unit: the query itself without segments (fast), else a struct of (segments..., query)
                 COLUMNS(lambda c: c = CASE WHEN len(segments) = 0 THEN 'query' ELSE 'rf__unit' END) AS rf__part,
                 -- tie-break: item descending as a string for scores (trec_eval); ranks are unique
                 COLUMNS(lambda c: c = CASE WHEN order_by = 'score' THEN 'rf__tie' ELSE 'rf__none' END) AS rf__second
          FROM (SELECT s.*,
                       row(*COLUMNS(lambda c: list_contains(CAST(segments AS VARCHAR[]), c) OR c = 'query')) AS rf__unit,
                       CAST(s.item AS VARCHAR) AS rf__tie,
                       CAST(NULL AS VARCHAR) AS rf__none,
                       CAST(COLUMNS(lambda c: c = CASE WHEN order_by IN ('rank', 'score') THEN order_by ELSE 'query' END)
                            AS DOUBLE)
                           * CASE order_by WHEN 'rank' THEN 1.0 ELSE -1.0 END AS rf__key
                FROM query_table(tbl) AS s
                WHERE order_by <> 'position') AS u) AS t;

-- the number of ranked rows of a unit (an aggregate over rf_prepare's rf_pos); with order_by := 'position'
-- it also checks that the unit's ranks are exactly 1..n (with unique ranks, as rf_validate checks: n rows,
-- smallest 1, largest n), since positions are then taken as given
CREATE OR REPLACE MACRO rf_agg_n_retrieved(pos, order_by := 'rank') AS
    CASE WHEN order_by = 'position' AND count(pos) > 0 AND (min(pos) <> 1 OR max(pos) <> count(pos))
         THEN error(printf('order_by := ''position'' needs ranks 1..n in every query, but a query has %s ranked '
                           || 'rows with ranks %s..%s; use order_by := ''rank''.',
                           CAST(count(pos) AS VARCHAR), CAST(min(pos) AS VARCHAR), CAST(max(pos) AS VARCHAR)))
         ELSE count(pos) END;
