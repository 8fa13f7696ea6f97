-- Rprec — R-precision (docs/metrics.md "Rprec"): sum_{i <= |R|} hit_i / |R|, 0 when |R| = 0; with a cutoff k, of
-- the list cut at k (trec_eval -M k): sum_{i <= min(|R|, k)} hit_i / |R|.
CREATE OR REPLACE MACRO rf__r_precision_grades(grades, n_rel, k, rel) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE len(rf__hitpos(grades, least(n_rel, coalesce(k, n_rel)), rel)) / n_rel END;

CREATE OR REPLACE MACRO rf_r_precision(grades, n_rel, k := NULL, rel := 1, judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_r_precision') < 0
              OR rf__rel(rel, 'rf_r_precision') IS NULL
              OR rf__flag(judged_only, 'judged_only', 'rf_r_precision') IS NULL
         THEN NULL
         ELSE rf__r_precision_grades(rf__judged_list(coalesce(grades, []), judged_only), n_rel, rf__as_k(k), rf__as_num(rel)) END;

-- |R| = n_rel; the hits are the relevant rows with a position <= min(|R|, k)
CREATE OR REPLACE MACRO rf__r_precision(hit_positions, n_rel, k) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE len(list_filter(coalesce(hit_positions, []), lambda p: p <= least(n_rel, coalesce(k, n_rel)))) / n_rel END;

CREATE OR REPLACE MACRO rf__agg_r_precision(pos, grade, k, rel) AS
    rf__r_precision(list(pos ORDER BY pos) FILTER (WHERE grade >= rel), count(grade) FILTER (WHERE grade >= rel), k);

CREATE OR REPLACE MACRO rf_agg_r_precision(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_r_precision') < 0
              OR rf__rel(rel, 'rf_agg_r_precision') IS NULL
         THEN NULL
         ELSE rf__agg_r_precision(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column Rprec order=110 nothing_relevant=relevant
-- rf:value rf__agg_r_precision(x.rf__jp, x.rf_g, k, rel)
