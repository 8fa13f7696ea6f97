"""The command's vocabulary: its usage error, exit statuses, shared option groups and their meaning.

The arguments turned into the library's (columns, query-set policies, ``by``); the library's messages in the options'
words (:func:`using_flags`, :func:`_cli_words`), so each rule is checked once, by the library, and reported with the
flag's name.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..core.columns import Columns
from ..core.errors import CALLER_OPTIONS, CallerOptions, ParameterError, RankframeError, caller_option

#: the commands in the order ``--help`` lists them: name -> (its module in rankframe.cli, None = this package's
#: ``__init__``; its one-line help). ``rankframe --help`` reads this table only: a command's module, and the
#: libraries it needs, are imported when that command runs (issue 36: the start-up loads no pandas).
COMMANDS: dict[str, tuple[str | None, str]] = {
    "evaluate": ("evaluate", "compute metrics for TREC runs (with --qrels) or a long Parquet/CSV table"),
    "compare": ("compare", "compare systems with paired tests, confidence intervals and corrected p-values"),
    "anova": ("anova", "omnibus two-way (system x query) ANOVA, system x segment interaction, Sakai's effect sizes"),
    "agreement": (
        "agreement",
        "agreement of two label columns (Cohen's kappa) or several coders (Krippendorff's alpha), per segment",
    ),
    "fuse": ("fuse", "fuse several runs into one (RRF, CombSUM, ...) and write the fused run"),
    "report": ("report", "write one self-contained HTML report (tables per segment and plots) comparing systems"),
    "qrels-compare": (
        "qrels_compare",
        "the systems' ranking under two judgment sets (human vs LLM): tau-b, tau_AP, verdict flips",
    ),
    "sql": (None, "print rankframe's DuckDB SQL macros, or with --dialect one portable SELECT for a warehouse"),
    "validate": (None, "check a long table (or a run with --qrels) against the data model"),
}


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


#: the last line of a command's description (compare says its own: it also exits 1)
EXIT_STATUS_LINE = (
    f"Exit status: {EXIT_OK}; {EXIT_ERROR} on a usage or input error; {EXIT_INTERNAL} on an internal error (a bug)."
)


def _exit_status_epilog() -> str:
    return "exit status:\n" + "\n".join(f"  {code:<4}{text}" for code, text in EXIT_STATUS)


_ROLES = ("query", "item", "rank", "relevance", "score")


def _input_options(p: argparse.ArgumentParser, metric_help: str) -> None:
    """The inputs of evaluate and compare: runs or tables, --qrels, -m, --by."""
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="RUN_OR_TABLE",
        help="TREC run files (gz ok), or long tables (.parquet, .csv, .tsv)",
    )
    p.add_argument("--qrels", help="TREC qrels file (qid iteration docno relevance); required for runs")
    p.add_argument(
        "--subtopic-qrels",
        action="store_true",
        help="the --qrels file is a subtopic qrels (qid subtopic docno relevance, ndeval's form) for the "
        "intent-aware measures (alpha_nDCG, ERR_IA, ...); the other metrics read each docno's largest grade",
    )
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
    from ..measures.registry import POLICIES

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


def _table_options(p: argparse.ArgumentParser, *, progress: bool = True) -> None:
    """The options of every command that reads tables: duplicates, column names and (``progress``) --no-progress."""
    _duplicate_options(p)
    _column_options(p)
    if progress:
        p.add_argument("--no-progress", action="store_true", help="never draw the progress line on stderr")


def _columns(args) -> Columns:
    return Columns().with_(**{n: getattr(args, f"col_{n}") for n in _ROLES})


def _policies(args) -> dict[str, str]:
    """The query-set policies: each option's value, else the registry's default; -c is --no-retrieved zero."""
    from ..measures.registry import POLICY_DEFAULTS

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


def _check_level(option: str, value: float, example: str) -> None:
    if not 0 < value < 1:  # NaN fails too
        raise UsageError(f"{option} must be a level in the open interval (0, 1), e.g. {example}; got {value:g}")


#: the library functions each command calls, whose parameters are its options (the owners of their ParameterErrors)
OWNERS: dict[str, tuple[str, ...]] = {
    "evaluate": ("evaluate",),
    "compare": ("compare", "evaluate"),
    "anova": ("anova", "evaluate"),
    "agreement": ("agreement",),
    "fuse": ("fuse",),
    "report": ("report", "compare", "evaluate"),
    "qrels-compare": ("qrels_compare", "evaluate"),
    "sql": ("evaluate", "render"),
    "validate": ("validate",),
}


def flag_table(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The parser's own table of its options: each action's ``dest`` -> its longest option string.

    A column option (``dest`` ``col_system``) also answers for the library's parameter (``system``), and the
    column options together for ``columns`` (``--query/--item/--rank/--relevance/--score``).
    """
    table: dict[str, str] = {}
    for action in parser._actions:  # argparse keeps the actions here; it has no public accessor
        if not action.option_strings or action.dest == "help":
            continue
        option = max(action.option_strings, key=len)
        table.setdefault(action.dest, option)
        for prefix in ("col_", "sql_"):  # --query (col_query) sets query; rankframe sql's --qrels (sql_qrels) qrels
            if action.dest.startswith(prefix):
                table.setdefault(action.dest[len(prefix) :], option)
    columns = [table[f"col_{role}"] for role in ("system", *_ROLES) if f"col_{role}" in table]
    if columns:
        table.setdefault("columns", "/".join(columns))
    return table


