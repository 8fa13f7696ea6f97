"""DCG@k: sum of gain / log_b(position + 1) over the top k (b = ``log_base``, 2 by default)."""

from __future__ import annotations

from ..prepare import discount, gain_of


def compute(prep, *, k, rel, gain, log_base, gains):
    return dcg(prep, k, rel, gain, log_base, gains), None


def dcg(prep, k, rel, gain, log_base=2.0, gains=None):
    """DCG@k per unit (shared with nDCG)."""
    top = prep.cut(k)
    return top.memo(
        ("dcg", rel, gain, log_base, gains),
        lambda: top.segment_sum(gain_of(top.grade, gain, rel, gains) * discount(top.pos, log_base)),
    )
