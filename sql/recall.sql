-- R — recall@k (docs/metrics.md "R"): sum_{i<=k} hit_i / D, D = |R| ('relevant') or min(K, |R|) ('min_k');
-- D = 0 -> 0.
CREATE OR REPLACE MACRO rf__recall(hits, n_rel, n, k, denominator) AS
    CASE WHEN (CASE WHEN denominator = 'relevant' THEN n_rel ELSE least(coalesce(k, n), n_rel) END) = 0
         THEN CAST(0 AS DOUBLE)
         ELSE hits / (CASE WHEN denominator = 'relevant' THEN n_rel ELSE least(coalesce(k, n), n_rel) END) END;

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_recall(grades, n_rel, k := NULL, rel := 1, denominator := 'relevant') AS
    rf__recall(len(rf__hitpos(coalesce(grades, []), rf__k(k, 'rf_recall'), rf__rel(rel, 'rf_recall'))), n_rel, len(coalesce(grades, [])),
               rf__k(k, 'rf_recall'),
               rf__choice(denominator, ['relevant', 'min_k'], 'denominator', 'rf_recall'));

CREATE OR REPLACE MACRO rf_agg_recall(pos, grade, k := NULL, rel := 1, denominator := 'relevant') AS
    rf__recall(count(pos) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_recall'), 9223372036854775807)
                                  AND grade >= rf__rel(rel, 'rf_agg_recall')),
               count(grade) FILTER (WHERE grade >= rf__rel(rel, 'rf_agg_recall')),
               count(pos), rf__k(k, 'rf_agg_recall'),
               rf__choice(denominator, ['relevant', 'min_k'], 'denominator', 'rf_agg_recall'));
