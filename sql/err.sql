-- ERR — expected reciprocal rank@k (docs/metrics.md "ERR"), cascade model:
-- sum_{i<=k} (1/i) Pr(g_i) prod_{j<i} (1 - Pr(g_j)), Pr(g) = (2^max(g,0) - 1) / 2^max_grade.
-- A grade above max_grade anywhere in the list (in the unit, for the aggregate) is an error, whatever k, as in
-- the Python API.
CREATE OR REPLACE MACRO rf__err_grades(grades, k, max_grade) AS
    rf__err_list(list_transform(list_slice(grades, 1, coalesce(k, len(grades))),
                                lambda x, i: {'i': i, 'pr': rf__pr(x, max_grade)}));

CREATE OR REPLACE MACRO rf__err_checked(grades, k, max_grade) AS
    CASE WHEN rf__check_max_grade(list_max(grades), max_grade, 'ERR') THEN rf__err_grades(grades, k, max_grade) END;

CREATE OR REPLACE MACRO rf_err(grades, k := NULL, max_grade := 4) AS
    CASE WHEN rf__k(k, 'rf_err') < 0
              OR rf__max_grade(max_grade, 'rf_err') < 0
         THEN NULL
         ELSE rf__err_checked(coalesce(grades, []), rf__as_k(k), rf__as_num(max_grade)) END;

-- the cascade over the ranked rows of a unit (no max_grade check)
CREATE OR REPLACE MACRO rf__agg_err_cascade(pos, grade, k, max_grade) AS
    rf__err_list(list_sort(coalesce(list({'i': pos, 'pr': rf__pr(grade, max_grade)})
                               FILTER (WHERE pos <= coalesce(k, 9223372036854775807) AND grade > 0), [])));

CREATE OR REPLACE MACRO rf__agg_err(pos, grade, k, max_grade) AS
    CASE WHEN rf__check_max_grade(max(grade), max_grade, 'ERR') THEN rf__agg_err_cascade(pos, grade, k, max_grade) END;

CREATE OR REPLACE MACRO rf_agg_err(pos, grade, k := NULL, max_grade := 4) AS
    CASE WHEN rf__k(k, 'rf_agg_err') < 0
              OR rf__max_grade(max_grade, 'rf_agg_err') < 0
         THEN NULL
         ELSE rf__agg_err(pos, grade, rf__as_k(k), rf__as_num(max_grade)) END;

-- ERR over the rows of a table in O(n log n), for the table macros (rf_per_query, rf_means) and the DuckDB engine.
-- rf__err_before is the product prod_{j<i} (1 - Pr(g_j)) over the rows above each row of the unit (part), a window
-- in position order (NULL positions last): a window product is exact about Pr = 1 (the product is 0 from the next
-- row on; no logarithm), and one such column serves every cutoff. rf__agg_err_t sums the unit's terms
-- Pr(g_i) before_i / i over the rows within the cutoff (rf__err_term; rf:row below, evaluate.sql's rf:prep rf__b). (rf_agg_err above, an aggregate over a unit's rows,
-- cannot hold a window: it compares every pair of rows with a positive grade within the cutoff, fine for ERR@k
-- with a small k but quadratic without a cutoff.)
CREATE OR REPLACE MACRO rf__err_before(part, pos, grade, max_grade) AS
    coalesce(product(1.0 - rf__pr(grade, max_grade)) OVER (
                 PARTITION BY part ORDER BY pos ASC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
             CAST(1 AS DOUBLE));

-- a row's term of ERR: Pr(g_i) before_i / i within the cutoff, else NULL
CREATE OR REPLACE MACRO rf__err_term(pos, grade, before, k, max_grade) AS
    CASE WHEN pos <= coalesce(k, 9223372036854775807) THEN rf__pr(grade, max_grade) * before / pos END;

CREATE OR REPLACE MACRO rf__err_sum(t) AS coalesce(rf__xsum(t), CAST(0 AS DOUBLE));

-- (of the rows' terms t = rf__err_term(...): the table macros compute t once per row, rf:row below)
CREATE OR REPLACE MACRO rf__agg_err_t(t, grade, max_grade) AS
    CASE WHEN rf__check_max_grade(max(grade), max_grade, 'ERR') THEN rf__err_sum(t) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column ERR order=90 nothing_relevant=none
-- rf:row rf__t_err := rf__err_term(z.rf_pos, z.rf_g, z.rf__b, k, max_grade)
-- rf:value rf__agg_err_t(x.rf__t_err, x.rf_g, max_grade)
