-- DCG — discounted cumulative gain@k (docs/metrics.md "DCG"): sum_{i<=k} gain(g_i) / log2(i + 1).
CREATE OR REPLACE MACRO rf_dcg(grades, k := NULL, rel := NULL, gain := 'linear') AS
    rf__dcg_list(list_transform(coalesce(grades, []), lambda x: rf__gain(x, rf__relopt(rel, 'rf_dcg'),
                                                           rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_dcg'))),
                 rf__k(k, 'rf_dcg'));

CREATE OR REPLACE MACRO rf_agg_dcg(pos, grade, k := NULL, rel := NULL, gain := 'linear') AS
    coalesce(sum(rf__gain(grade, rf__relopt(rel, 'rf_agg_dcg'),
                          rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_agg_dcg')) / log2(pos + 1))
                 FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_dcg'), 9223372036854775807)),
             CAST(0 AS DOUBLE));
