-- IPrec — interpolated precision at recall level r (docs/metrics.md "IPrec", trec_eval iprec_at_recall):
-- with p_1 < p_2 < ... the ranks of the retrieved relevant items and c = floor(r |R| + 0.9) (trec_eval 9,
-- pytrec_eval), the largest j / p_j over the hits j >= max(c, 1); 0 when fewer than c are retrieved.

-- a level in [0, 1] that must be given (NULL is an error: IPrec has no default level)
CREATE OR REPLACE MACRO rf__unit(v, pname, owner) AS
    CASE WHEN rf__number(v) BETWEEN 0 AND 1 THEN rf__number(v)
         ELSE error(printf('rf:param: The ''%s'' parameter of %s must be a float in [0, 1]. Got %s '
                           || 'instead.', pname, owner,
                           rf__repr(v))) END;

CREATE OR REPLACE MACRO rf__iprec(hitpos, n_rel, recall) AS
    coalesce(list_max(list_filter(list_transform(hitpos,
                                                 lambda p, j: CASE WHEN j >= floor(recall * n_rel + 0.9)
                                                                   THEN CAST(j AS DOUBLE) / p END),
                                  lambda x: x IS NOT NULL)),
             CAST(0 AS DOUBLE));

-- n_rel: number of judged rows of the query (retrieved or not) with grade >= rel
CREATE OR REPLACE MACRO rf_iprec(grades, n_rel, recall := NULL, rel := 1, judged_only := false) AS
    CASE WHEN rf__unit(recall, 'recall', 'rf_iprec') < 0
              OR rf__rel(rel, 'rf_iprec') IS NULL
              OR rf__flag(judged_only, 'judged_only', 'rf_iprec') IS NULL
         THEN NULL
         ELSE rf__iprec(rf__hitpos(rf__judged_list(coalesce(grades, []), judged_only), NULL, rf__as_num(rel)), n_rel, rf__as_num(recall)) END;

CREATE OR REPLACE MACRO rf__agg_iprec(pos, grade, recall, rel) AS
    rf__iprec(list_sort(coalesce(list(pos) FILTER (WHERE pos IS NOT NULL AND grade >= rel), [])),
              count(grade) FILTER (WHERE grade >= rel), recall);

CREATE OR REPLACE MACRO rf_agg_iprec(pos, grade, recall := NULL, rel := 1) AS
    CASE WHEN rf__unit(recall, 'recall', 'rf_agg_iprec') < 0
              OR rf__rel(rel, 'rf_agg_iprec') IS NULL
         THEN NULL
         ELSE rf__agg_iprec(pos, grade, rf__as_num(recall), rf__as_num(rel)) END;
