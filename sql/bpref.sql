-- Bpref (docs/metrics.md "Bpref", trec_eval >= 8.0): N = judged non-relevant rows (0 <= g < rel); each relevant
-- retrieved item with n_i judged non-relevant retrieved above it scores 1 if n_i = 0, else
-- 1 - min(n_i, |R|) / min(|R|, N); Bpref = sum / |R| (0 when |R| = 0). With a cutoff k, the bpref of the list cut
-- at k (trec_eval -M k): only the top k rows count as retrieved; |R| and N still count every judgment.
-- O(n log n), no pairwise comparison: in the list of the judged retrieved rows in rank order (relevant or judged
-- non-relevant), the j-th relevant row at index v has exactly v - j judged non-relevant rows above it.
CREATE OR REPLACE MACRO rf__bpref_term(n_above, n_rel, n_nonrel) AS
    CASE WHEN n_above = 0 THEN CAST(1 AS DOUBLE)
         ELSE 1.0 - least(n_above, n_rel) / least(n_rel, n_nonrel) END;

-- the sum of the terms from the is-relevant flags of the judged retrieved rows in rank order
CREATE OR REPLACE MACRO rf__bpref_sum(flags, n_rel, n_nonrel) AS
    coalesce(list_sum(list_transform(
        list_filter(list_transform(flags, lambda f, v: CASE WHEN f THEN v END), lambda v: v IS NOT NULL),
        lambda v, j: rf__bpref_term(v - j, n_rel, n_nonrel))), CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO rf__bpref_grades(grades, n_rel, n_nonrel, rel) AS
    CASE WHEN n_rel = 0 THEN CAST(0 AS DOUBLE)
         ELSE rf__bpref_sum(list_transform(list_filter(grades, lambda y: y >= rel OR (y >= 0 AND y < rel)),
                                           lambda y: y >= rel),
                            n_rel, n_nonrel) / n_rel END;

-- n_rel: judged rows with grade >= rel; n_nonrel: judged rows with 0 <= grade < rel (retrieved or not)
CREATE OR REPLACE MACRO rf_bpref(grades, n_rel, n_nonrel, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_bpref') < 0
              OR rf__rel(rel, 'rf_bpref') IS NULL
         THEN NULL
         ELSE rf__bpref_grades(list_slice(coalesce(grades, []), 1, coalesce(rf__as_k(k), 9223372036854775807)),
                               n_rel, n_nonrel, rf__as_num(rel)) END;

CREATE OR REPLACE MACRO rf__agg_bpref(pos, grade, k, rel) AS
    CASE WHEN count(grade) FILTER (WHERE grade >= rel) = 0 THEN CAST(0 AS DOUBLE)
         ELSE rf__bpref_sum(list_transform(
                  coalesce(list_sort(list({'p': pos, 'r': grade >= rel})
                                     FILTER (WHERE pos <= coalesce(k, 9223372036854775807)
                                             AND (grade >= rel OR (grade >= 0 AND grade < rel)))),
                           []),
                  lambda x: x.r),
              count(grade) FILTER (WHERE grade >= rel),
              count(grade) FILTER (WHERE grade >= 0 AND grade < rel))
              / count(grade) FILTER (WHERE grade >= rel) END;

CREATE OR REPLACE MACRO rf_agg_bpref(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_bpref') < 0
              OR rf__rel(rel, 'rf_agg_bpref') IS NULL
         THEN NULL
         ELSE rf__agg_bpref(pos, grade, rf__as_k(k), rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column Bpref order=140 nothing_relevant=relevant
-- rf:value rf__agg_bpref(x.rf_pos, x.rf_g, k, rel)
