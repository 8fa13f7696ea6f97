"""F@k: weighted harmonic mean (beta + 1) P R / (beta P + R) of P@k and R@k (beta = 1: F1)."""

from __future__ import annotations

from . import precision, recall
from .set_f import f_measure


def compute(prep, *, k, rel, beta):
    p, _ = precision.compute(prep, k=k, rel=rel, denominator="k")
    r, none = recall.compute(prep, k=k, rel=rel, denominator="relevant")
    return f_measure(p, r, beta), none
