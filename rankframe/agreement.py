"""``rankframe.agreement``: how far two relevance-label columns agree (Cohen's kappa), or several coders (alpha).

Two forms, told apart by their keywords:

* **two coders** (``a=``, ``b=``, ``weights=``, ``labels=``, ``rel=``, ``ci=``): one row per (query, item) unit
  with both labels in two columns (``human`` and ``llm`` by default); per segment ``n``, ``agreement`` (share of
  equal labels) and ``kappa`` (scikit-learn's ``cohen_kappa_score``);
* **several coders** (``coder=``, ``value=``, ``unit=``, ``level=``): one row per (unit, coder) with its value; per
  segment ``n`` (pairable units) and ``alpha`` (the ``krippendorff`` package's ``alpha``).

The parameters' rules are declared once here (:data:`TWO_CODER`, :data:`MULTI_CODER`, :func:`check_choice`) and
the CLI and the SQL macro ``rf_agreement`` use their words; the arithmetic is :mod:`rankframe.stats.agreement`.
One job: the public function, its parameters' rules and the two forms that share them (the rules' messages, in the
caller's words, made it pass 500 lines).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .core.columns import Columns, column_list
from .core.errors import (
    ParameterError,
    ValidationError,
    caller_option,
    did_you_mean,
    keyword,
    missing_columns_error,
    parameter_error,
)
from .core.numeric import check_number
from .measures.arguments import check_level
from .stats import agreement as kernels
from .stats.randomization import N_RESAMPLES, call_seed, check_n_resamples, check_seed
from .tables import inputs, units
from .tables.inputs import Output
from .tables.rules import RULES

OWNER = "agreement"
#: the keywords that only the two-coder form takes, and only the several-coder form
TWO_CODER = ("a", "b", "weights", "labels", "rel", "ci", "n_resamples", "seed")
MULTI_CODER = ("coder", "value", "unit", "level")
#: the output columns after the segment columns (two coders, with ``ci``: ``ci_low``, ``ci_high`` of kappa)
KAPPA_COLUMNS = ("n", "agreement", "kappa", "ci_low", "ci_high", "note")
ALPHA_COLUMNS = ("n", "alpha", "note")
WEIGHTS = kernels.WEIGHTS
LEVELS = kernels.LEVELS
#: the notes (one per segment row, joined by "; "), in words every face shares
NULL_NOTE = "{count} row(s) with a null label left out"
UNDEFINED_NOTE = "kappa undefined: chance agreement is 1 (a single label on the scale)"
UNDEFINED_ALPHA_NOTE = "alpha undefined: no pairable units, or a single value"
FEW_QUERIES_NOTE = "no interval: fewer than 2 queries"
RESAMPLES_NOTE = "{count} of {total} resamples with an undefined kappa left out of the interval"


def check_choice(name: str, value: object, choices: Sequence[str], *, none: bool = False, owner: str = OWNER) -> Any:
    """``value`` as one of ``choices`` (case-insensitive; None when ``none``), or the ParameterError with a hint."""
    if value is None and none:
        return None
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    words = "one of " + ", ".join(map(repr, choices)) + (" or None" if none else "")
    hint = did_you_mean(value, choices) if isinstance(value, str) else ""
    raise parameter_error(owner, name, words, value, hint)


def agreement(
    data: Any,
    a: str | None = None,
    b: str | None = None,
    *,
    coder: str | None = None,
    value: str | None = None,
    unit: str | Sequence[str] | None = None,
    level: str | None = None,
    by: str | Sequence[str] | None = None,
    weights: str | None = None,
    labels: Sequence[float] | None = None,
    rel: float | None = None,
    columns: Columns | dict | None = None,
    ci: float | None = None,
    n_resamples: int | None = None,
    seed: int | None = None,
    output: Output = "pandas",
) -> pd.DataFrame | Any:  # a DataFrame; with output='arrow'/'polars' a Table (optional packages: Any)
    """Agreement per segment between two label columns (Cohen's kappa) or several coders (Krippendorff's alpha).

    Parameters
    ----------
    data : table
        Two coders: one row per (query, item) unit with the labels of both in columns ``a`` and ``b``. Several
        coders: one row per (unit, coder) with the value in column ``value``. Any table :func:`rankframe.evaluate`
        takes (pandas, Arrow, polars, a DuckDB relation, a Parquet/CSV path).
    a, b : str, default "human", "llm"
        The two label columns (two-coder form). Labels are numbers (grades); a row where either is null is left
        out of ``n`` (the ``note`` says how many).
    coder, value : str, default "coder", "value"
        The coder and value columns (several-coder form).
    unit : str or list of str, default ``[query, item]`` (``columns=``' roles)
        The columns naming a unit (several-coder form); one row per (unit, coder).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Krippendorff's level of measurement (the ``krippendorff`` package's distances).
    by : str or list of str, optional
        Segment columns: one row per segment, each segment computed on its own rows alone.
    weights : {None, "linear", "quadratic"}
        Weighted kappa, scikit-learn's weights over the index of the label scale: the sorted distinct labels seen
        in either column in the whole call (every segment on the same scale), or ``labels``.
    labels : list of numbers, optional
        The label scale, in scikit-learn's order (the index of the weights). A label outside it is an error.
    rel : number, optional
        Binarise both labels at grade ``>= rel`` first (``agreement`` and ``kappa`` are then the binarised ones).
    columns : Columns or dict, optional
        The query and item roles (``ci=`` resamples queries; a unit is a (query, item) pair).
    ci : float, optional
        A percentile bootstrap interval ``[ci_low, ci_high]`` of kappa at this level, resampling the queries of each
        segment (all units of a query move together).
    n_resamples : int, default 10000
        Bootstrap resamples (with ``ci``).
    seed : int, optional
        Seed of the bootstrap draws; None draws fresh entropy, recorded in ``out.attrs["seed"]``.
    output : {"pandas", "arrow", "polars"}

    Returns
    -------
    DataFrame
        Two coders: ``[*by, n, agreement, kappa, note]`` (``ci_low, ci_high`` before ``note`` with ``ci=``);
        several coders: ``[*by, n, alpha, note]``. ``kappa``/``alpha`` is NaN where undefined (chance agreement 1;
        no pairable unit), with a note. ``out.attrs`` records the scale (``labels``), ``weights``, ``rel`` and, with
        ``ci``, ``n_resamples`` and ``seed``.

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"],
    ...                    "human": [1, 0, 1, 1], "llm": [1, 0, 0, 1]})
    >>> rankframe.agreement(df)   # p_o = 3/4; p_e = (3*2 + 1*2)/16 = 1/2; kappa = (3/4 - 1/2)/(1 - 1/2)
       n  agreement  kappa  note
    0  4       0.75    0.5  None
    >>> ratings = pd.DataFrame({"query": [1, 1, 2, 2], "item": ["a", "a", "a", "a"],
    ...                         "coder": ["x", "y", "x", "y"], "value": [1, 1, 0, 0]})
    >>> rankframe.agreement(ratings, coder="coder", value="value")
       n  alpha  note
    0  2    1.0  None
    """
    given = {
        "a": a, "b": b, "weights": weights, "labels": labels, "rel": rel, "ci": ci,
        "n_resamples": n_resamples, "seed": seed,
    }  # fmt: skip
    multi = {"coder": coder, "value": value, "unit": unit, "level": level}
    two_named = [k for k, v in given.items() if v is not None]
    multi_named = [k for k, v in multi.items() if v is not None]
    if two_named and multi_named:
        raise ParameterError(
            f"agreement takes either the two-coder keywords {list(TWO_CODER)} or the several-coder keywords "
            f"{list(MULTI_CODER)}; got {keyword(two_named[0])} with {keyword(multi_named[0])}: pass one form",
            owner=OWNER,
            parameter=multi_named[0],
        )
    output = inputs.check_output(output, OWNER)
    cols = Columns.coerce(columns, function=OWNER)
    by_list = column_list(by, OWNER)
    if multi_named:
        out = _alpha(data, coder, value, unit, level, by_list, cols)
    else:
        out = _kappa(data, a, b, by_list, weights, labels, rel, cols, ci, n_resamples, seed)
    return inputs.from_pandas(out, output)


def _name(param: str, value: object, default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise parameter_error(OWNER, param, "a column name (str)", value)
    return value


def check_segments(by: Sequence[str], needed: Sequence[str], outputs: Sequence[str]) -> None:
    """No segment column may be an output column or a column the call reads (a label, the coder, ...)."""
    clash = [c for c in by if c in outputs or c in needed]
    if clash:
        role = "an output column of agreement " + str(list(outputs)) if clash[0] in outputs else "a label column"
        raise ParameterError(
            f"The 'by' parameter of agreement names {clash[0]!r}, {role}; a segment column must be another column",
            owner="agreement",
            parameter="by",
        )


def _frame(data: Any, needed: Sequence[str], by: list[str], outputs: Sequence[str], table: str) -> pd.DataFrame:
    """The table as pandas with every needed column present, no segment named as an output column or a label column."""
    check_segments(by, needed, outputs)
    frame = inputs.to_pandas(data, owner=OWNER, name="data")
    if not frame.columns.is_unique:
        from .core.errors import check_unique_names

        check_unique_names(list(frame.columns), table)
    missing = [c for c in dict.fromkeys([*needed, *by]) if c not in frame.columns]
    if missing:
        raise missing_columns_error(missing, list(frame.columns), table=table)
    if len(frame) == 0:
        raise ValidationError(
            [{"column": needed[0], "rule": "the table is empty: no unit to compare", "count": 0}], table
        )
    return frame


def _numbers(frame: pd.DataFrame, col: str, table: str) -> np.ndarray:
    """A label column as float64 with NaN for nulls; non-numeric values or infinities are the ValidationError."""
    s = frame[col]
    t = s.dtype
    if pd.api.types.is_bool_dtype(t) or pd.api.types.is_complex_dtype(t):
        bad = s.notna()
    elif pd.api.types.is_numeric_dtype(t):
        x = s.to_numpy(dtype=np.float64, na_value=np.nan)
        bad = pd.Series(np.isinf(x), index=s.index)
        if not bad.any():
            return x
    else:
        conv = pd.to_numeric(s.where(~s.map(lambda v: isinstance(v, (bool, np.bool_, str, bytes)))), errors="coerce")
        bad = s.notna() & (conv.isna() | np.isinf(conv.to_numpy(dtype=np.float64, na_value=np.nan)))
        if not bad.any():
            return conv.to_numpy(dtype=np.float64, na_value=np.nan)
    raise ValidationError(
        [
            {
                "column": col,
                "rule": "labels must be finite numbers (grades; null = not labelled)",
                "count": int(bad.sum()),
                "examples": frame.loc[bad.to_numpy(), [col]].head(5),
            }
        ],
        table,
    )


def _no_nulls(frame: pd.DataFrame, cols: Sequence[str], table: str, words: str) -> None:
    for c in cols:
        bad = frame[c].isna().to_numpy()
        if bad.any():
            raise ValidationError(
                [{"column": c, "rule": words, "count": int(bad.sum()), "examples": frame.loc[bad, list(cols)].head(5)}],
                table,
            )


def unique_rows(frame: pd.DataFrame, cols: list[str], table: str, words: str) -> None:
    """The ValidationError (``words``) of rows that repeat ``cols``: "items unique per unit", ``cols[-1]`` the item.

    (``units.duplicate_item_rows``; ``DataFrame.duplicated`` hashed every row, ~65% of a kappa call.)
    """
    rows = units.duplicate_item_rows(frame, units.group_codes(frame, cols[:-1]), cols[-1])
    dup = np.zeros(len(frame), dtype=bool)
    dup[rows] = True
    if dup.any():
        raise ValidationError(
            [{"column": cols[-1], "rule": words, "count": int(dup.sum()), "examples": frame.loc[dup, cols].head(5)}],
            table,
        )


def _segments(frame: pd.DataFrame, by: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Segment code of every row (sorted segments, nulls last) and the segments' keys (one row when no ``by``)."""
    if not by:
        return np.zeros(len(frame), dtype=np.int64), pd.DataFrame(index=range(1))
    grouped = frame[by].groupby(by, sort=True, dropna=False, observed=True)
    seg = grouped.ngroup().to_numpy(np.int64)
    keys = grouped.size().index.to_frame(index=False)
    return seg, keys


