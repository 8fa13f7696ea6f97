"""``rankframe compare``: rankframe.compare's paired tests, intervals and corrections from the command line.

Its options are :func:`rankframe.compare.compare`'s parameters; their checks are the library's, reported in the
options' words (:func:`rankframe.cli._options._cli_words`). ``--fail-if-worse`` turns a significantly worse
system into exit status 1 (and nothing else does); with ``--margin`` it is a non-inferiority gate: a system not
shown non-inferior within the margin exits 1. One Parquet table is compared on DuckDB's road.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ..compare import compare
from ..core import progress as progress_mod
from ..core.columns import Columns
from ..core.errors import ParameterError, ValidationError
from ..evaluate import ENGINES
from ..measures.better import WORDS, direction, of_labels, verdicts
from ..stats.randomization import N_RESAMPLES
from ..tables.io import is_long
from ._load import (
    _beyond_inputs,
    _check_columns,
    _check_options,
    _load,
    _reads_grades,
    _sql_road,
    with_table_id_kinds,
)
from ._options import (
    COMMANDS,
    EXIT_OK,
    EXIT_WORSE,
    UsageError,
    _beyond_input_options,
    _check_level,
    _cli_words,
    _columns,
    _input_options,
    _policies,
    _policy_options,
    _split_by,
    _table_options,
    in_cli_words,
)
from ._render import _fmt_p, _print, _render_compare

COMPARE_FORMATS = ("table", "markdown", "csv", "json")


def add_parser(sub) -> None:
    """``rankframe compare``: rankframe.compare's parameters as options, the inputs and options of evaluate."""
    from ..compare import CI_METHODS, CORRECTIONS, PAIRS, TESTS
    from ..comparing.rules import ALTERNATIVES
    from ..stats.align import MISSING

    co = sub.add_parser(
        "compare",
        help=COMMANDS["compare"][1],
        description="Compare two or more systems (TREC runs with --qrels, several long tables, or one long\n"
        "table with a system column) on the same queries: per segment and metric, the difference with\n"
        "the baseline, its confidence interval, a paired test and the p-value corrected for every\n"
        "comparison made (rankframe.compare; see docs/comparing.md).\n"
        "Exit status: 0; 1 with --fail-if-worse when a system is significantly worse than the baseline\n"
        "(and for nothing else); 2 on a usage or input error; 3 on an internal error (a bug).",
        epilog="examples:\n"
        "  rankframe compare examples/tiny.run examples/tiny-b.run --qrels examples/tiny.qrels -m AP -m P@2\n"
        "  rankframe compare examples/paired.parquet --baseline bm25 -m nDCG@5 -m AP --by length\n"
        "  rankframe compare examples/paired.parquet --baseline bm25 -m AP --test randomization --seed 1\n"
        "  rankframe compare examples/paired.parquet --baseline bm25 -m AP --by length --fail-if-worse"
        "   # exit 1: dense loses on short queries",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_options(co, "metric such as nDCG@10, AP, P@5 (repeatable; at least one)")
    co.add_argument(
        "--system",
        dest="col_system",
        metavar="COL",
        help="the system column of one long table (default: system); several runs or tables are the systems",
    )
    co.add_argument(
        "--baseline",
        metavar="NAME",
        action="append",
        help="the system every other one is compared with (default: the first run or table given, or the "
        "system of a table's first row); repeat it for several baselines (--baseline prod --baseline bm25: every "
        "other system against each, and the later baseline against the earlier)",
    )
    g = co.add_argument_group("statistics (rankframe.compare's parameters)")
    g.add_argument("--test", choices=TESTS, help="paired test (default: t; tukey, the default with --pairs all)")
    g.add_argument(
        "--correction",
        choices=["auto", *(c or "none" for c in CORRECTIONS)],
        default="auto",
        help="multiple-testing correction of the p-values over the family (default auto: holm; none after "
        "tukey, whose p-values already hold for every pair; westfall-young: max-|t| step-down over the sign "
        "flips of --test randomization, one family per segment)",
    )
    g.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="COL",
        help="the correction family: all (default, every comparison of the call) or output column(s) that split "
        "it, e.g. --family metric (repeatable, or comma-separated)",
    )
    g.add_argument("--ci", type=float, default=0.95, metavar="LEVEL", help="level of the intervals (default 0.95)")
    g.add_argument("--ci-method", choices=CI_METHODS, help="interval around delta (default: t; tukey with tukey)")
    g.add_argument(
        "--pairs", choices=PAIRS, default="baseline", help="every system against the baseline (default), or all pairs"
    )
    g.add_argument(
        "--n-resamples",
        type=int,
        default=N_RESAMPLES,
        metavar="N",
        help=f"sign flips (randomization) or resamples (bootstrap) (default {N_RESAMPLES})",
    )
    g.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        help="the alternative hypothesis: two-sided (default), greater (the system above the baseline) or less; "
        "one-sided tests get one-sided bounds (default with --margin: greater)",
    )
    g.add_argument(
        "--margin",
        type=float,
        metavar="M",
        help="non-inferiority margin in the metric's units: the t-test of H0 delta <= -M (a one-sided test of "
        "delta + M > 0); with --fail-if-worse, the gate fails when non-inferiority is not shown",
    )
    g.add_argument(
        "--zero-method",
        choices=["wilcox", "pratt"],
        default="wilcox",
        help="--test wilcoxon: zero differences dropped before ranking (wilcox, default) or ranked then dropped "
        "(pratt)",
    )
    g.add_argument("--seed", type=int, metavar="S", help="seed of the random methods (default: fresh, reported)")
    g.add_argument(
        "--missing",
        choices=MISSING,
        default="error",
        help="a query some systems of a segment have a value for and others not: error (default), zero, drop",
    )
    g.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        metavar="A",
        help="significance level of --fail-if-worse (default 0.05)",
    )
    g.add_argument(
        "--fail-if-worse",
        action="store_true",
        help="exit 1 when a system is significantly worse than the baseline (p_adjusted < alpha and delta < 0; "
        "delta > 0 for a metric where lower is better, such as ARP) on any metric or segment, naming them on "
        "stderr; a metric without a direction (NumRet) never fails; with --margin M a non-inferiority gate: exit 1 "
        "when a system is not shown non-inferior (p_adjusted of H0 'worse by M or more' not below alpha)",
    )
    _policy_options(co)
    co.add_argument("--engine", choices=ENGINES, default="pandas", help="where to compute")
    co.add_argument(
        "--format",
        choices=COMPARE_FORMATS,
        default="table",
        help="table (default, rounded, with a caption naming the test and correction), markdown, "
        "csv or json (every column, full precision)",
    )
    _beyond_input_options(co)
    _table_options(co)


