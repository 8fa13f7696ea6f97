-- AP — average precision@k (docs/metrics.md "AP"): sum_{i<=k, hit_i} P@i / D with
-- D = |R| ('relevant', trec_eval), min(|R|, K) ('min_k'), or the hits in the top k ('retrieved'); D = 0 -> 0.
-- sum_{hit i} P@i = sum_j j / p_j over the sorted hit positions p_1 < p_2 < ...
CREATE OR REPLACE MACRO rf__ap(hitpos, n_rel, n, k, denominator) AS
    CASE WHEN (CASE denominator WHEN 'relevant' THEN n_rel WHEN 'min_k' THEN least(n_rel, coalesce(k, n))
                                ELSE len(hitpos) END) = 0
         THEN CAST(0 AS DOUBLE)
         ELSE rf__ap_sum(hitpos) / (CASE denominator WHEN 'relevant' THEN n_rel
                                                     WHEN 'min_k' THEN least(n_rel, coalesce(k, n))
                                                     ELSE len(hitpos) END) END;

CREATE OR REPLACE MACRO rf__ap_grades(grades, n_rel, k, rel, denominator) AS
    rf__ap(rf__hitpos(grades, k, rel), n_rel, len(grades), k, denominator);

CREATE OR REPLACE MACRO rf_ap(grades, n_rel, k := NULL, rel := 1, denominator := 'relevant', judged_only := false) AS
    CASE WHEN rf__k(k, 'rf_ap') < 0
              OR rf__rel(rel, 'rf_ap') IS NULL
              OR rf__choice(denominator, ['relevant', 'min_k', 'retrieved'], 'denominator', 'rf_ap') = ''
              OR rf__flag(judged_only, 'judged_only', 'rf_ap') IS NULL
         THEN NULL
         ELSE rf__ap_grades(rf__judged_list(coalesce(grades, []), judged_only), n_rel, rf__as_k(k), rf__as_num(rel), rf__lc(denominator)) END;

CREATE OR REPLACE MACRO rf__agg_ap(pos, grade, k, rel, denominator) AS
    rf__ap(CASE WHEN rf__mask_ok(k) THEN rf__mask_positions(rf__agg_hitmask(pos, grade, k, rel), k)
                ELSE list_sort(coalesce(list(pos) FILTER (WHERE pos <= coalesce(k, 9223372036854775807)
                                                          AND grade >= rel), [])) END,
           count(grade) FILTER (WHERE grade >= rel), count(pos), k, denominator);

CREATE OR REPLACE MACRO rf_agg_ap(pos, grade, k := NULL, rel := 1, denominator := 'relevant') AS
    CASE WHEN rf__k(k, 'rf_agg_ap') < 0
              OR rf__rel(rel, 'rf_agg_ap') IS NULL
              OR rf__choice(denominator, ['relevant', 'min_k', 'retrieved'], 'denominator', 'rf_agg_ap') = ''
         THEN NULL
         ELSE rf__agg_ap(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(denominator)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column AP order=30 nothing_relevant=relevant
-- rf:value rf__agg_ap(x.rf__jp, x.rf_g, k, rel, ap_denominator)
