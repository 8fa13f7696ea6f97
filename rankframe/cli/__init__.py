"""The ``rankframe`` command: evaluate TREC runs or long tables, print the SQL macros, validate a file.

``rankframe evaluate RUN... --qrels QRELS -m nDCG@10 -m AP`` works like ``trec_eval -c`` (``--per-query`` is
its ``-q``, ``--format trec`` its output; ``--no-retrieved skip`` gives trec_eval without ``-c``); the query-set
defaults are the Python API's (``rankframe.registry.POLICIES``). ``rankframe evaluate table.parquet -m ...
--by segment`` evaluates a long table. Exit status (:data:`EXIT_STATUS`): 0 on success, 1 only when ``compare
--fail-if-worse`` finds a system significantly worse, 2 on a usage or input error (one line ``rankframe: error:
...`` on stderr), 3 on an internal error (a bug: one line ``rankframe: internal error: ...``). See ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from . import progress as progress_mod
from .columns import Columns
from .display import compare_caption, markdown_table
from .errors import ParameterError, RankframeError, ValidationError
from .io import LONG_SUFFIXES as _LONG_SUFFIXES  # noqa: F401 - moved to rankframe.io, still importable here
from .io import TREC_COUNTS, InputFileError, suffix_kind
from .io import TREC_ORDER as _TREC_ORDER  # noqa: F401
from .io import is_long as _is_long
from .io import trec_line as _trec_line  # noqa: F401
from .io import trec_lines as _trec_lines
from .io import trec_name as trec_name

#: measures computed when no ``-m`` is given (a trec_eval-like core set)
DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@5", "P@10", "R@100", "Rprec", "Bpref", "RR")
FORMATS = ("table", "csv", "json", "markdown", "trec")
#: evaluate's DuckDB options, by the key of ``duckdb_config`` they set
DUCKDB_OPTIONS = {"memory_limit": "--memory-limit", "threads": "--threads", "temp_directory": "--temp-directory"}
COMPARE_FORMATS = ("table", "markdown", "csv", "json")


class UsageError(RankframeError):
    """Command-line options that do not fit together."""


#: the exit statuses of the command: ``rankframe --help`` and docs/cli.md show this table
EXIT_OK, EXIT_WORSE, EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_STATUS = (
    (EXIT_OK, "success (compare --fail-if-worse: no system significantly worse than the baseline)"),
    (EXIT_WORSE, "compare --fail-if-worse: a system is significantly worse than the baseline (and nothing else)"),
    (EXIT_ERROR, "usage or input error: a bad option or option value, a bad or missing file, a broken table rule"),
    (
        EXIT_INTERNAL,
        "internal error, a bug in rankframe: one line on stderr (RANKFRAME_TRACEBACK=1 adds the traceback)",
    ),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)
#: set to 1 for the traceback of an internal error
TRACEBACK_ENV = "RANKFRAME_TRACEBACK"


def _exit_status_epilog() -> str:
    return "exit status:\n" + "\n".join(f"  {code:<4}{text}" for code, text in EXIT_STATUS)


# ----------------------------------------------------------------------------------------------------------
# argument parsing

_ROLES = ("query", "item", "rank", "relevance", "score")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rankframe",
        description="Ranking-quality metrics over TREC run/qrels files and long-format Parquet/CSV tables.",
        epilog=_exit_status_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from . import __version__

    p.add_argument("--version", action="version", version=f"rankframe {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ev = sub.add_parser(
        "evaluate",
        help="compute metrics for TREC runs (with --qrels) or a long Parquet/CSV table",
        description="Compute metrics for one or more TREC runs (with --qrels), evaluated side by side, or "
        "for long-format Parquet/CSV tables.",
        epilog="examples:\n"
        "  rankframe evaluate examples/tiny.run examples/tiny-b.run --qrels examples/tiny.qrels -m AP\n"
        "  rankframe evaluate examples/recs.parquet -m nDCG@10 -m AP@10 -m P@5 --by country\n"
        "  rankframe evaluate examples/recs.parquet -m nDCG@10 --by model --ci 0.95\n"
        "  rankframe evaluate examples/tiny.run --qrels examples/tiny.qrels --per-query --format trec\n"
        "  rankframe evaluate examples/tiny.run --qrels examples/tiny.qrels --no-retrieved skip --format trec"
        "   # = trec_eval without -c",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_options(
        ev,
        "metric such as nDCG@10, AP, P@5, 'AP(rel=2)@100' (repeatable); default: " + ", ".join(DEFAULT_MEASURES),
    )
    ev.add_argument("-q", "--per-query", action="store_true", help="one value per query (trec_eval -q)")
    ev.add_argument(
        "--ci",
        type=float,
        metavar="LEVEL",
        help="add n, std_err and the t interval of each mean at this level, e.g. 0.95 (not with --per-query)",
    )
    ev.add_argument(
        "--agg",
        choices=("mean", "gmean", "median", "sum"),
        default="mean",
        help="how per-query values become one value: mean (default), gmean (trec_eval gm_map: "
        "exp(mean(log(max(x, 1e-5))))), median, sum",
    )
    _policy_options(ev)
    ev.add_argument(
        "--engine",
        choices=("pandas", "duckdb"),
        default=None,
        help="where to compute (default: duckdb for one Parquet table, read and computed in DuckDB without "
        "loading it into pandas; pandas otherwise); duckdb with one .csv table reads it in DuckDB too",
    )
    g = ev.add_argument_group(
        "DuckDB settings (one long table read in DuckDB: a Parquet table, or any table with --engine duckdb)"
    )
    g.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="DuckDB's memory limit, e.g. 1GB or 500MB (default 1GB); past it DuckDB spills to --temp-directory",
    )
    g.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="DuckDB's worker threads, 1 to 4 x the number of cores (default: the number of cores)",
    )
    g.add_argument(
        "--no-validate",
        action="store_true",
        help="skip the table's rule checks (for a big table you trust: the uniqueness checks cost more than "
        "the metrics)",
    )
    g.add_argument(
        "--temp-directory",
        metavar="DIR",
        help="where DuckDB spills (default: a fresh folder in the system's temporary directory, removed after)",
    )
    ev.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default), csv, json, markdown, or trec (trec_eval's output lines)",
    )
    _duplicate_options(ev)
    _column_options(ev)
    ev.add_argument("--no-progress", action="store_true", help="never draw the progress line on stderr")

    _compare_parser(sub)
    from .report import add_parser as _report_parser  # rankframe report: rankframe/report.py

    _report_parser(sub)

    sq = sub.add_parser(
        "sql",
        help="print rankframe's DuckDB SQL macros (rankframe sql | duckdb ...)",
        description="Print every rankframe DuckDB macro as one SQL script, or write it with -o FILE (then `.read FILE` "
        "in the DuckDB CLI).",
    )
    sq.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the script to FILE (for `.read FILE` in the DuckDB CLI) instead of printing it",
    )
    sq.set_defaults(inputs=[])

    va = sub.add_parser(
        "validate",
        help="check a long table (or a run with --qrels) against the data model",
        description="Report every schema violation of a long table (or TREC run + qrels).",
    )
    va.add_argument("file", metavar="FILE")
    va.add_argument("--qrels", help="TREC qrels, when FILE is a TREC run")
    va.add_argument("--by", action="append", default=[], metavar="COL", help="segment column (repeatable)")
    _duplicate_options(va)
    _column_options(va)
    return p


def _compare_parser(sub) -> None:
    """``rankframe compare``: rankframe.compare's parameters as options, the inputs and options of evaluate."""
    from .compare import CI_METHODS, CORRECTIONS, PAIRS, TESTS
    from .stats.align import MISSING

    co = sub.add_parser(
        "compare",
        help="compare systems with paired tests, confidence intervals and corrected p-values",
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
        help="the system every other one is compared with (default: the first run or table given, or the "
        "system of a table's first row)",
    )
    g = co.add_argument_group("statistics (rankframe.compare's parameters)")
    g.add_argument("--test", choices=TESTS, help="paired test (default: t; tukey, the default with --pairs all)")
    g.add_argument(
        "--correction",
        choices=["auto", *(c or "none" for c in CORRECTIONS)],
        default="auto",
        help="multiple-testing correction of the p-values over the family (default auto: holm; none after "
        "tukey, whose p-values already hold for every pair)",
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
        default=10_000,
        metavar="N",
        help="sign flips (randomization) or resamples (bootstrap) (default 10000)",
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
        help="exit 1 when a system is significantly worse than the baseline (p_adjusted < alpha and delta < 0) "
        "on any metric or segment, naming them on stderr",
    )
    _policy_options(co)
    co.add_argument("--engine", choices=("pandas", "duckdb"), default="pandas", help="where to compute")
    co.add_argument(
        "--format",
        choices=COMPARE_FORMATS,
        default="table",
        help="table (default, rounded, with a caption naming the test and correction), markdown, "
        "csv or json (every column, full precision)",
    )
    _duplicate_options(co)
    _column_options(co)
    co.add_argument("--no-progress", action="store_true", help="never draw the progress line on stderr")


