"""``rankframe.fuse``: the runs of a long table fused into one more run, whose rows are added to the table.

The checks of the arguments, the reading of the runs (:mod:`.runs`), the normalisation (:mod:`.normalize`), the
method (:mod:`.kernels`) and the fused run's rows with the columns they carry. Decisions: docs/fusion.md and
docs/decisions/0015-fusion.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..comparing import rules as comparing_rules
from ..core.columns import Columns
from ..core.errors import ParameterError, ValidationError, did_you_mean, keyword, missing_columns_error, parameter_error
from ..core.numeric import check_number
from ..tables import inputs, units
from ..tables.prepare import score_order
from ..tables.rules import missing_order_failure, ranking_column
from ..tables.schema import _ONE_KIND as ONE_KIND
from ..tables.schema import validate
from .kernels import fused_scores
from .methods import PARAM_DEFAULTS, FusionMethod, Normalisation, normalisation
from .methods import method as find_method
from .normalize import normalise
from .runs import Candidates, Runs, candidates, read_runs

if TYPE_CHECKING:
    from ..tables.inputs import Output
    from .methods import FuseMethod, FuseNorm

OWNER = "fuse"
#: two systems' score ranges whose spans differ more than this many times are "on different scales"
SCALE_RATIO = 10.0


def fuse(
    df: Any,
    method: FuseMethod = "rrf",
    *,
    system: str | None = None,
    k: float = PARAM_DEFAULTS["k"],  # type: ignore[assignment]
    norm: FuseNorm | None = None,
    weights: Mapping[Any, float] | None = None,
    name: str | None = None,
    rank_base: int = PARAM_DEFAULTS["rank_base"],  # type: ignore[assignment]
    depth: int | None = None,
    phi: float = PARAM_DEFAULTS["phi"],  # type: ignore[assignment]
    gamma: float = PARAM_DEFAULTS["gamma"],  # type: ignore[assignment]
    sigma: float = PARAM_DEFAULTS["sigma"],  # type: ignore[assignment]
    columns: Columns | dict | None = None,
    output: Output = "pandas",
) -> pd.DataFrame | Any:  # a DataFrame; with output='arrow'/'polars' a Table (optional packages: Any)
    """Fuse the runs of a long table (one per ``system``) into one run; return the table plus its rows.

    Parameters
    ----------
    df : any table ``rankframe.inputs`` reads (pandas, Arrow, polars, DuckDB relation, path)
        One row per (system, query, item), ordered by ``rank`` (wins when present) or ``score`` (descending,
        ties by item id descending as a string). Rows with a null rank/score are not retrieved (judgments).
        Never modified.
    method : str, default "rrf"
        One of ``rankframe.fusion.METHODS`` (ranx's names; ranx's ``sum``, ``mnz``, ... are read as ``combsum``,
        ``combmnz``, ...).
    system : str, optional
        The column naming the runs (default ``columns.system``, "system").
    k, rank_base : RRF's constant and the number of the first rank: 1 / (k + rank), rank from ``rank_base``
        (Elasticsearch: k=60, 1-based; Qdrant: k=2, 0-based).
    norm : {None, "min-max", "max", "sum", "zmuv", "rank", "borda", "none"}
        Per (system, query) normalisation before a score method. None checks that the runs' scores share a
        scale (else a ParameterError); "none" fuses the raw scores without that check.
    weights : dict {system: weight}
        For ``wsum``, ``wmnz``, ``mixed`` and ``w_bordafuse``: one finite weight per system.
    name : str, optional
        The fused run's system value (default: the method's name); must be a new one.
    depth : int, optional
        Cut every run to its first ``depth`` items first.
    phi, gamma, sigma : RBC's persistence in (0, 1), CombGMNZ's exponent, logn_isr's constant in [0, 1].
    columns : Columns or dict, optional
        Column names of ``df``.
    output : {"pandas", "arrow", "polars"}

    Returns
    -------
    The input rows, unchanged, then the fused run's rows: ``system == name``, ``score`` (the fused score) and,
    when the input has a rank column, ``rank`` (1..n per query, the score non-increasing, ties by item id
    descending). The other columns (relevance, segments) are taken per (query, item) from the input; an item
    judged in the input and retrieved by no run is a fused row with a null score and rank.

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> runs = pd.DataFrame({"system": ["a", "a", "b", "b"], "query": 1, "item": ["x", "y", "y", "z"],
    ...                      "rank": [1, 2, 1, 2]})
    >>> # y: 1/(1+2) + 1/(1+1); x: 1/(1+1); z: 1/(1+2)
    >>> rankframe.fuse(runs, "rrf", k=1).query("system == 'rrf'")[["item", "score", "rank"]]
      item     score  rank
    4    y  0.833333     1
    5    x  0.500000     2
    6    z  0.333333     3
    """
    output = inputs.check_output(output, OWNER)
    plan = check_options(
        method, system=system, k=k, norm=norm, weights=weights, name=name, rank_base=rank_base, depth=depth,
        phi=phi, gamma=gamma, sigma=sigma, columns=columns,
    )  # fmt: skip
    c, m = plan.columns, plan.method
    frame = inputs.to_pandas(df, owner=OWNER, columns=c)
    check_columns(list(frame.columns), c)
    with units.shared():  # the reading of the runs takes validation's codes of the columns (one call's memo)
        check_table(frame, c, plan.reads_scores)
        runs = read_runs(frame, c, plan.params.get("depth"))
    w = check_systems(runs.systems, plan)
    if plan.reads_scores and not runs.has_scores:
        raise (
            missing_columns_error([c.score], list(frame.columns), table=f"runs to fuse with {m.name!r}")
            if (c.score not in frame.columns)
            else ValidationError(
                [{"column": c.score, "rule": f"{m.name!r} fuses scores: every retrieved row needs one", "count": 0}],
                table="runs to fuse",
            )
        )
    if plan.reads_scores and plan.norm is None:
        _check_one_scale(runs, m, c)
    fused = fused_rows(frame, runs, plan, w)
    del runs  # the entries' arrays are freed before the output is built (the peak memory of the call)
    out = pd.concat([frame, fused], ignore_index=True)
    return inputs.from_pandas(out, output)


@dataclass(frozen=True)
class Plan:
    """The arguments of :func:`fuse`, checked without the data (:func:`check_options`)."""

    method: FusionMethod
    norm: Normalisation | None
    params: dict[str, Any]
    columns: Columns
    weights: Mapping[Any, float] | None
    name: str | int  # an int names the fused run in a system column of ints

    @property
    def reads_scores(self) -> bool:
        """Whether the method fuses the runs' scores (a score method not normalised by rank)."""
        return self.method.reads == "score" and (self.norm is None or self.norm.reads == "score")


