-- ------------------------------------------------------------------------------------------------ rf_anova
-- rankframe.anova as one table macro: per (segment, metric) the omnibus two-way (system x query) ANOVA and, with
-- interaction := 'col', the split-plot test of the system x col interaction (col a between-query column: every
-- query in one group), the formulas of rankframe/stats/anova.py written as sums over the cells (one value per
-- system and query): with r_q the query's mean, m_hj the mean of system j over group h, m_h group h's mean, M_j
-- system j's mean and G the grand mean (every mean an avg() window),
--   SS_system = sum (M_j - G)^2, SS_interaction = sum (m_hj - m_h - M_j + G)^2, SS_error = sum (v - r_q - m_hj + m_h)^2
-- (without interaction there is one group, m_hj = M_j and SS_error is the blocked residual). The p-value
-- P(F_{d1, d2} >= f) = I_x(d2/2, d1/2) with x = d2 / (d2 + d1 f): compare.sql's regularized incomplete beta
-- (rf__ibeta_v). Per-query values, their checks and the query-alignment error are rf_compare's (rf__compare_long,
-- the same words); like rf_compare there is no missing= policy (misaligned queries are an error).

-- P(F >= f) for the F distribution with d1, d2 > 0 degrees of freedom (scipy.special.fdtrc); NULL without one
CREATE OR REPLACE MACRO rf__f_sf(f, d1, d2) AS
    CASE WHEN f IS NULL OR d1 IS NULL OR d2 IS NULL OR d1 <= 0 OR d2 <= 0 THEN NULL
         WHEN isinf(f) THEN CAST(0 AS DOUBLE)
         ELSE rf__ibeta_v({'a': d2 / 2.0, 'b': d1 / 2.0, 'x': d2 / (d2 + d1 * f), 'y': d1 * f / (d2 + d1 * f)}) END;

-- the output columns after the segments (a segment or the interaction column may not have one of these names)
CREATE OR REPLACE MACRO rf__anova_outputs() AS
    ['metric', 'term', 'n', 'systems', 'groups', 'statistic', 'df', 'df_error', 'p_value', 'ss', 'ss_error', 'mse',
     'partial_eta_sq', 'note', 'value'];

-- the unit columns of the per-query values: the segments, then the interaction column when there is one
CREATE OR REPLACE MACRO rf__anova_units(segments, interaction) AS
    list_concat(TRY_CAST(segments AS VARCHAR[]),
                list_filter([CAST(interaction AS VARCHAR)], lambda rf__x: rf__x IS NOT NULL));

