"""``rankframe evaluate``: metrics of TREC runs (with ``--qrels``) or long tables, in trec_eval's words when asked.

The inputs are read by :mod:`rankframe.cli._load` and evaluated by :func:`rankframe.evaluate.evaluate`; one Parquet
table (or any table with ``--engine duckdb``) takes DuckDB's road instead, where the file is read and evaluated in
DuckDB and only the per-query values reach pandas. ``--format trec`` prints trec_eval's lines
(:mod:`rankframe.cli._trec_eval`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from ..core import progress as progress_mod
from ..core.columns import Columns
from ..core.errors import ParameterError
from ..evaluate import AGGREGATIONS, ENGINES, check_aggregation, check_resampling, evaluate
from ..measures.names import parse
from ..stats.randomization import N_RESAMPLES
from ..tables.io import TREC_COUNTS, is_long
from ..tables.io import trec_lines as _trec_lines
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
    UsageError,
    _beyond_input_options,
    _cli_words,
    _columns,
    _input_options,
    _policies,
    _policy_options,
    _split_by,
    _table_options,
)
from ._render import _print, _render

#: measures computed when no ``-m`` is given (a trec_eval-like core set)
DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@5", "P@10", "R@100", "Rprec", "Bpref", "RR")
FORMATS = ("table", "csv", "json", "markdown", "trec")
#: evaluate's DuckDB options, by the key of ``duckdb_config`` they set
DUCKDB_OPTIONS = {"memory_limit": "--memory-limit", "threads": "--threads", "temp_directory": "--temp-directory"}


def add_parser(sub) -> None:
    """Register ``rankframe evaluate`` (its inputs, metrics, policies, DuckDB settings and formats)."""
    ev = sub.add_parser(
        "evaluate",
        help=COMMANDS["evaluate"][1],
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
        help="add n, std_err and the t interval of each mean at this level, e.g. 0.95 (not with --per-query); a "
        "set-level metric (Coverage, Gini, Entropy, Personalization) gets a bootstrap interval over queries",
    )
    ev.add_argument(
        "--n-resamples",
        type=int,
        default=N_RESAMPLES,
        metavar="N",
        help=f"resamples of the set-level metrics' bootstrap with --ci (default {N_RESAMPLES})",
    )
    ev.add_argument("--seed", type=int, metavar="S", help="seed of that bootstrap (default: fresh)")
    ev.add_argument(
        "--agg",
        choices=AGGREGATIONS,
        default="mean",
        help="how per-query values become one value: mean (default), gmean (trec_eval gm_map: "
        "exp(mean(log(max(x, 1e-5))))), median, sum",
    )
    _policy_options(ev)
    ev.add_argument(
        "--engine",
        choices=ENGINES,
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
    _beyond_input_options(ev)
    _table_options(ev)


def _evaluate(args) -> int:
    from ..measures.names import expand

    metrics = args.metrics or list(DEFAULT_MEASURES)
    # unknown names fail before any file is read; trec_eval's iprec_at_recall is its 11 levels (names.expand)
    measures = [one for m in metrics for one in expand(m)]
    labels = list(dict.fromkeys(str(m) for m in measures))
    by = _split_by(args.by)
    columns = _columns(args)
    policies = _policies(args)
    if args.format == "trec" and [b for b in by if b != "system"]:
        raise UsageError("--format trec prints one block per run; it cannot show --by segments (use another --format)")
    trec_format = args.format == "trec"
    try:  # evaluate's own rules for --ci and --agg, before any file is read (--format trec aggregates per query)
        check_aggregation(args.per_query and not trec_format, args.ci, args.agg, args.engine or "pandas")
        check_resampling(args.n_resamples, args.seed)
    except ParameterError as e:
        raise UsageError(_cli_words(e)) from None
    if args.ci is not None and trec_format:
        raise UsageError("--format trec prints trec_eval's lines, without intervals; use another format with --ci")
    if trec_format:  # trec_eval's summary lines num_q, num_ret, num_rel, num_rel_ret come with every measure set
        asked = {str(m) for m in measures}
        measures += [parse(c) for c in TREC_COUNTS if c not in asked]
    trec_inputs = not all(is_long(p) for p in args.inputs)
    beyond = _beyond_inputs(args, measures, columns)
    if beyond is None and _sql_road(args):
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
        loaded = _load(args, columns, by, progress, relevance=_reads_grades(measures))
        if loaded.trec:
            columns = Columns()
        beyond = with_table_id_kinds(beyond, loaded.df, columns, args)  # the table's id kinds (issue 33)
        if loaded.system is not None and loaded.system not in by:
            by = [loaded.system, *by]
        progress.step("evaluating")
        try:
            result = _evaluate_loaded(loaded, measures, by, columns, policies, beyond, args)
        except ParameterError as e:
            raise UsageError(_cli_words(e)) from None
    return _output(args, result, measures, labels, by, columns, policies)


def _evaluate_loaded(loaded, measures: list, by: list, columns: Columns, policies: dict, beyond, args) -> pd.DataFrame:
    """rankframe.evaluate on the table read with pandas (with --train / --catalog for the beyond-accuracy metrics)."""
    trec_format = args.format == "trec"
    per_query = args.per_query
    return evaluate(
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
        n_resamples=args.n_resamples,
        seed=args.seed,
        no_relevant=policies["no_relevant"],
        no_retrieved=policies["no_retrieved"],
        no_judged=policies["no_judged"],
        **(beyond or {}),
    )


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


def _evaluate_in_duckdb(args, measures: list, columns: Columns, by: list[str], policies: dict) -> pd.DataFrame:
    """The SQL road: the file's rows stay in DuckDB (bounded memory); only per-query values reach pandas."""
    from ..engines import duckdb_source

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
        return evaluate(
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
