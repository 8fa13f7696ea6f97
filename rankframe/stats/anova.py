"""The omnibus two-way (system x query) ANOVA and the split-plot system x segment interaction test.

Within one segment and metric the per-query values ``x[i, j]`` (query ``i``, system ``j = 1..s``) form a randomized
complete block design (queries are blocks, systems are treatments, one value per cell: the model of
:func:`rankframe.stats.tukey.blocked_anova`, whose residual sum of squares is reused here). When the queries are
split into ``g`` *groups* by a between-query factor (query length, country, ...: every query in one group) and
every system runs every query, the design is a split plot: groups are the whole-plot factor, queries are nested in
groups, systems are the split-plot factor. With ``N`` queries, ``n_h`` of them in group ``h``, ``m[h, j]`` the mean
of system ``j`` over group ``h``, ``M[j]`` its mean over all ``N`` queries and ``G`` the grand mean:

- ``SS_system = N * sum_j (M[j] - G)**2``, ``df = s - 1``;
- ``SS_interaction = sum_h n_h * sum_j (m[h, j] - mean_j m[h, j] - M[j] + G)**2``, ``df = (s - 1)(g - 1)``;
- ``SS_error = sum_h SS_residual(h)`` (the blocked ANOVA's residual within each group: system x query(group)),
  ``df_error = (s - 1)(N - g)``; ``MSE = SS_error / df_error``;
- ``F = (SS / df) / MSE``, ``p = P(F_{df, df_error} >= F)``, partial eta squared ``SS / (SS + SS_error)``.

The same sums fit the linear mixed model with random query effects, ``value ~ system (+ group + system:group) +
(1 | query)`` (queries random, nested in groups; ``u_i ~ N(0, var_query)``, errors ``N(0, var_error)``), by REML in
closed form, because every design here is balanced and complete (every system on every query of its group: what
the alignment guarantees). The fixed effects are the system (x group) means, their F tests the ANOVA's above, and
with the query (within group) sum of squares ``SS_query = s * sum_i (q_i - q_h(i))**2`` (``q_i`` the mean of query
``i`` over the systems, ``q_h`` of its group; ``df_query = N - g``, ``MS_query = SS_query / df_query``, whose
expectation is ``var_error + s * var_query``):

- ``var_query = (MS_query - MSE) / s`` and ``var_error = MSE`` when ``MS_query >= MSE``;
- otherwise REML's boundary: ``var_query = 0`` and ``var_error = (SS_query + SS_error) / (df_query + df_error)``
  (the restricted likelihood is maximised at ``var_query = 0``, where both sums estimate ``var_error``);
- ``icc = var_query / (var_query + var_error)``, the share of the variance that is the queries' (NaN when both are 0).

(Searle, Casella & McCulloch, *Variance Components*, 1992, ch. 4 and 6: the balanced one-way classification and
its REML estimates; statsmodels' iterative ``mixedlm(..., groups=query).fit(reml=True)`` reaches the same values,
which the tests hold them to.) An unbalanced design (queries missing for some systems) has no closed form: it would
need the iterative REML fit, which rankframe does not do (``missing=`` makes every design balanced first).

With one group (``g = 1``) this is the two-way ANOVA without replication: ``df_error = (s - 1)(N - 1)``, the F of
statsmodels' ``AnovaRM(..., within=["system"])``. ``SS_interaction`` is the drop in residual sum of squares from
``ols("v ~ C(query) + C(system)")`` to ``ols("v ~ C(query) + C(system) + C(system):C(group)")`` (statsmodels
``anova_lm`` of the two models; a one-model type I table of ``C(system) * C(group) + C(query)`` is rank-deficient,
groups being sums of queries, and gives other, wrong, sums): the tests hold both to statsmodels.

Degenerate cells are NaN with a reason, never an error: fewer than 2 systems, fewer than 2 queries (no error df),
a system absent from a group (the interaction needs every system in every group), no residual variation (``MSE =
0``: ``F = inf`` and ``p = 0`` when the systems differ, NaN when every value is the same). References: D. C.
Montgomery, *Design and Analysis of Experiments*, the randomized complete block and split-plot designs;
T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 3-4 (the two-way ANOVA without
replication, and its ``MSE`` as the standardiser of the effect size ``delta / sqrt(MSE)``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._segments import check_offsets, segment_sum
from .tukey import BlockedAnova, blocked_anova

#: the relative size of a residual sum of squares taken as 0 (float noise of an exactly additive table)
ZERO_SS = 1e-24

NOTE_FEW_SYSTEMS = "fewer than 2 systems: no test"
NOTE_FEW_QUERIES = "fewer than 2 queries: no error degrees of freedom"
NOTE_NO_GROUPS = "fewer than 2 groups: no interaction"
NOTE_SYSTEM_NOT_IN_GROUP = "a system has no queries in some group: the interaction needs every system in every group"
NOTE_NO_ERROR = "no residual variation (MSE = 0)"
NOTE_ALL_EQUAL = "every system has the same value on every query: no test"


@dataclass(frozen=True)
class AnovaResult:
    """Per (segment, block column) arrays; the terms ``system`` and ``interaction`` share the error term.

    ``n``: queries, ``s``: systems, ``g``: groups with a query; ``ss_*``/``df_*``: sums of squares and degrees of
    freedom; ``f_*``/``p_*``: F and its upper tail; ``mse``; ``note_*``: why a term is NaN (None otherwise);
    ``var_query``, ``var_error``, ``icc``: the REML variance components of the random query effect model (module
    docstring), NaN where the system term is.
    """

    n: np.ndarray
    s: np.ndarray
    g: np.ndarray
    means: np.ndarray  # (segments, blocks, systems): M[j], NaN for a system absent from the segment
    ss_system: np.ndarray
    df_system: np.ndarray
    f_system: np.ndarray
    p_system: np.ndarray
    ss_interaction: np.ndarray
    df_interaction: np.ndarray
    f_interaction: np.ndarray
    p_interaction: np.ndarray
    ss_error: np.ndarray
    df_error: np.ndarray
    mse: np.ndarray
    note_system: np.ndarray
    note_interaction: np.ndarray
    var_query: np.ndarray
    var_error: np.ndarray
    icc: np.ndarray


def split_plot_anova(values: np.ndarray, offsets: np.ndarray, group_offsets: np.ndarray | None = None) -> AnovaResult:
    """The ANOVA of the module docstring for aligned ``values`` of shape (n_rows, n_blocks, n_systems).

    ``group_offsets`` splits the rows into groups (rows ``group_offsets[h]:group_offsets[h + 1]``) that nest in the
    segments of ``offsets`` (every segment boundary is a group boundary); None: one group per segment (the two-way
    ANOVA without replication, no interaction). ``values`` must be aligned within each group
    (:func:`rankframe.stats.align` over the groups' offsets).

    Examples
    --------
    >>> import numpy as np
    >>> # 3 queries x 2 systems: system means 0.3, 0.5; grand 0.4; SS_system = 3 * (0.1**2 + 0.1**2) = 0.06
    >>> v = np.array([[0.1, 0.2], [0.5, 0.6], [0.3, 0.7]])[:, None, :]
    >>> r = split_plot_anova(v, np.array([0, 3]))
    >>> round(float(r.ss_system[0, 0]), 12), int(r.df_error[0, 0])
    (0.06, 2)
    """
    values = np.asarray(values, dtype=np.float64)
    offsets = check_offsets(offsets, values.shape[0])
    groups = offsets if group_offsets is None else check_offsets(group_offsets, values.shape[0])
    if not np.isin(offsets, groups).all():
        raise ValueError("every segment boundary must be a group boundary (groups nest in segments)")
    # the segment of each group, and the blocked ANOVA (means, residual SS) of each group
    seg_of_group = np.searchsorted(offsets, groups[:-1], side="right") - 1
    return split_plot_from_cells(blocked_anova(values, groups), seg_of_group, offsets.size - 1)


def split_plot_from_cells(cell: BlockedAnova, seg_of_group: np.ndarray, n_segments: int) -> AnovaResult:
    """The split-plot terms from each group's blocked ANOVA (its ``n``, ``means``, ``mse`` and ``df``).

    ``seg_of_group``: the segment of each group (non-decreasing). What every engine shares: numpy computes the
    cells from the values (:func:`blocked_anova`), Spark from sufficient statistics (:func:`blocked_anova_from_sums`).
    """
    n_h = cell.n.astype(np.float64)
    ss_res = np.where(cell.df >= 1, cell.mse * cell.df, 0.0)  # 0 queries, 1 query or 1 system: residual 0
    has = ~np.isnan(cell.means)  # (groups, blocks, systems)
    used = n_h > 0
    g_off = np.concatenate([[0], np.cumsum(np.bincount(seg_of_group, minlength=n_segments))])

    n = segment_sum(n_h, g_off)
    g = segment_sum(used, g_off)
    in_seg = segment_sum(has & used[:, :, None], g_off)  # groups where each system has queries
    s = (in_seg > 0).sum(axis=2)
    complete = ((in_seg == 0) | (in_seg == g[:, :, None])).all(axis=2)  # every system in every group, or in none
    sums = segment_sum(np.where(has, cell.means * n_h[:, :, None], 0.0), g_off)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(in_seg > 0, sums / n[:, :, None], np.nan)  # M[j]
        grand = _nanmean(np.where(in_seg > 0, means, np.nan))
        ss_system = n * np.nansum((means - grand[:, :, None]) ** 2, axis=2)
        row = _nanmean(np.where(has, cell.means, np.nan))  # mean_j m[h, j]
        inter = cell.means - row[:, :, None] - means[seg_of_group] + grand[seg_of_group][:, :, None]
        ss_interaction = segment_sum(np.where(has, n_h[:, :, None] * inter * inter, 0.0).sum(axis=2), g_off)
    ss_error = segment_sum(ss_res, g_off)
    ss_query = segment_sum(np.where(used, cell.ss_rows, 0.0), g_off)
    df_system = s - 1.0
    df_interaction = (s - 1.0) * (g - 1.0)
    df_error = (s - 1.0) * (n - g)
    scale = segment_sum((np.where(has, cell.means, 0.0) ** 2 * n_h[:, :, None]).sum(axis=2), g_off)
    ss_error = np.where(ss_error <= ZERO_SS * scale, 0.0, ss_error)
    ss_system = np.where(ss_system <= ZERO_SS * scale, 0.0, ss_system)
    ss_interaction = np.where(ss_interaction <= ZERO_SS * scale, 0.0, ss_interaction)
    ss_query = np.where(ss_query <= ZERO_SS * scale, 0.0, ss_query)
    with np.errstate(divide="ignore", invalid="ignore"):
        mse = np.where(df_error >= 1, ss_error / df_error, np.nan)
    var_query, var_error, icc = random_query_components(ss_query, n - g, ss_error, df_error, s)

    note_system = np.full(n.shape, None, dtype=object)
    note_system[ss_error == 0] = NOTE_NO_ERROR
    note_system[(ss_error == 0) & (ss_system == 0) & (ss_interaction == 0)] = NOTE_ALL_EQUAL
    note_system[~complete] = NOTE_SYSTEM_NOT_IN_GROUP
    note_system[n - g < 1] = NOTE_FEW_QUERIES
    note_system[s < 2] = NOTE_FEW_SYSTEMS
    note_interaction = note_system.copy()
    note_interaction[(g < 2) & (s >= 2)] = NOTE_NO_GROUPS
    ok = (s >= 2) & (n - g >= 1) & complete
    f_system, p_system = _f_test(ss_system, df_system, ss_error, df_error, ok)
    f_interaction, p_interaction = _f_test(ss_interaction, df_interaction, ss_error, df_error, ok & (g >= 2))
    nan_df = ~ok
    return AnovaResult(
        n=n.astype(np.int64),
        s=s.astype(np.int64),
        g=g.astype(np.int64),
        means=means,
        ss_system=np.where(nan_df, np.nan, ss_system),
        df_system=np.where(s >= 2, df_system, np.nan),
        f_system=f_system,
        p_system=p_system,
        ss_interaction=np.where(nan_df | (g < 2), np.nan, ss_interaction),
        df_interaction=np.where((s >= 2) & (g >= 2), df_interaction, np.nan),
        f_interaction=f_interaction,
        p_interaction=p_interaction,
        ss_error=np.where(nan_df, np.nan, ss_error),
        df_error=np.where(ok, df_error, np.nan),
        mse=np.where(ok, mse, np.nan),
        note_system=note_system,
        note_interaction=note_interaction,
        var_query=np.where(ok, var_query, np.nan),
        var_error=np.where(ok, var_error, np.nan),
        icc=np.where(ok, icc, np.nan),
    )


def random_query_components(
    ss_query: np.ndarray, df_query: np.ndarray, ss_error: np.ndarray, df_error: np.ndarray, s: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """REML's ``(var_query, var_error, icc)`` of a balanced design with random queries (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> # MS_query = 6 / 3 = 2, MSE = 1.5 / 3 = 0.5, s = 2 systems: var_query = (2 - 0.5) / 2 = 0.75, icc = 0.6
    >>> [float(a) for a in random_query_components(np.array(6.0), np.array(3.0), np.array(1.5), np.array(3.0), 2)]
    [0.75, 0.5, 0.6]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ms_query = ss_query / df_query
        mse = ss_error / df_error
        interior = ms_query >= mse
        var_query = np.where(interior, (ms_query - mse) / s, 0.0)
        var_error = np.where(interior, mse, (ss_query + ss_error) / (df_query + df_error))
        total = var_query + var_error
        icc = np.where(total > 0, var_query / total, np.nan)
    return var_query, var_error, icc


def _nanmean(a: np.ndarray) -> np.ndarray:
    """The mean over the last axis of the non-NaN values; NaN (no warning) where there is none."""
    count = (~np.isnan(a)).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, np.nansum(a, axis=-1) / count, np.nan)


