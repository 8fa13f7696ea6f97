-- ERR — expected reciprocal rank@k (docs/metrics.md "ERR"), cascade model:
-- sum_{i<=k} (1/i) Pr(g_i) prod_{j<i} (1 - Pr(g_j)), Pr(g) = (2^max(g,0) - 1) / 2^max_grade.
-- A grade above max_grade among the graded positions (the top k) is an error.
CREATE OR REPLACE MACRO rf__check_max_grade(top_grade, max_grade) AS
    CASE WHEN top_grade > max_grade
         THEN error(printf('ERR: grade %s is above max_grade %s; set max_grade to the top grade of your scale.',
                           CAST(top_grade AS VARCHAR), CAST(CAST(max_grade AS BIGINT) AS VARCHAR)))
         ELSE true END;

CREATE OR REPLACE MACRO rf__err_grades(grades, k, max_grade) AS
    rf__err_list(list_transform(list_slice(grades, 1, coalesce(k, len(grades))),
                                lambda x, i: {'i': i, 'pr': rf__pr(x, max_grade)}));

CREATE OR REPLACE MACRO rf_err(grades, k := NULL, max_grade := 4) AS
    CASE WHEN rf__check_max_grade(list_max(list_slice(coalesce(grades, []), 1, coalesce(rf__k(k, 'rf_err'), len(coalesce(grades, []))))),
                                  rf__max_grade(max_grade, 'rf_err'))
         THEN rf__err_grades(coalesce(grades, []), rf__k(k, 'rf_err'), rf__max_grade(max_grade, 'rf_err')) END;

CREATE OR REPLACE MACRO rf__agg_err(pos, grade, k, max_grade) AS
    rf__err_list(list_sort(coalesce(list({'i': pos, 'pr': rf__pr(grade, max_grade)})
                               FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade > 0), [])));

CREATE OR REPLACE MACRO rf_agg_err(pos, grade, k := NULL, max_grade := 4) AS
    CASE WHEN rf__check_max_grade(max(grade) FILTER (WHERE pos <= coalesce(rf__k(k, 'rf_agg_err'), 9223372036854775807)),
                                  rf__max_grade(max_grade, 'rf_agg_err'))
         THEN rf__agg_err(pos, grade, rf__k(k, 'rf_agg_err'), rf__max_grade(max_grade, 'rf_agg_err')) END;
