"""SetR (trec_eval ``set_recall``): relevant retrieved / |R|, over the whole ranked list."""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, rel_param
from .set_p import portable_counts, set_counts

SPEC = MetricSpec(
    name="set_r",
    canonical="SetR",
    better_why="more of the relevant items retrieved",
    aliases=("setr", "set_r"),
    summary="relevant retrieved / relevant judged, over the whole list (trec_eval set_recall)",
    params=(rel_param(),),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval="set_recall",
    ir_measures="SetR",
    example="0.66667",
    example_why="2 of |R| = 3",
    sql_data_args=("n_rel",),
    table_column=False,
    order=330,
)


def compute(prep, *, rel):
    rel_ret, _, n_rel = set_counts(prep, rel)
    return np.divide(rel_ret, n_rel, out=np.zeros(prep.n), where=n_rel > 0), n_rel == 0


def portable(t, *, rel):
    """SetR as one aggregate: relevant retrieved / |R|."""
    rel_ret, _, n_rel = portable_counts(t, rel)
    return t.ratio(rel_ret, n_rel)
