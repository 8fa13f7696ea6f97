"""``rankframe.segment_means``: the mean of each segment with an interval, and its difference to another segment.

Segments hold different queries, so a difference between segments is **unpaired**: its interval comes from
resampling each segment's queries independently (bootstrap), or from Welch's t. The per-query values come from
:func:`rankframe.evaluate` (``per_query=True``); the intervals are :mod:`rankframe.stats` kernels over every segment
and metric at once (the bootstrap draws are the paired bootstrap's: one stream per segment).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

import numpy as np
import pandas as pd

from . import stats
from .beyond import arguments as beyond_arguments
from .core import progress as progress_
from .core.columns import Columns, column_list
from .core.errors import ParameterError, parameter_error
from .evaluate import evaluate, parse_metrics
from .measures.arguments import check_level
from .measures.names import Measure
from .stats.bootstrap import (
    bca_levels,
    bias_correction,
    jackknife_terms,
    quantile_at,
    resampled_means,
)
from .stats.randomization import N_RESAMPLES, call_seed, check_n_resamples, check_seed, seed_sequence
from .tables import inputs

if TYPE_CHECKING:
    from .evaluate import Engine
    from .tables.inputs import Output

#: the interval methods of segment_means: compare's (``ci_method=``) that apply to one sample and to two
SegmentCiMethod = Literal["t", "bootstrap", "bca"]
SEGMENT_CI_METHODS: tuple[SegmentCiMethod, ...] = get_args(SegmentCiMethod)
#: the output columns after the segment columns
SEGMENT_COLUMNS = ("metric", "value", "n", "ci_low", "ci_high", "delta", "delta_low", "delta_high")


def segment_means(
    df: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    by: str | Sequence[str],
    versus: Any = None,
    ci: float = 0.95,
    ci_method: SegmentCiMethod = "bootstrap",
    n_resamples: int = N_RESAMPLES,
    seed: int | None = None,
    columns: Columns | dict | None = None,
    qrels: Any = None,
    engine: Engine = "pandas",
    output: Output = "pandas",
    progress: bool | None = None,
    **options: Any,
) -> Any:
    """The mean of every segment and metric with its interval, and optionally its difference to another segment.

    Parameters
    ----------
    df : table
        The long ranking table, any kind :func:`rankframe.evaluate` takes.
    metrics : str or list of str
        Metric names, as for :func:`rankframe.evaluate`.
    by : str or list of str
        The segment columns (e.g. ``["system", "length"]``).
    versus : dict or scalar, optional
        The reference segment of the differences: ``{column: value}`` over some of the ``by`` columns (a bare value
        when ``by`` is one column). Each segment is compared with the segment that has the same values in the other
        ``by`` columns and ``value`` in these: ``by=["system", "length"], versus={"length": "short"}`` gives, per
        system, long minus short. ``delta = value - value of the reference``; the reference rows themselves, and
        segments without a reference, have NaN. A null value names the segment of null values:
        ``versus={"length": None}`` (``versus=None`` itself means no reference).
    ci : float, default 0.95
        Level of the intervals ``[ci_low, ci_high]`` (of the mean) and ``[delta_low, delta_high]``.
    ci_method : {"bootstrap", "bca", "t"}, default "bootstrap"
        ``"bootstrap"``: percentile bootstrap, ``n_resamples`` resamples of each segment's queries with replacement
        (for a difference: the two segments resampled independently, the quantiles of the difference of the
        resampled means); ``"bca"``: the bias-corrected and accelerated interval from the same resamples (for a
        difference the jackknife runs over both segments, as ``scipy.stats.bootstrap``); ``"t"``: the t interval of
        the mean (= ``evaluate(..., ci=)``) and Welch's interval of a difference.
    n_resamples : int, default 10000
        Bootstrap resamples per segment.
    seed : int, optional
        Seed of the draws; ``None`` draws fresh entropy, recorded in ``out.attrs["seed"]``.
    columns, qrels, engine, output, progress, **options
        As for :func:`rankframe.evaluate` (``no_relevant``, ``validate``, ...).

    Returns
    -------
    DataFrame
        ``[*by, metric, value, n, ci_low, ci_high, delta, delta_low, delta_high]``: one row per segment and metric
        (``n`` queries with a value); the ``delta*`` columns are NaN without ``versus``. ``out.attrs`` records
        ``ci``, ``ci_method``, ``versus`` and, for the bootstrap, ``n_resamples`` and ``seed``. NaN where a
        segment has fewer than 2 queries.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"query": [1, 2, 3, 4], "item": ["a"] * 4, "rank": [1] * 4, "relevance": [1, 0, 1, 1],
    ...                    "group": ["x", "x", "y", "y"]})
    >>> out = segment_means(df, "P@1", by="group", versus="x", ci_method="t")
    >>> out[["group", "metric", "value", "n", "delta"]]   # x: P@1 = 1, 0; y: 1, 1
      group metric  value  n  delta
    0     x    P@1    0.5  2    NaN
    1     y    P@1    1.0  2    0.5
    """
    by = column_list(by, "segment_means")
    if not by:
        raise ParameterError(
            "segment_means needs by= naming the segment columns (e.g. by='length')",
            owner="segment_means",
            parameter="by",
        )
    clash = [c for c in by if c in (*SEGMENT_COLUMNS, "query")]
    if clash:
        raise ParameterError(
            f"the segment column {clash[0]!r} has the name of an output column of segment_means "
            f"{list(SEGMENT_COLUMNS)}; rename it first, e.g. df.rename(columns={{{clash[0]!r}: '{clash[0]}_'}})",
            owner="segment_means",
            parameter="by",
            got=clash[0],
        )
    ref = _check_versus(versus, by)
    check_level("segment_means", ci)
    if not isinstance(ci_method, str) or ci_method.lower() not in SEGMENT_CI_METHODS:
        raise parameter_error(
            "segment_means", "ci_method", "one of " + ", ".join(map(repr, SEGMENT_CI_METHODS)), ci_method
        )
    ci_method = cast("SegmentCiMethod", ci_method.lower())
    n_resamples = check_n_resamples(n_resamples, "segment_means")
    seed = check_seed(seed, "segment_means")
    output = inputs.check_output(output, "segment_means")
    measures = parse_metrics(metrics, "segment_means")
    names = [str(m) for m in measures]
    sets = [m for m in measures if beyond_arguments.is_set_level(m)]
    if sets and ci_method != "bootstrap":
        raise ParameterError(
            f"{', '.join(map(str, sets))}: a set-level metric has one value per segment and no per-query values, so "
            f"no mean and sd for ci_method='t' and no jackknife over queries for 'bca'; its interval is a bootstrap "
            "over the segment's queries: use ci_method='bootstrap' (the default), or ask for it in a separate call",
            owner="segment_means",
            parameter="ci_method",
            expected="'bootstrap' with a set-level metric",
            got=ci_method,
        )
    with progress_.using(progress):
        parts = []
        per_list = [n for n, m in zip(names, measures, strict=True) if m not in sets]
        if per_list:
            per = evaluate(df, per_list, by=by, per_query=True, columns=columns, qrels=qrels, engine=engine, **options)
            parts.append(
                _segment_intervals(
                    per, per_list, by, Columns.coerce(columns).query, ref, float(ci), ci_method, n_resamples, seed
                )
            )
            seed = parts[0].attrs.get("seed", seed)
        if sets:
            seed = call_seed(seed)
            parts.append(
                _set_level_rows(df, sets, by, Columns.coerce(columns), ref, float(ci), n_resamples, seed, options)
            )
        out = parts[0] if len(parts) == 1 else _in_order(pd.concat(parts, ignore_index=True), by, names, parts[0].attrs)
    return inputs.from_pandas(out, output)


def _in_order(out: pd.DataFrame, by: list[str], names: list[str], attrs: Any) -> pd.DataFrame:
    """The rows of both parts by segment (sorted, nulls last), then metric in the order asked."""
    keys = pd.DataFrame({"s": out.groupby(by, sort=True, dropna=False, observed=True).ngroup().to_numpy()})
    keys["m"] = out["metric"].map({n: i for i, n in enumerate(names)}).to_numpy()
    order = keys.sort_values(["s", "m"], kind="stable").index.to_numpy()
    out = out.iloc[order].reset_index(drop=True)
    out.attrs = dict(attrs)
    return out


def _set_level_rows(
    df: Any,
    sets: list[Measure],
    by: list[str],
    columns: Columns,
    ref: dict[str, Any] | None,
    ci: float,
    n_resamples: int,
    seed: int,
    options: dict[str, Any],
) -> pd.DataFrame:
    """The set-level metrics' rows: evaluate's bootstrap over each segment's queries, each segment on its own.

    ``[ci_low, ci_high]`` is evaluate's ``ci=`` interval (:func:`rankframe.engines.beyond_bootstrap.interval`);
    the difference to the ``versus`` segment is unpaired (segments are resampled independently, as the means'
    bootstrap), its interval the same function on the differences of the two segments' draws.
    """
    from .beyond.declare import BeyondSpec
    from .engines import beyond_bootstrap as boot
    from .tables.schema import validate as validate_table

    frame = inputs.to_pandas(df, owner="segment_means", name="df", columns=columns)
    if options.get("validate", True):
        validate_table(
            frame, columns, by=by, allow_duplicates=options.get("allow_duplicates", False), require_relevance=False
        )
    given = {k: options.get(k) for k in ("train", "catalog", "features")}
    given = beyond_arguments.check_arguments(sets, per_query=False, ci=ci, agg="mean", **given)
    seg_keys, n, got = boot.segment_draws(
        frame, sets, columns, by, n_resamples=n_resamples, seed=seed, owner="segment_means", **given
    )
    partner = _partners(seg_keys, by, ref)
    has = partner >= 0
    frames = []
    for m in sets:
        r = got[str(m)]
        bounded = isinstance(m.spec, BeyondSpec) and m.spec.is_bounded(m.kw)
        low, high = boot.interval(r.draws, r.estimate, ci, bounds=(0.0, 1.0) if bounded else None)
        delta, d_low, d_high = (np.full(len(n), np.nan) for _ in range(3))
        if has.any():
            delta[has] = r.estimate[has] - r.estimate[partner[has]]
            d_low[has], d_high[has] = boot.interval(r.draws[:, has] - r.draws[:, partner[has]], delta[has], ci)
        few = (n < 2) | (np.append(n, 0)[np.where(has, partner, -1)] < 2)  # no partner: index -1, the appended 0
        frames.append(
            seg_keys.assign(
                metric=str(m),
                value=r.estimate,
                n=n,
                ci_low=np.where(n < 2, np.nan, low),
                ci_high=np.where(n < 2, np.nan, high),
                delta=np.where(n < 2, np.nan, delta),
                delta_low=np.where(few, np.nan, d_low),
                delta_high=np.where(few, np.nan, d_high),
            )
        )
    out = _in_order(pd.concat(frames, ignore_index=True), by, [str(m) for m in sets], {})
    out.attrs.update(ci=ci, ci_method="bootstrap", versus=ref, n_resamples=n_resamples, seed=seed)
    return out


def _check_versus(versus: Any, by: list[str]) -> dict[str, Any] | None:
    """``versus`` as ``{column: value}`` over ``by`` columns, or None."""
    if versus is None:
        return None
    if not isinstance(versus, dict):
        if len(by) != 1:
            raise parameter_error(
                "segment_means", "versus", f"a dict {{column: value}} over the by columns {by} (by has several)", versus
            )
        return {by[0]: versus}
    bad = [c for c in versus if c not in by]
    if not versus or bad:
        raise parameter_error(
            "segment_means", "versus", f"a non-empty dict whose keys are among the by columns {by}", versus
        )
    return dict(versus)


def _segment_intervals(
    per: pd.DataFrame,
    names: list[str],
    by: list[str],
    query: str,
    ref: dict[str, Any] | None,
    ci: float,
    ci_method: str,
    n_resamples: int,
    seed: int | None,
) -> pd.DataFrame:
    """Everything after evaluation: the segmented layout, the intervals of the means and of the differences."""
    grouped = per.groupby(by, sort=True, dropna=False, observed=True)
    seg = grouped.ngroup().to_numpy(np.int64)
    seg_keys = grouped.size().index.to_frame(index=False)
    n_seg, n_m = len(seg_keys), len(names)
    q_codes, q_uniques = pd.factorize(per[query], sort=True, use_na_sentinel=False)
    row_key, row = np.unique(seg * len(q_uniques) + q_codes, return_inverse=True)
    m_codes = pd.Index(names).get_indexer(pd.Index(per["metric"]))
    x = np.full((row_key.size, n_m), np.nan)
    x[row, m_codes] = per["value"].to_numpy(np.float64)
    offsets = np.concatenate([[0], np.cumsum(np.bincount(row_key // len(q_uniques), minlength=n_seg))])
    zero = np.zeros_like(x)
    summary = stats.summarize(x, zero, offsets)
    attrs: dict[str, Any] = dict(ci=ci, ci_method=ci_method, versus=ref)
    partner = _partners(seg_keys, by, ref)
    nan = np.full((n_seg, n_m), np.nan)
    d_low, d_high = nan.copy(), nan.copy()
    if ci_method == "t":
        tt = stats.ttest(summary, ci)
        low, high = tt.ci_low, tt.ci_high
        if ref is not None:
            d_low, d_high = _welch(summary, partner, ci)
    else:
        seed = call_seed(seed)
        attrs.update(n_resamples=n_resamples, seed=seed)
        with progress_.bar("segment_means: bootstrap", unit="resamples"):
            boot = stats.bootstrap_ci(x, zero, offsets, ci, n_resamples, seed, method=_METHOD[ci_method])
            low, high = boot.ci_low, boot.ci_high
            if ref is not None:
                d_low, d_high = _bootstrap_difference(x, offsets, partner, ci, ci_method, n_resamples, seed)
    mean = np.where(summary.n >= 1, summary.mean_x, np.nan)
    delta = np.full((n_seg, n_m), np.nan)
    has = partner >= 0
    delta[has] = mean[has] - mean[partner[has]]
    rows = np.repeat(np.arange(n_seg), n_m)
    out = seg_keys.iloc[rows].reset_index(drop=True)
    out["metric"] = np.tile(np.asarray(names, dtype=object), n_seg)
    out["value"] = mean.ravel()
    out["n"] = summary.n.ravel().astype(np.int64)
    for name, arr in zip(SEGMENT_COLUMNS[3:], (low, high, delta, d_low, d_high), strict=True):
        out[name] = np.where(summary.n < 2, np.nan, arr).ravel()
    out.attrs.update(attrs)
    return out


_METHOD = {"bootstrap": "percentile", "bca": "bca"}


def _partners(seg_keys: pd.DataFrame, by: list[str], ref: dict[str, Any] | None) -> np.ndarray:
    """The reference segment of each segment (-1: none, or the segment is a reference itself)."""
    n_seg = len(seg_keys)
    if ref is None:
        return np.full(n_seg, -1, dtype=np.int64)
    target = seg_keys.copy()
    for c, v in ref.items():
        target[c] = v
    lookup = pd.MultiIndex.from_frame(seg_keys.astype(object))
    found = lookup.get_indexer(pd.MultiIndex.from_frame(target.astype(object)))
    # a null value names the segment of null values (versus={"length": None}): None, NaN and pd.NA alike
    is_ref = np.all(
        [
            seg_keys[c].isna().to_numpy() if _null(v) else seg_keys[c].astype(object).to_numpy() == v
            for c, v in ref.items()
        ],
        axis=0,
    )
    if not is_ref.any():
        shown = {c: list(pd.unique(seg_keys[c]))[:10] for c in ref}
        raise ParameterError(
            f"versus={ref!r} names no segment of the table; the segments' values are {shown}",
            owner="segment_means",
            parameter="versus",
            got=ref,
        )
    return np.where(is_ref, -1, found).astype(np.int64)


def _null(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list or an array is no null
        return False


def _welch(summary: stats.PairedSummary, partner: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """Welch's interval of ``mean_s - mean_partner`` (``scipy.stats.ttest_ind(equal_var=False)``'s)."""
    from scipy import stats as sstats

    low = np.full(summary.n.shape, np.nan)
    high = low.copy()
    s = np.flatnonzero(partner >= 0)
    p = partner[s]
    n1, n2 = summary.n[s].astype(np.float64), summary.n[p].astype(np.float64)
    v1, v2 = summary.sd[s] ** 2 / n1, summary.sd[p] ** 2 / n2
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (v1 + v2) ** 2 / (v1**2 / (n1 - 1.0) + v2**2 / (n2 - 1.0))
        half = sstats.t.ppf(0.5 + ci / 2.0, df) * np.sqrt(v1 + v2)
    delta = summary.mean_x[s] - summary.mean_x[p]
    low[s] = np.where(np.isfinite(half), delta - half, np.where(v1 + v2 == 0, delta, np.nan))
    high[s] = np.where(np.isfinite(half), delta + half, np.where(v1 + v2 == 0, delta, np.nan))
    return low, high


def _bootstrap_difference(
    x: np.ndarray,
    offsets: np.ndarray,
    partner: np.ndarray,
    ci: float,
    ci_method: str,
    n_resamples: int,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Unpaired bootstrap interval of ``mean_s - mean_partner``, every metric at once.

    Each segment's own resampled means (the draws of :func:`rankframe.stats.bootstrap.resampled_means`, the same as
    the intervals of the means), differenced.

    Memory: the resampled means of every segment and metric (``segments x metrics x n_resamples`` floats).
    """
    n_seg, n_m = partner.size, x.shape[1]
    means = np.full((n_seg, n_resamples, n_m), np.nan)
    theta = np.full((n_seg, n_m), np.nan)
    cube = np.full((n_seg, n_m), np.nan)
    square = np.full((n_seg, n_m), np.nan)
    size = np.zeros((n_seg, n_m))
    for s, cols, sample, m in resampled_means(x, offsets, n_resamples, seed_sequence(seed)):
        means[s][:, cols] = m
        n = sample.shape[0]
        theta[s, cols] = np.ones(n) @ sample / n
        cube[s, cols], square[s, cols] = jackknife_terms(sample)
        size[s, cols] = n
    low = np.full((n_seg, n_m), np.nan)
    high = low.copy()
    a = (1.0 - ci) / 2.0
    for seg in np.flatnonzero(partner >= 0).tolist():  # a loop over segments (as the bootstrap's); every metric at once
        p = int(partner[seg])
        ok = ~np.isnan(theta[seg]) & ~np.isnan(theta[p])
        if not ok.any():
            continue
        diff = means[seg][:, ok] - means[p][:, ok]
        if ci_method == "bca":  # scipy.stats.bootstrap's jackknife over both samples: sum_j sum_i U_ji^k / n_j^k
            n1, n2 = size[seg, ok], size[p, ok]
            num = cube[seg, ok] * (n1 - 1) ** 3 / n1**3 - cube[p, ok] * (n2 - 1) ** 3 / n2**3
            den = square[seg, ok] * (n1 - 1) ** 2 / n1**2 + square[p, ok] * (n2 - 1) ** 2 / n2**2
            with np.errstate(divide="ignore", invalid="ignore"):
                accel = num / (6.0 * den**1.5)
            accel = np.where(np.isfinite(accel), accel, 0.0)
            z0 = bias_correction(diff, theta[seg, ok] - theta[p, ok])
            lev_low, lev_high = bca_levels(z0, accel, ci, "two-sided")
        else:
            lev_low, lev_high = np.full(ok.sum(), a), np.full(ok.sum(), 1.0 - a)
        low[seg, ok], high[seg, ok] = quantile_at(diff, lev_low), quantile_at(diff, lev_high)
    return low, high
