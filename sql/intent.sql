-- Intent-aware diversity (docs/diversity.md, decision 0021 "SQL"): the set-based kernel of the nine measures of
-- rankframe/intent/ (alpha_DCG, alpha_nDCG, ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, AP_IA, StRecall) over a subtopic
-- qrels, the same arithmetic as the numpy kernels of rankframe/intent/lists.py.
--
-- rf__intent_values(run, sub, params, order_by) takes three tables by name:
--   run: unit, query, item, trank, ord -- one row per row of the ranking table: its unit (segments..., query) and
--        query as integer codes, its item as an integer code with trank its rank in the items' text order (strcmp:
--        ndeval's docno order), ord its rank (order_by := 'rank') or score (order_by := 'score'); NULL or NaN = not
--        retrieved
--   sub: query, subtopic, item, trank, grade -- one row per (query, subtopic, item) judgment, the same codes
--   params: g, k, alpha, beta, rel, lk, terms -- one row per parameter group g of the measures asked (k 0 = the
--        whole list; lk: like, '' (or NULL) = none, 'ndeval' or 'tf_ranking', a measure without the preset is never asked with
--        it; terms: the length of the "ideal ideal" series, decided by rankframe.intent.lists.series_terms, the one
--        rule, with its error for alpha = 0)
-- and gives one row per (g, unit of run): its query's S (n_sub: subtopics with a relevant item) and the value of
-- every measure of the family at g's parameters. Every group is computed in the one statement, each intermediate
-- once per the parameters it reads (the judgments per rel, the ranked elements per tie rule, the gains per
-- (tie rule, rel, alpha), the ideal per (rel, alpha, k): the memo of rankframe/intent/lists.py). The parameters are
-- checked by the declarations before the call (rankframe.engines.duckdb_intent): this is the DuckDB engine's
-- kernel, not a public macro.
--
-- The greedy ideal list (ndeval's idealResult) is a recursive CTE over every query at once: each query's state is
-- one row (its subtopic weights w, its candidates' slot lists and text ranks, which are taken), each step one
-- projection of every row (the candidates' gains, the largest, ties to the largest item id, the weights of the
-- chosen item's subtopics times (1 - alpha)); it stops at k, or when every candidate is placed. Never a loop per
-- query; the depth is the data's, not a fixed number of generated stages (decision 0021 "SQL").

-- a ranked row: a rank or score that is neither NULL nor NaN
CREATE OR REPLACE MACRO rf__intent_retrieved(x) AS x IS NOT NULL AND NOT isnan(x);

-- the tie rule of a preset: like = 'ndeval' orders tied scores by item id ascending (pyndeval's order)
CREATE OR REPLACE MACRO rf__intent_nd(lk) AS coalesce(lk = 'ndeval', false);

-- a / b, 0 where b is 0 or missing (no relevant subtopic: the no_relevant policy decides the value)
CREATE OR REPLACE MACRO rf__intent_ratio(a, b) AS
    CASE WHEN coalesce(b, 0) > 0 THEN coalesce(a, CAST(0 AS DOUBLE)) / b ELSE CAST(0 AS DOUBLE) END;

-- each measure's discounted gain g at position p (alpha-DCG: log2(p + 1), ERR-IA: 1 / p, NRBP: beta^(p - 1)), said once
-- for the run's list and the ideal one
CREATE OR REPLACE MACRO rf__intent_dcg_term(g, p) AS g / log2(p + 1);
CREATE OR REPLACE MACRO rf__intent_err_term(g, p) AS g / p;
CREATE OR REPLACE MACRO rf__intent_rbp_term(g, p, beta) AS g * pow(beta, p - 1);

CREATE OR REPLACE MACRO rf__intent_values(run, sub, params, order_by) AS TABLE
    WITH RECURSIVE rf__p AS (
        SELECT g, k, alpha, beta, rel, nullif(lk, '') AS lk, terms, rf__intent_nd(nullif(lk, '')) AS nd
        FROM query_table(params)
    ), rf__j AS (  -- the relevant (query, subtopic, item) judgments per rel (an unjudged or NaN grade never is)
        SELECT r.rel, s.query, s.subtopic, s.item, s.trank
        FROM (SELECT DISTINCT rel FROM rf__p) AS r JOIN query_table(sub) AS s
             ON s.grade >= r.rel AND NOT isnan(s.grade)
    ), rf__slots AS (  -- each (query, subtopic) with a relevant item: its items, its slot 1..S in subtopic order
        SELECT rel, query, subtopic, count(*) AS nrel,
               CAST(row_number() OVER (PARTITION BY rel, query ORDER BY subtopic) AS INTEGER) AS slot
        FROM rf__j GROUP BY rel, query, subtopic
    ), rf__nsub AS (
        SELECT rel, query, count(*) AS s FROM rf__slots GROUP BY rel, query
    ), rf__e AS (  -- the ranked elements per tie rule: rank ascending, or score descending with tied scores by
                   -- item id descending as text (trec_eval), ascending under like = 'ndeval'; NULL/NaN: not retrieved
        SELECT n.nd, r.unit, r.query, r.item,
               row_number() OVER (PARTITION BY n.nd, r.unit
                                  ORDER BY CASE WHEN order_by = 'score' THEN -r.ord ELSE r.ord END,
                                           CASE WHEN n.nd THEN r.trank ELSE -r.trank END) AS pos
        FROM (SELECT DISTINCT nd FROM rf__p) AS n, query_table(run) AS r
        WHERE rf__intent_retrieved(r.ord)
    ), rf__pairs AS (  -- the relevant (element, subtopic) pairs; seen: items of the subtopic above the element
        SELECT e.nd, j.rel, e.unit, e.query, e.pos, j.subtopic,
               row_number() OVER (PARTITION BY e.nd, j.rel, e.unit, j.subtopic ORDER BY e.pos) - 1 AS seen
        FROM rf__e AS e JOIN rf__j AS j ON j.query = e.query AND j.item = e.item
             JOIN (SELECT DISTINCT nd, rel FROM rf__p) AS u ON u.nd = e.nd AND u.rel = j.rel
    ), rf__gains AS (  -- each element's novelty-discounted gain: sum over its subtopics of (1 - alpha)^seen
        SELECT p.nd, p.rel, a.alpha, p.unit, p.pos, sum(pow(1 - a.alpha, p.seen) ORDER BY p.subtopic) AS g
        FROM rf__pairs AS p JOIN (SELECT DISTINCT nd, rel, alpha FROM rf__p) AS a ON a.nd = p.nd AND a.rel = p.rel
        GROUP BY p.nd, p.rel, a.alpha, p.unit, p.pos
    ), rf__runsum AS (
        SELECT q.g, e.unit,
               sum(rf__intent_dcg_term(e.g, e.pos) ORDER BY e.pos) AS dcg,
               sum(rf__intent_err_term(e.g, e.pos) ORDER BY e.pos) AS err,
               sum(rf__intent_rbp_term(e.g, e.pos, q.beta) ORDER BY e.pos) AS rbp
        FROM rf__gains AS e JOIN rf__p AS q ON q.nd = e.nd AND q.rel = e.rel AND q.alpha = e.alpha
        WHERE q.k = 0 OR e.pos <= q.k
        GROUP BY q.g, e.unit
    ), rf__pairsum AS (
        SELECT q.g, p.unit,
               count(*) FILTER (WHERE q.k = 0 OR p.pos <= q.k) AS n_pairs,
               count(*) FILTER (WHERE p.seen = 0 AND (q.k = 0 OR p.pos <= q.k)) AS n_first,
               count(*) FILTER (WHERE p.seen = 0) AS n_covered,
               sum((p.seen + 1) / p.pos / sl.nrel ORDER BY p.pos, p.subtopic)
                   FILTER (WHERE q.k = 0 OR p.pos <= q.k) AS ap
        FROM rf__pairs AS p JOIN rf__slots AS sl ON sl.rel = p.rel AND sl.query = p.query AND sl.subtopic = p.subtopic
             JOIN rf__p AS q ON q.nd = p.nd AND q.rel = p.rel
        GROUP BY q.g, p.unit
    ), rf__cand AS (  -- the ideal's candidates: each query's relevant items, with their slots
        SELECT j.rel, j.query, j.item, any_value(j.trank) AS tr, list(sl.slot ORDER BY sl.slot) AS cs
        FROM rf__j AS j JOIN rf__slots AS sl ON sl.rel = j.rel AND sl.query = j.query AND sl.subtopic = j.subtopic
        GROUP BY j.rel, j.query, j.item
    ), rf__start AS (  -- one state per (rel, alpha, k, query) asked
        SELECT i.rel, i.alpha, i.k, c.query, n.s, list(c.cs ORDER BY c.tr) AS cs, list(c.tr ORDER BY c.tr) AS tr
        FROM rf__cand AS c JOIN rf__nsub AS n ON n.rel = c.rel AND n.query = c.query
             JOIN (SELECT DISTINCT rel, alpha, k FROM rf__p) AS i ON i.rel = c.rel
        GROUP BY i.rel, i.alpha, i.k, c.query, n.s
    ), rf__ideal(rel, alpha, k, query, step, w, taken, cs, tr, gain) AS (
        SELECT rel, alpha, k, query, 0, list_transform(range(s), lambda x: CAST(1 AS DOUBLE)),
               list_transform(tr, lambda x: false), cs, tr, CAST(NULL AS DOUBLE)
        FROM rf__start
        UNION ALL
        SELECT rel, alpha, k, query, step + 1,
               list_transform(range(1, len(w) + 1),
                              lambda x: CASE WHEN list_contains(cs[pick], x) THEN w[x] * (1 - alpha) ELSE w[x] END),
               list_transform(range(1, len(taken) + 1), lambda i: taken[i] OR i = pick),
               cs, tr, best
        FROM (SELECT *, list_position(tr, list_max(list_transform(range(1, len(tr) + 1),
                                                                  lambda i: CASE WHEN sc[i] = best THEN tr[i]
                                                                                 ELSE -1 END))) AS pick
              FROM (SELECT *, list_max(sc) AS best
                    FROM (SELECT *,
                                 list_transform(range(1, len(tr) + 1),
                                                lambda i: CASE WHEN taken[i] THEN CAST(-1 AS DOUBLE)
                                                               ELSE list_reduce(list_transform(cs[i], lambda t: w[t]),
                                                                                lambda a, b: a + b) END) AS sc
                          FROM rf__ideal
                          WHERE (k = 0 OR step < k) AND NOT list_bool_and(taken)) AS scored) AS best) AS picked
    ), rf__isum AS (
        SELECT q.g, i.query,
               sum(rf__intent_dcg_term(i.gain, i.step) ORDER BY i.step) AS dcg,
               sum(rf__intent_err_term(i.gain, i.step) ORDER BY i.step) AS err,
               sum(rf__intent_rbp_term(i.gain, i.step, q.beta) ORDER BY i.step) AS rbp
        FROM rf__ideal AS i JOIN rf__p AS q ON q.rel = i.rel AND q.alpha = i.alpha AND q.k = i.k
        WHERE i.step > 0 GROUP BY q.g, i.query
    ), rf__series AS (  -- ndeval's "ideal ideal" per depth d: sum_{p <= d} (1 - alpha)^(p - 1) w(p)
        SELECT g, p,
               sum(pow(1 - alpha, p - 1) * (1 / log2(p + 1))) OVER (PARTITION BY g ORDER BY p
                                                                   ROWS UNBOUNDED PRECEDING) AS slog,
               sum(pow(1 - alpha, p - 1) * (1 / p)) OVER (PARTITION BY g ORDER BY p ROWS UNBOUNDED PRECEDING) AS srec
        FROM (SELECT g, alpha, unnest(range(1, terms + 1)) AS p FROM rf__p) AS t
    ), rf__units AS (
        SELECT r.unit, any_value(r.query) AS query FROM query_table(run) AS r GROUP BY r.unit
    ), rf__nret AS (
        SELECT r.unit, count(*) AS n FROM query_table(run) AS r WHERE rf__intent_retrieved(r.ord) GROUP BY r.unit
    ), rf__all AS (
        SELECT q.g, q.k, q.alpha, q.beta, q.lk, u.unit, CAST(coalesce(n.s, 0) AS DOUBLE) AS s,
               coalesce(r.n, 0) AS nret, least(CASE WHEN q.k = 0 THEN coalesce(r.n, 0) ELSE q.k END, q.terms) AS depth,
               coalesce(rs.dcg, 0) AS dcg, coalesce(rs.err, 0) AS err, coalesce(rs.rbp, 0) AS rbp,
               coalesce(ps.n_pairs, 0) AS n_pairs, coalesce(ps.n_first, 0) AS n_first,
               coalesce(ps.n_covered, 0) AS n_covered, coalesce(ps.ap, 0) AS ap,
               coalesce(i.dcg, 0) AS idcg, coalesce(i.err, 0) AS ierr, coalesce(i.rbp, 0) AS irbp
        FROM rf__p AS q CROSS JOIN rf__units AS u
        LEFT JOIN rf__nsub AS n ON n.rel = q.rel AND n.query = u.query
        LEFT JOIN rf__nret AS r ON r.unit = u.unit
        LEFT JOIN rf__runsum AS rs ON rs.g = q.g AND rs.unit = u.unit
        LEFT JOIN rf__pairsum AS ps ON ps.g = q.g AND ps.unit = u.unit
        LEFT JOIN rf__isum AS i ON i.g = q.g AND i.query = u.query
    ), rf__den AS (
        SELECT a.*,
               CASE WHEN a.lk = 'ndeval' AND a.depth = 1 THEN CAST(1 AS DOUBLE)
                    ELSE a.s * coalesce(se.slog, 0) END AS ii_log,
               CASE WHEN a.lk = 'ndeval' AND a.depth = 1 THEN CAST(1 AS DOUBLE)
                    ELSE a.s * coalesce(se.srec, 0) END AS ii_rec,
               CAST(CASE WHEN a.k = 0 THEN a.nret ELSE a.k END AS DOUBLE) AS cut
        FROM rf__all AS a LEFT JOIN rf__series AS se ON se.g = a.g AND se.p = a.depth
    )
    SELECT g, unit, s AS n_sub,
           CASE WHEN lk = 'tf_ranking' THEN dcg ELSE rf__intent_ratio(dcg, ii_log) END AS alpha_dcg,
           rf__intent_ratio(dcg, idcg) AS alpha_ndcg,
           rf__intent_ratio(err, ii_rec) AS err_ia,
           rf__intent_ratio(err, ierr) AS nerr_ia,
           rf__intent_ratio((1 - (1 - alpha) * beta) * rbp, s) AS nrbp,
           rf__intent_ratio(rbp, irbp) AS nnrbp,
           CASE WHEN lk = 'tf_ranking' THEN rf__intent_ratio(n_pairs, least(cut, nret) * n_covered)
                ELSE rf__intent_ratio(n_pairs, cut * s) END AS p_ia,
           rf__intent_ratio(ap, s) AS ap_ia,
           rf__intent_ratio(n_first, s) AS st_recall
    FROM rf__den;

-- ------------------------------------------------------------------------------ the public table macros
-- rf_intent_per_query(run, qrels, ...) and rf_intent_means(run, qrels, ...) (docs/sql.md "Intent-aware diversity",
-- docs/diversity.md): the family on two tables, the way SQL users hold them:
--   run:   query, item, rank (order_by := 'rank', 1 = top) or score (order_by := 'score'), plus any segment columns;
--          a NULL or NaN rank/score is a row that is not retrieved
--   qrels: query, subtopic, item, relevance (ndeval's qrels: one row per (query, subtopic, item); NULL or NaN
--          relevance = unjudged)
-- Both macros prepare the integer codes rf__intent_values reads in SQL, set-based (dense ranks over the text of the
-- query and item ids: the items' text order is the tie rule of the ranking and of the greedy ideal, strcmp as
-- ndeval), compute every measure at one parameter group, and apply the query-set policies as rf_per_query does
-- (no judged row -> no_judged, nothing retrieved -> no_retrieved, no subtopic with a relevant item -> no_relevant).
-- metrics := NULL asks every measure; a list (ir_measures' names, any case) asks those, and only their columns are
-- returned. like := 'tf_ranking' is declared by alpha_DCG and P_IA only: asked with another measure it is the
-- Python API's error (rf:param), so it needs metrics := ['alpha_DCG', 'P_IA'] (or one of them).
--
-- The measures, their presets, their output columns and the table macros' parameters with their defaults are
-- generated from the declarations (rankframe/intent/*.py, the query-set policies of rankframe.registry): the block
-- below is written by rankframe.registry.write_sql_params, and the loader (rankframe/sql.py, "the intent-aware
-- wiring") fills the generated parts named intent_* of this file with it; held current by
-- tests/sql/test_intent_macros.py.
-- rf:generated-begin (rankframe.registry.write_sql_params: the declared intent-aware measures)
-- rf:intent alpha_DCG kernel=alpha_dcg presets=ndeval,tf_ranking
-- rf:intent alpha_nDCG kernel=alpha_ndcg presets=ndeval
-- rf:intent ERR_IA kernel=err_ia presets=ndeval
-- rf:intent nERR_IA kernel=nerr_ia presets=ndeval
-- rf:intent NRBP kernel=nrbp presets=ndeval
-- rf:intent nNRBP kernel=nnrbp presets=ndeval
-- rf:intent P_IA kernel=p_ia presets=ndeval,tf_ranking
-- rf:intent AP_IA kernel=ap_ia presets=ndeval
-- rf:intent StRecall kernel=st_recall presets=ndeval
-- rf:intent_param k := NULL
-- rf:intent_param alpha := 0.5
-- rf:intent_param rel := 1
-- rf:intent_param like := NULL
-- rf:intent_param beta := 0.5
-- rf:intent_param no_relevant := 'zero'
-- rf:intent_param no_retrieved := 'zero'
-- rf:intent_param no_judged := 'skip'
-- rf:generated-end

-- the measures of the family in the qrels form and the presets each declares (the recommender form's left out)
CREATE OR REPLACE MACRO rf__intent_measures() AS [/* rf:generated intent_measures */];

-- an output column of a measure asked (metrics := NULL: every measure), without a lambda (a COLUMNS lambda may call
-- no other): the measures' names in lower case, and metrics joined with '|'
CREATE OR REPLACE MACRO rf__intent_column(c, metrics) AS
    list_contains([/* rf:generated intent_names */],
                  lower(c))
    AND (metrics IS NULL
         OR list_contains(string_split(lower(array_to_string(TRY_CAST(metrics AS VARCHAR[]), '|')), '|'), lower(c))
         -- no measure named (an empty or bad list): every column, so that the statement binds and the parameter
         -- check raises its error
         OR NOT list_has_any([/* rf:generated intent_names */],
                             string_split(lower(coalesce(array_to_string(TRY_CAST(metrics AS VARCHAR[]), '|'), '')),
                                          '|')));

-- the names asked (canonical spelling), every measure for NULL
CREATE OR REPLACE MACRO rf__intent_asked(metrics) AS
    CASE WHEN metrics IS NULL THEN list_transform(rf__intent_measures(), lambda m: m.name)
         ELSE list_transform(list_filter(rf__intent_measures(),
                                         lambda m: list_contains(list_transform(TRY_CAST(metrics AS VARCHAR[]),
                                                                                lambda x: lower(x)),
                                                                 lower(m.name))),
                             lambda m: m.name) END;

-- the length of the "ideal ideal" series: rankframe.intent.lists.series_terms (MAX_TERMS 10**7, the vanishing
-- point of (1 - alpha)^j below 2^-60), compared with it on a grid by tests/sql/test_intent_macros.py
CREATE OR REPLACE MACRO rf__intent_terms(alpha, longest, k) AS
    CASE WHEN alpha > 0
         THEN least(coalesce(k, longest),
                    greatest(longest, CASE WHEN alpha >= 1 THEN 1
                                           ELSE CAST(ceil(60.0 / -log2(1.0 - alpha)) AS BIGINT) + 1 END))
         WHEN coalesce(k, longest) > 10000000
         THEN error(printf('rf:param: with alpha=0 the intent-aware measures normalise by a sum of k terms: k must be '
                           || '<= 10000000, got k=%s', coalesce(CAST(k AS VARCHAR), 'None')))
         ELSE coalesce(k, longest) END;

-- a float in [0, 1] (alpha, beta): the Python API's words (rankframe.declare, Param kind 'unit')
CREATE OR REPLACE MACRO rf__intent_unit(v, pname, owner) AS
    CASE WHEN rf__number(v) >= 0 AND rf__number(v) <= 1 THEN rf__number(v)
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be a float in [0, 1]. Got %s instead.',
                           pname, owner, rf__repr(v))) END;

-- true, or the error of the first bad parameter of rf_intent_per_query / rf_intent_means
CREATE OR REPLACE MACRO rf__intent_check_params(metrics, k, alpha, beta, rel, lk, order_by, no_relevant, no_retrieved,
                                                no_judged, owner) AS
    CASE WHEN metrics IS NOT NULL
              AND (TRY_CAST(metrics AS VARCHAR[]) IS NULL OR len(metrics) = 0
                   OR list_contains(list_transform(TRY_CAST(metrics AS VARCHAR[]), lambda x: x IS NULL), true)
                   OR len(rf__intent_asked(metrics)) <> len(list_distinct(list_transform(TRY_CAST(metrics AS VARCHAR[]),
                                                                                         lambda x: lower(x)))))
         THEN error(printf('rf:param: The ''metrics'' parameter of %s must be NULL (every measure) or a list of '
                           || 'distinct names among %s. Got %s instead.', owner,
                           rf__quoted(list_transform(rf__intent_measures(), lambda m: m.name)), rf__repr(metrics)))
         WHEN rf__k(k, owner) < 0 THEN false
         WHEN rf__intent_unit(alpha, 'alpha', owner) < 0 THEN false
         WHEN rf__intent_unit(beta, 'beta', owner) < 0 THEN false
         WHEN NOT isfinite(rf__rel(rel, owner)) THEN false
         WHEN lk IS NOT NULL AND rf__choice(lk, [/* rf:generated intent_presets */], 'like', owner) = '' THEN false
         WHEN lk IS NOT NULL
              AND len(list_filter(rf__intent_measures(),
                                  lambda m: list_contains(rf__intent_asked(metrics), m.name)
                                            AND NOT list_contains(m.presets, lower(CAST(lk AS VARCHAR))))) > 0
         THEN error(printf('rf:param: The ''like'' parameter of %s must be one of None, ''ndeval''. Got %s instead. '
                           || 'Only %s declare like := ''tf_ranking'': ask them alone with metrics := [...].',
                           array_to_string(list_transform(
                               list_filter(rf__intent_measures(),
                                           lambda m: list_contains(rf__intent_asked(metrics), m.name)
                                                     AND NOT list_contains(m.presets, lower(CAST(lk AS VARCHAR)))),
                               lambda m: m.name), ', '),
                           rf__repr(lk),
                           rf__quoted(list_transform(list_filter(rf__intent_measures(),
                                                                 lambda m: list_contains(m.presets, 'tf_ranking')),
                                                     lambda m: m.name))))
         WHEN rf__choice(order_by, ['rank', 'score'], 'order_by', owner) = '' THEN false
         WHEN rf__choice(no_relevant, ['zero', 'nan', 'skip'], 'no_relevant', owner) = '' THEN false
         WHEN rf__choice(no_retrieved, ['zero', 'nan', 'skip'], 'no_retrieved', owner) = '' THEN false
         WHEN rf__choice(no_judged, ['zero', 'nan', 'skip'], 'no_judged', owner) = '' THEN false
         ELSE true END;

-- one row: true, or the error of the first broken rule of the subtopic qrels' columns (a missing subtopic column:
-- the words of intent.declare.needs_subtopics; another missing column: rf__missing_message's); ok: the run's and
-- the parameters' check, first
CREATE OR REPLACE MACRO rf__intent_check_qrels(qrels, ok) AS TABLE
    SELECT CASE WHEN NOT ok THEN false
                WHEN NOT list_contains(c.rf__names, 'subtopic')
                THEN error(printf('rf:table[subtopic]: the intent-aware measures read subtopic judgments: the qrels '
                                  || 'table needs the columns query, subtopic, item, relevance; it has no column '
                                  || '''subtopic'' (its columns: %s). Rename yours in a view.',
                                  rf__quoted(c.rf__names)))
                WHEN len(rf__lacking(c.rf__names, ['query', 'item', 'relevance'])) > 0
                THEN error('rf:table: ' || rf__missing_message(c.rf__names, ['query', 'item', 'relevance']))
                ELSE true END AS rf__ok
    FROM rf__columns(qrels) AS c;

-- the qrels rows, with NULL columns for the ones it lacks (so that the callers bind and the check's error, which
-- the caller applies first, is the one raised)
CREATE OR REPLACE MACRO rf__intent_qrels(qrels) AS TABLE
    SELECT * FROM query_table(qrels)
    UNION ALL BY NAME
    SELECT NULL AS query, NULL AS subtopic, NULL AS item, NULL AS relevance
    WHERE false;

-- a grade that is neither NULL, NaN (unjudged) nor finite
CREATE OR REPLACE MACRO rf__intent_bad_grade(g) AS
    g IS NOT NULL AND NOT isnan(TRY_CAST(g AS DOUBLE)) AND NOT isfinite(TRY_CAST(g AS DOUBLE));

-- a grade that is not NULL and does not parse as a number (shown first in the error of a column that is not numeric)
CREATE OR REPLACE MACRO rf__intent_unparsable(g) AS g IS NOT NULL AND TRY_CAST(g AS DOUBLE) IS NULL;

-- one qrels row, as the errors name it
CREATE OR REPLACE MACRO rf__intent_grade_row(query, subtopic, item, relevance) AS
    printf('query=%s subtopic=%s item=%s relevance=%s', CAST(query AS VARCHAR), CAST(subtopic AS VARCHAR),
           CAST(item AS VARCHAR), CAST(relevance AS VARCHAR));

-- one row: true, or the error of the first broken rule of the qrels rows (intent_engine.split_qrels and the relevance
-- rule of rankframe.table_rules, in their words)
CREATE OR REPLACE MACRO rf__intent_check_rows(q_rows) AS TABLE
    SELECT CASE WHEN count(q.relevance) > 0 AND NOT rf__is_number_type(any_value(typeof(q.relevance)))
                THEN error(printf('rf:table[relevance]: relevance must be numeric (null = unjudged): the qrels '
                                  || 'column is of type %s: %s non-null row(s), %s of them do not parse as numbers; '
                                  || 'e.g. %s. Cast the column to a number in a view (a NULL grade is unjudged).',
                                  any_value(typeof(q.relevance)), CAST(count(q.relevance) AS VARCHAR),
                                  CAST(count(*) FILTER (WHERE rf__intent_unparsable(q.relevance)) AS VARCHAR),
                                  array_to_string(coalesce(
                                      min(rf__intent_grade_row(q.query, q.subtopic, q.item, q.relevance), 3)
                                          FILTER (WHERE rf__intent_unparsable(q.relevance)),
                                      min(rf__intent_grade_row(q.query, q.subtopic, q.item, q.relevance), 3)
                                          FILTER (WHERE q.relevance IS NOT NULL)), '; ')))
                WHEN count(*) FILTER (WHERE q.subtopic IS NULL) > 0
                THEN error(printf('rf:table[subtopic]: a subtopic id on every row of a subtopic qrels (null found): '
                                  || '%s row(s), e.g. %s.',
                                  CAST(count(*) FILTER (WHERE q.subtopic IS NULL) AS VARCHAR),
                                  array_to_string(min(printf('query=%s item=%s', CAST(q.query AS VARCHAR),
                                                             CAST(q.item AS VARCHAR)), 3)
                                                      FILTER (WHERE q.subtopic IS NULL), '; ')))
                WHEN count(*) FILTER (WHERE rf__intent_bad_grade(q.relevance)) > 0
                THEN error(printf('rf:table[relevance]: relevance must be finite (null = unjudged): %s row(s), '
                                  || 'e.g. %s.',
                                  CAST(count(*) FILTER (WHERE rf__intent_bad_grade(q.relevance)) AS VARCHAR),
                                  array_to_string(min(printf('query=%s subtopic=%s item=%s relevance=%s',
                                                             CAST(q.query AS VARCHAR), CAST(q.subtopic AS VARCHAR),
                                                             CAST(q.item AS VARCHAR), CAST(q.relevance AS VARCHAR)), 3)
                                                      FILTER (WHERE rf__intent_bad_grade(q.relevance)), '; ')))
                WHEN (SELECT count(*) FROM (SELECT 1 FROM query_table(q_rows) AS d
                                            GROUP BY d.query, d.subtopic, d.item HAVING count(*) > 1) AS x) > 0
                THEN error(printf('rf:table[subtopic]: one judgment per (query, subtopic, item) (repeated rows '
                                  || 'found): e.g. %s.',
                                  (SELECT array_to_string(min(printf('query=%s subtopic=%s item=%s (%s rows)',
                                                                     CAST(d.query AS VARCHAR),
                                                                     CAST(d.subtopic AS VARCHAR),
                                                                     CAST(d.item AS VARCHAR), CAST(d.n AS VARCHAR)), 3),
                                                          '; ')
                                   FROM (SELECT e.query, e.subtopic, e.item, count(*) AS n FROM query_table(q_rows) AS e
                                         GROUP BY e.query, e.subtopic, e.item HAVING count(*) > 1) AS d)))
                ELSE true END AS rf__ok
    FROM query_table(q_rows) AS q;

-- the columns that key the system crossing of the one join: a 'system' segment, and rf__one (never empty)
CREATE OR REPLACE MACRO rf__intent_sys_col(c, segments) AS
    (c = 'system' AND list_contains(TRY_CAST(segments AS VARCHAR[]), c)) OR c = 'rf__one';

-- the columns that describe a query (rankframe/join.py rule 3): the segments but a 'system' one, and the query
CREATE OR REPLACE MACRO rf__intent_desc_col(c, segments) AS
    rf__is_unit_col(c, segments) AND NOT (c = 'system' AND list_contains(TRY_CAST(segments AS VARCHAR[]), c));

-- a value after the query-set policies (rf__apply_policy: no judged row, nothing retrieved, no subtopic)
CREATE OR REPLACE MACRO rf__intent_policy(v, n_judged, n_ret, n_sub, no_relevant, no_retrieved, no_judged) AS
    rf__apply_policy(v, n_judged, n_ret, n_sub = 0, no_relevant, no_retrieved, no_judged);

-- the output columns (lower case: a segment may not be named like one)
CREATE OR REPLACE MACRO rf__intent_outputs() AS
    list_append(list_transform(rf__intent_measures(), lambda m: lower(m.name)), 'n_queries');

CREATE OR REPLACE MACRO rf__intent_per_query(run, qrels, metrics, segments, order_by, allow_duplicates, owner,
                                             /* rf:generated intent_inner */) AS TABLE
    WITH rf__ok AS (  -- the check chain, one row: the parameters and the run's columns, then the qrels' columns
        SELECT c.rf__ok
        FROM rf__intent_check_qrels(qrels,
                 (SELECT t.rf__ok
                  FROM rf__check_table(run, segments, owner, rf__intent_outputs(),
                                       rf__intent_check_params(metrics, k, alpha, beta, rel, lk, order_by,
                                                               no_relevant, no_retrieved, no_judged, owner)
                                       AND rf__flag(allow_duplicates, 'allow_duplicates', owner) IS NOT NULL) AS t))
                 AS c
    ), rf__q0 AS (
        SELECT * FROM rf__intent_qrels(qrels) WHERE (SELECT o.rf__ok FROM rf__ok AS o)
    ), rf__qok AS (  -- the qrels' rows
        SELECT rf__ok FROM rf__intent_check_rows('rf__q0')
    ), rf__r0 AS (  -- the run's rows, rank and score both present (NULL when the table lacks one)
        SELECT * FROM rf__input(run, ['query', 'item', CASE WHEN rf__lc(order_by) = 'score' THEN 'score'
                                                            ELSE 'rank' END])
        WHERE (SELECT o.rf__ok FROM rf__qok AS o)
        UNION ALL BY NAME
        SELECT NULL AS rank, NULL AS score WHERE false
    ), rf__dup AS (  -- true, or the error naming repeated (segments..., query, item) rows (allow_duplicates := false)
        SELECT CASE WHEN count(*) > 0
                    THEN error(printf('rf:table[item]: item must be unique within each (%s): %s (%s, item) key(s) '
                                      || 'occur on more than one row, e.g. %s. Pass allow_duplicates := true to keep '
                                      || 'repeated rows (each counts as its own list entry).',
                                      array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', '),
                                      CAST(count(*) AS VARCHAR),
                                      array_to_string(list_append(TRY_CAST(segments AS VARCHAR[]), 'query'), ', '),
                                      array_to_string(min(d.rf__example, 3), '; ')))
                    ELSE true END AS rf__ok
        FROM (SELECT printf('%s item=%s', CAST(struct_pack(*COLUMNS(lambda c: rf__is_unit_col(c, segments)))
                                               AS VARCHAR), CAST(r.item AS VARCHAR)) AS rf__example
              FROM rf__r0 AS r
              WHERE NOT rf__as_bool(allow_duplicates) AND r.item IS NOT NULL
              GROUP BY ALL HAVING count(*) > 1) AS d
    ), rf__r AS (  -- the unit code: the rank of (segments..., query)
        SELECT *, dense_rank() OVER (ORDER BY struct_pack(*COLUMNS(lambda c: rf__is_unit_col(c, segments))))
                  AS rf__unit,
               CAST(CASE WHEN rf__lc(order_by) = 'score' THEN score ELSE rank END AS DOUBLE) AS rf__ord
        FROM rf__r0 WHERE (SELECT o.rf__ok FROM rf__dup AS o)
    ), rf__qr AS (  -- the subtopic judgments (a NULL grade: unjudged)
        SELECT query, subtopic, item, TRY_CAST(relevance AS DOUBLE) AS grade FROM rf__q0
    ), rf__items AS (  -- every item id by its text (strcmp): the code is the rank in that order
        SELECT t, CAST(row_number() OVER (ORDER BY t) AS BIGINT) AS code
        FROM (SELECT CAST(item AS VARCHAR) AS t FROM rf__r UNION SELECT CAST(item AS VARCHAR) FROM rf__qr) AS i
    ), rf__queries AS (
        SELECT t, CAST(row_number() OVER (ORDER BY t) AS BIGINT) AS code
        FROM (SELECT CAST(query AS VARCHAR) AS t FROM rf__r UNION SELECT CAST(query AS VARCHAR) FROM rf__qr) AS i
    ), rf__subs AS (
        SELECT t, CAST(row_number() OVER (ORDER BY t) AS BIGINT) AS code
        FROM (SELECT DISTINCT CAST(subtopic AS VARCHAR) AS t FROM rf__qr) AS i
    ), rf__run AS (
        SELECT CAST(r.rf__unit AS BIGINT) AS unit, q.code AS query, i.code AS item, i.code AS trank, r.rf__ord AS ord
        FROM rf__r AS r JOIN rf__queries AS q ON q.t = CAST(r.query AS VARCHAR)
             JOIN rf__items AS i ON i.t = CAST(r.item AS VARCHAR)
    ), rf__sub AS (
        SELECT q.code AS query, s.code AS subtopic, i.code AS item, i.code AS trank, j.grade
        FROM rf__qr AS j JOIN rf__queries AS q ON q.t = CAST(j.query AS VARCHAR)
             JOIN rf__items AS i ON i.t = CAST(j.item AS VARCHAR)
             JOIN rf__subs AS s ON s.t = CAST(j.subtopic AS VARCHAR)
        WHERE j.grade IS NOT NULL AND NOT isnan(j.grade)
    ), rf__counts AS (  -- per unit: its rows retrieved, and whether its query has a judged row (the policies)
        SELECT r.unit, count(*) FILTER (WHERE rf__intent_retrieved(r.ord)) AS n_ret,
               CASE WHEN any_value(r.query) IN (SELECT s.query FROM rf__sub AS s) THEN 1 ELSE 0 END AS n_judged
        FROM rf__run AS r GROUP BY r.unit
    ), rf__params AS (  -- the one parameter group (g 0)
        SELECT CAST(0 AS BIGINT) AS g, coalesce(rf__as_k(k), 0) AS k, rf__as_num(alpha) AS alpha,
               rf__as_num(beta) AS beta, rf__as_num(rel) AS rel, coalesce(rf__lc(lk), '') AS lk,
               rf__intent_terms(rf__as_num(alpha), (SELECT coalesce(max(c.n_ret), 0) FROM rf__counts AS c),
                                rf__as_k(k)) AS terms
    ), rf__keys AS (
        SELECT DISTINCT rf__unit, COLUMNS(lambda c: rf__is_unit_col(c, segments)) FROM rf__r
    ), rf__sys AS (  -- the run's rows with their system (a struct: empty without a 'system' segment) and their
                     -- described query (the other segments and the query, a struct)
        SELECT *, CAST(struct_pack(*COLUMNS(lambda c: rf__intent_sys_col(c, segments)))
                       AS VARCHAR) AS rf__sys,
               CAST(struct_pack(*COLUMNS(lambda c: rf__intent_desc_col(c, segments))) AS VARCHAR) AS rf__desc
        FROM (SELECT true AS rf__one, * FROM rf__r) AS r
    ), rf__desc AS (  -- the described judged queries (rankframe/join.py rule 3): (segments but system..., query) as
                      -- the run has them, and each judged query no run row mentions with NULL segments (a key of
                      -- its own, never a run row's: those are structs)
        SELECT DISTINCT COLUMNS(lambda c: rf__intent_desc_col(c, segments)), rf__desc
        FROM rf__sys
        WHERE CAST(query AS VARCHAR) IN (SELECT CAST(j.query AS VARCHAR) FROM rf__qr AS j)
        UNION ALL BY NAME
        SELECT DISTINCT j.query, '|' || CAST(j.query AS VARCHAR) AS rf__desc
        FROM rf__qr AS j
        WHERE CAST(j.query AS VARCHAR) NOT IN (SELECT CAST(r.query AS VARCHAR) FROM rf__r AS r)
    ), rf__extra AS (  -- the one join's units without a run row (rankframe/join.py, rules 2 and 3): each system on
                       -- each described judged query it has no row of (without a 'system' segment, one "system":
                       -- the judged queries no run row mentions); nothing retrieved: only the policies give values
        SELECT *, (SELECT max(k.rf__unit) FROM rf__keys AS k) + row_number() OVER (ORDER BY CAST(rf__sq AS VARCHAR))
                  AS rf__unit,
               CASE WHEN CAST(query AS VARCHAR) IN (SELECT CAST(j.query AS VARCHAR) FROM rf__qr AS j
                                                    WHERE j.grade IS NOT NULL AND NOT isnan(j.grade))
                    THEN 1 ELSE 0 END AS rf__n_judged
        FROM (SELECT DISTINCT s.* EXCLUDE (rf__one, rf__sys), d.* EXCLUDE (rf__desc),
                     s.rf__sys || '|' || d.rf__desc AS rf__sq
              FROM (SELECT DISTINCT COLUMNS(lambda c: rf__intent_sys_col(c, segments)),
                                    rf__sys
                    FROM rf__sys) AS s,
                   rf__desc AS d) AS x
        WHERE x.rf__sq NOT IN (SELECT r.rf__sys || '|' || r.rf__desc FROM rf__sys AS r)
    ), rf__v AS (
        SELECT n.*, c.n_ret AS rf__n_ret, c.n_judged AS rf__n_judged, v.n_sub AS rf__n_sub,
               /* rf:generated intent_values */
        FROM rf__intent_values('rf__run', 'rf__sub', 'rf__params', rf__lc(order_by)) AS v
             JOIN rf__counts AS c ON c.unit = v.unit JOIN rf__keys AS n ON n.rf__unit = v.unit
        UNION ALL BY NAME
        SELECT e.* EXCLUDE (rf__sq), 0 AS rf__n_ret, CAST(0 AS DOUBLE) AS rf__n_sub,
               /* rf:generated intent_zeros */
        FROM rf__extra AS e
    ), rf__kept AS (
        SELECT * FROM rf__v
        WHERE NOT (rf__n_judged = 0 AND rf__lc(no_judged) = 'skip')
          AND NOT (rf__n_judged > 0 AND rf__n_ret = 0 AND rf__lc(no_retrieved) = 'skip')
    )
    SELECT * EXCLUDE (rf__unit) FROM (  -- the segments, then query (a COLUMNS may not be empty: rf__unit is the
                                        -- first one's when there is no segment)
    SELECT COLUMNS(lambda c: (rf__is_unit_col(c, segments) AND lower(c) <> 'query') OR c = 'rf__unit'),
           COLUMNS(lambda c: lower(c) = 'query'),
           COLUMNS(lambda c: rf__intent_column(c, metrics))
    FROM (SELECT *,
                 /* rf:generated intent_policies */
          FROM rf__kept) AS x
    ORDER BY x.rf__unit);

-- rf_intent_per_query(run, qrels, ...): one row per unit (segments..., query) of the run with a column per measure
-- asked (metrics := NULL: all nine); a skipped unit is absent, no_relevant := 'skip' leaves NULL in its columns
CREATE OR REPLACE MACRO rf_intent_per_query(run, qrels, metrics := NULL, segments := [], order_by := 'rank',
                                            allow_duplicates := false, /* rf:generated intent_params */) AS TABLE
    SELECT * FROM rf__intent_per_query(run, qrels, metrics, segments, order_by, allow_duplicates,
                                       'rf_intent_per_query', /* rf:generated intent_args */);

-- rf_intent_means(run, qrels, ...): one row per segment (one in all with segments := []) with n_queries (the units
-- the policies kept) and the mean of each measure asked, NULL (skipped) and NaN (policy 'nan') left out (rf_means)
CREATE OR REPLACE MACRO rf_intent_means(run, qrels, metrics := NULL, segments := [], order_by := 'rank',
                                        allow_duplicates := false, /* rf:generated intent_params */) AS TABLE
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: (rf__is_unit_col(c, segments) AND lower(c) <> 'query') OR c = 'rf__all'),
               count(*) AS n_queries,
               rf_mean(COLUMNS(lambda c: rf__intent_column(c, metrics)))
        FROM (SELECT true AS rf__all, *
              FROM rf__intent_per_query(run, qrels, metrics, segments, order_by, allow_duplicates,
                                        'rf_intent_means', /* rf:generated intent_args */))
        GROUP BY ALL)
    ORDER BY COLUMNS(lambda c: (rf__is_unit_col(c, segments) AND lower(c) <> 'query') OR c = 'n_queries');