def _input_options(p: argparse.ArgumentParser, metric_help: str) -> None:
    """The inputs of evaluate and compare: runs or tables, --qrels, -m, --by."""
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="RUN_OR_TABLE",
        help="TREC run files (gz ok), or long tables (.parquet, .csv, .tsv)",
    )
    p.add_argument("--qrels", help="TREC qrels file (qid iteration docno relevance); required for runs")
    p.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC", help=metric_help)
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COL",
        help="segment column of a long table (repeatable, or comma-separated)",
    )


def _policy_options(p: argparse.ArgumentParser) -> None:
    """One option per query-set policy, with the choices and defaults declared in the registry."""
    from .registry import POLICIES

    g = p.add_argument_group("query-set policies (the defaults are the Python API's, rankframe.registry.POLICIES)")
    for param in POLICIES:
        g.add_argument(
            "--" + param.name.replace("_", "-"),
            dest=param.name,
            choices=param.choices,
            default=None,
            help=f"{param.description} (default: {param.default})",
        )
    g.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="trec_eval's -c: the same as --no-retrieved zero, which is the default; "
        "--no-retrieved skip reproduces trec_eval without -c",
    )


def _duplicate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--keep-first-duplicate",
        action="store_true",
        help="TREC runs: keep the first of a docno repeated within a query instead of failing",
    )
    p.add_argument(
        "--allow-duplicates",
        action="store_true",
        help="long tables: keep repeated (query, item) rows as separate entries instead of failing",
    )


