"""compare's set-level metrics (Coverage, Gini, Entropy, Personalization; aggregate='rows'): a paired bootstrap.

One job: the rows of the set-level metrics of a :func:`rankframe.compare` call, and their merge with the per-query
metrics' rows into one table and one correction. The resampling itself is
:mod:`rankframe.engines.beyond_bootstrap`; the method and its reasons: docs/decisions/0019-set-level-bootstrap.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .. import stats
from ..beyond import arguments as beyond_arguments
from ..beyond.declare import BeyondSpec
from ..core import progress as progress_
from ..core.errors import ParameterError, keyword
from ..engines import beyond_bootstrap as boot
from ..engines import beyond_engine
from ..measures.arguments import refuse_beyond
from ..measures.names import Measure
from ..stats.randomization import call_seed
from ..tables import inputs
from . import frame as _frame
from . import rules as _rules
from .frame import pair_indices, result_frame

#: the note of a set-level metric's row (Coverage, Gini, ...): its test, and why the per-query columns are empty
NOTE_SET_LEVEL = (
    "set-level metric: paired bootstrap over queries (interval centred on the delta); no per-query differences, so "
    "no sd_diff, effect size or wins/ties/losses"
)


def compare(
    call: Any,
    measures: list[Measure],
    set_level: list[Measure],
    options: dict[str, Any],
    per_list_rows: Callable[[list[str], dict[str, Any], dict[str, Any]], pd.DataFrame],
) -> pd.DataFrame:
    """Compare with set-level metrics: the per-list ones as usual, the set-level ones by a paired bootstrap.

    ``call`` is :class:`rankframe.compare.CheckedCall`; ``per_list_rows(labels, options, p)`` the rows of the
    per-query metrics (evaluate per query, then the paired tests) with the parameters ``p``. Both parts are built
    without a correction, then put in the order asked (segment, metric, pair) and corrected together over the
    call's family.
    """
    p = {**call.p, "seed": call_seed(call.p["seed"])}  # one seed for every random draw of the call
    names = [str(m) for m in set_level]
    if p["correction"] == "westfall-young":
        raise ParameterError(
            f"{', '.join(names)}: set-level metrics are compared by a paired bootstrap over queries, not by sign "
            f"flips; {keyword('correction', 'westfall-young')} resamples the randomization test's flips: use "
            f"{keyword('correction', 'holm')}",
            owner="compare",
            parameter="correction",
        )
    if p.get("margin") is not None:
        raise ParameterError(
            f"{', '.join(names)}: {keyword('margin')} is a one-sided paired t-test on per-query differences; "
            "set-level metrics have none (they are compared by a paired bootstrap over queries): leave "
            f"{keyword('margin', bare=True)} out",
            owner="compare",
            parameter="margin",
        )
    if inputs.kind(call.df) in ("path", "relation"):
        refuse_beyond(set_level, "duckdb_files")
    inputs_given = {key: options.get(key) for key in ("train", "catalog", "features")}
    options = {
        **options,
        **beyond_arguments.check_arguments(measures, per_query=False, ci=None, agg="mean", **inputs_given),
    }
    quiet = {**p, "correction": None}
    parts = []
    per_list = [m for m in measures if m not in set_level]
    if per_list:
        read = {n for m in per_list if isinstance(m.spec, BeyondSpec) for n in m.spec.needed(m.kw)}
        passed = {k: v for k, v in options.items() if k not in inputs_given or k in read}  # evaluate's own rule
        labels = [str(m) for m in per_list]
        parts.append(per_list_rows(labels, passed, quiet))
    rows, deltas = _compare_sets(call, set_level, quiet, options)
    parts.append(rows.assign(_draws=np.arange(len(rows))))  # each set-level row's column of resampled deltas
    out = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    attrs = dict(parts[0].attrs)
    keys = pd.DataFrame({i: out[c] for i, c in enumerate(call.by)})
    keys[len(call.by)] = out["metric"].map({n: i for i, n in enumerate(call.names)}).astype(np.int64)
    keys[len(call.by) + 1] = np.arange(len(out))
    order = keys.sort_values(list(keys.columns), kind="stable", na_position="last").index.to_numpy()
    out = out.iloc[order].reset_index(drop=True)
    groups, family_text = _frame.family_groups(out, p["family"])
    col = {
        c: out[c].to_numpy(np.float64, na_value=np.nan)
        for c in ("n", "mean", "baseline_mean", "delta", "sd_diff", "wins")
    }
    summary = stats.PairedSummary(  # what the correction's intervals read: n, sd and delta of every row
        n=col["n"], mean_x=col["mean"], mean_y=col["baseline_mean"], delta=col["delta"], sd=col["sd_diff"],
        wins=col["wins"], ties=col["wins"], losses=col["wins"],
    )  # fmt: skip
    out["p_adjusted"], out["ci_low_adjusted"], out["ci_high_adjusted"] = _frame.adjusted(
        out["p_value"].to_numpy(),
        groups,
        summary,
        out["ci_low"].to_numpy(),
        out["ci_high"].to_numpy(),
        p,
    )
    out = _adjusted_percentiles(out, deltas, groups, p)
    out.attrs = attrs
    out.attrs.update(
        correction=p["correction"], family=family_text, set_level=names, n_resamples=p["n_resamples"], seed=p["seed"]
    )
    return out


def _adjusted_percentiles(out: pd.DataFrame, deltas: np.ndarray, groups: np.ndarray, p: dict[str, Any]) -> pd.DataFrame:
    """The set-level rows' ``ci_low_adjusted``/``ci_high_adjusted``: the percentile interval at the corrected level.

    The level of decision 17 (:func:`rankframe.stats.adjusted_alpha`: ``alpha / m`` for Bonferroni and Holm,
    ``R alpha / m`` for BH) read off the same resampled deltas, so the interval agrees with ``p_adjusted`` as the
    percentile interval agrees with ``p_value``; without a correction, the interval itself.
    """
    which = out.pop("_draws").to_numpy()
    sets = np.flatnonzero(pd.notna(which))
    if p["correction"] is None or not len(sets):
        return out
    alpha = stats.adjusted_alpha(out["p_value"].to_numpy(), p["correction"], 1.0 - p["ci"], groups)[sets]
    draws = deltas[:, which[sets].astype(np.int64)]
    side = p.get("alternative", "two-sided")
    low_level = {"two-sided": alpha / 2, "greater": alpha, "less": np.zeros_like(alpha)}[side]
    high_level = {"two-sided": 1 - alpha / 2, "greater": np.ones_like(alpha), "less": 1 - alpha}[side]
    low, high = boot.quantiles_at(draws, low_level), boot.quantiles_at(draws, high_level)
    low = np.full_like(low, -np.inf) if side == "less" else low
    high = np.full_like(high, np.inf) if side == "greater" else high
    undefined = out["ci_low"].isna().to_numpy()[sets] | out["ci_high"].isna().to_numpy()[sets]
    out.loc[sets, "ci_low_adjusted"] = np.where(undefined, np.nan, low)
    out.loc[sets, "ci_high_adjusted"] = np.where(undefined, np.nan, high)
    return out


def _compare_sets(
    call: Any, measures: list[Measure], p: dict[str, Any], options: dict[str, Any]
) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows of the set-level metrics: a paired bootstrap over each segment's queries, every system at once.

    The units are (segment, system, query); a resample draws the segment's queries (every system's) with
    replacement, and each system's value is recomputed with the same draws (:mod:`rankframe.engines.beyond_bootstrap`):
    delta = value - baseline value, the interval of :func:`~rankframe.engines.beyond_bootstrap.interval` (the
    resampled deltas centred on the delta) and the percentile test of those centred deltas as its p-value.
    """
    from ..tables.schema import validate as validate_table

    df, columns, by, system = call.df, call.columns, call.by, call.system
    if options.get("validate", True):
        validate_table(
            df,
            columns,
            by=[*by, system],
            allow_duplicates=options.get("allow_duplicates", False),
            require_relevance=False,
        )
    lists, units, lseg_keys = beyond_engine.lists_of(
        df,
        columns,
        [*by, system],
        train=options.get("train"),
        catalog=options.get("catalog"),
        features=options.get("features"),
    )
    group_of_lseg = boot.group_codes(lseg_keys, by)
    n_groups = int(group_of_lseg.max(initial=-1)) + 1
    _, first = np.unique(group_of_lseg, return_index=True)
    seg_keys = lseg_keys[by].iloc[first].reset_index(drop=True) if by else None
    sys_codes, labels = pd.factorize(lseg_keys[system], sort=True)
    group_of_unit = group_of_lseg[lists.unit_segment]
    query_of_unit = pd.factorize(units.keys[columns.query], sort=True)[0].astype(np.int64)
    pair_q = np.unique(group_of_unit * (int(query_of_unit.max(initial=0)) + 1) + query_of_unit)
    n_queries = np.bincount(pair_q // (int(query_of_unit.max(initial=0)) + 1), minlength=n_groups)
    with progress_.bar("compare: bootstrap over queries", unit="resamples"):
        got = boot.resample(
            lists, measures, group_of_unit, query_of_unit, n_groups, p["n_resamples"], np.random.SeedSequence(p["seed"])
        )
    n_sys = len(labels)
    pair_idx = pair_indices(n_sys, _rules.baseline_positions(list(labels), call.baseline), p["pairs"])
    present = np.zeros((n_groups, n_sys), dtype=bool)
    present[group_of_lseg, sys_codes] = True
    both = present[:, pair_idx[:, 0]] & present[:, pair_idx[:, 1]]
    fields: dict[str, list[np.ndarray]] = {k: [] for k in ("x", "y", "low", "high", "p", "deltas")}
    for m in measures:
        r = got[str(m)]
        value = np.full((n_groups, n_sys), np.nan)
        value[group_of_lseg, sys_codes] = r.estimate
        draws = np.full((r.draws.shape[0], n_groups, n_sys), np.nan)
        draws[:, group_of_lseg, sys_codes] = r.draws
        deltas = (draws[:, :, pair_idx[:, 0]] - draws[:, :, pair_idx[:, 1]]).reshape(r.draws.shape[0], -1)
        delta = (value[:, pair_idx[:, 0]] - value[:, pair_idx[:, 1]]).reshape(-1)
        low, high = boot.interval(deltas, delta, p["ci"], p["alternative"])  # evaluate's interval, on the deltas
        deltas = boot.centred(deltas, delta)  # what the interval reads: its p-value and adjusted levels read it too
        fields["x"].append(value[:, pair_idx[:, 0]])
        fields["y"].append(value[:, pair_idx[:, 1]])
        fields["low"].append(low.reshape(n_groups, -1))
        fields["high"].append(high.reshape(n_groups, -1))
        fields["p"].append(boot.pvalue(deltas, p["alternative"]).reshape(n_groups, -1))
        fields["deltas"].append(deltas.reshape(deltas.shape[0], n_groups, 1, -1))
    x, y, low, high, pv = (np.concatenate(fields[k], axis=1) for k in ("x", "y", "low", "high", "p"))
    n = np.tile(np.where(both, n_queries[:, None], 0), len(measures))
    zeros = np.zeros(n.shape)
    summary = stats.PairedSummary(
        n=n, mean_x=x, mean_y=y, delta=x - y, sd=np.full(n.shape, np.nan), wins=zeros, ties=zeros, losses=zeros
    )
    out = result_frame(
        seg_keys,
        [str(m) for m in measures],
        pd.Index(labels),
        pair_idx,
        summary,
        pv,
        low,
        high,
        present,
        p,
        statistic=x - y,
        df=np.full(n.shape, np.nan),
        test="bootstrap",
        ci_method="bootstrap",
        baseline=call.baseline,
    )
    out["note"] = out["note"].where(out["note"].notna(), NOTE_SET_LEVEL)
    out.attrs.update(n_resamples=p["n_resamples"], seed=p["seed"])
    deltas = np.concatenate(fields["deltas"], axis=2)  # (B, segment, metric, pair): the frame's row order
    return out, deltas.reshape(deltas.shape[0], -1)
