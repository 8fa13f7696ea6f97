-- Rprec — R-precision (docs/metrics.md "Rprec"): sum_{i <= |R|} hit_i / |R|, 0 when |R| = 0.
CREATE OR REPLACE MACRO rf__r_precision_grades(grades, n_rel, rel) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE) ELSE len(rf__hitpos(grades, n_rel, rel)) / n_rel END;

CREATE OR REPLACE MACRO rf_r_precision(grades, n_rel, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_r_precision') IS NULL
         THEN NULL
         ELSE rf__r_precision_grades(coalesce(grades, []), n_rel, rf__as_num(rel)) END;

-- |R| = n_rel; the hits are the relevant rows with a position <= |R|
CREATE OR REPLACE MACRO rf__r_precision(hit_positions, n_rel) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE len(list_filter(coalesce(hit_positions, []), lambda p: p <= n_rel)) / n_rel END;

CREATE OR REPLACE MACRO rf__agg_r_precision(pos, grade, rel) AS
    rf__r_precision(list(pos) FILTER (WHERE grade >= rel), count(grade) FILTER (WHERE grade >= rel));

CREATE OR REPLACE MACRO rf_agg_r_precision(pos, grade, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_agg_r_precision') IS NULL
         THEN NULL
         ELSE rf__agg_r_precision(pos, grade, rf__as_num(rel)) END;