def _compare(args) -> int:
    from ..measures.names import expand

    _need_metrics(args)
    measures = [one for m in args.metrics for one in expand(m)]  # unknown names fail before any file is read
    _check_level("--alpha", args.alpha, "0.05")  # the command's own option; compare's are checked by compare:
    _compare_parameters(args, [str(m) for m in measures])  # its one rule, before any file is read, in its words
    by = _split_by(args.by)
    family = _split_by(args.family)
    if "all" in family and len(family) > 1:
        raise UsageError(f"--family all is every comparison of the call; it cannot be combined with {family}")
    columns = _columns(args)
    policies = _policies(args)
    if args.fail_if_worse and args.pairs == "all" and args.baseline is None:
        raise UsageError("--fail-if-worse with --pairs all needs --baseline NAME: worse than which system?")
    if args.fail_if_worse and args.margin is None and args.alternative in ("greater", "less"):
        # worse is the metric's direction (rankframe.direction): a one-sided test of the other side cannot show it
        blind = [str(m) for m in measures if direction(m) == (1 if args.alternative == "greater" else -1)]
        if blind:
            other = "less" if args.alternative == "greater" else "greater"
            raise UsageError(
                f"--fail-if-worse looks for a system significantly worse than the baseline, which --alternative "
                f"{args.alternative} cannot show on {', '.join(blind)} ({WORDS[direction(blind[0])]}): use "
                f"--alternative two-sided or {other}, or --margin M for a non-inferiority gate"
            )
    trec_inputs, several = _systems(args)
    beyond = _beyond_inputs(args, measures, columns)  # read with pandas: never DuckDB's file road
    steps = 3 if trec_inputs else len(args.inputs) + (args.qrels is not None) + 2
    # --no-progress: this line, DuckDB's bar and the resampling bars (rankframe.progress) all stay off
    with progress_mod.using(False if args.no_progress else None), progress_mod.steps(steps) as progress:
        if beyond is None and not several and args.qrels is None and _sql_road(args, engine_default="pandas"):
            # one Parquet table: read in DuckDB only (as evaluate's SQL road); the per-query values come back
            table, system = _compare_source(args, columns, by, progress)
            baseline = _cli_baseline(table, system, args, False)
            table = args.inputs[0]
        else:
            loaded, system, columns, baseline = _load_systems(args, columns, by, progress, _reads_grades(measures))
            table = loaded.df
            beyond = with_table_id_kinds(beyond, table, columns, args)  # the table's id kinds (issue 33)
        progress.step("comparing")
        with in_cli_words():
            out = compare(
                table,
                measures,
                system=system,
                baseline=baseline,
                by=by or None,
                test=args.test,
                ci=args.ci,
                ci_method=args.ci_method,
                correction=None if args.correction == "none" else args.correction,
                family=family or "all",
                pairs=args.pairs,
                alternative=args.alternative,
                margin=args.margin,
                zero_method=args.zero_method,
                n_resamples=args.n_resamples,
                seed=args.seed,
                missing=args.missing,
                columns=columns.with_(system=system),
                qrels=None if isinstance(table, str) else loaded.judgments,
                engine=args.engine,
                allow_duplicates=args.allow_duplicates,
                no_relevant=policies["no_relevant"],
                no_retrieved=policies["no_retrieved"],
                no_judged=policies["no_judged"],
                **(beyond or {}),
            )
    _print(_render_compare(out, args.format))
    if args.fail_if_worse:
        worse = (
            _worse(out, baseline, args.alpha) if args.margin is None else _not_non_inferior(out, baseline, args.alpha)
        )
        if worse:
            sys.stderr.write("".join(f"rankframe: worse: {w}\n" for w in worse))
            return EXIT_WORSE
    return EXIT_OK


