-- P — precision@k (docs/metrics.md "P"): sum_{i<=k} hit_i / D, D = K (denominator 'k') or min(K, n)
-- ('retrieved'); k NULL divides by n; nothing retrieved -> 0.
CREATE OR REPLACE MACRO rf__precision(hits, n, k, denominator) AS
    CASE WHEN n = 0 THEN CAST(0 AS DOUBLE)
         WHEN k IS NULL THEN hits / n
         WHEN denominator = 'k' THEN hits / k
         ELSE hits / least(k, n) END;

-- grades: relevance grades of the ranked list in rank order (NULL = unjudged)
CREATE OR REPLACE MACRO rf_precision(grades, k := NULL, rel := 1, denominator := 'k') AS
    rf__precision(len(rf__hitpos(coalesce(grades, []), rf__k(k, 'rf_precision'), rf__rel(rel, 'rf_precision'))),
                  len(coalesce(grades, [])), rf__k(k, 'rf_precision'),
                  rf__choice(denominator, ['k', 'retrieved'], 'denominator', 'rf_precision'));

-- pos: position in the ranked list (NULL = not retrieved), grade: relevance (NULL = unjudged)
CREATE OR REPLACE MACRO rf_agg_precision(pos, grade, k := NULL, rel := 1, denominator := 'k') AS
    rf__precision(count(pos) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_precision'), 9223372036854775807)
                                     AND grade >= rf__rel(rel, 'rf_agg_precision')),
                  count(pos), rf__k(k, 'rf_agg_precision'),
                  rf__choice(denominator, ['k', 'retrieved'], 'denominator', 'rf_agg_precision'));
