-- RR — reciprocal rank@k (docs/metrics.md "RR"): 1 / first hit position within the top k, 0 if none.
CREATE OR REPLACE MACRO rf__rr(first_hit) AS coalesce(1.0 / CAST(first_hit AS DOUBLE), CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf_rr(grades, k := NULL, rel := 1) AS
    rf__rr(rf__hitpos(coalesce(grades, []), rf__k(k, 'rf_rr'), rf__rel(rel, 'rf_rr'))[1]);

CREATE OR REPLACE MACRO rf_agg_rr(pos, grade, k := NULL, rel := 1) AS
    rf__rr(min(pos) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_rr'), 9223372036854775807)
                            AND grade >= rf__rel(rel, 'rf_agg_rr')));
