"""The output of a comparison from its statistics: per-query codes, the notes, the pairs, the result frame.

Shared by the pandas/DuckDB face (:mod:`rankframe.compare`) and Spark (:mod:`rankframe.spark.compare`): both
reach the same (segment, metric x pair) statistics and build the same frame here, dtypes and notes included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .. import stats
from ..core.errors import ValidationError
from ..display import EFFECT_SIZE, MDE
from ..stats.align import misaligned_rule

NOTE_SYSTEM_ABSENT = "system has no queries in this segment"
NOTE_BASELINE_ABSENT = "baseline has no queries in this segment"
NOTE_NO_QUERY = "no query compared"
NOTE_ONE_QUERY = "only 1 query: no test, interval or effect size (n < 2)"
NOTE_ALL_ZERO = "identical on every query (all differences 0): no p-value"
NOTE_ALL_ZERO_TUKEY = "identical on every query (all differences 0): no effect size"
NOTE_CONSTANT = "every difference is the same (sd = 0)"


def per_query_codes(per: pd.DataFrame, by: list[str], query: str, system: str, names: list[str]):
    """Integer codes of the per-query frame: segment, row (segment, query), metric, system."""
    n = len(per)
    if by:
        grouped = per.groupby(by, sort=True, dropna=False, observed=True)
        seg = grouped.ngroup().to_numpy(np.int64)
        seg_keys = grouped.size().index.to_frame(index=False)
    else:
        seg = np.zeros(n, dtype=np.int64)
        seg_keys = pd.DataFrame(index=range(1))
    q_codes, q_uniques = pd.factorize(per[query], sort=True, use_na_sentinel=False)
    n_q = len(q_uniques)
    n_seg = len(seg_keys)
    key = seg * n_q + q_codes
    if n_seg * n_q <= 8 * n + 1_000_000:  # dense marks: O(segments x queries), no sort
        mark = np.zeros(n_seg * n_q, dtype=bool)
        mark[key] = True
        row_of_key = np.cumsum(mark) - 1
        row = row_of_key[key]
        row_key = np.flatnonzero(mark)
    else:
        row_key, row = np.unique(key, return_inverse=True)
    row_seg, row_q = np.divmod(row_key, n_q)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(row_seg, minlength=n_seg))])
    m_raw, m_uniques = pd.factorize(per["metric"])
    m_codes = pd.Index(names).get_indexer(m_uniques).astype(np.int64)[m_raw]
    s_codes, s_uniques = pd.factorize(per[system], sort=True)
    return seg_keys, offsets, row.astype(np.int64), row_q, q_uniques, m_codes, s_codes.astype(np.int64), s_uniques


def misaligned_error(
    alignment: stats.Alignment,
    seg_keys: pd.DataFrame,
    by: list[str],
    row_seg: np.ndarray,
    row_q: np.ndarray,
    q_uniques,
    names: list[str],
    s_uniques,
    query: str,
    system: str,
) -> ValidationError:
    """The error of misaligned queries (``missing='error'``), with the first few of them."""
    rows, metric, sysc = alignment.misaligned
    take = slice(0, 5)
    ex = seg_keys.iloc[row_seg[rows[take]]].reset_index(drop=True) if by else pd.DataFrame(index=range(len(rows[take])))
    ex[query] = np.asarray(q_uniques)[row_q[rows[take]]]
    ex["metric"] = np.asarray(names, dtype=object)[metric[take]]
    ex[f"{system} without a value"] = np.asarray(s_uniques)[sysc[take]]
    n_queries = len(np.unique(rows))
    rule = misaligned_rule(n_queries)
    return ValidationError([{"column": system, "rule": rule, "count": len(rows), "examples": ex}])


def family_groups(out: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, str]:
    """The correction family of each output row, and the family in words (``out.attrs['family']``)."""
    if not cols:
        return np.zeros(len(out), dtype=np.int64), f"all {len(out)} comparisons of the call"
    groups = out.groupby(cols, sort=False, dropna=False, observed=True).ngroup().to_numpy(np.int64)
    count = int(groups.max()) + 1 if len(groups) else 0
    return groups, f"per {', '.join(cols)} ({count} {'family' if count == 1 else 'families'})"


def pair_indices(n_systems: int, baseline_at: int | list[int] | None, pairs: str) -> np.ndarray:
    """(system, baseline) index pairs: each system against the baseline (first system when None), or all pairs.

    Several baselines (a list of positions, ``pairs="baseline"``): each one's pairs in turn, in the order given,
    without the earlier baselines (two baselines are compared once, the later one against the earlier).
    """
    if isinstance(baseline_at, list):
        if len(baseline_at) > 1:
            blocks = [pair_indices(n_systems, b, pairs) for b in baseline_at]
            return np.concatenate(
                [block[~np.isin(block[:, 0], baseline_at[:k])] for k, block in enumerate(blocks)]
            ).reshape(-1, 2)
        baseline_at = baseline_at[0]
    order = list(range(n_systems))
    if baseline_at is not None:
        order = [baseline_at] + [i for i in order if i != baseline_at]
    if pairs == "baseline":
        return np.array([(j, order[0]) for j in order[1:]], dtype=np.int64).reshape(-1, 2)
    return np.array(
        [(order[j], order[i]) for i in range(n_systems) for j in range(i + 1, n_systems)], dtype=np.int64
    ).reshape(-1, 2)


def mde_column(n: np.ndarray, sd: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """The ``mde`` column of compare: the |delta| a paired t-test at level ``1 - ci`` detects with 80% power.

    Uncorrected, on the call's ``alternative``; NaN where ``n < 2`` (or sd is NaN). With a margin it is the
    distance above ``-margin`` that the non-inferiority test detects with 80% power.
    """
    mde = np.full(n.shape, np.nan)
    ok = (n >= 2) & np.isfinite(sd)
    if ok.any():
        dz = stats.mde_dz(n[ok], 1.0 - p["ci"], stats.MDE_POWER, p.get("alternative", "two-sided"))
        mde[ok] = dz * sd[ok]
    return mde.ravel()


def adjusted(
    pvalue: np.ndarray,
    groups: np.ndarray,
    summary: stats.PairedSummary,
    low: np.ndarray,
    high: np.ndarray,
    p: dict[str, Any],
    resampled: Callable[[np.ndarray], stats.WestfallYoungResult] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``p_adjusted`` and the interval that agrees with it, ``[ci_low_adjusted, ci_high_adjusted]`` (decision 0017).

    No correction: the interval of ``ci_low``/``ci_high`` itself. Otherwise the paired t form ``delta -+ q * sd /
    sqrt(n)`` (one-sided: the one bound) whatever the ``ci_method``: ``q`` the t quantile at the level of
    :func:`rankframe.stats.adjusted_alpha` (Bonferroni and Holm: ``alpha / m``; BH: ``R * alpha / m``), or the
    family's max-|t| critical value after Westfall-Young.
    """
    from scipy import stats as sstats

    correction, alternative = p["correction"], p.get("alternative", "two-sided")
    if correction is None:
        return pvalue.copy(), low.ravel().copy(), high.ravel().copy()
    n = summary.n.ravel().astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(n >= 2, summary.sd.ravel() / np.sqrt(n), np.nan)
    if correction == "westfall-young":
        if resampled is None:
            raise ValueError("correction='westfall-young' needs the resampled statistics (resampled=)")
        wy = resampled(np.where(np.isnan(pvalue), -1, groups).reshape(summary.n.shape))
        p_adj = np.where(np.isnan(pvalue), np.nan, wy.p_adjusted.ravel())
        q = wy.critical.ravel()
    else:
        p_adj = stats.adjust(pvalue, correction, groups)
        a = stats.adjusted_alpha(pvalue, correction, 1.0 - p["ci"], groups)
        q = sstats.t.ppf(1.0 - a / 2.0 if alternative == "two-sided" else 1.0 - a, n - 1.0)
    delta = summary.delta.ravel()
    with np.errstate(invalid="ignore"):
        half = np.where(se == 0, 0.0, q * se)  # sd = 0: a zero-width interval, as ci_low/ci_high
    lo = np.where(np.isnan(se), np.nan, delta - half)
    hi = np.where(np.isnan(se), np.nan, delta + half)
    if alternative == "greater":
        hi = np.where(np.isnan(se), np.nan, np.inf)
    elif alternative == "less":
        lo = np.where(np.isnan(se), np.nan, -np.inf)
    return p_adj, lo, hi


