-- RBP — rank-biased precision@k (docs/metrics.md "RBP"): (1 - p) sum_{i<=k} hit_i p^(i-1); binary, no residual.
CREATE OR REPLACE MACRO rf__rbp(hitpos, p) AS
    (1.0 - p) * coalesce(list_sum(list_transform(hitpos, lambda i: pow(p, i - 1))), CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf_rbp(grades, k := NULL, rel := 1, p := 0.8) AS
    rf__rbp(rf__hitpos(coalesce(grades, []), rf__k(k, 'rf_rbp'), rf__rel(rel, 'rf_rbp')), rf__p(p, 'rf_rbp'));

CREATE OR REPLACE MACRO rf_agg_rbp(pos, grade, k := NULL, rel := 1, p := 0.8) AS
    (1.0 - rf__p(p, 'rf_agg_rbp'))
    * coalesce(sum(pow(rf__p(p, 'rf_agg_rbp'), pos - 1))
                   FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_rbp'), 9223372036854775807)
                           AND grade >= rf__rel(rel, 'rf_agg_rbp')), CAST(0 AS DOUBLE));
