"""A bootstrap over queries for the set-level beyond-accuracy metrics: evaluate's ``ci=`` and compare's paired test.

A set-level metric (Coverage, Gini, Entropy, Personalization; ARP, APLT, Novelty with ``aggregate='rows'``) has one
value per segment, computed from all its lists. Its uncertainty is that of the sample of queries: a resample draws
the segment's n queries with replacement (the stream and the draws of :mod:`rankframe.stats.bootstrap`: child s of
``SeedSequence(seed, spawn_key=(0xB007,))`` for segment s, :func:`~rankframe.stats.bootstrap.draw_counts`), and the
metric is recomputed on the resampled lists, a list drawn twice counting as two lists (as if its query were
renamed per copy: Personalization's two copies form a pair of similarity 1). No list is copied: every set-level
kernel reads the multiplicities ``w_q^b`` as weights (:attr:`rankframe.beyond.lists.Lists.weights`), so the
weighted item counts ``c_i^b = sum_q w_q^b c_{q,i}`` of a chunk of resamples are one sparse matrix product, and
the point estimate is the same code with every weight 1.

For compare, the resampled unit is the query of the segment (``by``): the same draws for every system of the
segment (the pairing kept), a query a system has no list for adding nothing to that system's value. The
resamples are drawn in chunks of :data:`CHUNK_ELEMENTS` weights; the loop is over chunks and segments, never over
queries or resamples.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..beyond.declare import BeyondSpec
from ..beyond.lists import Lists
from ..core import progress
from ..core.columns import Columns
from ..measures.names import Measure
from ..measures.registry import BEYOND_KERNELS
from ..stats.bootstrap import draw_counts, segment_generators
from .beyond_engine import lists_of

#: weights (resamples x units) per chunk: 32 MB of float64
CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class Resampled:
    """The set-level values of the lists' segments: the estimate (segments,) and the resamples (B, segments)."""

    estimate: np.ndarray
    draws: np.ndarray


