"""SetF (trec_eval ``set_F``): (beta + 1) P R / (beta P + R) with P = SetP and R = SetR; 0 when P = R = 0.

``beta`` is trec_eval's and ir_measures' parameter: the weight of recall against precision in the harmonic mean.
The textbook F_b (scikit-learn ``fbeta_score(beta=b)``) is ``beta = b ** 2`` here.
"""

from __future__ import annotations

import numpy as np

from ..core.declare import BETA, JUDGED_ONLY, MetricSpec, rel_param
from .set_p import portable_counts, set_counts

SPEC = MetricSpec(
    name="set_f",
    canonical="SetF",
    better_why="set precision and recall both higher",
    aliases=("setf",),
    summary="weighted harmonic mean (beta + 1) P R / (beta P + R) of SetP and SetR (trec_eval set_F)",
    params=(rel_param(), BETA, JUDGED_ONLY),
    nothing_relevant="relevant",
    trec_eval="set_F",
    ir_measures="SetF",
    example="0.66667",
    example_why="P = R = 2/3",
    sql_data_args=("n_rel",),
    table_column=False,
    order=340,
)


def f_measure(p: np.ndarray, r: np.ndarray, beta: float) -> np.ndarray:
    """(beta + 1) P R / (beta P + R), 0 where the denominator is 0 (shared with F@k)."""
    den = beta * p + r
    return np.divide((beta + 1.0) * p * r, den, out=np.zeros(len(p)), where=den > 0)


def compute(prep, *, rel, beta):
    rel_ret, n_ret, n_rel = set_counts(prep, rel)
    p = np.divide(rel_ret, n_ret, out=np.zeros(prep.n), where=n_ret > 0)
    r = np.divide(rel_ret, n_rel, out=np.zeros(prep.n), where=n_rel > 0)
    return f_measure(p, r, beta), n_rel == 0


def portable(t, *, rel, beta):
    """SetF as one aggregate: f_measure of SetP and SetR."""
    rel_ret, n_ret, n_rel = portable_counts(t, rel)
    return t.f_measure(t.ratio(rel_ret, n_ret), t.ratio(rel_ret, n_rel), beta)
