"""The ``rankframe`` command: evaluate TREC runs or long tables, print the SQL macros, validate a file.

``rankframe evaluate RUN... --qrels QRELS -m nDCG@10 -m AP`` works like ``trec_eval -c`` (``--per-query`` is
its ``-q``, ``--format trec`` its output; ``--no-retrieved skip`` gives trec_eval without ``-c``); the query-set
defaults are the Python API's (``rankframe.registry.POLICIES``). ``rankframe evaluate table.parquet -m ...
--by segment`` evaluates a long table. Exit status: 0 on success, 2 on a usage or input error (one line
``rankframe: error: ...`` on stderr). See ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from .columns import Columns
from .errors import RankframeError
from .io import InputFileError

#: measures computed when no ``-m`` is given (a trec_eval-like core set)
DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@5", "P@10", "R@100", "Rprec", "Bpref", "RR")
FORMATS = ("table", "csv", "json", "markdown", "trec")
_LONG_SUFFIXES = (".parquet", ".pq", ".parq", ".csv", ".tsv", ".csv.gz", ".tsv.gz")

# trec_eval's measure families, in the order trec_eval prints them (``-m all_trec``)
_TREC_ORDER = ("map", "Rprec", "bpref", "recip_rank", "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success")


class UsageError(RankframeError):
    """Command-line options that do not fit together."""


# ----------------------------------------------------------------------------------------------------------
# trec_eval names


def trec_name(measure) -> tuple[str, tuple[int, int]] | None:
    """trec_eval's name of a measure and its sort key, or None when trec_eval has no such measure.

    >>> from rankframe.names import parse
    >>> trec_name(parse("nDCG@10"))[0], trec_name(parse("AP"))[0], trec_name(parse("P@5"))[0]
    ('ndcg_cut_10', 'map', 'P_5')
    """
    spec, kw = measure.spec, measure.kw
    defaults = {p.name: p.default for p in spec.params}
    if any(v != defaults[n] for n, v in kw.items() if n != "k"):
        return None  # trec_eval measures use default parameters (rel >= 1, linear gain, judged ideal)
    k = kw.get("k")
    name = {
        ("ap", False): "map",
        ("ap", True): "map_cut",
        ("ndcg", False): "ndcg",
        ("ndcg", True): "ndcg_cut",
        ("precision", True): "P",
        ("recall", True): "recall",
        ("hit_rate", True): "success",
        ("rr", False): "recip_rank",
        ("r_precision", False): "Rprec",
        ("bpref", False): "bpref",
    }.get((spec.name, k is not None))
    if name is None:
        return None
    return (f"{name}_{k}" if k is not None else name), (_TREC_ORDER.index(name), k or 0)


def _trec_lines(result: pd.DataFrame, measures: list, per_query: bool, query_col: str) -> list[str]:
    r"""trec_eval's output: ``%-22s\t%s\t%.4f`` lines, per query (sorted) then ``all``, for each system."""
    names = {}
    for m in measures:
        t = trec_name(m)
        names[str(m)] = t if t is not None else (str(m), (len(_TREC_ORDER), measures.index(m)))
    order = sorted(names, key=lambda s: names[s][1])
    lines: list[str] = []
    systems = result["system"].drop_duplicates().tolist() if "system" in result.columns else [None]
    for system in systems:
        part = result if system is None else result[result["system"] == system]
        if per_query:
            pq = part.dropna(subset=["value"])
            by_q = {q: g for q, g in pq.groupby(query_col, sort=False)}
            for q in sorted(by_q, key=str):
                vals = dict(zip(by_q[q]["metric"], by_q[q]["value"]))
                lines += [_trec_line(names[m][0], q, vals[m]) for m in order if m in vals]
            means = pq.groupby("metric", sort=False)["value"].mean().to_dict()
        else:
            means = dict(zip(part["metric"], part["value"]))
        if system is not None:
            lines.append(f"{'runid':<22}\tall\t{system}")
        lines += [_trec_line(names[m][0], "all", means[m]) for m in order if m in means and not _isnan(means[m])]
    return lines


def _isnan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _trec_line(name: str, qid, value: float) -> str:
    return f"{name:<22}\t{qid}\t{value:.4f}"


# ----------------------------------------------------------------------------------------------------------
# progress on stderr


