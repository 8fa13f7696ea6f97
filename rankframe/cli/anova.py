"""``rankframe anova``: rankframe.anova (omnibus ANOVA, system x segment interaction, effect sizes) on the command line.

The inputs are compare's (TREC runs with --qrels, several long tables, or one long table with a system column), read by
the shared loader (:mod:`rankframe.cli._load`); the options are :func:`rankframe.anova.anova`'s parameters, their
checks the library's, reported in the options' words (:func:`rankframe.cli._options._cli_words`).
"""

from __future__ import annotations

import argparse

from ..core import progress as progress_mod
from ..core.errors import ParameterError, did_you_mean
from ._load import _beyond_inputs, _load
from ._options import (
    COMMANDS,
    EXIT_OK,
    EXIT_STATUS_LINE,
    UsageError,
    _beyond_input_options,
    _cli_words,
    _columns,
    _input_options,
    _policies,
    _policy_options,
    _split_by,
    _table_options,
    in_cli_words,
)
from ._render import _fmt_df, _fmt_p, _print, _records, _table
from .compare import COMPARE_FORMATS, _need_metrics, _systems


def add_parser(sub) -> None:
    """``rankframe anova``: rankframe.anova's parameters as options, the inputs of compare."""
    from ..anova import RANDOM
    from ..stats.align import MISSING

    an = sub.add_parser(
        "anova",
        help=COMMANDS["anova"][1],
        description="The two-way ANOVA of systems over queries (a randomized complete block design) per segment and\n"
        "metric: F, its degrees of freedom, p, MSE and partial eta squared; with --interaction COL the split-plot\n"
        "test of the system x COL interaction (COL a between-query column such as query length); with --pairs,\n"
        "Sakai's effect size delta / sqrt(MSE) for every pair of systems (rankframe.anova; docs/comparing.md).\n"
        + EXIT_STATUS_LINE,
        epilog="examples:\n"
        "  rankframe anova examples/tiny.run examples/tiny-b.run --qrels examples/tiny.qrels -m AP\n"
        "  rankframe anova examples/paired.parquet -m AP -m nDCG@5 --interaction length\n"
        "  rankframe anova examples/paired.parquet -m AP --pairs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_options(an, "metric such as nDCG@10, AP, P@5 (repeatable; at least one)")
    an.add_argument(
        "--system",
        dest="col_system",
        metavar="COL",
        help="the system column of one long table (default: system); several runs or tables are the systems",
    )
    g = an.add_argument_group("statistics (rankframe.anova's parameters)")
    g.add_argument(
        "--interaction",
        metavar="COL",
        help="a between-query column of a long table (query length, ...): test the system x COL interaction",
    )
    g.add_argument("--pairs", action="store_true", help="Sakai's effect size delta / sqrt(MSE) per pair of systems")
    g.add_argument(
        "--ci",
        type=float,
        default=0.95,
        metavar="LEVEL",
        help="with --pairs: the level of the effect sizes' intervals (default 0.95)",
    )
    g.add_argument(
        "--random",
        choices=RANDOM,
        help="query: also the linear mixed model with random query effects (REML variance components var_query, "
        "var_error and icc)",
    )
    g.add_argument(
        "--missing",
        choices=MISSING,
        default="error",
        help="a query some systems of a segment have a value for and others not: error (default), zero, drop",
    )
    _policy_options(an)
    _beyond_input_options(an)
    an.add_argument("--engine", choices=("pandas", "duckdb"), default="pandas", help="where to compute")
    an.add_argument(
        "--format",
        choices=COMPARE_FORMATS,
        default="table",
        help="table (default, rounded), markdown, csv or json (every column, full precision)",
    )
    _table_options(an)


def run(args) -> int:
    """Read the inputs as systems, run rankframe.anova, print its table."""
    from ..anova import anova, check_names
    from ..measures.names import expand

    _need_metrics(args)
    measures = [one for m in args.metrics for one in expand(m)]  # unknown names fail before any file is read
    by = _split_by(args.by)
    columns = _columns(args)
    policies = _policies(args)
    trec_inputs, several = _systems(args)
    if args.interaction is not None and trec_inputs:
        raise UsageError("--interaction names a column of a long table; TREC runs have no such column")
    try:  # anova's rules of the system and interaction columns, before any file is read
        check_names(args.col_system or columns.system, by, args.interaction, columns)
    except ParameterError as e:
        raise UsageError(_cli_words(e)) from None
    beyond = _beyond_inputs(args, measures, columns)  # read with pandas, as for compare
    steps = 3 if trec_inputs else len(args.inputs) + (args.qrels is not None) + 2
    with progress_mod.using(False if args.no_progress else None), progress_mod.steps(steps) as progress:
        loaded = _load(args, columns, by, progress, system=args.col_system or columns.system)
        system = loaded.system if loaded.system is not None else columns.system
        if loaded.trec:
            columns = columns.__class__()
        if args.interaction is not None and args.interaction not in loaded.df.columns:
            present = [str(c) for c in loaded.df.columns]
            raise UsageError(
                f"--interaction {args.interaction}: no such column{did_you_mean(args.interaction, present)}; "
                f"columns: {present}"
            )
        progress.step("analysing")
        with in_cli_words():
            out = anova(
                loaded.df,
                measures,
                system=system,
                by=by or None,
                interaction=args.interaction,
                pairs=args.pairs,
                random=args.random,
                ci=args.ci,
                missing=args.missing,
                columns=columns.with_(system=system),
                qrels=loaded.judgments,
                engine=args.engine,
                allow_duplicates=args.allow_duplicates,
                no_relevant=policies["no_relevant"],
                no_retrieved=policies["no_retrieved"],
                no_judged=policies["no_judged"],
                **(beyond or {}),
            )
    _print(_render_anova(out, args.format))
    return EXIT_OK


def _render_anova(out, fmt: str) -> str:
    """Every column at full precision (csv, json), or rounded (table, markdown; the note column when one is set)."""
    if fmt in ("csv", "json"):
        return _records(out, fmt, exact=True)
    shown = out if out["note"].notna().any() else out.drop(columns="note")
    if "term" in out.columns:
        caption = "statistic: F = (ss / df) / mse on (df, df_error) degrees of freedom; p_value = P(F >= statistic)"
        return _table(shown, fmt, {"p_value": _fmt_p, "df": _fmt_df, "df_error": _fmt_df}, caption=caption)
    return _table(shown, fmt, caption=f"effect_size: {out.attrs['effect_size']}")
