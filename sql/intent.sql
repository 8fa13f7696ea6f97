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
               sum(e.g / log2(e.pos + 1) ORDER BY e.pos) AS dcg,
               sum(e.g / e.pos ORDER BY e.pos) AS err,
               sum(e.g * pow(q.beta, e.pos - 1) ORDER BY e.pos) AS rbp
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
               sum(i.gain / log2(i.step + 1) ORDER BY i.step) AS dcg,
               sum(i.gain / i.step ORDER BY i.step) AS err,
               sum(i.gain * pow(q.beta, i.step - 1) ORDER BY i.step) AS rbp
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
