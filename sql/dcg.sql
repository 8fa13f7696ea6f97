-- DCG — discounted cumulative gain@k (docs/metrics.md "DCG"): sum_{i<=k} gain(g_i) / log2(i + 1).
-- An infinite sum (exponential gains of grades near 1023) is an error (rf__finite_gain).
CREATE OR REPLACE MACRO rf__dcg_grades(grades, k, rel, gain) AS
    rf__finite_gain(rf__dcg_list(list_transform(grades, lambda x: rf__gain(x, rel, gain)), k), list_max(grades));

CREATE OR REPLACE MACRO rf_dcg(grades, k := NULL, rel := NULL, gain := 'linear') AS
    CASE WHEN rf__k(k, 'rf_dcg') < 0
              OR isnan(rf__relopt(rel, 'rf_dcg'))
              OR rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_dcg') = ''
         THEN NULL
         ELSE rf__dcg_grades(coalesce(grades, []), rf__as_k(k), rf__as_num(rel), rf__lc(gain)) END;

CREATE OR REPLACE MACRO rf__agg_dcg(pos, grade, k, rel, gain) AS
    rf__finite_gain(coalesce(sum(rf__gain(grade, rel, gain) / log2(pos + 1))
                                 FILTER (WHERE pos <= coalesce(k, 9223372036854775807)), CAST(0 AS DOUBLE)),
                    max(grade));

CREATE OR REPLACE MACRO rf_agg_dcg(pos, grade, k := NULL, rel := NULL, gain := 'linear') AS
    CASE WHEN rf__k(k, 'rf_agg_dcg') < 0
              OR isnan(rf__relopt(rel, 'rf_agg_dcg'))
              OR rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_agg_dcg') = ''
         THEN NULL
         ELSE rf__agg_dcg(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(gain)) END;
