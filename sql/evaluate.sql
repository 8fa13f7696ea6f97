-- rankframe: table macros for the whole job (per-query values and per-segment means).
--
-- The input is a table or view (or a Parquet file through a view) with the standard column names:
--   query, item, rank (1 = top, NULL = judged but not retrieved) or score (order_by := 'score'; 'position'
--   when ranks are already 1..n in every query: no window, much faster),
--   relevance (graded, NULL = unjudged), plus any segment columns. Rename with a view:
--     CREATE VIEW runs AS SELECT user_id AS query, movie_id AS item, position AS rank, rating AS relevance,
--                                model FROM 'my_export.parquet';
-- Checked once per call, before any value is computed (errors in the words of the Python API): the parameters,
-- the segment list (columns of the table, each once, not query, not an output column name), reserved column
-- names (rf_pos, rf_g, rf__*), and repeated (segments..., query, item) rows, an error unless
-- allow_duplicates := true (each repeated row is then its own list entry, as allow_duplicates=True in Python).
-- Set-based: one window pass numbers the ranked positions (rf_prepare), one GROUP BY computes every metric
-- with the aggregate building blocks rf_agg_<name>.

-- "nothing relevant" of one unit: binary metrics |R| = 0; graded (nDCG, nERR) no judged (ideal 'judged', 'full')
-- or retrieved (ideal 'retrieved') row with a positive gain (grade > 0 and, when rel is set, grade >= rel).
CREATE OR REPLACE MACRO rf_agg_nothing_relevant(pos, grade, rel := 1, graded := false, ideal := 'judged') AS
    CASE WHEN graded
         THEN count(grade) FILTER (WHERE grade > 0 AND (rel IS NULL OR grade >= rel)
                                   AND (ideal <> 'retrieved' OR pos IS NOT NULL)) = 0
         ELSE count(grade) FILTER (WHERE grade >= rel) = 0 END;

