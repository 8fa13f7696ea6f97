"""The inputs of a command read into one table: TREC runs (with ``--qrels``) or long tables.

One long table, or several as systems; with the checks that need the files: the kind of each input, the columns the
options name, and whether the judgments overlap the runs at all. Also which inputs take DuckDB's road (one Parquet
table, read there only).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from ..core import progress as progress_mod
from ..core.columns import Columns
from ..tables.io import InputFileError, is_long, suffix_kind
from ..tables.rules import ranking_column
from ._options import _ROLES, UsageError


def _few(values, n: int = 4) -> str:
    """A few ids for a message: ``'1', '2', '3', ... (10 in all)``."""
    shown = ", ".join(repr(str(v)) for v in list(values)[:n])
    return shown + (f", ... ({len(values)} in all)" if len(values) > n else "")


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
    from ..core.errors import did_you_mean

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


def _load(
    args,
    columns: Columns,
    by: list[str],
    progress: progress_mod.Steps,
    system: str | None = None,
    relevance: bool = True,
) -> Loaded:
    """Read the inputs into one table (and separate judgments for a long table with --qrels).

    ``system`` names the system column of a single long table (``compare --system``); several runs or tables
    get a column ``system`` naming each one (the run's tag, the table's file name). ``relevance=False``: no metric
    asked reads the grades (the beyond-accuracy metrics), so a table without them is read as it is.
    """
    from ..tables import io
    from ..tables.join import read_trec

    inputs, qrels = list(args.inputs), args.qrels
    long = [is_long(p) for p in inputs]
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
        if getattr(args, "subtopic_qrels", False):  # the runs and the subtopic judgments, joined by evaluate
            runs = io.read_trec_run(inputs, keep_first_duplicate=args.keep_first_duplicate)
            subtopics = io.read_trec_qrels(qrels, subtopics=True)
            _check_overlap(runs, Columns(), qrels, system="system", judgments=subtopics)
            return Loaded(runs[["query", "item", "score", "system"]], subtopics, "system", True)
        df = read_trec(inputs, qrels, keep_first_duplicate=args.keep_first_duplicate)
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
            need_relevance=qrels is None and relevance,
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
        judgments = io.read_trec_qrels(qrels, subtopics=getattr(args, "subtopic_qrels", False)).rename(
            columns={
                "query": columns.query,
                "item": columns.item,
                "relevance": columns.relevance,
                "subtopic": columns.subtopic,
            }
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
    order = ranking_column(list(df.columns), columns)
    if order is None or (judgments is None and columns.relevance not in df.columns):
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


def _sql_road(args, engine_default: str | None = None) -> bool:
    """One long table and no --qrels, Parquet (or any table with --engine duckdb): read it in DuckDB only.

    ``engine_default``: the --engine value that means "not chosen" (compare's parser defaults to 'pandas').
    """
    from ..tables.io import is_regular_file

    if len(args.inputs) != 1 or args.qrels is not None or not is_long(args.inputs[0]):
        return False
    if not is_regular_file(args.inputs[0]):
        return False  # a pipe was read once already (to tell its format): pandas reads the bytes kept
    if args.engine == "duckdb":
        return True
    if args.engine == engine_default or args.engine is None:
        return suffix_kind(args.inputs[0]) != "csv"  # Parquet (by name or content): DuckDB reads it best
    return False


def _reads_grades(measures: list) -> bool:
    """Whether a metric asked reads the relevance column (every one but the beyond-accuracy metrics)."""
    from ..beyond.declare import BeyondSpec

    return not all(isinstance(m.spec, BeyondSpec) for m in measures)


def _beyond_inputs(args, measures: list, columns: Columns) -> dict | None:
    """``train=`` / ``catalog=`` / ``features=`` from --train / --catalog / --features (None without the family).

    The beyond-accuracy metrics are computed on a table in memory (pandas, or DuckDB with --engine duckdb), never
    on DuckDB's file road: asking for one reads the ranking table with pandas. The inputs' rules (ids of the item
    column's kind, weights, a metric that needs an input it was not given) are evaluate's.
    """
    from ..beyond.declare import BeyondSpec
    from ..beyond.input_rules import optional_name
    from ..tables import io

    asked = any(isinstance(m.spec, BeyondSpec) for m in measures)
    features = getattr(args, "features", None)
    if not asked and args.train is None and args.catalog is None and features is None:
        return None
    inputs = {}

    def numbers(name: str) -> list[str]:  # the optional numeric column, unless it is an id column (input_rules)
        optional = optional_name(name, columns.query, columns.item)
        return [] if optional is None else [optional]

    if args.train is not None:
        inputs["train"] = io.read_long(args.train, columns=columns, numeric=numbers("train"))
    if args.catalog is not None:
        inputs["catalog"] = io.read_long(args.catalog, columns=columns)
    if features is not None:
        inputs["features"] = io.read_long(features, columns=columns, numeric=numbers("features"))
    return inputs


def with_table_id_kinds(side: dict | None, df: pd.DataFrame, columns: Columns, args) -> dict | None:
    """--train / --catalog / --features read as the ranking table's ids: numbers where the table's are numbers.

    A CSV is read with text ids (``"007"`` stays text), so a Parquet log of integer items with a CSV catalog would
    always be refused as ids of different kinds (issue 33). The table decides: an id column of a CSV side input
    that is text where the table's is numeric becomes numbers when every value is one (``"007"`` -> 7, as the
    table's reader would have read it); otherwise it stays text and evaluate's rule names the ids that do not
    match. A Parquet side input keeps its own types (as a Parquet ranking table does).
    """
    from ..tables.io.tables import file_kind

    if not side:
        return side
    out = dict(side)
    for name, frame in side.items():
        path = getattr(args, name, None)
        if not isinstance(frame, pd.DataFrame) or path is None or file_kind(path) == "parquet":
            continue
        wanted = [columns.item] + ([columns.query] if name == "train" else [])
        if name == "catalog" and len(frame.columns) == 1:
            wanted = [str(frame.columns[0])]
        fixed = {}
        for col in wanted:
            ref = columns.item if name == "catalog" else col
            if col not in frame.columns or ref not in df.columns:
                continue
            if pd.api.types.is_numeric_dtype(df[ref].dtype) and not pd.api.types.is_bool_dtype(df[ref].dtype):
                if pd.api.types.is_string_dtype(frame[col].dtype) or frame[col].dtype == object:
                    numbers = pd.to_numeric(frame[col], errors="coerce")
                    if not (numbers.isna() & frame[col].notna()).any():  # every id a number: the table's kind
                        fixed[col] = numbers
        if fixed:
            out[name] = frame.assign(**fixed)
    return out
