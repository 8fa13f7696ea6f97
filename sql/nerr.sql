-- nERR — ERR@k / ERR@k of the ideal ordering (docs/metrics.md "nERR"); the ideal list is made of the judged
-- rows ('judged') or the retrieved rows ('retrieved'), sorted by grade descending; 0 when the ideal is 0.
-- A grade above max_grade anywhere (the ranked list or the judged grades; the unit, for the aggregate) is an
-- error, whatever k and ideal, as in the Python API.
CREATE OR REPLACE MACRO rf__nerr_grades(grades, judged_grades, k, max_grade, ideal) AS
    CASE WHEN rf__check_max_grade(greatest(list_max(grades), list_max(judged_grades)), max_grade, 'nERR')
         THEN rf__ratio(rf__err_grades(grades, k, max_grade),
                        rf__err_pr(list_sort(list_transform(
                                       list_filter(CASE WHEN ideal = 'judged' THEN judged_grades ELSE grades END,
                                                   lambda x: x > 0),
                                       lambda x: rf__pr(x, max_grade)), 'DESC'), k)) END;

CREATE OR REPLACE MACRO rf_nerr(grades, judged_grades, k := NULL, max_grade := 4, ideal := 'judged') AS
    CASE WHEN rf__k(k, 'rf_nerr') < 0
              OR rf__max_grade(max_grade, 'rf_nerr') < 0
              OR rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_nerr') = ''
         THEN NULL
         ELSE rf__nerr_grades(coalesce(grades, []), coalesce(judged_grades, []), rf__as_k(k), rf__as_num(max_grade),
                              rf__lc(ideal)) END;

CREATE OR REPLACE MACRO rf__agg_nerr(pos, grade, k, max_grade, ideal) AS
    CASE WHEN rf__check_max_grade(max(grade), max_grade, 'nERR')
         THEN rf__ratio(rf__agg_err_cascade(pos, grade, k, max_grade),
                        rf__err_pr(list_sort(coalesce(list(rf__pr(grade, max_grade))
                                                 FILTER (WHERE grade > 0 AND (ideal = 'judged' OR pos IS NOT NULL)),
                                                      []), 'DESC'), k)) END;

CREATE OR REPLACE MACRO rf_agg_nerr(pos, grade, k := NULL, max_grade := 4, ideal := 'judged') AS
    CASE WHEN rf__k(k, 'rf_agg_nerr') < 0
              OR rf__max_grade(max_grade, 'rf_agg_nerr') < 0
              OR rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_agg_nerr') = ''
         THEN NULL
         ELSE rf__agg_nerr(pos, grade, rf__as_k(k), rf__as_num(max_grade), rf__lc(ideal)) END;

-- nERR over the rows of a table in O(n log n) (see rf__err_before): the ideal list is the unit's rows with a
-- positive grade (judged, or also retrieved with ideal = 'retrieved') by grade descending; rf__ideal_pos numbers
-- them and rf__ideal_before is the product over the rows above in that order (NULL / 1 for the other rows). Both
-- windows have the same PARTITION BY and ORDER BY, so DuckDB sorts once and both see the same order of tied grades.
CREATE OR REPLACE MACRO rf__ideal_key(pos, grade, ideal) AS
    CASE WHEN grade > 0 AND (ideal = 'judged' OR pos IS NOT NULL) THEN grade END;

CREATE OR REPLACE MACRO rf__ideal_pos(part, pos, grade, ideal) AS
    CASE WHEN rf__ideal_key(pos, grade, ideal) IS NOT NULL
         THEN row_number() OVER (PARTITION BY part ORDER BY rf__ideal_key(pos, grade, ideal) DESC NULLS LAST) END;

CREATE OR REPLACE MACRO rf__ideal_before(part, pos, grade, ideal, max_grade) AS
    coalesce(product(CASE WHEN rf__ideal_key(pos, grade, ideal) IS NOT NULL
                          THEN 1.0 - rf__pr(grade, max_grade) ELSE 1.0 END) OVER (
                 PARTITION BY part ORDER BY rf__ideal_key(pos, grade, ideal) DESC NULLS LAST
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
             CAST(1 AS DOUBLE));

-- (of the rows' terms t and ideal terms it, rf__err_term of the list and of the ideal list: the table macros compute
-- them once per row, rf:row below and in err.sql)
CREATE OR REPLACE MACRO rf__agg_nerr_t(t, it, grade, max_grade) AS
    CASE WHEN rf__check_max_grade(max(grade), max_grade, 'nERR') THEN rf__ratio(rf__err_sum(t), rf__err_sum(it)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column nERR order=100 nothing_relevant=any_gain
-- rf:value CASE WHEN ideal = 'full' THEN CAST(NULL AS DOUBLE)  -- nDCG's and IDCG's ideal: nERR has no value
-- rf:value      ELSE rf__agg_nerr_t(x.rf__t_err, x.rf__t_ierr, x.rf_g, max_grade) END
-- rf:row rf__t_ierr := rf__err_term(z.rf__ip, z.rf_g, z.rf__ib, k, max_grade)
