-- rankframe: rank fusion as a GROUP BY (issue 22): rf_fuse(tbl, method := 'rrf', ...) fuses the runs of a long table
-- (one row per system, query, item with score and/or rank) into one run, returning its rows (query, item, score,
-- rank). The SQL side of rankframe.fuse; docs/sql.md "Rank fusion (rf_fuse)" is the reference, ranx 0.3.21 the oracle
-- (tests/rung2_oracles/test_fusion_sql_ranx.py).
--
-- Set-based, in four steps that port to any warehouse: (1) each run's positions, one window ordered by rank (when the
-- table has a rank column: rank wins over score) or score descending, ties by item descending as a string (decision
-- 2), cut at depth; (2) per run (system, query) its size and score statistics, windows over the run; (3) per row
-- the normalised value and the method's contribution, with the rows borda fills in (every candidate of the query in
-- every run that has the query); (4) one GROUP BY (query, item) and a row_number() for the fused ranks.
-- Conventions (the Python rankframe.fuse follows the same): a degenerate normalisation (every score of a run equal,
-- or max <= 0 for 'max') gives 0; an item missing from a run adds nothing to a score method and is absent for the
-- counts of MNZ / ANZ / GMNZ / ISR / mixed; a query missing from a system is that system's empty run (nothing for
-- the score and rank methods; borda fills it, bordafuse gives each candidate (N + 1) / 2); rank-based methods read the run's positions after normalisation:
-- the rows borda fills in come after the run's own rows, ordered by item descending as a string (ranx's order there
-- depends on Python's hash seed).

