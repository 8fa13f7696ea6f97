"""Paired summaries and the paired t-test, for every (segment, comparison) at once.

For one comparison with per-query differences ``d_i = x_i - y_i`` over its ``n`` queries:

- ``delta = mean(d)``; ``sd = sqrt(sum((d_i - delta)**2) / (n - 1))`` (undefined for ``n < 2``);
- ``effect_size = delta / sd``, the paired standardized mean difference (Cohen's d_z); ``+-inf`` when every
  difference is the same non-zero number, NaN when they are all zero;
- ``wins / ties / losses`` = the number of queries with ``d > 0``, ``d == 0``, ``d < 0`` after :func:`differences`
  (values equal by :func:`equal` have ``d == 0``); the system above / equal to / below the baseline, which
  :mod:`rankframe.comparing.frame` turns into wins and losses in the metric's direction;
- paired t-test: ``t = (delta + margin) / (sd / sqrt(n))`` with ``n - 1`` degrees of freedom (``margin = 0``
  unless a non-inferiority margin is given; with ``alternative="less"``, the side of a metric where lower is
  better, ``t = (delta - margin) / (sd / sqrt(n))``: H0 ``delta >= margin``); two-sided ``p = 2 * T.sf(|t|)``,
  ``"greater"`` (the system above the baseline) ``p = T.sf(t)``, ``"less"`` ``p = T.cdf(t)``; interval
  ``delta -+ T.ppf((1 + level) / 2) * sd / sqrt(n)``, or the one-sided bound
  ``[delta - T.ppf(level) * sd / sqrt(n), inf)`` (``"greater"``) /
  ``(-inf, delta + T.ppf(level) * sd / sqrt(n)]`` (``"less"``). This is ``scipy.stats.ttest_rel(x, y,
  alternative=...)`` and its ``confidence_interval(level)`` (with a margin: ``ttest_1samp(x - y, -margin,
  alternative="greater")``; the interval is still the interval of delta), including its edge cases: ``sd = 0``
  gives ``t = +-inf, p = 0`` (or 1 one-sided) and a zero-width interval when ``delta + margin != 0``, and
  ``p = NaN`` when ``delta + margin = 0`` with ``sd = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from ._segments import paired_layout, segment_of_row, segment_sum

#: the alternative hypotheses of the paired tests: "greater" = the system's mean above the baseline's (the type of
#: every public ``alternative=``; the tuple the checks read is derived from it)
Alternative = Literal["two-sided", "greater", "less"]
ALTERNATIVES: tuple[Alternative, ...] = get_args(Alternative)
#: two values a, b are equal when |a - b| <= EQUAL_RTOL * max(1, |a|, |b|) (:func:`equal`; docs/comparing.md,
#: "Equal values")
EQUAL_RTOL = 1e-12


def equal(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The one rule of "equal" per-query values: ``|x - y| <= EQUAL_RTOL * max(1, |x|, |y|)`` (or ``x == y``).

    A metric computed two ways differs by rounding noise, a few units of 2**-52 of the numbers it is computed
    from: AP = 0.7 as a sum of precisions and as a mean can differ by 1e-16. Those numbers are of the order of 1 for
    the bounded metrics (a share, a precision, 1 - a cosine), whatever the value, hence the floor 1; a count, a DCG
    or a popularity (ARP) carries its noise relative to its size, hence max(|x|, |y|). 1e-12 is 4,500 units of
    2**-52: room for the rounding of sums over thousands of rows, and far below a difference two rankings make (a
    rank metric moves in steps such as 1/k, 1/R, 1/(R i (i + 1)) for a swap at rank i). Used by compare's
    wins/ties/losses, both zero methods of the Wilcoxon test and the Hodges-Lehmann estimate beside it; ``rf_compare``
    (``rf__equal``) and ``rankframe.spark.compare`` write it again. NaN is equal to nothing; ``inf`` only to itself.

    >>> bool(equal(np.float64(0.7), 0.7 + 1e-16)), bool(equal(1e6, 1e6 + 1e-7)), bool(equal(0.1, 0.1 + 1e-9))
    (True, True, False)
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return _equal(x, y, x - y)


def _equal(x: np.ndarray, y: np.ndarray, d: np.ndarray) -> np.ndarray:
    """:func:`equal` given ``d = x - y`` (computed once by the caller); a few passes, in place."""
    tol = np.maximum(np.abs(x), np.abs(y))
    if isinstance(tol, np.ndarray) and tol.ndim:
        np.maximum(tol, 1.0, out=tol)
        tol *= EQUAL_RTOL
    else:
        tol = np.maximum(tol, 1.0) * EQUAL_RTOL
    return ((np.abs(d) <= tol) & np.isfinite(d)) | (x == y)


def differences(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x - y`` with the difference of equal values (:func:`equal`) exactly 0; NaN where either is NaN."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        d = x - y
        return np.where(_equal(x, y, d), 0.0, d)


@dataclass(frozen=True)
class PairedSummary:
    """Per (segment, comparison) summary of paired differences; every field has shape (n_segments, n_cols)."""

    n: np.ndarray
    mean_x: np.ndarray
    mean_y: np.ndarray
    delta: np.ndarray
    sd: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray

    @property
    def effect_size(self) -> np.ndarray:
        """``delta / sd`` (paired standardized mean difference)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.delta / self.sd


