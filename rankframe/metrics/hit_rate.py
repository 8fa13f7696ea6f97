"""Success@k (hit rate): 1 when a relevant item is in the top k."""

from __future__ import annotations


def compute(prep, *, k, rel):
    top = prep.cut(k)
    return (top.segment_sum(top.hits(rel)) > 0).astype(float), None
