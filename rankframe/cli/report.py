"""``rankframe report``: the inputs and options of ``rankframe compare``, written as one HTML file.

The file is :func:`rankframe.report.report`'s (the library function); this module is only the command around it.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..compare import CORRECTIONS, TESTS
from ..core import progress
from ..core.errors import ParameterError, install_extra
from ..measures.names import parse
from ..report import report
from ..stats.align import MISSING
from ..stats.randomization import N_RESAMPLES
from ._load import _load
from ._options import (
    COMMANDS,
    UsageError,
    _cli_words,
    _columns,
    _input_options,
    _policies,
    _policy_options,
    _split_by,
    _table_options,
)
from ._render import _print
from .compare import _compare_parameters, _load_systems, _need_metrics, _systems


def add_parser(sub: Any) -> None:
    """Register ``rankframe report`` (the inputs and options of ``rankframe compare``, plus -o and --title)."""
    rp = sub.add_parser(
        "report",
        help=COMMANDS["report"][1],
        description="Compare systems as `rankframe compare` does and write one self-contained HTML file: the\n"
        "means per system, the comparison with the baseline over all queries and per segment, and the plots\n"
        "(forest, distribution, per-query differences, metric@k, interpolated precision-recall), inlined.\n"
        "One long table without a system column (and no --system, --baseline) is one system: the report holds its\n"
        "means per segment and their plots. Needs the plot extra: " + install_extra("plot") + ". See docs/report.md.",
        epilog="examples:\n"
        "  rankframe report examples/tiny.run examples/tiny-b.run --qrels examples/tiny.qrels -m AP -o report.html\n"
        "  rankframe report examples/paired.parquet --baseline bm25 -m nDCG@5 -m AP --by length -o report.html\n"
        "  rankframe report examples/recs.parquet -m nDCG@10 -m AP --by country -o report.html   # one system",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _input_options(rp, "metric such as nDCG@10, AP, P@5 (repeatable; at least one)")
    rp.add_argument("-o", "--output", dest="path", required=True, metavar="FILE", help="the HTML file to write")
    rp.add_argument("--title", default="rankframe report", help="heading of the report (default: rankframe report)")
    rp.add_argument("--system", dest="col_system", metavar="COL", help="the system column of one long table")
    rp.add_argument("--baseline", metavar="NAME", help="the system every other one is compared with")
    rp.add_argument("--test", choices=[t for t in TESTS if t != "tukey"], help="paired test (default: t)")
    rp.add_argument("--correction", choices=[c or "none" for c in CORRECTIONS], default="holm")
    rp.add_argument("--ci", type=float, default=0.95, metavar="LEVEL", help="level of the intervals (default 0.95)")
    rp.add_argument("--n-resamples", type=int, default=N_RESAMPLES, metavar="N")
    rp.add_argument("--seed", type=int, metavar="S", help="seed of the randomization test")
    rp.add_argument("--missing", choices=MISSING, default="error")
    _policy_options(rp)
    _table_options(rp, progress=False)
    rp.set_defaults(no_progress=True, pairs="baseline", ci_method=None, engine="pandas")


def _one_system(args: Any, trec: bool, several: bool, system: str) -> bool:
    """Whether the input is one system: one long table, no --system or --baseline, no column ``system`` in it."""
    if trec or several or args.col_system is not None or args.baseline is not None:
        return False
    from ..engines.duckdb_source import column_names

    return system not in column_names(args.inputs[0])


def run(args: Any) -> int:
    """``rankframe report``: load like ``compare``, write the report, print where it went."""
    _need_metrics(args)
    measures = [str(parse(m)) for m in args.metrics]
    _compare_parameters(args)  # compare's rules for --ci, --n-resamples, --seed, ... before any file is read
    by = _split_by(args.by)
    columns = _columns(args)
    policies = _policies(args)
    trec, several = _systems(args)
    with progress.steps(1, progress=False) as shown:
        if _one_system(args, trec, several, columns.system):
            # one long table without a system column (and no --system, --baseline): one system's report
            loaded, system, baseline = _load(args, columns, by, shown), columns.system, None
        else:
            loaded, system, columns, baseline = _load_systems(args, columns, by, shown)
    try:
        report(
            loaded.df,
            measures,
            baseline=baseline,
            by=by or None,
            system=system,
            title=args.title,
            path=args.path,
            test=args.test,
            ci=args.ci,
            correction=None if args.correction == "none" else args.correction,
            n_resamples=args.n_resamples,
            seed=args.seed,
            missing=args.missing,
            columns=columns.with_(system=system),
            qrels=loaded.judgments,
            allow_duplicates=args.allow_duplicates,
            **policies,
        )
    except ParameterError as e:  # compare's messages in the options' words, as rankframe compare says them
        raise UsageError(_cli_words(e)) from None
    _print(f"wrote {args.path}")
    return 0