def _noted(mask: np.ndarray, text: str) -> np.ndarray:
    """``text`` where ``mask``, None elsewhere (an object array: one note per output row)."""
    out = np.full(mask.size, None, dtype=object)
    out[mask] = text
    return out


def join_notes(*parts: np.ndarray) -> np.ndarray:
    """The notes of each output row joined by ``"; "`` (None when it has none)."""
    out = np.empty(parts[0].size, dtype=object)
    for s in range(out.size):  # the note strings of each output row (a few words per segment row)
        words = [str(p[s]) for p in parts if p[s] is not None]
        out[s] = "; ".join(words) if words else None
    return out


def kappa_arguments(
    a: object, b: object, weights: object, labels: object, rel: object, owner: str = OWNER
) -> tuple[str, str, str | None, np.ndarray | None, float | None]:
    """The two-coder parameters checked (every face: pandas, Spark, the CLI): ``a, b, weights, scale, rel``."""
    a, b = _name("a", a, "human"), _name("b", b, "llm")
    if a == b:
        cli = caller_option("b")  # the two parameters as the caller names them: "--a and --b" on the command line
        both = f"{caller_option('a')} and {cli}" if cli else f"The 'a' and 'b' parameters of {owner}"
        raise ParameterError(f"{both} name the same column {a!r}; name two columns", owner=owner, parameter="b")
    w = check_choice("weights", weights, WEIGHTS, none=True, owner=owner)
    threshold = None if rel is None else float(check_number(owner, "rel", rel))
    scale = None if labels is None else _check_labels(labels)
    return a, b, w, scale, threshold


