"""SetAP (trec_eval ``set_map``): SetP x SetR = relevant retrieved^2 / (retrieved |R|)."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, rel_param
from .set_p import portable_counts, set_counts

SPEC = MetricSpec(
    name="set_ap",
    canonical="SetAP",
    better_why="set precision and recall both higher",
    aliases=("setap", "set_ap"),
    summary="SetP x SetR = relevant retrieved^2 / (retrieved x relevant) (trec_eval set_map)",
    params=(rel_param(), JUDGED_ONLY),
    nothing_relevant="relevant",
    trec_eval="set_map",
    ir_measures="SetAP",
    example="0.44444",
    example_why="2^2 / (3 * 3)",
    sql_data_args=("n_rel",),
    table_column=False,
    order=350,
)


def compute(prep, *, rel):
    rel_ret, n_ret, n_rel = set_counts(prep, rel)
    den = n_ret * n_rel
    return np.divide(rel_ret * rel_ret, den, out=np.zeros(prep.n), where=den > 0), n_rel == 0


def portable(t, *, rel):
    """SetAP as one aggregate: relevant retrieved^2 / (retrieved |R|)."""
    rel_ret, n_ret, n_rel = portable_counts(t, rel)
    return t.ratio(f"{rel_ret} * {rel_ret}", f"{n_ret} * {n_rel}")
