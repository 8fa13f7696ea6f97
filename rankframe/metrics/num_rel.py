"""NumRel: the number of relevant judged items, retrieved or not (trec_eval ``num_rel``)."""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, rel_param

SPEC = MetricSpec(
    name="num_rel",
    canonical="NumRel",
    better=None,
    better_why="a count of the judgments: the same for every system",
    aliases=("numrel",),
    summary="number of judged items with grade >= rel, retrieved or not (trec_eval num_rel)",
    params=(rel_param(),),
    bounded=False,
    count=True,
    trec_eval="num_rel",
    ir_measures="NumRel",
    example="3.0",
    example_why="b, c and the unretrieved d have grades >= 1",
    sql_data_args=("judged_grades",),
    order=220,
)


def compute(prep, *, rel):
    return prep.n_relevant(rel).astype(np.float64), None


def portable(t, *, rel):
    """NumRel as one aggregate: the rows of grade >= rel, retrieved or not."""
    return t.as_float(t.count(t.hit(rel)))