def _f_test(ss: np.ndarray, df: np.ndarray, ss_error: np.ndarray, df_error: np.ndarray, ok: np.ndarray):
    """F and its upper tail where ``ok``; ``MSE = 0``: F = inf and p = 0 when ``ss > 0``, NaN when ``ss = 0``."""
    from scipy import special

    f = np.full(ss.shape, np.nan)
    p = np.full(ss.shape, np.nan)
    finite = ok & (ss_error > 0)
    f[finite] = (ss[finite] / df[finite]) / (ss_error[finite] / df_error[finite])
    p[finite] = special.fdtrc(df[finite], df_error[finite], f[finite])
    exact = ok & (ss_error == 0) & (ss > 0)
    f[exact], p[exact] = np.inf, 0.0
    return f, p


def effect_sizes(result: AnovaResult, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sakai's standardised mean difference per (segment, block, pair): ``delta / sqrt(MSE)``.

    ``delta = M[a] - M[b]`` for each ``(a, b)`` of ``pairs``, ``MSE`` the error mean square of the ANOVA (Sakai,
    "Topic set size design", Information Retrieval Journal 19, 2016, and *Laboratory Experiments in Information
    Retrieval*, 2018, ch. 5: the effect size of a pair after a two-way ANOVA without replication). Returns
    ``(delta, effect)``; NaN where the MSE is NaN or 0.
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    delta = result.means[:, :, pairs[:, 0]] - result.means[:, :, pairs[:, 1]]
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.where(result.mse > 0, result.mse, np.nan))
        return delta, delta / sd[:, :, None]


