"""IPrec@r (trec_eval ``iprec_at_recall``): interpolated precision at recall level r.

Interpolated precision at rank i is the best precision at any rank >= i. Recall level r is reached at the
c-th relevant retrieved item, c = floor(r |R| + 0.9) (trec_eval 9's rounding, which pytrec_eval and ir_measures
use; trec_eval 10 rounds r |R| to the nearest integer instead). Between two hits precision only falls, so the
value is the largest P@p_j = j / p_j over the hits j >= max(c, 1), p_j the rank of the j-th hit; 0 when fewer
than c relevant items are retrieved.
"""

from __future__ import annotations

import numpy as np

from ..core.declare import JUDGED_ONLY, MetricSpec, Param, rel_param

SPEC = MetricSpec(
    name="iprec",
    canonical="IPrec",
    better_why="higher precision at the recall level",
    # trec_eval's iprec_at_recall_0.50 is IPrec@0.5 (trec_eval_cut), so is iprec_at_recall@0.5; the bare name
    # iprec_at_recall is trec_eval's 11-point curve, IPrec@0.0 ... IPrec@1.0 (names.expand; MetricSpec.family)
    aliases=("iprec", "iprec_at_recall", "interpolated_precision"),
    summary="interpolated precision at a recall level: the best precision at or after it (trec_eval)",
    params=(
        Param(
            "recall",
            None,
            "recall level r in [0, 1] (written after @: IPrec@0.5); it is reached at the floor(r |R| + 0.9)-th "
            "relevant item (trec_eval 9, pytrec_eval, ir_measures)",
            kind="unit",
        ),
        rel_param(),
        JUDGED_ONLY,
    ),
    perfect_is_one=True,
    nothing_relevant="relevant",
    trec_eval_cut="iprec_at_recall",
    ir_measures="IPrec",
    family=("iprec_at_recall", tuple(i / 10 for i in range(11))),
    example="0.66667",
    example_why="recall 0.5 of |R| = 3: the floor(1.5 + 0.9) = 2nd hit (rank 3) on: 2/3",
    sql_data_args=("n_rel",),
    table_column=False,
    order=300,
    extra={"at": "recall", "example_args": "0.5"},
)


def recall_cut(recall: float, n_rel: np.ndarray) -> np.ndarray:
    """The number of relevant items that reaches ``recall``: floor(r |R| + 0.9), as trec_eval 9 computes it."""
    return np.floor(recall * n_rel + 0.9)


def segment_max(group: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Largest value per unit (0 where a unit has none); ``group`` must be sorted, as ranked elements are."""
    out = np.zeros(n)
    if len(group):
        starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
        out[group[starts]] = np.maximum.reduceat(values, starts)
    return out


def compute(prep, *, recall, rel):
    hits = prep.hits(rel)
    found = prep.cumsum_in_list(hits)  # j: hits at or above each rank
    n_rel = prep.n_relevant(rel)
    keep = (hits > 0) & (found >= recall_cut(recall, n_rel)[prep.group])
    values = segment_max(prep.group[keep], found[keep] / prep.pos[keep], prep.n)
    return values, n_rel == 0


def portable(t, *, recall, rel):
    """IPrec@r as one aggregate: the largest j / p_j over the hits j >= floor(r |R| + 0.9), 0 without one.

    j is a running count of hits along the ranking, |R| a count over the unit (a window); ``recall_cut``'s rule.
    """
    found, n_rel = t.running_count(t.hit(rel)), t.unit_count(t.hit(rel))
    cut = t.floor(f"{t.num(recall)} * {t.as_float(n_rel)} + {t.num(0.9)}")
    best = t.largest(t.ratio(found, t.pos), f"{t.retrieved} AND {t.hit(rel)} AND {found} >= {cut}")
    return f"COALESCE({best}, {t.num(0)})"
