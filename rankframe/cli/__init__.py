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
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._version import __version__
from ..core.errors import ParameterError, RankframeError
from ._options import (
    COMMANDS,
    EXIT_ERROR,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STATUS,
    EXIT_WORSE,
    TRACEBACK_ENV,
    UsageError,
    _cli_words,
    _column_options,
    _columns,
    _exit_status_epilog,
    _policies,
    _policy_options,
    _split_by,
    _table_options,
    using_flags,
)

__all__ = [
    "COMPARE_FORMATS",
    "DEFAULT_MEASURES",
    "DUCKDB_OPTIONS",
    "EXIT_ERROR",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STATUS",
    "EXIT_WORSE",
    "FORMATS",
    "TRACEBACK_ENV",
    "TREC_COUNTS",
    "Loaded",
    "UsageError",
    "entry",
    "main",
    "trec_name",
]

# This module is what `rankframe --help` imports: only the light modules above (no pandas, numpy, DuckDB). The names
# below moved to the command modules and rankframe.io; they stay importable from here (tests, old scripts), loaded
# at first use by __getattr__.
_LAZY: dict[str, tuple[str, str]] = {
    "_LONG_SUFFIXES": ("..tables.io", "LONG_SUFFIXES"),
    "TREC_COUNTS": ("..tables.io", "TREC_COUNTS"),
    "is_long": ("..tables.io", "is_long"),
    "trec_name": ("..tables.io", "trec_name"),
    "_TREC_ORDER": ("..tables.io", "TREC_ORDER"),
    "_is_long": ("..tables.io", "is_long"),
    "_trec_line": ("..tables.io", "trec_line"),
    "_trec_lines": ("..tables.io", "trec_lines"),
    "Loaded": ("._load", "Loaded"),
    "_check_columns": ("._load", "_check_columns"),
    "_check_options": ("._load", "_check_options"),
    "_load": ("._load", "_load"),
    "COMPARE_FORMATS": (".compare", "COMPARE_FORMATS"),
    "DEFAULT_MEASURES": (".evaluate", "DEFAULT_MEASURES"),
    "DUCKDB_OPTIONS": (".evaluate", "DUCKDB_OPTIONS"),
    "FORMATS": (".evaluate", "FORMATS"),
}
#: the function that runs each command, in its module (COMMANDS)
_RUN = {
    "evaluate": "_evaluate",
    "compare": "_compare",
    "anova": "run",
    "agreement": "run",
    "fuse": "_fuse",
    "report": "run",
    "qrels-compare": "run",
    "sql": "_sql",
    "validate": "_validate",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module, __name__), attr)
    if name in {m for m, _ in COMMANDS.values() if m} | {"_load", "_render", "_options"}:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _print(*args: Any, **kwargs: Any) -> None:
    from ._render import _print as print_

    print_(*args, **kwargs)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command an argument list runs (its first word that is not an option), or None (``--help``, none)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; without ``command``, every command's full sub-parser.

    With ``command`` (``""``: none), that command's full sub-parser (its module imported) and the other commands
    by name and help only, which is all ``rankframe --help`` and argparse's "invalid choice" message show.
    """
    p = argparse.ArgumentParser(
        prog="rankframe",
        description="Ranking-quality metrics over TREC run/qrels files and long-format Parquet/CSV tables.",
        epilog=_exit_status_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"rankframe {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    for name, (module, help_) in COMMANDS.items():
        if command is not None and name != command:
            sub.add_parser(name, help=help_, add_help=False)
        elif module is not None:
            importlib.import_module(f".{module}", __name__).add_parser(sub)
        else:
            {"sql": _add_sql, "validate": _add_validate}[name](sub)
    return p


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The sub-parser of ``command`` (its options are the ones :func:`~._options.flag_table` reads)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _add_sql(sub) -> None:
    sq = sub.add_parser(
        "sql",
        help=COMMANDS["sql"][1],
        description="Print every rankframe DuckDB macro as one SQL script, or write it with -o FILE (then `.read FILE` "
        "in the DuckDB CLI).",
    )
    sq.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the script to FILE (for `.read FILE` in the DuckDB CLI) instead of printing it",
    )
    w = sq.add_argument_group(
        "portable SQL for a warehouse (rankframe.sql.render: one plain SELECT; docs/warehouse.md)",
        "with --dialect, print one SELECT computing the metrics over --table instead of the DuckDB macros",
    )
    w.add_argument(
        "--dialect",
        metavar="NAME",
        help="sqlglot's name of the target: postgres, bigquery, snowflake, spark, trino, duckdb, ...",
    )
    w.add_argument("--table", default="runs", help="the long table or view to read (default: runs; schema.table)")
    w.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC", help="metric (repeatable)")
    w.add_argument("--by", action="append", default=[], metavar="COL", help="segment column (repeatable)")
    w.add_argument("--per-query", action="store_true", help="one row per (segment, query) instead of the means")
    w.add_argument(
        "--order-by", choices=("rank", "score"), default="rank", help="the column ordering each query's items"
    )
    w.add_argument(
        "--baseline",
        metavar="SYSTEM",
        help="instead of the metrics: the paired t-test of every system against SYSTEM per segment "
        "(rankframe.sql.render_compare: n, means, delta, sd_diff, statistic, df)",
    )
    w.add_argument("--system", default="system", help="with --baseline: the column naming the systems")
    w.add_argument(
        "--train",
        metavar="TABLE",
        help="the table of past interactions the popularity metrics read (ARP, APLT, Novelty; docs/beyond-accuracy.md)",
    )
    w.add_argument("--train-weight", metavar="COL", help="with --train: its column of interaction weights")
    w.add_argument("--catalog", metavar="TABLE", help="the table of the catalog's item ids (Coverage, Gini)")
    w.add_argument("--features", metavar="TABLE", help="item features (item, feature, value): ILD, Calibration")
    w.add_argument("--features-value", metavar="COL", help="with --features: its column of feature values")
    w.add_argument(
        "--qrels",
        dest="sql_qrels",
        metavar="TABLE",
        help="the subtopic qrels table (query, subtopic, item, relevance) of the intent-aware measures; --table is "
        "then the run (docs/diversity.md)",
    )
    w.add_argument(
        "--subtopic", dest="sql_subtopic", metavar="COL", help="with --qrels: its subtopic column (default: subtopic)"
    )
    w.add_argument(
        "--ideal-depth",
        dest="sql_ideal_depth",
        metavar="N",
        type=int,
        help="with --qrels: the stages of the greedy ideal list of alpha_nDCG, nERR_IA, nNRBP without @k",
    )
    d = sq.add_argument_group(
        "dbt package (docs/warehouse.md, section dbt)",
        "with --dbt DIR, write the dbt package whose macro rankframe.metrics(...) expands to this SELECT per adapter",
    )
    d.add_argument(
        "--dbt",
        metavar="DIR",
        help="write the dbt package into DIR for the -m metrics (default: the metrics of the repository's dbt/)",
    )
    d.add_argument(
        "--dbt-max-by",
        type=int,
        default=None,
        metavar="N",
        help="with --dbt: the most by columns a rankframe.metrics call takes (default: 3, at most 16)",
    )
    _policy_options(sq)
    _column_options(sq)
    sq.set_defaults(inputs=[])


def _add_validate(sub) -> None:
    va = sub.add_parser(
        "validate",
        help=COMMANDS["validate"][1],
        description="Report every schema violation of a long table (or TREC run + qrels).",
    )
    va.add_argument("file", metavar="FILE")
    va.add_argument("--qrels", help="TREC qrels, when FILE is a TREC run")
    va.add_argument("--by", action="append", default=[], metavar="COL", help="segment column (repeatable)")
    _table_options(va, progress=False)


def _sql(args) -> int:
    try:
        from .. import sql
    except ImportError as e:  # pragma: no cover - the SQL module ships with the package
        raise RankframeError(f"the SQL macros are not available: {e}") from None
    if args.dbt is not None:
        return _sql_dbt(args)
    if args.dbt_max_by is not None:
        raise UsageError("--dbt-max-by is an option of the dbt package: add --dbt DIR")
    if args.dialect is not None:
        if not args.metrics:
            raise UsageError("rankframe sql --dialect needs at least one -m/--metric")
        common = {"dialect": args.dialect, "table": args.table, "by": _split_by(args.by), "columns": _columns(args),
                  "order_by": args.order_by, **_policies(args)}  # fmt: skip
        if args.baseline is not None:
            if args.per_query:
                raise UsageError("--per-query and --baseline: the comparison is per segment (drop --per-query)")
            given = [
                o
                for o, v in (("--train", args.train), ("--catalog", args.catalog), ("--features", args.features))
                if v is not None
            ]
            if given:
                raise UsageError(f"{given[0]} and --baseline: the comparison takes the accuracy metrics only")
            text = sql.render_compare(args.metrics, baseline=args.baseline, system=args.system, **common)
        else:
            inputs = {"train": args.train, "catalog": args.catalog, "train_weight": args.train_weight,
                      "features": args.features, "features_value": args.features_value,
                      "qrels": args.sql_qrels, "ideal_depth": args.sql_ideal_depth}  # fmt: skip
            if args.sql_subtopic is not None:
                common["columns"] = common["columns"].with_(subtopic=args.sql_subtopic)
            try:
                text = sql.render(args.metrics, per_query=args.per_query, **inputs, **common)
            except ParameterError as e:  # a metric without its input: the option's words
                raise UsageError(_cli_words(e)) from None
    else:
        portable_only = [
            o
            for o, on in (("-m", args.metrics), ("--by", args.by), ("--per-query", args.per_query),
                          ("--baseline", args.baseline is not None), ("--train", args.train is not None),
                          ("--catalog", args.catalog is not None), ("--features", args.features is not None),
                          ("--qrels", args.sql_qrels is not None))
            if on
        ]  # fmt: skip
        if portable_only:
            raise UsageError(f"{portable_only[0]} is an option of the portable SQL: add --dialect NAME")
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


def _sql_dbt(args) -> int:
    """``rankframe sql --dbt DIR [-m METRIC ...] [--dbt-max-by N]``: write the dbt package, print its files."""
    from ..warehouse import dbt

    others = [
        o
        for o, on in (("--dialect", args.dialect is not None), ("--by", args.by), ("--per-query", args.per_query),
                      ("--baseline", args.baseline is not None), ("-o/--output", args.output is not None))
        if on
    ]  # fmt: skip
    if others:
        raise UsageError(
            f"{others[0]} is not an option of --dbt: the package takes every dialect, and by= / per_query= are "
            "arguments of the macro rankframe.metrics(...)"
        )
    max_by = dbt.MAX_BY if args.dbt_max_by is None else args.dbt_max_by
    try:
        written = dbt.write(args.dbt, args.metrics or dbt.SHIPPED_METRICS, max_by=max_by)
    except OSError as e:
        raise UsageError(f"cannot write --dbt {args.dbt!r}: {e.strerror or e}") from None
    _print("\n".join(str(p) for p in written))
    return 0


def _validate(args) -> int:
    from ..core.columns import Columns
    from ..evaluate import validate
    from ..tables import io
    from ..tables.io import is_long
    from ..tables.join import read_trec
    from ._load import _check_columns, _check_options

    columns = _columns(args)
    by = _split_by(args.by)
    trec = not is_long(args.file)
    _check_options(args, trec)
    if trec:
        if args.qrels is None:
            raise UsageError(f"{args.file!r} is not a .parquet/.csv table; for a TREC run add --qrels QRELS")
        df = read_trec(args.file, args.qrels, keep_first_duplicate=args.keep_first_duplicate)
        columns = Columns()
        by = ["system", *by] if "system" not in by else by
    else:
        if args.qrels is not None:
            raise UsageError("--qrels is for a TREC run; a long table holds its judgments in its relevance column")
        df = io.read_long(args.file, columns=columns)
        _check_columns(df, args.file, args, columns, by, need_relevance=True)
    validate(df, columns, by=by, allow_duplicates=args.allow_duplicates)
    _print(f"ok: {args.file}: {len(df)} rows, {df[columns.query].nunique()} queries")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankframe`` command and return its exit status (:data:`EXIT_STATUS`).

    0 on success, 1 when ``compare --fail-if-worse`` found a system significantly worse than the baseline (and
    for nothing else), 2 on a usage or input error (a :class:`~rankframe.errors.RankframeError`; argparse's
    usage errors raise ``SystemExit(2)``), 3 on an internal error, 130 when interrupted.
    """
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = _parser(_command_of(argv) or "")
        args = parser.parse_args(argv)  # a usage error raises SystemExit(2), passed through
        module = COMMANDS[args.command][0]
        home = sys.modules[__name__] if module is None else importlib.import_module(f".{module}", __name__)
        with using_flags(_subparser(parser, args.command), args.command):
            try:
                return getattr(home, _RUN[args.command])(args)
            except ParameterError as e:  # one the command did not word: its parameter named by its option
                raise UsageError(_cli_words(e)) from None
    except RankframeError as e:
        text = str(e)
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
