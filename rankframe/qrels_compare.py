"""rankframe.qrels_compare: what changes when the judgments change (two qrels, the same runs).

The systems' means come from :func:`rankframe.evaluate` under each judgment set (its ``qrels=`` join), the verdicts
from :func:`rankframe.compare`; this module only reads the two rankings of the systems they give, per (segment,
metric), all groups at once (numpy over a (group, system, system) cube: no loop per segment):

* ``kendall_tau``: Kendall's tau-b over the systems' means (ties handled: scipy.stats.kendalltau's tau-b), means
  equal under compare's rule of equal values (:func:`rankframe.stats.paired.equal`) tied;
* ``tau_ap``: Yilmaz, Aslam & Robertson (2008)'s AP correlation, ``qrels_a``'s order taken as the truth, each order
  being the means descending with tied systems by name (trectools ``misc.get_correlation``/``sort_systems_by``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .core.columns import Columns, column_list
from .core.errors import ParameterError
from .measures.names import Measure

__all__ = ["qrels_compare"]

#: the verdict of compare's row against the baseline: significant after its correction, and which way
_ALPHA = 0.05


def qrels_compare(
    runs: Any,
    qrels_a: Any,
    qrels_b: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    system: str = "system",
    by: str | Sequence[str] | None = None,
    baseline: object = None,
    columns: Columns | dict | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Compare the ranking of systems under two judgment sets (e.g. human ``qrels_a``, LLM ``qrels_b``).

    Parameters
    ----------
    runs : table
        The runs (query, item, rank or score, and the ``system`` column), without a relevance column; any table
        kind :func:`rankframe.evaluate` takes.
    qrels_a, qrels_b : table
        Two judgment sets (query, item, relevance) with the same columns. ``qrels_a`` is the reference: ``tau_ap``
        takes its order of the systems as the truth (as trectools does).
    metrics : str or list of str
        Metric names, as for :func:`rankframe.evaluate`.
    system : str, default "system"
        The column naming each row's system.
    by : str or list of str, optional
        Segment columns: one ranking of the systems per (segment, metric).
    baseline : optional
        A system: each other system's :func:`rankframe.compare` verdict against it (``"better"``, ``"worse"`` or
        ``"same"``: adjusted p-value < 0.05, compare's defaults) under each judgment set, and whether it flips.
    columns : Columns or dict, optional
        Column names of ``runs`` and both qrels.
    **options
        Passed on to :func:`rankframe.evaluate` and :func:`rankframe.compare` (``no_relevant``, ``no_retrieved``,
        ``no_judged``, ``validate``, ...).

    Returns
    -------
    DataFrame
        One row per (segment, metric, system): ``[*by, "metric", system, "mean_a", "mean_b", "rank_a", "rank_b",
        "n_systems", "kendall_tau", "tau_ap"]`` (the last three are the segment's and metric's, repeated on its
        rows), with ``baseline=`` also ``"verdict_a", "verdict_b", "flipped"`` (NA on the baseline's row), and
        ``"note"``. Ranks run from 1 (best mean; ties by system name); a system without a mean under one judgment
        set has no rank and is left out of the taus (the note says so). Fewer than 2 ranked systems: NaN taus.

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> runs = pd.DataFrame({"system": ["A", "A", "B", "B", "C", "C"], "query": ["q"] * 6,
    ...                      "item": ["x", "y", "y", "z", "z", "x"], "rank": [1, 2, 1, 2, 1, 2]})
    >>> human = pd.DataFrame({"query": ["q"] * 3, "item": ["x", "y", "z"], "relevance": [1, 0, 0]})
    >>> llm = pd.DataFrame({"query": ["q"] * 3, "item": ["x", "y", "z"], "relevance": [1, 1, 0]})
    >>> out = rankframe.qrels_compare(runs, human, llm, "RR")
    >>> print(out[["system", "mean_a", "mean_b", "rank_a", "rank_b"]].to_string(index=False))
    system  mean_a  mean_b  rank_a  rank_b
         A     1.0     1.0       1       1
         C     0.5     0.5       2       3
         B     0.0     1.0       3       2
    >>> float(out["kendall_tau"].iloc[0]), float(out["tau_ap"].iloc[0])
    (0.0, 0.5)

    Under ``llm``, B ties A (ranked after it by name) and passes C: of the three pairs, A-C agrees, B-C is reversed
    and A-B is tied on one side only, so tau-b = (1 - 1) / sqrt(3 * 2) = 0; tau_AP = 2 ((1/1 + 1/2) / 2) - 1 = 0.5
    (B, second under ``llm``, has A correctly above it; C, third, has one of its two).
    """
    from . import compare, evaluate
    from .tables import inputs

    by_cols = column_list(by, "qrels_compare")
    if not isinstance(system, str):
        raise ParameterError(
            f"The 'system' parameter of qrels_compare must be a column name (str). Got {system!r}.",
            owner="qrels_compare",
            parameter="system",
        )
    a = inputs.to_pandas(qrels_a, owner="qrels_compare", name="qrels_a")
    b = inputs.to_pandas(qrels_b, owner="qrels_compare", name="qrels_b")
    if list(a.columns) != list(b.columns) and set(a.columns) != set(b.columns):
        only_a = [c for c in a.columns if c not in b.columns]
        only_b = [c for c in b.columns if c not in a.columns]
        raise ParameterError(
            "The 'qrels_b' parameter of qrels_compare must have the columns of qrels_a (two judgment sets of the same "
            f"units): qrels_a alone has {only_a}, qrels_b alone has {only_b}. Rename one of them first.",
            owner="qrels_compare",
            parameter="qrels_b",
        )
    keys = [*by_cols, system]
    means = {
        side: evaluate(runs, metrics, by=keys, columns=columns, qrels=q, **options)[[*keys, "metric", "value"]]
        for side, q in (("a", a), ("b", b))
    }
    out = pd.merge(
        means["a"].rename(columns={"value": "mean_a"}),
        means["b"].rename(columns={"value": "mean_b"}),
        on=[*keys, "metric"],
        how="outer",
        sort=False,
    )
    # the metrics in the order given (an outer merge sorts its keys), the segments sorted, the best system first
    metric_order = {m: i for i, m in enumerate(dict.fromkeys([*means["a"]["metric"], *means["b"]["metric"]]))}
    out = _rankings(out, by_cols, system)
    out = out.assign(_m=out["metric"].map(metric_order)).sort_values(
        [*by_cols, "_m", "rank_a", system], na_position="last", kind="stable"
    )
    if baseline is not None:
        verdict = {
            side: _verdicts(
                compare(runs, metrics, system=system, baseline=baseline, by=by, columns=columns, qrels=q, **options)
            )
            for side, q in (("a", a), ("b", b))
        }
        both = pd.merge(
            verdict["a"].rename(columns={"verdict": "verdict_a"}),
            verdict["b"].rename(columns={"verdict": "verdict_b"}),
            on=[*by_cols, "metric", "system"],
            how="outer",
        ).rename(columns={"system": system} if system != "system" else {})
        out = out.merge(both, on=[*by_cols, "metric", system], how="left")
        out["flipped"] = (out["verdict_a"] != out["verdict_b"]).astype("boolean")
        out.loc[out["verdict_a"].isna() & out["verdict_b"].isna(), "flipped"] = pd.NA
    cols = [*by_cols, "metric", system, "mean_a", "mean_b", "rank_a", "rank_b", "n_systems", "kendall_tau", "tau_ap"]
    cols += ["verdict_a", "verdict_b", "flipped"] if baseline is not None else []
    return out[[*cols, "note"]].reset_index(drop=True)


