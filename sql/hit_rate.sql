-- Success — hit rate@k (docs/metrics.md "Success"): 1 if a relevant item is in the top k, else 0.
CREATE OR REPLACE MACRO rf_hit_rate(grades, k := NULL, rel := 1) AS
    CASE WHEN len(rf__hitpos(coalesce(grades, []), rf__k(k, 'rf_hit_rate'), rf__rel(rel, 'rf_hit_rate'))) > 0
         THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO rf_agg_hit_rate(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN count(pos) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_hit_rate'), 9223372036854775807)
                                 AND grade >= rf__rel(rel, 'rf_agg_hit_rate')) > 0
         THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END;
