-- nERR — ERR@k / ERR@k of the ideal ordering (docs/metrics.md "nERR"); the ideal list is made of the judged
-- rows ('judged') or the retrieved rows ('retrieved'), sorted by grade descending; 0 when the ideal is 0.
-- A grade above max_grade in the top k or in the ideal candidates is an error.
CREATE OR REPLACE MACRO rf_nerr(grades, judged_grades, k := NULL, max_grade := 4, ideal := 'judged') AS
    CASE WHEN rf__check_max_grade(greatest(list_max(list_slice(coalesce(grades, []), 1, coalesce(rf__k(k, 'rf_nerr'), len(coalesce(grades, []))))),
                                           list_max(CASE WHEN rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_nerr') = 'judged'
                                                         THEN coalesce(judged_grades, []) ELSE coalesce(grades, []) END)),
                                  rf__max_grade(max_grade, 'rf_nerr'))
         THEN rf__ratio(
             rf__err_grades(coalesce(grades, []), rf__k(k, 'rf_nerr'), rf__max_grade(max_grade, 'rf_nerr')),
             rf__err_pr(list_sort(list_transform(
                            list_filter(CASE WHEN rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_nerr') = 'judged'
                                             THEN coalesce(judged_grades, []) ELSE coalesce(grades, []) END, lambda x: x > 0),
                            lambda x: rf__pr(x, rf__max_grade(max_grade, 'rf_nerr'))), 'DESC'),
                        rf__k(k, 'rf_nerr'))) END;

CREATE OR REPLACE MACRO rf_agg_nerr(pos, grade, k := NULL, max_grade := 4, ideal := 'judged') AS
    CASE WHEN rf__check_max_grade(max(grade) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_nerr'), 9223372036854775807)
                                                     OR rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_agg_nerr') = 'judged'
                                                     OR pos IS NOT NULL),
                                  rf__max_grade(max_grade, 'rf_agg_nerr'))
         THEN rf__ratio(
             rf__agg_err(pos, grade, rf__k(k, 'rf_agg_nerr'), rf__max_grade(max_grade, 'rf_agg_nerr')),
             rf__err_pr(list_sort(coalesce(list(rf__pr(grade, rf__max_grade(max_grade, 'rf_agg_nerr')))
                                      FILTER (WHERE grade > 0 AND (rf__choice(ideal, ['judged', 'retrieved'], 'ideal',
                                                                              'rf_agg_nerr') = 'judged'
                                                                   OR pos IS NOT NULL)), []), 'DESC'),
                        rf__k(k, 'rf_agg_nerr'))) END;