def resample(
    lists: Lists,
    measures: Sequence[Measure],
    group_of_unit: np.ndarray,
    query_of_unit: np.ndarray,
    n_groups: int,
    n_resamples: int,
    root: np.random.SeedSequence,
) -> dict[str, Resampled]:
    """Every set-level measure's estimate and ``n_resamples`` bootstrap values, per segment of ``lists``.

    The resampling groups (``group_of_unit``: segment ``s`` of the draws) hold queries (``query_of_unit``: the
    code of the query id in sorted order, the same for the units of one query of a group, e.g. one query under
    several systems); group ``g`` resamples its own n_g queries with the stream of child ``g``: resample b of a
    chunk of c draws ``rng.integers(0, n_g, size=(c, n_g))[b]``, positions into the group's queries sorted by id.
    A group with fewer than 2 queries is not resampled (its units keep weight 1; the caller reports NaN for it).
    """
    key = group_of_unit.astype(np.int64) * (int(query_of_unit.max(initial=0)) + 1) + query_of_unit
    queries, column_of_unit = np.unique(key, return_inverse=True)  # sorted by group, then query: groups contiguous
    n_per_group = np.bincount(queries // (int(query_of_unit.max(initial=0)) + 1), minlength=n_groups)
    starts = np.concatenate(([0], np.cumsum(n_per_group)))
    rngs = segment_generators(root, n_groups)
    out = {str(m): Resampled(_values(lists, m), np.empty((n_resamples, lists.n_segments))) for m in measures}
    step = max(1, CHUNK_ELEMENTS // max(lists.n_units, len(lists.item), len(queries), 1))
    progress.expect(n_resamples)
    for a in range(0, n_resamples, step):
        c = min(step, n_resamples - a)
        counts = np.ones((c, len(queries)))
        for g in np.flatnonzero(n_per_group >= 2):  # a loop over segments; each draws a chunk at once
            counts[:, starts[g] : starts[g + 1]] = draw_counts(rngs[g], int(n_per_group[g]), c)
        weighted = lists.with_weights(counts[:, column_of_unit.ravel()])
        for m in measures:
            out[str(m)].draws[a : a + c] = _values(weighted, m)
        progress.advance(c)
    return out


def _values(lists: Lists, measure: Measure) -> np.ndarray:
    return np.asarray(BEYOND_KERNELS[measure.spec.name](lists, **measure.kw), dtype=np.float64)


def percentile(draws: np.ndarray, level: float, alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of each column of ``draws`` (B, columns): numpy's linear quantiles.

    Resamples where the metric is undefined (NaN: e.g. only lists without a counted row were drawn) are left out,
    as means leave out NaN values; a column without any defined resample is NaN. One-sided: ``[q_(1 - level),
    inf)`` for ``"greater"``, ``(-inf, q_level]`` for ``"less"`` (:func:`rankframe.stats.bootstrap_ci`).
    """
    q = {
        "two-sided": [(1.0 - level) / 2.0, (1.0 + level) / 2.0],
        "greater": [1.0 - level, 1.0],
        "less": [0.0, level],
    }[alternative]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(draws, q, axis=0) if draws.size else np.full((2, draws.shape[1]), np.nan)
    if alternative == "greater":
        high = np.where(np.isnan(low), np.nan, np.inf)
    elif alternative == "less":
        low = np.where(np.isnan(high), np.nan, -np.inf)
    return low, high


def centred(draws: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """The resampled values reflected about their median and set on the estimate: ``u_b = t + (m* - t*_b)``.

    ``draws`` (B, columns) are the resampled values ``t*_b`` of each column, ``estimate`` (columns,) the values
    ``t`` on the sample, ``m*`` the median of the defined draws. A resample holds ~63% of the distinct queries, so
    a set-level value drifts on resamples (Coverage, Entropy down, Personalization up): ``t*_b - m*`` is the
    spread the bootstrap measures, without that drift, and ``t - (t*_b - m*)`` the basic bootstrap's reflection of
    it about the estimate (decision 19). The median of ``u`` is ``t`` itself, so every interval read off ``u`` at a
    level >= 0.5 holds the estimate, and ``u``'s percentile test is the interval's p-value. NaN draws stay NaN.
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        median = np.nanmedian(draws, axis=0) if draws.size else np.full(draws.shape[1:], np.nan)
    return estimate + median - draws


def interval(
    draws: np.ndarray,
    estimate: np.ndarray,
    level: float,
    alternative: str = "two-sided",
    *,
    bounds: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The interval of a set-level value or a paired delta: the percentile interval of :func:`centred` draws.

    ``[t - (q*_hi - m*), t + (m* - q*_lo)]`` with ``q*`` numpy's linear quantiles of the resampled values and
    ``m*`` their median: the basic (reverse-percentile) interval of the resampled values with their median bias
    removed, centred where the estimate is (evaluate's ``ci=`` and compare's rows, one function; decision 19,
    its coverage measured in ``bench/results/set_level_coverage.txt``). ``bounds``: the metric's range, to which
    the interval is clipped (evaluate's values of a metric declared bounded; never a delta).
    """
    low, high = percentile(centred(draws, estimate), level, alternative)
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    return low, high


def quantiles_at(draws: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Numpy's linear quantile of each column of ``draws`` (B, columns) at its own level, NaN draws left out."""
    ordered = np.sort(draws, axis=0)  # NaN last
    n = np.count_nonzero(~np.isnan(draws), axis=0)
    pos = np.clip(levels, 0.0, 1.0) * np.maximum(n - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    at_lo = np.take_along_axis(ordered, lo[None, :], axis=0)[0]
    at_hi = np.take_along_axis(ordered, hi[None, :], axis=0)[0]
    with np.errstate(invalid="ignore"):
        return np.where(n > 0, at_lo + (pos - lo) * (at_hi - at_lo), np.nan)


def pvalue(draws: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """The bootstrap p-value of each column of resampled differences (B, columns): the percentile test.

    ``p = (1 + #{d*_b <= 0}) / (B + 1)`` for ``"greater"`` (the share of resampled differences on the other side
    of 0), ``(1 + #{d*_b >= 0}) / (B + 1)`` for ``"less"``, and twice the smaller of the two, at most 1,
    two-sided: the achieved significance level of the percentile interval (Efron & Tibshirani 1993, section
    15.4: 0 lies outside the interval at level 1 - alpha when p < alpha), with the observed difference counted
    among the resamples as the randomization test counts its own (never 0). NaN resamples are left out; B counts
    the defined ones.
    """
    defined = ~np.isnan(draws)
    b = defined.sum(axis=0)
    below = 1.0 + np.count_nonzero(defined & (draws <= 0), axis=0)
    above = 1.0 + np.count_nonzero(defined & (draws >= 0), axis=0)
    with np.errstate(all="ignore"):
        p = {
            "greater": below / (b + 1.0),
            "less": above / (b + 1.0),
            "two-sided": np.minimum(1.0, 2.0 * np.minimum(below, above) / (b + 1.0)),
        }[alternative]
    return np.where(b > 0, p, np.nan)


def group_codes(keys: pd.DataFrame, by: Sequence[str]) -> np.ndarray:
    """The code of each row's segment of ``by`` (sorted, nulls last, as every segment code): zeros without ``by``."""
    if not by:
        return np.zeros(len(keys), dtype=np.int64)
    return keys.groupby(list(by), sort=True, dropna=False, observed=True).ngroup().to_numpy(np.int64)


def segment_draws(
    df: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
    train: object = None,
    catalog: object = None,
    features: object = None,
    owner: str = "evaluate",
) -> tuple[pd.DataFrame, np.ndarray, dict[str, Resampled]]:
    """Each segment of ``by`` resampled on its own queries: (the segments' keys, their query counts, the draws).

    Segments are resampled independently (segment s from child s of the seed), so the difference of two
    segments' draws is an unpaired bootstrap of their difference (``segment_means``' ``versus=``).
    """
    lists, units, seg_keys = lists_of(
        df, columns, by, train=train, catalog=catalog, features=features, measures=measures
    )
    n = np.bincount(lists.unit_segment, minlength=lists.n_segments).astype(np.int64)
    query = pd.factorize(units.keys[columns.query], sort=True)[0].astype(np.int64)  # sorted: the documented order
    with progress.bar(f"{owner}: bootstrap over queries", unit="resamples"):
        got = resample(
            lists, measures, lists.unit_segment, query, lists.n_segments, n_resamples, np.random.SeedSequence(seed)
        )
    return seg_keys, n, got


def intervals(
    df: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    *,
    level: float,
    n_resamples: int,
    seed: int,
    train: object = None,
    catalog: object = None,
    features: object = None,
) -> pd.DataFrame:
    """Evaluate's set-level rows with ``ci=``: ``[*by, metric, value, n, std_err, ci_low, ci_high]``.

    ``std_err`` is the standard deviation of the resampled values (ddof 1) and ``[ci_low, ci_high]`` the interval
    of :func:`interval` at ``level`` (compare's too), kept within [0, 1] for a metric declared bounded; NaN for a
    segment with fewer than 2 queries (as the t-interval of a mean). Not the percentile interval: a resample holds
    ~63% of the distinct queries, so a metric of distinct lists (Coverage, Entropy) sits lower on every resample
    and the percentile interval could exclude the value itself (decision 19).
    """
    seg_keys, n, got = segment_draws(
        df, measures, columns, by, n_resamples=n_resamples, seed=seed, train=train, catalog=catalog, features=features
    )
    frames = []
    for m in measures:
        r = got[str(m)]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            se = np.nanstd(r.draws, axis=0, ddof=1) if n_resamples > 1 else np.full(len(n), np.nan)
        bounded = isinstance(m.spec, BeyondSpec) and m.spec.is_bounded(m.kw)
        low, high = interval(r.draws, r.estimate, level, bounds=(0.0, 1.0) if bounded else None)
        few = n < 2
        frames.append(
            seg_keys.assign(
                metric=str(m),
                value=r.estimate,
                n=n,
                std_err=np.where(few, np.nan, se),
                ci_low=np.where(few, np.nan, low),
                ci_high=np.where(few, np.nan, high),
            )
        )
    return pd.concat(frames, ignore_index=True)
