-- IDCG — ideal DCG@k (docs/metrics.md "IDCG"): DCG@k of the gains of the judged rows (ideal 'judged',
-- retrieved or not, trec_eval) or of the retrieved rows ('retrieved'), sorted descending; discount base log_base,
-- grades mapped by gains first (as DCG). ideal 'full' (RecTools): the judged list of L < k gains filled to all k
-- positions with copies of its last gain (rf__ideal_fill).
-- Only positive gains matter (zero gains sort last and add nothing). An infinite sum is an error (rf__finite_gain).
-- the gains of a list sorted descending (rf__dcg_list_b takes the first k). A top-k through
-- list_aggregate(gains, 'max', k) costs about 4x less than this sort on DuckDB 2.0 but fails to bind on the DuckDB
-- 1.x CLI, which the macros support (issue 10, docs/decisions/0010-sql-big-inputs.md "Speed").
CREATE OR REPLACE MACRO rf__ideal_gains(grades, judged_grades, rel, gain, ideal, gains) AS
    list_sort(list_filter(list_transform(CASE WHEN ideal <> 'retrieved' THEN judged_grades ELSE grades END,
                                         lambda x: rf__gain_m(x, rel, gain, gains)),
                          lambda x: x > 0), 'DESC');

-- DCG@k of an ideal list of gains (descending); ideal 'full': plus positions L+1..k, L = its length, each holding
-- its last gain (an empty list stays 0)
CREATE OR REPLACE MACRO rf__ideal_dcg_b(gains, k, base, ideal) AS
    rf__dcg_list_b(gains, k, base)
    + CASE WHEN ideal = 'full' AND len(gains) > 0 AND len(gains) < k
           THEN gains[-1] * list_sum(list_transform(range(len(gains) + 1, k + 1), lambda i: 1.0 / rf__disc(i, base)))
           ELSE 0.0 END;

CREATE OR REPLACE MACRO rf__idcg_grades(grades, judged_grades, k, rel, gain, ideal, base, gains) AS
    rf__finite_gain(rf__ideal_dcg_b(rf__ideal_gains(grades, judged_grades, rel, gain, ideal, gains), k, base, ideal),
                    greatest(list_max(grades), list_max(judged_grades)));

-- judged_grades: the grades of every judged row of the query, retrieved or not (NULLs are ignored)
-- the parameter rules of rf_idcg and rf_agg_idcg, stated once: each check passes or raises its rf:param error (owner)
CREATE OR REPLACE MACRO rf__idcg_bad(k, rel, gain, ideal, log_base, gains, owner) AS
    rf__k(k, owner) < 0
        OR isnan(rf__relopt(rel, owner))
        OR rf__choice(gain, ['linear', 'exponential', 'binary'], 'gain', owner) = ''
        OR rf__choice(ideal, ['judged', 'retrieved', 'full'], 'ideal', owner) = ''
        OR NOT rf__full_k(ideal, k, owner)
        OR rf__log_base(log_base, owner) < 0
        OR cardinality(rf__gains(gains, owner)) < 0;

CREATE OR REPLACE MACRO rf_idcg(grades, judged_grades, k := NULL, rel := NULL, gain := 'linear', ideal := 'judged',
                                log_base := 2.0, gains := NULL) AS
    CASE WHEN rf__idcg_bad(k, rel, gain, ideal, log_base, gains, 'rf_idcg')
         THEN NULL
         ELSE rf__idcg_grades(coalesce(grades, []), coalesce(judged_grades, []), rf__as_k(k), rf__as_num(rel),
                              rf__lc(gain), rf__lc(ideal), rf__as_num(log_base), TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- the positive gains of the ideal list, descending (sorted here: the list's order does not depend on the order in
-- which the rows reach the aggregate)
-- (of the rows' gains g = rf__gain_m(grade, ...): the table macros compute g once per row, rf:row below)
CREATE OR REPLACE MACRO rf__agg_ideal_gains_g(pos, g, ideal) AS
    list_sort(coalesce(list(g) FILTER (WHERE g > 0 AND (ideal <> 'retrieved' OR pos IS NOT NULL)),
                       CAST([] AS DOUBLE[])), 'DESC');

CREATE OR REPLACE MACRO rf__agg_ideal_gains(pos, grade, rel, gain, ideal, gains) AS
    rf__agg_ideal_gains_g(pos, rf__gain_m(grade, rel, gain, gains), ideal);

CREATE OR REPLACE MACRO rf__agg_idcg_g(pos, g, grade, k, gain, ideal, base) AS
    rf__finite_gain(rf__ideal_dcg_b(rf__agg_ideal_gains_g(pos, g, ideal), k, base, ideal),
                    rf__agg_top_grade(grade, gain));

CREATE OR REPLACE MACRO rf__agg_idcg(pos, grade, k, rel, gain, ideal, base, gains) AS
    rf__agg_idcg_g(pos, rf__gain_m(grade, rel, gain, gains), grade, k, gain, ideal, base);

CREATE OR REPLACE MACRO rf_agg_idcg(pos, grade, k := NULL, rel := NULL, gain := 'linear', ideal := 'judged',
                                    log_base := 2.0, gains := NULL) AS
    CASE WHEN rf__idcg_bad(k, rel, gain, ideal, log_base, gains, 'rf_agg_idcg')
         THEN NULL
         ELSE rf__agg_idcg(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(gain), rf__lc(ideal), rf__as_num(log_base),
                           TRY_CAST(gains AS MAP(DOUBLE, DOUBLE))) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column IDCG order=70 nothing_relevant=none better=none
-- rf:row rf__t_gain := rf__gain_m(z.rf_g, graded_rel, gain, gains)
-- rf:value rf__agg_idcg_g(x.rf_pos, x.rf__t_gain, x.rf_g, k, gain, ideal, log_base)