class KappaCells(NamedTuple):
    """The kappa table of every segment and what its interval needs: the kept rows' segment and label indices."""

    out: pd.DataFrame
    notes: list[np.ndarray]
    attrs: dict[str, Any]
    both: np.ndarray
    seg: np.ndarray
    i: np.ndarray
    j: np.ndarray
    n_labels: int


def kappa_cells(
    frame: pd.DataFrame,
    a: str,
    b: str,
    by: list[str],
    w: str | None,
    scale: np.ndarray | None,
    rel: float | None,
    table: str,
    count: np.ndarray | None = None,
) -> KappaCells:
    """Kappa per segment from rows of ``frame`` (each a unit, or ``count`` units: Spark's (segment, a, b) cells).

    The one reading of the labels (numbers, null = left out, the scale of the whole call, ``labels=``, ``rel=``)
    for every face; the arithmetic is :mod:`rankframe.stats.agreement`'s.
    """
    x, y = _numbers(frame, a, table), _numbers(frame, b, table)
    both = ~(np.isnan(x) | np.isnan(y))
    if scale is not None:
        for col, v in ((a, x), (b, y)):
            out_of = both & ~np.isin(v, scale)
            if out_of.any():
                raise ValidationError(
                    [
                        {
                            "column": col,
                            "rule": f"a label outside the scale {keyword('labels', scale.tolist())}",
                            "count": int(out_of.sum() if count is None else count[out_of].sum()),
                            "examples": frame.loc[out_of, [a, b]].head(5),
                        }
                    ],
                    table,
                )
    if not both.any():
        raise ValidationError(
            [
                {
                    "column": a,
                    "rule": f"no row has both labels ({a!r} and {b!r} not null)",
                    "count": int(len(frame) if count is None else count.sum()),
                }
            ],
            table,
        )
    seg_all, keys = _segments(frame, by)
    n_seg = len(keys)
    nulls = np.bincount(seg_all[~both], weights=None if count is None else count[~both], minlength=n_seg)
    x, y, seg = x[both], y[both], seg_all[both]
    if rel is not None:
        x, y = (x >= rel).astype(np.float64), (y >= rel).astype(np.float64)
        grid = np.array([0.0, 1.0])
    else:
        grid = scale if scale is not None else np.unique(np.concatenate([x, y]))
    order = np.argsort(grid, kind="stable")
    pos = np.searchsorted(grid[order], np.concatenate([x, y]))
    idx = order[pos]
    i, j = idx[: x.size], idx[x.size :]
    counts = kernels.kappa_counts(seg, i, j, n_seg, grid.size, w, None if count is None else count[both])
    kappa = kernels.kappa(counts, w)
    out = keys.copy()
    out["n"] = counts.n.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["agreement"] = np.where(counts.n > 0, counts.equal / counts.n, np.nan)
    out["kappa"] = kappa
    notes = [
        np.array([NULL_NOTE.format(count=int(c)) if c else None for c in nulls.tolist()], dtype=object),
        _noted(np.isnan(kappa), UNDEFINED_NOTE),
    ]
    attrs: dict[str, Any] = {"labels": grid.tolist(), "weights": w, "rel": rel}
    return KappaCells(out, notes, attrs, both, seg, i, j, grid.size)


