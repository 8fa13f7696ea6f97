"""RBP@k: (1 - p) * sum of p^(position - 1) over relevant items in the top k; or its residual (the unjudged mass).

``residual=True`` gives RBP's residual instead (Moffat & Zobel 2008, section 5): how much RBP could still grow if
every unknown item were relevant. ``tail=`` names the peer whose convention is followed (docs/metrics.md "RBP",
docs/decisions/0020-rbp-residual.md); U = sum of p^(i-1) over the unjudged (null-grade) retrieved items at
positions i <= the depth, n = the number of retrieved items within the depth:

* ``'cwl'`` (default; cwl_eval ``-r``, cwl/ruler/measures/cwl_metrics.py + cwl/ruler/ranking.py): depth N = k, or
  1000 (cwl_eval's ``--max_depth``) without k; ``((1 - p) U + p^n - p^N) / (1 - p^N)``;
* ``'trec_eval'`` (trec_eval 10 ``rbp_resid``, m_rbp_resid.c): depth k or the whole list; ``p^n + (1 - p) U`` when
  at least one retrieved item within the depth is unjudged, else **0** (trec_eval leaves the value unset); a
  negative grade is unjudged here, as trec_eval reads a negative qrels label (and as ``judged_only`` does);
* ``'trectools'`` (trectools ``TrecEval.get_rbp``, trectools/trec_eval.py): depth D = k, or its default 1000;
  ``(1 - p) U + p^D``.
"""

from __future__ import annotations

import numpy as np

from ..core.declare import MetricSpec, Param, k_param, rel_param

#: the peers' conventions of the residual (``tail=``) and the depth cwl_eval and trectools take without a cutoff
TAILS = ("cwl", "trec_eval", "trectools")
PEER_DEPTH = 1000

SPEC = MetricSpec(
    name="rbp",
    canonical="RBP",
    better_why="more relevant items, ranked earlier",
    better_when=(("residual", True, None),),
    aliases=("rbp", "rank_biased_precision"),
    summary="rank-biased precision (1 - p) sum p^(rank-1) rel; residual=True: its unjudged mass",
    params=(
        k_param(),
        rel_param(),
        Param("p", 0.8, "persistence", kind="open_unit", aliases=("persistence",)),
        Param(
            "residual",
            False,
            "give RBP's residual instead of RBP: the mass of the positions whose gain is unknown (unjudged retrieved "
            "items and the tail past the depth), how much RBP could still grow (Moffat & Zobel 2008)",
            kind="flag",
        ),
        Param(
            "tail",
            "cwl",
            "the residual's convention (residual=True only): 'cwl' = cwl_eval's ((1-p) U + p^n - p^N) / (1 - p^N), "
            "N = k or 1000; 'trec_eval' = trec_eval 10's rbp_resid p^n + (1-p) U, and 0 when nothing retrieved is "
            "unjudged; 'trectools' = get_rbp's (1-p) U + p^D, D = k or 1000 (U = sum of p^(i-1) over the unjudged "
            "retrieved items, n = the retrieved items within the depth)",
            choices=TAILS,
        ),
    ),
    ir_measures="RBP",
    example="0.288",
    example_why="0.2 (0.8 + 0.8^2)",
    order=150,
)


def compute(prep, *, k, rel, p, residual=False, tail="cwl"):
    if residual:
        return rbp_residual(prep, k, p, tail), None
    top = prep.cut(k)
    return (1.0 - p) * top.segment_sum(top.hits(rel) * np.power(p, top.pos - 1.0)), None


def rbp_residual(prep, k: int | None, p: float, tail: str) -> np.ndarray:
    """RBP's residual per unit under the ``tail`` convention (module docstring): one segment sum, no loop."""
    depth = k if (k is not None or tail == "trec_eval") else PEER_DEPTH
    top = prep.cut(depth)
    # unknown: a null grade; trec_eval also reads a negative qrels label as unjudged (rel < 0 in m_rbp_resid.c,
    # as judged_only does here), cwl_eval refuses negative gains and trectools counts them as known non-relevant
    unjudged = ~top.at_least(0.0) if tail == "trec_eval" else np.isnan(top.grade)
    mass = top.segment_sum(np.power(p, top.pos - 1.0), unjudged)  # U
    n = top.n_retrieved.astype(np.float64)
    if tail == "trec_eval":
        return np.where(top.segment_sum(None, unjudged) > 0, np.power(p, n) + (1.0 - p) * mass, 0.0)
    p_depth = float(p) ** (k if k is not None else PEER_DEPTH)
    if tail == "cwl":
        return ((1.0 - p) * mass + np.power(p, n) - p_depth) / (1.0 - p_depth)
    return (1.0 - p) * mass + p_depth


def portable(t, *, k, rel, p, residual=False, tail="cwl"):
    """RBP@k as one aggregate: (1 - p) times the sum of p^(position - 1) over the hits in the top k; or the residual."""
    if residual:
        depth = k if (k is not None or tail == "trec_eval") else PEER_DEPTH
        unknown = f"({t.grade} IS NULL OR {t.grade} < 0)" if tail == "trec_eval" else f"{t.grade} IS NULL"
        unjudged = f"{t.within(depth)} AND {unknown}"
        mass = t.total(t.power(t.num(p), f"{t.pos} - 1"), unjudged)
        left = f"({t.num(1)} - {t.num(p)}) * {mass}"
        n = t.count(t.within(depth))
        if tail == "trec_eval":
            return t.when(f"{t.count(unjudged)} > 0", f"{t.power(t.num(p), n)} + {left}", t.num(0))
        p_depth = t.power(t.num(p), t.num(depth))
        if tail == "cwl":
            return f"({left} + {t.power(t.num(p), n)} - {p_depth}) / ({t.num(1)} - {p_depth})"
        return f"{left} + {p_depth}"
    total = t.total(t.power(t.num(p), f"{t.pos} - 1"), f"{t.within(k)} AND {t.hit(rel)}")
    return f"({t.num(1)} - {t.num(p)}) * {total}"
