-- NumRelRet@k (docs/metrics.md "NumRelRet"): the number of relevant retrieved items in the top k
-- (trec_eval num_rel_ret; the same value as Hits@k, sql/hits.sql).
CREATE OR REPLACE MACRO rf_num_rel_ret(grades, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_num_rel_ret') < 0
              OR rf__rel(rel, 'rf_num_rel_ret') IS NULL
         THEN NULL
         ELSE CAST(len(rf__hitpos(coalesce(grades, []), rf__as_k(k), rf__as_num(rel))) AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__agg_num_rel_ret(pos, grade, k, rel) AS rf__agg_hits(pos, grade, k, rel);

CREATE OR REPLACE MACRO rf_agg_num_rel_ret(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_num_rel_ret') < 0
              OR rf__rel(rel, 'rf_agg_num_rel_ret') IS NULL
         THEN NULL
         ELSE rf__agg_num_rel_ret(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column NumRelRet order=230 nothing_relevant=none count
-- rf:value rf__agg_num_rel_ret(x.rf_pos, x.rf_g, k, rel)
