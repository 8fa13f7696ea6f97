-- nDCG — normalised DCG@k (docs/metrics.md "nDCG"): DCG@k / IDCG@k, 0 when IDCG@k = 0 (same log_base and gains
-- on both sides).
CREATE OR REPLACE MACRO rf__ratio(a, b) AS CASE WHEN b = 0 THEN CAST(0 AS DOUBLE) ELSE a / b END;

CREATE OR REPLACE MACRO rf__ndcg_grades(grades, judged_grades, k, rel, gain, ideal, base, gains) AS
    rf__ratio(rf__dcg_grades(grades, k, rel, gain, base, gains),
              rf__idcg_grades(grades, judged_grades, k, rel, gain, ideal, base, gains));

-- like := 'rectools' (rankframe/metrics/ndcg.py PRESETS): gain and ideal default to NULL = the preset's value, or the
-- declared default without one (an option given by name wins); the checked like, or NULL
CREATE OR REPLACE MACRO rf__ndcg_like(lk, owner) AS
    CASE WHEN lk IS NULL THEN CAST(NULL AS VARCHAR) ELSE rf__choice(lk, ['rectools'], 'like', owner) END;
CREATE OR REPLACE MACRO rf__ndcg_gain(gain, lk) AS
    coalesce(gain, CASE WHEN rf__lc(lk) = 'rectools' THEN 'binary' END, 'linear');
CREATE OR REPLACE MACRO rf__ndcg_ideal(ideal, lk) AS
    coalesce(ideal, CASE WHEN rf__lc(lk) = 'rectools' THEN 'full' END, 'judged');

-- the parameter rules of rf_ndcg and rf_agg_ndcg, stated once: each check passes or raises its rf:param error (owner)
CREATE OR REPLACE MACRO rf__ndcg_bad(k, rel, gain, ideal, log_base, gains, "like", owner) AS
    rf__k(k, owner) < 0
        OR isnan(rf__relopt(rel, owner))
        OR rf__ndcg_like("like", owner) = ''
        OR rf__choice(rf__ndcg_gain(gain, "like"), ['linear', 'exponential', 'binary'], 'gain', owner) = ''
        OR rf__choice(rf__ndcg_ideal(ideal, "like"), ['judged', 'retrieved', 'full'], 'ideal', owner) = ''
        OR NOT rf__full_k(rf__ndcg_ideal(ideal, "like"), k, owner)
        OR rf__log_base(log_base, owner) < 0
        OR cardinality(rf__gains(gains, owner)) < 0;

CREATE OR REPLACE MACRO rf_ndcg(grades, judged_grades, k := NULL, rel := NULL, gain := NULL, ideal := NULL,
                                log_base := 2.0, gains := NULL, judged_only := false, "like" := NULL) AS
    CASE WHEN rf__ndcg_bad(k, rel, gain, ideal, log_base, gains, "like", 'rf_ndcg')
              OR rf__flag(judged_only, 'judged_only', 'rf_ndcg') IS NULL
         THEN NULL
         ELSE rf__ndcg_grades(rf__judged_list(coalesce(grades, []), judged_only), coalesce(judged_grades, []), rf__as_k(k), rf__as_num(rel),
                              rf__lc(rf__ndcg_gain(gain, "like")), rf__lc(rf__ndcg_ideal(ideal, "like")),
                              rf__as_num(log_base), TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- As an aggregate, nDCG is rf__agg_dcg / rf__agg_idcg: a sum (DCG, its logarithm only at positions <= k) and one list
-- of the positive gains (DOUBLE) for the ideal list; both are the very expressions of rf_agg_dcg / rf_agg_idcg, so a
-- statement with DCG, IDCG and nDCG of the same parameters keeps one sum and one list. This replaced one list of
-- (position, gain) structs (issue 10): a list costs per appended element, and a STRUCT(p BIGINT, g DOUBLE) element
-- about twice a DOUBLE one; nDCG@10 alone over the 10.3M-row benchmark file took 2.9 s of CPU instead of 5.4 s
-- (docs/decisions/0010-sql-big-inputs.md "Speed").
-- (of the rows' DCG terms t = rf__dcg_term(...) and gains g = rf__gain_m(...): the table macros compute them once per
-- row, rf:row below and in idcg.sql; dcg_gain is the gain of the DCG side's terms, 'linear' for tie-averaged gains)
CREATE OR REPLACE MACRO rf__agg_ndcg_t(t, g, pos, grade, k, dcg_gain, gain, ideal, base) AS
    rf__ratio(rf__agg_dcg_t(t, grade, dcg_gain), rf__agg_idcg_g(pos, g, grade, k, gain, ideal, base));

CREATE OR REPLACE MACRO rf__agg_ndcg(pos, grade, k, rel, gain, ideal, base, gains) AS
    rf__agg_ndcg_t(rf__dcg_term(pos, grade, k, rel, gain, base, gains), rf__gain_m(grade, rel, gain, gains), pos, grade,
                   k, gain, gain, ideal, base);

CREATE OR REPLACE MACRO rf_agg_ndcg(pos, grade, k := NULL, rel := NULL, gain := NULL, ideal := NULL,
                                    log_base := 2.0, gains := NULL, "like" := NULL) AS
    CASE WHEN rf__ndcg_bad(k, rel, gain, ideal, log_base, gains, "like", 'rf_agg_ndcg')
         THEN NULL
         ELSE rf__agg_ndcg(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(rf__ndcg_gain(gain, "like")),
                           rf__lc(rf__ndcg_ideal(ideal, "like")), rf__as_num(log_base),
                           TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column nDCG order=80 nothing_relevant=gain
-- rf:row rf__t_ndcg := CASE WHEN ties = 'average' AND order_by = 'score' THEN rf__dcg_term(z.rf__jp, z.rf__tgj, k, NULL, 'linear', log_base, NULL) ELSE rf__dcg_term(z.rf__jp, z.rf_g, k, graded_rel, gain, log_base, gains) END
-- rf:value rf__agg_ndcg_t(x.rf__t_ndcg, x.rf__t_gain, x.rf__jp, x.rf_g, k,
-- rf:value                CASE WHEN ties = 'average' AND order_by = 'score' THEN 'linear' ELSE gain END, gain, ideal, log_base)
