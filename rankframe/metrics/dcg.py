"""DCG@k: sum of gain / log_b(position + 1) over the top k (b = ``log_base``, 2 by default)."""

from __future__ import annotations

from ..core.declare import GAIN, GAINS, LOG_BASE, TIES, MetricSpec, k_param, rel_param
from ..tables.prepare import discount, gain_of

SPEC = MetricSpec(
    name="dcg",
    canonical="DCG",
    better_why="more gain, ranked earlier",
    aliases=("dcg",),
    summary="sum of gain / log2(rank + 1) over the top k",
    params=(
        k_param(),
        rel_param(None),
        GAIN,
        LOG_BASE,
        GAINS,
        TIES,
    ),
    bounded=False,
    binary=False,
    example="1.76186",
    example_why="2/log2(3) + 1/log2(4)",
    sql_table_params=(("rel", "graded_rel"),),
    order=60,
)


def compute(prep, *, k, rel, gain, log_base, gains, ties):
    return dcg(prep, k, rel, gain, log_base, gains, ties), None


def dcg(prep, k, rel, gain, log_base=2.0, gains=None, ties="first"):
    """DCG@k per unit (shared with nDCG).

    ``ties="average"``: each ranked item's gain is the mean gain of its tie group (equal scores), taken over the
    whole list, so a group straddling k gives its mean gain to each of its positions <= k (scikit-learn
    ``_tie_averaged_dcg``).
    """
    top = prep.cut(k)

    def make():
        if ties == "average":
            gains_in_order = prep.tie_average(gain_of(prep.grade, gain, rel, gains))
            if top is not prep:
                gains_in_order = gains_in_order[prep.pos <= k]
        else:
            gains_in_order = gain_of(top.grade, gain, rel, gains)
        return top.segment_sum(gains_in_order * discount(top.pos, log_base))

    return top.memo(("dcg", rel, gain, log_base, gains, ties), make)


def portable(t, *, k, rel, gain, log_base, gains, **_):
    """DCG@k as one aggregate: the sum of gain / log_b(position + 1) in the top k."""
    return t.dcg(k, rel, gain, log_base, gains)
