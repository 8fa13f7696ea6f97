"""Hits@k: the number of relevant items in the top k (ranx ``hits``; a count, unlike Success)."""

from __future__ import annotations

from ..core.declare import MetricSpec, k_param, rel_param

SPEC = MetricSpec(
    name="hits",
    canonical="Hits",
    better_why="more relevant items found (a count of what the system achieves)",
    aliases=("hits",),
    summary="number of relevant items in the top k (ranx hits@k)",
    params=(k_param(), rel_param()),
    bounded=False,
    example="2.0",
    example_why="grades 2 and 1 at ranks 2 and 3",
    order=125,
)


def compute(prep, *, k, rel):
    top = prep.cut(k)
    return top.segment_sum(top.hits(rel)), None


def portable(t, *, k, rel):
    """Hits@k as one aggregate: the rows of grade >= rel at positions <= k."""
    return t.as_float(t.count(f"{t.within(k)} AND {t.hit(rel)}"))