def _kappa(
    data: Any,
    a: str | None,
    b: str | None,
    by: list[str],
    weights: object,
    labels: object,
    rel: object,
    cols: Columns,
    ci: object,
    n_resamples: object,
    seed: object,
) -> pd.DataFrame:
    a, b, w, scale, threshold = kappa_arguments(a, b, weights, labels, rel)
    level = None if ci is None else check_level(OWNER, ci)
    if level is not None:
        resamples: int = check_n_resamples(N_RESAMPLES if n_resamples is None else n_resamples, OWNER)
        root: int = call_seed(check_seed(seed, OWNER))
    table = "agreement table"
    frame = _frame(data, [a, b, *([cols.query] if level is not None else [])], by, KAPPA_COLUMNS, table)
    if cols.query in frame.columns and cols.item in frame.columns:
        words = RULES["unique_item"].message(column=cols.item, unit=[*by, cols.query], hint=False)  # the table rule's
        unique_rows(frame, [*by, cols.query, cols.item], table, words)
    cells = kappa_cells(frame, a, b, by, w, scale, threshold, table)
    out, notes, attrs, both, seg, i, j = cells.out, cells.notes, cells.attrs, cells.both, cells.seg, cells.i, cells.j
    n_seg = len(out)
    if level is not None:
        q_codes = pd.factorize(
            pd.MultiIndex.from_arrays([seg, frame[cols.query].to_numpy()[both]]), sort=True, use_na_sentinel=False
        )[0]
        _no_nulls(
            frame.loc[both], [cols.query], table, keyword("ci") + " resamples queries: every row must name its query"
        )
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(root, spawn_key=SPAWN_KEY)))
        low, high, undefined = kernels.bootstrap_kappa(
            seg,
            q_codes,
            i,
            j,
            n_seg,
            cells.n_labels,
            w,
            level,
            resamples,
            rng,  # type: ignore[arg-type]
        )
        q_per_seg = np.bincount(seg[np.unique(q_codes, return_index=True)[1]], minlength=n_seg)
        out["ci_low"], out["ci_high"] = low, high
        notes.append(_noted(q_per_seg < 2, FEW_QUERIES_NOTE))
        notes.append(
            np.array(
                [
                    RESAMPLES_NOTE.format(count=u, total=resamples) if u and q >= 2 and not np.isnan(k) else None
                    for u, q, k in zip(undefined.tolist(), q_per_seg.tolist(), out["kappa"].tolist(), strict=True)
                ],
                dtype=object,
            )
        )
        attrs.update(ci=level, n_resamples=resamples, seed=root)
    out["note"] = pd.Series(join_notes(*notes), dtype=object)
    out.attrs.update(attrs)
    return out