def _need_metrics(args) -> None:
    """Compare and report compare on the metrics given: no default set (evaluate's) stands in."""
    if not args.metrics:
        raise UsageError(
            f"{args.command} needs the metrics to compare on: -m METRIC (repeatable), e.g. -m nDCG@10 -m AP"
        )


def _systems(args) -> tuple[bool, bool]:
    """Whether the inputs are TREC runs, and several: --system is for one long table, runs must be 2 or more."""
    trec_inputs = not all(is_long(p) for p in args.inputs)
    several = len(args.inputs) > 1
    if (trec_inputs or several) and args.col_system is not None:
        kind = "TREC run" if trec_inputs else "table"
        raise UsageError(
            f"--system names the system column of one long table; with several {kind}s each one is a system "
            f"(named {'by its tag' if trec_inputs else 'by its file name'})"
        )
    if trec_inputs and not several:
        raise UsageError(
            f"{args.command} needs at least 2 systems: give 2 or more TREC runs (got only {args.inputs[0]!r})"
        )
    return trec_inputs, several


def _load_systems(args, columns: Columns, by: list[str], progress: progress_mod.Steps, relevance: bool = True):
    """The inputs read as systems: the table, its system column, its column names and the baseline picked.

    Runs and several tables get a column 'system' (a run's tag, a table's file name); one table has its own
    (--system). ``relevance=False``: no metric asked reads grades (a table may have none).
    """
    loaded = _load(args, columns, by, progress, system=args.col_system or columns.system, relevance=relevance)
    system = loaded.system if loaded.system is not None else columns.system
    if loaded.trec:
        columns = Columns()
    files_are_systems = loaded.trec or len(args.inputs) > 1
    return loaded, system, columns, _cli_baseline(loaded.df, system, args, files_are_systems)


def _compare_parameters(args, names: list[str] | None = None) -> None:
    """rankframe.compare's check of its parameters (the ones that need no data), before any file is read.

    ``names``: the metrics, for the side of a non-inferiority margin (``comparing.rules.margin_side``).
    """
    from ..compare import _check_parameters
    from ..comparing.rules import margin_side

    try:
        p = _check_parameters(
            dict(
                pairs=args.pairs,
                test=args.test,
                ci_method=args.ci_method,
                ci=args.ci,
                correction=None if args.correction == "none" else args.correction,
                alternative=getattr(args, "alternative", None),  # `rankframe report` has no such option (yet)
                margin=getattr(args, "margin", None),
                zero_method=getattr(args, "zero_method", None),
                missing=args.missing,
                n_resamples=args.n_resamples,
                seed=args.seed,
                engine=args.engine,
                options={},
            )
        )
        if names is not None:
            margin_side(names, p["margin"], p["alternative"], p["alternative_asked"])
    except ParameterError as e:
        raise UsageError(_cli_words(e)) from None


