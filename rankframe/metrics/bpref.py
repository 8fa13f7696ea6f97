"""Bpref (trec_eval): relevant retrieved items, penalised by judged non-relevant items ranked above them.

With a cutoff k, the bpref of the list cut at k (trec_eval -M k): only the top k items are retrieved; |R| and N
still count every judgment.
"""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, k_param, rel_param

SPEC = MetricSpec(
    name="bpref",
    canonical="Bpref",
    better_why="relevant items ranked above judged non-relevant ones",
    aliases=("bpref",),
    summary="binary preference (trec_eval definition)",
    params=(
        k_param(),
        rel_param(),
    ),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval="bpref",
    ir_measures="Bpref",
    example="0.0",
    example_why="N = 1 judged non-relevant, ranked above both hits: 1 - min(1, 3)/min(3, 1) = 0 each",
    sql_data_args=("n_rel", "n_nonrel"),
    order=140,
)


def compute(prep, *, k, rel):
    prep = prep.cut(k)
    n_rel = prep.n_relevant(rel)
    n_nonrel = prep.count_judged(lambda g: (g >= 0) & (g < rel))
    nonrel = ((prep.grade >= 0) & (prep.grade < rel)).astype(np.float64)
    above = prep.cumsum_in_list(nonrel) - nonrel
    hit = prep.grade >= rel
    r = n_rel[prep.group]
    cap = np.minimum(r, n_nonrel[prep.group])
    penalty = np.divide(np.minimum(above, r), cap, out=np.zeros_like(above), where=cap > 0)
    term = np.where(above > 0, 1.0 - penalty, 1.0)
    total = prep.segment_sum(term, hit)
    return np.divide(total, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0


def portable(t, *, k, rel):
    """Bpref as one aggregate over the hits in the top k: 1 - min(N above, R) / min(R, N) (1 with none above).

    R (relevant) and N (judged non-relevant: 0 <= grade < rel) count every judgment of the unit (windows); the
    judged non-relevant rows above a hit are a running count along the ranking (a hit is never one of them).
    """
    nonrel = t.nonrel(rel)
    above = t.running_count(nonrel)
    r, n = t.unit_count(t.hit(rel)), t.unit_count(nonrel)
    term = t.when(f"{above} = 0", t.num(1), f"{t.num(1)} - {t.ratio(t.least(above, r), t.least(r, n))}")
    return t.ratio(t.total(term, f"{t.within(k)} AND {t.hit(rel)}"), t.count(t.hit(rel)))