-- the metric parameters of the table macros rf_per_query, rf_means, rf_compare and rf_anova, with their defaults: every
-- parameter a metric column declares (rankframe/metrics/*.py) and the query-set policies. The loader (rankframe/sql.py)
-- puts the list where a macro's generated-part marker names metric_params (name := default, ...) or metric_args
-- (the names, to pass them on): no macro lists them by hand. Generated: do not edit the block, run
-- python -c 'from rankframe.registry import write_sql_params; write_sql_params()'
-- rf:generated-begin (rankframe.registry.write_sql_params: the declared metric parameters)
-- rf:param k := NULL
-- rf:param rel := 1
-- rf:param p_denominator := 'k'
-- rf:param judged_only := false
-- rf:param r_denominator := 'relevant'
-- rf:param ap_denominator := 'relevant'
-- rf:param graded_rel := NULL
-- rf:param gain := 'linear'
-- rf:param log_base := 2.0
-- rf:param gains := NULL
-- rf:param ties := 'first'
-- rf:param ideal := 'judged'
-- rf:param max_grade := 4
-- rf:param beta := 1.0
-- rf:param p := 0.8
-- rf:param residual := false
-- rf:param tail := 'cwl'
-- rf:param no_relevant := 'zero'
-- rf:param no_retrieved := 'zero'
-- rf:param no_judged := 'skip'
-- rf:generated-end

-- the metric columns of rf_per_query, in their order (the one list: rf_means averages them, rf_compare compares them).
-- The /* rf:generated ... */ parts of this file are filled by the loader (rankframe/sql.py, "metric wiring") from the
-- rf:column / rf:value lines of the metric files: a new metric file is wired in without an edit here
CREATE OR REPLACE MACRO rf__metric_columns() AS
    [/* rf:generated metric_columns */];

-- which way is better per metric column (rankframe.direction, the rf:column lines' better=): 1 higher, -1 lower, 0
-- neither (a count: rf_compare gives it no wins or losses); after the name, the options that turn a column's direction
-- (the rf:column lines' better_when=, e.g. RBP's residual := true: neither), as the caller's checked parameters
CREATE OR REPLACE MACRO rf__direction(name/* rf:generated direction_params */) AS
    CASE name /* rf:generated directions */ ELSE 0 END;

-- the metric columns without a cutoff k (no k parameter declared): their labels never carry '@k'
CREATE OR REPLACE MACRO rf__uncut_columns() AS [/* rf:generated uncut_columns */];
-- a metric column's label in rf_compare's and rf_anova's rows: its name, and @k unless it has no cutoff
CREATE OR REPLACE MACRO rf__column_label(name, k) AS
    name || CASE WHEN rf__as_k(k) IS NOT NULL AND NOT list_contains(rf__uncut_columns(), name)
                 THEN '@' || CAST(rf__as_k(k) AS VARCHAR) ELSE '' END;

-- the output columns of rf_per_query / rf_means (a segment may not have one of these names, in any case)
CREATE OR REPLACE MACRO rf__outputs() AS
    list_append(list_transform(rf__metric_columns(), lambda c: lower(c)), 'n_queries');

-- the unit's columns in rf_per_query / rf_means: also leaves out the output names, which the check rejects,
-- so that such a segment is the check's error and not a binder error about an ambiguous column
CREATE OR REPLACE MACRO rf__is_key(c, segments) AS
    rf__is_unit_col(c, segments) AND NOT list_contains(rf__outputs(), lower(c));

-- true, or the error for the first bad parameter of rf_per_query / rf_means (each CASE condition calls one check,
-- which returns the normalised value or raises; none of them is ever true)
CREATE OR REPLACE MACRO rf__check_params(order_by, allow_duplicates, owner, /* rf:generated metric_args */) AS
    CASE WHEN rf__k(k, owner) < 0 THEN false
         WHEN rf__choice(order_by, ['rank', 'score', 'position'], 'order_by', owner) = '' THEN false
         WHEN NOT isfinite(rf__rel(rel, owner)) THEN false
         WHEN NOT isfinite(rf__threshold(graded_rel, 'graded_rel', owner)) THEN false
         WHEN rf__choice(gain, ['linear', 'exponential', 'binary'], 'gain', owner) = '' THEN false
         WHEN rf__choice(ideal, ['judged', 'retrieved', 'full'], 'ideal', owner) = '' THEN false
         WHEN NOT rf__full_k(ideal, k, owner) THEN false
         WHEN rf__max_grade(max_grade, owner) < 0 THEN false
         WHEN rf__p(p, owner) < 0 THEN false
         WHEN rf__choice(p_denominator, ['k', 'retrieved'], 'p_denominator', owner) = '' THEN false
         WHEN rf__choice(r_denominator, ['relevant', 'min_k'], 'r_denominator', owner) = '' THEN false
         WHEN rf__choice(ap_denominator, ['relevant', 'min_k', 'retrieved'], 'ap_denominator', owner) = '' THEN false
         WHEN rf__beta(beta, owner) < 0 THEN false
         WHEN rf__log_base(log_base, owner) < 0 THEN false
         WHEN cardinality(rf__gains(gains, owner)) < 0 THEN false
         WHEN rf__flag(judged_only, 'judged_only', owner) IS NULL THEN false
         WHEN rf__choice(ties, ['first', 'average'], 'ties', owner) = '' THEN false
         WHEN rf__flag(residual, 'residual', owner) IS NULL THEN false
         WHEN rf__choice(tail, ['cwl', 'trec_eval', 'trectools'], 'tail', owner) = '' THEN false
         WHEN rf__choice(no_relevant, ['zero', 'nan', 'skip'], 'no_relevant', owner) = '' THEN false
         WHEN rf__choice(no_retrieved, ['zero', 'nan', 'skip'], 'no_retrieved', owner) = '' THEN false
         WHEN rf__choice(no_judged, ['zero', 'nan', 'skip'], 'no_judged', owner) = '' THEN false
         WHEN rf__flag(allow_duplicates, 'allow_duplicates', owner) IS NULL THEN false
         ELSE true END;

-- one row: true, or the error naming the repeated (segments..., query, item) rows (a count and a few examples);
-- with allow_duplicates := true the scan is pruned (constant false filter), so the opt-out costs nothing.
-- ok (the result of rf__check_table) is tested first: its error always wins over this one.
-- Its words start with the declared rule's (rankframe/table_rules.py RULES['unique_item'], tests/hostile/test_table_rules.py).
CREATE OR REPLACE MACRO rf__check_duplicates(tbl, segments, allow_duplicates, ok) AS TABLE
    SELECT CASE WHEN NOT ok THEN false
                WHEN count(*) > 0
                THEN error(printf('rf:table[item]: item must be unique within each (%s): %s (%s, item) key(s) occur '
                                  || 'on more than one '
                                  || 'row (%s rows in all), e.g. %s. Pass allow_duplicates := true to keep repeated '
                                  || 'rows (each counts as its own list entry).',
                                  array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', '),
                                  CAST(count(*) AS VARCHAR),
                                  array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', '),
                                  CAST(sum(d.rf__n) AS VARCHAR), array_to_string(min(d.rf__example, 3), '; ')))
                ELSE true END AS rf__ok
    FROM (SELECT printf('%s item=%s (%s rows)', CAST(struct_pack(*COLUMNS(lambda c: c NOT IN ('rf__item', 'rf__n')))
                                                     AS VARCHAR),
                        CAST(g.rf__item AS VARCHAR), CAST(g.rf__n AS VARCHAR)) AS rf__example, g.rf__n
          FROM (SELECT COLUMNS(lambda c: rf__is_unit_col(c, segments)), s.item AS rf__item, count(*) AS rf__n
                FROM rf__input(tbl, ['query', 'item', 'relevance']) AS s
                WHERE NOT rf__as_bool(allow_duplicates) AND s.item IS NOT NULL
                GROUP BY ALL
                HAVING count(*) > 1) AS g) AS d;

