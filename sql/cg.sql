-- CG — cumulative gain@k (docs/metrics.md "CG"): sum_{i<=k} gain(g_i); gain 'linear' max(g, 0) or
-- 'exponential' 2^max(g, 0) - 1; grades below rel (when set) give no gain; NULL grade -> 0.
CREATE OR REPLACE MACRO rf_cg(grades, k := NULL, rel := NULL, gain := 'linear') AS
    coalesce(list_sum(list_transform(list_slice(coalesce(grades, []), 1, coalesce(rf__k(k, 'rf_cg'), len(coalesce(grades, [])))),
                                     lambda x: rf__gain(x, rf__relopt(rel, 'rf_cg'),
                                                        rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_cg')))),
             CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf_agg_cg(pos, grade, k := NULL, rel := NULL, gain := 'linear') AS
    coalesce(sum(rf__gain(grade, rf__relopt(rel, 'rf_agg_cg'),
                          rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_agg_cg')))
                 FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_cg'), 9223372036854775807)),
             CAST(0 AS DOUBLE));
