-- Personalization@k (docs/beyond-accuracy.md "Personalization"): 1 - the mean cosine similarity of every pair of
-- the segment's top-k item sets, as one GROUP BY item (no pair join): with w = 1 / sqrt(|A_u|) per list and, per
-- item, S = sum of w and Q = sum of w² over the lists recommending it, the pairs' similarities sum to
-- sum (S² - Q) / 2, so the mean over the n (n - 1) / 2 pairs is sum (S² - Q) / (n (n - 1)); n = the lists with
-- a top-k row. Output 'similarity' reports the mean itself. One row per segment (NaN with fewer than two lists).
-- rf_personalization(tbl, segments := [], k := NULL, order_by := 'rank', like := NULL, output := NULL, norm := NULL)
-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/personalization.py)
CREATE OR REPLACE MACRO rf__personalization_opts(k, "like", output, norm, owner) AS
    list_transform([rf__opt_choice("like", ['recmetrics', 'evidently'], 'like', owner)], lambda rf__lk: struct_pack(
        k := rf__k(k, owner),
        "like" := rf__lk,
        output := coalesce(rf__opt_choice(output, ['distance', 'similarity'], 'output', owner), CASE rf__lk WHEN 'recmetrics' THEN 'distance' WHEN 'evidently' THEN 'distance' END, 'distance'),
        norm := coalesce(rf__opt_choice(norm, ['cosine', 'k'], 'norm', owner), CASE rf__lk WHEN 'evidently' THEN 'k' END, 'cosine')))[1];
CREATE OR REPLACE MACRO rf__personalization_needs(o, train_given, catalog_given, owner) AS
    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL
         ELSE x END)[1];
CREATE OR REPLACE MACRO rf__personalization_options(k, "like", output, norm, train_given, catalog_given, owner) AS
    rf__personalization_needs(rf__personalization_opts(k, "like", output, norm, owner), train_given, catalog_given, owner);
-- rf:generated-end

CREATE OR REPLACE MACRO rf__personalization(tbl, train, catalog, segments, order_by, o, ok, base := NULL) AS TABLE
    WITH rf__rows AS (
        SELECT * FROM rf__beyond_base(tbl, segments, order_by, struct_extract(o, 'k'), ok, base := base)
    ), rf__distinct AS (  -- each (list, item) of a top k once
        SELECT DISTINCT r.rf__sk, r.query, r.item FROM rf__rows AS r WHERE r.rf__top
    ), rf__lens AS (  -- n = each list's number of items (w = 1 / sqrt(n)): a count per list joined back, not a
                      -- window count over every row (the window partitions and sorts them: 3x the time)
        SELECT d.rf__sk, d.query, count(*) AS rf__len FROM rf__distinct AS d GROUP BY d.rf__sk, d.query
    ), rf__sets AS (
        SELECT d.rf__sk, d.query, d.item, l.rf__len
        FROM rf__distinct AS d JOIN rf__lens AS l ON d.rf__sk IS NOT DISTINCT FROM l.rf__sk AND d.query = l.query
    ), rf__items AS (
        -- the lists of each item counted by their length first (an integer count, in any order), then the few
        -- lengths summed in order: the ordered sum over every (list, item) row sorted each item's rows (1.1 s of
        -- 2.6 on 200k rows)
        SELECT d.rf__sk, sum(d.rf__n / sqrt(d.rf__len) ORDER BY d.rf__len) AS rf__s,
               sum(d.rf__n / d.rf__len ORDER BY d.rf__len) AS rf__q, CAST(sum(d.rf__n) AS DOUBLE) AS rf__c
        FROM (SELECT s.rf__sk, s.item, s.rf__len, count(*) AS rf__n FROM rf__sets AS s
              GROUP BY s.rf__sk, s.item, s.rf__len) AS d
        GROUP BY d.rf__sk, d.item
    ), rf__segments AS (
        -- norm 'k' (Evidently): (sum_i c_i² - n k) / k in place of the cosines' sum (n subtracted below)
        SELECT i.rf__sk, CASE WHEN struct_extract(o, 'norm') = 'k'
                              THEN sum(i.rf__c * i.rf__c ORDER BY i.rf__c) / struct_extract(o, 'k')
                              ELSE sum(i.rf__s * i.rf__s - i.rf__q ORDER BY i.rf__s, i.rf__q) END AS rf__twice
        FROM rf__items AS i
        GROUP BY i.rf__sk
    ), rf__lists AS (
        SELECT l.rf__sk, count(*) AS rf__n FROM rf__lens AS l GROUP BY l.rf__sk
    ), rf__g AS (  -- norm 'k': minus each list's own overlap k (/ k = 1 per list)
        SELECT g.rf__sk, g.rf__twice - CASE WHEN struct_extract(o, 'norm') = 'k' THEN l.rf__n ELSE 0 END AS rf__twice,
               l.rf__n
        FROM rf__segments AS g JOIN rf__lists AS l ON g.rf__sk IS NOT DISTINCT FROM l.rf__sk
    )
    SELECT * EXCLUDE (rf__all) FROM (
        SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c = 'rf__all'),
               rf__beyond_label('Personalization', struct_extract(o, 'k')) AS metric,
               CASE WHEN coalesce(g.rf__n, 0) < 2 THEN CAST('NaN' AS DOUBLE)
                    WHEN struct_extract(o, 'output') = 'similarity' THEN g.rf__twice / (g.rf__n * (g.rf__n - 1.0))
                    ELSE 1.0 - g.rf__twice / (g.rf__n * (g.rf__n - 1.0)) END AS value,
               b.n
        -- the segments' lists counted first, then joined to their values (not every row joined to them)
        FROM (SELECT COLUMNS(lambda c: list_contains(TRY_CAST(segments AS VARCHAR[]), c) OR c IN ('rf__all', 'rf__sk')),
                     count(*) FILTER (WHERE r.rf__first) AS n
              FROM rf__rows AS r GROUP BY ALL) AS b
        LEFT JOIN rf__g AS g ON b.rf__sk IS NOT DISTINCT FROM g.rf__sk)
    ORDER BY ALL NULLS LAST;

-- the options, with the rules between them (rankframe/beyond/personalization.py check_rules)
CREATE OR REPLACE MACRO rf__personalization_rules(o) AS list_transform([o], lambda x:
    CASE WHEN struct_extract(x, 'norm') = 'k' AND struct_extract(x, 'k') IS NULL
         THEN error('rf:param: Personalization(norm=''k'') divides each overlap by the cutoff: give one, e.g. k := 10')
         ELSE x END)[1];

CREATE OR REPLACE MACRO rf_personalization(tbl, segments := [], k := NULL, order_by := 'rank', "like" := NULL,
                                           output := NULL, norm := NULL) AS TABLE
    SELECT * FROM rf__personalization(tbl, NULL, NULL, segments, order_by,
                                      (SELECT rf__personalization_rules(rf__personalization_options(k, "like", output, norm,
                                          false, false, 'rf_personalization'))),
                                      (SELECT rf__ok FROM rf__beyond_ok(tbl, NULL, NULL, NULL, false, segments, order_by,
                                          rf__personalization_rules(rf__personalization_options(k, "like", output,
                                              norm, false, false, 'rf_personalization')),
                                          'rf_personalization')));
