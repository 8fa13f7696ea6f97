-- nDCG — normalised DCG@k (docs/metrics.md "nDCG"): DCG@k / IDCG@k, 0 when IDCG@k = 0 (same log_base and gains
-- on both sides).
CREATE OR REPLACE MACRO rf__ratio(a, b) AS CASE WHEN b = 0 THEN CAST(0 AS DOUBLE) ELSE a / b END;

CREATE OR REPLACE MACRO rf__ndcg_grades(grades, judged_grades, k, rel, gain, ideal, base, gains) AS
    rf__ratio(rf__dcg_grades(grades, k, rel, gain, base, gains),
              rf__idcg_grades(grades, judged_grades, k, rel, gain, ideal, base, gains));

CREATE OR REPLACE MACRO rf_ndcg(grades, judged_grades, k := NULL, rel := NULL, gain := 'linear', ideal := 'judged',
                                log_base := 2.0, gains := NULL, judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_ndcg') < 0
              OR isnan(rf__relopt(rel, 'rf_ndcg'))
              OR rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_ndcg') = ''
              OR rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_ndcg') = ''
              OR rf__log_base(log_base, 'rf_ndcg') < 0
              OR cardinality(rf__gains(gains, 'rf_ndcg')) < 0
              OR rf__flag(judged_only, 'judged_only', 'rf_ndcg') IS NULL
         THEN NULL
         ELSE rf__ndcg_grades(rf__judged_list(coalesce(grades, []), judged_only), coalesce(judged_grades, []), rf__as_k(k), rf__as_num(rel),
                              rf__lc(gain), rf__lc(ideal), rf__as_num(log_base), TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- As an aggregate, nDCG keeps ONE list per group, of the (position, gain) pairs with a positive gain (the rows of
-- the ideal list; every row with a gain in the top k is among them, since gains are >= 0): DCG sums the pairs at
-- positions <= k, IDCG sorts their gains. A sum for DCG plus a list for IDCG cost about 3x more on a large
-- table grouped by query (issue 10, docs/decisions/0010-sql-big-inputs.md "Speed").
-- (the pair is built under a CASE so that only the rows with a gain build one: an aggregate's argument is computed
-- for every row before its FILTER)
CREATE OR REPLACE MACRO rf__agg_gain_pairs(pos, grade, rel, gain, ideal, gains) AS
    coalesce(list(CASE WHEN rf__gain_m(grade, rel, gain, gains) > 0
                       THEN struct_pack(p := pos, g := rf__gain_m(grade, rel, gain, gains)) END)
                 FILTER (WHERE rf__gain_m(grade, rel, gain, gains) > 0 AND (ideal = 'judged' OR pos IS NOT NULL)),
             []);

CREATE OR REPLACE MACRO rf__pairs_ndcg(pairs, k, base, top_grade) AS
    rf__ratio(rf__finite_gain(coalesce(list_sum(list_transform(
                                  list_filter(pairs, lambda x: x.p <= coalesce(k, 9223372036854775807)),
                                  lambda x: x.g / rf__disc(x.p, base))), CAST(0 AS DOUBLE)), top_grade),
              rf__finite_gain(rf__dcg_list_b(rf__top_gains(list_transform(pairs, lambda x: x.g), k), k, base),
                              top_grade));

CREATE OR REPLACE MACRO rf__agg_ndcg(pos, grade, k, rel, gain, ideal, base, gains) AS
    rf__pairs_ndcg(rf__agg_gain_pairs(pos, grade, rel, gain, ideal, gains), k, base, rf__agg_top_grade(grade, gain));

CREATE OR REPLACE MACRO rf_agg_ndcg(pos, grade, k := NULL, rel := NULL, gain := 'linear', ideal := 'judged',
                                    log_base := 2.0, gains := NULL) AS
    CASE WHEN rf__k(k, 'rf_agg_ndcg') < 0
              OR isnan(rf__relopt(rel, 'rf_agg_ndcg'))
              OR rf__choice(gain, ['linear', 'exponential'], 'gain', 'rf_agg_ndcg') = ''
              OR rf__choice(ideal, ['judged', 'retrieved'], 'ideal', 'rf_agg_ndcg') = ''
              OR rf__log_base(log_base, 'rf_agg_ndcg') < 0
              OR cardinality(rf__gains(gains, 'rf_agg_ndcg')) < 0
         THEN NULL
         ELSE rf__agg_ndcg(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(gain), rf__lc(ideal), rf__as_num(log_base),
                           TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;
