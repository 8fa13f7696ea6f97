"""R-precision: hits in the top |R| / |R|; with a cutoff k, of the list cut at k (hits in the top min(|R|, k))."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, k_param, rel_param

SPEC = MetricSpec(
    name="r_precision",
    canonical="Rprec",
    better_why="a larger share of the top R is relevant",
    aliases=("rprec", "r_precision", "r-precision"),
    summary="precision at rank R = number relevant",
    params=(
        k_param(),
        rel_param(),
        JUDGED_ONLY,
    ),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval="Rprec",
    ir_measures="Rprec",
    example="0.66667",
    example_why="2 hits in the top |R| = 3",
    sql_data_args=("n_rel",),
    order=110,
)


def compute(prep, *, k, rel):
    top = prep.cut(k)
    n_rel = prep.n_relevant(rel)
    within = top.pos <= n_rel[top.group]
    hits = top.segment_sum(top.hits(rel), within)
    return np.divide(hits, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0


def portable(t, *, k, rel, **_):
    """Rprec as one aggregate: hits at positions <= min(|R|, k) over |R| (|R| a window over the unit)."""
    n_rel_here = t.unit_count(t.hit(rel))
    cut = n_rel_here if k is None else t.least(n_rel_here, str(k))
    return t.ratio(t.count(f"{t.hit(rel)} AND {t.pos} <= {cut}"), t.count(t.hit(rel)))