class Progress:
    """A one-line progress indicator on stderr, drawn only on a terminal and only after ``delay`` seconds.

    Never writes anything when stderr is not a TTY (pipes, files, CI logs).
    """

    def __init__(self, total: int, *, enabled: bool | None = None, delay: float = 1.5, stream=None):
        self.stream = stream or sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)()) and not os.environ.get(
                "RANKFRAME_NO_PROGRESS"
            )
        self.enabled = enabled
        self.total, self.done, self.label = max(total, 1), 0, ""
        self.delay, self.t0, self.drawn = delay, time.monotonic(), 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None
        if enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def step(self, label: str) -> None:
        """Start the next step (the previous one is done)."""
        with self._lock:
            if self.label:
                self.done = min(self.done + 1, self.total)
            self.label = label

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            if time.monotonic() - self.t0 >= self.delay:
                self._draw()

    def _draw(self) -> None:
        with self._lock:
            width = 20
            fill = int(width * self.done / self.total)
            text = (
                f"rankframe [{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {self.label} "
                f"({time.monotonic() - self.t0:.1f}s)"
            )[:100]
            self.stream.write("\r" + text.ljust(self.drawn))
            self.stream.flush()
            self.drawn = len(text)

    def close(self) -> None:
        """Stop drawing and erase the line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ----------------------------------------------------------------------------------------------------------
# argument parsing

_ROLES = ("query", "item", "rank", "relevance", "score")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rankframe",
        description="Ranking-quality metrics over TREC run/qrels files and long-format Parquet/CSV tables.",
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
        "  rankframe evaluate examples/tiny.run --qrels examples/tiny.qrels --per-query --format trec\n"
        "  rankframe evaluate examples/tiny.run --qrels examples/tiny.qrels --no-retrieved skip --format trec"
        "   # = trec_eval without -c",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument(
        "inputs",
        nargs="+",
        metavar="RUN_OR_TABLE",
        help="TREC run files (gz ok), or long tables (.parquet, .csv, .tsv)",
    )
    ev.add_argument("--qrels", help="TREC qrels file (qid iteration docno relevance); required for runs")
    ev.add_argument(
        "-m",
        "--metric",
        action="append",
        dest="metrics",
        metavar="METRIC",
        help="metric such as nDCG@10, AP, P@5, 'AP(rel=2)@100' (repeatable); default: " + ", ".join(DEFAULT_MEASURES),
    )
    ev.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="COL",
        help="segment column of a long table (repeatable, or comma-separated)",
    )
    ev.add_argument("-q", "--per-query", action="store_true", help="one value per query (trec_eval -q)")
    _policy_options(ev)
    ev.add_argument("--engine", choices=("pandas", "duckdb"), default="pandas", help="where to compute")
    ev.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default), csv, json, markdown, or trec (trec_eval's output lines)",
    )
    _duplicate_options(ev)
    _column_options(ev)
    ev.add_argument("--no-progress", action="store_true", help="never draw the progress line on stderr")

    sq = sub.add_parser(
        "sql",
        help="print rankframe's DuckDB SQL macros (rankframe sql | duckdb ...)",
        description="Print every rankframe DuckDB macro as one SQL script.",
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


def _is_long(path: str) -> bool:
    name = path.lower()
    if name.endswith(_LONG_SUFFIXES):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"PAR1"
    except OSError:
        return False


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
    systems: bool  # the table has a system column (several runs or tables)
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
    df: pd.DataFrame, path: str, args, columns: Columns, by: Sequence[str], *, need_relevance: bool
) -> None:
    """Every column the options name (or the defaults) must be in the file: name it, with a hint."""
    from .errors import did_you_mean

    present = [str(c) for c in df.columns]

    def how(role: str) -> str:
        given = getattr(args, f"col_{role}")
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
    for name in by:
        if name not in present:
            raise missing(name, "--by")


def _load(args, columns: Columns, by: list[str], progress: Progress) -> Loaded:
    """Read the inputs into one table (and separate judgments for a long table with --qrels)."""
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
        _check_overlap(df, Columns(), qrels, systems=True)
        return Loaded(df, None, True, True)
    several = len(inputs) > 1
    frames = []
    for p in inputs:
        progress.step(f"reading {Path(p).name}")
        frame = io.read_long(p, columns=columns)
        if several and "system" in frame.columns:
            raise UsageError(
                f"{p} already has a column 'system', which the command adds to tell several tables "
                f"apart (the file name); evaluate one table at a time with --by system, or rename "
                f"that column"
            )
        _check_columns(
            frame, p, args, columns, [b for b in by if not (several and b == "system")], need_relevance=qrels is None
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
        _check_overlap(df, columns, qrels, systems=several, judgments=judgments)
    else:
        _check_overlap(df, columns, inputs[0] if not several else None, systems=several, qrels=False)
    return Loaded(df, judgments, several, False)


def _check_overlap(
    df: pd.DataFrame,
    columns: Columns,
    where: str | None,
    *,
    systems: bool,
    judgments: pd.DataFrame | None = None,
    qrels: bool = True,
) -> None:
    """A run none of whose queries has a judgment is a mistake (wrong qrels file, ids written differently)."""
    order = columns.rank if columns.rank in df.columns else columns.score
    if order not in df.columns or (judgments is None and columns.relevance not in df.columns):
        return  # the validation names the missing column
    source = judgments if judgments is not None else df
    judged = pd.unique(source.loc[source[columns.relevance].notna(), columns.query])
    keys = ["system", columns.query] if systems else [columns.query]
    ran = df.loc[df[order].notna(), keys].drop_duplicates()
    hit = ran[columns.query].isin(judged)
    if hit.all():
        return
    per_run = hit.groupby(ran["system"].to_numpy(), sort=False).any() if systems else pd.Series({None: hit.any()})
    for name, any_judged in per_run.items():
        if not any_judged:
            ids = ran[columns.query] if name is None else ran.loc[ran["system"] == name, columns.query]
            kind = "run" if qrels else "table"
            who = f"the {kind}" if name is None else f"{kind} {name!r}"
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
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4f}"
    return str(v)


def _markdown(wide: pd.DataFrame) -> str:
    head = [str(c) for c in wide.columns]
    numeric = [pd.api.types.is_float_dtype(wide[c]) for c in wide.columns]
    rows = [[_fmt(v) for v in row] for row in wide.itertuples(index=False)]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _render(result: pd.DataFrame, fmt: str, keys: list[str], metric_order: list[str]) -> str:
    result = result[[*keys, "metric", "value"]]  # the command's output columns, whatever else evaluate adds
    if fmt == "csv":
        return result.to_csv(index=False).rstrip("\n")
    if fmt == "json":
        return result.to_json(orient="records", double_precision=15)
    wide = _wide(result, keys, metric_order)
    if fmt == "markdown":
        return _markdown(wide)
    fmts = {c: _fmt for c in wide.columns if pd.api.types.is_float_dtype(wide[c])}
    return wide.to_string(index=False, formatters=fmts)


# ----------------------------------------------------------------------------------------------------------
# commands


def _evaluate(args) -> int:
    import rankframe

    metrics = args.metrics or list(DEFAULT_MEASURES)
    measures = [rankframe.parse(m) for m in metrics]  # unknown names fail before any file is read
    labels = list(dict.fromkeys(str(m) for m in measures))
    by = _split_by(args.by)
    columns = _columns(args)
    policies = _policies(args)
    if args.format == "trec" and [b for b in by if b != "system"]:
        raise UsageError("--format trec prints one block per run; it cannot show --by segments (use another --format)")
    trec_inputs = not all(_is_long(p) for p in args.inputs)
    steps = 2 if trec_inputs else len(args.inputs) + (args.qrels is not None) + 1
    with Progress(steps, enabled=False if args.no_progress else None) as progress:
        loaded = _load(args, columns, by, progress)
        if loaded.trec:
            columns = Columns()
        if loaded.systems and "system" not in by:
            by = ["system", *by]
        progress.step("evaluating")
        per_query = args.per_query
        result = rankframe.evaluate(
            loaded.df,
            measures,
            by=by or None,
            per_query=per_query,
            columns=columns,
            qrels=loaded.judgments,
            engine=args.engine,
            allow_duplicates=args.allow_duplicates,
            no_relevant=policies["no_relevant"],
            no_retrieved=policies["no_retrieved"],
            no_judged=policies["no_judged"],
        )
    if result.empty or ("n" in result.columns and not result["n"].any()):  # n: the queries each mean averages
        chosen = ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in policies.items())
        raise UsageError(f"no query left to evaluate: every query was skipped under the query-set policies ({chosen})")
    keys = [*by, *([columns.query] if per_query else [])]
    if args.format == "trec":
        text = "\n".join(_trec_lines(result, measures, per_query, columns.query))
    else:
        text = _render(result, args.format, keys, labels)
    _print(text)
    return 0


def _sql(args) -> int:
    try:
        from . import sql
    except ImportError as e:  # pragma: no cover - the SQL module ships with the package
        raise RankframeError(f"the SQL macros are not available: {e}") from None
    try:
        text = sql.text()
    except FileNotFoundError as e:
        raise RankframeError(str(e)) from None
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


def _print(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rankframe`` command; returns the exit status (0 success, 2 usage or input error)."""
    parser = _parser()
    args = parser.parse_args(argv)
    command = {"evaluate": _evaluate, "sql": _sql, "validate": _validate}[args.command]
    try:
        return command(args)
    except RankframeError as e:
        text = str(e)
        sys.stderr.write(f"rankframe: error: {text}\n")
        return 2
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            _quiet_broken_pipe()
            return 0
        sys.stderr.write(f"rankframe: error: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("rankframe: interrupted\n")
        return 130


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