def effect_size_interval(result: AnovaResult, effect: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The noncentral-t interval at ``level`` of Sakai's effect size ``delta / sqrt(MSE)`` (:func:`effect_sizes`).

    The pair's t statistic after the ANOVA is ``t = delta / sqrt(2 MSE / n) = effect * sqrt(n / 2)`` on the error
    degrees of freedom; its noncentrality is ``sqrt(n / 2)`` times the true effect, so inverting the noncentral t
    distribution at ``(1 + level) / 2`` and ``(1 - level) / 2`` and dividing by ``sqrt(n / 2)`` bounds the effect
    (the interval of Hedges' g_z in :mod:`rankframe.stats.effect_size`, with the ANOVA's pooled error). NaN where
    the effect or the error df is.
    """
    from .effect_size import noncentrality

    shape = effect.shape
    n = np.broadcast_to(result.n[:, :, None].astype(np.float64), shape)
    nu = np.broadcast_to(result.df_error[:, :, None], shape)
    scale = np.sqrt(n / 2.0)
    t = effect * scale
    low, high = np.full(shape, np.nan), np.full(shape, np.nan)
    ok = np.isfinite(t) & np.isfinite(nu) & (nu >= 1)
    if ok.any():
        tail = (1.0 - level) / 2.0
        low[ok] = noncentrality(nu[ok], 1.0 - tail, t[ok]) / scale[ok]
        high[ok] = noncentrality(nu[ok], tail, t[ok]) / scale[ok]
    return low, high
