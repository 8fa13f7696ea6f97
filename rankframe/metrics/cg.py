"""CG@k: sum of the gains of the top k."""

from __future__ import annotations

from ..prepare import gain_of


def compute(prep, *, k, rel, gain):
    return prep.segment_sum(gain_of(prep.grade, gain, rel), prep.top(k)), None
