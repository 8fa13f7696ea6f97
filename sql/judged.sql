-- Judged@k (docs/metrics.md "Judged"): #{i <= k : g_i not NULL} / min(K, n); 0 when nothing is retrieved.
CREATE OR REPLACE MACRO rf__judged(n_judged_top, n, k) AS
    CASE WHEN least(coalesce(k, n), n) = 0 THEN CAST(0 AS DOUBLE)
         ELSE n_judged_top / least(coalesce(k, n), n) END;

CREATE OR REPLACE MACRO rf_judged(grades, k := NULL) AS
    rf__judged(len(list_filter(list_slice(coalesce(grades, []), 1, coalesce(rf__k(k, 'rf_judged'), len(coalesce(grades, [])))),
                               lambda x: x IS NOT NULL)),
               len(coalesce(grades, [])), rf__k(k, 'rf_judged'));

CREATE OR REPLACE MACRO rf_agg_judged(pos, grade, k := NULL) AS
    rf__judged(count(grade) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_judged'), 9223372036854775807)),
               count(pos), rf__k(k, 'rf_agg_judged'));
