-- DCG — discounted cumulative gain@k (docs/metrics.md "DCG"): sum_{i<=k} gain(g_i) / log_b(i + 1), b = log_base
-- (2 = trec_eval). gains := MAP {grade: gain} first replaces each listed grade (trec_eval ndcg gain parameters,
-- ir_measures gains=); rel compares the grade itself. An infinite sum (exponential gains of grades near 1023) is an
-- error (rf__finite_gain).

-- a discount base: a finite number > 1
CREATE OR REPLACE MACRO rf__log_base(v, owner) AS
    CASE WHEN rf__number(v) > 1 AND isfinite(rf__number(v)) THEN rf__number(v)
         ELSE error(printf('rf:param: The ''log_base'' parameter of %s must be a finite float > 1. Got %s '
                           || 'instead.', owner,
                           rf__repr(v))) END;

-- a gain map: NULL (none) or a MAP of numbers, as MAP(DOUBLE, DOUBLE)
CREATE OR REPLACE MACRO rf__gains(m, owner) AS
    CASE WHEN m IS NULL THEN CAST(NULL AS MAP(DOUBLE, DOUBLE))
         WHEN starts_with(typeof(m), 'MAP(') AND TRY_CAST(m AS MAP(DOUBLE, DOUBLE)) IS NOT NULL
         THEN TRY_CAST(m AS MAP(DOUBLE, DOUBLE))
         ELSE error(printf('rf:param: The ''gains'' parameter of %s must be a dict {grade: gain} of finite numbers, '
                           || 'or NULL. Got %s instead.', owner, rf__repr(m))) END;

-- the gain of grade g: 0 for NULL or below rel, else the gain of its mapped value (unlisted grades keep theirs)
CREATE OR REPLACE MACRO rf__gain_m(g, rel, gain, gains) AS
    CASE WHEN gains IS NULL THEN rf__gain(g, rel, gain)
         WHEN g IS NULL OR g < rel THEN CAST(0 AS DOUBLE)
         ELSE rf__gain(coalesce(map_extract_value(gains, CAST(g AS DOUBLE)), g), NULL, gain) END;

-- log_b(i + 1) = log2(i + 1) / log2(b), the divisor of position i (exactly log2(i + 1) for b = 2)
CREATE OR REPLACE MACRO rf__disc(i, base) AS log2(i + 1) / log2(base);

-- DCG of a list of gains already in order, cut at k (NULL = whole list), base b
CREATE OR REPLACE MACRO rf__dcg_list_b(gains, k, base) AS
    coalesce(list_sum(list_transform(list_slice(gains, 1, coalesce(k, len(gains))),
                                     lambda x, i: x / rf__disc(i, base))), 0.0);

CREATE OR REPLACE MACRO rf__dcg_grades(grades, k, rel, gain, base, gains) AS
    rf__finite_gain(rf__dcg_list_b(list_transform(grades, lambda x: rf__gain_m(x, rel, gain, gains)), k, base),
                    list_max(grades));

-- the parameter rules of rf_dcg and rf_agg_dcg, stated once: each check passes or raises its rf:param error (owner)
CREATE OR REPLACE MACRO rf__dcg_bad(k, rel, gain, log_base, gains, owner) AS
    rf__k(k, owner) < 0
        OR isnan(rf__relopt(rel, owner))
        OR rf__choice(gain, ['linear', 'exponential', 'binary'], 'gain', owner) = ''
        OR rf__log_base(log_base, owner) < 0
        OR cardinality(rf__gains(gains, owner)) < 0;

