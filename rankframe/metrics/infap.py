"""infAP (trec_eval ``infAP``, Yilmaz & Aslam 2006): AP estimated from a sampled judgment pool.

Retrieved items fall in four classes: unjudged (null grade: not in the pool, skipped), pooled but not judged
(a negative grade, as pytrec_eval reads a negative qrels label), judged non-relevant (0 <= g < rel) and relevant
(g >= rel). The relevant item at position i (1-based) with r relevant, n non-relevant and u pooled-unjudged items
above it adds 1 when i = 1, else

    1/i + ((i - 1)/i) ((r + n + u)/(i - 1)) ((r + eps)/(r + n + 2 eps)),   eps = 1e-5 (trec_eval's INFAP_EPSILON);

infAP = the sum / |R| (0 when |R| = 0). Written in trec_eval's order of operations, so the values agree to the bit.
"""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, rel_param

EPSILON = 0.00001


SPEC = MetricSpec(
    name="infap",
    canonical="infAP",
    better_why="as AP",
    aliases=("infap", "inferred_ap"),
    summary="inferred AP: AP estimated from a sampled judgment pool (trec_eval, Yilmaz & Aslam)",
    params=(rel_param(),),
    nothing_relevant="relevant",
    trec_eval="infAP",
    ir_measures="infAP",
    example="0.38889",
    example_why="(1/2 + (1/2)(1/1)(eps/(1 + 2 eps)) + 1/3 + (2/3)(2/2)(1/2)) / 3, eps = 1e-5",
    sql_data_args=("n_rel",),
    table_column=False,
    order=310,
)


def compute(prep, *, rel):
    g = prep.grade
    hit = g >= rel
    nonrel = (g >= 0) & (g < rel)
    pooled = g < 0  # NaN (unjudged) compares False everywhere: skipped
    rel_above = prep.cumsum_in_list(hit.astype(np.float64)) - hit
    nonrel_above = prep.cumsum_in_list(nonrel.astype(np.float64)) - nonrel
    pooled_above = prep.cumsum_in_list(pooled.astype(np.float64)) - pooled
    fj = (prep.pos - 1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel_above + nonrel_above + pooled_above) / fj) * (
            (rel_above + EPSILON) / (rel_above + nonrel_above + 2 * EPSILON)
        )
    term = np.where(fj == 0, 1.0, term)
    total = prep.segment_sum(term, hit)
    n_rel = prep.n_relevant(rel)
    return np.divide(total, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0


def portable(t, *, rel):
    """The infAP of the unit as one aggregate: ``compute``'s term of each relevant retrieved item, summed, over |R|.

    r, n, u (relevant, judged non-relevant, pooled-unjudged rows above the hit) are running counts along the
    ranking less the hit itself (a hit is neither of the other two).
    """
    hit, nonrel, pooled = t.hit(rel), t.nonrel(rel), t.pooled
    r = t.as_float(f"{t.running_count(hit)} - 1")
    n = t.as_float(t.running_count(nonrel))
    u = t.as_float(t.running_count(pooled))
    fj, eps = t.as_float(f"{t.pos} - 1"), t.num(EPSILON)
    term = (
        f"{t.num(1)} / ({fj} + 1) + ({fj} / ({fj} + 1)) * (({r} + {n} + {u}) / NULLIF({fj}, 0)) "
        f"* (({r} + {eps}) / ({r} + {n} + 2 * {eps}))"
    )
    return t.ratio(t.total(t.when(f"{t.pos} = 1", t.num(1), term), f"{t.retrieved} AND {hit}"), t.count(hit))
