-- ------------------------------------------------------------------------- the Student t distribution
-- rf_t_cdf(t, df) and rf_t_ppf(q, df) (scipy.stats.t.cdf / t.ppf; df > 0, real), through the regularized
-- incomplete beta function: P(|T| >= |t|) = I_x(df/2, 1/2) with x = df / (df + t^2).
-- I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) * CF, CF the continued fraction of Numerical Recipes (betacf) by the
-- modified Lentz method, used directly when x < (a + 1) / (a + b + 2), else through I_x(a, b) = 1 - I_{1-x}(b, a),
-- where it converges fast: at most 44 iterations for df in [1, 1e10] and any t (measured); 64 are run.
-- `list_transform([value], lambda rf__v: ...)[1]` binds a value once (a macro argument used n times would be
-- copied n times into the expression).

CREATE OR REPLACE MACRO rf__tiny(v) AS CASE WHEN abs(v) < 1e-300 THEN 1e-300 ELSE v END;

-- the continued fraction of I_x(a, b) for w = {'a', 'b', 'x'}: 128 half-steps of modified Lentz over the
-- precomputed coefficients (field c of the list's entries after the first, which is the initial state: DuckDB 1.x
-- has no typed initial value in list_reduce); the state carries the product h up to the previous half-step:
-- h * c * d is the value
CREATE OR REPLACE MACRO rf__betacf(w) AS
    list_reduce(
        list_prepend(
            {'c': CAST(1.0 AS DOUBLE), 'd': 1.0 / rf__tiny(1.0 - (w.a + w.b) * w.x / (w.a + 1.0)),
             'h': CAST(1.0 AS DOUBLE)},
            list_transform(range(2, 130), lambda rf__j: {'c': CAST(
                CASE WHEN rf__j % 2 = 0
                     THEN (rf__j // 2) * (w.b - (rf__j // 2)) * w.x / ((w.a - 1.0 + rf__j) * (w.a + rf__j))
                     ELSE -(w.a + (rf__j // 2)) * (w.a + w.b + (rf__j // 2)) * w.x
                          / ((w.a + rf__j - 1.0) * (w.a + rf__j)) END AS DOUBLE),
                'd': CAST(0 AS DOUBLE), 'h': CAST(0 AS DOUBLE)})),
        lambda rf__s, rf__e: {'c': rf__tiny(1.0 + rf__e.c / rf__s.c), 'd': 1.0 / rf__tiny(1.0 + rf__e.c * rf__s.d),
                              'h': rf__s.h * rf__s.c * rf__s.d});

-- I_x(a, b) for v = {'a', 'b', 'x', 'y'} with y = 1 - x given separately (exact when x is near 1)
CREATE OR REPLACE MACRO rf__ibeta_v(v) AS
    CASE WHEN v.x <= 0 THEN CAST(0 AS DOUBLE)
         WHEN v.y <= 0 THEN CAST(1 AS DOUBLE)
         ELSE list_transform(
                  [CASE WHEN v.x < (v.a + 1.0) / (v.a + v.b + 2.0)
                        THEN {'a': v.a, 'b': v.b, 'x': v.x, 'flip': false}
                        ELSE {'a': v.b, 'b': v.a, 'x': v.y, 'flip': true} END],
                  lambda rf__w: list_transform(
                      [exp(lgamma(v.a + v.b) - lgamma(v.a) - lgamma(v.b) + v.a * ln(v.x) + v.b * ln(v.y))
                       * list_transform([rf__betacf(rf__w)], lambda rf__s: rf__s.h * rf__s.c * rf__s.d)[1] / rf__w.a],
                      lambda rf__f: CASE WHEN rf__w.flip THEN 1.0 - rf__f ELSE rf__f END)[1])[1] END;

-- two-sided tail P(|T| >= |t|) of Student's t with df degrees of freedom (the paired t-test's p-value)
CREATE OR REPLACE MACRO rf__t_p2(t, df) AS
    list_transform([{'t': CAST(t AS DOUBLE), 'df': CAST(df AS DOUBLE)}], lambda rf__u:
        CASE WHEN isnan(rf__u.t) OR isnan(rf__u.df) OR rf__u.df <= 0 THEN CAST('NaN' AS DOUBLE)
             WHEN isinf(rf__u.t) THEN CAST(0 AS DOUBLE)
             ELSE rf__ibeta_v({'a': rf__u.df / 2.0, 'b': 0.5, 'x': rf__u.df / (rf__u.df + rf__u.t * rf__u.t),
                               'y': rf__u.t * rf__u.t / (rf__u.df + rf__u.t * rf__u.t)}) END)[1];

-- P(T <= t) for Student's t with df > 0 degrees of freedom (scipy.stats.t.cdf)
CREATE OR REPLACE MACRO rf_t_cdf(t, df) AS
    list_transform([{'t': CAST(t AS DOUBLE), 'df': CAST(df AS DOUBLE)}], lambda rf__u:
        list_transform([rf__t_p2(rf__u.t, rf__u.df) / 2.0], lambda rf__h:
            CASE WHEN rf__u.t > 0 THEN 1.0 - rf__h ELSE rf__h END)[1])[1];

-- the t > 0 whose two-sided tail is alpha (u = {'alpha', 'df'}): 40 bisection steps on the angle th in
-- [0, pi/2] of t = sqrt(df) tan(th) (its x = cos^2 th and 1 - x = sin^2 th are exact; the tail falls from 1 to
-- 0), then 4 Newton steps on t with the density
CREATE OR REPLACE MACRO rf__t_upper(u) AS
    list_reduce(list_prepend(
        sqrt(u.df) * tan(list_reduce(list_prepend({'lo': CAST(0 AS DOUBLE), 'hi': pi() / 2.0},
                                                  list_transform(range(40), lambda rf__i: {'lo': CAST(0 AS DOUBLE),
                                                                                           'hi': CAST(0 AS DOUBLE)})),
            lambda rf__b, rf__i: list_transform([(rf__b.lo + rf__b.hi) / 2.0], lambda rf__m:
                CASE WHEN rf__ibeta_v({'a': u.df / 2.0, 'b': 0.5, 'x': cos(rf__m) * cos(rf__m),
                                       'y': sin(rf__m) * sin(rf__m)}) > u.alpha
                     THEN {'lo': rf__m, 'hi': rf__b.hi} ELSE {'lo': rf__b.lo, 'hi': rf__m} END)[1]).lo),
        [CAST(0 AS DOUBLE), 0.0, 0.0, 0.0]),
        lambda rf__t, rf__i: rf__t + (rf__t_p2(rf__t, u.df) - u.alpha) / 2.0
            / exp(lgamma((u.df + 1.0) / 2.0) - lgamma(u.df / 2.0) - 0.5 * ln(u.df * pi())
                  - (u.df + 1.0) / 2.0 * ln(1.0 + rf__t * rf__t / u.df)));

-- the q-quantile of Student's t with df > 0 degrees of freedom (scipy.stats.t.ppf): -inf / +inf at q = 0 / 1,
-- NaN outside [0, 1]
CREATE OR REPLACE MACRO rf_t_ppf(q, df) AS
    list_transform([{'q': CAST(q AS DOUBLE), 'df': CAST(df AS DOUBLE)}], lambda rf__u:
        CASE WHEN rf__u.q IS NULL OR rf__u.df IS NULL THEN CAST(NULL AS DOUBLE)
             WHEN isnan(rf__u.q) OR isnan(rf__u.df) OR rf__u.q < 0 OR rf__u.q > 1 OR rf__u.df <= 0
             THEN CAST('NaN' AS DOUBLE)
             WHEN rf__u.q = 0 THEN CAST('-inf' AS DOUBLE)
             WHEN rf__u.q = 1 THEN CAST('inf' AS DOUBLE)
             WHEN rf__u.q = 0.5 THEN CAST(0 AS DOUBLE)
             ELSE sign(rf__u.q - 0.5) * rf__t_upper({'alpha': 2.0 * least(rf__u.q, 1.0 - rf__u.q), 'df': rf__u.df})
        END)[1];

-- ------------------------------------------------------------------------------------------- rf_compare
-- rf_compare(tbl, system := 'system', baseline := <required>, metrics := [...], k, segments, ci := 0.95,
-- correction := 'holm', alternative := NULL, margin := NULL, and rf_per_query's parameters): every system against
-- the baseline, per segment and metric, with the paired t-test on the per-query differences =
-- rankframe.compare(df, metrics, system=..., baseline=..., by=segments, test='t', ci_method='t', correction=...,
-- alternative=..., margin=...). See docs/sql.md "Comparing systems in SQL".

-- the alternative of rf_compare: NULL is 'two-sided', or 'greater' with a non-inferiority margin (the rule of
-- rankframe.comparing.rules.check_alternative)
CREATE OR REPLACE MACRO rf__alternative(alternative, margin) AS
    CASE WHEN alternative IS NOT NULL THEN lower(CAST(alternative AS VARCHAR))
         WHEN margin IS NOT NULL THEN 'greater' ELSE 'two-sided' END;

-- the one rule of equal per-query values (rankframe.stats.equal, docs/comparing.md "Equal values"):
-- |x - y| <= 1e-12 * max(1, |x|, |y|), or x = y; AP = 0.7 computed two ways is a tie, not a win
CREATE OR REPLACE MACRO rf__equal(x, y) AS
    x = y OR (isfinite(x - y) AND abs(x - y) <= 1e-12 * greatest(1.0, abs(x), abs(y)));

-- the output columns after the segments (a segment may not have one of these names)
CREATE OR REPLACE MACRO rf__compare_outputs() AS
    ['metric', 'system', 'baseline', 'n', 'mean', 'baseline_mean', 'delta', 'ci_low', 'ci_high', 'p_value',
     'p_adjusted', 'ci_low_adjusted', 'ci_high_adjusted', 'statistic', 'df', 'sd_diff', 'effect_size', 'wins', 'ties', 'losses', 'note'];

-- the metric columns named by `metrics` (any case), in rf_per_query's order; ['P'] when none is known, so that
-- the column selection binds and the check (rf__compare_check) raises its error
CREATE OR REPLACE MACRO rf__compare_cols(metrics) AS
    CASE WHEN len(list_filter(rf__metric_columns(), lambda n: list_contains(
                  list_transform(TRY_CAST(metrics AS VARCHAR[]), lambda m: lower(m)), lower(n)))) = 0
         THEN ['P']
         ELSE list_filter(rf__metric_columns(), lambda n: list_contains(
                  list_transform(TRY_CAST(metrics AS VARCHAR[]), lambda m: lower(m)), lower(n))) END;

-- true, or the error of the metrics list of rf_compare and rf_anova (owner: the macro named in the message): a
-- non-empty list of metric columns of rf_per_query, written once for both
CREATE OR REPLACE MACRO rf__check_metrics(metrics, owner) AS
    CASE WHEN metrics IS NULL OR typeof(metrics) <> 'VARCHAR[]' OR len(metrics) = 0
              OR len(list_filter(TRY_CAST(metrics AS VARCHAR[]), lambda m: m IS NULL OR NOT list_contains(
                     list_transform(rf__metric_columns(), lambda x: lower(x)), lower(m)))) > 0
         THEN error(printf('rf:param: The ''metrics'' parameter of %s must be a non-empty list of metric '
                           || 'columns of rf_per_query (%s; k := sets the cutoff). Got %s instead.',
                           owner, rf__quoted(rf__metric_columns()), rf__repr(metrics)))
         ELSE true END;

-- true, or the error of the system column's rule, written once for rf_compare and rf_anova (owner: the macro named in
-- the message; taken: the output column names the system column may not take besides the long table's own)
CREATE OR REPLACE MACRO rf__check_system(names, system, segments, owner, taken) AS
    CASE WHEN system IS NULL OR typeof(system) <> 'VARCHAR'
         THEN error(printf('rf:param: The ''system'' parameter of %s must be a column name (such as '
                           || '''system''). Got %s instead.', owner, rf__repr(system)))
         WHEN NOT list_contains(names, CAST(system AS VARCHAR))
         THEN error(printf('rf:param: The ''system'' parameter of %s names a column not in the table: '
                           || '''%s''%s. Columns in the table: %s.', owner, system,
                           coalesce(' (did you mean ''' || rf__closest(CAST(system AS VARCHAR), names) || '''?)', ''),
                           rf__quoted(names)))
         WHEN lower(CAST(system AS VARCHAR)) IN ('query', 'item', 'rank', 'score', 'relevance')
              OR list_contains(list_transform(taken, lambda x: lower(x)), lower(CAST(system AS VARCHAR)))
         THEN error(printf('rf:param: The ''system'' parameter of %s must name the column that says which '
                           || 'system (run) each row comes from, not ''%s''.', owner, system))
         WHEN list_contains(list_transform(TRY_CAST(segments AS VARCHAR[]), lambda x: lower(x)), lower(CAST(system AS VARCHAR)))
         THEN error(printf('rf:param: the system column ''%s'' is also in segments := %s: %s adds it to the '
                           || 'segments itself; segments names only the segment columns (country, device, ...).', system,
                           rf__repr(segments), owner))
         ELSE true END;

-- true, or the error for the first bad parameter of rf_compare that needs no data (names: the table's columns)
CREATE OR REPLACE MACRO rf__compare_check(names, system, segments, metrics, ci, correction, alternative, margin
                                          /* rf:generated direction_params */) AS
    CASE WHEN NOT rf__check_system(names, system, segments, 'rf_compare', rf__outputs()) THEN false
         WHEN len(list_filter(TRY_CAST(segments AS VARCHAR[]),
                              lambda x: list_contains(rf__compare_outputs(), lower(x)))) > 0
         THEN error(printf('rf:param: The ''segments'' parameter of rf_compare names column(s) that are also output '
                           || 'columns of rf_compare: %s. Rename them in a view.',
                           rf__quoted(list_filter(TRY_CAST(segments AS VARCHAR[]),
                                                  lambda x: list_contains(rf__compare_outputs(), lower(x))))))
         WHEN NOT rf__check_metrics(metrics, 'rf_compare') THEN false
         WHEN rf__open_unit(ci, 'ci', 'rf_compare', ', e.g. 0.95') IS NULL THEN false
         WHEN lower(TRY_CAST(correction AS VARCHAR)) = 'westfall-young'
         THEN error('rf:param: rf_compare runs the paired t-test from per-query values in SQL; '
                    || 'correction := ''westfall-young'' resamples the sign flips of the randomization test (the '
                    || 'maximum over every comparison of each flip), which has no closed form in SQL: use '
                    || 'rankframe.compare(..., test=''randomization'', correction=''westfall-young''), or correction '
                    || ':= ''holm''.')
         WHEN correction IS NOT NULL
              AND rf__choice(correction, ['holm', 'bonferroni', 'bh', 'none'], 'correction', 'rf_compare') = ''
         THEN false
         WHEN alternative IS NOT NULL
              AND rf__choice(alternative, ['two-sided', 'greater', 'less'], 'alternative', 'rf_compare') = ''
         THEN false
         WHEN margin IS NOT NULL AND NOT coalesce(rf__number(margin) >= 0 AND isfinite(rf__number(margin)), false)
         THEN error(printf('rf:param: The ''margin'' parameter of rf_compare must be NULL or a finite number >= 0 '
                           || '(in the metric''s units). Got %s instead.', rf__repr(margin)))
         WHEN margin IS NOT NULL AND len(list_filter(rf__compare_cols(metrics), lambda c: rf__direction(c/* rf:generated direction_args */) <> 1)) > 0
         THEN error(printf('rf:param: margin := tests that a system is not worse than the baseline by the margin, '
                           || 'where higher is better; %s has no direction (never better or worse: docs/metrics.md, '
                           || '"Which way is better"): leave it out of a call with a margin.',
                           rf__quoted(list_filter(rf__compare_cols(metrics), lambda c: rf__direction(c/* rf:generated direction_args */) <> 1))))
         WHEN margin IS NOT NULL AND rf__alternative(alternative, margin) <> 'greater'
         THEN error(printf('rf:param: margin := (non-inferiority: H0 delta <= -margin) is a one-sided test of '
                           || 'alternative := ''greater''; got alternative := %s: leave alternative out or pass '
                           || '''greater''.', rf__repr(alternative)))
         ELSE true END;

-- the error of n (segment, query) units with a value for some systems and not others (examples: the first few),
-- the one message of rf_compare and rf_anova (owner): neither has a missing= policy
CREATE OR REPLACE MACRO rf__misaligned(system, n, examples, owner) AS
    error(printf('rf:table[%s]: systems must be compared on the same queries within a segment, '
                 || 'but %s (segment, query) unit(s) have a value for some systems and none (no '
                 || 'row, or NULL/NaN) for others, e.g. %s. %s has no missing= policy: in '
                 || 'a view first, count such a query as 0 for the system that lacks it (like '
                 || 'trec_eval -c), or leave it out of that segment''s comparisons.', system, CAST(n AS VARCHAR),
                 examples, owner));

-- one row: true, or the error about the systems of the table (null names, fewer than 2; for rf_compare an unknown
-- baseline): owner 'rf_compare' or 'rf_anova', the one check of both
CREATE OR REPLACE MACRO rf__compare_systems(tbl, system, baseline, ok, owner) AS TABLE
    SELECT CASE WHEN NOT ok THEN false
                WHEN count(*) FILTER (WHERE s.rf__sys IS NULL) > 0
                THEN error(printf('rf:table[%s]: every row must name its system (no null values) (%s offending '
                                  || 'row(s)).', system, CAST(count(*) FILTER (WHERE s.rf__sys IS NULL) AS VARCHAR)))
                WHEN count(DISTINCT s.rf__sys) < 2
                THEN error(printf('rf:table[%s]: %s needs at least 2 systems in column ''%s''; found %s: %s.',
                                  system, owner, system,
                                  CAST(count(DISTINCT s.rf__sys) AS VARCHAR),
                                  rf__quoted(list(DISTINCT s.rf__sys ORDER BY s.rf__sys))))
                WHEN owner = 'rf_compare' AND (baseline IS NULL
                     OR NOT list_contains(list(DISTINCT s.rf__sys ORDER BY s.rf__sys), CAST(baseline AS VARCHAR)))
                THEN error(printf('rf:param: The ''baseline'' parameter of rf_compare must be one of the systems in '
                                  || 'column ''%s'': %s. Got %s instead.%s', system,
                                  rf__quoted(list(DISTINCT s.rf__sys ORDER BY s.rf__sys)[1:20]), rf__repr(baseline),
                                  coalesce(' Hint: did you mean ''' || rf__closest(CAST(baseline AS VARCHAR),
                                                                                 list(DISTINCT s.rf__sys ORDER BY s.rf__sys))
                                           || '''?', '')))
                ELSE true END AS rf__ok
    FROM (SELECT CAST(coalesce(*COLUMNS(lambda c: c = CAST(system AS VARCHAR) OR c = 'rf__nosys')) AS VARCHAR) AS rf__sys
          FROM (SELECT *, NULL AS rf__nosys FROM query_table(tbl))) AS s;

-- the long per-query values: segment columns, rf__seg (a struct of them), rf__sys, rf__q, rf__metric, rf__v
-- (NULL for a skipped or NaN value); ok: the check chain. The values per unit (segments..., system, query) are
-- rf_per_query's (the same macro, rf__per_query_ok, with every metric parameter of the call)
CREATE OR REPLACE MACRO rf__compare_long(tbl, system, segments, metrics, order_by, ok,
                                         /* rf:generated metric_args */) AS TABLE
    SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                             OR c = 'rf__all'),
           struct_pack(*COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                                          OR c = 'rf__all')) AS rf__seg,
           coalesce(*COLUMNS(lambda c: c = CAST(system AS VARCHAR) OR c = 'rf__nosys')) AS rf__sys,
           l.query AS rf__q,
           unnest(rf__compare_cols(metrics)) AS rf__metric,
           unnest(list_transform(list_value(*COLUMNS(lambda c: list_contains(rf__compare_cols(metrics), c))),
                                 lambda v: CASE WHEN isnan(v) THEN NULL ELSE v END)) AS rf__v
    FROM (SELECT *, NULL AS rf__nosys, true AS rf__all
          FROM rf__per_query_ok(tbl, list_append(TRY_CAST(segments AS VARCHAR[]), CAST(system AS VARCHAR)), order_by,
                                ok, /* rf:generated metric_args */)) AS l;


-- rf_compare: see the head of this section and docs/sql.md. Steps: the check chain (rf_compare's parameters
-- and system column, then the table and rf_per_query's parameters, repeated rows, the systems and the baseline),
-- the per-query values, the alignment check, per (segment, metric, system) the paired summary of the differences
-- system - baseline over the queries both have a value for, the t-test and interval, the correction over every
-- row of the call.
CREATE OR REPLACE MACRO rf_compare(tbl, system := 'system', baseline := NULL, metrics := NULL,
                                   /* rf:generated metric_params */, segments := [], ci := 0.95, correction := 'holm',
                                   alternative := NULL, margin := NULL, order_by := 'rank',
                                   allow_duplicates := false) AS TABLE
    WITH rf__long AS MATERIALIZED (
        SELECT * FROM rf__compare_long(
            tbl, system, segments, metrics, order_by,
            (SELECT y.rf__ok FROM rf__compare_systems(tbl, system, baseline, (
                SELECT d.rf__ok FROM rf__check_duplicates(
                    tbl, list_append(TRY_CAST(segments AS VARCHAR[]), CAST(system AS VARCHAR)), allow_duplicates, (
                    SELECT c.rf__ok FROM rf__check_table(
                        tbl, segments, 'rf_compare', rf__outputs(),
                        rf__check_params(order_by, allow_duplicates, 'rf_compare', /* rf:generated metric_args */)
                        AND (SELECT rf__compare_check(n.rf__names, system, segments, metrics, ci, correction,
                                                      alternative, margin/* rf:generated direction_args */)
                             FROM rf__columns(tbl) AS n)) AS c)) AS d), 'rf_compare') AS y),
            /* rf:generated metric_args */)),
    rf__present AS (
        SELECT l.rf__seg, list(DISTINCT CAST(l.rf__sys AS VARCHAR) ORDER BY CAST(l.rf__sys AS VARCHAR)) AS rf__systems
        FROM rf__long AS l GROUP BY ALL),
    rf__aligned AS (
        SELECT CASE WHEN count(*) > 0
                    THEN rf__misaligned(system, count(DISTINCT (a.rf__seg, a.rf__q)), array_to_string(min(a.rf__example, 3), '; '),
                                        'rf_compare')
                    ELSE true END AS rf__ok
        FROM (SELECT u.rf__seg, u.rf__q, printf('%squery=%s metric=%s without a value for %s',
                            replace(replace(CAST(u.rf__seg AS VARCHAR) || ' ', ', ''rf__all'': true', ''),
                                    '{''rf__all'': true} ', ''),
                            CAST(u.rf__q AS VARCHAR), u.rf__metric,
                            rf__quoted(list_sort(list_filter(pr.rf__systems,
                                                             lambda s: NOT list_contains(u.rf__have, s)))))
                         AS rf__example
              FROM (SELECT l.rf__seg, l.rf__q, l.rf__metric,
                           coalesce(list(CAST(l.rf__sys AS VARCHAR) ORDER BY CAST(l.rf__sys AS VARCHAR)) FILTER (WHERE l.rf__v IS NOT NULL), [])
                               AS rf__have
                    FROM rf__long AS l
                    GROUP BY ALL) AS u
              JOIN rf__present AS pr ON u.rf__seg IS NOT DISTINCT FROM pr.rf__seg
              WHERE len(u.rf__have) > 0 AND len(u.rf__have) < len(pr.rf__systems)) AS a),
    rf__pairs AS (
        SELECT x.rf__seg, x.rf__metric, x.rf__sys, x.rf__v AS rf__x, y.rf__v AS rf__y, x.rf__v - y.rf__v AS rf__d,
               sum(x.rf__v - y.rf__v) OVER (PARTITION BY x.rf__seg, x.rf__metric, x.rf__sys ORDER BY x.rf__v - y.rf__v
                                            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
                   / count(*) OVER (PARTITION BY x.rf__seg, x.rf__metric, x.rf__sys) AS rf__dbar
        FROM rf__long AS x
        JOIN rf__long AS y
          ON x.rf__seg IS NOT DISTINCT FROM y.rf__seg AND x.rf__metric = y.rf__metric AND x.rf__q = y.rf__q
        WHERE CAST(y.rf__sys AS VARCHAR) = CAST(baseline AS VARCHAR)
          AND CAST(x.rf__sys AS VARCHAR) <> CAST(baseline AS VARCHAR)
          AND x.rf__v IS NOT NULL AND y.rf__v IS NOT NULL
          AND (SELECT rf__ok FROM rf__aligned)),
    rf__summary AS (
        SELECT q.rf__seg, q.rf__metric, q.rf__sys, count(*) AS n,
               rf__xsum(q.rf__x) / count(*) AS rf__mean_x, rf__xsum(q.rf__y) / count(*) AS rf__mean_y,
               rf__xsum(q.rf__d) / count(*) AS rf__delta,
               sqrt(sum((q.rf__d - q.rf__dbar) * (q.rf__d - q.rf__dbar) ORDER BY (q.rf__d - q.rf__dbar) * (q.rf__d - q.rf__dbar))
                    / (count(*) - 1.0)) AS rf__sd,
               count(*) FILTER (WHERE q.rf__d > 0 AND NOT rf__equal(q.rf__x, q.rf__y)) AS rf__above,
               count(*) FILTER (WHERE q.rf__d < 0 AND NOT rf__equal(q.rf__x, q.rf__y)) AS rf__below
        FROM rf__pairs AS q
        GROUP BY ALL),
    rf__quantile AS (
        SELECT DISTINCT s.n, rf_t_ppf(CASE WHEN rf__alternative(alternative, margin) = 'two-sided'
                                           THEN 0.5 + rf__as_num(ci) / 2.0 ELSE rf__as_num(ci) END, s.n - 1) AS rf__tq
        FROM rf__summary AS s WHERE s.n >= 2),
    rf__grid AS (
        SELECT g.*, m.rf__metric, m.rf__mpos, y.rf__sys
        FROM (SELECT DISTINCT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c)
                                                 AND NOT rf__reserved(c)) OR c = 'rf__all'), l.rf__seg
              FROM rf__long AS l) AS g
        CROSS JOIN (SELECT unnest(rf__compare_cols(metrics)) AS rf__metric,
                           unnest(range(1, len(rf__compare_cols(metrics)) + 1)) AS rf__mpos) AS m
        CROSS JOIN (SELECT DISTINCT l.rf__sys FROM rf__long AS l
                    WHERE CAST(l.rf__sys AS VARCHAR) <> CAST(baseline AS VARCHAR)) AS y),
    rf__rows AS (
        SELECT g.* EXCLUDE (rf__metric), g.rf__metric AS rf__name, coalesce(s.n, 0) AS n,
               s.rf__mean_x, s.rf__mean_y, s.rf__delta, s.rf__sd, q.rf__tq,
               coalesce(s.rf__above, 0) AS rf__above, coalesce(s.rf__below, 0) AS rf__below,
               rf__direction(g.rf__metric/* rf:generated direction_args */) AS rf__dir,
               list_contains(pb.rf__systems, CAST(baseline AS VARCHAR)) AS rf__base_here,
               list_contains(pb.rf__systems, CAST(g.rf__sys AS VARCHAR)) AS rf__sys_here
        FROM rf__grid AS g
        LEFT JOIN rf__summary AS s
          ON g.rf__seg IS NOT DISTINCT FROM s.rf__seg AND g.rf__metric = s.rf__metric AND g.rf__sys = s.rf__sys
        LEFT JOIN rf__quantile AS q ON s.n = q.n
        LEFT JOIN rf__present AS pb ON g.rf__seg IS NOT DISTINCT FROM pb.rf__seg),
    rf__tests AS (
        SELECT r.*,
               r.n - r.rf__above - r.rf__below AS rf__ties,
               CASE WHEN r.n < 2 OR (r.rf__above + r.rf__below = 0 AND coalesce(rf__as_num(margin), 0) = 0) THEN NULL
                    ELSE (r.rf__delta + coalesce(rf__as_num(margin), 0))
                         / (r.rf__sd / sqrt(CAST(r.n AS DOUBLE))) END AS rf__t,
               CASE WHEN r.n >= 2 AND NOT isnan(r.rf__delta / r.rf__sd) THEN r.rf__delta / r.rf__sd END AS rf__effect,
               CASE WHEN r.n >= 2 THEN r.rf__tq * (r.rf__sd / sqrt(CAST(r.n AS DOUBLE))) END AS rf__half
        FROM rf__rows AS r),
    rf__tested AS (
        SELECT t.*,
               CASE WHEN t.rf__t IS NULL THEN NULL
                    WHEN rf__alternative(alternative, margin) = 'greater' THEN rf_t_cdf(-t.rf__t, t.n - 1)
                    WHEN rf__alternative(alternative, margin) = 'less' THEN rf_t_cdf(t.rf__t, t.n - 1)
                    ELSE rf__t_p2(t.rf__t, t.n - 1) END AS rf__p
        FROM rf__tests AS t),
    rf__ranked AS (
        SELECT t.*, count(t.rf__p) OVER () AS rf__m,
               row_number() OVER (ORDER BY t.rf__p ASC NULLS LAST) AS rf__rank
        FROM rf__tested AS t),
    rf__adjusted AS (
        SELECT a.*,
               max(least(1.0, (a.rf__m - a.rf__rank + 1.0) * a.rf__p)) OVER (
                   ORDER BY a.rf__rank ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rf__holm,
               min(least(1.0, CAST(a.rf__m AS DOUBLE) / a.rf__rank * a.rf__p)) OVER (
                   ORDER BY a.rf__rank ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS rf__bh
        FROM rf__ranked AS a),
    -- the interval that agrees with p_adjusted (docs/decisions/0017-adjusted-intervals.md): the t interval at
    -- alpha / m (Holm, Bonferroni) or R * alpha / m (BH, R: the rows with p_adjusted <= alpha), the marginal one
    -- without a correction
    rf__reject AS (
        SELECT a.*, count(*) FILTER (WHERE a.rf__bh <= 1.0 - rf__as_num(ci)) OVER () AS rf__r
        FROM rf__adjusted AS a),
    rf__intervals AS (
        SELECT a.*,
               CASE WHEN a.n >= 2 AND a.rf__m > 0 AND rf__lc(correction) IN ('holm', 'bonferroni', 'bh')
                    THEN rf_t_ppf(1.0 - CASE WHEN rf__lc(correction) = 'bh' THEN greatest(1, a.rf__r) ELSE 1 END
                                        * (1.0 - rf__as_num(ci)) / a.rf__m
                                        / CASE WHEN rf__alternative(alternative, margin) = 'two-sided' THEN 2.0
                                               ELSE 1.0 END,
                                  a.n - 1) * (a.rf__sd / sqrt(CAST(a.n AS DOUBLE)))
                    ELSE a.rf__half END AS rf__half_adj
        FROM rf__reject AS a)
    SELECT * EXCLUDE (rf__all, rf__seg, rf__mpos, rf__sys) FROM (
    SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                             OR c IN ('rf__all', 'rf__seg', 'rf__mpos', 'rf__sys')),
           rf__column_label(o.rf__name, k) AS metric,
           o.rf__sys AS system,
           (SELECT any_value(l.rf__sys) FROM rf__long AS l
            WHERE CAST(l.rf__sys AS VARCHAR) = CAST(baseline AS VARCHAR)) AS baseline,
           o.n,
           o.rf__mean_x AS mean,
           o.rf__mean_y AS baseline_mean,
           o.rf__delta AS delta,
           CASE WHEN o.n >= 2 AND rf__alternative(alternative, margin) = 'less' THEN CAST('-inf' AS DOUBLE)
                ELSE o.rf__delta - o.rf__half END AS ci_low,
           CASE WHEN o.n >= 2 AND rf__alternative(alternative, margin) = 'greater' THEN CAST('inf' AS DOUBLE)
                ELSE o.rf__delta + o.rf__half END AS ci_high,
           o.rf__p AS p_value,
           CASE WHEN o.rf__p IS NULL THEN NULL
                WHEN rf__lc(correction) = 'holm' THEN o.rf__holm
                WHEN rf__lc(correction) = 'bonferroni' THEN least(1.0, o.rf__m * o.rf__p)
                WHEN rf__lc(correction) = 'bh' THEN o.rf__bh
                ELSE o.rf__p END AS p_adjusted,
           CASE WHEN o.n >= 2 AND rf__alternative(alternative, margin) = 'less' THEN CAST('-inf' AS DOUBLE)
                ELSE o.rf__delta - o.rf__half_adj END AS ci_low_adjusted,
           CASE WHEN o.n >= 2 AND rf__alternative(alternative, margin) = 'greater' THEN CAST('inf' AS DOUBLE)
                ELSE o.rf__delta + o.rf__half_adj END AS ci_high_adjusted,
           o.rf__t AS statistic,
           CASE WHEN o.n >= 2 THEN CAST(o.n - 1 AS DOUBLE) END AS df,
           CASE WHEN o.n >= 2 THEN o.rf__sd END AS sd_diff,
           o.rf__effect AS effect_size,
           -- a win is a query where the system is better in the metric's direction; none without a direction
           CASE o.rf__dir WHEN 1 THEN o.rf__above WHEN -1 THEN o.rf__below END AS wins,
           o.rf__ties AS ties,
           CASE o.rf__dir WHEN 1 THEN o.rf__below WHEN -1 THEN o.rf__above END AS losses,
           CASE WHEN NOT o.rf__sys_here THEN 'system has no queries in this segment'
                WHEN NOT o.rf__base_here THEN 'baseline has no queries in this segment'
                WHEN o.n = 0 THEN 'no query compared'
                WHEN o.n = 1 THEN 'only 1 query: no test, interval or effect size (n < 2)'
                WHEN o.rf__above + o.rf__below = 0 AND coalesce(rf__as_num(margin), 0) = 0
                THEN 'identical on every query (all differences 0): no p-value'
                WHEN o.rf__sd = 0 THEN 'every difference is the same (sd = 0)'
           END AS note
    FROM rf__intervals AS o)
    ORDER BY rf__seg, rf__mpos, rf__sys;
