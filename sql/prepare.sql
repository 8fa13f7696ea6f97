-- rankframe: shared preparation and parameter checks (load first; every other file uses these).
--
-- Conventions of the whole macro set (docs/metrics.md is the definition of every metric):
--   * rf_<name>(grades, ...)      scalar macro of metric <name> over the list of grades in rank order
--                                 (NULL = unjudged); parameters named and defaulted as in rankframe/registry.py
--   * rf_agg_<name>(pos, grade, ...)  the same metric as an aggregate over the rows of one ranking unit,
--                                 for GROUP BY over rf_prepare(...) output (set-based, fast)
--   * rf_prepare / rf_per_query / rf_means / rf_validate   table macros for the whole job
--   * rf__<name>                  internal helpers (not part of the API)
-- Macro parameters never use the names rank/query/relevance: a parameter shadows a column.

-- ---------------------------------------------------------------------------------------------- sums
-- rf__xsum(x): the sum of a float column as an aggregate, the same in any order of the rows (DuckDB's threads feed an
-- aggregate in any order, and a float sum's last bits depend on it: docs/sql.md "Same answer on every run"). Not an
-- ordered aggregate (sum(x ORDER BY pos) sorts every group: 3-26x slower, issue 35). A term x with 2^-88 <= |x| <= 2^44
-- (the band) is split exactly into x = h * 2^-52 + l * 2^-140: h = trunc(x * 2^52) and l = fmod(x, 2^-52) * 2^140 are
-- whole numbers (fmod is exact, and x and 2^-52 are multiples of x's ulp >= 2^-140), |h| <= 2^96 and |l| < 2^88,
-- summed exactly as two HUGEINTs (2^31 terms before an overflow could happen), each sum rounded once, added in a fixed
-- order. The other terms (0, 0 < |x| < 2^-88 = 3.2e-27, |x| > 2^44 = 1.8e13, infinities, NaN) are summed as floats
-- (the tail), where the band's terms count as 0 (so the tail is NULL only when every x is, as sum): infinities and
-- NaN give the same result in any order, zeros add nothing, such tiny or huge finite terms may differ in their last
-- bits. The total is infinite exactly when the tail is (h and l are finite and below 2^127): rf__gain_total checks the
-- tail. Issue 35: two integer sums instead of the three bands of 44 binades of 1fff51b (one aggregate state and one
-- band test fewer per row), and the parts are macros naming their argument once or twice (each name of a macro
-- argument is a copy of it that the binder binds: 13 copies of x in the three bands, 39 with rf__gain_total's check).
CREATE OR REPLACE MACRO rf__xsum_in(x) AS abs(x) BETWEEN 3.2311742677852644e-27 AND 1.7592186044416e13;

-- (the band's terms under a CASE, not a FILTER: an aggregate's argument is computed for every row before its FILTER,
-- and the casts must only see the terms of the band)
CREATE OR REPLACE MACRO rf__xsum_band(x) AS CASE WHEN rf__xsum_in(x) THEN x END;

CREATE OR REPLACE MACRO rf__xsum_hi(x) AS sum(CAST(trunc(rf__xsum_band(x) * 4.503599627370496e15) AS HUGEINT));

-- the term's bits below 2^-52, x - trunc(x * 2^52) * 2^-52: fmod(x, 2^-52) by its definition, exact for the same
-- reason (scaling by 2^52 and truncating are exact, and the difference is a multiple of x's ulp below 2^-52), without
-- fmod's loop (10x the time of the subtraction: 0.6 of xsum's 1.1 CPU-s on 3M rows, issue 35)
CREATE OR REPLACE MACRO rf__xsum_frac(b) AS b - trunc(b * 4.503599627370496e15) * 2.220446049250313e-16;

CREATE OR REPLACE MACRO rf__xsum_lo(x) AS
    sum(CAST(rf__xsum_frac(rf__xsum_band(x)) * 1.393796574908164e42 AS HUGEINT));

CREATE OR REPLACE MACRO rf__xsum_tail(x) AS sum(CASE WHEN rf__xsum_in(x) THEN CAST(0 AS DOUBLE) ELSE x END);

-- the total of the parts, NULL when the tail is (hi and lo are NULL without a term in the band)
CREATE OR REPLACE MACRO rf__xsum_of(hi, lo, tail) AS
    (coalesce(CAST(hi AS DOUBLE), 0.0) / 4.503599627370496e15 + coalesce(CAST(lo AS DOUBLE), 0.0) / 1.393796574908164e42)
    + tail;

CREATE OR REPLACE MACRO rf__xsum(x) AS rf__xsum_of(rf__xsum_hi(x), rf__xsum_lo(x), rf__xsum_tail(x));

-- ---------------------------------------------------------------------------------------------- checks
-- Each returns the (normalised) value or raises a clear error naming the parameter and the allowed values, in the
-- words of the Python API's ParameterError ("The 'k' parameter of <owner> must be ... Got <value> instead.").
-- Values are only compared after a cast to VARCHAR (TRY_CAST(CAST(v AS VARCHAR) AS ...)), so a value of any type
-- (a string, a boolean, a list) binds and reaches the error instead of a DuckDB binder or conversion error.

-- a value as the error messages show it: strings quoted, NULL as NULL
CREATE OR REPLACE MACRO rf__repr(v) AS
    CASE WHEN v IS NULL THEN 'NULL'
         WHEN typeof(v) = 'VARCHAR' THEN '''' || CAST(v AS VARCHAR) || ''''
         ELSE CAST(v AS VARCHAR) END;

CREATE OR REPLACE MACRO rf__is_int_type(type_name) AS
    type_name IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER',
                  'UBIGINT', 'UHUGEINT');

CREATE OR REPLACE MACRO rf__is_number_type(type_name) AS
    rf__is_int_type(type_name) OR type_name IN ('FLOAT', 'DOUBLE') OR starts_with(type_name, 'DECIMAL');

-- the value as a DOUBLE when it has a numeric type, else NULL (never a cast error)
CREATE OR REPLACE MACRO rf__number(v) AS
    CASE WHEN rf__is_number_type(typeof(v)) THEN TRY_CAST(CAST(v AS VARCHAR) AS DOUBLE) END;

-- the values the unchecked internals take, once the checks above passed (cheap: no nested checks)
CREATE OR REPLACE MACRO rf__as_k(k) AS TRY_CAST(CAST(k AS VARCHAR) AS BIGINT);
CREATE OR REPLACE MACRO rf__as_num(v) AS TRY_CAST(CAST(v AS VARCHAR) AS DOUBLE);
CREATE OR REPLACE MACRO rf__as_bool(v) AS coalesce(TRY_CAST(CAST(v AS VARCHAR) AS BOOLEAN), false);

-- cutoff: an integer type, 1 <= k <= 2**63 - 1, or NULL (the whole list)
CREATE OR REPLACE MACRO rf__k(k, owner) AS
    CASE WHEN k IS NULL THEN CAST(NULL AS BIGINT)
         WHEN rf__is_int_type(typeof(k))
              AND TRY_CAST(CAST(k AS VARCHAR) AS HUGEINT) BETWEEN 1 AND 9223372036854775807
         THEN TRY_CAST(CAST(k AS VARCHAR) AS BIGINT)
         ELSE error(printf('rf:param: The ''k'' parameter of %s must be an int >= 1 (at most 2**63 - 1) or NULL. Got '
                           || '%s instead.',
                           owner, rf__repr(k))) END;

-- ideal 'full' (IDCG, nDCG) fills all k positions of the ideal list: k at most 10**6 (rankframe.declare
-- FULL_IDEAL_MAX_K); k and ideal already checked
CREATE OR REPLACE MACRO rf__full_k(ideal, k, owner) AS
    CASE WHEN lower(CAST(ideal AS VARCHAR)) = 'full' AND rf__as_k(k) > 1000000
         THEN error(printf('rf:param: %s with ideal := ''full'' takes k <= 1000000 (its ideal list fills all k '
                           || 'positions), got k := %s.', owner, CAST(k AS VARCHAR)))
         ELSE true END;

CREATE OR REPLACE MACRO rf__choice(v, choices, pname, owner) AS
    CASE WHEN v IS NOT NULL AND typeof(v) = 'VARCHAR' AND list_contains(choices, lower(CAST(v AS VARCHAR)))
         THEN lower(CAST(v AS VARCHAR))
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be one of %s. Got %s instead.', pname, owner,
                           array_to_string(list_transform(choices, lambda x: '''' || x || ''''), ', '),
                           rf__repr(v))) END;

-- relevance threshold that must be set (binary metrics)
CREATE OR REPLACE MACRO rf__rel(rel, owner) AS
    CASE WHEN isfinite(rf__number(rel)) THEN rf__number(rel)
         ELSE error(printf('rf:param: The ''rel'' parameter of %s must be a finite number. Got %s instead.',
                           owner, rf__repr(rel))) END;

-- relevance threshold that may be NULL (graded metrics: NULL = no threshold); pname: the parameter's name
CREATE OR REPLACE MACRO rf__threshold(rel, pname, owner) AS
    CASE WHEN rel IS NULL THEN CAST(NULL AS DOUBLE)
         WHEN isfinite(rf__number(rel)) THEN rf__number(rel)
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be a finite number or NULL. Got %s instead.',
                           pname, owner, rf__repr(rel))) END;

