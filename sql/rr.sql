-- RR — reciprocal rank@k (docs/metrics.md "RR"): 1 / first hit position within the top k, 0 if none.
CREATE OR REPLACE MACRO rf__rr(first_hit) AS coalesce(1.0 / CAST(first_hit AS DOUBLE), CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf__rr_grades(grades, k, rel) AS rf__rr(rf__hitpos(grades, k, rel)[1]);

CREATE OR REPLACE MACRO rf_rr(grades, k := NULL, rel := 1, judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_rr') < 0
              OR rf__rel(rel, 'rf_rr') IS NULL
              OR rf__flag(judged_only, 'judged_only', 'rf_rr') IS NULL
         THEN NULL
         ELSE rf__rr_grades(rf__judged_list(coalesce(grades, []), judged_only), rf__as_k(k), rf__as_num(rel)) END;

CREATE OR REPLACE MACRO rf__agg_rr(pos, grade, k, rel) AS
    rf__rr(CASE WHEN rf__mask_ok(k) THEN rf__mask_first(rf__agg_hitmask(pos, grade, k, rel))
                ELSE min(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade >= rel) END);

CREATE OR REPLACE MACRO rf_agg_rr(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_rr') < 0
              OR rf__rel(rel, 'rf_agg_rr') IS NULL
         THEN NULL
         ELSE rf__agg_rr(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column RR order=40 nothing_relevant=none
-- rf:value rf__agg_rr(x.rf__jp, x.rf_g, k, rel)
