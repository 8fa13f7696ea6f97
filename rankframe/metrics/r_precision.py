"""R-precision: hits in the top |R| / |R|."""

from __future__ import annotations

import numpy as np

from ..declare import MetricSpec, rel_param

SPEC = MetricSpec(
    name="r_precision",
    canonical="Rprec",
    aliases=("rprec", "r_precision", "r-precision"),
    summary="precision at rank R = number relevant",
    params=(rel_param(),),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval="Rprec",
    ir_measures="Rprec",
    example="0.66667",
    example_why="2 hits in the top |R| = 3",
    sql_data_args=("n_rel",),
    order=110,
)


def compute(prep, *, rel):
    n_rel = prep.n_relevant(rel)
    top = prep.pos <= n_rel[prep.group]
    hits = prep.segment_sum(prep.hits(rel), top)
    return np.divide(hits, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0
