-- SetAP — set AP (docs/metrics.md "SetAP", trec_eval set_map): relevant retrieved^2 / (retrieved |R|) = SetP SetR;
-- 0 when nothing is retrieved or |R| = 0.
CREATE OR REPLACE MACRO rf__set_ap(rel_ret, n_ret, n_rel) AS
    CASE WHEN n_ret = 0 OR n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE CAST(rel_ret AS DOUBLE) * rel_ret / (CAST(n_ret AS DOUBLE) * n_rel) END;

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_set_ap(grades, n_rel, rel := 1, judged_only := false) AS
    CASE WHEN rf__rel(rel, 'rf_set_ap') IS NULL
              OR rf__flag(judged_only, 'judged_only', 'rf_set_ap') IS NULL
         THEN NULL
         ELSE rf__set_ap(len(rf__hitpos(rf__judged_list(coalesce(grades, []), judged_only), NULL, rf__as_num(rel))), len(rf__judged_list(coalesce(grades, []), judged_only)),
                         n_rel) END;

CREATE OR REPLACE MACRO rf__agg_set_ap(pos, grade, rel) AS
    rf__set_ap(count(pos) FILTER (WHERE grade >= rel), count(pos), count(grade) FILTER (WHERE grade >= rel));

CREATE OR REPLACE MACRO rf_agg_set_ap(pos, grade, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_agg_set_ap') IS NULL
         THEN NULL
         ELSE rf__agg_set_ap(pos, grade, rf__as_num(rel)) END;
