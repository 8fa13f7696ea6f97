"""Success@k (hit rate): 1 when a relevant item is in the top k."""

from __future__ import annotations


def compute(prep, *, k, rel):
    return (prep.segment_sum(prep.hits(rel), prep.top(k)) > 0).astype(float), None