def _verdicts(rows: pd.DataFrame) -> pd.DataFrame:
    """The verdicts of compare's rows: "better"/"worse" (adjusted p < 0.05, the metric's direction), else "same"."""
    from .measures.better import direction

    way = np.array([direction(m) for m in rows["metric"]], dtype=float)
    sig = rows["p_adjusted"].to_numpy(dtype=float, na_value=np.nan) < _ALPHA
    delta = rows["delta"].to_numpy(dtype=float, na_value=np.nan) * way
    verdict = np.where(sig & (delta > 0), "better", np.where(sig & (delta < 0), "worse", "same"))
    keep = [c for c in rows.columns if c not in _COMPARE_VALUES]
    return rows[keep].assign(verdict=verdict).drop(columns=["baseline"])


#: compare's value columns (the rest are its keys: segments, metric, system, baseline)
_COMPARE_VALUES = frozenset(
    "n mean baseline_mean delta ci_low ci_high p_value p_adjusted ci_low_adjusted ci_high_adjusted statistic df "
    "sd_diff effect_size hedges_gz hedges_gz_low hedges_gz_high hl_estimate hl_low hl_high mde wins ties losses "
    "n_filled n_dropped note".split()
)


def _rankings(out: pd.DataFrame, by: list[str], system: str) -> pd.DataFrame:
    """Ranks, tau-b and tau_AP per (segment, metric) group: a (group, system, system) cube, no loop per group."""
    from .stats.paired import equal

    group_cols = [*by, "metric"]
    group = out.groupby(group_cols, sort=False, dropna=False).ngroup().to_numpy()
    names = out[system].astype(str).to_numpy()
    order = np.unique(names)  # the system codes follow the names: ties go by name (trectools)
    code = np.searchsorted(order, names)
    n_groups, n_sys = int(group.max(initial=-1)) + 1, len(order)
    cube = {}
    for side in ("a", "b"):
        m = np.full((n_groups, n_sys), np.nan)
        m[group, code] = out[f"mean_{side}"].to_numpy(dtype=float, na_value=np.nan)
        cube[side] = m
    valid = np.isfinite(cube["a"]) & np.isfinite(cube["b"])  # (G, S): a mean under both judgment sets
    pair = valid[:, :, None] & valid[:, None, :]
    signs, above = {}, {}
    for side, m in cube.items():
        x, y = m[:, :, None], m[:, None, :]  # x: row i, y: column j
        with np.errstate(invalid="ignore"):
            tie = equal(x, y)
            s = np.where(tie, 0.0, np.sign(x - y))
        signs[side] = np.where(pair, s, 0.0)
        # above[g, i, j]: system i comes before system j (higher mean; tied: the smaller name)
        by_name = np.arange(n_sys)[:, None] < np.arange(n_sys)[None, :]
        above[side] = pair & ((s > 0) | ((s == 0) & by_name[None]))
    upper = np.triu(np.ones((n_sys, n_sys), dtype=bool), 1)[None]
    sa, sb = signs["a"] * upper, signs["b"] * upper
    num = (sa * sb).sum(axis=(1, 2))
    den = np.sqrt(np.abs(sa).sum(axis=(1, 2)) * np.abs(sb).sum(axis=(1, 2)))
    tau_b = np.divide(num, den, out=np.full(n_groups, np.nan), where=den > 0)
    # tau_AP: for each system i but the first of b's order, C(i) = the systems above it in b that are above it in a
    pos_a = above["a"].sum(axis=1)  # (G, S): 0-based position in a's order
    pos_b = above["b"].sum(axis=1)
    correct = (above["b"] & above["a"]).sum(axis=1)
    n_valid = valid.sum(axis=1)
    share = np.divide(correct, pos_b, out=np.zeros(pos_b.shape), where=valid & (pos_b > 0))
    p = np.divide(share.sum(axis=1), n_valid - 1.0, out=np.full(n_groups, np.nan), where=n_valid >= 2)
    tau_ap = 2.0 * p - 1.0
    ranked = valid[group, code]
    out = out.assign(
        rank_a=pd.array(np.where(ranked, pos_a[group, code] + 1, 0), dtype="Int64"),
        rank_b=pd.array(np.where(ranked, pos_b[group, code] + 1, 0), dtype="Int64"),
        n_systems=n_valid[group],
        kendall_tau=tau_b[group],
        tau_ap=tau_ap[group],
    )
    out.loc[~ranked, ["rank_a", "rank_b"]] = pd.NA
    lone = np.where(np.isnan(out["mean_a"]), "qrels_a", "qrels_b")
    note = np.where(ranked, "", "no mean under " + lone + ": left out of the ranks and the taus")
    few = n_valid[group] < 2
    note = np.where(
        few & (note == ""), "fewer than 2 systems with a mean under both judgment sets: taus undefined", note
    )
    out["note"] = note
    return out