def check_options(
    method: object,
    *,
    system: object = None,
    k: object = PARAM_DEFAULTS["k"],
    norm: object = None,
    weights: object = None,
    name: object = None,
    rank_base: object = PARAM_DEFAULTS["rank_base"],
    depth: object = None,
    phi: object = PARAM_DEFAULTS["phi"],
    gamma: object = PARAM_DEFAULTS["gamma"],
    sigma: object = PARAM_DEFAULTS["sigma"],
    columns: object = None,
) -> Plan:
    """Every check of :func:`fuse`'s arguments that needs no data (every face runs it before reading any)."""
    c = Columns.coerce(columns, function=OWNER)  # type: ignore[arg-type]  # coerce checks the type
    if system is not None:
        if not isinstance(system, str):
            raise parameter_error(OWNER, "system", "a column name (str)", system)
        c = c.with_(system=system)
    m = find_method(method)
    norm_spec = normalisation(norm)
    params = _check_params(m, k=k, rank_base=rank_base, depth=depth, phi=phi, gamma=gamma, sigma=sigma)
    fused_name = m.name if name is None else name
    if not (isinstance(fused_name, str) and fused_name) and not (
        isinstance(fused_name, (int, np.integer)) and not isinstance(fused_name, (bool, np.bool_))
    ):
        raise parameter_error(OWNER, "name", "a non-empty str (or an int, for a system column of ints)", name)
    if not m.weighted and weights is not None:
        raise ParameterError(
            f"The 'weights' parameter of fuse is for the weighted methods (wsum, wmnz, mixed, w_bordafuse); "
            f"{keyword('method', m.name)} takes none. Got {weights!r} instead.",
            owner="fuse",
            parameter="weights",
        )
    if m.weighted and not isinstance(weights, Mapping):
        raise parameter_error(OWNER, "weights", f"a dict {{system: weight}} for {keyword('method', m.name)}", weights)
    chosen = fused_name if isinstance(fused_name, str) else int(fused_name)
    return Plan(m, norm_spec, params, c, weights if isinstance(weights, Mapping) else None, chosen)