def summarize(x: np.ndarray, y: np.ndarray, offsets: np.ndarray) -> PairedSummary:
    """Summarize the paired differences ``x - y`` per segment and column (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> s = summarize(np.array([0.5, 1.0, 0.25]), np.array([0.25, 1.0, 0.5]), np.array([0, 3]))
    >>> int(s.n[0, 0]), float(s.delta[0, 0]), int(s.wins[0, 0]), int(s.ties[0, 0]), int(s.losses[0, 0])
    (3, 0.0, 1, 1, 1)
    """
    x, y, offsets = paired_layout(x, y, offsets)
    d = x - y
    valid = ~np.isnan(d)
    n = segment_sum(valid, offsets)
    d0 = np.where(valid, d, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        nf = n.astype(np.float64)
        mean_x = segment_sum(np.where(valid, x, 0.0), offsets) / nf
        mean_y = segment_sum(np.where(valid, y, 0.0), offsets) / nf
        delta = segment_sum(d0, offsets) / nf
        dev = np.where(valid, d - delta[segment_of_row(offsets)], 0.0)
        sd = np.sqrt(segment_sum(dev * dev, offsets) / (nf - 1.0))
    sd[n < 2] = np.nan
    with np.errstate(invalid="ignore", over="ignore"):
        apart = ~_equal(x, y, d)  # the counts read the one rule of equal values (NaN: not valid, not counted)
    wins = segment_sum(apart & (d > 0), offsets)
    losses = segment_sum(apart & (d < 0), offsets)
    ties = n - wins - losses
    return PairedSummary(n=n, mean_x=mean_x, mean_y=mean_y, delta=delta, sd=sd, wins=wins, ties=ties, losses=losses)


@dataclass(frozen=True)
class TtestResult:
    """Paired t-test per (segment, comparison): statistic, degrees of freedom, p-value and interval."""

    statistic: np.ndarray
    df: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray


def ttest(
    summary: PairedSummary, level: float = 0.95, alternative: str = "two-sided", margin: float = 0.0
) -> TtestResult:
    """Paired t-test and the t interval of ``delta`` at ``level`` (``scipy.stats.ttest_rel``; module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> s = summarize(np.array([1.0, 2.0, 4.0]), np.array([0.0, 1.0, 1.0]), np.array([0, 3]))
    >>> r = ttest(s)   # d = 1, 1, 3: mean 5/3, sd 2/sqrt(3), t = (5/3) / (2/3) = 2.5 on 2 df
    >>> round(float(r.statistic[0, 0]), 12), int(r.df[0, 0])
    (2.5, 2)
    >>> r = ttest(s, alternative="greater", margin=1 / 3)   # t = (5/3 + 1/3) / (2/3) = 3: one-sided, upper bound inf
    >>> round(float(r.statistic[0, 0]), 12), float(r.ci_high[0, 0])
    (3.0, inf)
    """
    from scipy import stats  # imported here: `import rankframe` stays light

    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}; got {alternative!r}")
    n = summary.n.astype(np.float64)
    df = n - 1.0
    shift = -margin if alternative == "less" else margin  # the non-inferiority bound on the alternative's side
    with np.errstate(divide="ignore", invalid="ignore"):
        se = summary.sd / np.sqrt(n)
        t = (summary.delta + shift) / se
        if alternative == "two-sided":
            p = 2.0 * stats.t.sf(np.abs(t), df)
            half = stats.t.ppf(0.5 + level / 2.0, df) * se
            low, high = summary.delta - half, summary.delta + half
        else:
            half = stats.t.ppf(level, df) * se
            inf = np.full(t.shape, np.inf)
            if alternative == "greater":
                p = stats.t.sf(t, df)
                low, high = summary.delta - half, inf
            else:
                p = stats.t.cdf(t, df)
                low, high = -inf, summary.delta + half
    bad = summary.n < 2
    for arr in (t, p, low, high):
        arr[bad] = np.nan
    return TtestResult(statistic=t, df=np.where(bad, np.nan, df), pvalue=p, ci_low=low, ci_high=high)