-- true, or the error for the first bad parameter of rf_anova that needs no data (names: the table's columns)
CREATE OR REPLACE MACRO rf__anova_check(names, system, segments, interaction, metrics) AS
    CASE WHEN NOT rf__check_system(names, system, segments, 'rf_anova', ['metric', 'value']) THEN false
         WHEN interaction IS NOT NULL AND typeof(interaction) <> 'VARCHAR'
         THEN error(printf('rf:param: The ''interaction'' parameter of rf_anova must be NULL or a column name. '
                           || 'Got %s instead.', rf__repr(interaction)))
         WHEN interaction IS NOT NULL AND NOT list_contains(names, interaction)
         THEN error(printf('rf:param: The ''interaction'' parameter of rf_anova names a column not in the table: '
                           || '''%s''%s. Columns in the table: %s.', interaction,
                           coalesce(' (did you mean ''' || rf__closest(interaction, names) || '''?)', ''),
                           rf__quoted(names)))
         WHEN interaction IS NOT NULL
              AND (lower(interaction) = lower(CAST(system AS VARCHAR))
                   OR list_contains(list_transform(TRY_CAST(segments AS VARCHAR[]), lambda x: lower(x)),
                                    lower(interaction)))
         THEN error(printf('rf:param: the interaction column ''%s'' is the system column or in segments := %s: '
                           || 'interaction := names a between-query column (query length, country, ...) whose groups '
                           || 'rf_anova compares within each segment.', interaction, rf__repr(segments)))
         WHEN len(list_filter(rf__anova_units(segments, interaction),
                              lambda x: list_contains(rf__anova_outputs(), lower(x)))) > 0
         THEN error(printf('rf:param: The ''segments'' or ''interaction'' parameter of rf_anova names column(s) that '
                           || 'are also output columns of rf_anova: %s. Rename them in a view.',
                           rf__quoted(list_filter(rf__anova_units(segments, interaction),
                                                  lambda x: list_contains(rf__anova_outputs(), lower(x))))))
         WHEN NOT rf__check_metrics(metrics, 'rf_anova') THEN false
         ELSE true END;

-- rf_anova: see the head of this section and docs/sql.md. Steps: the check chain (rf_anova's parameters and
-- system column, then the table and rf_per_query's parameters, repeated rows, the systems), the per-query values,
-- the alignment check, one group per query, the means as windows, the sums of squares per (segment, metric),
-- the F tests, one row per term.
CREATE OR REPLACE MACRO rf_anova(tbl, system := 'system', metrics := NULL, /* rf:generated metric_params */,
                                 segments := [], interaction := NULL, order_by := 'rank',
                                 allow_duplicates := false) AS TABLE
    WITH rf__long AS MATERIALIZED (
        SELECT * FROM rf__compare_long(
            tbl, system, rf__anova_units(segments, interaction), metrics, order_by,
            (SELECT y.rf__ok FROM rf__compare_systems(tbl, system, NULL, (
                SELECT d.rf__ok FROM rf__check_duplicates(
                    tbl, list_append(rf__anova_units(segments, interaction), CAST(system AS VARCHAR)), allow_duplicates, (
                    SELECT c.rf__ok FROM rf__check_table(
                        tbl, rf__anova_units(segments, interaction), 'rf_anova', rf__outputs(),
                        rf__check_params(order_by, allow_duplicates, 'rf_anova', /* rf:generated metric_args */)
                        AND (SELECT rf__anova_check(n.rf__names, system, segments, interaction, metrics)
                             FROM rf__columns(tbl) AS n)) AS c)) AS d), 'rf_anova') AS y),
            /* rf:generated metric_args */)),
    rf__present AS (
        SELECT l.rf__seg, count(DISTINCT l.rf__sys) AS rf__ns FROM rf__long AS l GROUP BY ALL),
    rf__aligned AS (
        SELECT CASE WHEN count(*) > 0
                    THEN rf__misaligned(system, count(DISTINCT (u.rf__seg, u.rf__q)),
                                        array_to_string(list(u.rf__example ORDER BY u.rf__example)[1:3], '; '), 'rf_anova')
                    ELSE true END AS rf__ok
        FROM (SELECT l.rf__seg, l.rf__q, printf('query=%s metric=%s', CAST(l.rf__q AS VARCHAR), l.rf__metric)
                         AS rf__example,
                     count(l.rf__v) AS rf__have
              FROM rf__long AS l GROUP BY l.rf__seg, l.rf__q, l.rf__metric) AS u
        JOIN rf__present AS pr ON u.rf__seg IS NOT DISTINCT FROM pr.rf__seg
        WHERE u.rf__have > 0 AND u.rf__have < pr.rf__ns),
    rf__cells AS (
        SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                                 OR c = 'rf__all'),
               struct_pack(*COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c)
                                               AND NOT rf__reserved(c)) OR c = 'rf__all')) AS rf__oseg,
               coalesce(*COLUMNS(lambda c: c = CAST(interaction AS VARCHAR) OR c = 'rf__nogrp')) AS rf__grp,
               l.rf__sys, l.rf__q, l.rf__metric, l.rf__v
        FROM (SELECT *, NULL AS rf__nogrp FROM rf__long) AS l
        WHERE l.rf__v IS NOT NULL AND (SELECT rf__ok FROM rf__aligned)),
    rf__onegroup AS (
        SELECT CASE WHEN count(*) > 0
                    THEN error(printf('rf:table[%s]: every query must lie in one group of the interaction column ''%s'' '
                                      || '(a between-query factor within each segment); %s query(ies) are in several, '
                                      || 'e.g. %s.', interaction, interaction, CAST(count(*) AS VARCHAR),
                                      array_to_string(list(CAST(t.rf__q AS VARCHAR) ORDER BY CAST(t.rf__q AS VARCHAR))[1:3],
                                                      ', ')))
                    ELSE true END AS rf__ok
        FROM (SELECT c.rf__oseg, c.rf__q FROM rf__cells AS c GROUP BY ALL HAVING count(DISTINCT c.rf__grp) > 1) AS t),
    -- every float sum (the avg windows, the sums of squares) runs in one order, by system then query: the same bits
    -- whatever order DuckDB's threads feed the rows in (tests/rung3_properties/test_sql_order.py)
    rf__w AS (
        SELECT c.*,
               avg(c.rf__v) OVER (PARTITION BY c.rf__oseg, c.rf__metric, c.rf__q ORDER BY c.rf__sys, c.rf__q ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__rq,
               avg(c.rf__v) OVER (PARTITION BY c.rf__oseg, c.rf__metric, c.rf__grp, c.rf__sys ORDER BY c.rf__sys, c.rf__q ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__mhj,
               avg(c.rf__v) OVER (PARTITION BY c.rf__oseg, c.rf__metric, c.rf__grp ORDER BY c.rf__sys, c.rf__q ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__mh,
               avg(c.rf__v) OVER (PARTITION BY c.rf__oseg, c.rf__metric, c.rf__sys ORDER BY c.rf__sys, c.rf__q ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__mj,
               avg(c.rf__v) OVER (PARTITION BY c.rf__oseg, c.rf__metric ORDER BY c.rf__sys, c.rf__q ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__g
        FROM rf__cells AS c
        WHERE (SELECT rf__ok FROM rf__onegroup)),
    rf__ss AS (
        SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                                 OR c = 'rf__all'),
               w.rf__oseg, w.rf__metric,
               count(DISTINCT w.rf__q) AS rf__n, count(DISTINCT w.rf__sys) AS rf__s,
               count(DISTINCT w.rf__grp) + max(CASE WHEN w.rf__grp IS NULL THEN 1 ELSE 0 END) AS rf__ng,
               count(DISTINCT {'g': w.rf__grp, 's': w.rf__sys}) AS rf__gs,
               sum((w.rf__mj - w.rf__g) * (w.rf__mj - w.rf__g) ORDER BY w.rf__sys, w.rf__q) AS rf__ss_sys0,
               sum((w.rf__mhj - w.rf__mh - w.rf__mj + w.rf__g) * (w.rf__mhj - w.rf__mh - w.rf__mj + w.rf__g) ORDER BY w.rf__sys, w.rf__q)
                   AS rf__ss_int0,
               sum((w.rf__v - w.rf__rq - w.rf__mhj + w.rf__mh) * (w.rf__v - w.rf__rq - w.rf__mhj + w.rf__mh) ORDER BY w.rf__sys, w.rf__q)
                   AS rf__ss_err0,
               sum(w.rf__mhj * w.rf__mhj ORDER BY w.rf__sys, w.rf__q) AS rf__scale
        FROM rf__w AS w
        GROUP BY ALL),
    rf__fit AS (
        SELECT s.*,
               CASE WHEN s.rf__ss_sys0 <= 1e-24 * s.rf__scale THEN 0.0 ELSE s.rf__ss_sys0 END AS rf__ss_sys,
               CASE WHEN s.rf__ss_int0 <= 1e-24 * s.rf__scale THEN 0.0 ELSE s.rf__ss_int0 END AS rf__ss_int,
               CASE WHEN s.rf__ss_err0 <= 1e-24 * s.rf__scale THEN 0.0 ELSE s.rf__ss_err0 END AS rf__ss_err,
               s.rf__s >= 2 AND s.rf__n - s.rf__ng >= 1 AND s.rf__gs = s.rf__ng * s.rf__s AS rf__ok,
               CAST(s.rf__s - 1 AS DOUBLE) AS rf__df_sys,
               CAST((s.rf__s - 1) * (s.rf__ng - 1) AS DOUBLE) AS rf__df_int,
               CAST((s.rf__s - 1) * (s.rf__n - s.rf__ng) AS DOUBLE) AS rf__df_err
        FROM rf__ss AS s),
    rf__terms AS (
        SELECT f.*, t.term, t.rf__tpos, m.rf__mpos,
               CASE WHEN t.term = 'system' THEN f.rf__ss_sys ELSE f.rf__ss_int END AS rf__ss_term,
               CASE WHEN t.term = 'system' THEN f.rf__df_sys ELSE f.rf__df_int END AS rf__df_term,
               f.rf__ok AND (t.term = 'system' OR f.rf__ng >= 2) AS rf__test
        FROM rf__fit AS f
        CROSS JOIN (SELECT unnest(CASE WHEN interaction IS NULL THEN ['system'] ELSE ['system', 'system:segment'] END)
                               AS term,
                           unnest(CASE WHEN interaction IS NULL THEN [1] ELSE [1, 2] END) AS rf__tpos) AS t
        JOIN (SELECT unnest(rf__compare_cols(metrics)) AS rf__metric,
                     unnest(range(1, len(rf__compare_cols(metrics)) + 1)) AS rf__mpos) AS m
          ON f.rf__metric = m.rf__metric),
    rf__tested AS (
        SELECT t.*,
               CASE WHEN NOT t.rf__test THEN NULL
                    WHEN t.rf__ss_err > 0 THEN (t.rf__ss_term / t.rf__df_term) / (t.rf__ss_err / t.rf__df_err)
                    WHEN t.rf__ss_term > 0 THEN CAST('inf' AS DOUBLE) END AS rf__f
        FROM rf__terms AS t)
    SELECT * EXCLUDE (rf__all, rf__oseg, rf__mpos, rf__tpos) FROM (
    SELECT COLUMNS(lambda c: (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c))
                             OR c IN ('rf__all', 'rf__oseg', 'rf__mpos', 'rf__tpos')),
           rf__column_label(o.rf__metric, k) AS metric,
           o.term,
           o.rf__n AS n,
           o.rf__s AS systems,
           o.rf__ng AS groups,
           o.rf__f AS statistic,
           CASE WHEN o.rf__s >= 2 AND (o.term = 'system' OR o.rf__ng >= 2) THEN o.rf__df_term END AS df,
           CASE WHEN o.rf__ok THEN o.rf__df_err END AS df_error,
           rf__f_sf(o.rf__f, o.rf__df_term, o.rf__df_err) AS p_value,
           CASE WHEN o.rf__ok AND (o.term = 'system' OR o.rf__ng >= 2) THEN o.rf__ss_term END AS ss,
           CASE WHEN o.rf__ok THEN o.rf__ss_err END AS ss_error,
           CASE WHEN o.rf__ok THEN o.rf__ss_err / o.rf__df_err END AS mse,
           CASE WHEN o.rf__ok AND (o.term = 'system' OR o.rf__ng >= 2) AND o.rf__ss_term + o.rf__ss_err > 0
                THEN o.rf__ss_term / (o.rf__ss_term + o.rf__ss_err) END AS partial_eta_sq,
           CASE WHEN o.rf__s < 2 THEN 'fewer than 2 systems: no test'
                WHEN o.term <> 'system' AND o.rf__ng < 2 THEN 'fewer than 2 groups: no interaction'
                WHEN o.rf__n - o.rf__ng < 1 THEN 'fewer than 2 queries: no error degrees of freedom'
                WHEN o.rf__gs <> o.rf__ng * o.rf__s
                THEN 'a system has no queries in some group: the interaction needs every system in every group'
                WHEN o.rf__ss_err = 0 AND o.rf__ss_sys = 0 AND o.rf__ss_int = 0
                THEN 'every system has the same value on every query: no test'
                WHEN o.rf__ss_err = 0 THEN 'no residual variation (MSE = 0)'
           END AS note
    FROM rf__tested AS o)
    ORDER BY rf__oseg, rf__mpos, rf__tpos;
