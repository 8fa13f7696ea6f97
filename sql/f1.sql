-- F1@k (docs/metrics.md "F1"): (beta + 1) P R / (beta P + R) with P = P@k (denominator 'k'), R = R@k (denominator
-- 'relevant'); beta = 1 (default): 2 P R / (P + R); 0 when the denominator is 0. beta is trec_eval set_F's and
-- ir_measures' weight of recall (the textbook F_b is beta = b^2), as SetF.

-- a weight >= 0 (finite)
CREATE OR REPLACE MACRO rf__beta(v, owner) AS
    CASE WHEN rf__number(v) >= 0 AND isfinite(rf__number(v)) THEN rf__number(v)
         ELSE error(printf('rf:param: The ''beta'' parameter of %s must be a finite float >= 0. Got %s instead.', owner,
                           rf__repr(v))) END;

CREATE OR REPLACE MACRO rf__f_beta(p, r, beta) AS
    CASE WHEN beta * p + r = 0 THEN CAST(0 AS DOUBLE) ELSE (beta + 1.0) * p * r / (beta * p + r) END;

CREATE OR REPLACE MACRO rf__f1_grades(grades, n_rel, k, rel, beta) AS
    rf__f_beta(rf__precision_grades(grades, k, rel, 'k'), rf__recall_grades(grades, n_rel, k, rel, 'relevant'), beta);

CREATE OR REPLACE MACRO rf_f1(grades, n_rel, k := NULL, rel := 1, beta := 1.0) AS
    CASE WHEN rf__k(k, 'rf_f1') < 0
              OR rf__rel(rel, 'rf_f1') IS NULL
              OR rf__beta(beta, 'rf_f1') < 0
         THEN NULL
         ELSE rf__f1_grades(coalesce(grades, []), n_rel, rf__as_k(k), rf__as_num(rel), rf__as_num(beta)) END;

CREATE OR REPLACE MACRO rf__agg_f1(pos, grade, k, rel, beta) AS
    rf__f_beta(rf__agg_precision(pos, grade, k, rel, 'k'), rf__agg_recall(pos, grade, k, rel, 'relevant'), beta);

CREATE OR REPLACE MACRO rf_agg_f1(pos, grade, k := NULL, rel := 1, beta := 1.0) AS
    CASE WHEN rf__k(k, 'rf_agg_f1') < 0
              OR rf__rel(rel, 'rf_agg_f1') IS NULL
              OR rf__beta(beta, 'rf_agg_f1') < 0
         THEN NULL
         ELSE rf__agg_f1(pos, grade, rf__as_k(k), rf__as_num(rel), rf__as_num(beta)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column F1 order=130 nothing_relevant=relevant
-- rf:value rf__agg_f1(x.rf_pos, x.rf_g, k, rel, beta)