CREATE OR REPLACE MACRO rf__relopt(rel, owner) AS rf__threshold(rel, 'rel', owner);

CREATE OR REPLACE MACRO rf__max_grade(m, owner) AS
    CASE WHEN rf__is_int_type(typeof(m)) AND TRY_CAST(CAST(m AS VARCHAR) AS HUGEINT) >= 1
         THEN TRY_CAST(CAST(m AS VARCHAR) AS DOUBLE)
         ELSE error(printf('rf:param: The ''max_grade'' parameter of %s must be an int >= 1. Got %s instead.',
                           owner, rf__repr(m))) END;

-- a float in the open interval (0, 1) (RBP's p, rf_compare's ci); NULL is an error too. example: ', e.g. 0.95' or ''
CREATE OR REPLACE MACRO rf__open_unit(v, pname, owner, example) AS
    CASE WHEN rf__number(v) > 0 AND rf__number(v) < 1 THEN rf__number(v)
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be a float in the open interval (0, 1)%s. Got '
                           || '%s instead.',
                           pname, owner, example, rf__repr(v))) END;

CREATE OR REPLACE MACRO rf__p(p, owner) AS rf__open_unit(p, 'p', owner, '');

-- a true/false switch (allow_duplicates)
CREATE OR REPLACE MACRO rf__flag(v, pname, owner) AS
    CASE WHEN typeof(v) = 'BOOLEAN' AND v IS NOT NULL THEN CAST(CAST(v AS VARCHAR) AS BOOLEAN)
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be true or false. Got %s instead.', pname, owner,
                           rf__repr(v))) END;

