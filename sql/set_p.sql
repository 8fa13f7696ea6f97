-- SetP — set precision (docs/metrics.md "SetP", trec_eval set_P): relevant retrieved / retrieved over the whole
-- list; 0 when nothing is retrieved.
CREATE OR REPLACE MACRO rf__set_p(rel_ret, n_ret) AS
    CASE WHEN n_ret = 0 THEN CAST(0 AS DOUBLE) ELSE rel_ret / n_ret END;

CREATE OR REPLACE MACRO rf_set_p(grades, rel := 1, judged_only := false) AS
    CASE WHEN rf__rel(rel, 'rf_set_p') IS NULL
              OR rf__flag(judged_only, 'judged_only', 'rf_set_p') IS NULL
         THEN NULL
         ELSE rf__set_p(len(rf__hitpos(rf__judged_list(coalesce(grades, []), judged_only), NULL, rf__as_num(rel))), len(rf__judged_list(coalesce(grades, []), judged_only))) END;

CREATE OR REPLACE MACRO rf__agg_set_p(pos, grade, rel) AS
    rf__set_p(count(pos) FILTER (WHERE grade >= rel), count(pos));

CREATE OR REPLACE MACRO rf_agg_set_p(pos, grade, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_agg_set_p') IS NULL
         THEN NULL
         ELSE rf__agg_set_p(pos, grade, rf__as_num(rel)) END;