-- Per unit (segments..., query): raw metric values at cutoff k with the registry defaults, plus the counts
-- the policies need. Binary metrics use rel; the graded ones (CG, DCG, IDCG, nDCG) use graded_rel (default
-- NULL: every positive grade is a gain). Parameters already checked and normalised (the unchecked internal
-- aggregates rf__agg_<name>).
-- judged_only (the metrics that declare it: P R AP RR Success nDCG Rprec) reads rf__jp, the position among the judged
-- retrieved rows; ties := 'average' (DCG, nDCG; with order_by := 'score' only: ranks never tie) reads rf__tg /
-- rf__tgj, the mean gain of the row's tie group (sql/dcg.sql rf__tie_gain; rf__tgj leaves the rows judged_only removes
-- out of the groups: rf__judged_kept). Their windows are in a UNION ALL branch of their own, pruned by its constant
-- condition when neither option is on (as rf__prepare's branches): with the defaults they cost nothing.
-- The prepared windows the per-row terms (rf:row) read, one line each, "-- rf:prep <level> <name> := <expression>":
-- level w over the numbered rows w (rf__part the unit, rf__score the score, rf_pos, rf_g), level y over those and w's
-- columns. rf__per_query_raw computes them below (the generated parts prep_w, prep_y); the DuckDB engine
-- (rankframe/engines/duckdb_engine.py) computes the same lines with each measure's parameters. Without judged_only
-- and ties := 'average' (with order_by := 'score'), rf__jp is rf_pos and rf__tg / rf__tgj are NULL: both faces then
-- skip the w windows.
-- rf:prep w rf__jp := CASE WHEN judged_only THEN rf__judged_pos(w.rf__part, w.rf_pos, w.rf_g) WHEN NOT judged_only THEN w.rf_pos END
-- rf:prep w rf__tg := rf__tie_gain(w.rf__part, w.rf__score, w.rf_g, graded_rel, gain, gains)
-- rf:prep w rf__tgj := rf__tie_gain(row(w.rf__part, judged_only AND NOT rf__judged_kept(w.rf_g)), w.rf__score, w.rf_g, graded_rel, gain, gains)
-- rf:prep y rf__b := rf__err_before(y.rf__part, y.rf_pos, y.rf_g, max_grade)
-- rf:prep y rf__ip := rf__ideal_pos(y.rf__part, y.rf_pos, y.rf_g, ideal)
-- rf:prep y rf__ib := rf__ideal_before(y.rf__part, y.rf_pos, y.rf_g, ideal, max_grade)
-- Each "nothing relevant" rule a metric column declares (rf:column nothing_relevant=<key>,
-- rankframe.declare.NOTHING_RELEVANT's keys), one line each, "-- rf:none <key> := <expression over the rows x>":
-- rf__per_query_raw computes it as the column rf__none_<key> (the no_relevant policy reads it), the DuckDB engine
-- with each measure's parameters. With gains := MAP {...} (a grade may map to a positive gain) the ideal list has no
-- gain at all, over the rows nDCG reads (rf__jp: judged_only drops the negative grades, which a map may give a gain).
-- rf:none relevant := rf_agg_nothing_relevant(x.rf_pos, x.rf_g, rel := rel)
-- rf:none gain := CASE WHEN gains IS NULL THEN rf_agg_nothing_relevant(x.rf_pos, x.rf_g, rel := graded_rel, graded := true, ideal := ideal) ELSE rf__agg_idcg(x.rf__jp, x.rf_g, NULL, graded_rel, gain, ideal, 2.0, gains) = 0 END
-- rf:none any_gain := rf_agg_nothing_relevant(x.rf_pos, x.rf_g, rel := NULL, graded := true, ideal := ideal)
CREATE OR REPLACE MACRO rf__per_query_raw(tbl, k, segments, order_by, rel, graded_rel, gain, ideal, max_grade, p,
                                          p_denominator, r_denominator, ap_denominator, beta, log_base, gains,
                                          judged_only, ties, residual, tail, ok) AS TABLE
    WITH rf__w AS (
        SELECT v.*,
               COLUMNS(lambda c: lower(c) = CASE WHEN len(segments) = 0 THEN 'query' ELSE 'rf__unit' END) AS rf__part,
               COLUMNS(lambda c: lower(c) = CASE WHEN order_by = 'score' THEN 'score' ELSE 'query' END) AS rf__score
        FROM (SELECT p.*, row(*COLUMNS(lambda c: rf__is_unit_col(c, segments))) AS rf__unit
              FROM rf__prepare(tbl, segments, order_by, ok) AS p) AS v
    )
    SELECT COLUMNS(lambda c: rf__is_key(c, segments)),
           count(x.rf_g) AS rf__n_judged,
           rf_agg_n_retrieved(x.rf_pos, order_by := order_by) AS rf__n_ret,
           /* rf:generated none_columns */
           /* rf:generated raw_columns */
    FROM (-- the per-row terms of the values that sum one (the metric files' rf:row lines): computed once here, so
          -- that a value binds a column, not its term 13 times over (rf__xsum names its argument 13 times)
          SELECT z.*,
                 /* rf:generated row_columns */
          FROM (SELECT y.*,
                 -- ERR's and nERR's running products: windows over the unit (O(n log n), see err.sql), pruned
                 -- by DuckDB when neither column is selected (the rf:prep y lines above)
                 /* rf:generated prep_y */
          FROM (SELECT w.*, w.rf_pos AS rf__jp, CAST(NULL AS DOUBLE) AS rf__tg, CAST(NULL AS DOUBLE) AS rf__tgj
                FROM rf__w AS w
                WHERE NOT coalesce(judged_only OR (ties = 'average' AND order_by = 'score'), false)
                UNION ALL BY NAME
                SELECT w.*,
                       /* rf:generated prep_w */
                FROM rf__w AS w
                WHERE coalesce(judged_only OR (ties = 'average' AND order_by = 'score'), false)) AS y) AS z) AS x
    GROUP BY ALL;

-- rf_per_query, rf_means and rf_compare in one: the metric columns after the query-set policies, per unit (segments...,
-- query); ok is the caller's one-row check chain (a scalar subquery), applied to the rows before any metric sees
-- them, so that its errors come first
CREATE OR REPLACE MACRO rf__per_query_ok(tbl, segments, order_by, ok, /* rf:generated metric_args */) AS TABLE
    SELECT COLUMNS(lambda c: rf__is_key(c, segments)),
           /* rf:generated policy_columns */
    -- the segments, then query (the order of rankframe.evaluate(..., per_query=True)'s key columns); neither COLUMNS
    -- can be empty (a COLUMNS that selects nothing is a binder error): the raw rows have metric columns and query
    FROM (SELECT COLUMNS(lambda c: lower(c) <> 'query'), COLUMNS(lambda c: lower(c) = 'query')
          FROM (SELECT q.*,
                       -- the policies once per unit (rf__apply_policy's steps, read by every column)
                       rf__policy_filled(q.rf__n_judged, q.rf__n_ret) AS rf__filled,
                       rf__policy_filled(q.rf__n_judged, rf__count_n_ret(q.rf__n_ret, no_retrieved)) AS rf__filled_count,
                       rf__policy_fill(q.rf__n_judged, no_retrieved, no_judged) AS rf__fill,
                       rf__policy_value(no_relevant) AS rf__relevant_fill
                FROM rf__per_query_raw(tbl, rf__as_k(k), segments, rf__lc(order_by), rf__as_num(rel),
                                 rf__as_num(graded_rel), rf__lc(gain), rf__lc(ideal), rf__as_num(max_grade),
                                 rf__as_num(p), rf__lc(p_denominator), rf__lc(r_denominator), rf__lc(ap_denominator),
                                 rf__as_num(beta), rf__as_num(log_base), TRY_CAST(gains AS MAP(DOUBLE, DOUBLE)),
                                 rf__as_bool(judged_only),
                                 -- never NULL: a NULL would prune both row branches, and the check with them
                                 coalesce(rf__lc(ties), ''), rf__as_bool(residual), rf__lc(tail), ok) AS q)) AS r
    WHERE NOT (r.rf__n_judged = 0 AND rf__lc(no_judged) = 'skip')
      AND NOT (r.rf__n_judged > 0 AND r.rf__n_ret = 0 AND rf__lc(no_retrieved) = 'skip');


-- rf_per_query and rf_means: their check chain (once, in a one-row subquery) and the values; owner names the macro
-- in the errors
CREATE OR REPLACE MACRO rf__per_query(tbl, segments, order_by, allow_duplicates, owner,
                                      /* rf:generated metric_args */) AS TABLE
    SELECT * FROM rf__per_query_ok(tbl, segments, order_by,
                                   (SELECT d.rf__ok
                                     FROM rf__check_duplicates(
                                         tbl, segments, allow_duplicates,
                                         (SELECT c.rf__ok
                                          FROM rf__check_table(tbl, segments, owner, rf__outputs(),
                                                               rf__check_params(order_by, allow_duplicates, owner,
                                                                                /* rf:generated metric_args */)) AS c)) AS d),
                                   /* rf:generated metric_args */);

-- rf_per_query(tbl, k := NULL, ...): one row per unit (segments..., query) with the columns
-- P R AP RR CG DCG IDCG nDCG ERR nERR Rprec Success F1 Bpref RBP Judged Hits NumQ NumRet NumRel NumRelRet at
-- cutoff k (k NULL = whole list; Rprec and Bpref are those of the list cut at k, as trec_eval -M k; NumQ and NumRel have no cutoff). The counts (NumQ, NumRet, NumRel,
-- NumRelRet) keep their value for a query with nothing retrieved under no_retrieved := 'zero' (trec_eval -c). Skipped queries are absent; no_relevant := 'skip' leaves NULL in the
-- columns of the metrics that need relevant items (R AP nDCG nERR Rprec F1 Bpref).
-- DuckDB computes only the columns you select (a grade above max_grade is an error only when ERR or nERR is
-- selected).
CREATE OR REPLACE MACRO rf_per_query(tbl, /* rf:generated metric_params */, segments := [], order_by := 'rank',
                                     allow_duplicates := false) AS TABLE
    SELECT * FROM rf__per_query(tbl, segments, order_by, allow_duplicates, 'rf_per_query',
                                /* rf:generated metric_args */);

-- mean that leaves out NULL (skipped) and NaN (policy 'nan') values, NaN when nothing is left: the mean of the
-- values left (rf__mean_left) after NaN became NULL (rf__nan_null). rf_means turns NaN into NULL in a projection
-- below its GROUP BY and averages the columns with rf__mean_left: rf__xsum names its argument eight times, and eight
-- copies of the CASE per metric column were a fifth of a small rf_means call's binding (issue 35)
CREATE OR REPLACE MACRO rf__nan_null(v) AS CASE WHEN isnan(v) THEN NULL ELSE v END;

CREATE OR REPLACE MACRO rf__mean_left(v) AS coalesce(rf__xsum(v) / count(v), CAST('NaN' AS DOUBLE));

CREATE OR REPLACE MACRO rf_mean(v) AS rf__mean_left(rf__nan_null(v));

-- rf_means(tbl, ...): one row per segment (one row in all with segments := []) with n_queries (units kept by
-- the policies) and the mean of every metric of rf_per_query over the segment's queries, ordered by the
-- segments. As in rf_per_query, only the selected columns are computed.
CREATE OR REPLACE MACRO rf_means(tbl, /* rf:generated metric_params */, segments := [], order_by := 'rank',
                                 allow_duplicates := false) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: (rf__is_key(c, segments) AND lower(c) <> 'query') OR c = 'rf__all'),
               count(*) AS n_queries,
               rf__mean_left(COLUMNS(lambda c: list_contains(rf__metric_columns(), c)))
        FROM (SELECT true AS rf__all, COLUMNS(lambda c: NOT list_contains(rf__metric_columns(), c)),
                     rf__nan_null(COLUMNS(lambda c: list_contains(rf__metric_columns(), c)))
              FROM rf__per_query(tbl, segments, order_by, allow_duplicates, 'rf_means',
                                 /* rf:generated metric_args */))
        GROUP BY ALL)
    ORDER BY COLUMNS(lambda c: (rf__is_key(c, segments) AND lower(c) <> 'query') OR c = 'n_queries');
