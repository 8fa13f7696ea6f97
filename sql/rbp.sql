-- RBP — rank-biased precision@k (docs/metrics.md "RBP"): (1 - p) sum_{i<=k} hit_i p^(i-1); binary.
-- residual := true gives its residual instead (the unjudged mass; rankframe/metrics/rbp.py), in the convention of
-- tail := 'cwl' (cwl_eval), 'trec_eval' (trec_eval 10 rbp_resid, 0 when nothing retrieved is unjudged) or
-- 'trectools' (get_rbp): U = sum of p^(i-1) over the unjudged (NULL grade; with 'trec_eval' a negative grade too)
-- retrieved rows within the depth, n = the retrieved rows within it; the depth is k, or without k the whole list
-- (trec_eval) or 1000 (cwl_eval, trectools).
CREATE OR REPLACE MACRO rf__rbp(hitpos, p) AS
    (1.0 - p) * coalesce(list_sum(list_transform(hitpos, lambda i: pow(p, i - 1))), CAST(0 AS DOUBLE));

-- the depth of the residual: k, or without k the whole list (trec_eval) or the peers' 1000 (cwl, trectools)
CREATE OR REPLACE MACRO rf__rbp_depth(k, tail) AS
    CASE WHEN k IS NOT NULL THEN k WHEN tail = 'trec_eval' THEN 9223372036854775807 ELSE 1000 END;

-- the residual from U (mass), n (retrieved within the depth), the unjudged count, p, the depth and the convention
CREATE OR REPLACE MACRO rf__rbp_resid(mass, n, n_unjudged, p, depth, tail) AS
    CASE tail
        WHEN 'trec_eval' THEN CASE WHEN n_unjudged > 0 THEN pow(p, n) + (1.0 - p) * mass ELSE CAST(0 AS DOUBLE) END
        WHEN 'cwl' THEN ((1.0 - p) * mass + pow(p, n) - pow(p, depth)) / (1.0 - pow(p, depth))
        ELSE (1.0 - p) * mass + pow(p, depth) END;

-- unknown: a NULL grade; with tail 'trec_eval' a negative one too (m_rbp_resid.c tests rel < 0, as judged_only)
CREATE OR REPLACE MACRO rf__rbp_unknown(grade, tail) AS grade IS NULL OR (tail = 'trec_eval' AND grade < 0);

CREATE OR REPLACE MACRO rf__rbp_resid_top(top, p, depth, tail) AS
    rf__rbp_resid(coalesce(list_sum(list_transform(list_filter(list_transform(top, lambda x, i: CASE WHEN
                                                                                     rf__rbp_unknown(x, tail) THEN i END),
                                                               lambda i: i IS NOT NULL),
                                                   lambda i: pow(p, i - 1))), CAST(0 AS DOUBLE)),
                  len(top), len(list_filter(top, lambda x: rf__rbp_unknown(x, tail))), p, depth, tail);

CREATE OR REPLACE MACRO rf__rbp_grades(grades, k, rel, p, residual, tail) AS
    CASE WHEN residual
         THEN rf__rbp_resid_top(list_slice(grades, 1, least(rf__rbp_depth(k, tail), len(grades))), p,
                                rf__rbp_depth(k, tail), tail)
         ELSE rf__rbp(rf__hitpos(grades, k, rel), p) END;

-- the parameter rules of rf_rbp and rf_agg_rbp, stated once: each check passes or raises its rf:param error (owner)
CREATE OR REPLACE MACRO rf__rbp_bad(k, rel, p, residual, tail, owner) AS
    rf__k(k, owner) < 0
        OR rf__rel(rel, owner) IS NULL
        OR rf__p(p, owner) < 0
        OR rf__flag(residual, 'residual', owner) IS NULL
        OR rf__choice(tail, ['cwl', 'trec_eval', 'trectools'], 'tail', owner) = '';

CREATE OR REPLACE MACRO rf_rbp(grades, k := NULL, rel := 1, p := 0.8, residual := false, tail := 'cwl') AS
    CASE WHEN rf__rbp_bad(k, rel, p, residual, tail, 'rf_rbp')
         THEN NULL
         ELSE rf__rbp_grades(coalesce(grades, []), rf__as_k(k), rf__as_num(rel), rf__as_num(p), rf__as_bool(residual),
                             rf__lc(tail)) END;

-- a row's term of RBP: p^(i-1) for a relevant row within the cutoff; with the residual, for an unjudged row (as the
-- tail says) within the depth; else NULL
CREATE OR REPLACE MACRO rf__rbp_term(pos, grade, k, rel, p, residual, tail) AS
    CASE WHEN residual
         THEN CASE WHEN pos <= rf__rbp_depth(k, tail) AND rf__rbp_unknown(grade, tail) THEN pow(p, pos - 1) END
         ELSE CASE WHEN pos <= coalesce(k, 9223372036854775807) AND grade >= rel THEN pow(p, pos - 1) END END;

-- (of the rows' terms t = rf__rbp_term(...): the table macros compute t once per row, rf:row below)
CREATE OR REPLACE MACRO rf__agg_rbp_t(t, pos, grade, k, p, residual, tail) AS
    CASE WHEN residual
         THEN rf__rbp_resid(coalesce(rf__xsum(t), CAST(0 AS DOUBLE)),
                            count(pos) FILTER (WHERE pos <= rf__rbp_depth(k, tail)),
                            count(pos) FILTER (WHERE pos <= rf__rbp_depth(k, tail) AND rf__rbp_unknown(grade, tail)),
                            p, rf__rbp_depth(k, tail), tail)
         ELSE (1.0 - p) * coalesce(rf__xsum(t), CAST(0 AS DOUBLE)) END;

CREATE OR REPLACE MACRO rf__agg_rbp(pos, grade, k, rel, p, residual, tail) AS
    rf__agg_rbp_t(rf__rbp_term(pos, grade, k, rel, p, residual, tail), pos, grade, k, p, residual, tail);

CREATE OR REPLACE MACRO rf_agg_rbp(pos, grade, k := NULL, rel := 1, p := 0.8, residual := false, tail := 'cwl') AS
    CASE WHEN rf__rbp_bad(k, rel, p, residual, tail, 'rf_agg_rbp')
         THEN NULL
         ELSE rf__agg_rbp(pos, grade, rf__as_k(k), rf__as_num(rel), rf__as_num(p), rf__as_bool(residual),
                          rf__lc(tail)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column RBP order=150 nothing_relevant=none better_when=residual:true:none
-- rf:row rf__t_rbp := rf__rbp_term(z.rf_pos, z.rf_g, k, rel, p, residual, tail)
-- rf:value rf__agg_rbp_t(x.rf__t_rbp, x.rf_pos, x.rf_g, k, p, residual, tail)