def _column_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("column names of a long table (defaults: query, item, rank, relevance, score)")
    for name in _ROLES:
        g.add_argument(f"--{name}", dest=f"col_{name}", metavar="COL")


def _columns(args) -> Columns:
    return Columns().with_(**{n: getattr(args, f"col_{n}") for n in _ROLES})


def _policies(args) -> dict[str, str]:
    """The query-set policies: each option's value, else the registry's default; -c is --no-retrieved zero."""
    from .registry import POLICY_DEFAULTS

    chosen = {name: getattr(args, name) for name in POLICY_DEFAULTS}
    if args.complete:
        if chosen["no_retrieved"] not in (None, "zero"):
            raise UsageError(
                f"-c/--complete means --no-retrieved zero; it contradicts --no-retrieved {chosen['no_retrieved']}"
            )
        chosen["no_retrieved"] = "zero"
    return {name: POLICY_DEFAULTS[name] if v is None else v for name, v in chosen.items()}


def _split_by(values: Sequence[str]) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


def _few(values, n: int = 4) -> str:
    """A few ids for a message: ``'1', '2', '3', ... (10 in all)``."""
    shown = ", ".join(repr(str(v)) for v in list(values)[:n])
    return shown + (f", ... ({len(values)} in all)" if len(values) > n else "")


# ----------------------------------------------------------------------------------------------------------
# loading


class Loaded(NamedTuple):
    """What the inputs hold: the table, separate judgments (long table + --qrels) and how to name things."""

    df: pd.DataFrame
    judgments: pd.DataFrame | None
    system: str | None  # the column naming each row's system (several runs or tables, or --system), else None
    trec: bool  # TREC runs (read with read_trec) rather than long tables


def _check_options(args, trec: bool) -> None:
    """Options that only make sense for one kind of input."""
    if trec:
        given = [f"--{n}" for n in _ROLES if getattr(args, f"col_{n}") is not None]
        if given:
            raise UsageError(
                f"{given[0]} names a column of a long table; TREC runs have fixed fields (qid Q0 docno rank score tag)"
            )
        if args.allow_duplicates:
            raise UsageError(
                "--allow-duplicates is for long tables; for a docno repeated within a query of a "
                "TREC run use --keep-first-duplicate"
            )
    elif args.keep_first_duplicate:
        raise UsageError(
            "--keep-first-duplicate is for TREC runs; for repeated (query, item) rows of a long "
            "table use --allow-duplicates"
        )


def _check_columns(
    df: pd.DataFrame,
    path: str,
    args,
    columns: Columns,
    by: Sequence[str],
    *,
    need_relevance: bool,
    system: str | None = None,
) -> None:
    """Every column the options name (or the defaults) must be in the file: name it, with a hint."""
    from .errors import did_you_mean

    present = [str(c) for c in df.columns]

    def how(role: str) -> str:
        given = getattr(args, f"col_{role}", None)
        return f"--{role} {given}" if given is not None else f"the default {role} column; name yours with --{role}"

    def missing(name: str, option: str, also: str = "") -> InputFileError:
        return InputFileError(
            path, f"no column {name!r} ({option}){did_you_mean(name, present)}{also}; columns in the file: {present}"
        )

    for role in ("query", "item"):
        if getattr(columns, role) not in present:
            raise missing(getattr(columns, role), how(role))
    if columns.rank not in present and columns.score not in present:
        hint = did_you_mean(columns.rank, present) or did_you_mean(columns.score, present)
        raise InputFileError(
            path,
            f"neither a rank column {columns.rank!r} nor a score column {columns.score!r} "
            f"(name yours with --rank or --score){hint}; columns in the file: {present}",
        )
    if need_relevance and columns.relevance not in present:
        raise missing(columns.relevance, how("relevance"), " (or give the judgments with --qrels)")
    if system is not None and system not in present:
        raise missing(system, how("system"), " (or give several runs or tables: each one is a system)")
    for name in by:
        if name not in present:
            raise missing(name, "--by")


