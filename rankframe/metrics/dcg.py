"""DCG@k: sum of gain / log2(position + 1) over the top k."""

from __future__ import annotations

from ..prepare import discount, gain_of


def compute(prep, *, k, rel, gain):
    return dcg(prep, k, rel, gain), None


def dcg(prep, k, rel, gain):
    """DCG@k per unit (shared with nDCG)."""
    return prep.memo(("dcg", k, rel, gain), lambda: prep.segment_sum(
        gain_of(prep.grade, gain, rel) * discount(prep.pos), prep.top(k)))