def _cli_baseline(df: pd.DataFrame, system: str, args, files_are_systems: bool) -> object:
    """The baseline as a value of the system column, by rankframe.compare's rule (``compare._pick_baseline``).

    --baseline is text: it names the system whose text it is (the table's values may be numbers); the rule
    (at least 2 systems, the baseline one of them, else the first run or table given, or the system of a
    table's first row) is the library's, its errors in the command's words.
    """
    from ..compare import _pick_baseline

    systems = df[[system]].dropna()
    given = _baselines(args)
    found = pd.unique(systems[system])
    texts = [next((s for s in found if str(s) == name), name) for name in given]
    value: object = None if not texts else texts[0] if len(texts) == 1 else texts
    try:
        return _pick_baseline(systems, system, value, args.pairs)[0]
    except ValidationError as e:  # fewer than 2 systems
        more = "give 2 or more runs or tables" if files_are_systems else "or give the column with --system COL"
        rule = e.failures[0]["rule"]
        if files_are_systems:
            rule = rule.replace(f"in column {system!r}", "(the runs' tags or the tables' file names)")
        raise UsageError(f"{rule} ({more})") from None
    except ParameterError as e:  # no such system
        text = _cli_words(e).replace(
            "--baseline must be one of",
            f"--baseline {given[0] if len(given) == 1 else ''}: no such system; it must be one of".replace(" :", ":"),
        )
        if files_are_systems:
            text = text.replace(f"in column {system!r}", "(the runs' tags, or the tables' file names)")
        raise UsageError(text) from None


def _baselines(args) -> list[str]:
    """The --baseline values given (none, one, or several: compare's repeated option; report's single one)."""
    given = args.baseline
    return [] if given is None else [given] if isinstance(given, str) else list(given)


def _gated(out: pd.DataFrame, baseline: object) -> pd.DataFrame:
    """The rows a gate reads: a system that is not a baseline against a baseline (several: against each)."""
    baselines = baseline if isinstance(baseline, list) else [baseline]
    return out[out["baseline"].isin(baselines) & ~out["system"].isin(baselines)]


def _worse(out: pd.DataFrame, baseline: object, alpha: float) -> list[str]:
    """The rows where a system is significantly worse than the baseline, in words.

    Worse is ``p_adjusted < alpha`` with ``delta`` on the metric's worse side (:func:`rankframe.direction`: delta <
    0 where higher is better, > 0 where lower is better: a significantly higher ARP); a metric without a direction
    never fails the gate.
    """
    segments = list(out.columns[: list(out.columns).index("metric")])
    rows = _gated(out, baseline)
    way = of_labels(rows["metric"])
    bad = rows[verdicts(rows["delta"], rows["p_adjusted"], way, alpha) < 0]
    lines = []
    for r in bad.to_dict("records"):
        where = ", ".join(f"{c}={r[c]}" for c in segments)
        sign, lower = (">", " (lower is better)") if direction(r["metric"]) < 0 else ("<", "")
        lines.append(
            f"{r['system']} {sign} {r['baseline']} on {r['metric']}{lower}{f' ({where})' if where else ''}: "
            f"delta {r['delta']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}], "
            f"p_adjusted {_fmt_p(float(r['p_adjusted']))} < alpha {alpha:g}"
        )
    return lines


def _not_non_inferior(out: pd.DataFrame, baseline: object, alpha: float) -> list[str]:
    """The rows where non-inferiority is not shown: p_adjusted not below alpha, or no p-value.

    H0 delta <= -margin where higher is better, delta >= margin where lower is better (``comparing.rules.margin_side``).
    """
    segments = list(out.columns[: list(out.columns).index("metric")])
    margin = out.attrs["margin"]
    rows = _gated(out, baseline)
    bad = rows[~(rows["p_adjusted"] < alpha)]  # NaN (n < 2: no test) is not shown either
    lines = []
    for r in bad.to_dict("records"):
        where = ", ".join(f"{c}={r[c]}" for c in segments)
        p = (
            "no p-value"
            if pd.isna(r["p_adjusted"])
            else f"p_adjusted {_fmt_p(float(r['p_adjusted']))} >= alpha {alpha:g}"
        )
        bound = f"lower bound {r['ci_low']:.4f}" if direction(r["metric"]) > 0 else f"upper bound {r['ci_high']:.4f}"
        lines.append(
            f"{r['system']} not shown non-inferior to {r['baseline']} on {r['metric']}{f' ({where})' if where else ''}"
            f" within margin {margin:g}: delta {r['delta']:.4f}, {bound}, {p}"
        )
    return lines


def _compare_source(args, columns: Columns, by: list[str], progress: progress_mod.Steps) -> tuple[pd.DataFrame, str]:
    """The SQL road of compare: the column checks and the systems of one Parquet table, from DuckDB (no pandas copy).

    Returns a small frame of the systems (the first row's first, for the default baseline) and the system column.
    """
    from ..engines import duckdb_source

    _check_options(args, trec=False)
    path = args.inputs[0]
    system = args.col_system or columns.system
    progress.step(f"reading {Path(path).name} in DuckDB")
    info = duckdb_source.systems(path, system)
    _check_columns(pd.DataFrame(columns=info.columns), path, args, columns, by, need_relevance=True, system=system)
    progress.step("evaluating in DuckDB")
    found = [info.first, *info.found] if info.found else []
    return pd.DataFrame({system: pd.Series(found, dtype=object)}), system
