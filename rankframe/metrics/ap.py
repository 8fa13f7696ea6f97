"""AP@k: sum of P@i at relevant positions i <= k, over |R|, min(|R|, k) or the hits found."""

from __future__ import annotations

import numpy as np


def compute(prep, *, k, rel, denominator):
    hits = prep.hits(rel)
    precision_at = prep.cumsum_in_list(hits) / prep.pos
    top = prep.top(k)
    total = prep.segment_sum(precision_at * hits, top)
    n_rel = prep.n_relevant(rel)
    if denominator == "relevant":
        denom = n_rel
    elif denominator == "min_k":
        denom = n_rel if k is None else np.minimum(n_rel, k)
    else:  # "retrieved": relevant items found in the top k
        denom = prep.segment_sum(hits, top)
    return np.divide(total, denom, out=np.zeros(prep.n), where=denom > 0), n_rel == 0