-- a choice as text, lower-cased, without the check (which the table macros make once, with rf__choice): the
-- column selections of order_by and the policies use it, so that 'RANK' behaves as 'rank'
CREATE OR REPLACE MACRO rf__lc(v) AS lower(CAST(v AS VARCHAR));

CREATE OR REPLACE MACRO rf__policy_choice(v, pname) AS
    rf__choice(v, ['zero', 'nan', 'skip'], pname, 'rankframe');

-- ----------------------------------------------------------------------------------------------- gains
-- gain of a grade g (docs: CG, DCG, IDCG, nDCG): NULL -> 0, below rel -> 0, linear max(g, 0),
-- exponential 2^max(g, 0) - 1 (infinite above grade 1023: rf__finite_gain turns that into an error), binary 1.
-- rel, gain already checked.
CREATE OR REPLACE MACRO rf__gain(g, rel, gain) AS
    CASE WHEN g IS NULL OR g < rel OR g <= 0 THEN CAST(0 AS DOUBLE)
         WHEN gain = 'linear' THEN CAST(g AS DOUBLE)
         WHEN gain = 'binary' THEN CAST(1 AS DOUBLE)
         ELSE pow(2.0, CAST(g AS DOUBLE)) - 1.0 END;

-- a sum of gains (CG, DCG, IDCG of one query), which must be finite: exponential gains of grades near 1023
-- overflow float64, and an infinite IDCG would make nDCG NaN (silently left out of a mean)
-- top_grade names the grade in the message; the aggregates pass it only for exponential gains (a constant CASE
-- the planner folds, so that the default linear gain keeps no max(grade) state per group: issue 10), NULL otherwise
-- (v named twice, not three times: each name is a copy the binder binds, and v is a whole sum: issue 35)
CREATE OR REPLACE MACRO rf__finite_gain(v, top_grade) AS
    CASE WHEN isinf(v)
         THEN CASE WHEN top_grade IS NULL
                   THEN error('rf:table[relevance]: the sum of the gains of a query is infinite (float64 overflow); '
                              || 'rescale the grades or gains.')
                   ELSE error(printf('rf:param: gain := ''exponential'' (2^g - 1) overflows float64 for grade %g: the '
                                     || 'sum of the gains of a query is infinite; use gain := ''linear'' or rescale '
                                     || 'the grades.', CAST(top_grade AS DOUBLE))) END
         ELSE v END;

-- the largest grade of the group for rf__finite_gain's message, computed only for exponential gains
CREATE OR REPLACE MACRO rf__agg_top_grade(grade, gain) AS CASE WHEN gain = 'exponential' THEN max(grade) END;