def _load(args, columns: Columns, by: list[str], progress: progress_mod.Steps, system: str | None = None) -> Loaded:
    """Read the inputs into one table (and separate judgments for a long table with --qrels).

    ``system`` names the system column of a single long table (``compare --system``); several runs or tables
    get a column ``system`` naming each one (the run's tag, the table's file name).
    """
    from . import io

    inputs, qrels = list(args.inputs), args.qrels
    long = [_is_long(p) for p in inputs]
    if any(long) and not all(long):
        raise UsageError("mix of long tables and TREC runs: give either runs (with --qrels) or tables")
    trec = not any(long)
    _check_options(args, trec)
    if trec:
        if qrels is None:
            raise UsageError(
                f"TREC run {inputs[0]!r} needs judgments: add --qrels QRELS (or give a long .parquet/.csv table)"
            )
        extra = [b for b in by if b != "system"]
        if extra:
            raise UsageError(
                f"--by {extra[0]}: TREC runs have no segment columns (only 'system'); --by is for long tables"
            )
        progress.step(f"reading {len(inputs)} run(s) and {Path(qrels).name}")
        df = io.read_trec(inputs, qrels, keep_first_duplicate=args.keep_first_duplicate)
        _check_overlap(df, Columns(), qrels, system="system")
        return Loaded(df, None, "system", True)
    several = len(inputs) > 1
    if several:
        system = "system"
    frames = []
    for p in inputs:
        progress.step(f"reading {Path(p).name}")
        frame = io.read_long(p, columns=columns)
        if several and "system" in frame.columns:
            instead = (
                "compare the systems of one table with --system COL"
                if args.command == "compare"
                else "evaluate one table at a time with --by system"
            )
            raise UsageError(
                f"{p} already has a column 'system', which the command adds to tell several tables "
                f"apart (the file name); {instead}, or rename that column"
            )
        _check_columns(
            frame,
            p,
            args,
            columns,
            [b for b in by if not (several and b == "system")],
            need_relevance=qrels is None,
            system=None if several else system,
        )
        frames.append(frame)
    if several:
        names = [Path(p).name for p in inputs]
        if len(set(names)) < len(names):
            names = list(inputs)
        df = pd.concat([f.assign(system=n) for f, n in zip(frames, names)], ignore_index=True)
    else:
        df = frames[0]
    judgments = None
    if qrels is not None:
        progress.step(f"reading {Path(qrels).name}")
        judgments = io.read_trec_qrels(qrels).rename(
            columns={"query": columns.query, "item": columns.item, "relevance": columns.relevance}
        )
        # TREC ids are text: the table's ids are read as text too to be matched with them
        text_ids = {c: str for c in (columns.query, columns.item) if not pd.api.types.is_string_dtype(df[c])}
        if text_ids:
            df = df.astype(text_ids)
        _check_overlap(df, columns, qrels, system=system, judgments=judgments, label=None if several else "system")
    else:
        where = inputs[0] if not several else None
        _check_overlap(df, columns, where, system=system, qrels=False, label=None if several else "system")
    return Loaded(df, judgments, system, False)


def _check_overlap(
    df: pd.DataFrame,
    columns: Columns,
    where: str | None,
    *,
    system: str | None,
    judgments: pd.DataFrame | None = None,
    qrels: bool = True,
    label: str | None = None,
) -> None:
    """A run none of whose queries has a judgment is a mistake (wrong qrels file, ids written differently)."""
    order = columns.rank if columns.rank in df.columns else columns.score
    if order not in df.columns or (judgments is None and columns.relevance not in df.columns):
        return  # the validation names the missing column
    source = judgments if judgments is not None else df
    judged = pd.unique(source.loc[source[columns.relevance].notna(), columns.query])
    keys = [system, columns.query] if system is not None else [columns.query]
    ran = df.loc[df[order].notna(), keys].drop_duplicates()
    hit = ran[columns.query].isin(judged)
    if hit.all():
        return
    if system is not None:
        per_run = hit.groupby(ran[system].to_numpy(), sort=False, dropna=False).any()
    else:
        per_run = pd.Series({None: hit.any()})
    for name, any_judged in per_run.items():
        if not any_judged:
            ids = ran[columns.query] if system is None else ran.loc[ran[system] == name, columns.query]
            kind = "run" if qrels else "table"
            who = f"the {kind}" if system is None else f"{label or kind} {name!r}"
            if qrels:
                text = (
                    f"none of the {len(ids)} queries of {who} has judgments in the qrels ({_few(ids)}; the "
                    f"qrels judge {_few(judged) or 'nothing'}): do the files belong together?"
                )
            else:
                text = (
                    f"none of the {len(ids)} queries of {who} has a judgment (a non-null {columns.relevance!r}) "
                    f"({_few(ids)}); give the judgments with --qrels or name the column with --relevance"
                )
            if where is None:
                raise UsageError(text)
            raise InputFileError(where, text)


# ----------------------------------------------------------------------------------------------------------
# output


def _wide(result: pd.DataFrame, keys: list[str], metric_order: list[str]) -> pd.DataFrame:
    if not keys:
        wide = result.set_index("metric")["value"].to_frame().T
        wide = wide[[m for m in metric_order if m in wide.columns]]
        return wide.reset_index(drop=True)
    wide = result.pivot(index=keys, columns="metric", values="value")
    wide = wide[[m for m in metric_order if m in wide.columns]]
    wide.columns.name = None
    return wide.reset_index()


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4f}"
    return str(v)


def _fmt_p(v) -> str:
    """A p-value: 4 decimals, or 2 significant digits below 0.0001 (never a bare 0.0000 for 3e-9)."""
    if isinstance(v, float) and 0 < v < 1e-4:
        return f"{v:.1e}"
    return _fmt(v)


def _formatters(frame: pd.DataFrame, special: dict | None = None) -> dict:
    """Column -> formatter: the given ones, 4 decimals for other float columns, '' for None in text columns."""
    special = special or {}
    fmts = {c: special.get(c, _fmt) for c in frame.columns if pd.api.types.is_float_dtype(frame[c]) or c in special}
    fmts.update({c: _fmt for c in frame.columns if frame[c].dtype == object and c not in fmts})
    return fmts


def _table(frame: pd.DataFrame, fmt: str, special: dict | None = None, caption: str | None = None) -> str:
    """A frame as an aligned text table (``table``) or a Markdown table (``display``'s writer), numbers rounded."""
    if fmt == "markdown":
        return markdown_table(frame, _formatters(frame, special), [caption] if caption else [])
    text = frame.to_string(index=False, formatters=_formatters(frame, special))
    return text if caption is None else caption + "\n" + text