def effect_columns(
    out: pd.DataFrame,
    summary: stats.PairedSummary,
    p: dict[str, Any],
    hl: stats.HodgesLehmannResult | None,
    few: np.ndarray,
) -> pd.DataFrame:
    """``hedges_gz`` with its interval (every test) and ``hl_estimate``/``hl_low``/``hl_high`` (Wilcoxon rows).

    NaN where fewer than 2 queries are compared (and, for g_z, fewer than 3: :mod:`rankframe.stats.effect_size`).
    """
    alternative = p.get("alternative", "two-sided")
    g = stats.hedges_gz(summary.n, summary.delta, summary.sd, p["ci"], alternative)
    nan = np.full(summary.n.shape, np.nan)
    hl_cols = (hl.estimate, hl.ci_low, hl.ci_high) if hl is not None else (nan, nan, nan)
    names = ("hedges_gz", "hedges_gz_low", "hedges_gz_high", "hl_estimate", "hl_low", "hl_high")
    for name, arr in zip(names, (g.estimate, g.ci_low, g.ci_high, *hl_cols), strict=True):
        out[name] = np.where(few, np.nan, arr).ravel()
    return out


def wins_ties_losses(summary: stats.PairedSummary, names: list[str], n_pairs: int) -> tuple[Any, Any, Any]:
    """Compare's ``wins``, ``ties``, ``losses``: the queries where the system is better / equal / worse.

    ``summary`` counts the queries above / equal to / below the baseline (equal by the one rule,
    :func:`rankframe.stats.equal`); the metric's direction (:func:`rankframe.direction`) says which is a win: above
    where higher is better, below where lower is better; a metric without a direction has no wins or losses (NA,
    the nullable ``Int64`` columns), only ties.
    """
    from ..measures.better import of_labels

    way = np.tile(np.repeat(of_labels(names), n_pairs), summary.n.shape[0])
    above, below = summary.wins.ravel(), summary.losses.ravel()
    wins = np.where(way > 0, above, below)
    losses = np.where(way > 0, below, above)
    none = way == 0

    def counts(v: np.ndarray) -> Any:
        return pd.arrays.IntegerArray(np.where(none, 0, v).astype(np.int64), none)

    return counts(wins), summary.ties.ravel().astype(np.int64), counts(losses)


