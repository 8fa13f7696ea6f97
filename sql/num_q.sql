-- NumQ (docs/metrics.md "NumQ"): 1 per evaluated query; summed, the number of queries (trec_eval num_q).
CREATE OR REPLACE MACRO rf_num_q(grades) AS CAST(1 AS DOUBLE);

CREATE OR REPLACE MACRO rf__agg_num_q(pos, grade) AS CAST(1 AS DOUBLE);

CREATE OR REPLACE MACRO rf_agg_num_q(pos, grade) AS rf__agg_num_q(pos, grade);

-- its column in the table macros rf_per_query / rf_means / rf_compare (rankframe/sql.py, "metric wiring")
-- rf:column NumQ order=200 nothing_relevant=none better=none count uncut
-- rf:value rf__agg_num_q(x.rf_pos, x.rf_g)
