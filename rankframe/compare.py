"""``rankframe.compare``: did system B beat system A, on which metric, in which segment — with honest uncertainty.

The per-query values come from :func:`rankframe.evaluate` (``per_query=True``, the system column added to
``by``); :mod:`rankframe.stats` aligns them by query and runs every test, interval and correction on all
comparisons at once. See ``docs/comparing.md`` for which test to use when and how to read the output.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from . import inputs, stats
from . import progress as progress_
from .columns import Columns, column_list
from .display import EFFECT_SIZE, OUTPUT_COLUMNS, comparison_frame
from .errors import ParameterError, ValidationError, close_match, missing_columns_error, parameter_error
from .evaluate import evaluate, evaluate_parameters, parse_metrics
from .names import Measure
from .stats.align import MISSING
from .stats.randomization import call_seed, check_n_resamples

TESTS = ("t", "randomization", "wilcoxon", "tukey")
CI_METHODS = ("t", "bootstrap", "tukey")
PAIRS = ("baseline", "all")
CORRECTIONS = stats.CORRECTIONS
#: ``correction=`` values: ``"auto"`` (the default) is no correction after Tukey's HSD, Holm otherwise
CORRECTION_CHOICES = ("auto", *CORRECTIONS)
#: ``evaluate`` options that ``compare`` passes through unchanged (``**options``)
_OWN = {"df", "metrics", "by", "per_query", "columns", "qrels", "engine", "output", "progress"}
EVALUATE_OPTIONS = tuple(p.name for p in evaluate_parameters(without=_OWN))

NOTE_SYSTEM_ABSENT = "system has no queries in this segment"
NOTE_BASELINE_ABSENT = "baseline has no queries in this segment"
NOTE_NO_QUERY = "no query compared"
NOTE_ONE_QUERY = "only 1 query: no test, interval or effect size (n < 2)"
NOTE_ALL_ZERO = "identical on every query (all differences 0): no p-value"
NOTE_ALL_ZERO_TUKEY = "identical on every query (all differences 0): no effect size"
NOTE_CONSTANT = "every difference is the same (sd = 0)"


def _hint(name: object, known: Iterable[object]) -> str:
    close = close_match(name, known, ignore_case=False)
    return f" Hint: did you mean {close!r}?" if close else ""


def _choice(name: str, value: object, choices: Sequence[object]) -> Any:
    if isinstance(value, str):
        value = value.lower()
    if value not in choices:
        raise parameter_error("compare", name, "one of " + ", ".join(map(repr, choices)), value)
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_parameters(p: dict[str, Any]) -> dict[str, Any]:
    """Check every parameter that does not need the data; return them normalised."""
    p["pairs"] = _choice("pairs", p["pairs"], PAIRS)
    if p["test"] is None:
        p["test"] = "tukey" if p["pairs"] == "all" else "t"
    p["test"] = _choice("test", p["test"], TESTS)
    if p["test"] == "tukey" and p["pairs"] != "all":
        raise ParameterError(
            "test='tukey' compares every pair of systems at once (the blocked Tukey HSD); pass "
            "pairs='all' with it, or use test='t', 'randomization' or 'wilcoxon' against a baseline"
        )
    if p["ci_method"] is None:
        p["ci_method"] = "tukey" if p["test"] == "tukey" else "t"
    p["ci_method"] = _choice("ci_method", p["ci_method"], CI_METHODS)
    if p["ci_method"] == "tukey" and p["test"] != "tukey":
        raise ParameterError(
            "ci_method='tukey' (simultaneous Tukey intervals) needs test='tukey'; with "
            f"test={p['test']!r} use ci_method='t' or 'bootstrap'"
        )
    ci = p["ci"]
    if isinstance(ci, (bool, np.bool_)) or not isinstance(ci, (int, float, np.floating, np.integer)) or not 0 < ci < 1:
        raise parameter_error("compare", "ci", "a float in the open interval (0, 1), e.g. 0.95", ci)
    p["ci"] = float(ci)
    p["correction"] = default_correction(_choice("correction", p["correction"], CORRECTION_CHOICES), p["test"])
    p["missing"] = _choice("missing", p["missing"], MISSING)
    p["n_resamples"] = check_n_resamples(p["n_resamples"], "compare")
    seed = p["seed"]
    if seed is not None and not (_is_int(seed) and seed >= 0):
        raise parameter_error("compare", "seed", "None or an int >= 0", seed)
    if not isinstance(p["engine"], str) or p["engine"].lower() not in ("pandas", "duckdb"):
        raise parameter_error("compare", "engine", "one of 'pandas', 'duckdb'", p["engine"])
    for key in p["options"]:
        if key not in EVALUATE_OPTIONS:
            raise ParameterError(
                f"compare got an unknown option {key!r}; the evaluate options it passes on are "
                f"{list(EVALUATE_OPTIONS)}.{_hint(key, EVALUATE_OPTIONS)}"
            )
    return p


def default_correction(correction: str | None, test: str) -> str | None:
    """The correction ``"auto"`` stands for: none after Tukey's HSD, Holm after any other test.

    Tukey's p-values already control the family-wise error rate over the pairs of each segment and metric; Holm on
    top would correct them a second time.
    """
    if correction != "auto":
        return correction
    return None if test == "tukey" else "holm"


def check_system_column(system: object, by: list[str], columns: Columns, present: list, rename_hint: str) -> None:
    """The rules of the ``system`` argument shared by every face of compare (pandas and Spark).

    ``present`` lists the table's columns; ``rename_hint`` formats a rename call of that face for a column name.
    """
    if not isinstance(system, str):
        raise parameter_error("compare", "system", "a column name (str)", system)
    if system in by:
        raise ParameterError(
            f"the system column {system!r} is also in by={by}: compare adds it to the segments "
            "itself; by= names only the segment columns (country, device, ...)"
        )
    roles = {r: getattr(columns, r) for r in ("query", "item", "rank", "relevance", "score")}
    taken = [r for r, c in roles.items() if c == system]
    if taken:
        raise ParameterError(
            f"the system column {system!r} is the table's {taken[0]} column; pass system= the "
            "column that names the system (run) of each row"
        )
    clash = [c for c in by if c in (*OUTPUT_COLUMNS, "value")] + [c for c in [system] if c in ("metric", "value")]
    if clash:
        raise ParameterError(
            f"the column {clash[0]!r} has the name of an output column of compare "
            f"{list(OUTPUT_COLUMNS)}; rename it first, e.g. {rename_hint.format(name=clash[0])}"
        )
    if system not in present:
        raise missing_columns_error([system], list(present))


def _check_columns(df: pd.DataFrame, system: str, by: list[str], columns: Columns) -> None:
    if not isinstance(df, pd.DataFrame):
        raise parameter_error("compare", "df", "a pandas DataFrame", type(df).__name__)
    check_system_column(system, by, columns, list(df.columns), "df.rename(columns={{{name!r}: '{name}_'}})")
    nulls = df[system].isna()
    if nulls.any():
        raise ValidationError(
            [
                {
                    "column": system,
                    "rule": "every row must name its system (no null values)",
                    "count": int(nulls.sum()),
                    "examples": df[nulls].head(5),
                }
            ]
        )


def _source_baseline(
    source: object, system: str, baseline: object, by: list[str], columns: Columns, pairs: str, config: object
) -> object:
    """``_check_columns`` and ``_pick_baseline`` for a file or DuckDB relation, from one aggregate in DuckDB."""
    from .engines import duckdb_source

    info = duckdb_source.systems(source, system, duckdb_source.settings_from(config))
    check_system_column(system, by, columns, info.columns, "a view that renames it (SELECT * RENAME ({name} AS ...))")
    if info.nulls:
        raise ValidationError(
            [
                {
                    "column": system,
                    "rule": "every row must name its system (no null values)",
                    "count": info.nulls,
                    "examples": info.examples,
                }
            ]
        )
    seen = pd.DataFrame({system: pd.Series([*([info.first] if info.found else []), *info.found], dtype=object)})
    return _pick_baseline(seen, system, baseline, pairs)[0]


def _pick_baseline(df: pd.DataFrame, system: str, baseline: object, pairs: str) -> tuple[object, list]:
    """The baseline (checked against the systems of the table) and the systems found."""
    found = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(df[system])]
    if len(found) < 2:
        raise ValidationError(
            [
                {
                    "column": system,
                    "rule": f"compare needs at least 2 systems in column {system!r}; found {len(found)}: {found[:5]}",
                    "count": 0,
                    "examples": None,
                }
            ]
        )
    if baseline is None:
        return (df[system].iloc[0] if pairs == "baseline" else None), found
    matches = [s for s in found if s == baseline or str(s) == str(baseline)]
    exact = [s for s in found if s == baseline]
    if not exact:
        hint = f" (the table's value {matches[0]!r} has another type)" if matches else _hint(baseline, found)
        shown = sorted(found, key=str)[:20]
        raise ParameterError(
            f"The 'baseline' parameter of compare must be one of the systems in column "
            f"{system!r}: {shown}. Got {baseline!r} instead.{hint}"
        )
    return exact[0], found


def _codes(per: pd.DataFrame, by: list[str], query: str, system: str, names: list[str]):
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


def _misaligned_error(
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
    rows, metric, sysc = alignment.misaligned
    take = slice(0, 5)
    ex = seg_keys.iloc[row_seg[rows[take]]].reset_index(drop=True) if by else pd.DataFrame(index=range(len(rows[take])))
    ex[query] = np.asarray(q_uniques)[row_q[rows[take]]]
    ex["metric"] = np.asarray(names, dtype=object)[metric[take]]
    ex[f"{system} without a value"] = np.asarray(s_uniques)[sysc[take]]
    n_queries = len(np.unique(rows))
    rule = (
        f"systems must be compared on the same queries within a segment, but {n_queries} (segment, query) "
        f"unit(s) have a value for some systems and none (no row, or NaN) for others. Pass missing='zero' to "
        f"count such a query as 0 for the system that lacks it (like trec_eval -c), or missing='drop' to leave "
        f"it out of that segment's comparisons"
    )
    return ValidationError([{"column": system, "rule": rule, "count": len(rows), "examples": ex}])


def _family_columns(family: object, by: list[str]) -> list[str]:
    """The output columns that split the correction family ([] = one family: every comparison of the call)."""
    allowed = ["metric", *by, "system", "baseline"]
    if isinstance(family, str) and family.lower() == "all":
        return []
    cols = [family] if isinstance(family, str) else family
    if not isinstance(cols, (list, tuple)) or not cols or not all(isinstance(c, str) for c in cols):
        raise parameter_error("compare", "family", f"'all' or column name(s) among {allowed}", family)
    bad = [c for c in cols if c not in allowed]
    if bad:
        raise ParameterError(
            f"The 'family' parameter of compare must be 'all' or column name(s) among {allowed}. "
            f"Got {family!r} instead.{_hint(bad[0], allowed)}"
        )
    return list(dict.fromkeys(cols))


def _family_groups(out: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, str]:
    if not cols:
        return np.zeros(len(out), dtype=np.int64), f"all {len(out)} comparisons of the call"
    groups = out.groupby(cols, sort=False, dropna=False, observed=True).ngroup().to_numpy(np.int64)
    count = int(groups.max()) + 1 if len(groups) else 0
    return groups, f"per {', '.join(cols)} ({count} {'family' if count == 1 else 'families'})"


def compare(
    df: pd.DataFrame,
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
    n_resamples: int = 10_000,
    seed: int | None = None,
    missing: str = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    engine: str = "pandas",
    output: str = "pandas",
    progress: bool | None = None,
    **options: Any,
) -> Any:
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
        ``"iprec_at_recall"`` stands for its 11 levels ``IPrec@0.0`` ... ``IPrec@1.0``; each metric once).
    system : str, optional
        The system column (default: ``columns.system``, i.e. ``"system"``, what ``read_trec`` writes).
    baseline : optional
        The system every other one is compared with (``pairs="baseline"``); default: the system of the table's
        first row. With ``pairs="all"`` it only comes first in the pair order.
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
    ci_method : {"t", "bootstrap", "tukey"}, optional
        ``"t"`` (default): ``delta -+ t_{n-1} * sd / sqrt(n)``; ``"bootstrap"``: paired percentile bootstrap
        with ``n_resamples`` resamples; ``"tukey"`` (default with ``test="tukey"``): Tukey simultaneous interval.
    correction : {"auto", "holm", "bonferroni", "bh", None}, default "auto"
        Multiple-testing correction of ``p_value`` into ``p_adjusted``, over the family. ``"auto"``: ``"holm"``,
        except after ``test="tukey"``, whose p-values already hold simultaneously for every pair of a segment and
        metric: there it is ``None`` (Holm on top would correct them twice). The value used is in
        ``out.attrs["correction"]``.
    family : "all" or column name(s), default "all"
        The family the correction runs over: every comparison of the call (default), or separately per value of
        the named output columns (e.g. ``family="metric"``: one family per metric).
    pairs : {"baseline", "all"}, default "baseline"
        Every system against the baseline, or every pair of systems.
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
        p_adjusted, effect_size, wins, ties, losses, note]``: ``n`` queries compared, the two means over them,
        ``delta = mean - baseline_mean`` (the mean per-query difference), ``effect_size = delta / sd`` of the
        differences, ``wins/ties/losses`` = queries where the system is above / equal to / below the baseline,
        ``note`` = why a value is NaN (None otherwise). ``out.attrs`` records ``test``, ``ci_method``, ``ci``,
        ``correction``, ``family``, ``pairs``, ``missing``, ``alternative`` (``"two-sided"``: every p-value is),
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
        n_resamples=n_resamples,
        seed=seed,
        missing=missing,
        columns=columns,
        qrels=qrels,
        engine=engine,
        output=output,
        **options,
    )
    with progress_.using(progress):
        per = evaluate(
            call.df,
            call.names,
            by=[*call.by, call.system],
            per_query=True,
            columns=call.columns,
            qrels=call.qrels,
            engine=engine,
            **options,
        )
        out = compare_values(per, call)
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
    n_resamples: int = 10_000,
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
            missing=missing,
            n_resamples=n_resamples,
            seed=seed,
            engine=engine,
            options=options,
        )
    )
    # evaluate's rule for a list of metrics: trec_eval's iprec_at_recall is its 11 levels, each metric once
    names = [str(m) for m in parse_metrics(metrics, "compare")]
    p["family"] = _family_columns(family, by)
    output = inputs.check_output(output, "compare")
    if inputs.kind(df) in ("path", "relation") and qrels is None:
        # a file or DuckDB relation: the per-query values are computed in DuckDB (evaluate's file road), and the
        # system column is checked there too; no pandas copy of the table (issue 10)
        baseline = _source_baseline(df, system, baseline, by, columns, p["pairs"], options.get("duckdb_config"))
    else:
        df = inputs.to_pandas(df, owner="compare", name="df", columns=columns)
        if qrels is not None:
            qrels = inputs.to_pandas(qrels, owner="compare", name="qrels", columns=columns)
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
    baseline_at = None if baseline is None else next(i for i, s in enumerate(labels) if s == baseline)
    pair_idx = pair_indices(n_systems, baseline_at, pairs)
    n_pairs = len(pair_idx)
    x = values[:, :, pair_idx[:, 0]].reshape(n_rows, n_metrics * n_pairs)
    y = values[:, :, pair_idx[:, 1]].reshape(n_rows, n_metrics * n_pairs)
    summary = stats.summarize(x, y, offsets)
    n_seg = len(offsets) - 1
    attrs: dict[str, Any] = {}
    seed = None
    if test == "randomization" or ci_method == "bootstrap":  # one seed for every random draw of the call
        seed = call_seed(p["seed"])
        attrs.update(n_resamples=p["n_resamples"], seed=seed)
    tukey = None
    if test == "tukey" or ci_method == "tukey":
        tukey = stats.tukey_hsd(stats.blocked_anova(values, offsets), pair_idx, ci)
    if test == "t":
        pvalue = stats.ttest(summary, ci).pvalue
    elif test == "randomization":
        with progress_.bar("compare: randomization test", unit="flips"):
            res = stats.sign_flip_test(x, y, offsets, p["n_resamples"], seed)
        pvalue = res.pvalue
        attrs.update(exact_segments=int(res.exact.sum()))
    elif test == "wilcoxon":
        pvalue = stats.wilcoxon_test(x, y, offsets).pvalue
    else:
        assert tukey is not None  # test == "tukey" computed it above
        pvalue = tukey.pvalue.reshape(n_seg, -1)
    if ci_method == "t":
        tt = stats.ttest(summary, ci)
        low, high = tt.ci_low, tt.ci_high
    elif ci_method == "bootstrap":
        with progress_.bar("compare: bootstrap", unit="resamples"):
            boot = stats.bootstrap_ci(x, y, offsets, ci, p["n_resamples"], seed)
        low, high = boot.ci_low, boot.ci_high
    else:
        assert tukey is not None  # ci_method == "tukey" computed it above
        low, high = tukey.ci_low.reshape(n_seg, -1), tukey.ci_high.reshape(n_seg, -1)

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
        test=test,
        ci_method=ci_method,
        baseline=baseline,
    )
    out.attrs.update(attrs)
    if p["missing"] != "error":
        out.attrs.update(filled=alignment.n_filled, dropped=alignment.n_dropped)
    return out


def pair_indices(n_systems: int, baseline_at: int | None, pairs: str) -> np.ndarray:
    """(system, baseline) index pairs: each system against the baseline (first system when None), or all pairs."""
    order = list(range(n_systems))
    if baseline_at is not None:
        order = [baseline_at] + [i for i in order if i != baseline_at]
    if pairs == "baseline":
        return np.array([(j, order[0]) for j in order[1:]], dtype=np.int64).reshape(-1, 2)
    return np.array(
        [(order[j], order[i]) for i in range(n_systems) for j in range(i + 1, n_systems)], dtype=np.int64
    ).reshape(-1, 2)


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
    test: str,
    ci_method: str,
    baseline: object,
) -> pd.DataFrame:
    """Compare's output frame from the (segment, metric x pair) statistics: notes, NaNs, correction, columns.

    Shared by the pandas/DuckDB face and rankframe.spark.compare, so both give the same frame, dtypes included.
    ``seg_keys`` holds the segment columns (one row per segment, None without segments), ``present`` which
    systems have queries in each segment (segments x systems).
    """
    n_seg, n_metrics, n_pairs = present.shape[0], len(names), len(pair_idx)
    n = summary.n
    pvalue, low, high = pvalue.copy(), low.copy(), high.copy()
    effect = summary.effect_size
    note = np.full(n.shape, None, dtype=object)
    all_zero = (n >= 2) & (summary.ties == n)
    constant = (n >= 2) & ~all_zero & (summary.sd == 0)
    note[constant] = NOTE_CONSTANT
    if test == "tukey":  # Tukey's p-value of an identical pair is 1 (q = 0), not NaN: only the effect size is NaN
        note[all_zero] = NOTE_ALL_ZERO_TUKEY
    else:
        note[all_zero] = NOTE_ALL_ZERO
        pvalue[all_zero] = np.nan
    note[n == 1] = NOTE_ONE_QUERY
    note[n == 0] = NOTE_NO_QUERY
    sys_absent = ~present[:, pair_idx[:, 0]]
    base_absent = ~present[:, pair_idx[:, 1]]
    note3 = note.reshape(n_seg, n_metrics, n_pairs)
    note3[np.broadcast_to(base_absent[:, None, :], note3.shape)] = NOTE_BASELINE_ABSENT
    note3[np.broadcast_to(sys_absent[:, None, :], note3.shape)] = NOTE_SYSTEM_ABSENT
    few = n < 2
    for arr in (pvalue, effect, low, high):
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
    groups, family_text = _family_groups(out, p["family"])
    out["p_adjusted"] = stats.adjust(out["p_value"].to_numpy(), p["correction"], groups)
    out["effect_size"] = effect.ravel()
    out["wins"] = summary.wins.ravel().astype(np.int64)
    out["ties"] = summary.ties.ravel().astype(np.int64)
    out["losses"] = summary.losses.ravel().astype(np.int64)
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
        alternative="two-sided",
        effect_size=EFFECT_SIZE,
    )
    return out
