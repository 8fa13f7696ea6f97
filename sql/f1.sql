-- F1@k (docs/metrics.md "F1"): 2 P R / (P + R) with P = P@k (denominator 'k'), R = R@k (denominator
-- 'relevant'); 0 when P + R = 0.
CREATE OR REPLACE MACRO rf__f1(p, r) AS
    CASE WHEN p + r = 0 THEN CAST(0 AS DOUBLE) ELSE 2 * p * r / (p + r) END;

CREATE OR REPLACE MACRO rf__f1_grades(grades, n_rel, k, rel) AS
    rf__f1(rf__precision_grades(grades, k, rel, 'k'), rf__recall_grades(grades, n_rel, k, rel, 'relevant'));

CREATE OR REPLACE MACRO rf_f1(grades, n_rel, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_f1') < 0
              OR rf__rel(rel, 'rf_f1') IS NULL
         THEN NULL
         ELSE rf__f1_grades(coalesce(grades, []), n_rel, rf__as_k(k), rf__as_num(rel)) END;

CREATE OR REPLACE MACRO rf__agg_f1(pos, grade, k, rel) AS
    rf__f1(rf__agg_precision(pos, grade, k, rel, 'k'), rf__agg_recall(pos, grade, k, rel, 'relevant'));

CREATE OR REPLACE MACRO rf_agg_f1(pos, grade, k := NULL, rel := 1) AS
    CASE WHEN rf__k(k, 'rf_agg_f1') < 0
              OR rf__rel(rel, 'rf_agg_f1') IS NULL
         THEN NULL
         ELSE rf__agg_f1(pos, grade, rf__as_k(k), rf__as_num(rel)) END;