def result_frame(
    seg_keys: pd.DataFrame | None,
    names: list[str],
    labels: pd.Index,
    pair_idx: np.ndarray,
    summary: stats.PairedSummary,
    pvalue: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    present: np.ndarray,
    p: dict[str, Any],
    *,
    statistic: np.ndarray,
    df: np.ndarray,
    test: str,
    ci_method: str,
    baseline: object,
    resampled: Callable[[np.ndarray], stats.WestfallYoungResult] | None = None,
    filled: np.ndarray | None = None,
    dropped: np.ndarray | None = None,
    hl: stats.HodgesLehmannResult | None = None,
) -> pd.DataFrame:
    """Compare's output frame from the (segment, metric x pair) statistics: notes, NaNs, correction, columns.

    Shared by the pandas/DuckDB face and rankframe.spark.compare, so both give the same frame, dtypes included.
    ``seg_keys`` holds the segment columns (one row per segment, None without segments), ``present`` which
    systems have queries in each segment (segments x systems); ``statistic`` and ``df`` are the test's statistic and
    degrees of freedom (NaN where a test has none), with ``pvalue`` the test's (segment, metric x pair) arrays.
    ``resampled`` runs the Westfall-Young adjustment for the family codes it is given (segments x columns, -1 off
    every family): needed with ``correction="westfall-young"`` only. ``filled`` / ``dropped`` (segment, metric x
    pair) count what ``missing="zero"`` / ``"drop"`` did to each row's queries (0 when not given). ``hl``: the
    Hodges-Lehmann estimate and interval (after ``test="wilcoxon"``; NaN columns without it).
    """
    n_seg, n_metrics, n_pairs = present.shape[0], len(names), len(pair_idx)
    n = summary.n
    pvalue, low, high = pvalue.copy(), low.copy(), high.copy()
    statistic, df = np.array(statistic, dtype=np.float64), np.array(df, dtype=np.float64)
    effect = summary.effect_size
    note = np.full(n.shape, None, dtype=object)
    margin = p.get("margin")
    all_zero = (n >= 2) & (summary.ties == n)  # every pair equal by the one rule (stats.equal)
    if margin:  # identical systems are non-inferior: t = margin / 0 = +inf, p = 0 (ttest_1samp); sd = 0 says so
        all_zero = np.zeros_like(all_zero)
    constant = (n >= 2) & ~all_zero & (summary.sd == 0)
    note[constant] = NOTE_CONSTANT
    if test == "tukey":  # Tukey's p-value of an identical pair is 1 (q = 0), not NaN: only the effect size is NaN
        note[all_zero] = NOTE_ALL_ZERO_TUKEY
    else:
        note[all_zero] = NOTE_ALL_ZERO
        pvalue[all_zero] = np.nan
        statistic[all_zero] = np.nan
    note[n == 1] = NOTE_ONE_QUERY
    note[n == 0] = NOTE_NO_QUERY
    sys_absent = ~present[:, pair_idx[:, 0]]
    base_absent = ~present[:, pair_idx[:, 1]]
    note3 = note.reshape(n_seg, n_metrics, n_pairs)
    note3[np.broadcast_to(base_absent[:, None, :], note3.shape)] = NOTE_BASELINE_ABSENT
    note3[np.broadcast_to(sys_absent[:, None, :], note3.shape)] = NOTE_SYSTEM_ABSENT
    few = n < 2
    for arr in (pvalue, effect, low, high, statistic, df):
        arr[few] = np.nan

    seg_rep = np.repeat(np.arange(n_seg), n_metrics * n_pairs)
    if seg_keys is not None:
        out = seg_keys.iloc[seg_rep].reset_index(drop=True)
    else:
        out = pd.DataFrame(index=range(len(seg_rep)))
    out["metric"] = np.tile(np.repeat(np.asarray(names, dtype=object), n_pairs), n_seg)
    out["system"] = labels.take(np.tile(pair_idx[:, 0], n_seg * n_metrics))
    out["baseline"] = labels.take(np.tile(pair_idx[:, 1], n_seg * n_metrics))
    out["n"] = n.ravel().astype(np.int64)
    out["mean"] = summary.mean_x.ravel()
    out["baseline_mean"] = summary.mean_y.ravel()
    out["delta"] = summary.delta.ravel()
    out["ci_low"] = low.ravel()
    out["ci_high"] = high.ravel()
    out["p_value"] = pvalue.ravel()
    groups, family_text = family_groups(out, p["family"])
    out["p_adjusted"], out["ci_low_adjusted"], out["ci_high_adjusted"] = adjusted(
        out["p_value"].to_numpy(), groups, summary, low, high, p, resampled
    )
    out["statistic"] = statistic.ravel()
    out["df"] = df.ravel()
    out["sd_diff"] = np.where(few, np.nan, summary.sd).ravel()
    out["effect_size"] = effect.ravel()
    out = effect_columns(out, summary, p, hl, few)
    out["mde"] = mde_column(n, summary.sd, p)
    out["wins"], out["ties"], out["losses"] = wins_ties_losses(summary, names, n_pairs)
    zeros = np.zeros(n.shape, dtype=np.int64)
    out["n_filled"] = (zeros if filled is None else filled).ravel().astype(np.int64)
    out["n_dropped"] = (zeros if dropped is None else dropped).ravel().astype(np.int64)
    out["note"] = pd.Series(note.ravel(), dtype=object)  # None where nothing is NaN, whatever pandas infers
    out.attrs.update(
        test=test,
        ci_method=ci_method,
        ci=p["ci"],
        correction=p["correction"],
        family=family_text,
        pairs=p["pairs"],
        baseline=baseline,
        missing=p["missing"],
        alternative=p.get("alternative", "two-sided"),
        margin=margin,
        effect_size=EFFECT_SIZE,
        mde=MDE,
    )
    return out
