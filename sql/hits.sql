-- Hits@k (docs/metrics.md "Hits"): the number of relevant items in the top k (ranx hits@k; a count, not Success).
CREATE OR REPLACE MACRO rf_hits(grades, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_hits') < 0
              OR rf__rel(rel, 'rf_hits') IS NULL
         THEN NULL
         ELSE CAST(len(rf__hitpos(coalesce(grades, []), rf__as_k(k), rf__as_num(rel))) AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__agg_hits(pos, grade, k, rel) AS
    CAST(count(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade >= rel) AS DOUBLE);

CREATE OR REPLACE MACRO rf_agg_hits(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_hits') < 0
              OR rf__rel(rel, 'rf_agg_hits') IS NULL
         THEN NULL
         ELSE rf__agg_hits(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column Hits order=170 nothing_relevant=none
-- rf:value rf__agg_hits(x.rf_pos, x.rf_g, k, rel)
