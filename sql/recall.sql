-- R — recall@k (docs/metrics.md "R"): sum_{i<=k} hit_i / D, D = |R| ('relevant') or min(K, |R|) ('min_k');
-- D = 0 -> 0.
CREATE OR REPLACE MACRO rf__recall(hits, n_rel, n, k, denominator) AS
    CASE WHEN (CASE WHEN denominator = 'relevant' THEN n_rel ELSE least(coalesce(k, n), n_rel) END) = 0
         THEN CAST(0 AS DOUBLE)
         ELSE hits / (CASE WHEN denominator = 'relevant' THEN n_rel ELSE least(coalesce(k, n), n_rel) END) END;

CREATE OR REPLACE MACRO rf__recall_grades(grades, n_rel, k, rel, denominator) AS
    rf__recall(len(rf__hitpos(grades, k, rel)), n_rel, len(grades), k, denominator);

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_recall(grades, n_rel, k := NULL, rel := 1, denominator := 'relevant', judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_recall') < 0
              OR rf__rel(rel, 'rf_recall') IS NULL
              OR rf__choice(denominator, ['relevant', 'min_k'], 'denominator', 'rf_recall') = ''
              OR rf__flag(judged_only, 'judged_only', 'rf_recall') IS NULL
         THEN NULL
         ELSE rf__recall_grades(rf__judged_list(coalesce(grades, []), judged_only), n_rel, rf__as_k(k), rf__as_num(rel), rf__lc(denominator)) END;

CREATE OR REPLACE MACRO rf__agg_recall(pos, grade, k, rel, denominator) AS
    rf__recall(count(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade >= rel),
               count(grade) FILTER (WHERE grade >= rel), count(pos), k, denominator);

CREATE OR REPLACE MACRO rf_agg_recall(pos, grade, k := NULL, rel := 1, denominator := 'relevant') AS
    CASE WHEN rf__k(k, 'rf_agg_recall') < 0
              OR rf__rel(rel, 'rf_agg_recall') IS NULL
              OR rf__choice(denominator, ['relevant', 'min_k'], 'denominator', 'rf_agg_recall') = ''
         THEN NULL
         ELSE rf__agg_recall(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(denominator)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column R order=20 nothing_relevant=relevant
-- rf:value rf__agg_recall(x.rf__jp, x.rf_g, k, rel, r_denominator)
