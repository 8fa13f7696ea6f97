"""The arithmetic of each fusion method: per-entry contributions reduced per candidate, over all queries at once.

``n`` is the number of runs holding the candidate (after ``depth`` and ``norm``): a run without the item adds
nothing to a score method and does not count in ``n`` (MNZ, ANZ, ...), as in ranx.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import methods
from .runs import Candidates, Runs


def fused_scores(method: str, runs: Runs, cand: Candidates, params: Mapping, weights: np.ndarray | None) -> np.ndarray:
    """The fused score of every candidate (``weights``: one per system code, for the weighted methods).

    Rounded to :data:`~rankframe.fusion.methods.FUSED_DIGITS` significant digits (:func:`round_significant`), so
    scores equal in exact arithmetic are equal here and their order is the item tie-break's on every engine.
    """
    return round_significant(_raw_scores(method, runs, cand, params, weights), methods.FUSED_DIGITS)


def round_significant(x: np.ndarray, digits: int) -> np.ndarray:
    """``x`` rounded to ``digits`` significant decimal digits (0, NaN and infinities as they are).

    Two values a few ulps apart (one float sum taken in another order) round to the same value unless they straddle
    a rounding boundary, which values equal in exact arithmetic with a short decimal form (the usual ties) do not.
    sql/fuse.sql's ``rf__round_significant`` is the same formula.
    """
    out = np.array(x, dtype=np.float64, copy=True)
    ok = np.isfinite(out) & (out != 0)
    v = out[ok]
    exponent = np.clip(np.floor(np.log10(np.abs(v))), -290, 290)
    scale = 10.0 ** (digits - 1 - exponent)
    out[ok] = np.round(v * scale) / scale
    return out


def _raw_scores(method: str, runs: Runs, cand: Candidates, params: Mapping, weights: np.ndarray | None) -> np.ndarray:
    n_cand = len(cand.unit)
    code = cand.code

    def total(x: np.ndarray) -> np.ndarray:
        return np.bincount(code, weights=x, minlength=n_cand)

    n = np.bincount(code, minlength=n_cand).astype(np.float64)
    w = None if weights is None else weights[runs.sys]
    pos = runs.pos.astype(np.float64)
    v = runs.value
    if method == "rrf":
        return total(1.0 / (params["k"] + pos - 1.0 + params["rank_base"]))
    if method in ("isr", "log_isr", "logn_isr"):
        base = total(1.0 / pos**2)
        factor = {"isr": n, "log_isr": np.log(n), "logn_isr": np.log(n + params["sigma"])}[method]
        return base * factor
    if method == "rbc":
        phi = params["phi"]
        return total((1.0 - phi) * phi ** (pos - 1.0))
    if method in ("bordafuse", "w_bordafuse"):
        return _borda_points(runs, cand, weights if method == "w_bordafuse" else None, total)
    if method == "combsum":
        return total(v)
    if method == "combmnz":
        return total(v) * n
    if method == "combanz":
        return total(v) / n
    if method == "combgmnz":
        return total(v) * n ** params["gamma"]
    if method in ("combmax", "combmin"):
        out = np.full(n_cand, -np.inf if method == "combmax" else np.inf)
        (np.maximum if method == "combmax" else np.minimum).at(out, code, v)
        return out
    if method == "combmed":
        return _median(code, v, n_cand)
    assert w is not None  # the weighted score methods (checked by fuse)
    if method == "wsum":
        return total(w * v)
    if method == "wmnz":
        return total(v) * total(w)
    if method == "mixed":
        return total(w * v) * np.sqrt(n)
    raise AssertionError(method)  # every declared method is handled above


def _borda_points(runs: Runs, cand: Candidates, w: np.ndarray | None, total) -> np.ndarray:
    """BordaFuse (Aslam & Montague): N - rank + 1 points in each run, the mean of the rest for an absent item.

    A run without the item gives it the mean of the points it has left, (N - n_run + 1) / 2 (N = candidates
    of the query, n_run = the run's length).

    Written without filling the runs: every run's "absent" points for the query, minus those of the runs
    that do hold the item, plus their own points.
    """
    n_sys = len(runs.systems)
    big_n = cand.per_query.astype(np.float64)
    sys_w = np.ones(n_sys) if w is None else w
    absent = (big_n[None, :] - runs.lengths + 1.0) / 2.0  # (systems, queries)
    per_query = (sys_w[:, None] * absent).sum(axis=0)
    n_q = big_n[runs.unit]
    ww = sys_w[runs.sys]
    own = n_q - runs.pos + 1.0
    gap = absent[runs.sys, runs.unit]
    return per_query[cand.unit] + total(ww * (own - gap))


def _median(code: np.ndarray, v: np.ndarray, n_cand: int) -> np.ndarray:
    """The median of each candidate's values (the mean of the two middle ones for an even count), by one sort."""
    order = np.lexsort((v, code))
    sv = v[order]
    counts = np.bincount(code, minlength=n_cand)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return (sv[start + (counts - 1) // 2] + sv[start + counts // 2]) / 2.0