-- a sum of gain terms t (CG, DCG: one per row, NULL outside the cutoff) as an aggregate: 0 without any, an error
-- when infinite (grade and gain name the top grade in the message, as rf__agg_top_grade)
-- (the check is on the sum's tail, infinite exactly when the sum is: rf__xsum)
CREATE OR REPLACE MACRO rf__gain_total(t, grade, gain) AS
    coalesce(rf__xsum_of(rf__xsum_hi(t), rf__xsum_lo(t),
                         rf__finite_gain(rf__xsum_tail(t), rf__agg_top_grade(grade, gain))),
             CAST(0 AS DOUBLE));

-- ERR's probability of satisfaction Pr(g) = (2^max(g, 0) - 1) / 2^max_grade, computed as 2^(g - max_grade) -
-- 2^-max_grade (the same number, finite for any max_grade); callers check g <= max_grade first
-- (rf__check_max_grade).
CREATE OR REPLACE MACRO rf__pr(g, max_grade) AS
    CASE WHEN g IS NULL OR g <= 0 THEN CAST(0 AS DOUBLE)
         ELSE pow(2.0, CAST(g AS DOUBLE) - max_grade) - pow(2.0, -max_grade) END;

-- true when every grade is <= max_grade (top_grade = the largest grade of the unit or list, judged anywhere, not
-- only in the top k, as the Python API), else the error of the Python API
CREATE OR REPLACE MACRO rf__check_max_grade(top_grade, max_grade, owner) AS
    CASE WHEN top_grade > max_grade
         THEN error(printf('rf:param: The ''max_grade'' parameter of %s must be >= every grade in the table. Got %s '
                           || 'but the table has grade %g; pass max_grade := %s (the top grade of your scale).', owner,
                           CAST(CAST(max_grade AS BIGINT) AS VARCHAR), CAST(top_grade AS DOUBLE),
                           CAST(CAST(ceil(top_grade) AS HUGEINT) AS VARCHAR)))
         ELSE true END;

-- DCG of a list of gains already in order, cut at k (NULL = whole list)
CREATE OR REPLACE MACRO rf__dcg_list(gains, k) AS
    coalesce(list_sum(list_transform(list_slice(gains, 1, coalesce(k, len(gains))),
                                     lambda x, i: x / log2(i + 1))), 0.0);

-- ERR of a list of (position i, Pr) structs sorted by position (cascade: sum Pr_i / i prod_{j<i} (1 - Pr_j)),
-- in one pass over the list: list_reduce carries the running product p of (1 - Pr) and the sum s. Each element
-- becomes {p: 1 - Pr, s: Pr / i} behind a neutral {p: 1, s: 0} (so an empty list gives 0, and the accumulator and
-- the elements have one type, as DuckDB 1.x's list_reduce needs). O(n) (before issue 10 every element took the
-- product of a slice of the list: O(n^2), 11.6 s for one 3,000-row query), and exact at Pr = 1 (the product is 0
-- from the next element on, no logarithm)
CREATE OR REPLACE MACRO rf__err_list(items) AS
    coalesce(list_reduce(list_prepend({'p': CAST(1 AS DOUBLE), 's': CAST(0 AS DOUBLE)},
                                      list_transform(items, lambda x: {'p': CAST(1.0 - x.pr AS DOUBLE),
                                                                       's': CAST(x.pr / x.i AS DOUBLE)})),
                         lambda acc, x: {'p': acc.p * x.p, 's': acc.s + acc.p * x.s}).s,
             CAST(0 AS DOUBLE));

-- ERR of a list of Pr values in order, cut at k (the ideal list for nERR)
CREATE OR REPLACE MACRO rf__err_pr(prs, k) AS
    rf__err_list(list_transform(list_slice(prs, 1, coalesce(k, len(prs))), lambda x, i: {'i': i, 'pr': x}));

-- positions i <= k (k NULL = all) where grades[i] >= rel, ascending
CREATE OR REPLACE MACRO rf__hitpos(grades, k, rel) AS
    list_filter(list_transform(list_slice(grades, 1, coalesce(k, len(grades))),
                               lambda x, i: CASE WHEN x >= rel THEN i END),
                lambda i: i IS NOT NULL);

-- judged_only := true (trec_eval -J, ir_measures judged_only=): a retrieved row stays in the list when its grade is
-- >= 0; a NULL grade (unjudged) and a negative one (trec_eval: "in the pool but not judged") leave it, and the rows
-- below move up. The one statement of the rule: the list macros, rf__per_query_raw and the DuckDB engine call it.
CREATE OR REPLACE MACRO rf__judged_kept(g) AS coalesce(g >= 0, false);

-- the list without the entries judged_only removes
CREATE OR REPLACE MACRO rf__judged_list(grades, judged_only) AS
    CASE WHEN rf__as_bool(judged_only) THEN list_filter(grades, lambda x: rf__judged_kept(x)) ELSE grades END;

-- the aggregates rf_agg_<name> take no judged_only: give them this position instead of rf_pos, the position of a
-- retrieved row among the kept rows of its unit `part` (NULL for the others, which the aggregates then do not see
-- as retrieved). A window: rf_agg_ap(rf__judged_pos(query, rf_pos, rf_g), rf_g) in a subquery's column.
CREATE OR REPLACE MACRO rf__judged_pos(part, pos, grade) AS
    CASE WHEN pos IS NOT NULL AND rf__judged_kept(grade)
         THEN count(CASE WHEN rf__judged_kept(grade) THEN 1 END)
                  OVER (PARTITION BY part ORDER BY pos NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) END;

-- ------------------------------------------------------------------------------- hits in the top k as bits
-- Speed (issue 10, docs/decisions/0010-sql-big-inputs.md "Speed"): on a large table grouped by query, each
-- aggregate state of a group is a cache miss per row, so P, AP and RR at a cutoff k <= 62 share ONE aggregate, a
-- BIGINT whose bit p - 1 is set when the row at position p <= k is a hit (DuckDB binds identical aggregate
-- expressions once). rf__mask_ok(k) is a constant for a constant k, so the planner folds the CASE of each metric
-- and drops the aggregates of the branch not taken (a list, a min, a count); a NULL or larger k keeps them.
CREATE OR REPLACE MACRO rf__mask_ok(k) AS coalesce(k <= 62, false);

-- the mask of the hits (grade >= rel) at positions 1..k (least(k, 62): never a shift past bit 61, even when k is
-- not a constant and both branches run)
CREATE OR REPLACE MACRO rf__agg_hitmask(pos, grade, k, rel) AS
    coalesce(bit_or(CASE WHEN pos BETWEEN 1 AND least(k, 62) AND grade >= rel
                         THEN CAST(1 AS BIGINT) << CAST(pos - 1 AS INTEGER) END), CAST(0 AS BIGINT));

-- the number of hits in a mask, its first hit position (NULL when none), its sorted hit positions
CREATE OR REPLACE MACRO rf__mask_count(mask) AS CAST(bit_count(mask) AS BIGINT);
CREATE OR REPLACE MACRO rf__mask_first(mask) AS
    CASE WHEN mask <> 0 THEN CAST(bit_count((mask & -mask) - 1) AS BIGINT) + 1 END;
CREATE OR REPLACE MACRO rf__mask_positions(mask, k) AS
    list_filter(range(1, least(k, 62) + 1), lambda p: ((mask >> CAST(p - 1 AS INTEGER)) & 1) = 1);

-- AP's sum over the sorted hit positions p_j of j / p_j
CREATE OR REPLACE MACRO rf__ap_sum(hitpos) AS
    coalesce(list_sum(list_transform(hitpos, lambda p, j: CAST(j AS DOUBLE) / p)), 0.0);

-- NaN-aware helpers for the query-set policies
CREATE OR REPLACE MACRO rf__policy_value(choice) AS
    CASE rf__lc(choice) WHEN 'zero' THEN CAST(0 AS DOUBLE) WHEN 'nan' THEN CAST('NaN' AS DOUBLE) ELSE NULL END;

-- Query-set policies (docs/metrics.md), checked in order: no judged row -> no_judged; nothing retrieved ->
-- no_retrieved; nothing relevant (metrics that need relevant items) -> no_relevant.
-- 'zero' -> 0, 'nan' -> NaN (kept, left out of means), 'skip' -> NULL (dropped); any case ('ZERO').
-- rf__apply_policy is the rule; rf__unit_policy its steps for a unit whose fill is computed once (rf__per_query_ok
-- computes rf__policy_fill and rf__policy_value(no_relevant) once per unit, not once per column: 21 copies of the
-- policies were a large part of a small rf_per_query call's binding, issue 35)
CREATE OR REPLACE MACRO rf__unit_policy(v, filled, fill, nothing_relevant, relevant_fill) AS
    CASE WHEN filled THEN fill WHEN nothing_relevant THEN relevant_fill ELSE v END;

-- whether the unit itself has a value whatever the metric (no judged row, or nothing retrieved), and that value
CREATE OR REPLACE MACRO rf__policy_filled(n_judged, n_ret) AS n_judged = 0 OR n_ret = 0;

CREATE OR REPLACE MACRO rf__policy_fill(n_judged, no_retrieved, no_judged) AS
    CASE WHEN n_judged = 0 THEN rf__policy_value(no_judged) ELSE rf__policy_value(no_retrieved) END;

CREATE OR REPLACE MACRO rf__apply_policy(v, n_judged, n_ret, nothing_relevant, no_relevant, no_retrieved, no_judged) AS
    rf__unit_policy(v, rf__policy_filled(n_judged, n_ret), rf__policy_fill(n_judged, no_retrieved, no_judged),
                    nothing_relevant, rf__policy_value(no_relevant));

-- a count (NumRel, ...) is defined on an empty list: under no_retrieved 'zero' it keeps its value (trec_eval -c)
CREATE OR REPLACE MACRO rf__count_n_ret(n_ret, no_retrieved) AS
    CASE WHEN rf__lc(no_retrieved) = 'zero' THEN greatest(n_ret, 1) ELSE n_ret END;

-- ------------------------------------------------------------------------------------------ the table
-- The table macros (rf_prepare, rf_per_query, rf_means, rf_validate) check their table and parameters once per
-- call in a one-row subquery (rf__check_table), so the errors fire on an empty table too and never depend on
-- which columns are selected. Column selections only ever pick existing, non-reserved columns (a bad segment
-- list is the check's error, never a DuckDB binder error).

-- the column names of a table or view, in order (on an empty table too: the row is a LEFT JOIN's NULLs)
CREATE OR REPLACE MACRO rf__columns(tbl) AS TABLE
    SELECT json_keys(to_json(struct_pack(*COLUMNS(s.*)))) AS rf__names
    FROM (SELECT 1 AS rf__one) AS o LEFT JOIN (SELECT * FROM query_table(tbl) LIMIT 0) AS s ON true;

-- names the macros add to a table (rf_prepare's rf_pos and rf_g) or use internally (rf__*); DuckDB compares
-- names case-insensitively
CREATE OR REPLACE MACRO rf__reserved(c) AS lower(c) IN ('rf_pos', 'rf_g') OR starts_with(lower(c), 'rf__');

-- the columns of the unit (segments..., query) for COLUMNS(lambda c: rf__is_unit_col(c, segments))
CREATE OR REPLACE MACRO rf__is_unit_col(c, segments) AS
    (list_contains(TRY_CAST(segments AS VARCHAR[]), c) AND NOT rf__reserved(c)) OR lower(c) = 'query';

-- the closest name (for a did-you-mean hint), NULL when none is close
CREATE OR REPLACE MACRO rf__closest(word, names) AS
    list_sort(list_filter(list_transform(names,
                                         lambda n: {'d': -jaro_winkler_similarity(lower(word), lower(n)), 'n': n}),
                          lambda x: x.d <= -0.8))[1].n;

CREATE OR REPLACE MACRO rf__quoted(names) AS
    array_to_string(list_transform(names, lambda n: '''' || n || ''''), ', ');

-- true, or the error for the first problem of the segment list or the table's column names: segments must be a
-- list of distinct names of columns of the table other than query (and other than the output columns of the
-- macro, `outputs`); no column may use a reserved name
CREATE OR REPLACE MACRO rf__check_columns(names, segments, owner, outputs) AS
    CASE WHEN segments IS NULL OR (len(segments) > 0 AND typeof(segments) <> 'VARCHAR[]')
              OR list_contains(list_transform(TRY_CAST(segments AS VARCHAR[]), lambda x: x IS NULL), true)
         THEN error(printf('rf:param: The ''segments'' parameter of %s must be a list of column names (such as '
                           || '[''model'']). Got %s instead.', owner, rf__repr(segments)))
         WHEN len(list_filter(TRY_CAST(segments AS VARCHAR[]), lambda x: NOT list_contains(names, x))) > 0
         THEN error(printf('rf:param: The ''segments'' parameter of %s names column(s) not in the table: %s. Columns '
                           || 'in the table: %s.', owner,
                           array_to_string(list_transform(
                               list_filter(TRY_CAST(segments AS VARCHAR[]), lambda x: NOT list_contains(names, x)),
                               lambda x: '''' || x || '''' || coalesce(' (did you mean ''' || rf__closest(x, names)
                                                                       || '''?)', '')), ', '),
                           rf__quoted(names)))
         WHEN len(list_distinct(list_transform(TRY_CAST(segments AS VARCHAR[]), lambda x: lower(x)))) < len(segments)
         THEN error(printf('rf:param: The ''segments'' parameter of %s lists a column more than once. Got %s '
                           || 'instead.', owner,
                           rf__repr(segments)))
         WHEN list_contains(list_transform(TRY_CAST(segments AS VARCHAR[]), lambda x: lower(x)), 'query')
         THEN error(printf('rf:param: The ''segments'' parameter of %s must not contain ''query'': the query column '
                           || 'is always the last column of the unit (segments..., query). Got %s instead.', owner,
                           rf__repr(segments)))
         WHEN len(list_filter(names, lambda x: rf__reserved(x))) > 0
         THEN error(printf('rf:table: The table has column(s) named like the columns rankframe''s macros add '
                           || '(rf_pos, rf_g, '
                           || 'rf__*): %s. Rename them in a view (CREATE VIEW v AS SELECT * RENAME (...) FROM t).',
                           rf__quoted(list_filter(names, lambda x: rf__reserved(x)))))
         WHEN len(list_filter(TRY_CAST(segments AS VARCHAR[]), lambda x: list_contains(outputs, lower(x)))) > 0
         THEN error(printf('rf:param: The ''segments'' parameter of %s names column(s) that are also output columns '
                           || 'of %s: %s. Rename them in a view.', owner, owner,
                           rf__quoted(list_filter(TRY_CAST(segments AS VARCHAR[]),
                                                  lambda x: list_contains(outputs, lower(x))))))
         ELSE true END;

-- one row, rf__ok = true, or the error of the first broken rule of the columns or of the parameters (params_ok is
-- an expression that raises the parameter errors, see rf__check_params in evaluate.sql)
CREATE OR REPLACE MACRO rf__check_table(tbl, segments, owner, outputs, params_ok) AS TABLE
    SELECT rf__check_columns(c.rf__names, segments, owner, outputs) AND params_ok AS rf__ok
    FROM rf__columns(tbl) AS c;

-- the columns a table macro reads: query, item, relevance and the order column (score for order_by := 'score',
-- else rank)
CREATE OR REPLACE MACRO rf__required(order_by) AS
    ['query', 'item', 'relevance', CASE WHEN rf__lc(order_by) = 'score' THEN 'score' ELSE 'rank' END];

-- the required columns a table lacks, compared exactly: a column spelled 'Query' or 'RANK' is not 'query' or 'rank'
-- (as in the Python API, where names are case-sensitive), and the error's did-you-mean hint names it. The column
-- selections of the macros compare lower(c), so such a table binds and reaches this error, not a binder error.
CREATE OR REPLACE MACRO rf__lacking(names, required) AS
    list_filter(CAST(required AS VARCHAR[]), lambda r: NOT list_contains(CAST(names AS VARCHAR[]), r));

-- (the table is not named: tbl may be a name as text or an identifier)
CREATE OR REPLACE MACRO rf__missing_message(names, required) AS
    printf('The table has no column(s) %s, which rankframe''s macros read (query, item, relevance, and rank or '
           || 'score as order_by says). Columns in the table: %s. Rename yours in a view (CREATE VIEW v AS SELECT '
           || '*, grade AS relevance FROM t).',
           array_to_string(list_transform(rf__lacking(names, required),
                                          lambda x: '''' || x || '''' || coalesce(' (did you mean '''
                                                                                  || rf__closest(x, CAST(names AS VARCHAR[])) || '''?)',
                                                                                  '')), ', '),
           rf__quoted(CAST(names AS VARCHAR[])));

-- the table tbl, whose rows pass only once a one-row check found every required column (else rankframe's message
-- above, before any row is read), plus the required columns it lacks as an empty branch of NULL columns, so that
-- the callers bind (a missing column is then rankframe's error, not a DuckDB binder error). The branch is pruned by
-- its constant condition and the check is a scalar subquery: the table's own columns, their order, types and
-- statistics are unchanged. Statistics matter: a GROUP BY on an integer query column whose min/max are known can
-- use DuckDB's perfect hash aggregate (docs/decisions/0010-sql-big-inputs.md "Speed"); a live UNION branch (the
-- error row of earlier versions) made them unknown.
CREATE OR REPLACE MACRO rf__input(tbl, required) AS TABLE
    SELECT * FROM query_table(tbl)
    WHERE (SELECT CASE WHEN len(rf__lacking(c.rf__names, required)) > 0
                       THEN error('rf:table: ' || rf__missing_message(c.rf__names, required))
                       ELSE true END
           FROM rf__columns(tbl) AS c)
    UNION ALL BY NAME
    SELECT COLUMNS(lambda c: list_contains(required, c))
    FROM (SELECT NULL AS query, NULL AS item, NULL AS relevance, NULL AS rank, NULL AS score) AS e
    WHERE false;

-- ------------------------------------------------------------------------------------------ preparation
-- rf_prepare(tbl): every column of the table/view tbl plus
--   rf_pos  position 1..n of the row in its ranking unit (segments..., query), NULL if not retrieved;
--           from `rank` ascending (order_by := 'rank', the rank values only define the order), or from
--           `score` descending with ties broken by item descending compared as strings (order_by := 'score',
--           trec_eval); NULL rank / NULL score = judged but not retrieved;
--           order_by := 'position' takes `rank` as the position itself (ranks already 1..n in every unit, as
--           most exports are): no window and no sort, about 3x faster on large tables. The table macros and
--           rf_agg_n_retrieved stop with an error when a unit's ranks are not exactly 1..n.
--   rf_g    the relevance as DOUBLE (NULL = unjudged)
-- The table must use the standard column names query, item, rank|score, relevance (make a view to rename).
-- order_by is compared case-insensitively ('RANK' = 'rank'). Errors: segments must name columns of the table
-- (not query, each once); no column may be named rf_pos, rf_g or rf__*.
-- Without segments the window partitions by query itself (fast); with segments by a struct of the unit's columns.
-- One branch per order_by (position: no window; rank; score), pruned by their constant conditions (below).
-- rf__prepare is the same with the check as an argument: ok is a scalar subquery over rf__check_table (one row),
-- applied to the rows before anything else, so that the check's error always comes before any error of a
-- metric computed over those rows.
-- Its WITH items are each bound once (issue 35: binding is most of a small call, and each name of a macro argument or
-- each call of a table macro is a copy the binder binds again): rf__in the table's rows once the check passed (ok and
-- rf__input's own check bound once each; they were bound once per order_by branch), rf__keyed the rows of the two
-- window branches (DuckDB inlines both: the plan scans the table once, in the branch order_by keeps). No query_table
-- call is in the scope of a WITH item of the same WITH (rf__in's body sees neither), so a table named like one of
-- them is still the table (tests/hostile/test_sql_table_names.py).
-- rf__keyed: the unit's key rf__part (the query itself without segments, which is fast, else a struct of
-- (segments..., query)), the sort key rf__key (rank ascending, or score descending) and the score's tie-break rf__tie
-- (item descending as a string, trec_eval). The query column comes out as rf__q, and without segments rf__part IS
-- that column (the branches turn it back into query): the window then carries the query once, not twice (issue 10:
-- about 5% of the 'rank' statement's CPU).

-- Whether a unit's ranks are exactly 1..n (order_by := 'position' takes them as positions): their count n, the
-- largest (guarded against ranks below 1) and their XOR, which for 1..n has a closed form (rf__xor_1_to).
CREATE OR REPLACE MACRO rf__xor_1_to(n) AS
    CASE n % 4 WHEN 0 THEN n WHEN 1 THEN 1 WHEN 2 THEN n + 1 ELSE 0 END;

-- the largest position of a unit, or the largest BIGINT once a position is below 1 (NULL, not retrieved, is left out)
CREATE OR REPLACE MACRO rf__agg_top_pos(pos) AS
    max(CASE WHEN pos < 1 THEN CAST(9223372036854775807 AS BIGINT) ELSE CAST(pos AS BIGINT) END);

-- The one "ranks are 1..n" rule of the DuckDB faces: the Python DuckDB road (rankframe/engines/duckdb_view.py) calls
-- this macro too, adding a hash-sum proof of unique ranks where it has not checked them.
-- true when a unit's positions (whole numbers) are exactly 1..n, n = their count, or there are none: the largest is
-- n, none is below 1 and their XOR is that of 1..n. Three aggregate states, as the min, max and count it replaced;
-- with unique ranks (as rf_validate checks) exact, and a single repeated rank is caught too ({2, 2}: XOR 0, not 3;
-- {1, 2, 2, 4}: XOR 5, not 4), which min and max missed when 1 was there
CREATE OR REPLACE MACRO rf__agg_is_1_to_n(pos) AS
    count(pos) = 0
    OR (rf__agg_top_pos(pos) = count(pos) AND bit_xor(CAST(pos AS BIGINT)) = rf__xor_1_to(count(pos)));

-- Three branches, one per order_by, all bound; the two whose constant condition is false are pruned by
-- DuckDB's planner. The rank branch sorts on one key only: a constant string tie-break key in its
-- ORDER BY (as before issue 10) made DuckDB sort with variable-size keys, about 2x slower; and that key is the rank
-- column in its own numeric type (rf__rank), not a DOUBLE cast: an INTEGER rank sorted about 20% faster
-- (docs/decisions/0010-sql-big-inputs.md "Speed"). A non-numeric rank column is an error, as in rf_validate.
-- Each window branch is pruned by its condition ABOVE the window: pruned below it, the window stayed in the plan over
-- an empty input, and its query column (so the union's) lost the min/max statistics that DuckDB's perfect hash
-- aggregate needs (decision 10, "Third pass").
CREATE OR REPLACE MACRO rf__prepare(tbl, segments, order_by, ok) AS TABLE
    WITH rf__in AS (SELECT * FROM rf__input(tbl, rf__required(order_by)) AS s WHERE ok),
    rf__keyed AS (
        SELECT u.* EXCLUDE (rf__rank),
               COLUMNS(lambda c: c = CASE WHEN len(segments) = 0 THEN 'rf__q' ELSE 'rf__unit' END) AS rf__part,
               CASE WHEN rf__lc(order_by) <> 'rank' OR rf__is_number_type(typeof(u.rf__rank))
                         OR typeof(u.rf__rank) = '"NULL"'  -- a missing rank column: rf__input's error comes first
                    THEN u.rf__rank
                    ELSE error('rf:table[rank]: rank must be numeric (null = judged but not retrieved) for order_by := '
                               || '''rank''.')
                    END AS rf__rank
        FROM (SELECT COLUMNS(lambda c: NOT rf__reserved(c) AND lower(c) <> 'query'),
                     s.query AS rf__q,
                     row(*COLUMNS(lambda c: rf__is_unit_col(c, segments))) AS rf__unit,
                     CAST(s.item AS VARCHAR) AS rf__tie,
                     CAST(COLUMNS(lambda c: lower(c) = CASE WHEN rf__lc(order_by) IN ('rank', 'score') THEN rf__lc(order_by)
                                                     ELSE 'query' END)
                          AS DOUBLE)
                         * CASE rf__lc(order_by) WHEN 'rank' THEN 1.0 ELSE -1.0 END AS rf__key,
                     COLUMNS(lambda c: lower(c) = CASE WHEN rf__lc(order_by) = 'rank' THEN 'rank' ELSE 'query' END)
                         AS rf__rank
              FROM rf__in AS s
              WHERE coalesce(rf__lc(order_by), '') <> 'position') AS u
    )
    SELECT COLUMNS(lambda c: NOT rf__reserved(c)),
           CAST(COLUMNS(lambda c: lower(c) = CASE WHEN rf__lc(order_by) = 'position' THEN 'rank' ELSE 'query' END) AS BIGINT)
               AS rf_pos,
           CAST(s.relevance AS DOUBLE) AS rf_g
    FROM rf__in AS s
    WHERE coalesce(rf__lc(order_by), '') = 'position'
    UNION ALL BY NAME
    SELECT * FROM (
        SELECT t.* EXCLUDE (rf__key, rf__unit, rf__tie, rf__part, rf__rank, rf__q),
               COLUMNS(lambda c: c = CASE WHEN len(segments) = 0 THEN 'rf__part' ELSE 'rf__q' END) AS query,
               CASE WHEN t.rf__rank IS NOT NULL THEN row_number() OVER (
                    PARTITION BY t.rf__part ORDER BY t.rf__rank ASC NULLS LAST) END AS rf_pos,
               CAST(t.relevance AS DOUBLE) AS rf_g
        FROM rf__keyed AS t)
    WHERE coalesce(rf__lc(order_by), '') NOT IN ('position', 'score')  -- 'rank'; a bad value reaches ok's error
    UNION ALL BY NAME
    SELECT * FROM (
        SELECT t.* EXCLUDE (rf__key, rf__unit, rf__tie, rf__part, rf__rank, rf__q),
               COLUMNS(lambda c: c = CASE WHEN len(segments) = 0 THEN 'rf__part' ELSE 'rf__q' END) AS query,
               CASE WHEN t.rf__key IS NOT NULL THEN row_number() OVER (
                    PARTITION BY t.rf__part ORDER BY t.rf__key ASC NULLS LAST, t.rf__tie DESC) END AS rf_pos,
               CAST(t.relevance AS DOUBLE) AS rf_g
        FROM rf__keyed AS t)
    WHERE rf__lc(order_by) = 'score';

CREATE OR REPLACE MACRO rf_prepare(tbl, segments := [], order_by := 'rank') AS TABLE
    SELECT * FROM rf__prepare(tbl, segments, order_by,
                              (SELECT rf__ok FROM rf__check_table(tbl, segments, 'rf_prepare', [],
                                                                  rf__choice(order_by, ['rank', 'score', 'position'],
                                                                             'order_by', 'rf_prepare') IS NOT NULL)));

-- the number of ranked rows of a unit (an aggregate over rf_prepare's rf_pos); with order_by := 'position'
-- it also checks that the unit's ranks are exactly 1..n (rf__agg_is_1_to_n), since positions are then taken as given
CREATE OR REPLACE MACRO rf_agg_n_retrieved(pos, order_by := 'rank') AS
    CASE WHEN rf__lc(order_by) = 'position' AND NOT rf__agg_is_1_to_n(pos)
         THEN error(printf('rf:table[rank]: order_by := ''position'' needs ranks 1..n in every query, but a query '
                           || 'has %s ranked rows and %s; use order_by := ''rank''.',
                           CAST(count(pos) AS VARCHAR),
                           CASE WHEN rf__agg_top_pos(pos) = 9223372036854775807 THEN 'a rank below 1'
                                WHEN rf__agg_top_pos(pos) <> count(pos)
                                THEN 'largest rank ' || CAST(rf__agg_top_pos(pos) AS VARCHAR)
                                ELSE 'a repeated rank' END))
         ELSE count(pos) END;
