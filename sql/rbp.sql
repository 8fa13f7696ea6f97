-- RBP — rank-biased precision@k (docs/metrics.md "RBP"): (1 - p) sum_{i<=k} hit_i p^(i-1); binary, no residual.
CREATE OR REPLACE MACRO rf__rbp(hitpos, p) AS
    (1.0 - p) * coalesce(list_sum(list_transform(hitpos, lambda i: pow(p, i - 1))), CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf__rbp_grades(grades, k, rel, p) AS rf__rbp(rf__hitpos(grades, k, rel), p);

CREATE OR REPLACE MACRO rf_rbp(grades, k := NULL, rel := 1, p := 0.8) AS
    CASE WHEN rf__k(k, 'rf_rbp') < 0
              OR rf__rel(rel, 'rf_rbp') IS NULL
              OR rf__p(p, 'rf_rbp') < 0
         THEN NULL
         ELSE rf__rbp_grades(coalesce(grades, []), rf__as_k(k), rf__as_num(rel), rf__as_num(p)) END;

CREATE OR REPLACE MACRO rf__agg_rbp(pos, grade, k, rel, p) AS
    (1.0 - p) * coalesce(rf__xsum(CASE WHEN pos <= coalesce(k, 9223372036854775807) AND grade >= rel THEN pow(p, pos - 1) END),
                         CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf_agg_rbp(pos, grade, k := NULL, rel := 1, p := 0.8) AS
    CASE WHEN rf__k(k, 'rf_agg_rbp') < 0
              OR rf__rel(rel, 'rf_agg_rbp') IS NULL
              OR rf__p(p, 'rf_agg_rbp') < 0
         THEN NULL
         ELSE rf__agg_rbp(pos, grade, rf__as_k(k), rf__as_num(rel), rf__as_num(p)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column RBP order=150 nothing_relevant=none
-- rf:value rf__agg_rbp(x.rf_pos, x.rf_g, k, rel, p)