-- the methods rf_fuse knows (rankframe's comb* names for ranx's sum, mnz, ...; ranx's names for the others), in
-- groups: weighted ones need weights := MAP {...}; rank-based ones read positions only, never scores
CREATE OR REPLACE MACRO rf__fuse_methods() AS
    ['rrf', 'combsum', 'combmnz', 'combanz', 'combmax', 'combmin', 'combmed', 'combgmnz', 'isr', 'log_isr', 'logn_isr',
     'bordafuse', 'rbc', 'wsum', 'wmnz', 'mixed', 'w_bordafuse'];
CREATE OR REPLACE MACRO rf__fuse_weighted() AS ['wsum', 'wmnz', 'mixed', 'w_bordafuse'];
-- fused scores are rounded to rf__fused_digits() significant digits before they are ordered (and returned), as
-- rankframe.fusion.kernels.round_significant does (rf__fused_digits() is fusion.methods.FUSED_DIGITS, written in the
-- generated block below): scores equal in exact arithmetic then tie whatever order a float sum took, and the item
-- tie-break orders them
CREATE OR REPLACE MACRO rf__round_significant(x, digits) AS
    CASE WHEN x IS NULL OR isnan(x) OR isinf(x) OR x = 0 THEN x
         ELSE round(x * pow(10.0, digits - 1 - least(greatest(floor(log10(abs(x))), -290), 290)))
              / pow(10.0, digits - 1 - least(greatest(floor(log10(abs(x))), -290), 290)) END;
-- fusion's constants, written here by python -m rankframe.fusion.sqlgen from their Python definitions: the digits of the
-- rounding above (rankframe.fusion.methods.FUSED_DIGITS), and the ratio of two systems' spans beyond which their raw
-- scores are "on different scales" (the check of a score method with norm := NULL; rankframe.fusion.fuse.SCALE_RATIO)
-- rf:generated-begin (python -m rankframe.fusion.sqlgen: rankframe.fusion's constants)
CREATE OR REPLACE MACRO rf__fused_digits() AS 12;
CREATE OR REPLACE MACRO rf__fuse_scale_ratio() AS CAST(10.0 AS DOUBLE);
-- rf:generated-end
CREATE OR REPLACE MACRO rf__fuse_by_rank() AS ['rrf', 'isr', 'log_isr', 'logn_isr', 'bordafuse', 'rbc', 'w_bordafuse'];
CREATE OR REPLACE MACRO rf__fuse_norms() AS ['min-max', 'max', 'sum', 'zmuv', 'rank', 'borda', 'none'];

-- a finite number v with v >= low (k, sigma), or the error in the words of the Python API
CREATE OR REPLACE MACRO rf__fuse_at_least(v, low, pname) AS
    CASE WHEN isfinite(rf__number(v)) AND rf__number(v) >= low THEN rf__number(v)
         ELSE error(printf('rf:param: The ''%s'' parameter of rf_fuse must be a finite number >= %s. Got %s instead.',
                           pname, CAST(low AS VARCHAR), rf__repr(v))) END;

-- true, or the error of the first bad parameter of rf_fuse (the checks need no data)
CREATE OR REPLACE MACRO rf__fuse_check_params(method, k, norm, weights, rank_base, depth, phi, gamma, sigma) AS
    CASE WHEN typeof(method) = 'VARCHAR' AND lower(CAST(method AS VARCHAR)) IN ('condorcet', 'w_condorcet')
         THEN error(printf('rf:param: method := ''%s'' is not available in SQL: Condorcet fusion sorts the items with a '
                           || 'pairwise-majority comparison that is not a GROUP BY; use rankframe.fuse in Python.',
                           lower(CAST(method AS VARCHAR))))
         WHEN rf__choice(method, rf__fuse_methods(), 'method', 'rf_fuse') = '' THEN false
         WHEN norm IS NOT NULL AND rf__choice(norm, rf__fuse_norms(), 'norm', 'rf_fuse') = '' THEN false
         WHEN rf__fuse_at_least(k, 0, 'k') < 0 THEN false
         WHEN NOT coalesce(rf__is_int_type(typeof(rank_base)) AND rf__as_num(rank_base) IN (0, 1), false)
         THEN error(printf('rf:param: The ''rank_base'' parameter of rf_fuse must be 0 or 1 (the rank of the top item '
                           || 'in RRF''s 1 / (k + rank)). Got %s instead.', rf__repr(rank_base)))
         WHEN rf__number(k) + rf__as_num(rank_base) <= 0
         THEN error('rf:param: The ''k'' parameter of rf_fuse must be > 0 with rank_base := 0 (RRF''s 1 / (k + rank) '
                    || 'divides by zero for the top item). Got 0 instead.')
         WHEN depth IS NOT NULL AND NOT coalesce(rf__is_int_type(typeof(depth))
                                                 AND TRY_CAST(CAST(depth AS VARCHAR) AS HUGEINT) >= 1, false)
         THEN error(printf('rf:param: The ''depth'' parameter of rf_fuse must be an int >= 1 or NULL (every row). Got '
                           || '%s instead.', rf__repr(depth)))
         WHEN rf__open_unit(phi, 'phi', 'rf_fuse', '') IS NULL THEN false
         WHEN NOT isfinite(rf__number(gamma))
         THEN error(printf('rf:param: The ''gamma'' parameter of rf_fuse must be a finite number. Got %s instead.',
                           rf__repr(gamma)))
         WHEN NOT coalesce(rf__number(sigma) BETWEEN 0 AND 1, false)
         THEN error(printf('rf:param: The ''sigma'' parameter of rf_fuse must be a number in [0, 1] (ranx''s logn_isr). '
                           || 'Got %s instead.', rf__repr(sigma)))
         WHEN weights IS NULL AND list_contains(rf__fuse_weighted(), lower(CAST(method AS VARCHAR)))
         THEN error(printf('rf:param: method := ''%s'' needs weights := MAP {''<system>'': <weight>, ...} with a weight '
                           || 'for every system. Got NULL instead.', lower(CAST(method AS VARCHAR))))
         WHEN weights IS NOT NULL AND NOT list_contains(rf__fuse_weighted(), lower(CAST(method AS VARCHAR)))
         THEN error(printf('rf:param: The ''weights'' parameter of rf_fuse applies to the weighted methods only (%s); '
                           || 'method := ''%s'' takes none. Got %s instead.', rf__quoted(rf__fuse_weighted()),
                           lower(CAST(method AS VARCHAR)), rf__repr(weights)))
         WHEN weights IS NOT NULL
              AND NOT coalesce(starts_with(typeof(weights), 'MAP(')
                               AND len(list_filter(map_values(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE))),
                                                   lambda w: w IS NULL OR NOT isfinite(w))) = 0
                               AND len(list_filter(map_keys(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE))),
                                                   lambda s: s IS NULL)) = 0, false)
         THEN error(printf('rf:param: The ''weights'' parameter of rf_fuse must be a MAP {''<system>'': <weight>, ...} '
                           || 'of finite numbers. Got %s instead.', rf__repr(weights)))
         ELSE true END;

