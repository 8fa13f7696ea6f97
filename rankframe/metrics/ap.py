"""AP@k: sum of P@i at relevant positions i <= k, over |R|, min(|R|, k) or the hits found."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, denominator):
    top = prep.cut(k)
    hits = top.hits(rel)
    precision_at = top.cumsum_in_list(hits) / top.pos
    total = top.segment_sum(precision_at * hits)
    n_rel = prep.n_relevant(rel)
    if denominator == "relevant":
        denom = n_rel
    elif denominator == "min_k":
        denom = np.minimum(n_rel, prep.n_retrieved if k is None else k)
    else:  # "retrieved": relevant items found in the top k
        denom = top.segment_sum(hits)
    return np.divide(total, denom, out=np.zeros(prep.n), where=denom > 0), n_rel == 0
