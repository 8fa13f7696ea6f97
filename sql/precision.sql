-- P — precision@k (docs/metrics.md "P"): sum_{i<=k} hit_i / D, D = K (denominator 'k') or min(K, n)
-- ('retrieved'); k NULL divides by n; nothing retrieved -> 0.
-- Pattern of every metric file: the public macros (rf_<name>, rf_agg_<name>) check each parameter once (every
-- check is evaluated, whatever the other values: a bad denominator is an error even when k is NULL) and call
-- the unchecked internals (rf__<name>_grades, rf__agg_<name>), which the table macros use with values they
-- checked themselves.
CREATE OR REPLACE MACRO rf__precision(hits, n, k, denominator) AS
    CASE WHEN n = 0 THEN CAST(0 AS DOUBLE)
         WHEN k IS NULL THEN hits / n
         WHEN denominator = 'k' THEN hits / k
         ELSE hits / least(k, n) END;

CREATE OR REPLACE MACRO rf__precision_grades(grades, k, rel, denominator) AS
    rf__precision(len(rf__hitpos(grades, k, rel)), len(grades), k, denominator);

-- grades: relevance grades of the ranked list in rank order (NULL = unjudged)
CREATE OR REPLACE MACRO rf_precision(grades, k := NULL, rel := 1, denominator := 'k', judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_precision') < 0
              OR rf__rel(rel, 'rf_precision') IS NULL
              OR rf__choice(denominator, ['k', 'retrieved'], 'denominator', 'rf_precision') = ''
              OR rf__flag(judged_only, 'judged_only', 'rf_precision') IS NULL
         THEN NULL
         ELSE rf__precision_grades(rf__judged_list(coalesce(grades, []), judged_only), rf__as_k(k), rf__as_num(rel), rf__lc(denominator)) END;

CREATE OR REPLACE MACRO rf__agg_precision(pos, grade, k, rel, denominator) AS
    rf__precision(CASE WHEN rf__mask_ok(k) THEN rf__mask_count(rf__agg_hitmask(pos, grade, k, rel))
                       ELSE count(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade >= rel) END,
                  count(pos), k, denominator);

-- pos: position in the ranked list (NULL = not retrieved), grade: relevance (NULL = unjudged)
CREATE OR REPLACE MACRO rf_agg_precision(pos, grade, k := NULL, rel := 1, denominator := 'k') AS
    CASE WHEN rf__k(k, 'rf_agg_precision') < 0
              OR rf__rel(rel, 'rf_agg_precision') IS NULL
              OR rf__choice(denominator, ['k', 'retrieved'], 'denominator', 'rf_agg_precision') = ''
         THEN NULL
         ELSE rf__agg_precision(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(denominator)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column P order=10 nothing_relevant=none
-- rf:value rf__agg_precision(x.rf__jp, x.rf_g, k, rel, p_denominator)