def _records(frame: pd.DataFrame, fmt: str, *, exact: bool = False) -> str:
    """Every column: csv (shortest round-trip floats; NaN and None as empty cells) or json records (null).

    pandas' json keeps 15 decimal places (fast, fine for metric values in [0, 1]); ``exact`` writes every float
    as Python's shortest round-trip repr instead (a p-value of 3e-12 keeps its digits), infinities as null.
    """
    if fmt == "csv":
        return frame.to_csv(index=False).rstrip("\n")
    if not exact:
        return frame.to_json(orient="records", double_precision=15)
    import json

    def native(v):
        if v is None or (isinstance(v, float) and not math.isfinite(v)) or v is pd.NA or v is pd.NaT:
            return None
        return v

    cols = {str(c): [native(v) for v in frame[c].tolist()] for c in frame.columns}
    rows = [dict(zip(cols, values)) for values in zip(*cols.values())]
    return json.dumps(rows, separators=(",", ":"), allow_nan=False, default=str)


#: the columns ``evaluate --ci`` adds to each mean
CI_COLUMNS = ("std_err", "ci_low", "ci_high")


def _render(
    result: pd.DataFrame, fmt: str, keys: list[str], metric_order: list[str], *, per_query: bool, ci: float | None
) -> str:
    """Format evaluate's result.

    Tidy ``[*keys, metric, value, n (, std_err, ci_low, ci_high)]`` for csv/json and for every format with
    --ci (per query: ``[*keys, metric, value]``); otherwise table and markdown are wide (one column per metric).
    """
    cols = [*keys, "metric", "value"]
    if not per_query:
        cols += ["n", *(CI_COLUMNS if ci is not None else ())]
    result = result[cols]  # the command's output columns, whatever else evaluate adds
    if fmt in ("csv", "json"):
        return _records(result, fmt)
    if ci is not None:
        caption = (
            f"value: the mean over n queries; [ci_low, ci_high]: its {ci * 100:.6g}% t interval "
            "(std_err = sd / sqrt(n))"
        )
        return _table(result.reset_index(drop=True), fmt, caption=caption)
    return _table(_wide(result[[*keys, "metric", "value"]], keys, metric_order), fmt)


def _render_compare(out: pd.DataFrame, fmt: str) -> str:
    """Format compare's result: every column at full precision (csv, json), or rounded under a caption line."""
    if fmt in ("csv", "json"):
        return _records(out, fmt, exact=True)
    shown = out if out["note"].notna().any() else out.drop(columns="note")
    caption = compare_caption(out.attrs)
    return _table(shown, fmt, {"p_value": _fmt_p, "p_adjusted": _fmt_p}, caption=caption)


# ----------------------------------------------------------------------------------------------------------
# commands


def _evaluate(args) -> int:
    import rankframe

    from .names import expand

    metrics = args.metrics or list(DEFAULT_MEASURES)
    # unknown names fail before any file is read; trec_eval's iprec_at_recall is its 11 levels (names.expand)
    measures = [one for m in metrics for one in expand(m)]
    labels = list(dict.fromkeys(str(m) for m in measures))
    by = _split_by(args.by)
    columns = _columns(args)
    policies = _policies(args)
    if args.format == "trec" and [b for b in by if b != "system"]:
        raise UsageError("--format trec prints one block per run; it cannot show --by segments (use another --format)")
    if args.ci is not None:
        _check_level("--ci", args.ci, "0.95")
    if args.ci is not None and args.per_query:
        raise UsageError("--ci gives intervals of means; it does not apply with --per-query")
    if args.ci is not None and args.format == "trec":
        raise UsageError("--format trec prints trec_eval's lines, without intervals; use another format with --ci")
    if args.agg != "mean" and args.per_query and args.format != "trec":
        raise UsageError(f"--agg {args.agg} aggregates over queries; it does not apply with --per-query")
    if args.agg != "mean" and args.ci is not None:
        raise UsageError(f"--ci gives t-intervals of means; it does not apply with --agg {args.agg}")
    trec_format = args.format == "trec"
    if trec_format:  # trec_eval's summary lines num_q, num_ret, num_rel, num_rel_ret come with every measure set
        asked = {str(m) for m in measures}
        measures += [rankframe.parse(c) for c in TREC_COUNTS if c not in asked]
    trec_inputs = not all(_is_long(p) for p in args.inputs)
    if _sql_road(args):
        result = _evaluate_in_duckdb(args, measures, columns, by, policies)
        return _output(args, result, measures, labels, by, columns, policies)
    duckdb_only = ("memory_limit", "threads", "temp_directory", "no_validate")
    if any(getattr(args, o) not in (None, False) for o in duckdb_only):
        raise UsageError(
            "--memory-limit, --threads, --temp-directory and --no-validate are for one long table read in DuckDB "
            "(a Parquet table, or a table with --engine duckdb); these inputs are read with pandas"
        )
    steps = 2 if trec_inputs else len(args.inputs) + (args.qrels is not None) + 1
    # --no-progress: this line, DuckDB's bar and the resampling bars (rankframe.progress) all stay off
    with progress_mod.using(False if args.no_progress else None), progress_mod.steps(steps) as progress:
        loaded = _load(args, columns, by, progress)
        if loaded.trec:
            columns = Columns()
        if loaded.system is not None and loaded.system not in by:
            by = [loaded.system, *by]
        progress.step("evaluating")
        per_query = args.per_query
        result = rankframe.evaluate(
            loaded.df,
            measures,
            by=by or None,
            per_query=per_query or trec_format,  # trec_eval's all lines are aggregated by _trec_lines
            agg="mean" if per_query or trec_format else args.agg,
            columns=columns,
            qrels=loaded.judgments,
            engine=args.engine or "pandas",
            allow_duplicates=args.allow_duplicates,
            ci=args.ci,
            no_relevant=policies["no_relevant"],
            no_retrieved=policies["no_retrieved"],
            no_judged=policies["no_judged"],
        )
    return _output(args, result, measures, labels, by, columns, policies)


