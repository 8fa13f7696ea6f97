-- NumRet@k (docs/metrics.md "NumRet"): the number of retrieved items, at most k (trec_eval num_ret).
CREATE OR REPLACE MACRO rf_num_ret(grades, k := NULL) AS
    CASE WHEN rf__k(k, 'rf_num_ret') < 0
         THEN NULL
         ELSE CAST(least(len(coalesce(grades, [])), coalesce(rf__as_k(k), 9223372036854775807)) AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__agg_num_ret(pos, grade, k) AS
    CAST(count(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807)) AS DOUBLE);

CREATE OR REPLACE MACRO rf_agg_num_ret(pos, grade, k := NULL) AS
    CASE WHEN rf__k(k, 'rf_agg_num_ret') < 0
         THEN NULL
         ELSE rf__agg_num_ret(pos, grade, rf__as_k(k)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column NumRet order=210 nothing_relevant=none better=none count
-- rf:value rf__agg_num_ret(x.rf_pos, x.rf_g, k)
