"""``rankframe qrels-compare``: rankframe.qrels_compare (the systems' ranking under two judgment sets) as a command.

``rankframe qrels-compare RUN [RUN ...] QRELS_A QRELS_B -m METRIC``: TREC runs (each run's tag is its system) and two
TREC qrels files; the last two positional files are the judgment sets, ``QRELS_A`` the reference of ``tau_ap``. The
options are the library's parameters, its checks reported in the options' words (:func:`_options._cli_words`).
"""

from __future__ import annotations

import argparse

from ._options import COMMANDS, EXIT_OK, EXIT_STATUS_LINE, UsageError, _policies, _policy_options, in_cli_words
from ._render import _print, _records, _table

FORMATS = ("table", "markdown", "csv", "json")


def add_parser(sub) -> None:
    """``rankframe qrels-compare``: the runs, the two qrels, the metrics and the baseline."""
    qc = sub.add_parser(
        "qrels-compare",
        help=COMMANDS["qrels-compare"][1],
        description="Evaluate the runs under two judgment sets and compare the two rankings of the systems per\n"
        "metric: each system's mean and rank under each, Kendall's tau-b, tau_AP (QRELS_A's order the truth) and,\n"
        "with --baseline, whether compare's verdict against the baseline flips (rankframe.qrels_compare;\n"
        "docs/judgments.md).\n" + EXIT_STATUS_LINE,
        epilog="example:\n"
        "  rankframe qrels-compare examples/tiny.run examples/tiny-b.run human.qrels llm.qrels -m AP -m P@5",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    qc.add_argument(
        "inputs",
        nargs="+",
        metavar="FILE",
        help="RUN [RUN ...] QRELS_A QRELS_B: TREC runs (one system each, named by its tag), then two TREC qrels files",
    )
    qc.add_argument(
        "-m", "--metric", dest="metrics", action="append", metavar="METRIC", help="metric such as AP (repeatable)"
    )
    qc.add_argument("--baseline", metavar="SYSTEM", help="a run tag: compare's verdicts against it, and their flips")
    _policy_options(qc)
    qc.add_argument("--format", choices=FORMATS, default="table", help="table (default, rounded), markdown, csv, json")


def run(args) -> int:
    """Read the runs and both qrels, run rankframe.qrels_compare, print its table."""
    from ..qrels_compare import qrels_compare
    from ..tables.io import read_trec_qrels, read_trec_run

    if not args.metrics:
        raise UsageError("qrels-compare needs at least one metric: -m METRIC (e.g. -m AP -m nDCG@10)")
    if len(args.inputs) < 3:
        raise UsageError(f"qrels-compare needs RUN [RUN ...] QRELS_A QRELS_B: at least 3 files, got {len(args.inputs)}")
    *runs, qrels_a, qrels_b = args.inputs
    policies = _policies(args)
    with in_cli_words():
        out = qrels_compare(
            read_trec_run(runs),
            read_trec_qrels(qrels_a),
            read_trec_qrels(qrels_b),
            args.metrics,
            baseline=args.baseline,
            no_relevant=policies["no_relevant"],
            no_retrieved=policies["no_retrieved"],
            no_judged=policies["no_judged"],
        )
    if args.format in ("csv", "json"):
        _print(_records(out, args.format, exact=True))
    else:
        shown = out if (out["note"] != "").any() else out.drop(columns="note")
        _print(_table(shown, args.format, caption="tau_ap: QRELS_A's order taken as the truth"))
    return EXIT_OK