def _sql_road(args, engine_default: str | None = None) -> bool:
    """One long table and no --qrels, Parquet (or any table with --engine duckdb): read it in DuckDB only.

    ``engine_default``: the --engine value that means "not chosen" (compare's parser defaults to 'pandas').
    """
    from .io import is_regular_file

    if len(args.inputs) != 1 or args.qrels is not None or not _is_long(args.inputs[0]):
        return False
    if not is_regular_file(args.inputs[0]):
        return False  # a pipe was read once already (to tell its format): pandas reads the bytes kept
    if args.engine == "duckdb":
        return True
    if args.engine == engine_default or args.engine is None:
        return suffix_kind(args.inputs[0]) != "csv"  # Parquet (by name or content): DuckDB reads it best
    return False


def _evaluate_in_duckdb(args, measures: list, columns: Columns, by: list[str], policies: dict) -> pd.DataFrame:
    """The SQL road: the file's rows stay in DuckDB (bounded memory); only per-query values reach pandas."""
    import rankframe

    from .engines import duckdb_source

    _check_options(args, trec=False)
    path = args.inputs[0]
    config = {k: getattr(args, k) for k in DUCKDB_OPTIONS if getattr(args, k) is not None}
    duckdb_source.settings_from(config, names=DUCKDB_OPTIONS)  # the library's one check, in the options' words
    with progress_mod.using(False if args.no_progress else None), progress_mod.steps(2) as progress:
        progress.step(f"reading {Path(path).name} in DuckDB")
        names = duckdb_source.column_names(path)
        _check_columns(pd.DataFrame(columns=names), path, args, columns, by, need_relevance=True)
        progress.step("evaluating in DuckDB")
        trec_format = args.format == "trec"
        return rankframe.evaluate(
            path,
            measures,
            by=by or None,
            per_query=args.per_query or trec_format,  # trec_eval's all lines are aggregated by _trec_lines
            agg="mean" if args.per_query or trec_format else args.agg,
            columns=columns,
            allow_duplicates=args.allow_duplicates,
            ci=args.ci,
            no_relevant=policies["no_relevant"],
            no_retrieved=policies["no_retrieved"],
            no_judged=policies["no_judged"],
            duckdb_config=config,
            validate=not args.no_validate,
        )


def _compare_source(args, columns: Columns, by: list[str], progress: progress_mod.Steps) -> tuple[pd.DataFrame, str]:
    """The SQL road of compare: the column checks and the systems of one Parquet table, from DuckDB (no pandas copy).

    Returns a small frame of the systems (the first row's first, for the default baseline) and the system column.
    """
    from .engines import duckdb_source

    _check_options(args, trec=False)
    path = args.inputs[0]
    system = args.col_system or columns.system
    progress.step(f"reading {Path(path).name} in DuckDB")
    info = duckdb_source.systems(path, system)
    _check_columns(pd.DataFrame(columns=info.columns), path, args, columns, by, need_relevance=True, system=system)
    progress.step("evaluating in DuckDB")
    found = [info.first, *info.found] if info.found else []
    return pd.DataFrame({system: pd.Series(found, dtype=object)}), system


def _output(args, result: pd.DataFrame, measures: list, labels: list, by: list, columns: Columns, policies) -> int:
    """Print evaluate's result in the chosen format (or fail when every query was skipped)."""
    per_query = args.per_query
    asked = result[result["metric"].isin(labels)] if args.format == "trec" else result  # not the count lines
    if asked.empty or ("n" in asked.columns and not asked["n"].any()):  # n: the queries each mean averages
        chosen = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in policies.items())
        raise UsageError(f"no query left to evaluate: every query was skipped under the query-set policies ({chosen})")
    keys = [*by, *([columns.query] if per_query else [])]
    if args.format == "trec":
        text = "\n".join(_trec_lines(result, measures, per_query, columns.query, args.agg))
    else:
        text = _render(result, args.format, keys, labels, per_query=per_query, ci=args.ci)
    _print(text)
    return 0