def check_table(frame: pd.DataFrame, c: Columns, reads_scores: bool, segments: list[str] | None = None) -> None:
    """The long table's rules on the runs (:func:`rankframe.schema.validate`, the table of :func:`rankframe.evaluate`).

    The system column is a segment (ids of one type, atomic; items and ranks unique per (system, query)); the
    relevance column, when there is one, is checked as evaluate checks it (the fused rows carry it); the score
    column has the score rules when the lists are ordered by it or ``reads_scores`` (a score method).
    """
    nulls = frame[c.system].isna().to_numpy()
    if nulls.any():
        raise comparing_rules.null_systems_error(c.system, int(nulls.sum()), frame[nulls].head(5))
    validate(frame, c, **table_rules(list(frame.columns), c, reads_scores, segments))


def table_rules(present: list[str], c: Columns, reads_scores: bool, segments: list[str] | None = None) -> dict:
    """The arguments of the long table's validation of the runs, on every face.

    ``rankframe.validate`` on pandas, ``rankframe.spark.validate`` on Spark (the same rules, declared in
    ``rankframe.table_rules``), after the null systems' rule (:func:`rankframe.comparing.rules.null_systems_error`).
    """
    return {
        "by": [c.system, *(segments or [])],
        "require_relevance": c.relevance in present,
        "table": "runs to fuse",
        "scores": reads_scores,
    }


def check_systems(systems: list, plan: Plan) -> np.ndarray | None:
    """The checks that need the table's systems (sorted): at least 2, the fused name new, weights for each.

    Returns the weights as an array indexed like ``systems`` (None for an unweighted method).
    """
    c = plan.columns
    comparing_rules.check_systems(systems, c.system, OWNER, table="runs to fuse")  # compare's rule, in fuse's name
    if str(plan.name) in {str(s) for s in systems}:
        raise ParameterError(
            f"The 'name' parameter of fuse: the fused run would be called {plan.name!r}, which is already a "
            f"system of the {c.system!r} column; pass another {keyword('name')}.",
            owner="fuse",
            parameter="name",
        )
    if pd.api.types.infer_dtype(pd.Index([*systems, plan.name], dtype=object), skipna=True) not in ONE_KIND:
        kind = type(systems[0]).__name__
        raise ParameterError(
            f"The 'name' parameter of fuse: the systems of the {c.system!r} column are {kind} values "
            f"({', '.join(map(repr, systems[:3]))}), and the fused run's name {plan.name!r} is a "
            f"{type(plan.name).__name__}: the table would hold ids of two types, which evaluate and compare refuse. "
            f"Pass {keyword('name')} a new {kind} value, or convert the column first: "
            f"df.astype({{{c.system!r}: str}}).",
            owner="fuse",
            parameter="name",
        )
    return _check_weights(plan.method, plan.weights, systems)


def fused_rows(frame: pd.DataFrame, runs: Runs, plan: Plan, w: np.ndarray | None) -> pd.DataFrame:
    """The fused run's rows of the (checked) runs of ``frame``: candidates, normalisation, method, ordering."""
    cand = candidates(runs)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is check_fused_scores' error
        normed, cand = normalise(runs, cand, None if plan.norm is None else plan.norm.name)
        score = fused_scores(plan.method.name, normed, cand, plan.params, w)
    check_fused_scores(score, plan.columns)
    return _fused_frame(frame, plan.columns, runs, cand, score, plan.name)


#: the fused scores are not finite (a normalisation or a sum of huge scores overflows float64): the words of every face
OVERFLOW = (
    "the fused scores overflow float64 (a normalisation or a sum of the runs' scores is not finite): rescale the "
    "runs' scores (e.g. divide them by 1e6)"
)