#: the spawn key of agreement's bootstrap stream (distinct from compare's and the randomization test's)
SPAWN_KEY = (0xA9EE,)


def _check_labels(labels: object) -> np.ndarray:
    rule = "a non-empty list of distinct finite numbers (the label scale)"
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (list, tuple, np.ndarray, pd.Index, pd.Series)):
        raise parameter_error(OWNER, "labels", rule, labels)
    values = list(labels)
    if not values or any(isinstance(v, (bool, np.bool_)) for v in values):
        raise parameter_error(OWNER, "labels", rule, labels)
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise parameter_error(OWNER, "labels", rule, labels) from None
    if not np.isfinite(arr).all() or np.unique(arr).size != arr.size:
        raise parameter_error(OWNER, "labels", rule, labels)
    return arr


def _alpha(
    data: Any,
    coder: str | None,
    value: str | None,
    unit: object,
    level: object,
    by: list[str],
    cols: Columns,
) -> pd.DataFrame:
    coder, value = _name("coder", coder, "coder"), _name("value", value, "value")
    units = column_list(unit, OWNER, "unit") if unit is not None else [cols.query, cols.item]
    if not units:
        raise parameter_error(OWNER, "unit", "a column name or a non-empty list of column names", unit)
    lev = check_choice("level", "nominal" if level is None else level, LEVELS)
    table = "ratings table"
    named = [coder, value, *units]
    if len(set(named)) != len(named):
        whose = "" if caller_option("coder") else f"{OWNER}'s "  # the command's options are its own
        said = f"{keyword('coder', coder)}, {keyword('value', value)} and {keyword('unit', units)}"
        raise ParameterError(f"{whose}{said} must name distinct columns", owner=OWNER, parameter="unit")
    frame = _frame(data, named, by, ALPHA_COLUMNS, table)
    v = _numbers(frame, value, table)
    _no_nulls(frame, [*units, coder], table, "every row must name its unit and coder (no null value)")
    unique_rows(frame, [*by, *units, coder], table, "one row per (unit, coder): this coder rated the unit twice")
    keep = ~np.isnan(v)
    seg_all, keys = _segments(frame, by)
    n_seg = len(keys)
    nulls = np.bincount(seg_all[~keep], minlength=n_seg)
    u_codes = pd.factorize(
        pd.MultiIndex.from_arrays([seg_all, *(frame[c].to_numpy() for c in units)]), sort=True, use_na_sentinel=False
    )[0]
    n, alpha = kernels.krippendorff_alpha(seg_all[keep], u_codes[keep], v[keep], n_seg, lev)
    out = keys.copy()
    out["n"] = n.astype(np.int64)
    out["alpha"] = alpha
    notes = [
        np.array([NULL_NOTE.format(count=c) if c else None for c in nulls.tolist()], dtype=object),
        _noted(np.isnan(alpha), UNDEFINED_ALPHA_NOTE),
    ]
    out["note"] = pd.Series(join_notes(*notes), dtype=object)
    out.attrs.update(level=lev, unit=units)
    return out