-- true, or the error of the first missing column (names: the table's columns; needs_score: the method reads scores)
CREATE OR REPLACE MACRO rf__fuse_check_columns(names, system, needs_score) AS
    CASE WHEN system IS NULL OR typeof(system) <> 'VARCHAR'
         THEN error(printf('rf:param: The ''system'' parameter of rf_fuse must be a column name (such as '
                           || '''system''). Got %s instead.', rf__repr(system)))
         WHEN lower(CAST(system AS VARCHAR)) IN ('query', 'item', 'rank', 'score', 'relevance')
         THEN error(printf('rf:param: The ''system'' parameter of rf_fuse must name the column that says which system '
                           || '(run) each row comes from, not ''%s''.', system))
         WHEN len(rf__lacking(names, ['query', 'item', CAST(system AS VARCHAR)])) > 0
         THEN error(printf('rf:table: The table has no column(s) %s, which rf_fuse reads (query, item, the system '
                           || 'column, and score or rank). Columns in the table: %s.',
                           array_to_string(list_transform(rf__lacking(names, ['query', 'item', CAST(system AS VARCHAR)]),
                                                          lambda x: '''' || x || '''' || coalesce(
                                                              ' (did you mean ''' || rf__closest(x, names) || '''?)',
                                                              '')), ', '),
                           rf__quoted(names)))
         WHEN NOT list_contains(names, 'rank') AND NOT list_contains(names, 'score')
         THEN error(printf('rf:table: neither a rank column ''rank'' nor a score column ''score'' in the table. '
                           || 'Columns in the table: %s.', rf__quoted(names)))
         WHEN needs_score AND NOT list_contains(names, 'score')
         THEN error('rf:table: the method reads scores, but the table has no column ''score'' (only ''rank''): pass '
                    || 'norm := ''rank'' or ''borda'', or a method that reads ranks (rrf, isr, log_isr, logn_isr, '
                    || 'bordafuse, rbc, w_bordafuse).')
         ELSE true END;

-- rf__columns(tbl) of prepare.sql under a name of its own: DuckDB refuses to expand a table macro inside itself, so a
-- view over rf_fuse's output given to rf_per_query / rf_compare (which call rf__columns) would fail to bind
CREATE OR REPLACE MACRO rf__fuse_columns(tbl) AS TABLE
    SELECT json_keys(to_json(struct_pack(*COLUMNS(s.*)))) AS rf__names
    FROM (SELECT 1 AS rf__one) AS o LEFT JOIN (SELECT * FROM query_table(tbl) LIMIT 0) AS s ON true;

-- the table's rows as (rf__sys, rf__q, rf__item, rf__score, rf__rank): the missing one of score / rank is NULL (the
-- pruned branch of NULL columns makes every name bind); a score or rank of another type than a number is NULL here and
-- its type (rf__score_type, rf__rank_type) is rf__fuse_check_rows' error (never a cast of text or booleans)
CREATE OR REPLACE MACRO rf__fuse_input(tbl, system) AS TABLE
    SELECT CAST(coalesce(*COLUMNS(lambda c: c = CAST(system AS VARCHAR) OR c = 'rf__nosys')) AS VARCHAR) AS rf__sys,
           s.query AS rf__q, s.item AS rf__item,
           CASE WHEN rf__is_number_type(typeof(s.score)) THEN TRY_CAST(s.score AS DOUBLE) END AS rf__score,
           CASE WHEN rf__is_number_type(typeof(s.rank)) THEN TRY_CAST(s.rank AS DOUBLE) END AS rf__rank,
           typeof(s.score) AS rf__score_type, typeof(s.rank) AS rf__rank_type
    FROM (SELECT *, NULL AS rf__nosys FROM query_table(tbl)
          UNION ALL BY NAME
          SELECT NULL AS query, NULL AS item, NULL AS score, NULL AS rank WHERE false) AS s;

-- one row: true, or the error about the rows (null system / query / item, an item twice in a run, the long table's
-- value rules of the columns the fusion reads: rank (by_rank: the table has one) numeric, an integer >= 1 and unique
-- per run, score (read when the table has no rank or the method adds scores: needs_score) numeric and finite; fewer
-- than 2 systems, weights for systems the table lacks or systems without a weight); ok: the checks before. The
-- words are the declared rules' (rankframe/table_rules.py), as rankframe.fuse says them.
CREATE OR REPLACE MACRO rf__fuse_check_rows(tbl, system, weights, ok, by_rank, needs_score) AS TABLE
    SELECT CASE WHEN NOT ok THEN false
                WHEN sum(s.rf__rows) FILTER (WHERE s.rf__sys IS NULL) > 0
                THEN error(printf('rf:table[%s]: every row must name its system (no null values) (%s offending '
                                  || 'row(s)).', system, CAST(sum(s.rf__rows) FILTER (WHERE s.rf__sys IS NULL) AS VARCHAR)))
                WHEN sum(s.rf__rows) FILTER (WHERE s.rf__null_q) > 0
                THEN error(printf('rf:table[query]: query must not be null (%s offending row(s)).',
                                  CAST(sum(s.rf__rows) FILTER (WHERE s.rf__null_q) AS VARCHAR)))
                WHEN sum(s.rf__rows) FILTER (WHERE s.rf__null_item) > 0
                THEN error(printf('rf:table[item]: item must not be null (%s offending row(s)).',
                                  CAST(sum(s.rf__rows) FILTER (WHERE s.rf__null_item) AS VARCHAR)))
                WHEN by_rank AND NOT rf__is_numeric_type(coalesce(any_value(t.rf__rank_type), 'NULL'))
                THEN error(printf('rf:table[rank]: rank must be numeric (null = judged but not retrieved); found type '
                                  || '%s.', any_value(t.rf__rank_type)))
                WHEN by_rank AND any_value(r.rf__bad_rank) > 0
                THEN error(printf('rf:table[rank]: rank must be an integer >= 1 (null = judged but not retrieved) (%s '
                                  || 'offending row(s)).', CAST(any_value(r.rf__bad_rank) AS VARCHAR)))
                WHEN by_rank AND any_value(r.rf__same_rank) > 1
                THEN error(printf('rf:table[rank]: rank must be unique within each (%s, query).', system))
                WHEN (NOT by_rank OR needs_score)
                     AND NOT rf__is_numeric_type(coalesce(any_value(t.rf__score_type), 'NULL'))
                THEN error(printf('rf:table[score]: score must be numeric (null = not retrieved); found type %s.',
                                  any_value(t.rf__score_type)))
                WHEN (NOT by_rank OR needs_score) AND any_value(r.rf__inf_score) > 0
                THEN error(printf('rf:table[score]: score must be finite (%s offending row(s)).',
                                  CAST(any_value(r.rf__inf_score) AS VARCHAR)))
                WHEN max(s.rf__n) > 1
                THEN error(printf('rf:table[item]: item must be unique within each (%s, query): %s key(s) occur on '
                                  || 'more than one row.', system,
                                  CAST(sum(s.rf__dups) AS VARCHAR)))
                WHEN count(DISTINCT s.rf__sys) < 2
                THEN error(printf('rf:table[%s]: rf_fuse needs at least 2 systems in column ''%s''; found %s: %s.',
                                  system, system, CAST(count(DISTINCT s.rf__sys) AS VARCHAR),
                                  coalesce(rf__quoted(list(DISTINCT s.rf__sys ORDER BY s.rf__sys)), 'none')))
                WHEN weights IS NOT NULL
                     AND len(list_filter(map_keys(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE))),
                                         lambda w: NOT list_contains(list(DISTINCT s.rf__sys ORDER BY s.rf__sys), w)))
                         > 0
                THEN error(printf('rf:param: The ''weights'' parameter of rf_fuse names system(s) not in column '
                                  || '''%s'': %s. Systems in the table: %s.', system,
                                  rf__quoted(list_filter(map_keys(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE))),
                                                         lambda w: NOT list_contains(
                                                             list(DISTINCT s.rf__sys ORDER BY s.rf__sys), w))),
                                  rf__quoted(list(DISTINCT s.rf__sys ORDER BY s.rf__sys))))
                WHEN weights IS NOT NULL
                     AND len(list_filter(list(DISTINCT s.rf__sys ORDER BY s.rf__sys),
                                         lambda x: NOT list_contains(map_keys(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE))),
                                                                     x))) > 0
                THEN error(printf('rf:param: The ''weights'' parameter of rf_fuse must give a weight to every system; '
                                  || 'missing: %s.',
                                  rf__quoted(list_filter(list(DISTINCT s.rf__sys ORDER BY s.rf__sys),
                                                         lambda x: NOT list_contains(
                                                             map_keys(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE))), x)))))
                ELSE true END AS rf__ok
    -- per system (and null query / item): its rows, the most rows of one (system, query, item) key and the number
    -- of such keys on more than one row; the one aggregate over every key is a count (the rows' other rules are r's,
    -- and the checks' aggregates read a few rows, not one per key)
    FROM (SELECT k.rf__sys, k.rf__q IS NULL AS rf__null_q, k.rf__item IS NULL AS rf__null_item,
                 sum(k.rf__n) AS rf__rows, max(k.rf__n) AS rf__n, count(*) FILTER (WHERE k.rf__n > 1) AS rf__dups
          FROM (SELECT i.rf__sys, i.rf__q, i.rf__item, count(*) AS rf__n
                FROM rf__fuse_input(tbl, system) AS i
                GROUP BY i.rf__sys, i.rf__q, i.rf__item) AS k
          GROUP BY k.rf__sys, k.rf__q IS NULL, k.rf__item IS NULL) AS s
    -- the rules of single rows, counted over the rows in one pass (not carried by each key's group), the most rows
    -- sharing a (system, query, rank) (an aggregate over the ranked rows only: a table without a rank column skips it;
    -- a window partitioned that way cost a quarter of rf_fuse's time on 3M ranked rows), and the columns' types,
    -- constant over the rows, read from one row
    CROSS JOIN (SELECT count(*) FILTER (WHERE i.rf__rank IS NOT NULL
                                              AND (NOT isfinite(i.rf__rank) OR i.rf__rank < 1
                                                   OR i.rf__rank <> floor(i.rf__rank))) AS rf__bad_rank,
                       count(*) FILTER (WHERE i.rf__score IS NOT NULL AND NOT isfinite(i.rf__score)) AS rf__inf_score,
                       any_value(d.rf__same_rank) AS rf__same_rank
                FROM rf__fuse_input(tbl, system) AS i
                CROSS JOIN (SELECT coalesce(max(e.rf__n), 1) AS rf__same_rank
                            FROM (SELECT count(*) AS rf__n FROM rf__fuse_input(tbl, system) AS x
                                  WHERE by_rank AND x.rf__rank IS NOT NULL
                                  GROUP BY x.rf__sys, x.rf__q, x.rf__rank) AS e) AS d) AS r
    CROSS JOIN (SELECT any_value(x.rf__rank_type) AS rf__rank_type, any_value(x.rf__score_type) AS rf__score_type
                FROM (SELECT y.rf__rank_type, y.rf__score_type FROM rf__fuse_input(tbl, system) AS y LIMIT 1) AS x) AS t;

-- (1)-(3a) the rows of the fusion, each step computed once (MATERIALIZED: several steps read the runs):
-- rf__ranked: each run's rows with their position rf__pos (1..n), cut at depth; by_rank: the table has a rank column. A
--   row whose rank (by_rank) or score (else) is NULL is not retrieved and left out; so is a row without a score when
--   the method reads scores (needs_score).
-- rf__runs: plus the run's size rf__n, its score statistics (min, max, sum, mean), the population standard deviation
--   rf__sd (zmuv; two passes, as numpy's std) and the query's number of candidates rf__nc (its distinct items over
--   every run).
-- the result: each run's own rows (rf__own) and, when fill (norm := 'borda', bordafuse, w_bordafuse), one row for
--   every candidate of the query the run lacks, with the run's length rf__n and the candidates rf__nc; rf__pos of a
--   filled row: after the run's own rows, by item descending as a string.
CREATE OR REPLACE MACRO rf__fuse_rows(tbl, system, by_rank, needs_score, depth, fill, check_scale, method, ok) AS TABLE
    WITH rf__ranked AS MATERIALIZED (
        SELECT * FROM (
            SELECT i.*,
                   row_number() OVER (PARTITION BY i.rf__sys, i.rf__q
                                      ORDER BY CASE WHEN by_rank THEN i.rf__rank ELSE -i.rf__score END ASC,
                                               CAST(i.rf__item AS VARCHAR) DESC) AS rf__pos
            FROM rf__fuse_input(tbl, system) AS i
            WHERE ok AND CASE WHEN by_rank THEN i.rf__rank ELSE i.rf__score END IS NOT NULL
              AND (NOT needs_score OR i.rf__score IS NOT NULL)) AS r
        WHERE depth IS NULL OR r.rf__pos <= depth
    ), rf__runs AS MATERIALIZED (
        SELECT v.*,
               sqrt(sum((v.rf__score - v.rf__mean) * (v.rf__score - v.rf__mean)) OVER (
                   PARTITION BY v.rf__sys, v.rf__q ORDER BY v.rf__pos
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) / v.rf__n) AS rf__sd
        FROM (SELECT u.*, u.rf__sum / u.rf__n AS rf__mean
              FROM (SELECT r.*,
                           count(*) OVER w AS rf__n,
                           min(r.rf__score) OVER w AS rf__min,
                           max(r.rf__score) OVER w AS rf__max,
                           sum(r.rf__score) OVER (PARTITION BY r.rf__sys, r.rf__q ORDER BY r.rf__pos
                                                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS rf__sum,
                           c.rf__nc
                    FROM rf__ranked AS r
                    -- the query's candidates: read only when fill (Borda's points and filled rows)
                    LEFT JOIN (SELECT x.rf__q, count(DISTINCT x.rf__item) AS rf__nc FROM rf__ranked AS x WHERE fill
                               GROUP BY x.rf__q) AS c
                        ON c.rf__q IS NOT DISTINCT FROM r.rf__q
                    WINDOW w AS (PARTITION BY r.rf__sys, r.rf__q)) AS u) AS v
    )
    -- the filled rows' positions are numbered in their own branch: a window over every row would sort the whole
    -- table again when nothing is filled (a third of rf_fuse's time at 1M rows)
    SELECT g.*
    FROM (SELECT r.*, true AS rf__own
          FROM rf__runs AS r
          UNION ALL BY NAME
          SELECT f.*, f.rf__n + row_number() OVER (PARTITION BY f.rf__sys, f.rf__q
                                                   ORDER BY CAST(f.rf__item AS VARCHAR) DESC) AS rf__pos
          FROM (
          -- every system x every query: a system without the query is an empty run (n = 0), filled too
          SELECT p.rf__sys, p.rf__q, c.rf__item, p.rf__nc, coalesce(l.rf__n, 0) AS rf__n, false AS rf__own
          FROM (SELECT s.rf__sys, q.rf__q, q.rf__nc
                FROM (SELECT DISTINCT a.rf__sys FROM rf__ranked AS a WHERE fill) AS s
                CROSS JOIN (SELECT b.rf__q, count(DISTINCT b.rf__item) AS rf__nc FROM rf__ranked AS b WHERE fill
                            GROUP BY b.rf__q) AS q) AS p
          LEFT JOIN (SELECT d.rf__sys, d.rf__q, count(*) AS rf__n FROM rf__ranked AS d WHERE fill GROUP BY ALL) AS l
              ON l.rf__sys = p.rf__sys AND l.rf__q IS NOT DISTINCT FROM p.rf__q
          JOIN (SELECT DISTINCT e.rf__q, e.rf__item FROM rf__ranked AS e WHERE fill) AS c
              ON c.rf__q IS NOT DISTINCT FROM p.rf__q
          ANTI JOIN rf__ranked AS o
              ON o.rf__sys = p.rf__sys AND o.rf__q IS NOT DISTINCT FROM p.rf__q AND o.rf__item = c.rf__item) AS f) AS g
    -- raw scores of systems on different scales make a score method meaningless (check_scale: a score method with
    -- norm := NULL; 'none' skips it): two systems' ranges are disjoint, or their spans differ more than
    -- rf__fuse_scale_ratio() times (a system with a span of 0 next to one without), as rankframe.fuse's check (max / ratio
    -- > min, never ratio * min, which overflows near the float limit), on the runs cut at depth
    WHERE (SELECT CASE WHEN NOT check_scale THEN true
                       WHEN max(t.rf__lo) > min(t.rf__hi)
                            OR (count(*) FILTER (WHERE t.rf__hi > t.rf__lo) > 0
                                AND (max(t.rf__hi - t.rf__lo) FILTER (WHERE t.rf__hi > t.rf__lo) / rf__fuse_scale_ratio()
                                         > min(t.rf__hi - t.rf__lo) FILTER (WHERE t.rf__hi > t.rf__lo)
                                     OR count(*) FILTER (WHERE t.rf__hi > t.rf__lo) < count(*)))
                       THEN error(printf('rf:param: The ''norm'' parameter of rf_fuse: method := ''%s'' adds raw '
                                         || '''score'' values, and the systems'' scores are on different scales (%s). '
                                         || 'Pass norm := ''min-max'' (or ''max'', ''sum'', ''zmuv'', ''rank'', '
                                         || '''borda''), or norm := ''none'' to fuse the raw scores anyway.', method,
                                         string_agg(printf('''%s'': [%s, %s]', t.rf__sys, CAST(t.rf__lo AS VARCHAR),
                                                           CAST(t.rf__hi AS VARCHAR)), ', ' ORDER BY t.rf__sys)))
                       ELSE true END
           FROM (SELECT h.rf__sys, min(h.rf__score) AS rf__lo, max(h.rf__score) AS rf__hi
                 FROM rf__ranked AS h WHERE check_scale GROUP BY h.rf__sys) AS t);

-- (3b) a row's normalised score (norm already checked and lower-cased; NULL = the score itself). A filled row has
-- borda's value for an item a run lacks (ranx: 0.5 - (n - 1) / (2 * candidates)), else none.
CREATE OR REPLACE MACRO rf__fuse_norm(x, norm) AS
    CASE WHEN NOT x.rf__own THEN CASE WHEN norm = 'borda' THEN 0.5 - (x.rf__n - 1) / (2.0 * x.rf__nc) END
         WHEN norm IS NULL OR norm = 'none' THEN x.rf__score
         WHEN norm = 'min-max' THEN CASE WHEN x.rf__max > x.rf__min
                                         THEN (x.rf__score - x.rf__min) / (x.rf__max - x.rf__min) ELSE 0.0 END
         WHEN norm = 'max' THEN CASE WHEN x.rf__max > 0 THEN x.rf__score / x.rf__max ELSE 0.0 END
         WHEN norm = 'sum' THEN CASE WHEN x.rf__max > x.rf__min
                                     THEN (x.rf__score - x.rf__min) / (x.rf__sum - x.rf__min * x.rf__n) ELSE 0.0 END
         WHEN norm = 'zmuv' THEN CASE WHEN x.rf__max > x.rf__min AND x.rf__sd > 0
                                      THEN (x.rf__score - x.rf__mean) / x.rf__sd ELSE 0.0 END
         WHEN norm = 'rank' THEN 1.0 - (x.rf__pos - 1) / CAST(x.rf__n AS DOUBLE)
         WHEN norm = 'borda' THEN 1.0 - (x.rf__pos - 1) / CAST(x.rf__nc AS DOUBLE) END;

-- (3c) a row's contribution to the fused score: the method's value of its position (rank-based methods; the run's
-- length after norm := 'borda' is the number of candidates) or its normalised score
CREATE OR REPLACE MACRO rf__fuse_value(x, method, norm, k, rank_base, phi) AS
    CASE WHEN method = 'rrf' THEN 1.0 / (k + x.rf__pos - 1 + rank_base)
         WHEN method IN ('isr', 'log_isr', 'logn_isr') THEN 1.0 / (CAST(x.rf__pos AS DOUBLE) * x.rf__pos)
         WHEN method = 'rbc' THEN (1.0 - phi) * pow(phi, x.rf__pos - 1)
         WHEN method IN ('bordafuse', 'w_bordafuse')
         THEN CASE WHEN x.rf__own OR norm = 'borda' THEN CAST(x.rf__nc - x.rf__pos + 1 AS DOUBLE)
                   ELSE (x.rf__nc - x.rf__n + 1) / 2.0 END
         ELSE rf__fuse_norm(x, norm) END;

-- (4) the fused run: per (query, item) the method's combination of the rows' values v (weights w, number of runs
-- holding the item n), then the fused ranks. Every sum is rf__xsum (sql/prepare.sql: two integer sums of fixed-point parts,
-- the same bits in any thread order without the sort of each group that sum(... ORDER BY system) cost, issue 35).
CREATE OR REPLACE MACRO rf__fuse(tbl, method, k, norm, weights, rank_base, depth, phi, gamma, sigma, system, by_rank,
                                 ok) AS TABLE
    WITH rf__v AS (
        SELECT x.rf__q, x.rf__item, x.rf__sys,
               rf__fuse_value(x, method, norm, k, rank_base, phi) AS rf__v,
               CASE WHEN weights IS NULL THEN 1.0
                    ELSE map_extract_value(TRY_CAST(weights AS MAP(VARCHAR, DOUBLE)), x.rf__sys) END AS rf__w,
               x.rf__own OR norm = 'borda' AS rf__holds
        FROM rf__fuse_rows(tbl, system, by_rank,
                           NOT list_contains(rf__fuse_by_rank(), method) AND coalesce(norm NOT IN ('rank', 'borda'), true),
                           depth, norm = 'borda' OR method IN ('bordafuse', 'w_bordafuse'),
                           norm IS NULL AND NOT list_contains(rf__fuse_by_rank(), method), method, ok) AS x
    ), rf__f AS (
        SELECT v.rf__q, v.rf__item,
               rf__xsum(v.rf__v) AS rf__s,
               rf__xsum(v.rf__w * v.rf__v) AS rf__ws,
               rf__xsum(CASE WHEN v.rf__holds THEN v.rf__w END) AS rf__wn,
               count(*) FILTER (WHERE v.rf__holds) AS rf__n,
               max(v.rf__v) AS rf__max, min(v.rf__v) AS rf__min, quantile_cont(v.rf__v, 0.5) AS rf__med
        FROM rf__v AS v
        GROUP BY v.rf__q, v.rf__item
    )
    SELECT s.rf__q AS query, s.rf__item AS item,
           CASE WHEN s.rf__f IS NULL OR isfinite(s.rf__f) THEN s.rf__f
                ELSE error('rf:table[score]: the fused scores overflow float64 (a normalisation or a sum of the runs'' '
                           || 'scores is not finite): rescale the runs'' scores (e.g. divide them by 1e6).') END AS score,
           row_number() OVER (PARTITION BY s.rf__q ORDER BY s.rf__f DESC, CAST(s.rf__item AS VARCHAR) DESC) AS rank
    FROM (SELECT r.*, rf__round_significant(r.rf__raw, rf__fused_digits()) AS rf__f
    FROM (SELECT f.rf__q, f.rf__item,
                 CAST(CASE method
                          WHEN 'combmnz' THEN f.rf__s * f.rf__n
                          WHEN 'combanz' THEN f.rf__s / f.rf__n
                          WHEN 'combmax' THEN f.rf__max
                          WHEN 'combmin' THEN f.rf__min
                          WHEN 'combmed' THEN f.rf__med
                          WHEN 'combgmnz' THEN f.rf__s * pow(f.rf__n, gamma)
                          WHEN 'isr' THEN f.rf__s * f.rf__n
                          WHEN 'log_isr' THEN f.rf__s * ln(f.rf__n)
                          WHEN 'logn_isr' THEN f.rf__s * ln(f.rf__n + sigma)
                          WHEN 'wsum' THEN f.rf__ws
                          WHEN 'w_bordafuse' THEN f.rf__ws
                          WHEN 'wmnz' THEN f.rf__s * f.rf__wn
                          WHEN 'mixed' THEN f.rf__ws * sqrt(f.rf__n)
                          ELSE f.rf__s END AS DOUBLE) AS rf__raw  -- rrf, combsum, bordafuse, rbc
          FROM rf__f AS f) AS r) AS s;

-- the check chain of rf_fuse as one row rf__ok (true, or the error of the first mistake): the parameters, the
-- columns, then the rows (systems, weights)
CREATE OR REPLACE MACRO rf__fuse_ok(tbl, method, k, norm, weights, rank_base, depth, phi, gamma, sigma, system) AS TABLE
    SELECT r.rf__ok
    FROM rf__fuse_check_rows(
        tbl, system, weights,
        (SELECT CASE WHEN NOT rf__fuse_check_params(method, k, norm, weights, rank_base, depth, phi, gamma, sigma)
                     THEN false
                     ELSE rf__fuse_check_columns(c.rf__names, system,
                                                 NOT list_contains(rf__fuse_by_rank(), rf__lc(method))
                                                 AND coalesce(rf__lc(norm) NOT IN ('rank', 'borda'), true)) END
         FROM rf__fuse_columns(tbl) AS c),
        (SELECT list_contains(c.rf__names, 'rank') FROM rf__fuse_columns(tbl) AS c),
        NOT list_contains(rf__fuse_by_rank(), rf__lc(method)) AND coalesce(rf__lc(norm) NOT IN ('rank', 'borda'), true)
    ) AS r;

-- rf_fuse(tbl, method := 'rrf', ...): the fused run of the table's runs, one row per (query, item) of any run with its
-- score and rank (1..n per query, score descending, ties by item descending as a string). See docs/sql.md
-- "Rank fusion (rf_fuse)". The check chain runs once per call, before any row is fused; its own empty branch (a
-- runtime condition on its one row) makes it fire on an empty table too, and when the planner prunes every row of the
-- fusion (a table whose order column is all NULL).
CREATE OR REPLACE MACRO rf_fuse(tbl, method := 'rrf', k := 60, norm := NULL, weights := NULL, rank_base := 1,
                                depth := NULL, phi := 0.8, gamma := 1.0, sigma := 0.01, system := 'system') AS TABLE
    WITH rf__checked AS MATERIALIZED (
        SELECT o.rf__ok FROM rf__fuse_ok(tbl, method, k, norm, weights, rank_base, depth, phi, gamma, sigma, system) AS o
    )
    SELECT * FROM rf__fuse(
        tbl, rf__lc(method), rf__as_num(k), rf__lc(norm), weights, rf__as_num(rank_base), rf__as_k(depth),
        rf__as_num(phi), rf__as_num(gamma), rf__as_num(sigma), system,
        (SELECT list_contains(c.rf__names, 'rank') FROM rf__fuse_columns(tbl) AS c),
        (SELECT o.rf__ok FROM rf__checked AS o))
    UNION ALL BY NAME
    SELECT NULL AS query, NULL AS item, NULL AS score, NULL AS rank
    FROM rf__checked AS o
    WHERE NOT o.rf__ok;
