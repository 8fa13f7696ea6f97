-- NumRel (docs/metrics.md "NumRel"): the number of judged items with grade >= rel, retrieved or not
-- (trec_eval num_rel). judged_grades: the grades of every judged item of the query.
CREATE OR REPLACE MACRO rf_num_rel(grades, judged_grades, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_num_rel') IS NULL
         THEN NULL
         ELSE CAST(len(list_filter(coalesce(judged_grades, []), lambda x: x >= rf__as_num(rel))) AS DOUBLE) END;

CREATE OR REPLACE MACRO rf__agg_num_rel(pos, grade, rel) AS CAST(count(grade) FILTER (WHERE grade >= rel) AS DOUBLE);

CREATE OR REPLACE MACRO rf_agg_num_rel(pos, grade, rel := 1) AS
    CASE WHEN rf__rel(rel, 'rf_agg_num_rel') IS NULL
         THEN NULL
         ELSE rf__agg_num_rel(pos, grade, rf__as_num(rel)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column NumRel order=220 nothing_relevant=none better=none count uncut
-- rf:value rf__agg_num_rel(x.rf_pos, x.rf_g, rel)
