"""``rankframe agreement``: rankframe.agreement (Cohen's kappa, Krippendorff's alpha) on a Parquet/CSV table.

The options are :func:`rankframe.agreement.agreement`'s parameters; its checks are the library's, their messages
in the options' words (``The 'weights' parameter of agreement`` is ``--weights``: the parser's own table,
:func:`rankframe.cli._options.flag_table`; a parameter named inside a message, :func:`rankframe.errors.keyword`).
"""

from __future__ import annotations

import argparse

from ._options import (
    COMMANDS,
    EXIT_OK,
    EXIT_STATUS_LINE,
    UsageError,
    _column_options,
    _columns,
    _split_by,
    flag_of,
    in_cli_words,
)
from ._render import _print, _records, _table
from .compare import COMPARE_FORMATS


def add_parser(sub) -> None:
    """``rankframe agreement``: the two-coder options, or the several-coder options."""
    from ..agreement import LEVELS, WEIGHTS
    from ..stats.randomization import N_RESAMPLES

    ag = sub.add_parser(
        "agreement",
        help=COMMANDS["agreement"][1],
        description="Agreement between relevance labels per segment (rankframe.agreement; docs/judgments.md).\n"
        "Two coders (--a, --b): one row per (query, item) with both labels; n, agreement (share of equal labels),\n"
        "kappa (Cohen's, as scikit-learn's cohen_kappa_score). Several coders (--coder, --value, --unit, --level):\n"
        "one row per (unit, coder); n (pairable units) and alpha (Krippendorff's, as the krippendorff package).\n"
        + EXIT_STATUS_LINE,
        epilog="examples:\n"
        "  rankframe agreement labels.parquet --a human --b llm --by topic_type --weights quadratic\n"
        "  rankframe agreement labels.csv --rel 2 --ci 0.95 --seed 1\n"
        "  rankframe agreement ratings.parquet --coder annotator --value grade --level ordinal",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ag.add_argument("file", metavar="FILE", help="a Parquet or CSV table")
    ag.add_argument("--by", action="append", default=[], metavar="COL[,COL]", help="segment columns (repeatable)")
    two = ag.add_argument_group("two coders (Cohen's kappa)")
    two.add_argument("--a", metavar="COL", help="the first label column (default: human)")
    two.add_argument("--b", metavar="COL", help="the second label column (default: llm)")
    two.add_argument("--weights", choices=WEIGHTS, help="weighted kappa over the index of the label scale")
    two.add_argument(
        "--labels", metavar="L[,L]", help="the label scale, comma-separated (default: the labels seen in the file)"
    )
    two.add_argument("--rel", type=float, metavar="GRADE", help="binarise both labels at grade >= GRADE first")
    two.add_argument("--ci", type=float, metavar="LEVEL", help="bootstrap interval of kappa over queries (e.g. 0.95)")
    two.add_argument(
        "--n-resamples", type=int, metavar="N", help=f"bootstrap resamples with --ci (default {N_RESAMPLES})"
    )
    two.add_argument("--seed", type=int, metavar="N", help="seed of the bootstrap with --ci")
    many = ag.add_argument_group("several coders (Krippendorff's alpha)")
    many.add_argument("--coder", metavar="COL", help="the coder column")
    many.add_argument("--value", metavar="COL", help="the value column (default with --coder: value)")
    many.add_argument("--unit", metavar="COL[,COL]", help="the unit columns (default: the query and item columns)")
    many.add_argument("--level", choices=LEVELS, help="level of measurement (default: nominal)")
    ag.add_argument(
        "--format", choices=COMPARE_FORMATS, default="table",
        help="table (default, rounded), markdown, csv or json (every column, full precision)",
    )  # fmt: skip
    _column_options(ag)


def _numbers(option: str, text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"{option} takes numbers separated by commas; got {text!r}") from None


def run(args) -> int:
    """Read the table, run rankframe.agreement, print its table."""
    from ..agreement import agreement
    from ..tables import io

    columns = _columns(args)
    multi = any(getattr(args, k) is not None for k in ("coder", "value", "unit", "level"))
    two = {"a": args.a, "b": args.b, "weights": args.weights, "labels": _numbers("--labels", args.labels),
           "rel": args.rel, "ci": args.ci, "n_resamples": args.n_resamples, "seed": args.seed}  # fmt: skip
    many = {"coder": args.coder, "value": args.value, "level": args.level,
            "unit": None if args.unit is None else _split_by([args.unit])}  # fmt: skip
    given = {k: v for k, v in (many if multi else two).items() if v is not None}
    if multi:
        mixed = [k for k, v in two.items() if v is not None]
        if mixed:
            raise UsageError(f"{flag_of(mixed[0])} is a two-coder option; --coder/--value/--unit/--level take none")
        numeric = [args.value or "value"]
    else:
        numeric = [args.a or "human", args.b or "llm"]
    with in_cli_words():
        df = io.read_long(args.file, columns=columns, numeric=numeric)
        out = agreement(df, by=_split_by(args.by) or None, columns=columns, **given)
    if args.format in ("csv", "json"):
        _print(_records(out, args.format, exact=True))
    else:
        shown = out if out["note"].notna().any() else out.drop(columns="note")
        _print(_table(shown, args.format))
    return EXIT_OK
