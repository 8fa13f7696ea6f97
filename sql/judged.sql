-- Judged@k (docs/metrics.md "Judged"): #{i <= k : g_i not NULL} / min(K, n); 0 when nothing is retrieved.
CREATE OR REPLACE MACRO rf__judged(n_judged_top, n, k) AS
    CASE WHEN least(coalesce(k, n), n) = 0 THEN CAST(0 AS DOUBLE)
         ELSE n_judged_top / least(coalesce(k, n), n) END;

CREATE OR REPLACE MACRO rf__judged_grades(grades, k) AS
    rf__judged(len(list_filter(list_slice(grades, 1, coalesce(k, len(grades))), lambda x: x IS NOT NULL)),
               len(grades), k);

CREATE OR REPLACE MACRO rf_judged(grades, k := NULL) AS
    CASE WHEN rf__k(k, 'rf_judged') < 0
         THEN NULL
         ELSE rf__judged_grades(coalesce(grades, []), rf__as_k(k)) END;

CREATE OR REPLACE MACRO rf__agg_judged(pos, grade, k) AS
    rf__judged(count(grade) FILTER (WHERE pos <= coalesce(k, 9223372036854775807)), count(pos), k);

CREATE OR REPLACE MACRO rf_agg_judged(pos, grade, k := NULL) AS
    CASE WHEN rf__k(k, 'rf_agg_judged') < 0
         THEN NULL
         ELSE rf__agg_judged(pos, grade, rf__as_k(k)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column Judged order=160 nothing_relevant=none better=none
-- rf:value rf__agg_judged(x.rf_pos, x.rf_g, k)
