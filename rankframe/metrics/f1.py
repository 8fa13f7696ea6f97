"""F1@k: harmonic mean of P@k and R@k."""

from __future__ import annotations

import numpy as np

from ..declare import MetricSpec, k_param, rel_param
from . import precision, recall

SPEC = MetricSpec(
    name="f1",
    canonical="F1",
    aliases=("f1", "f"),
    summary="harmonic mean of P@k and R@k",
    params=(
        k_param(),
        rel_param(),
    ),
    nothing_relevant="relevant",
    example="0.66667",
    example_why="P = R = 2/3",
    sql_data_args=("n_rel",),
    order=130,
)


def compute(prep, *, k, rel):
    p, _ = precision.compute(prep, k=k, rel=rel, denominator="k")
    r, none = recall.compute(prep, k=k, rel=rel, denominator="relevant")
    s = p + r
    return np.divide(2 * p * r, s, out=np.zeros(prep.n), where=s > 0), none
