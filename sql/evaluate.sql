-- rankframe: table macros for the whole job (per-query values and per-segment means).
--
-- The input is a table or view (or a Parquet file through a view) with the standard column names:
--   query, item, rank (1 = top, NULL = judged but not retrieved) or score (order_by := 'score'; 'position'
--   when ranks are already 1..n in every query: no window, much faster),
--   relevance (graded, NULL = unjudged), plus any segment columns. Rename with a view:
--     CREATE VIEW runs AS SELECT user_id AS query, movie_id AS item, position AS rank, rating AS relevance,
--                                model FROM 'export.parquet';
-- Set-based: one window pass numbers the ranked positions (rf_prepare), one GROUP BY computes every metric
-- with the aggregate building blocks rf_agg_<name>.

-- Query-set policies (docs/metrics.md), checked in order: no judged row -> no_judged; nothing retrieved ->
-- no_retrieved; nothing relevant (metrics that need relevant items) -> no_relevant.
-- 'zero' -> 0, 'nan' -> NaN (kept, left out of means), 'skip' -> NULL (dropped).
CREATE OR REPLACE MACRO rf__apply_policy(v, n_judged, n_ret, nothing_relevant, no_relevant, no_retrieved, no_judged) AS
    CASE WHEN n_judged = 0 THEN rf__policy_value(no_judged)
         WHEN n_ret = 0 THEN rf__policy_value(no_retrieved)
         WHEN nothing_relevant THEN rf__policy_value(no_relevant)
         ELSE v END;

-- "nothing relevant" of one unit: binary metrics |R| = 0; graded (nDCG, nERR) no judged (ideal 'judged') or
-- retrieved (ideal 'retrieved') row with a positive gain (grade > 0 and, when rel is set, grade >= rel).
CREATE OR REPLACE MACRO rf_agg_nothing_relevant(pos, grade, rel := 1, graded := false, ideal := 'judged') AS
    CASE WHEN graded
         THEN count(grade) FILTER (WHERE grade > 0 AND (rel IS NULL OR grade >= rel)
                                   AND (ideal = 'judged' OR pos IS NOT NULL)) = 0
         ELSE count(grade) FILTER (WHERE grade >= rel) = 0 END;

-- Per unit (segments..., query): raw metric values at cutoff k with the registry defaults, plus the counts
-- the policies need. Binary metrics use rel; the graded ones (CG, DCG, IDCG, nDCG) use graded_rel (default
-- NULL: every positive grade is a gain).
CREATE OR REPLACE MACRO rf__per_query_raw(tbl, k, segments, order_by, rel, graded_rel, gain, ideal, max_grade, p,
                                          p_denominator, r_denominator, ap_denominator) AS TABLE
    SELECT COLUMNS(lambda c: list_contains(CAST(segments AS VARCHAR[]), c) OR c = 'query'),
           count(x.rf_g) AS rf__n_judged,
           rf_agg_n_retrieved(x.rf_pos, order_by := order_by) AS rf__n_ret,
           rf_agg_nothing_relevant(x.rf_pos, x.rf_g, rel := rel) AS rf__none_rel,
           rf_agg_nothing_relevant(x.rf_pos, x.rf_g, rel := graded_rel, graded := true, ideal := ideal) AS rf__none_gain,
           rf_agg_nothing_relevant(x.rf_pos, x.rf_g, rel := NULL, graded := true, ideal := ideal) AS rf__none_err,
           rf_agg_precision(x.rf_pos, x.rf_g, k := k, rel := rel, denominator := p_denominator) AS "P",
           rf_agg_recall(x.rf_pos, x.rf_g, k := k, rel := rel, denominator := r_denominator) AS "R",
           rf_agg_ap(x.rf_pos, x.rf_g, k := k, rel := rel, denominator := ap_denominator) AS "AP",
           rf_agg_rr(x.rf_pos, x.rf_g, k := k, rel := rel) AS "RR",
           rf_agg_cg(x.rf_pos, x.rf_g, k := k, rel := graded_rel, gain := gain) AS "CG",
           rf_agg_dcg(x.rf_pos, x.rf_g, k := k, rel := graded_rel, gain := gain) AS "DCG",
           rf_agg_idcg(x.rf_pos, x.rf_g, k := k, rel := graded_rel, gain := gain, ideal := ideal) AS "IDCG",
           rf_agg_ndcg(x.rf_pos, x.rf_g, k := k, rel := graded_rel, gain := gain, ideal := ideal) AS "nDCG",
           rf_agg_err(x.rf_pos, x.rf_g, k := k, max_grade := max_grade) AS "ERR",
           rf_agg_nerr(x.rf_pos, x.rf_g, k := k, max_grade := max_grade, ideal := ideal) AS "nERR",
           rf_agg_r_precision(x.rf_pos, x.rf_g, rel := rel) AS "Rprec",
           rf_agg_hit_rate(x.rf_pos, x.rf_g, k := k, rel := rel) AS "Success",
           rf_agg_f1(x.rf_pos, x.rf_g, k := k, rel := rel) AS "F1",
           rf_agg_bpref(x.rf_pos, x.rf_g, rel := rel) AS "Bpref",
           rf_agg_rbp(x.rf_pos, x.rf_g, k := k, rel := rel, p := p) AS "RBP",
           rf_agg_judged(x.rf_pos, x.rf_g, k := k) AS "Judged"
    FROM rf_prepare(tbl, segments := segments, order_by := order_by) AS x
    GROUP BY ALL;

