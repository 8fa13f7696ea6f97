-- nDCG — normalised DCG@k (docs/metrics.md "nDCG"): DCG@k / IDCG@k, 0 when IDCG@k = 0.
CREATE OR REPLACE MACRO rf__ratio(a, b) AS CASE WHEN b = 0 THEN CAST(0 AS DOUBLE) ELSE a / b END;

CREATE OR REPLACE MACRO rf_ndcg(grades, judged_grades, k := NULL, rel := NULL, gain := 'linear', ideal := 'judged') AS
    rf__ratio(rf_dcg(coalesce(grades, []), k := rf__k(k, 'rf_ndcg'), rel := rf__relopt(rel, 'rf_ndcg'),
                     gain := rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_ndcg')),
              rf_idcg(coalesce(grades, []), coalesce(judged_grades, []), k := rf__k(k, 'rf_ndcg'), rel := rf__relopt(rel, 'rf_ndcg'),
                      gain := rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_ndcg'),
                      ideal := rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_ndcg')));

CREATE OR REPLACE MACRO rf_agg_ndcg(pos, grade, k := NULL, rel := NULL, gain := 'linear', ideal := 'judged') AS
    rf__ratio(rf_agg_dcg(pos, grade, k := rf__k(k, 'rf_agg_ndcg'), rel := rf__relopt(rel, 'rf_agg_ndcg'),
                         gain := rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_agg_ndcg')),
              rf_agg_idcg(pos, grade, k := rf__k(k, 'rf_agg_ndcg'), rel := rf__relopt(rel, 'rf_agg_ndcg'),
                          gain := rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_agg_ndcg'),
                          ideal := rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_agg_ndcg')));
