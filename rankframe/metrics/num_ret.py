"""NumRet@k: the number of retrieved items (in the top k) (trec_eval ``num_ret``)."""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, k_param

SPEC = MetricSpec(
    name="num_ret",
    canonical="NumRet",
    better=None,
    better_why="a count of the list's length: longer is not better",
    aliases=("numret",),
    summary="number of retrieved items, at most k (trec_eval num_ret)",
    params=(k_param(),),
    bounded=False,
    count=True,
    trec_eval="num_ret",
    ir_measures="NumRet",
    example="3.0",
    example_why="ranks 1, 2, 3; item d is judged but not retrieved",
    order=210,
)


def compute(prep, *, k):
    return prep.cut(k).n_retrieved.astype(np.float64), None


def portable(t, *, k):
    """NumRet@k as one aggregate: the retrieved rows at positions <= k."""
    return t.as_float(t.count(t.within(k)))
