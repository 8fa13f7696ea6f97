"""``rankframe.fuse_train``: ranx's supervised fusion (``optimize_fusion``), a grid search over weights or a parameter.

The best configuration maximises the mean of one metric over the training queries.

The runs are read, normalised and numbered once; each configuration of the grid is one call of the method's
kernel (a loop over the grid, never over queries), and the configurations are evaluated together, a chunk at a
time, by :func:`rankframe.evaluate` with the configuration as a segment column. Grids and the tie rule:
docs/fusion.md ("Training the weights"), decision docs/decisions/0015-fusion.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..beyond.declare import inputs_not_taken
from ..comparing.rules import check_systems
from ..core.columns import Columns, column_list, judgment_columns
from ..core.errors import ParameterError, ValidationError, missing_columns_error, parameter_error
from ..core.numeric import check_number
from ..evaluate import parse_metrics
from ..measures.arguments import OUTPUT_COLUMNS
from ..measures.names import Measure
from ..tables import inputs
from ..tables.join import join_qrels
from .fuse import _check_one_scale, check_columns, check_options, check_table, source_rows
from .kernels import fused_scores
from .methods import PARAM_DEFAULTS, Grid, trained_method
from .normalize import normalise
from .runs import candidates, read_runs

if TYPE_CHECKING:
    from .methods import FuseMethod, FuseNorm

OWNER = "fuse_train"
#: at most this many configurations in one grid (ranx would try them all, for hours)
MAX_CONFIGS = 10_000
#: two means closer than this are equally good (the order of a float sum must not decide)
TIE_TOLERANCE = 1e-12
#: evaluate at most about this many rows at a time (configurations x candidates)
CHUNK_ROWS = 2_000_000


def fuse_train(
    df: Any,
    qrels: Any = None,
    method: FuseMethod = "wsum",
    *,
    metric: str | Measure = "nDCG@10",
    system: str | None = None,
    norm: FuseNorm | None = None,
    step: float | None = None,
    bounds: tuple[float, float] | None = None,
    rank_base: int = PARAM_DEFAULTS["rank_base"],  # type: ignore[assignment]
    depth: int | None = None,
    by: str | Sequence[str] | None = None,
    columns: Columns | dict | None = None,
    qrels_columns: Columns | dict | None = None,
    report: bool = False,
) -> Any:
    """Learn a fusion method's weights (or its parameter) on training queries, as ranx's ``optimize_fusion``.

    Every configuration of the method's grid fuses the runs as :func:`rankframe.fuse` would; the one with the
    best mean of ``metric`` over the queries is returned, ready for ``rankframe.fuse(df, method, norm=norm,
    **best)``. Among equally good configurations (means within 1e-12) the **last** in grid order wins, as in
    ranx (``score >= best_score``).

    Parameters
    ----------
    df : any table ``rankframe.inputs`` reads
        The runs (``system, query, item`` and ``score`` and/or ``rank``), with their judgments in a
        ``relevance`` column (rankframe's long table) unless ``qrels`` is given. Never modified.
    qrels : table, optional
        Separate judgments (query, item, relevance), joined with :func:`rankframe.join_qrels`.
    method : str, default "wsum"
        A method of ``rankframe.fusion.TRAINING``: ``wsum``, ``wmnz``, ``mixed``, ``w_bordafuse`` learn
        ``weights``; ``rrf`` learns ``k``, ``rbc`` ``phi``, ``logn_isr`` ``sigma``, ``combgmnz`` ``gamma``.
    metric : str, default "nDCG@10"
        One rankframe metric (``docs/metrics.md``), averaged over the queries with evaluate's default policies.
    system, norm, rank_base, depth, columns : as in :func:`rankframe.fuse` (``norm`` and ``depth`` apply to
        every configuration; a score method without ``norm`` has fuse's scale check).
    step : float, optional
        The grid's step. Weights: ``1/m`` for a whole ``m`` (default 0.1); a parameter: default ranx's (10 for
        ``k``, 0.01 for ``phi``, ``sigma``, ``gamma``).
    bounds : (low, high), optional
        The parameter's range (default ranx's: ``k`` 10..100, ``phi`` 0.01..0.99, ``sigma`` and ``gamma``
        0.01..1). Not for weights.
    by : str or list of str, optional
        Segment columns (constant within a query, as for :func:`rankframe.evaluate`): learn one configuration
        per segment, each from its segment's queries alone.
    qrels_columns : Columns or dict, optional
        Column names of ``qrels`` when they differ from ``df``'s.
    report : bool, default False
        Also return every configuration's mean: a frame ``[<param or "weights">, "metric", "value", "best"]``.

    Returns
    -------
    dict
        ``{"weights": {system: weight}}`` or ``{param: value}`` (and the report frame with ``report=True``).
        With ``by``: ``{segment: that dict}``, one per segment (a tuple of values for several columns), and the
        report has the segment columns, ``best`` marking each segment's best.

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> runs = pd.DataFrame({"system": ["a", "a", "b", "b"], "query": 1, "item": ["x", "y", "y", "x"],
    ...                      "score": [0.9, 0.1, 0.8, 0.2], "relevance": [0, 1, 1, 0]})
    >>> # min-max: a gives x 1, y 0; b gives y 1, x 0. With weights (wa, wb), y scores wb and x scores wa: y (the
    >>> # relevant item) is first when wb > wa, or wb = wa (a tie, broken by item id descending: y before x). The
    >>> # grid runs (0, 1), (0.1, 0.9), ..., (1, 0): nDCG is 1 up to (0.5, 0.5), the last of the best
    >>> rankframe.fuse_train(runs, method="wsum", norm="min-max", metric="nDCG")
    {'weights': {'a': 0.5, 'b': 0.5}}
    """
    m, grid = trained_method(method)
    measure = _one_metric(metric)
    segments = column_list(by, OWNER)
    if not isinstance(report, (bool, np.bool_)):
        raise parameter_error(OWNER, "report", "True or False", report)
    configs = grid_values(grid, step, bounds)
    plan = check_options(
        m.name, system=system, norm=norm, weights={} if m.weighted else None, rank_base=rank_base, depth=depth,
        columns=columns, **({grid.param: configs[0]} if grid.param != "weights" else {}),
    )  # fmt: skip
    if grid.param != "weights":
        try:
            check_options(m.name, **{grid.param: configs[-1]}, rank_base=rank_base)
        except ParameterError as e:
            raise ParameterError(
                f"The 'bounds' parameter of fuse_train: the grid's last value is refused: {e}",
                owner="fuse_train",
                parameter="bounds",
            ) from None
    c = plan.columns
    frame = inputs.to_pandas(df, owner=OWNER, columns=c)
    if qrels is not None:
        q = inputs.to_pandas(
            qrels,
            owner=OWNER,
            name="qrels",
            columns=judgment_columns(c, qrels_columns, OWNER),
        )
        check_columns(list(frame.columns), c)
        frame = join_qrels(
            frame,
            q,
            c,
            [c.system, *segments],
            qrels_columns=judgment_columns(c, qrels_columns, OWNER),
        )
    elif qrels_columns is not None:
        raise ParameterError(
            "qrels_columns= names the columns of a qrels= table, but no qrels= was given",
            owner="fuse_train",
            parameter="qrels_columns",
        )
    check_columns(list(frame.columns), c)
    _check_segments(segments, frame, c)
    check_table(frame, c, plan.reads_scores)
    if c.relevance not in frame.columns or not frame[c.relevance].notna().any():
        raise ValidationError(
            [{"column": c.relevance, "rule": "fuse_train learns from judgments: give a relevance column or qrels=",
              "count": 0}],
            table="runs to train on",
        )  # fmt: skip
    runs = read_runs(frame, c, plan.params.get("depth"))
    check_systems(runs.systems, c.system, OWNER, table="runs to train on")  # compare's and fuse's rule
    if plan.reads_scores and not runs.has_scores:
        raise ValidationError(
            [{"column": c.score, "rule": f"{m.name!r} fuses scores: every retrieved row needs one", "count": 0}],
            table="runs to train on",
        )
    if plan.reads_scores and plan.norm is None:
        _check_one_scale(runs, m, c)
    if grid.param == "weights":
        configs = weight_vectors(len(runs.systems), configs)
    cand = candidates(runs)
    normed, cand = normalise(runs, cand, None if plan.norm is None else plan.norm.name)
    fused_src, extra = source_rows(frame, c, runs, cand)
    rel = frame[c.relevance]
    relevance = (
        rel.to_numpy(dtype=np.float64, na_value=np.nan) if pd.api.types.is_numeric_dtype(rel) else rel.to_numpy()
    )
    rows = np.concatenate([fused_src, extra])
    base = pd.DataFrame(
        {
            QUERY: np.concatenate([cand.unit, runs.query_codes[extra]]),
            ITEM: runs.items.take(np.concatenate([cand.item, runs.item_codes[extra]])),
            RELEVANCE: np.concatenate([relevance[fused_src], relevance[extra]]),
            **{name: frame[name].to_numpy()[rows] for name in segments},
        }
    )
    keys = base[segments].drop_duplicates().sort_values(segments).reset_index(drop=True) if segments else None
    n_extra = len(extra)
    values = np.empty((len(configs), 1 if keys is None else len(keys)))
    per_chunk = max(1, CHUNK_ROWS // max(len(base), 1))
    for start in range(0, len(configs), per_chunk):
        chunk = configs[start : start + per_chunk]
        scores = []
        for config in chunk:
            if grid.param == "weights":
                params, w = plan.params, np.asarray(config, dtype=np.float64)
            else:
                params, w = {**plan.params, grid.param: config}, None
            scores.append(np.concatenate([fused_scores(m.name, normed, cand, params, w), np.full(n_extra, np.nan)]))
        values[start : start + len(chunk)] = _means(base, scores, measure, start, segments, keys)
    # per segment (column): the last configuration within TIE_TOLERANCE of the best, as ranx's `>=`
    best = [int(np.flatnonzero(col >= col.max() - TIE_TOLERANCE)[-1]) for col in values.T]

    def chosen(i: int) -> dict:
        return {"weights": dict(zip(runs.systems, configs[i]))} if grid.param == "weights" else {grid.param: configs[i]}

    if keys is None:
        out: dict = chosen(best[0])
    else:
        labels = [k[0] if len(segments) == 1 else k for k in keys.itertuples(index=False, name=None)]
        out = {label: chosen(i) for label, i in zip(labels, best)}
    if not report:
        return out
    shown = [dict(zip(runs.systems, v)) for v in configs] if grid.param == "weights" else list(configs)
    n_seg = values.shape[1]
    table = pd.DataFrame({grid.param: [x for x in shown for _ in range(n_seg)], "metric": str(measure),
                          "value": values.reshape(-1)})  # fmt: skip
    table["best"] = np.repeat(np.arange(len(configs)), n_seg) == np.tile(best, len(configs))
    if keys is not None:
        seg = pd.concat([keys] * len(configs), ignore_index=True)
        table = pd.concat([seg, table], axis=1)
    return out, table


#: the internal columns of the table evaluated for every configuration (named apart from any segment column)
QUERY, ITEM, SCORE, RELEVANCE, CONFIG = "rf__query", "rf__item", "rf__score", "rf__relevance", "rf__config"


def _means(
    base: pd.DataFrame,
    scores: list[np.ndarray],
    measure: Measure,
    start: int,
    segments: list[str],
    keys: pd.DataFrame | None,
) -> np.ndarray:
    """The metric's mean over the queries for each configuration's scores, per segment (configurations x segments).

    One evaluate call, by configuration (and segment).
    """
    from ..evaluate import evaluate

    n, k = len(base), len(scores)
    table = pd.DataFrame(
        {
            QUERY: np.tile(base[QUERY].to_numpy(), k),
            ITEM: np.tile(base[ITEM].to_numpy(), k),
            SCORE: np.concatenate(scores),
            RELEVANCE: np.tile(base[RELEVANCE].to_numpy(), k),
            **{name: np.tile(base[name].to_numpy(), k) for name in segments},
            CONFIG: np.repeat(np.arange(start, start + k), n),
        }
    )
    c = Columns(query=QUERY, item=ITEM, score=SCORE, relevance=RELEVANCE)
    result = evaluate(table, [measure], by=[CONFIG, *segments], columns=c)
    configs = pd.DataFrame({CONFIG: np.arange(start, start + k)})
    grid = configs.merge(keys, how="cross") if keys is not None else configs
    values = grid.merge(result, on=[CONFIG, *segments], how="left")["value"]
    return values.to_numpy(dtype=np.float64).reshape(k, -1)


def _check_segments(segments: list[str], frame: pd.DataFrame, c: Columns) -> None:
    """The segment columns exist, are not the runs' own columns, take no report column's name, hold one value per query.

    A query is fused whole, so it trains one segment's configuration.
    """
    present = list(frame.columns)
    missing = [name for name in segments if name not in present]
    if missing:
        raise missing_columns_error(missing, present, table="runs to train on")
    own = [name for name in segments if name in (c.system, c.query, c.item, c.score, c.rank, c.relevance)]
    if own:
        raise ParameterError(
            f"The 'by' parameter of fuse_train names {own[0]!r}, a column of the runs themselves "
            "(system, query, item, score, rank, relevance); by= takes segment columns, constant within a query.",
            owner="fuse_train",
            parameter="by",
        )
    clash = [name for name in segments if name in (*OUTPUT_COLUMNS, "best", "weights", *PARAM_DEFAULTS)]
    if clash:
        raise ParameterError(
            f"The 'by' parameter of fuse_train: the segment column {clash[0]!r} has the name of a column of "
            f"fuse_train's report; rename it first, e.g. df.rename(columns={{{clash[0]!r}: '{clash[0]}_'}})",
            owner="fuse_train",
            parameter="by",
        )
    for name in segments:
        per_query = frame.groupby(c.query, sort=False, dropna=False)[name].nunique(dropna=False)
        split = per_query.index[per_query.to_numpy() > 1]
        if len(split):
            rows = frame.loc[frame[c.query].isin(split[:3]), [c.query, name]].drop_duplicates().head(6)
            raise ValidationError(
                [{"column": name, "count": int(frame[c.query].isin(split).sum()), "examples": rows,
                  "rule": "a segment column of fuse_train holds one value per query (queries are fused whole)"}],
                table="runs to train on",
            )  # fmt: skip


def _one_metric(metric: object) -> Measure:
    if not isinstance(metric, (str, Measure)):
        raise parameter_error(OWNER, "metric", "one metric name such as 'nDCG@10'", metric)
    measures = parse_metrics(metric, owner=OWNER)
    if len(measures) != 1:
        raise parameter_error(OWNER, "metric", "one metric (it stands for several)", metric)
    inputs_not_taken(
        measures, "fuse_train", "train on a metric of the runs and their judgments (nDCG@10, AP, ...) instead"
    )
    return measures[0]


def grid_values(grid: Grid, step: object, bounds: object) -> list:
    """The grid's values: the weight steps ``[0, 1/m, ..., 1]``, or the parameter's ``low, low + step, ..., high``."""
    if grid.param == "weights":
        if bounds is not None:
            raise ParameterError(
                "The 'bounds' parameter of fuse_train is for a parameter's grid, not for weights.",
                owner="fuse_train",
                parameter="bounds",
            )
        s = grid.step if step is None else step
        if not _positive_number(s) or s > 1 or abs(round(1 / s) * s - 1) > 1e-9:  # type: ignore[operator]
            raise parameter_error(
                OWNER,
                "step",
                "1/m for a whole number m (1, 0.5, 0.25, 0.2, 0.1, 0.05, ...) so that weights sum to 1",
                s,
            )
        m = round(1 / s)  # type: ignore[operator]
        return [i / m for i in range(m + 1)]
    s = grid.step if step is None else step
    if not _positive_number(s):
        raise parameter_error(OWNER, "step", "a number > 0", s)
    low, high = (grid.low, grid.high) if bounds is None else _bounds(bounds)
    n = math.floor((high - low) / s + 1e-9) + 1  # type: ignore[operator]
    if n > MAX_CONFIGS:
        raise parameter_error(OWNER, "step", f"large enough for at most {MAX_CONFIGS} values ({n} asked)", s)
    # the values keep the decimals of the step and of the low end (0.01 + i * 0.1 is 0.01, 0.11, ..., not 0.0, 0.1)
    digits = max(0, *(-int(Decimal(str(x)).as_tuple().exponent) for x in (s, low)))  # type: ignore[arg-type]
    integral = digits == 0 and float(low).is_integer()
    return [int(round(low + i * s)) if integral else round(low + i * s, digits) for i in range(n)]  # type: ignore


def weight_vectors(n_systems: int, steps: list) -> list[tuple[float, ...]]:
    """Every vector of ``n_systems`` weights from ``steps`` summing to 1, in ``itertools.product`` order.

    Counted in whole steps (exactly); ranx's ``sum(seq) == 1.0`` on floats drops a few (step 0.1, 3 runs:
    (0.2, 0.7, 0.1), (0.3, 0.6, 0.1), (0.6, 0.3, 0.1), (0.7, 0.2, 0.1)).
    """
    m = len(steps) - 1
    count = math.comb(m + n_systems - 1, n_systems - 1)
    if count > MAX_CONFIGS:
        raise parameter_error(
            OWNER, "step", f"large enough for at most {MAX_CONFIGS} weight vectors ({count} for {n_systems} systems)",
            1 / m,
        )  # fmt: skip

    def compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
        if parts == 1:
            yield (total,)
            return
        for first in range(total + 1):
            for rest in compositions(total - first, parts - 1):
                yield (first, *rest)

    return [tuple(steps[i] for i in c) for c in compositions(m, n_systems)]


def _positive_number(value: object) -> bool:
    try:
        check_number(OWNER, "step", value, low=0, low_open=True)
    except ParameterError:
        return False
    return True


def _bounds(bounds: object) -> tuple[float, float]:
    words = "(low, high) with low <= high"
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise parameter_error(OWNER, "bounds", words, bounds)
    low, high = (check_number(OWNER, "bounds", b, expected=words) for b in bounds)
    if low > high:
        raise parameter_error(OWNER, "bounds", words, bounds)
    return bounds[0], bounds[1]
