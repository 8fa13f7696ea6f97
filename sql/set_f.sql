-- SetF — set F (docs/metrics.md "SetF", trec_eval set_F): (beta + 1) P R / (beta P + R) with P = SetP, R = SetR
-- (beta: trec_eval's and ir_measures' weight of recall; the textbook F_b is beta = b^2); 0 when the denominator is 0.
-- (rf__beta and rf__f_beta: f1.sql)

CREATE OR REPLACE MACRO rf__set_f(rel_ret, n_ret, n_rel, beta) AS
    rf__f_beta(rf__set_p(rel_ret, n_ret), rf__set_r(rel_ret, n_rel), beta);

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_set_f(grades, n_rel, rel := 1, beta := 1.0, judged_only := false) AS
    CASE WHEN rf__rel(rel, 'rf_set_f') IS NULL
              OR rf__beta(beta, 'rf_set_f') < 0
              OR rf__flag(judged_only, 'judged_only', 'rf_set_f') IS NULL
         THEN NULL
         ELSE rf__set_f(len(rf__hitpos(rf__judged_list(coalesce(grades, []), judged_only), NULL, rf__as_num(rel))), len(rf__judged_list(coalesce(grades, []), judged_only)),
                        n_rel, rf__as_num(beta)) END;

CREATE OR REPLACE MACRO rf__agg_set_f(pos, grade, rel, beta) AS
    rf__set_f(count(pos) FILTER (WHERE grade >= rel), count(pos), count(grade) FILTER (WHERE grade >= rel), beta);

CREATE OR REPLACE MACRO rf_agg_set_f(pos, grade, rel := 1, beta := 1.0) AS
    CASE WHEN rf__rel(rel, 'rf_agg_set_f') IS NULL
              OR rf__beta(beta, 'rf_agg_set_f') < 0
         THEN NULL
         ELSE rf__agg_set_f(pos, grade, rf__as_num(rel), rf__as_num(beta)) END;
