-- Rprec — R-precision (docs/metrics.md "Rprec"): sum_{i <= |R|} hit_i / |R|, 0 when |R| = 0.
CREATE OR REPLACE MACRO rf_r_precision(grades, n_rel, rel := 1) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE len(rf__hitpos(coalesce(grades, []), n_rel, rf__rel(rel, 'rf_r_precision'))) / n_rel END;

CREATE OR REPLACE MACRO rf_agg_r_precision(pos, grade, rel := 1) AS
    CASE WHEN count(grade) FILTER (WHERE grade >= rf__rel(rel, 'rf_agg_r_precision')) = 0 THEN CAST(0 AS DOUBLE)
         ELSE len(list_filter(coalesce(list(pos) FILTER (WHERE grade >= rf__rel(rel, 'rf_agg_r_precision')), []),
                              lambda p: p <= count(grade) FILTER (WHERE grade >= rf__rel(rel, 'rf_agg_r_precision'))))
              / count(grade) FILTER (WHERE grade >= rf__rel(rel, 'rf_agg_r_precision')) END;