-- rf_per_query(tbl, k := NULL, ...): one row per unit (segments..., query) with the columns
-- P R AP RR CG DCG IDCG nDCG ERR nERR Rprec Success F1 Bpref RBP Judged at cutoff k (k NULL = whole list;
-- Rprec and Bpref have no cutoff). Skipped queries are absent; no_relevant := 'skip' leaves NULL in the
-- columns of the metrics that need relevant items (R AP nDCG nERR Rprec F1 Bpref).
-- DuckDB computes only the columns you select.
CREATE OR REPLACE MACRO rf_per_query(tbl, k := NULL, segments := [], order_by := 'rank', rel := 1,
                                     graded_rel := NULL, gain := 'linear', ideal := 'judged', max_grade := 4,
                                     p := 0.8, p_denominator := 'k', r_denominator := 'relevant',
                                     ap_denominator := 'relevant', no_relevant := 'zero',
                                     no_retrieved := 'zero', no_judged := 'skip') AS TABLE
    SELECT COLUMNS(lambda c: list_contains(CAST(segments AS VARCHAR[]), c) OR c = 'query'),
           rf__apply_policy(r."P", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "P",
           rf__apply_policy(r."R", r.rf__n_judged, r.rf__n_ret, r.rf__none_rel, no_relevant, no_retrieved, no_judged) AS "R",
           rf__apply_policy(r."AP", r.rf__n_judged, r.rf__n_ret, r.rf__none_rel, no_relevant, no_retrieved, no_judged) AS "AP",
           rf__apply_policy(r."RR", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "RR",
           rf__apply_policy(r."CG", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "CG",
           rf__apply_policy(r."DCG", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "DCG",
           rf__apply_policy(r."IDCG", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "IDCG",
           rf__apply_policy(r."nDCG", r.rf__n_judged, r.rf__n_ret, r.rf__none_gain, no_relevant, no_retrieved, no_judged) AS "nDCG",
           rf__apply_policy(r."ERR", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "ERR",
           rf__apply_policy(r."nERR", r.rf__n_judged, r.rf__n_ret, r.rf__none_err, no_relevant, no_retrieved, no_judged) AS "nERR",
           rf__apply_policy(r."Rprec", r.rf__n_judged, r.rf__n_ret, r.rf__none_rel, no_relevant, no_retrieved, no_judged) AS "Rprec",
           rf__apply_policy(r."Success", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "Success",
           rf__apply_policy(r."F1", r.rf__n_judged, r.rf__n_ret, r.rf__none_rel, no_relevant, no_retrieved, no_judged) AS "F1",
           rf__apply_policy(r."Bpref", r.rf__n_judged, r.rf__n_ret, r.rf__none_rel, no_relevant, no_retrieved, no_judged) AS "Bpref",
           rf__apply_policy(r."RBP", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "RBP",
           rf__apply_policy(r."Judged", r.rf__n_judged, r.rf__n_ret, false, no_relevant, no_retrieved, no_judged) AS "Judged"
    FROM rf__per_query_raw(tbl, rf__k(k, 'rf_per_query'), segments, order_by, rel, graded_rel, gain, ideal,
                           max_grade, p, p_denominator, r_denominator, ap_denominator) AS r
    WHERE NOT (r.rf__n_judged = 0 AND rf__policy_choice(no_judged, 'no_judged') = 'skip')
      AND NOT (r.rf__n_judged > 0 AND r.rf__n_ret = 0 AND rf__policy_choice(no_retrieved, 'no_retrieved') = 'skip')
      AND rf__policy_choice(no_relevant, 'no_relevant') IS NOT NULL;

-- mean that leaves out NULL (skipped) and NaN (policy 'nan') values, NaN when nothing is left
CREATE OR REPLACE MACRO rf_mean(v) AS
    coalesce(avg(CASE WHEN isnan(v) THEN NULL ELSE v END), CAST('NaN' AS DOUBLE));

-- rf_means(tbl, ...): one row per segment (one row in all with segments := []) with n_queries (units kept by
-- the policies) and the mean of every metric of rf_per_query over the segment's queries.
CREATE OR REPLACE MACRO rf_means(tbl, k := NULL, segments := [], order_by := 'rank', rel := 1,
                                 graded_rel := NULL, gain := 'linear', ideal := 'judged', max_grade := 4,
                                 p := 0.8, p_denominator := 'k', r_denominator := 'relevant',
                                 ap_denominator := 'relevant', no_relevant := 'zero', no_retrieved := 'zero',
                                 no_judged := 'skip') AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               count(*) AS n_queries,
               rf_mean(COLUMNS(lambda c: c IN ('P', 'R', 'AP', 'RR', 'CG', 'DCG', 'IDCG', 'nDCG', 'ERR', 'nERR',
                                               'Rprec', 'Success', 'F1', 'Bpref', 'RBP', 'Judged')))
        FROM (SELECT true AS rf__all, *
              FROM rf_per_query(tbl, k := k, segments := segments, order_by := order_by, rel := rel,
                                graded_rel := graded_rel, gain := gain, ideal := ideal, max_grade := max_grade,
                                p := p, p_denominator := p_denominator, r_denominator := r_denominator,
                                ap_denominator := ap_denominator, no_relevant := no_relevant,
                                no_retrieved := no_retrieved, no_judged := no_judged))
        GROUP BY ALL)
    ORDER BY ALL;
