"""DCG@k: sum of gain / log2(position + 1) over the top k."""

from __future__ import annotations

from ..prepare import discount, gain_of


def compute(prep, *, k, rel, gain):
    return dcg(prep, k, rel, gain), None


def dcg(prep, k, rel, gain):
    """DCG@k per unit (shared with nDCG)."""
    top = prep.cut(k)
    return top.memo(("dcg", rel, gain), lambda: top.segment_sum(gain_of(top.grade, gain, rel) * discount(top.pos)))
