"""NumRelRet@k: the number of relevant retrieved items (in the top k) (trec_eval ``num_rel_ret``)."""

from __future__ import annotations

from ..core.declare import MetricSpec, k_param, rel_param
from .hits import compute as hits
from .hits import portable as hits_portable

SPEC = MetricSpec(
    name="num_rel_ret",
    canonical="NumRelRet",
    better_why="more relevant items retrieved (= Hits)",
    aliases=("numrelret",),
    summary="number of relevant retrieved items, in the top k (trec_eval num_rel_ret; = Hits@k)",
    params=(k_param(), rel_param()),
    bounded=False,
    count=True,
    trec_eval="num_rel_ret",
    ir_measures="NumRelRet",
    example="2.0",
    example_why="b and c",
    order=230,
)


def compute(prep, *, k, rel):
    return hits(prep, k=k, rel=rel)


def portable(t, *, k, rel):
    """NumRelRet@k as one aggregate: Hits@k's."""
    return hits_portable(t, k=k, rel=rel)
