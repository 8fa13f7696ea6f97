"""``rankframe fuse``: rankframe.fuse from the command line, the fused run written as a TREC run or a long table.

The inputs are several TREC runs (each one a system, named as ``rankframe compare`` names them: its tag, else its
file name) or one long table with a system column (``--system``). The options are :func:`rankframe.fuse`'s
parameters: their choices and defaults are the library's (``rankframe.fusion.METHODS``/``NORMS`` and the
function's signature) and their checks the library's, reported in the options' words
(:func:`rankframe.cli._options._cli_words`). ``-o`` is a long table when its name says so
(:func:`rankframe.io.suffix_kind`, the file-kind rule for writing), else a TREC run; ``-o -`` is a TREC run on
stdout.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tempfile
from pathlib import Path

import pandas as pd

from ..core.columns import Columns
from ..core.errors import ParameterError
from ..fusion import METHODS, NORMS
from ..fusion import fuse as fuse_runs
from ..tables.io import suffix_kind
from ._load import _check_columns, _check_options
from ._options import COMMANDS, EXIT_STATUS_LINE, UsageError, _cli_words, _column_options, _columns
from .compare import _systems

#: rankframe.fuse's defaults, read from its signature (never a second copy)
DEFAULTS = {n: p.default for n, p in inspect.signature(fuse_runs).parameters.items()}
#: the options that are rankframe.fuse's keyword parameters of the same name (None: not given, fuse's default)
_PARAMS = ("k", "norm", "rank_base", "depth", "phi", "gamma", "sigma", "name")


def add_parser(sub) -> None:
    """Register ``rankframe fuse`` (its inputs, rankframe.fuse's parameters as options, the output file)."""
    fu = sub.add_parser(
        "fuse",
        help=COMMANDS["fuse"][1],
        description="Fuse several TREC runs (each file one system), or the systems of one long table, into one\n"
        "run with rankframe.fuse (see docs/fusion.md), and write the fused run only: a TREC run, or a\n"
        "Parquet/CSV long table when the output's name ends in .parquet/.csv/.tsv (-o - writes TREC to stdout).\n"
        + EXIT_STATUS_LINE,
        epilog="examples:\n"
        "  rankframe fuse examples/tiny.run examples/tiny-b.run --method rrf -o fused.run\n"
        "  rankframe fuse examples/tiny.run examples/tiny-b.run --method combsum --norm min-max -o -\n"
        "  rankframe fuse examples/tiny.run examples/tiny-b.run --method wsum --norm min-max "
        "--weights tiny=0.7,tiny-b=0.3 -o fused.run\n"
        "  rankframe fuse examples/paired.parquet --method rrf --k 2 --rank-base 0 -o fused.parquet",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fu.add_argument(
        "inputs",
        nargs="+",
        metavar="RUN_OR_TABLE",
        help="2 or more TREC run files (gz ok), or one long table (.parquet, .csv, .tsv) with a system column",
    )
    fu.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PATH",
        help="where the fused run goes: a long table for a .parquet/.csv/.tsv name (.gz ok), else a TREC run; "
        "- writes the TREC run to stdout",
    )
    fu.add_argument(
        "--system",
        dest="col_system",
        metavar="COL",
        help="the system column of one long table (default: system); several runs are the systems",
    )
    g = fu.add_argument_group("fusion (rankframe.fuse's parameters; docs/fusion.md)")
    g.add_argument(
        "--method",
        default=DEFAULTS["method"],
        metavar="METHOD",
        help=f"one of {', '.join(METHODS)} (ranx's sum, mnz, ... too; default: {DEFAULTS['method']})",
    )
    g.add_argument("--k", type=float, metavar="K", help=f"RRF's constant in 1 / (k + rank) (default {DEFAULTS['k']})")
    g.add_argument(
        "--rank-base",
        type=int,
        metavar="0|1",
        help=f"the number of the first rank: 1 (Elasticsearch) or 0 (Qdrant) (default {DEFAULTS['rank_base']})",
    )
    g.add_argument(
        "--norm",
        metavar="NORM",
        help=f"per (system, query) normalisation before a score method: one of {', '.join(NORMS)} (default: none "
        "asked, the systems' raw scores must share a scale; 'none' fuses them unchecked)",
    )
    g.add_argument(
        "--weights",
        action="append",
        default=[],
        metavar="SYS=W,...",
        help="one weight per system for wsum, wmnz, mixed, w_bordafuse, e.g. bm25=0.5,dense=0.5 "
        "(repeatable, or comma-separated)",
    )
    g.add_argument("--depth", type=int, metavar="N", help="cut every run to its first N items first (default: all)")
    g.add_argument("--phi", type=float, metavar="P", help=f"RBC's persistence in (0, 1) (default {DEFAULTS['phi']})")
    g.add_argument("--gamma", type=float, metavar="G", help=f"CombGMNZ's exponent (default {DEFAULTS['gamma']})")
    g.add_argument(
        "--sigma", type=float, metavar="S", help=f"logn_isr's constant in [0, 1] (default {DEFAULTS['sigma']})"
    )
    g.add_argument(
        "--name",
        metavar="NAME",
        help="the fused run's system name, its TREC tag (default: the method's name); must be a new one",
    )
    fu.add_argument(
        "--keep-first-duplicate",
        action="store_true",
        help="TREC runs: keep the first of a docno repeated within a query instead of failing",
    )
    fu.set_defaults(allow_duplicates=False)  # a run's repeated items are fuse's error: no option keeps them
    _column_options(fu)


def _fuse(args) -> int:
    """Read the runs, fuse them with rankframe.fuse and write the fused run's rows."""
    weights = _weights(args.weights)
    columns = _columns(args)
    frame, system, columns = _read(args, columns)
    if system in frame.columns and pd.api.types.is_integer_dtype(frame[system]) and not frame[system].isna().any():
        # the command names runs by text (--name, --weights, a TREC tag): integer system ids are read as their text
        frame = frame.assign(**{system: frame[system].astype(str)})
    given = {p: getattr(args, p) for p in _PARAMS if getattr(args, p) is not None}
    try:
        out = fuse_runs(frame, args.method, system=system, weights=weights, columns=columns, **given)
    except ParameterError as e:
        raise UsageError(_cli_words(e)) from None
    fused = out.iloc[len(frame) :].reset_index(drop=True)
    _write(fused, args.output, columns.with_(system=system))
    return 0


def _weights(values: list[str]) -> dict[str, float] | None:
    """``--weights bm25=0.5,dense=0.5`` as fuse's ``{system: weight}`` (its checks are fuse's)."""
    pairs = [v.strip() for value in values for v in value.split(",") if v.strip()]
    if not pairs:
        return None
    weights = {}
    for pair in pairs:
        sys_name, eq, w = pair.rpartition("=")
        try:
            if not eq or not sys_name:
                raise ValueError
            weights[sys_name.strip()] = float(w)
        except ValueError:
            raise UsageError(
                f"--weights takes SYSTEM=WEIGHT pairs, comma-separated (e.g. bm25=0.5,dense=0.5); got {pair!r}"
            ) from None
    return weights


def _read(args, columns: Columns) -> tuple[pd.DataFrame, str, Columns]:
    """The runs as one long table, its system column and its column names (TREC runs: rankframe's defaults)."""
    from ..tables import io

    long = [io.is_long(p) for p in args.inputs]
    if any(long) and not all(long):
        raise UsageError("mix of long tables and TREC runs: give either 2 or more TREC runs or one table")
    if len(args.inputs) > 1 and all(long):
        raise UsageError(
            "fuse takes one long table holding every system (its system column: --system COL), or 2 or more "
            f"TREC runs; got {len(args.inputs)} tables"
        )
    trec, _ = _systems(args)  # compare's rule: 2 or more runs, --system for one table only
    _check_options(args, trec)
    if trec:
        # each run is a system named as compare names it (its tag; the file name when tags collide)
        return io.read_trec_run(args.inputs, keep_first_duplicate=args.keep_first_duplicate), "system", Columns()
    path = args.inputs[0]
    system = args.col_system or columns.system
    frame = io.read_long(path, columns=columns)
    _check_columns(frame, path, args, columns, [], need_relevance=False, system=system)
    return frame, system, columns


def _write(fused: pd.DataFrame, output: str, columns: Columns) -> None:
    """The fused rows to ``output``: a long table by its name (write_long), else a TREC run; ``-`` is stdout."""
    from ..tables import io

    if output == "-":
        with tempfile.TemporaryDirectory(prefix="rankframe-fuse-") as tmp:
            path = Path(tmp) / "fused.run"
            io.write_trec_run(fused, path, columns=columns, system=columns.system)
            sys.stdout.write(path.read_text(encoding="utf-8"))
            sys.stdout.flush()
        return
    try:
        if suffix_kind(output) is not None:
            io.write_long(fused, output)
        else:
            io.write_trec_run(fused, output, columns=columns, system=columns.system)
    except OSError as e:
        raise UsageError(f"cannot write --output {output!r}: {e.strerror or e}") from None
