-- F1@k (docs/metrics.md "F1"): 2 P R / (P + R) with P = P@k (denominator 'k'), R = R@k (denominator
-- 'relevant'); 0 when P + R = 0.
CREATE OR REPLACE MACRO rf__f1(p, r) AS
    CASE WHEN p + r = 0 THEN CAST(0 AS DOUBLE) ELSE 2 * p * r / (p + r) END;

CREATE OR REPLACE MACRO rf_f1(grades, n_rel, k := NULL, rel := 1) AS
    rf__f1(rf_precision(coalesce(grades, []), k := rf__k(k, 'rf_f1'), rel := rf__rel(rel, 'rf_f1')),
           rf_recall(coalesce(grades, []), n_rel, k := rf__k(k, 'rf_f1'), rel := rf__rel(rel, 'rf_f1')));

CREATE OR REPLACE MACRO rf_agg_f1(pos, grade, k := NULL, rel := 1) AS
    rf__f1(rf_agg_precision(pos, grade, k := rf__k(k, 'rf_agg_f1'), rel := rf__rel(rel, 'rf_agg_f1')),
           rf_agg_recall(pos, grade, k := rf__k(k, 'rf_agg_f1'), rel := rf__rel(rel, 'rf_agg_f1')));