def check_fused_scores(score: np.ndarray, c: Columns) -> None:
    """Every fused score is finite (else a ValidationError: no candidate is dropped or ranked by a NaN)."""
    bad = ~np.isfinite(score)
    if bad.any():
        raise ValidationError([{"column": c.score, "rule": OVERFLOW, "count": int(bad.sum())}], table="runs to fuse")


def _check_params(m: FusionMethod, **given: Any) -> dict[str, Any]:
    def number(key: str, expected: str, **rule: Any) -> Any:
        return check_number(OWNER, key, given[key], expected=expected, **rule)

    params = {
        "k": number("k", "a number >= 0", low=0),
        "rank_base": number("rank_base", "0 or 1", integer=True, low=0, high=1),
        "phi": number("phi", "a number in (0, 1)", low=0, high=1, low_open=True, high_open=True),
        "gamma": number("gamma", "a finite number"),
        "sigma": number("sigma", "a number in [0, 1]", low=0, high=1),
    }
    if m.name == "rrf" and params["k"] + params["rank_base"] <= 0:
        words = f"> 0 with {keyword('rank_base', 0)} (the first rank would weigh 1/0)"
        raise parameter_error(OWNER, "k", words, params["k"])
    if given["depth"] is not None:
        params["depth"] = number("depth", "None or an int >= 1", integer=True, low=1)
    return params


def check_columns(present: list[str], c: Columns) -> None:
    """The columns the runs need: system, query, item, and a rank or a score."""
    missing = [col for col in (c.system, c.query, c.item) if col not in present]
    if missing:
        raise missing_columns_error(missing, present, table="runs to fuse")
    if ranking_column(present, c) is None:
        raise ValidationError([missing_order_failure(c.rank, c.score, present)], table="runs to fuse")


def _check_weights(m: FusionMethod, weights: object, systems: list) -> np.ndarray | None:
    if not m.weighted:
        return None
    assert isinstance(weights, Mapping)  # check_options
    by_text = {str(s): i for i, s in enumerate(systems)}
    out = np.full(len(systems), np.nan)
    for key, value in weights.items():
        i = by_text.get(str(key))
        if i is None:
            raise ParameterError(
                f"The 'weights' parameter of fuse names the system {key!r}, which is not in the table"
                f"{did_you_mean(str(key), by_text)}. Systems: {list(by_text)}.",
                owner="fuse",
                parameter="weights",
            )
        out[i] = check_number(OWNER, "weights", value, expected="finite numbers")
    lacking = [s for s, i in by_text.items() if np.isnan(out[i])]
    if lacking:
        raise ParameterError(
            f"The 'weights' parameter of fuse has no weight for the system(s) {lacking}.",
            owner="fuse",
            parameter="weights",
        )
    return out


def _check_one_scale(runs: Runs, m: FusionMethod, c: Columns) -> None:
    low, high = score_ranges(runs)
    check_one_scale(runs.systems, low, high, m, c)