CREATE OR REPLACE MACRO rf_dcg(grades, k := NULL, rel := NULL, gain := 'linear', log_base := 2.0, gains := NULL) AS
    CASE WHEN rf__dcg_bad(k, rel, gain, log_base, gains, 'rf_dcg')
         THEN NULL
         ELSE rf__dcg_grades(coalesce(grades, []), rf__as_k(k), rf__as_num(rel), rf__lc(gain), rf__as_num(log_base),
                             TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- (the term under a CASE, not a FILTER: an aggregate's argument is computed for every row before its FILTER, and the
-- CASE computes the logarithm only at positions <= k)
-- a row's term of DCG: its discounted gain within the cutoff, else NULL
CREATE OR REPLACE MACRO rf__dcg_term(pos, grade, k, rel, gain, base, gains) AS
    CASE WHEN pos BETWEEN 1 AND coalesce(k, 9223372036854775807)
         THEN rf__gain_m(grade, rel, gain, gains) / rf__disc(pos, base) END;

-- (of the rows' terms t = rf__dcg_term(...): the table macros compute t once per row, rf:row below)
CREATE OR REPLACE MACRO rf__agg_dcg_t(t, grade, gain) AS rf__gain_total(t, grade, gain);

CREATE OR REPLACE MACRO rf__agg_dcg(pos, grade, k, rel, gain, base, gains) AS
    rf__agg_dcg_t(rf__dcg_term(pos, grade, k, rel, gain, base, gains), grade, gain);

CREATE OR REPLACE MACRO rf_agg_dcg(pos, grade, k := NULL, rel := NULL, gain := 'linear', log_base := 2.0,
                                   gains := NULL) AS
    CASE WHEN rf__dcg_bad(k, rel, gain, log_base, gains, 'rf_agg_dcg')
         THEN NULL
         ELSE rf__agg_dcg(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(gain), rf__as_num(log_base),
                          TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- ties = 'average' (McSherry & Najork; scikit-learn ndcg_score/dcg_score, torchmetrics): every ranked row's gain is
-- the mean gain of its tie group, the rows of its unit `part` with the same score. A window (the aggregates see
-- positions and grades, not scores), so compute it over rf_prepare(..., order_by := 'score') in a subquery, then
-- sum it with the aggregate: DCG = rf_agg_dcg(rf_pos, tie_gain, k := k, log_base := b) (the linear gain of a gain
-- is itself), nDCG = that / rf_agg_idcg(rf_pos, rf_g, k := k, ...) (the ideal does not depend on ties). A group
-- straddling k gives its mean gain to each of its positions <= k (scikit-learn _tie_averaged_dcg). With
-- judged_only, partition by row(query, NOT rf__judged_kept(rf_g)) so that the rows it removes leave the groups.
CREATE OR REPLACE MACRO rf__tie_gain(part, score, grade, rel, gain, gains) AS
    avg(rf__gain_m(grade, rel, gain, gains)) OVER (PARTITION BY part, score ORDER BY rf__gain_m(grade, rel, gain, gains)
                                                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING);

CREATE OR REPLACE MACRO rf_tie_gain(part, score, grade, rel := NULL, gain := 'linear', gains := NULL) AS
    CASE WHEN isnan(rf__relopt(rel, 'rf_tie_gain'))
              OR rf__choice(gain, ['linear', 'exponential', 'binary'], 'gain', 'rf_tie_gain') = ''
              OR cardinality(rf__gains(gains, 'rf_tie_gain')) < 0
         THEN NULL
         ELSE rf__tie_gain(part, score, grade, rf__as_num(rel), rf__lc(gain), TRY_CAST(gains AS MAP(DOUBLE, DOUBLE)))
    END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column DCG order=60 nothing_relevant=none
-- rf:row rf__t_dcg := CASE WHEN ties = 'average' AND order_by = 'score' THEN rf__dcg_term(z.rf_pos, z.rf__tg, k, NULL, 'linear', log_base, NULL) ELSE rf__dcg_term(z.rf_pos, z.rf_g, k, graded_rel, gain, log_base, gains) END
-- rf:value rf__agg_dcg_t(x.rf__t_dcg, x.rf_g, CASE WHEN ties = 'average' AND order_by = 'score' THEN 'linear' ELSE gain END)