def caller_options(parser: argparse.ArgumentParser, command: str) -> CallerOptions:
    """The command's options as the library's messages name them (:func:`rankframe.errors.keyword`).

    Its :func:`flag_table`, each option's word for its value (``train`` -> ``FILE``, where the parser says one), the
    library functions whose parameters they are (:data:`OWNERS`) and the options given once per value (``--by``).
    """
    actions = [a for a in parser._actions if a.option_strings]
    return CallerOptions(
        flag_table(parser),
        {a.dest: a.metavar for a in actions if isinstance(a.metavar, str)},
        OWNERS.get(command, ()),
        frozenset(a.dest for a in actions if isinstance(a, argparse._AppendAction)),
    )


@contextmanager
def using_flags(parser: argparse.ArgumentParser, command: str) -> Iterator[None]:
    """Inside, the library's messages are in the command's words (:data:`rankframe.errors.CALLER_OPTIONS`).

    A ParameterError of the command's library names its option (:func:`option_of`), and a parameter mentioned inside
    a message is its option (:func:`rankframe.errors.keyword`: ``missing='zero'`` is ``--missing zero``).
    """
    token = CALLER_OPTIONS.set(caller_options(parser, command))
    try:
        yield
    finally:
        CALLER_OPTIONS.reset(token)


def option_of(e: ParameterError) -> str | None:
    """The running command's option that sets ``e.parameter``, or None (not the command's library, or no such)."""
    caller = CALLER_OPTIONS.get()
    if e.parameter is None or e.owner not in caller.owners:
        return None
    return caller.flags.get(e.parameter)


def flag_of(parameter: str) -> str | None:
    """The running command's option whose ``dest`` is ``parameter`` (:func:`flag_table`), or None."""
    return caller_option(parameter)


def _cli_words(e: RankframeError | str) -> str:
    """A message of the library in the command's words.

    A ParameterError's parameter is its option (:func:`option_of`: ``The 'ci' parameter of compare`` is ``--ci``).
    Every other mention of a parameter in the text is already the command's (``--missing zero``, ``--per-query``,
    ``--by a --by b``): the library wrote it with :func:`rankframe.errors.keyword` while the command ran
    (:func:`using_flags`).
    """
    if isinstance(e, ParameterError):
        flag = option_of(e)
        return str(e) if flag is None else e.with_subject(flag)
    return str(e)


@contextmanager
def in_cli_words() -> Iterator[None]:
    """A ParameterError raised inside becomes a UsageError, its parameter named by its option (:func:`_cli_words`).

    Any other error passes as it is: its words are already the command's (:func:`rankframe.errors.keyword`).
    """
    try:
        yield
    except ParameterError as e:
        raise UsageError(_cli_words(e)) from None


def _beyond_input_options(parser) -> None:
    """--train / --catalog: the extra inputs of the beyond-accuracy metrics (evaluate's train= and catalog=)."""
    b = parser.add_argument_group(
        "beyond-accuracy inputs (docs/beyond-accuracy.md; the table is then read with pandas)"
    )
    b.add_argument(
        "--train",
        metavar="FILE",
        help="past interactions (Parquet or CSV) with the ranking table's query and item column names and an "
        "optional weight column: train= of ARP, APLT, Novelty (and Coverage, Gini with universe='train')",
    )
    b.add_argument(
        "--catalog",
        metavar="FILE",
        help="the item ids that could be recommended, a one-column table (Parquet or CSV): catalog= of Coverage "
        "and Gini",
    )
    b.add_argument(
        "--features",
        metavar="FILE",
        help="item features (Parquet or CSV) with the ranking table's item column name, 'feature' and an optional "
        "numeric 'value': features= of ILD and Calibration",
    )
