"""Agreement between coders as numpy kernels over segments: Cohen's kappa (two coders) and Krippendorff's alpha.

No pandas here: the caller (:mod:`rankframe.agreement`) gives integer codes (segment, label index, unit, query) and
gets one value per segment; every segment is computed at once (``np.bincount`` over segment codes), never a loop per
segment or per resample.

**Cohen's kappa** (scikit-learn's ``cohen_kappa_score``): on a scale of ``L`` labels (index ``0..L-1``) with
disagreement weights ``w(i, j)`` (``1 - [i == j]`` unweighted, ``|i - j|`` linear, ``(i - j)**2`` quadratic),
``kappa = 1 - n * sum_u w(a_u, b_u) / sum_ij r_i c_j w(i, j)`` where ``r`` and ``c`` are the label counts of the
two coders and ``n`` the number of units. The expected term needs only the marginals (``segments x L``), never an
``L x L`` matrix per segment: unweighted ``n**2 - sum_i r_i c_i``; quadratic ``n sum r_i i**2 + n sum c_j j**2 -
2 (sum r_i i)(sum c_j j)``; linear through prefix sums of ``r`` and ``r i``. A zero expected term (chance
agreement 1) gives NaN (scikit-learn's ``replace_undefined_by=np.nan``).

**Krippendorff's alpha** (the ``krippendorff`` package's ``alpha``, coincidence-matrix form): over the pairable
units (2 values or more), ``alpha = 1 - (n - 1) sum_u [sum over ordered pairs of values of u of delta] / (m_u - 1)
/ sum_ck n_c n_k delta(c, k)``, with ``n_c`` the number of pairable values equal to ``c`` and ``n`` their total.
The observed sum runs over the pairs of distinct values within each unit (weighted by their counts), the expected
sum over the pairs of distinct values of each segment (``sum_s V_s**2`` pairs: small for grades; a continuous value
with many distinct values per segment costs that many pairs), with the closed forms of nominal and interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: ``weights=`` of Cohen's kappa (None: unweighted), scikit-learn's words
WEIGHTS = ("linear", "quadratic")
#: ``level=`` of Krippendorff's alpha, the ``krippendorff`` package's ``level_of_measurement``
LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class KappaCounts:
    """The sufficient statistics of kappa per segment (leading axes: segments, or resamples x segments).

    ``n`` units, ``equal`` units with equal labels, ``disagree`` = ``sum_u w(a_u, b_u)``, ``r`` / ``c`` the label
    counts (``..., L``) of the first and the second coder.
    """

    n: np.ndarray
    equal: np.ndarray
    disagree: np.ndarray
    r: np.ndarray
    c: np.ndarray


def pair_weight(i: np.ndarray, j: np.ndarray, weights: str | None) -> np.ndarray:
    """The disagreement weight of each pair of label indices (scikit-learn's ``w_mat``)."""
    d = np.abs(i.astype(np.int64) - j.astype(np.int64)).astype(np.float64)
    if weights is None:
        return (d != 0).astype(np.float64)
    return d if weights == "linear" else d * d


def kappa_counts(
    group: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    n_groups: int,
    n_labels: int,
    weights: str | None,
    count: np.ndarray | None = None,
) -> KappaCounts:
    """:class:`KappaCounts` of every group (``group`` codes ``0..n_groups-1``) from the label indices ``i``, ``j``.

    ``count``: how many units each row stands for (a contingency cell); one each when None.
    """
    ones = np.ones(group.size) if count is None else np.asarray(count, dtype=np.float64)
    r = np.bincount(group * n_labels + i, weights=ones, minlength=n_groups * n_labels).reshape(n_groups, n_labels)
    c = np.bincount(group * n_labels + j, weights=ones, minlength=n_groups * n_labels).reshape(n_groups, n_labels)
    return KappaCounts(
        n=np.bincount(group, weights=ones, minlength=n_groups),
        equal=np.bincount(group, weights=ones * (i == j), minlength=n_groups),
        disagree=np.bincount(group, weights=ones * pair_weight(i, j, weights), minlength=n_groups),
        r=r,
        c=c,
    )


def expected_disagreement(r: np.ndarray, c: np.ndarray, weights: str | None) -> np.ndarray:
    """``sum_ij r_i c_j w(i, j)`` over the last axis (module docstring): no ``L x L`` matrix."""
    n_r, n_c = r.sum(axis=-1), c.sum(axis=-1)
    idx = np.arange(r.shape[-1], dtype=np.float64)
    if weights is None:
        return n_r * n_c - (r * c).sum(axis=-1)
    if weights == "quadratic":
        return n_c * (r * idx**2).sum(axis=-1) + n_r * (c * idx**2).sum(axis=-1) - 2 * (r @ idx) * (c @ idx)
    # linear: sum_j c_j [sum_{i<j} r_i (j - i) + sum_{i>j} r_i (i - j)] from the prefix sums R(j) and RI(j) of r and r*i
    R, RI = np.cumsum(r, axis=-1), np.cumsum(r * idx, axis=-1)
    R_tot, RI_tot = R[..., -1:], RI[..., -1:]
    below = idx * (R - r) - (RI - r * idx)  # i < j
    above = (RI_tot - RI) - idx * (R_tot - R)  # i > j
    return (c * (below + above)).sum(axis=-1)


def kappa(counts: KappaCounts, weights: str | None) -> np.ndarray:
    """Cohen's kappa per segment: ``1 - n * disagree / expected``; NaN where ``expected`` is 0 or ``n`` is 0."""
    expected = expected_disagreement(counts.r, counts.c, weights)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 1.0 - counts.n * counts.disagree / expected
    return np.where((expected > 0) & (counts.n > 0), out, np.nan)


def bootstrap_kappa(
    seg: np.ndarray,
    query: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    n_seg: int,
    n_labels: int,
    weights: str | None,
    level: float,
    n_resamples: int,
    rng: np.random.Generator,
    chunk_elements: int = 1 << 21,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of kappa per segment, resampling queries (every unit of a query moves together).

    ``query`` codes are distinct across segments (one code per (segment, query)). Each resample draws, in each
    segment, as many queries as it has, with replacement (``np.bincount`` of the draws gives each query's multiplicity
    per resample); one sparse product of those multiplicities with the queries' sufficient statistics (units, equal,
    disagreement, label counts), each in its segment's block, sums them per (resample, segment). The resamples go in
    chunks of at most ``chunk_elements`` drawn queries and sums (a bounded loop over chunks, never one per resample).
    Resamples whose kappa is undefined are left out of the quantiles; segments with fewer than 2 queries get NaN.
    Returns ``(low, high, undefined)``: the bounds and the number of undefined resamples per segment.
    """
    n_q = int(query.max()) + 1 if query.size else 0
    per_q = kappa_counts(query, i, j, n_q, n_labels, weights)
    q_seg = np.zeros(n_q, dtype=np.int64)
    q_seg[query] = seg
    q_per_seg = np.bincount(q_seg, minlength=n_seg)
    start = np.concatenate([[0], np.cumsum(q_per_seg)[:-1]])  # queries are numbered segment by segment
    stats = np.column_stack([per_q.n, per_q.equal, per_q.disagree, per_q.r, per_q.c])
    from scipy import sparse

    L, K = n_labels, stats.shape[1]
    # the statistics of each query in its segment's block: (segments * K) x queries, one nonzero per query and K
    blocks = sparse.csr_matrix(
        (stats.ravel(), ((q_seg[:, None] * K + np.arange(K)).ravel(), np.repeat(np.arange(n_q), K))),
        shape=(n_seg * K, n_q),
    )
    got = np.empty((n_resamples, n_seg))
    # a chunk holds at most chunk_elements drawn queries and chunk_elements summed statistics (resamples x segments x
    # (3 + 2 L)): memory stays bounded whatever the number of queries, segments or labels
    step = max(1, min(chunk_elements // max(n_q, 1), chunk_elements // (n_seg * K)))
    for a in range(0, n_resamples, step):  # bounded: about n_resamples * max(n_q, segments * (3 + 2 L)) / chunk
        m = min(step, n_resamples - a)
        seg_of_draw = np.tile(q_seg, m)
        drawn = start[seg_of_draw] + rng.integers(0, q_per_seg[seg_of_draw])
        # the multiplicity of each query in each resample, then every segment's sums in one sparse product
        times = np.bincount(np.repeat(np.arange(m) * n_q, n_q) + drawn, minlength=m * n_q).reshape(m, n_q)
        sums = np.asarray(blocks @ times.T.astype(np.float64)).T.reshape(m, n_seg, K)
        got[a : a + m] = kappa(
            KappaCounts(sums[..., 0], sums[..., 1], sums[..., 2], sums[..., 3 : 3 + L], sums[..., 3 + L :]), weights
        )
    undefined = np.isnan(got).sum(axis=0)
    low = np.full(n_seg, np.nan)
    high = np.full(n_seg, np.nan)
    ok = (q_per_seg >= 2) & (undefined < n_resamples)
    if ok.any():
        with np.errstate(invalid="ignore"):
            q = np.nanquantile(got[:, ok], [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=0)
        low[ok], high[ok] = q[0], q[1]
    return low, high, undefined


def _pairs(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair (p, q) of positions within each group of ``offsets`` (groups of d: d**2 pairs)."""
    sizes = np.diff(offsets)
    per = sizes * sizes
    group = np.repeat(np.arange(sizes.size), per)
    k = np.arange(per.sum()) - np.repeat(np.cumsum(per) - per, per)
    d = sizes[group]
    return offsets[group] + k // d, offsets[group] + k % d


def _delta(level: str, v1: np.ndarray, v2: np.ndarray, between: np.ndarray | None) -> np.ndarray:
    """The ``krippendorff`` package's distance of two values (``between``: ordinal's ``sum n_g``, v1 to v2, less half).

    ``between`` is the sum of the counts of the values from v1 to v2 minus half the counts of v1 and v2.
    """
    if level == "nominal":
        return (v1 != v2).astype(np.float64)
    if level == "interval":
        return (v1 - v2) ** 2
    if level == "ratio":
        s = v1 + v2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(s != 0, (v1 - v2) / np.where(s != 0, s, 1.0), 0.0) ** 2
    assert between is not None
    return between**2


def krippendorff_alpha(
    seg: np.ndarray, unit: np.ndarray, value: np.ndarray, n_seg: int, level: str
) -> tuple[np.ndarray, np.ndarray]:
    """``(n, alpha)`` per segment: pairable units and Krippendorff's alpha (NaN when undefined).

    ``unit`` codes are distinct across segments; ``value`` holds no NaN (missing values are left out before).
    """
    # the distinct (segment, unit, value) cells with their counts, sorted: one row per value a unit holds
    vals, vcode = np.unique(value, return_inverse=True)
    n_units = int(unit.max()) + 1 if unit.size else 0
    unit_seg = np.zeros(n_units, dtype=np.int64)
    unit_seg[unit] = seg
    m_u = np.bincount(unit, minlength=n_units)
    pairable = m_u >= 2
    keep = pairable[unit]
    key, cnt = np.unique(unit[keep].astype(np.int64) * vals.size + vcode[keep], return_counts=True)
    cu, cv = key // vals.size, key % vals.size
    cnt = cnt.astype(np.float64)
    n = np.bincount(unit_seg[pairable], minlength=n_seg)
    # n_c per segment: the pairable values' counts (segment x value, as cells of a sparse grid)
    sv_key, sv_inv = np.unique(unit_seg[cu] * vals.size + cv, return_inverse=True)
    n_c = np.bincount(sv_inv, weights=cnt)
    s_of, v_of = sv_key // vals.size, sv_key % vals.size  # sorted by segment, then value
    s_off = np.concatenate([[0], np.cumsum(np.bincount(s_of, minlength=n_seg))])
    n_tot: np.ndarray = np.bincount(s_of, weights=n_c, minlength=n_seg)
    cum = np.cumsum(n_c)
    # observed: ordered pairs of a unit's distinct values, weighted by their counts, / (m_u - 1)
    u_off = np.concatenate([[0], np.cumsum(np.bincount(cu, minlength=n_units))])
    p, q = _pairs(u_off)
    between = None
    if level == "ordinal":  # the cells of a segment are sorted by value: n_g summed over the index range
        pos = np.searchsorted(sv_key, unit_seg[cu] * vals.size + cv)
        lo, hi = np.minimum(pos[p], pos[q]), np.maximum(pos[p], pos[q])
        between = cum[hi] - cum[lo] + n_c[lo] - (n_c[pos[p]] + n_c[pos[q]]) / 2.0
    obs = cnt[p] * cnt[q] * _delta(level, vals[cv[p]], vals[cv[q]], between) / (m_u[cu[p]] - 1.0)
    observed = np.bincount(unit_seg[cu[p]], weights=obs, minlength=n_seg)
    # expected: ordered pairs of a segment's distinct values, n_c n_k delta
    expected: np.ndarray
    if level == "nominal":
        expected = n_tot.astype(np.float64) ** 2 - np.bincount(s_of, weights=n_c**2, minlength=n_seg)
    elif level == "interval":
        x = vals[v_of]
        s1 = np.bincount(s_of, weights=n_c * x, minlength=n_seg)
        s2 = np.bincount(s_of, weights=n_c * x * x, minlength=n_seg)
        expected = 2.0 * (n_tot * s2 - s1 * s1)
    else:
        a, b = _pairs(s_off)
        between = None
        if level == "ordinal":
            first, last = np.minimum(a, b), np.maximum(a, b)
            between = cum[last] - cum[first] + n_c[first] - (n_c[a] + n_c[b]) / 2.0
        e = n_c[a] * n_c[b] * _delta(level, vals[v_of[a]], vals[v_of[b]], between)
        expected = np.bincount(s_of[a], weights=e, minlength=n_seg)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1.0 - (n_tot - 1.0) * observed / expected
    return n, np.where((expected > 0) & (n > 0), alpha, np.nan)
