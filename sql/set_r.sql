-- SetR — set recall (docs/metrics.md "SetR", trec_eval set_recall): relevant retrieved / |R| over the whole
-- list; 0 when |R| = 0.
CREATE OR REPLACE MACRO rf__set_r(rel_ret, n_rel) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE) ELSE rel_ret / n_rel END;

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_set_r(grades, n_rel, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_set_r') IS NULL
         THEN NULL
         ELSE rf__set_r(len(rf__hitpos(coalesce(grades, []), NULL, rf__as_num(rel))), n_rel) END;

CREATE OR REPLACE MACRO rf__agg_set_r(pos, grade, rel) AS
    rf__set_r(count(pos) FILTER (WHERE grade >= rel), count(grade) FILTER (WHERE grade >= rel));

CREATE OR REPLACE MACRO rf_agg_set_r(pos, grade, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_agg_set_r') IS NULL
         THEN NULL
         ELSE rf__agg_set_r(pos, grade, rf__as_num(rel)) END;