def _compare(args) -> int:
    import rankframe

    from .names import expand

    if not args.metrics:
        raise UsageError("compare needs the metrics to compare on: -m METRIC (repeatable), e.g. -m nDCG@10 -m AP")
    measures = [one for m in args.metrics for one in expand(m)]  # unknown names fail before any file is read
    _check_level("--alpha", args.alpha, "0.05")  # the command's own option; compare's are checked by compare:
    _compare_parameters(args)  # its one rule, before any file is read, in the options' words
    by = _split_by(args.by)
    family = _split_by(args.family)
    if "all" in family and len(family) > 1:
        raise UsageError(f"--family all is every comparison of the call; it cannot be combined with {family}")
    columns = _columns(args)
    policies = _policies(args)
    trec_inputs = not all(_is_long(p) for p in args.inputs)
    several = len(args.inputs) > 1
    if (trec_inputs or several) and args.col_system is not None:
        kind = "TREC run" if trec_inputs else "table"
        raise UsageError(
            f"--system names the system column of one long table; with several {kind}s each one is a system "
            f"(named {'by its tag' if trec_inputs else 'by its file name'})"
        )
    if args.fail_if_worse and args.pairs == "all" and args.baseline is None:
        raise UsageError("--fail-if-worse with --pairs all needs --baseline NAME: worse than which system?")
    if trec_inputs and not several:
        raise UsageError(f"compare needs at least 2 systems: give 2 or more TREC runs (got only {args.inputs[0]!r})")
    steps = 3 if trec_inputs else len(args.inputs) + (args.qrels is not None) + 2
    # --no-progress: this line, DuckDB's bar and the resampling bars (rankframe.progress) all stay off
    with progress_mod.using(False if args.no_progress else None), progress_mod.steps(steps) as progress:
        if not several and args.qrels is None and _sql_road(args, engine_default="pandas"):
            # one Parquet table: read in DuckDB only (as evaluate's SQL road); the per-query values come back
            table, system = _compare_source(args, columns, by, progress)
            baseline = _cli_baseline(table, system, args, False)
            table = args.inputs[0]
        else:
            loaded = _load(args, columns, by, progress, system=args.col_system or columns.system)
            # runs and several tables get a column 'system'; one table has its own (--system)
            system = loaded.system if loaded.system is not None else columns.system
            if loaded.trec:
                columns = Columns()
            baseline = _cli_baseline(loaded.df, system, args, trec_inputs or several)
            table = loaded.df
        progress.step("comparing")
        try:
            out = rankframe.compare(
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
            )
        except ValidationError as e:
            raise _in_cli_words(e) from None
        except ParameterError as e:
            raise UsageError(_cli_words(str(e))) from None
    _print(_render_compare(out, args.format))
    if args.fail_if_worse:
        worse = _worse(out, baseline, args.alpha)
        if worse:
            sys.stderr.write("".join(f"rankframe: worse: {w}\n" for w in worse))
            return EXIT_WORSE
    return EXIT_OK


def _check_level(option: str, value: float, example: str) -> None:
    if not 0 < value < 1:  # NaN fails too
        raise UsageError(f"{option} must be a level in the open interval (0, 1), e.g. {example}; got {value:g}")


#: rankframe.compare's parameters and the command's options that set them (the rest: --name-with-dashes)
_COMPARE_OPTIONS = {"system": "--system", "columns": "--query/--item/--rank/--relevance/--score"}


def _option(name: str) -> str:
    return _COMPARE_OPTIONS.get(name, "--" + name.replace("_", "-"))


def _cli_words(text: str) -> str:
    """A message of rankframe.compare in the command's words.

    ``The 'ci' parameter of compare`` is ``--ci``, ``missing='zero'`` is ``--missing zero``, ``pairs='all'`` is
    ``--pairs all``; a validation message's ``by='model'`` is ``--by model`` (``by=['a', 'b']`` is ``--by a --by
    b``) and ``allow_duplicates=True`` is ``--allow-duplicates``.
    """
    params = ("pairs", "test", "ci_method", "ci", "correction", "missing", "n_resamples", "seed", "engine")
    text = re.sub(
        r"The '(\w+)' parameter of compare must be",
        lambda m: f"{_option(m.group(1))} must be" if m.group(1) in (*params, "baseline", "family") else m.group(0),
        text,
    )
    text = re.sub(rf"\b({'|'.join(params)})='([^']*)'", lambda m: f"{_option(m.group(1))} {m.group(2)}", text)
    text = re.sub(
        r"\bby=('[^']*'|\[[^\]]*\])",
        lambda m: " ".join(f"{_option('by')} {v}" for v in re.findall(r"'([^']*)'", m.group(1))),
        text,
    )
    return re.sub(r"\ballow_duplicates=True\b", _option("allow_duplicates"), text)


def _compare_parameters(args) -> None:
    """rankframe.compare's check of its parameters (the ones that need no data), before any file is read."""
    from .compare import _check_parameters

    try:
        _check_parameters(
            dict(
                pairs=args.pairs,
                test=args.test,
                ci_method=args.ci_method,
                ci=args.ci,
                correction=None if args.correction == "none" else args.correction,
                missing=args.missing,
                n_resamples=args.n_resamples,
                seed=args.seed,
                engine=args.engine,
                options={},
            )
        )
    except ParameterError as e:
        raise UsageError(_cli_words(str(e))) from None


def _in_cli_words(e: ValidationError) -> ValidationError:
    """A ValidationError in the command's words (:func:`_cli_words`: --missing zero, --by model, ...)."""
    failures = [{**f, "rule": _cli_words(f["rule"])} if isinstance(f.get("rule"), str) else f for f in e.failures]
    return ValidationError(failures, e.table)


