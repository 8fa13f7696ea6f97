"""``rankframe.compare``: did system B beat system A, on which metric, in which segment — with honest uncertainty.

The per-query values come from :func:`rankframe.evaluate` (``per_query=True``, the system column added to
``by``); :mod:`rankframe.stats` aligns them by query and runs every test, interval and correction on all
comparisons at once. See ``docs/comparing.md`` for which test to use when and how to read the output.

One job: the orchestration of a comparison (checks, one evaluate, the per-query and the set-level rows); the
rules shared with Spark, DuckDB and the CLI live in :mod:`rankframe.comparing.rules` (parameters, system column,
baseline) and the output in :mod:`rankframe.comparing.frame`. Their names stay importable from here (the CLI
imports ``_check_parameters`` and ``_pick_baseline``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from . import stats
from .beyond import arguments as beyond_arguments
from .comparing import frame as _frame
from .comparing import rules as _rules
from .comparing import sets as _sets
from .comparing.frame import (
    NOTE_ALL_ZERO,
    NOTE_ALL_ZERO_TUKEY,
    NOTE_BASELINE_ABSENT,
    NOTE_CONSTANT,
    NOTE_NO_QUERY,
    NOTE_ONE_QUERY,
    NOTE_SYSTEM_ABSENT,
    pair_indices,
    result_frame,
)
from .comparing.rules import (
    CI_METHODS,
    CORRECTION_CHOICES,
    CORRECTIONS,
    EVALUATE_OPTIONS,
    PAIRS,
    TESTS,
    check_system_column,
    default_correction,
)
from .core import progress as progress_
from .core.columns import Columns, column_list, judgment_columns
from .display import OUTPUT_COLUMNS, comparison_frame
from .evaluate import evaluate, parse_metrics
from .measures.names import Measure
from .stats.randomization import N_RESAMPLES, call_seed
from .tables import inputs

if TYPE_CHECKING:
    from .comparing.rules import CiMethod, CorrectionChoice, Pairs, Test
    from .evaluate import Engine
    from .stats.align import Missing
    from .stats.paired import Alternative
    from .stats.wilcoxon import ZeroMethod
    from .tables.inputs import Output

__all__ = [
    "CI_METHODS",
    "CORRECTIONS",
    "CORRECTION_CHOICES",
    "EVALUATE_OPTIONS",
    "NOTE_ALL_ZERO",
    "NOTE_ALL_ZERO_TUKEY",
    "NOTE_BASELINE_ABSENT",
    "NOTE_CONSTANT",
    "NOTE_NO_QUERY",
    "NOTE_ONE_QUERY",
    "NOTE_SYSTEM_ABSENT",
    "OUTPUT_COLUMNS",
    "PAIRS",
    "TESTS",
    "check_system_column",
    "compare",
    "default_correction",
    "pair_indices",
    "result_frame",
]

# the private names other modules and tests import from here (the CLI: _check_parameters, _pick_baseline)
_hint = _rules.hint
_check_parameters = _rules.check_parameters
_family_columns = _rules.family_columns
_check_columns = _rules.check_frame_system
_pick_baseline = _rules.pick_baseline
_source_baseline = _rules.source_baseline
_codes = _frame.per_query_codes
_misaligned_error = _frame.misaligned_error
_family_groups = _frame.family_groups


def compare(
    df: pd.DataFrame,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    system: str | None = None,
    baseline: object = None,
    by: str | Sequence[str] | None = None,
    test: Test | None = None,
    ci: float = 0.95,
    ci_method: CiMethod | None = None,
    correction: CorrectionChoice | None = "auto",
    family: str | Sequence[str] = "all",
    pairs: Pairs = "baseline",
    alternative: Alternative | None = None,
    margin: float | None = None,
    zero_method: ZeroMethod = "wilcox",
    n_resamples: int = N_RESAMPLES,
    seed: int | None = None,
    missing: Missing = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    engine: Engine = "pandas",
    output: Output = "pandas",
    progress: bool | None = None,
    **options: Any,
) -> pd.DataFrame | Any:  # a DataFrame; with output='arrow'/'polars' a Table (optional packages: Any)
    """Compare systems on the same queries, per segment and metric: paired tests, intervals, corrections.

    Every (segment, metric, system) gets one row comparing the system with the baseline on the queries both
    were evaluated on (``pairs="baseline"``), or every pair of systems (``pairs="all"``).

    Parameters
    ----------
    df : table
        The long ranking table, any kind :func:`rankframe.evaluate` takes (pandas, Arrow, polars, ...), with a
        column naming the system of each row.
    metrics : str or list of str
        Metric names, e.g. ``["AP@10", "nDCG@10"]``, as for :func:`rankframe.evaluate` (trec_eval's
        ``"iprec_at_recall"`` stands for its 11 levels ``IPrec@0.0`` ... ``IPrec@1.0``; each metric once). A
        set-level beyond-accuracy metric (``Coverage``, ``Gini``, ``Entropy``, ``Personalization``,
        ``aggregate='rows'``) is compared by a paired bootstrap over queries with ``n_resamples`` and ``seed``: the
        interval and p-value of the resampled deltas centred on the delta (which it always holds), its rows noted
        so (``docs/comparing.md``, "Set-level metrics"; decision 19).
    system : str, optional
        The system column (default: ``columns.system``, i.e. ``"system"``, what ``read_trec`` writes).
    baseline : optional
        The system every other one is compared with (``pairs="baseline"``); default: the system of the table's
        first row. With ``pairs="all"`` it only comes first in the pair order. Several baselines as a list
        (``["production", "bm25"]``, ``pairs="baseline"``): every other system against each of them in turn, and
        each later baseline against the earlier ones once; the correction runs over all these rows.
    by : str or list of str, optional
        Segment columns; every segment is compared separately.
    test : {"t", "randomization", "wilcoxon", "tukey"}, optional
        ``"t"`` (default with ``pairs="baseline"``): paired t-test on the per-query differences.
        ``"randomization"``: paired sign-flip test with ``n_resamples`` flips, ``p = (hits + 1) / (B + 1)``
        (exact enumeration when a segment has at most log2(n_resamples) queries).
        ``"wilcoxon"``: signed-rank test; absolute differences equal to within a relative 1e-9 are tied
        (float noise no longer ranks P@10's 0.3 - 0.2 and 0.4 - 0.3 apart); exact, permutation or normal
        approximation by rankframe's own rule (docs/comparing.md, "Wilcoxon: ties and method").
        ``"tukey"`` (default with ``pairs="all"``): blocked Tukey HSD (two-way ANOVA without replication,
        studentized range), p-values simultaneous over the pairs of each segment and metric.
    ci : float, default 0.95
        Level of the interval ``[ci_low, ci_high]`` around ``delta``.
    ci_method : {"t", "bootstrap", "bca", "tukey"}, optional
        ``"t"`` (default): ``delta -+ t_{n-1} * sd / sqrt(n)``; ``"bootstrap"``: paired percentile bootstrap
        with ``n_resamples`` resamples; ``"bca"``: the bias-corrected and accelerated (BCa) interval from the same
        resamples (``scipy.stats.bootstrap(method="BCa")``; :mod:`rankframe.stats.bootstrap`); ``"tukey"`` (default
        with ``test="tukey"``): Tukey simultaneous interval.
    correction : {"auto", "holm", "bonferroni", "bh", "westfall-young", None}, default "auto"
        Multiple-testing correction of ``p_value`` into ``p_adjusted``, over the family. ``"auto"``: ``"holm"``,
        except after ``test="tukey"``, whose p-values already hold simultaneously for every pair of a segment and
        metric: there it is ``None`` (Holm on top would correct them twice). The value used is in
        ``out.attrs["correction"]``. ``"westfall-young"``: the max-|t| step-down resampling adjustment over the
        randomization test's own sign flips (:mod:`rankframe.stats.westfall_young`); needs
        ``test="randomization"`` and a family within one segment (``family=`` naming every ``by`` column).
        ``ci_low_adjusted``/``ci_high_adjusted`` is the interval that agrees with ``p_adjusted``
        (docs/decisions/0017-adjusted-intervals.md).
    family : "all" or column name(s), default "all"
        The family the correction runs over: every comparison of the call (default), or separately per value of
        the named output columns (e.g. ``family="metric"``: one family per metric).
    pairs : {"baseline", "all"}, default "baseline"
        Every system against the baseline, or every pair of systems.
    alternative : {"two-sided", "greater", "less"}, optional
        The alternative hypothesis of the test: ``"two-sided"`` (default), ``"greater"`` (the system's mean above
        the baseline's: delta > 0) or ``"less"``; t, randomization and Wilcoxon tests (Tukey's HSD is two-sided).
        One-sided, the interval is the one-sided bound at level ``ci``: ``[ci_low, inf)`` for ``"greater"``,
        ``(-inf, ci_high]`` for ``"less"``. ``delta`` is ``system - baseline`` whatever the metric's direction, so
        ``"greater"`` is "the system is better" where higher is better and "worse" where lower is better (ARP,
        Gini, Calibration: :func:`rankframe.direction`). Default with a ``margin``: the side of "not worse",
        ``"greater"`` (``"less"`` where lower is better).
    margin : float, optional
        Non-inferiority margin, in the metric's units, "worse" in the metric's direction: where higher is better the
        t-test of H0 ``delta <= -margin`` against ``delta > -margin`` (``statistic = (delta + margin) / (sd_diff /
        sqrt(n))``, one-sided, ``alternative="greater"``); where lower is better (ARP, Gini, Calibration) of H0
        ``delta >= margin`` against ``delta < margin`` (``statistic = (delta - margin) / (sd_diff / sqrt(n))``,
        ``alternative="less"``). A small ``p_adjusted`` shows the system is not worse than the baseline by
        ``margin`` or more; the one-sided bound (``ci_low`` above ``-margin``, or ``ci_high`` below ``margin``)
        says the same. Needs ``test="t"``, metrics of one direction, and no metric without one (a count).
    zero_method : {"wilcox", "pratt"}, default "wilcox"
        How ``test="wilcoxon"`` treats queries with a zero difference: dropped before ranking (Wilcoxon's), or
        ranked with the others and then dropped (Pratt 1959; ``scipy.stats.wilcoxon(zero_method="pratt")``).
        Recorded in ``out.attrs["zero_method"]`` after a Wilcoxon test.
    n_resamples : int, default 10000
        Sign flips (randomization) or resamples (bootstrap); at most 10**7
        (:data:`rankframe.stats.randomization.MAX_RESAMPLES`), checked before any work.
    seed : int, optional
        Seed of every random draw of the call; ``None`` draws fresh entropy once, recorded in
        ``out.attrs["seed"]``: ``seed=out.attrs["seed"]`` reproduces every p-value and interval.
    missing : {"error", "zero", "drop"}, default "error"
        A query that some systems of a segment have a value for and others have not (no row, or NaN): an
        error naming a few of them, counted as 0 for the systems that lack it (``trec_eval -c``), or dropped
        from that segment's comparisons for that metric.
    columns : Columns or dict, optional
        Column names of ``df`` (and ``qrels``).
    qrels : table, optional
        Separate judgments, as in :func:`rankframe.evaluate`.
    engine : {"pandas", "duckdb"}
        Where the per-query metrics are computed (same numbers).
    output : {"pandas", "arrow", "polars"}, default "pandas"
        The type of the result (``out.attrs`` exist only on the pandas result).
    progress : bool, optional
        Show a progress bar for the resampling tests and DuckDB queries (True), never (False), or when the
        session is interactive (None; see ``rankframe.progress`` for the switches).
    **options
        Passed on to :func:`rankframe.evaluate`: ``no_relevant``, ``no_retrieved``, ``no_judged``,
        ``validate``, ``allow_duplicates``, ...

    Returns
    -------
    DataFrame
        A :class:`rankframe.display.ComparisonFrame` (a plain DataFrame that Jupyter shows as a styled table).
        Columns ``[*by, metric, system, baseline, n, mean, baseline_mean, delta, ci_low, ci_high, p_value,
        p_adjusted, ci_low_adjusted, ci_high_adjusted, statistic, df, sd_diff, effect_size, hedges_gz, hedges_gz_low,
        hedges_gz_high, hl_estimate, hl_low, hl_high, mde, wins, ties, losses, note]``: ``n`` queries compared, the
        two means over them, ``delta = mean - baseline_mean`` (the mean per-query difference),
        ``[ci_low_adjusted, ci_high_adjusted]`` the interval that agrees with ``p_adjusted``
        (the t interval at ``alpha / m`` for Holm and Bonferroni, ``R * alpha / m`` for BH, the max-|t| critical
        value for Westfall-Young, ``[ci_low, ci_high]`` without a correction), ``statistic`` and
        ``df`` the test's statistic and degrees of freedom (t-test: t and n - 1; Wilcoxon: min(W+, W-), df NaN;
        randomization: the mean difference, df NaN; Tukey: q and the error df (n - 1)(k - 1)), ``sd_diff`` the
        sample standard deviation of the per-query differences, ``effect_size = delta / sd_diff``, ``hedges_gz``
        its small-sample (Hedges) correction ``J(n - 1) * effect_size`` with the exact gamma-function ``J`` and
        ``[hedges_gz_low, hedges_gz_high]`` its noncentral-t interval at level ``ci`` (NaN for n < 3;
        :mod:`rankframe.stats.effect_size`), ``hl_estimate`` the Hodges-Lehmann estimate (median of the Walsh
        averages of the non-zero differences) and ``[hl_low, hl_high]`` its interval from the signed-rank
        distribution (exact or normal by the test's own rule; R's ``wilcox.test(conf.int=TRUE)`` in the exact case),
        after ``test="wilcoxon"`` only (NaN otherwise; :mod:`rankframe.stats.hodges_lehmann`), ``mde`` the
        minimum detectable effect (the ``|delta|`` a paired t-test at level ``1 - ci``, uncorrected, on the same
        alternative, detects with 80% power on these ``n`` queries and this ``sd_diff``: :func:`rankframe.power`),
        ``wins/ties/losses`` = queries where the system is better than / equal to / worse than the baseline in
        the metric's direction (:func:`rankframe.direction`: a win of ARP is a lower value; a metric without a
        direction, such as NumRet, has NA wins and losses), two values being equal when
        ``|a - b| <= 1e-12 * max(1, |a|, |b|)`` (:func:`rankframe.stats.equal`),
        ``note`` = why a value is NaN (None otherwise). ``out.attrs`` records ``test``, ``ci_method``, ``ci``,
        ``correction``, ``family``, ``pairs``, ``missing``, ``alternative``, ``margin`` (None without one), ``mde``,
        ``effect_size`` (``"d_z = delta / sd of the differences"``, Cohen's d_z) and, for random methods,
        ``n_resamples`` and ``seed``; the caption of the displayed table says the same.

    Raises
    ------
    ValidationError
        No system column, fewer than 2 systems, null system names, misaligned queries (``missing="error"``),
        or any table rule of :func:`rankframe.evaluate`.
    ParameterError
        A bad argument, an unknown baseline (with a did-you-mean hint), ``by`` containing the system column.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankframe.compare import compare
    >>> df = pd.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "query": [1, 1, 2, 2, 3, 3] * 2,
    ...                    "item": ["a", "b"] * 6, "rank": [1, 2] * 6,
    ...                    "relevance": [0, 1, 0, 1, 1, 0,   1, 0, 1, 0, 0, 1]})
    >>> out = compare(df, "RR", baseline="A")   # RR: A = 1/2, 1/2, 1; B = 1, 1, 1/2
    >>> out[["metric", "system", "baseline", "n", "delta", "wins", "ties", "losses"]]
      metric system baseline  n     delta  wins  ties  losses
    0     RR      B        A  3  0.166667     2     0       1
    """
    call = checked_call(
        df,
        metrics,
        system=system,
        baseline=baseline,
        by=by,
        test=test,
        ci=ci,
        ci_method=ci_method,
        correction=correction,
        family=family,
        pairs=pairs,
        alternative=alternative,
        margin=margin,
        zero_method=zero_method,
        n_resamples=n_resamples,
        seed=seed,
        missing=missing,
        columns=columns,
        qrels=qrels,
        engine=engine,
        output=output,
        **options,
    )
    measures = parse_metrics(call.names, "compare")
    set_level = [m for m in measures if beyond_arguments.is_set_level(m)]

    def per_query(labels: list[str], passed: dict[str, Any]) -> pd.DataFrame:
        by = [*call.by, call.system]
        return evaluate(call.df, labels, by=by, per_query=True, columns=call.columns, qrels=call.qrels, **passed)

    def per_list_rows(labels: list[str], passed: dict[str, Any], p: dict[str, Any]) -> pd.DataFrame:
        per = per_query(labels, passed)
        return _compare_per_query(per, labels, call.by, call.columns.query, call.system, call.baseline, p)

    with progress_.using(progress):  # set-level metrics: a paired bootstrap over queries (docs/comparing.md)
        if set_level:
            rows = _sets.compare(call, measures, set_level, {**options, "engine": engine}, per_list_rows)
        else:
            rows = per_query(call.names, {**options, "engine": engine})
        out = comparison_frame(rows) if set_level else compare_values(rows, call)
    return inputs.from_pandas(out, call.output)


class CheckedCall(NamedTuple):
    """A :func:`compare` call with its arguments checked, before any evaluation.

    What :func:`compare` and :func:`rankframe.report.report` share: the report evaluates the per-query values
    once for its tables and plots and hands them to :func:`compare_values`.
    """

    df: Any  # a pandas DataFrame, or a file / DuckDB relation evaluated in DuckDB
    qrels: Any
    names: list[str]  # the canonical metric labels, in the order asked
    by: list[str]
    system: str
    baseline: object
    columns: Columns  # with the system column
    p: dict[str, Any]  # the statistical parameters, normalised
    output: str


def checked_call(
    df: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    system: str | None = None,
    baseline: object = None,
    by: str | Sequence[str] | None = None,
    test: str | None = None,
    ci: float = 0.95,
    ci_method: str | None = None,
    correction: str | None = "auto",
    family: str | Sequence[str] = "all",
    pairs: str = "baseline",
    alternative: str | None = None,
    margin: float | None = None,
    zero_method: str = "wilcox",
    n_resamples: int = N_RESAMPLES,
    seed: int | None = None,
    missing: str = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    engine: str = "pandas",
    output: str = "pandas",
    progress: bool | None = None,
    **options: Any,
) -> CheckedCall:
    """Every check of :func:`compare` that comes before the evaluation, in its order; the baseline picked."""
    columns = Columns.coerce(columns)
    if system is None:
        system = columns.system
    elif isinstance(system, str) and system != columns.system:
        columns = columns.with_(system=system)  # the qrels join scores every system on every judged query
    by = column_list(by, "compare")
    p = _check_parameters(
        dict(
            pairs=pairs,
            test=test,
            ci_method=ci_method,
            ci=ci,
            correction=correction,
            alternative=alternative,
            margin=margin,
            zero_method=zero_method,
            missing=missing,
            n_resamples=n_resamples,
            seed=seed,
            engine=engine,
            options=options,
        )
    )
    # evaluate's rule for a list of metrics: trec_eval's iprec_at_recall is its 11 levels, each metric once
    names = [str(m) for m in parse_metrics(metrics, "compare", face="compare")]
    p["alternative"] = _rules.margin_side(names, p["margin"], p["alternative"], p["alternative_asked"])
    p["family"] = _family_columns(family, by)
    _rules.check_family_correction(p["family"], by, p["correction"])
    output = inputs.check_output(output, "compare")
    if inputs.kind(df) in ("path", "relation") and qrels is None:
        # a file or DuckDB relation: the per-query values are computed in DuckDB (evaluate's file road), and the
        # system column is checked there too; no pandas copy of the table (issue 10)
        baseline = _source_baseline(df, system, baseline, by, columns, p["pairs"], options.get("duckdb_config"))
    else:
        df = inputs.to_pandas(df, owner="compare", name="df", columns=columns)
        if qrels is not None:
            judged = judgment_columns(columns, options.get("qrels_columns"), "compare")
            qrels = inputs.to_pandas(qrels, owner="compare", name="qrels", columns=judged)
        _check_columns(df, system, by, columns)
        baseline, _ = _pick_baseline(df, system, baseline, p["pairs"])
    return CheckedCall(df, qrels, names, by, system, baseline, columns, p, output)


def compare_values(per: pd.DataFrame, call: CheckedCall, by: list[str] | None = None) -> pd.DataFrame:
    """The comparison from per-query values already computed (``evaluate(..., by=[*by, system], per_query=True)``).

    ``by`` (default: the call's) may be ``[]`` for the comparison over all queries of values evaluated per segment
    when every query lies in one segment (the report's overall table).
    """
    by = call.by if by is None else by
    return comparison_frame(
        _compare_per_query(per, call.names, by, call.columns.query, call.system, call.baseline, call.p)
    )


def _compare_per_query(
    per: pd.DataFrame, names: list[str], by: list[str], query: str, system: str, baseline: object, p: dict[str, Any]
) -> pd.DataFrame:
    """Everything after evaluation: codes, alignment, tests, intervals, corrections, the output frame."""
    test, ci_method, ci, pairs = p["test"], p["ci_method"], p["ci"], p["pairs"]
    alternative, margin = p.get("alternative", "two-sided"), p.get("margin")
    seg_keys, offsets, row, row_q, q_uniques, m_codes, s_codes, s_uniques = _codes(per, by, query, system, names)
    n_rows, n_metrics, n_systems = offsets[-1], len(names), len(s_uniques)
    values, exists = stats.pivot(
        row, m_codes, s_codes, per["value"].to_numpy(np.float64), (n_rows, n_metrics, n_systems)
    )
    alignment = stats.align(values, exists, offsets, p["missing"])
    if p["missing"] == "error" and alignment.misaligned[0].size:
        row_seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        raise _misaligned_error(alignment, seg_keys, by, row_seg, row_q, q_uniques, names, s_uniques, query, system)
    values = alignment.values

    labels = list(s_uniques)
    pair_idx = pair_indices(n_systems, _rules.baseline_positions(labels, baseline), pairs)
    n_pairs = len(pair_idx)
    filled, dropped = alignment.pair_counts(offsets, pair_idx)
    x = values[:, :, pair_idx[:, 0]].reshape(n_rows, n_metrics * n_pairs)
    y = values[:, :, pair_idx[:, 1]].reshape(n_rows, n_metrics * n_pairs)
    summary = stats.summarize(x, y, offsets)
    n_seg = len(offsets) - 1
    attrs: dict[str, Any] = {}
    seed = None
    if test == "randomization" or ci_method in _rules.BOOTSTRAP_CI_METHODS:  # one seed for every random draw
        seed = call_seed(p["seed"])
        attrs.update(n_resamples=p["n_resamples"], seed=seed)
    tukey = anova = hl = None
    if test == "tukey" or ci_method == "tukey":
        anova = stats.blocked_anova(values, offsets)
        tukey = stats.tukey_hsd(anova, pair_idx, ci)
    nan = np.full(summary.n.shape, np.nan)
    if test == "t":
        tt = stats.ttest(summary, ci, alternative, margin or 0.0)
        pvalue, statistic, df = tt.pvalue, tt.statistic, tt.df
    elif test == "randomization":
        with progress_.bar("compare: randomization test", unit="flips"):
            res = stats.sign_flip_test(x, y, offsets, p["n_resamples"], seed, alternative)
        pvalue, statistic, df = res.pvalue, summary.delta, nan  # the statistic: the mean difference (= sum / n)
        attrs.update(exact_segments=int(res.exact.sum()))
    elif test == "wilcoxon":
        wx = stats.wilcoxon_test(x, y, offsets, alternative, p.get("zero_method", "wilcox"))
        attrs.update(zero_method=p.get("zero_method", "wilcox"))
        pvalue, statistic, df = wx.pvalue, wx.statistic, nan
        hl = stats.hodges_lehmann(x, y, offsets, wx, ci, alternative)
    else:
        assert tukey is not None and anova is not None  # test == "tukey" computed them above
        pvalue, statistic = tukey.pvalue.reshape(n_seg, -1), tukey.q.reshape(n_seg, -1)
        df = np.repeat(anova.df.astype(np.float64), n_pairs, axis=1)  # the error df of each (segment, metric)
    if ci_method == "t":
        tt = stats.ttest(summary, ci, alternative)
        low, high = tt.ci_low, tt.ci_high
    elif ci_method in _rules.BOOTSTRAP_CI_METHODS:  # the same resamples; BCa reads them at corrected levels
        method = "bca" if ci_method == "bca" else "percentile"
        with progress_.bar("compare: bootstrap", unit="resamples"):
            boot = stats.bootstrap_ci(x, y, offsets, ci, p["n_resamples"], seed, alternative, method)
        low, high = boot.ci_low, boot.ci_high
    else:
        assert tukey is not None  # ci_method == "tukey" computed it above
        low, high = tukey.ci_low.reshape(n_seg, -1), tukey.ci_high.reshape(n_seg, -1)

    resampled = None
    if p["correction"] == "westfall-young":  # the same sign flips as the randomization test above (same seed)

        def resampled(families: np.ndarray) -> stats.WestfallYoungResult:
            with progress_.bar("compare: Westfall-Young", unit="flips"):
                return stats.westfall_young(x, y, offsets, families, p["n_resamples"], seed, alternative, ci)

    out = result_frame(
        seg_keys if by else None,
        names,
        pd.Index(s_uniques),
        pair_idx,
        summary,
        pvalue,
        low,
        high,
        alignment.present,
        p,
        statistic=statistic,
        df=df,
        test=test,
        ci_method=ci_method,
        baseline=baseline,
        resampled=resampled,
        filled=filled,
        dropped=dropped,
        hl=hl,
    )
    out.attrs.update(attrs)
    if p["missing"] != "error":
        out.attrs.update(filled=alignment.n_filled, dropped=alignment.n_dropped)
    return out
