"""IDCG@k: DCG@k of the ideal ordering of the judged (or the retrieved) items."""

from __future__ import annotations

import numpy as np

from ..core.declare import GAIN, GAINS, IDEAL_DCG, LOG_BASE, MetricSpec, k_param, rel_param
from ..tables.prepare import discount, gain_of, positive_value_codes, sorted_desc_in_unit, unit_value_counts

SPEC = MetricSpec(
    name="idcg",
    canonical="IDCG",
    better=None,
    better_why="the ideal list's DCG: a normaliser set by the judgments, not by the ranking",
    aliases=("idcg",),
    summary="DCG of the ideal ordering",
    params=(
        k_param(),
        rel_param(None),
        GAIN,
        IDEAL_DCG,
        LOG_BASE,
        GAINS,
    ),
    bounded=False,
    binary=False,
    example="3.13093",
    example_why="2 + 1/log2(3) + 1/log2(4)",
    sql_data_args=("judged_grades",),
    sql_table_params=(("rel", "graded_rel"),),
    order=70,
)


def compute(prep, *, k, rel, gain, ideal, log_base, gains):
    return idcg(prep, k, rel, gain, ideal, log_base, gains), None


def _ideal_values(prep, gains_of, ideal):
    """(unit code, gains_of(grade)) of the rows an ideal list is made of: every judged row, or the retrieved ones.

    The judged rows of grade 0 are kept as counts (``prep.n_judged_zero``, they are most rows) and join the list
    only when their value is positive (a gain map such as ``gains={0: 1}``): the ideal list holds every judged row
    whose *gain* is positive, whatever its grade (the SQL macros and trec_eval on the mapped grades agree).
    """
    if ideal == "retrieved":
        return prep.group, gains_of(prep.grade)
    group, values = prep.judged_group, gains_of(prep.judged_grade)
    zero = float(gains_of(np.zeros(1))[0])
    if zero > 0:
        group = np.concatenate([group, np.repeat(np.arange(prep.n, dtype=group.dtype), prep.n_judged_zero)])
        values = np.concatenate([values, np.full(int(prep.n_judged_zero.sum()), zero)])
    return group, values


def ideal_lists(prep, gains_of, ideal, key):
    """(unit, value, position) of each unit's ideal list of ``gains_of(grades)``, best first (memoised by key)."""

    def make():
        return sorted_desc_in_unit(*_ideal_values(prep, gains_of, ideal), prep.n)

    return prep.memo(("ideal", ideal, *key), make)


def ideal_counts(prep, gains_of, ideal, key):
    """(the distinct positive gains largest first, an (n, distinct) matrix of how many each unit has) or None.

    When the gains take few distinct values (grades 1..3), each unit's ideal list is those values in runs, and the
    counts say everything about it (memoised by key; None when the values are too many for a matrix).
    """

    def make():
        g, _, codes, distinct = positive_value_codes(*_ideal_values(prep, gains_of, ideal))
        counts = unit_value_counts(g, codes, prep.n, len(distinct))
        return None if counts is None else (distinct, counts)

    return prep.memo(("ideal_counts", ideal, *key), make)


#: the largest cutoff computed position by position from the gain counts (beyond it: the laid-out ideal lists)
_COUNTS_CUTOFF = 64


def _idcg_from_counts(distinct, counts, k, log_base):
    """IDCG@k from runs of equal gains, without laying out the ideal lists.

    Position i of a unit's ideal list holds the gain of the first run that ends at or after i; the terms are
    added position by position (k vectorised steps over all units, not a loop over queries), in the same order
    as a sum along each list, so the result is bit-for-bit that of the lists (and of the SQL macros).
    """
    end = np.cumsum(counts, axis=1)
    gains_by_run = np.append(distinct, 0.0)  # run index m: past the end of the list
    total = np.zeros(len(counts))
    weights = discount(np.arange(1, k + 1, dtype=np.float64), log_base)
    for i in range(1, k + 1):
        run = np.count_nonzero(end < i, axis=1)
        total += gains_by_run[run] * weights[i - 1]
    return total


def _fill(prep, gains_of, ideal, key, k, log_base):
    """``ideal='full'``: the DCG of the positions L+1..k filling a judged ideal list of L < k gains.

    Each holds the list's last (smallest) gain (RecTools: binary gains, k relevant items); 0 for every other ideal,
    or k None.
    """
    if ideal != "full" or k is None:
        return 0.0
    g, v, pos = ideal_lists(prep, gains_of, ideal, key)
    length = np.bincount(g, minlength=prep.n)
    last = np.zeros(prep.n)
    ends = pos == length[g]
    last[g[ends]] = v[ends]
    # the discounts of positions L+1..k, summed from position k down: tail[L] = sum_{i=L+1..k} 1/log_b(i+1)
    weights = discount(np.arange(1, k + 1, dtype=np.float64), log_base)
    tail = np.append(np.cumsum(weights[::-1])[::-1], 0.0)
    return np.where(length < k, last * tail[np.minimum(length, k)], 0.0)


def _gains(rel, gain, gains):
    """The gain function of IDCG's options and its memo key."""
    return (lambda grades: gain_of(grades, gain, rel, gains)), ("gain", gain, rel, gains)


def has_ideal_gain(prep, rel, gain, ideal, gains=None):
    """Whether each unit's ideal list has any positive gain (IDCG without a cutoff > 0), from the counts if any."""
    gains_of, key = _gains(rel, gain, gains)
    found = ideal_counts(prep, gains_of, ideal, key)
    if found is not None:
        return found[1].sum(axis=1) > 0
    return idcg(prep, None, rel, gain, ideal, 2.0, gains) > 0


def idcg(prep, k, rel, gain, ideal, log_base=2.0, gains=None):
    """IDCG@k per unit (shared with nDCG); ``ideal='full'``: plus :func:`_fill`."""

    def make():
        gains_of, key = _gains(rel, gain, gains)
        if k is not None and k <= _COUNTS_CUTOFF:
            found = ideal_counts(prep, gains_of, ideal, key)
            if found is not None:
                return _idcg_from_counts(*found, k, log_base) + _fill(prep, gains_of, ideal, key, k, log_base)
        g, v, pos = ideal_lists(prep, gains_of, ideal, key)
        keep = slice(None) if k is None else pos <= k
        best = np.bincount(g[keep], weights=(v * discount(pos, log_base))[keep], minlength=prep.n)
        return best + _fill(prep, gains_of, ideal, key, k, log_base)

    return prep.memo(("idcg", k, rel, gain, ideal, log_base, gains), make)


def portable(t, *, k, rel, gain, ideal, log_base, gains):
    """IDCG@k as one aggregate over the ideal ordering (a window over the unit)."""
    return t.idcg(k, rel, gain, ideal, log_base, gains)
