-- infAP — inferred AP (docs/metrics.md "infAP", trec_eval infAP): a retrieved row is unjudged (NULL grade: not in
-- the pool, skipped), pooled but not judged (a negative grade), judged non-relevant (0 <= g < rel) or relevant
-- (g >= rel). The relevant row at position i with r relevant, n non-relevant and u pooled-unjudged rows above it
-- adds 1 when i = 1, else 1/i + ((i-1)/i) ((r+n+u)/(i-1)) ((r+eps)/(r+n+2 eps)), eps = 1e-5; infAP = sum / |R|.
CREATE OR REPLACE MACRO rf__infap_term(i, r, n, u) AS
    CASE WHEN i = 1 THEN CAST(1 AS DOUBLE)
         ELSE 1.0 / i + ((i - 1.0) / i) * ((r + n + u) / (i - 1.0))
                        * ((r + 0.00001) / (r + n + 2 * 0.00001)) END;

-- from the ascending positions of the relevant, judged non-relevant and pooled-unjudged retrieved rows and |R|
CREATE OR REPLACE MACRO rf__infap(rel_pos, nonrel_pos, pooled_pos, n_rel) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE coalesce(list_sum(list_transform(coalesce(rel_pos, []),
                  lambda p, j: rf__infap_term(CAST(p AS DOUBLE), j - 1.0,
                                              len(list_filter(coalesce(nonrel_pos, []), lambda x: x < p)),
                                              len(list_filter(coalesce(pooled_pos, []), lambda x: x < p))))),
                       CAST(0 AS DOUBLE)) / n_rel END;

CREATE OR REPLACE MACRO rf__infap_grades(grades, n_rel, rel) AS
    rf__infap(rf__hitpos(grades, NULL, rel),
              list_filter(list_transform(grades, lambda x, i: CASE WHEN x >= 0 AND x < rel THEN i END),
                          lambda i: i IS NOT NULL),
              list_filter(list_transform(grades, lambda x, i: CASE WHEN x < 0 THEN i END), lambda i: i IS NOT NULL),
              n_rel);

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_infap(grades, n_rel, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_infap') IS NULL
         THEN NULL
         ELSE rf__infap_grades(coalesce(grades, []), n_rel, rf__as_num(rel)) END;

CREATE OR REPLACE MACRO rf__agg_infap(pos, grade, rel) AS
    rf__infap(list_sort(list(pos) FILTER (WHERE pos IS NOT NULL AND grade >= rel)),
              list(pos ORDER BY pos) FILTER (WHERE pos IS NOT NULL AND grade >= 0 AND grade < rel),
              list(pos ORDER BY pos) FILTER (WHERE pos IS NOT NULL AND grade < 0),
              count(grade) FILTER (WHERE grade >= rel));

CREATE OR REPLACE MACRO rf_agg_infap(pos, grade, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_agg_infap') IS NULL
         THEN NULL
         ELSE rf__agg_infap(pos, grade, rf__as_num(rel)) END;
