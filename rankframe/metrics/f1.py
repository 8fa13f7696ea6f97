"""F1@k: harmonic mean of P@k and R@k."""

from __future__ import annotations

import numpy as np

from . import precision, recall


def compute(prep, *, k, rel):
    p, _ = precision.compute(prep, k=k, rel=rel, denominator="k")
    r, none = recall.compute(prep, k=k, rel=rel, denominator="relevant")
    s = p + r
    return np.divide(2 * p * r, s, out=np.zeros(prep.n), where=s > 0), none
