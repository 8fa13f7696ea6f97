"""Power of the paired t-test: the minimum detectable effect of a design, and the queries a target effect needs.

For ``n`` queries whose per-query differences have standard deviation ``sd``, the paired t-test of a true mean
difference ``delta`` has the noncentral t distribution with ``n - 1`` degrees of freedom and noncentrality
``nc = delta / sd * sqrt(n)``. At level ``alpha`` its power is

- two-sided: ``P(T' > t_{1 - alpha/2}) + P(T' < -t_{1 - alpha/2})`` (both tails, as statsmodels' ``TTestPower``);
- one-sided (``"greater"``, or ``"less"`` for a decrease of the same size): ``P(T' > t_{1 - alpha})``,

with ``T' ~ nct(n - 1, nc)``, exactly (no normal approximation). It rises with ``nc``, so:

- :func:`power` (the **minimum detectable effect**, MDE) finds the ``nc`` whose power is the target by
  bisection, ``mde = nc / sqrt(n) * sd``: the smallest true ``|delta|`` the test detects with that probability;
- :func:`topic_set_size` finds the smallest ``n`` whose power at ``nc = |delta| / sd * sqrt(n)`` reaches the
  target: doubling, then bisection on the integers.

Both iterate on arrays: every design of a call at once (one ``scipy.stats.nct`` call a step), never a loop per
query or per design. References: T. Sakai, *Topic set size design*, Information Retrieval Journal 19 (2016);
W. Webber, A. Moffat, J. Zobel, *Statistical power in retrieval experimentation*, CIKM 2008; J. Cohen, *Statistical
Power Analysis for the Behavioral Sciences* (1988), ch. 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.constraints import OPEN_UNIT
from ..core.errors import ParameterError, parameter_error
from ..core.numeric import broadcast, check_array
from .paired import ALTERNATIVES

if TYPE_CHECKING:
    from .paired import Alternative

#: the power at which compare's ``mde`` column is computed
MDE_POWER = 0.8
_BISECTIONS = 52  # nc in [0, hi] to 2**-52 of hi: far below any effect a metric can show
#: topic_set_size gives up beyond this many queries (a ParameterError; an effect of ~3e-6 sd needs that many)
_MAX_N = 2**40


def _t_power(nc: np.ndarray, df: np.ndarray, alpha: float, alternative: str) -> np.ndarray:
    """The power of the paired t-test at noncentrality ``nc >= 0`` with ``df`` degrees of freedom."""
    from scipy import stats  # imported here: `import rankframe` stays light

    if alternative == "two-sided":
        crit = stats.t.ppf(1.0 - alpha / 2.0, df)
        # the lower tail P(T'(nc) < -crit) as P(T'(-nc) > crit): scipy's nct.cdf far in the lower tail gives NaN
        return stats.nct.sf(crit, df, nc) + stats.nct.sf(crit, df, -nc)
    return stats.nct.sf(stats.t.ppf(1.0 - alpha, df), df, nc)


def mde_dz(n: np.ndarray, alpha: float, power: float = MDE_POWER, alternative: str = "two-sided") -> np.ndarray:
    """The standardized effect ``delta / sd`` (d_z) detected with probability ``power`` by ``n`` queries (n >= 2).

    ``n`` is an int array; the result has its shape. Computed once per distinct ``n`` (compare's comparisons share
    a few), all of them in one bisection.
    """
    n = np.asarray(n, dtype=np.float64)
    uniq, which = np.unique(n, return_inverse=True)
    df = uniq - 1.0
    hi = np.full(uniq.shape, 8.0)
    for _ in range(64):  # grow hi until its power reaches the target (nc ~ 2.8 suffices for large n)
        short = ~(_t_power(hi, df, alpha, alternative) >= power)  # NaN: not known to be enough
        if not short.any():
            break
        hi[short] *= 2.0
    lo = np.zeros(uniq.shape)
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2.0
        up = ~(_t_power(mid, df, alpha, alternative) >= power)
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    return ((lo + hi) / 2.0 / np.sqrt(uniq))[which].reshape(n.shape)


def _options(alpha: object, power: object, alternative: object, owner: str) -> tuple[float, float, str]:
    a, p = float(OPEN_UNIT.check(owner, "alpha", alpha)), float(OPEN_UNIT.check(owner, "power", power))
    if not isinstance(alternative, str) or alternative.lower() not in ALTERNATIVES:
        raise parameter_error(owner, "alternative", "one of " + ", ".join(map(repr, ALTERNATIVES)), alternative)
    side = alternative.lower()
    if p <= a:  # a null effect is already "detected" with probability alpha
        raise parameter_error(
            owner, "power", f"above alpha ({a:g}): a test already rejects a null effect with probability alpha", p
        )
    return a, p, side


def _numbers(value: object, name: str, owner: str, rule: str, ok) -> np.ndarray:
    return check_array(owner, name, value, rule, ok)


def _too_many(dz: float) -> None:
    raise ParameterError(
        f"The 'delta' parameter of topic_set_size: |delta| / sd_diff = {dz:.3g} would need more than {_MAX_N:,} "
        "queries (the limit of topic_set_size); no test collection detects so small an effect.",
        owner="topic_set_size",
        parameter="delta",
    )


def _out(arr: np.ndarray) -> Any:
    return arr.item() if arr.ndim == 0 else arr


def power(
    sd_diff: Any, n: Any, alpha: float = 0.05, power: float = MDE_POWER, alternative: Alternative = "two-sided"
) -> Any:
    """The minimum detectable effect of a paired t-test: the smallest ``|delta|`` found with probability ``power``.

    For ``n`` queries whose per-query differences have standard deviation ``sd_diff`` (compare's ``sd_diff``
    column), the true mean difference that a paired t-test at level ``alpha`` detects with probability ``power``,
    exactly, from the noncentral t distribution (module docstring; ``statsmodels.stats.power.TTestPower
    .solve_power(nobs=n, ...)`` times ``sd_diff``). ``alternative="less"`` gives the size of a decrease (a
    positive number too). Arrays broadcast.

    Parameters
    ----------
    sd_diff : float or array
        Standard deviation of the per-query differences (>= 0, finite), e.g. from a pilot comparison.
    n : int or array of int
        Number of queries (>= 2).
    alpha : float, default 0.05
        Level of the test (one-sided for "greater"/"less").
    power : float, default 0.8
        The probability of detecting the effect (above ``alpha``, below 1).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"

    Returns
    -------
    float or array
        The minimum detectable ``|delta|``, in the metric's units.

    Examples
    --------
    >>> import rankframe
    >>> round(rankframe.power(0.2, 50), 4)   # sd of the differences 0.2, 50 queries: d_z = 0.4042 (Cohen's table: 0.40)
    0.0808
    """
    a, p, side = _options(alpha, power, alternative, "power")
    sd = _numbers(
        sd_diff, "sd_diff", "power", "a finite number >= 0 (or an array of them)", lambda v: np.isfinite(v) & (v >= 0)
    )
    nn = _numbers(
        n,
        "n",
        "power",
        "an int >= 2 (or an array of them): a paired t-test needs 2 queries",
        lambda v: (v >= 2) & (v == np.floor(v)) & np.isfinite(v),
    )
    sd, nn = broadcast("power", {"sd_diff": sd, "n": nn})
    return _out(mde_dz(nn, a, p, side) * sd)


def topic_set_size(
    delta: Any, sd_diff: Any, alpha: float = 0.05, power: float = MDE_POWER, alternative: Alternative = "two-sided"
) -> Any:
    """The number of queries a paired t-test needs to detect a true difference ``delta`` with probability ``power``.

    The smallest ``n >= 2`` whose power at noncentrality ``|delta| / sd_diff * sqrt(n)`` reaches ``power``
    (module docstring): the ceiling of ``statsmodels.stats.power.TTestPower.solve_power(effect_size=delta /
    sd_diff, nobs=None, ...)``. Sakai's topic set size design with the paired t-test. Arrays broadcast.

    Parameters
    ----------
    delta : float or array
        The true mean difference to detect (non-zero; its size counts).
    sd_diff : float or array
        Standard deviation of the per-query differences (> 0), e.g. ``sd_diff`` of a pilot comparison.
    alpha, power, alternative
        As for :func:`power`.

    Returns
    -------
    int or array of int

    Examples
    --------
    >>> import rankframe
    >>> rankframe.topic_set_size(0.02, 0.1)   # d_z = 0.2: 199 queries (Cohen's table, two-sided 0.05, power 0.8)
    199
    """
    a, p, side = _options(alpha, power, alternative, "topic_set_size")
    d = _numbers(
        delta,
        "delta",
        "topic_set_size",
        "a finite non-zero number (or an array of them)",
        lambda v: np.isfinite(v) & (v != 0),
    )
    sd = _numbers(
        sd_diff,
        "sd_diff",
        "topic_set_size",
        "a finite number > 0 (or an array of them)",
        lambda v: np.isfinite(v) & (v > 0),
    )
    d, sd = broadcast("topic_set_size", {"delta": np.abs(d), "sd_diff": sd})
    dz = (d / sd).ravel()
    if np.any(dz * np.sqrt(_MAX_N) < 1e-3):
        _too_many(dz.min())

    def enough(n: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return _t_power(dz[rows] * np.sqrt(n), n - 1.0, a, side) >= p  # NaN (never seen) counts as not enough

    hi = np.full(dz.shape, 2.0)
    rows = np.arange(dz.size)
    while rows.size:  # double until enough (log2 steps), every design at once
        short = ~enough(hi[rows], rows)
        rows = rows[short]
        hi[rows] *= 2.0
        if rows.size and hi[rows].max() > 2 * _MAX_N:  # (about 35 doublings at most: never a hang)
            _too_many(dz[rows].min())
    lo = np.where(hi > 2.0, hi / 2.0, 1.0)  # power(lo) < target (n = 1: no test)
    rows = np.flatnonzero(hi - lo > 1)
    while rows.size:  # bisection on the integers: hi is always enough, lo never
        mid = np.floor((lo[rows] + hi[rows]) / 2.0)
        ok = enough(mid, rows)
        hi[rows[ok]] = mid[ok]
        lo[rows[~ok]] = mid[~ok]
        rows = rows[hi[rows] - lo[rows] > 1]
    return _out(hi.astype(np.int64).reshape(d.shape))
