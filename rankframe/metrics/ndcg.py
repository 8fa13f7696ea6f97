"""nDCG@k = DCG@k / IDCG@k."""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, TIES, MetricSpec, like_param
from .dcg import dcg
from .idcg import SPEC as IDCG
from .idcg import has_ideal_gain, idcg

#: the peers' conventions ``like=`` names (docs/metrics.md "Presets")
PRESETS = {
    # RecTools NDCG (rectools/metrics/ranking.py, divide_by_achievable=False): binary relevance, and the ideal DCG
    # of k relevant items, sum_{i<=k} 1/log2(i+1), however many relevant items the user has
    "rectools": {"gain": "binary", "ideal": "full"},
}

SPEC = MetricSpec(
    name="ndcg",
    canonical="nDCG",
    better_why="more gain, ranked earlier, of the ideal",
    aliases=("ndcg",),
    summary="DCG / IDCG",
    params=(*IDCG.params, JUDGED_ONLY, TIES, like_param(tuple(PRESETS))),  # IDCG's parameters (its k, rel, gains)
    presets=PRESETS,
    perfect_is_one=True,
    nothing_relevant="gain",
    binary=False,
    trec_eval="ndcg",
    trec_eval_cut="ndcg_cut",
    ir_measures="nDCG",
    example="0.56273",
    example_why="1.76186 / 3.13093",
    sql_data_args=("judged_grades",),
    sql_table_params=(("rel", "graded_rel"),),
    order=80,
)


def compute(prep, *, k, rel, gain, ideal, log_base, gains, ties, like=None):
    num = dcg(prep, k, rel, gain, log_base, gains, ties)  # the ideal does not depend on ties
    den = idcg(prep, k, rel, gain, ideal, log_base, gains)
    # "nothing relevant" = the ideal list has no gain at all (not only within the cutoff)
    none = ~has_ideal_gain(prep, rel, gain, ideal, gains)
    return np.divide(num, den, out=np.zeros(prep.n), where=den > 0), none


def portable(t, *, k, rel, gain, ideal, log_base, gains, **_):
    """nDCG@k = DCG@k / IDCG@k (0 when IDCG is 0)."""
    return t.ratio(t.dcg(k, rel, gain, log_base, gains), t.idcg(k, rel, gain, ideal, log_base, gains))