def score_ranges(runs: Runs) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and largest retrieved score of each system (inf and -inf for a system without entries)."""
    n_sys = len(runs.systems)
    low = np.full(n_sys, np.inf)
    high = np.full(n_sys, -np.inf)
    np.minimum.at(low, runs.sys, runs.value)
    np.maximum.at(high, runs.sys, runs.value)
    return low, high


def check_one_scale(systems: list, low: np.ndarray, high: np.ndarray, m: FusionMethod, c: Columns) -> None:
    """Raw scores of systems on different scales make a score method meaningless: say so, name the ranges."""
    n_sys = len(systems)
    with np.errstate(over="ignore"):  # a span beyond the float range is inf, and still a span
        span = high - low
    disjoint = low.max() > high.min()
    positive = span[span > 0]
    # max / ratio > min, not max > ratio * min: the product overflows (with a warning) for spans near the float limit
    spread = len(positive) > 0 and (positive.max() / SCALE_RATIO > positive.min() or len(positive) < n_sys)
    if disjoint or spread:
        ranges = ", ".join(f"{s!r}: [{lo:.4g}, {hi:.4g}]" for s, lo, hi in zip(systems, low, high))
        raise ParameterError(
            f"The 'norm' parameter of fuse: {keyword('method', m.name)} adds raw {c.score!r} values, and the "
            "systems' "
            f"scores are on different scales ({ranges}). Pass {keyword('norm', 'min-max')} (or 'max', 'sum', 'zmuv', "
            f"'rank', 'borda'), or {keyword('norm', 'none')} to fuse the raw scores anyway.",
            owner="fuse",
            parameter="norm",
        )


def source_rows(frame: pd.DataFrame, c: Columns, runs: Runs, cand: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """The input row each candidate takes its other columns from, and the judged rows no run retrieved.

    The source row of a (query, item) is a judged row first (its relevance), then the first in row order. The
    entries know their candidate (:func:`read_runs`): only the other rows (not retrieved, or cut by ``depth``) are
    looked up, and only those are sorted (the judged rows no run retrieved come in (query, item) code order).
    """
    n_rows = len(frame)
    judged = frame[c.relevance].notna().to_numpy() if c.relevance in frame.columns else None
    # a row's priority: judged rows first, then row order (the smallest wins)
    prio = np.arange(n_rows, dtype=np.int64)
    if judged is not None:
        prio[~judged] += n_rows
    best = np.full(len(cand.unit), 2 * n_rows, dtype=np.int64)
    entry = runs.rows >= 0  # (norm='borda' adds entries of no row)
    np.minimum.at(best, runs.cand[entry], prio[runs.rows[entry]])
    other = np.ones(n_rows, dtype=bool)
    other[runs.rows[entry]] = False
    extra = np.empty(0, dtype=np.int64)
    if other.any():
        rest = np.flatnonzero(other)
        n_items = max(len(runs.items), 1)
        key = runs.query_codes[rest].astype(np.int64) * n_items + runs.item_codes[rest]
        at = np.minimum(np.searchsorted(runs.cand_keys, key), max(len(runs.cand_keys) - 1, 0))
        hit = (runs.cand_keys[at] == key) if len(runs.cand_keys) else np.zeros(len(rest), dtype=bool)
        np.minimum.at(best, at[hit], prio[rest[hit]])
        if judged is not None:
            lone = ~hit & judged[rest]  # judged, retrieved by no run: a row without a rank (the first of its key)
            rows, key = rest[lone], key[lone]
            order = np.lexsort((prio[rows], key))
            first = np.ones(len(order), dtype=bool)
            first[1:] = key[order][1:] != key[order][:-1]
            extra = rows[order][first]
    return best % max(n_rows, 1), extra


def _fused_frame(
    frame: pd.DataFrame, c: Columns, runs: Runs, cand: Candidates, score: np.ndarray, name: str | int
) -> pd.DataFrame:
    """The fused run's rows in (query, rank) order, other columns taken from the input."""
    fused_src, extra = source_rows(frame, c, runs, cand)
    # the candidates in rankframe's score order (prepare's, on the codes fusion already holds)
    rows = score_order(cand.unit, runs.n_queries, score, cand.item, runs.text_rank, "descending")
    offsets = units.offsets_from_counts(cand.per_query)
    # the other columns taken from the source rows (system, score and rank are the fused run's own: not taken)
    own = {c.system, c.score, c.rank}
    fused = frame[[col for col in frame.columns if col not in own]].iloc[np.concatenate([fused_src[rows], extra])]
    fused = fused.reset_index(drop=True)
    fused[c.system] = name
    fused_score = np.concatenate([score[rows], np.full(len(extra), np.nan)])
    fused[c.score] = fused_score
    if c.rank in frame.columns:
        rank = np.concatenate([units.positions_in_lists(offsets), np.full(len(extra), -1)])
        fused[c.rank] = pd.array(np.where(rank > 0, rank, 0), dtype="Int64")
        fused.loc[rank < 0, c.rank] = pd.NA
        if not isinstance(frame[c.rank].dtype, pd.Int64Dtype) and not len(extra):
            fused[c.rank] = fused[c.rank].astype(frame[c.rank].dtype if frame[c.rank].dtype.kind in "iuf" else "Int64")
    return fused[[*frame.columns, *([c.score] if c.score not in frame.columns else [])]]