def _cli_baseline(df: pd.DataFrame, system: str, args, files_are_systems: bool) -> object:
    """The baseline as a value of the system column, by rankframe.compare's rule (``compare._pick_baseline``).

    --baseline is text: it names the system whose text it is (the table's values may be numbers); the rule
    (at least 2 systems, the baseline one of them, else the first run or table given, or the system of a
    table's first row) is the library's, its errors in the command's words.
    """
    from .compare import _pick_baseline

    systems = df[[system]].dropna()
    value = args.baseline
    if value is not None:
        value = next((s for s in pd.unique(systems[system]) if str(s) == args.baseline), args.baseline)
    try:
        return _pick_baseline(systems, system, value, args.pairs)[0]
    except ValidationError as e:  # fewer than 2 systems
        more = "give 2 or more runs or tables" if files_are_systems else "or give the column with --system COL"
        rule = e.failures[0]["rule"]
        if files_are_systems:
            rule = rule.replace(f"in column {system!r}", "(the runs' tags or the tables' file names)")
        raise UsageError(f"{rule} ({more})") from None
    except ParameterError as e:  # no such system
        text = _cli_words(str(e)).replace(
            "--baseline must be one of", f"--baseline {args.baseline}: no such system; it must be one of"
        )
        if files_are_systems:
            text = text.replace(f"in column {system!r}", "(the runs' tags, or the tables' file names)")
        raise UsageError(text) from None


def _worse(out: pd.DataFrame, baseline: object, alpha: float) -> list[str]:
    """The rows where a system is significantly worse than the baseline (p_adjusted < alpha, delta < 0), in words."""
    segments = list(out.columns[: list(out.columns).index("metric")])
    bad = out[(out["baseline"] == baseline) & (out["p_adjusted"] < alpha) & (out["delta"] < 0)]
    lines = []
    for r in bad.to_dict("records"):
        where = ", ".join(f"{c}={r[c]}" for c in segments)
        lines.append(
            f"{r['system']} < {r['baseline']} on {r['metric']}{f' ({where})' if where else ''}: "
            f"delta {r['delta']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}], "
            f"p_adjusted {_fmt_p(float(r['p_adjusted']))} < alpha {alpha:g}"
        )
    return lines


def _sql(args) -> int:
    try:
        from . import sql
    except ImportError as e:  # pragma: no cover - the SQL module ships with the package
        raise RankframeError(f"the SQL macros are not available: {e}") from None
    try:
        text = sql.text()
    except (FileNotFoundError, ValueError) as e:
        raise RankframeError(str(e)) from None
    if args.output is not None:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write --output {args.output!r}: {e.strerror or e}") from None
        return 0
    _print(text.rstrip("\n"))
    return 0


def _validate(args) -> int:
    import rankframe

    from . import io

    columns = _columns(args)
    by = _split_by(args.by)
    trec = not _is_long(args.file)
    _check_options(args, trec)
    if trec:
        if args.qrels is None:
            raise UsageError(f"{args.file!r} is not a .parquet/.csv table; for a TREC run add --qrels QRELS")
        df = io.read_trec(args.file, args.qrels, keep_first_duplicate=args.keep_first_duplicate)
        columns = Columns()
        by = ["system", *by] if "system" not in by else by
    else:
        if args.qrels is not None:
            raise UsageError("--qrels is for a TREC run; a long table holds its judgments in its relevance column")
        df = io.read_long(args.file, columns=columns)
        _check_columns(df, args.file, args, columns, by, need_relevance=True)
    rankframe.validate(df, columns, by=by, allow_duplicates=args.allow_duplicates)
    _print(f"ok: {args.file}: {len(df)} rows, {df[columns.query].nunique()} queries")
    return 0


def _report(args) -> int:
    from .report import run

    return run(args)


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankframe`` command and return its exit status (:data:`EXIT_STATUS`).

    0 on success, 1 when ``compare --fail-if-worse`` found a system significantly worse than the baseline (and
    for nothing else), 2 on a usage or input error (a :class:`~rankframe.errors.RankframeError`; argparse's
    usage errors raise ``SystemExit(2)``), 3 on an internal error, 130 when interrupted.
    """
    try:
        args = _parser().parse_args(argv)  # a usage error raises SystemExit(2), which passes through
        command = {"evaluate": _evaluate, "compare": _compare, "sql": _sql, "validate": _validate, "report": _report}
        return command[args.command](args)
    except RankframeError as e:
        text = str(_in_cli_words(e) if isinstance(e, ValidationError) else e)
        sys.stderr.write(f"rankframe: error: {text}\n")
        return EXIT_ERROR
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            _quiet_broken_pipe()
            return EXIT_OK
        sys.stderr.write(f"rankframe: error: {e}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("rankframe: interrupted\n")
        return EXIT_INTERRUPTED
    except Exception as e:  # noqa: BLE001 - anything else is a bug of rankframe, never a verdict (exit 1)
        return _internal_error(e)


def _internal_error(e: Exception) -> int:
    """One line naming the exception and asking for a report; the traceback only with RANKFRAME_TRACEBACK=1."""
    from . import __version__

    if os.environ.get(TRACEBACK_ENV, "").strip() not in ("", "0"):
        import traceback

        traceback.print_exc(file=sys.stderr)
    first = (str(e).strip().splitlines() or [""])[0]
    sys.stderr.write(
        f"rankframe: internal error: {type(e).__name__}{': ' + first if first else ''} "
        f"(a bug in rankframe {__version__}, not a problem with your input: please report it with the command "
        f"line; {TRACEBACK_ENV}=1 shows the traceback)\n"
    )
    return EXIT_INTERNAL


def _quiet_broken_pipe() -> None:
    """``rankframe ... | head``: stop quietly when the reader goes away."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:  # pragma: no cover
        pass


def entry() -> None:  # pragma: no cover - console-script wrapper
    """Console-script entry point (``sys.exit(main())``)."""
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
