"""F1@k: (beta + 1) P R / (beta P + R) of P@k and R@k; beta = 1 (default): the harmonic mean 2 P R / (P + R)."""

from __future__ import annotations

from ..core.declare import BETA, MetricSpec, k_param, rel_param
from . import precision, recall
from .set_f import f_measure

SPEC = MetricSpec(
    name="f1",
    canonical="F1",
    better_why="precision and recall both higher",
    aliases=("f1", "f"),
    summary="weighted harmonic mean (beta + 1) P R / (beta P + R) of P@k and R@k (beta = 1: F1)",
    params=(
        k_param(),
        rel_param(),
        BETA,
    ),
    nothing_relevant="relevant",
    example="0.66667",
    example_why="P = R = 2/3",
    sql_data_args=("n_rel",),
    order=130,
)


def compute(prep, *, k, rel, beta):
    p, _ = precision.compute(prep, k=k, rel=rel, denominator="k")
    r, none = recall.compute(prep, k=k, rel=rel, denominator="relevant")
    return f_measure(p, r, beta), none


def portable(t, *, k, rel, beta):
    """F1@k as one aggregate: SetF's f_measure of P@k and R@k's expressions."""
    p = precision.portable(t, k=k, rel=rel, denominator="k")
    r = recall.portable(t, k=k, rel=rel, denominator="relevant")
    return t.f_measure(p, r, beta)
