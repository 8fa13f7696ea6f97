-- Success — hit rate@k (docs/metrics.md "Success"): 1 if a relevant item is in the top k, else 0.
CREATE OR REPLACE MACRO rf__hit_rate_grades(grades, k, rel) AS
    CASE WHEN len(rf__hitpos(grades, k, rel)) > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO rf_hit_rate(grades, k := NULL, rel := 1, judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_hit_rate') < 0
              OR rf__rel(rel, 'rf_hit_rate') IS NULL
              OR rf__flag(judged_only, 'judged_only', 'rf_hit_rate') IS NULL
         THEN NULL
         ELSE rf__hit_rate_grades(rf__judged_list(coalesce(grades, []), judged_only), rf__as_k(k), rf__as_num(rel)) END;

CREATE OR REPLACE MACRO rf__agg_hit_rate(pos, grade, k, rel) AS
    CASE WHEN count(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade >= rel) > 0
         THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO rf_agg_hit_rate(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_hit_rate') < 0
              OR rf__rel(rel, 'rf_agg_hit_rate') IS NULL
         THEN NULL
         ELSE rf__agg_hit_rate(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column Success order=120 nothing_relevant=none
-- rf:value rf__agg_hit_rate(x.rf__jp, x.rf_g, k, rel)
