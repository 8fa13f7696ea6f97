-- CG — cumulative gain@k (docs/metrics.md "CG"): sum_{i<=k} gain(g_i); gain 'linear' max(g, 0) or
-- 'exponential' 2^max(g, 0) - 1; grades below rel (when set) give no gain; NULL grade -> 0.
-- An infinite sum (exponential gains of grades near 1023) is an error (rf__finite_gain).
CREATE OR REPLACE MACRO rf__cg_grades(grades, k, rel, gain) AS
    rf__finite_gain(coalesce(list_sum(list_transform(list_slice(grades, 1, coalesce(k, len(grades))),
                                                     lambda x: rf__gain(x, rel, gain))), CAST(0 AS DOUBLE)),
                    list_max(grades));

CREATE OR REPLACE MACRO rf_cg(grades, k := NULL, rel := NULL, gain := 'linear') AS
    CASE WHEN rf__k(k, 'rf_cg') < 0
              OR isnan(rf__relopt(rel, 'rf_cg'))
              OR rf__choice(gain, ['linear', 'exponential', 'binary'], 'gain', 'rf_cg') = ''
         THEN NULL
         ELSE rf__cg_grades(coalesce(grades, []), rf__as_k(k), rf__as_num(rel), rf__lc(gain)) END;

-- a row's term of CG: its gain within the cutoff, else NULL
CREATE OR REPLACE MACRO rf__cg_term(pos, grade, k, rel, gain) AS
    CASE WHEN pos <= coalesce(k, 9223372036854775807) THEN rf__gain(grade, rel, gain) END;

-- (of the rows' terms t = rf__cg_term(...): the table macros compute t once per row, rf:row below)
CREATE OR REPLACE MACRO rf__agg_cg_t(t, grade, gain) AS rf__gain_total(t, grade, gain);

CREATE OR REPLACE MACRO rf__agg_cg(pos, grade, k, rel, gain) AS
    rf__agg_cg_t(rf__cg_term(pos, grade, k, rel, gain), grade, gain);

CREATE OR REPLACE MACRO rf_agg_cg(pos, grade, k := NULL, rel := NULL, gain := 'linear') AS
    CASE WHEN rf__k(k, 'rf_agg_cg') < 0
              OR isnan(rf__relopt(rel, 'rf_agg_cg'))
              OR rf__choice(gain, ['linear', 'exponential', 'binary'], 'gain', 'rf_agg_cg') = ''
         THEN NULL
         ELSE rf__agg_cg(pos, grade, rf__as_k(k), rf__as_num(rel), rf__lc(gain)) END;

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column CG order=50 nothing_relevant=none
-- rf:row rf__t_cg := rf__cg_term(z.rf_pos, z.rf_g, k, graded_rel, gain)
-- rf:value rf__agg_cg_t(x.rf__t_cg, x.rf_g, gain)
