"""SetP (trec_eval ``set_P``): relevant retrieved / retrieved, over the whole ranked list."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, rel_param

SPEC = MetricSpec(
    name="set_p",
    canonical="SetP",
    better_why="a larger share of the list is relevant",
    aliases=("setp", "set_precision"),
    summary="relevant retrieved / retrieved, over the whole list (trec_eval set_P)",
    params=(rel_param(), JUDGED_ONLY),
    trec_eval="set_P",
    ir_measures="SetP",
    example="0.66667",
    example_why="2 relevant of 3 retrieved",
    table_column=False,
    order=320,
)


def set_counts(prep, rel):
    """(relevant retrieved, retrieved, |R|) per unit: the three counts of trec_eval's set measures."""
    return prep.segment_sum(prep.hits(rel)), prep.n_retrieved.astype(np.float64), prep.n_relevant(rel)


def compute(prep, *, rel):
    rel_ret, n_ret, _ = set_counts(prep, rel)
    return np.divide(rel_ret, n_ret, out=np.zeros(prep.n), where=n_ret > 0), None


def portable_counts(t, rel):
    """(relevant retrieved, retrieved, |R|) of the unit as aggregates: ``set_counts``' three counts."""
    return t.count(f"{t.retrieved} AND {t.hit(rel)}"), t.count(t.retrieved), t.count(t.hit(rel))


def portable(t, *, rel):
    """SetP as one aggregate: relevant retrieved / retrieved."""
    rel_ret, n_ret, _ = portable_counts(t, rel)
    return t.ratio(rel_ret, n_ret)
