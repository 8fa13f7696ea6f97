"""CG@k: sum of the gains of the top k."""

from __future__ import annotations

from ..prepare import gain_of


def compute(prep, *, k, rel, gain):
    top = prep.cut(k)
    return top.segment_sum(gain_of(top.grade, gain, rel)), None
