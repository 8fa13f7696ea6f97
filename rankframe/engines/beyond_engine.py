"""The beyond-accuracy engine: check the extra inputs, lay the lists out over one item index, run the kernels.

``check_arguments`` holds the rules that need no data (a metric needs an input it was not given, an input no
metric reads, set-level metrics with ``per_query``/``agg``); ``check_catalog`` and ``check_train`` the
rules of the inputs themselves; ``evaluate`` returns the per-list values (the per-query contract of the other
engines) and the set-level rows (one per segment).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import inputs
from ..beyond.declare import BeyondSpec, missing_input
from ..beyond.lists import Features, Lists, Train, count_distinct, item_index
from ..columns import Columns
from ..errors import ParameterError
from ..names import Measure
from ..prepare import ranked_rows
from ..registry import BEYOND_KERNELS
from ..units.order import positions_in_lists
from .aggregate import metric_labels

#: the column of train= read as the interaction weight (1 per row without it)
WEIGHT = "weight"
#: the columns of features= besides the item column: the feature's name and its value (1 per row without it)
FEATURE, VALUE = "feature", "value"


def split(measures: Sequence[Measure]) -> tuple[list[Measure], list[Measure]]:
    """(the accuracy metrics, the beyond-accuracy metrics) of a list of measures, each in the order asked."""
    beyond = [m for m in measures if isinstance(m.spec, BeyondSpec)]
    return [m for m in measures if m not in beyond], beyond


def is_set_level(measure: Measure) -> bool:
    """One value per segment (Coverage, Gini, Entropy; aggregate='rows'): never per query."""
    return isinstance(measure.spec, BeyondSpec) and measure.spec.is_set_level(measure.kw)


def check_arguments(
    measures: Sequence[Measure],
    *,
    per_query: bool,
    ci: object,
    agg: str,
    train: object,
    catalog: object,
    features: object = None,
) -> dict[str, object]:
    """The rules of the extra inputs and the set-level metrics that need no data (evaluate calls it first).

    Returns the inputs to compute with: each as given when an asked metric reads it, None when none does. An input
    no asked metric reads is accepted and left alone (not read, not checked: issue 33), so one call can pass the
    same ``train=``/``catalog=``/``features=`` whatever its metrics; a metric that reads an input it was not given
    is still an error (:func:`~rankframe.beyond.declare.missing_input`), never a silent default.
    """
    sets = [str(m) for m in measures if is_set_level(m)]
    if sets and per_query:
        raise ParameterError(
            f"{', '.join(sets)}: set-level metrics have one value per segment, not per query; they do not apply "
            "with per_query=True (evaluate them in a separate call without it)"
        )
    if sets and agg != "mean":
        raise ParameterError(
            f"{', '.join(sets)}: set-level metrics are not means over queries; agg={agg!r} does not apply to them "
            "(ci= gives them a bootstrap interval over queries)"
        )
    given = {"train": train is not None, "catalog": catalog is not None, "features": features is not None}
    reads: dict[str, list[str]] = {name: [] for name in given}
    for m in measures:
        if isinstance(m.spec, BeyondSpec):
            for name in m.spec.needed(m.kw):
                if not given[name]:
                    raise missing_input(m, name)
                reads[name].append(str(m))
    values = {"train": train, "catalog": catalog, "features": features}
    return {name: values[name] if readers else None for name, readers in reads.items()}


def _id_kind(values: pd.Series) -> str:
    """'number', 'text' or 'other': ids of different kinds never match, so they are refused, not silently cold."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return "other"
    if pd.api.types.is_numeric_dtype(values.dtype):
        return "number"
    kinds = {type(v) for v in values.dropna().head(1000)}
    if kinds and all(issubclass(t, str) for t in kinds):
        return "text"
    if kinds and all(issubclass(t, (int, float, np.integer, np.floating)) and not issubclass(t, bool) for t in kinds):
        return "number"
    return "other" if kinds else "empty"


_WORDS = {"number": "numbers", "text": "text", "other": "neither numbers nor text"}


def _show(value: object) -> str:
    """An id as the user wrote it (``1``, not ``np.int64(1)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_ids(ids: pd.Series, where: str, items: pd.Series, item_col: str) -> None:
    """No null ids, and ids of the same kind as the recommendations' item column."""
    null = ids.isna().to_numpy()
    if null.any():
        raise null_ids_error(where, int(null.sum()), f"positions {np.flatnonzero(null)[:5].tolist()}")
    mine, theirs = _id_kind(ids), _id_kind(items)
    if kinds_clash(mine, theirs):
        raise id_kind_error(where, mine, theirs, ids.iloc[0], items.dropna().iloc[0], item_col)


# The words of the input rules, written once: the pandas checks here and rankframe.spark's (which count on Spark and
# show example rows instead of positions) raise these.
def null_ids_error(where: str, count: int, shown: str) -> ParameterError:
    """An input with null item ids (``shown``: where they are, e.g. ``positions [0, 3]``)."""
    return ParameterError(f"{where} has {count} null item id(s) ({shown}); item ids are never null")


def kinds_clash(mine: str, theirs: str) -> bool:
    """Whether ids of these kinds (:func:`_id_kind`'s words) never match."""
    return "empty" not in (mine, theirs) and (mine != theirs or mine == "other")


def id_kind_error(where: str, mine: str, theirs: str, mine_example: object, their_example: object, item_col: str):
    """Item ids of another kind than the ranking table's."""
    return ParameterError(
        f"the item ids of {where} are {_WORDS[mine]} (e.g. {_show(mine_example)}) but those of the ranking table's "
        f"column {item_col!r} are {_WORDS[theirs]} (e.g. {_show(their_example)}): ids of different kinds never match; "
        "convert one of them first"
    )


def catalog_type_error(catalog: object) -> ParameterError:
    """catalog= of a type that holds no ids."""
    return ParameterError(
        "The 'catalog' parameter of evaluate must be a sequence of item ids or a one-column table. "
        f"Got {type(catalog).__name__} instead."
    )


def catalog_columns_error(columns: list) -> ParameterError:
    """catalog= as a table of more than one column."""
    return ParameterError(f"catalog= as a table must have one column (the item ids); it has {columns}")


#: an empty input: what it should hold
EMPTY = {
    "catalog": "it lists the items that could be recommended",
    "train": "it holds the past interactions popularity is counted from",
    "features": "it holds the items' (item, feature, value) rows",
}


def empty_error(name: str) -> ParameterError:
    """An input without rows."""
    return ParameterError(f"{name}= is empty: {EMPTY[name]}")


def repeated_catalog_error(count: int, examples: list) -> ParameterError:
    """catalog= listing an id more than once."""
    return ParameterError(f"catalog= lists {count} item id(s) more than once, e.g. {examples}: give each item once")


def input_columns_error(name: str, wanted: list[str], missing: list[str], present: list) -> ParameterError:
    """train= or features= without the columns it must have."""
    if name == "train":
        return ParameterError(
            f"train= must have the ranking table's query and item columns {wanted} (and optionally {WEIGHT!r}); "
            f"{missing} not in its columns {present}"
        )
    return ParameterError(
        f"features= must have the ranking table's item column and {FEATURE!r} {wanted} (and optionally "
        f"{VALUE!r}); {missing} not in its columns {present}"
    )


def null_train_query_error(column: str, count: int, shown: str) -> ParameterError:
    """train= with null query ids."""
    return ParameterError(f"train= has {count} null id(s) in {column!r} ({shown})")


def null_feature_error(count: int, shown: str) -> ParameterError:
    """features= with null feature names."""
    return ParameterError(f"features= has {count} null feature name(s) in {FEATURE!r} ({shown})")


def bad_number_error(name: str, count: int, rows: str) -> ParameterError:
    """train='s weight or features='s value that is not a finite number (a weight also >= 0)."""
    if name == "train":
        return ParameterError(
            f"train='s column {WEIGHT!r} must hold finite numbers >= 0 (0 = a known item without interactions); "
            f"{count} row(s) do not, e.g.\n{rows}"
        )
    return ParameterError(
        f"features='s column {VALUE!r} must hold finite numbers (a pair not listed is 0); {count} "
        f"row(s) do not, e.g.\n{rows}"
    )


def repeated_pairs_error(count: int, rows: str) -> ParameterError:
    """features= listing an (item, feature) pair more than once."""
    return ParameterError(
        f"features= lists {count} row(s) of the same (item, feature) pair, e.g.\n{rows}\ngive each pair once"
    )


def check_catalog(catalog: object, items: pd.Series, item_col: str) -> pd.Series:
    """``catalog=`` as a Series of distinct, non-null ids of the item column's kind."""
    if isinstance(catalog, (str, bytes, dict)) or catalog is None:
        raise catalog_type_error(catalog)
    if isinstance(catalog, pd.Series):
        ids = catalog.reset_index(drop=True)
    elif isinstance(catalog, (list, tuple, np.ndarray, pd.Index, set, frozenset, range)):
        ids = pd.Series(list(catalog) if isinstance(catalog, (set, frozenset)) else catalog)
    else:
        try:
            frame = inputs.to_pandas(catalog, owner="evaluate", name="catalog")
        except ParameterError:
            raise catalog_type_error(catalog) from None
        if frame.shape[1] != 1:
            raise catalog_columns_error(list(frame.columns))
        ids = frame.iloc[:, 0].reset_index(drop=True)
    if len(ids) == 0:
        raise empty_error("catalog")
    _check_ids(ids, "catalog=", items, item_col)
    repeated = ids[ids.duplicated()]
    if len(repeated):
        raise repeated_catalog_error(len(repeated), repeated.head(5).tolist())
    return ids


def check_train(train: object, columns: Columns, items: pd.Series) -> pd.DataFrame:
    """``train=`` as a pandas frame with the query and item columns (and a valid ``weight``), never modified."""
    frame = inputs.to_pandas(train, owner="evaluate", name="train")
    wanted = [columns.query, columns.item]
    _require(frame, "train", wanted)
    null_query = frame[columns.query].isna().to_numpy()
    if null_query.any():
        raise null_train_query_error(
            columns.query, int(null_query.sum()), f"rows {np.flatnonzero(null_query)[:5].tolist()}"
        )
    _check_ids(frame[columns.item], f"train='s column {columns.item!r}", items, columns.item)
    _check_numbers(frame, "train", WEIGHT, [*wanted, WEIGHT], negative=False)
    return frame


def _require(frame: pd.DataFrame, name: str, wanted: list[str]) -> None:
    """A long input (train=, features=) has its columns, and features= its rows.

    An empty train= is a history without interactions: every item is cold (popularity 0; RecTools gives ARP 0),
    not an error (issue 33).
    """
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise input_columns_error(name, wanted, missing, list(frame.columns))
    if len(frame) == 0 and name != "train":
        raise empty_error(name)


def _check_numbers(frame: pd.DataFrame, name: str, column: str, shown: list[str], *, negative: bool) -> None:
    """The optional numeric column of a long input: finite numbers (and >= 0 unless ``negative``), else the rows."""
    if column not in frame.columns:
        return
    values = frame[column]
    ok = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(np.float64) if ok else None
    if numbers is None:
        bad = np.ones(len(frame), dtype=bool)
    else:
        bad = ~(np.isfinite(numbers) if negative else np.isfinite(numbers) & (numbers >= 0))
    if bad.any():
        raise bad_number_error(name, int(bad.sum()), frame.loc[bad, shown].head(5).to_string())


def check_history(measures: Sequence[Measure], train: pd.DataFrame, queries: pd.Series, query_col: str) -> None:
    """A metric reading each query's own history (``BeyondSpec.history``): train='s query ids of the table's kind."""
    readers = [str(m) for m in measures if isinstance(m.spec, BeyondSpec) and m.spec.history]
    mine, theirs = _id_kind(train[query_col]), _id_kind(queries)
    if readers and kinds_clash(mine, theirs):
        raise ParameterError(
            f"{', '.join(readers)} reads each query's history in train=, but train='s query ids in {query_col!r} are "
            f"{_WORDS[mine]} (e.g. {_show(train[query_col].iloc[0])}) and the ranking table's are {_WORDS[theirs]} "
            f"(e.g. {_show(queries.dropna().iloc[0])}): ids of different kinds never match; convert one of them first"
        )


def check_features(features: object, columns: Columns, items: pd.Series) -> pd.DataFrame:
    """``features=`` as a pandas frame ``[item, feature, value]``: ids of the item column's kind, each pair once."""
    frame = inputs.to_pandas(features, owner="evaluate", name="features")
    wanted = [columns.item, FEATURE]
    _require(frame, "features", wanted)
    null_feature = frame[FEATURE].isna().to_numpy()
    if null_feature.any():
        raise null_feature_error(int(null_feature.sum()), f"rows {np.flatnonzero(null_feature)[:5].tolist()}")
    _check_ids(frame[columns.item], f"features='s column {columns.item!r}", items, columns.item)
    _check_numbers(frame, "features", VALUE, [*wanted, VALUE], negative=True)
    repeated = frame.duplicated([columns.item, FEATURE], keep=False).to_numpy()
    if repeated.any():
        rows = frame.loc[repeated, [columns.item, FEATURE]].head(5)
        raise repeated_pairs_error(int(repeated.sum()), rows.to_string())
    return frame


def _feature_arrays(frame: pd.DataFrame, codes: np.ndarray, n_items: int) -> Features:
    feature_codes, names = pd.factorize(frame[FEATURE])
    value = frame[VALUE].to_numpy(np.float64) if VALUE in frame.columns else np.ones(len(frame))
    return Features(
        item=codes,
        feature=feature_codes.astype(np.int64),
        value=value,
        n_features=len(names),
        known=np.bincount(codes, minlength=n_items) > 0,
    )


def reads_relevance(measures: Sequence[Measure]) -> bool:
    """Some asked metric of the family reads the ranking table's relevance column (Serendipity)."""
    return any(isinstance(m.spec, BeyondSpec) and m.spec.reads_relevance for m in measures)


def grades(df: pd.DataFrame, columns: Columns, measures: Sequence[Measure]) -> np.ndarray | None:
    """The float grade of each row of ``df`` (NaN: unjudged) when a metric reads it (None otherwise)."""
    if not reads_relevance(measures):
        return None
    if columns.relevance not in df.columns:  # reachable with validate=False
        names = ", ".join(str(m) for m in measures if isinstance(m.spec, BeyondSpec) and m.spec.reads_relevance)
        raise ParameterError(
            f"{names} reads the relevance column {columns.relevance!r}, which is not in the table's columns "
            f"{list(df.columns)}"
        )
    return pd.to_numeric(df[columns.relevance], errors="coerce").to_numpy(np.float64)


def _history(train: pd.DataFrame, keys: pd.DataFrame, query: str) -> np.ndarray:
    """Per unit: the code of its query among train='s queries (pd.factorize's order, as ``Train``), -1 without."""
    _, train_queries = pd.factorize(train[query])
    return pd.Index(train_queries).get_indexer(keys[query]).astype(np.int64)


def segments(keys: pd.DataFrame, by: Sequence[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Segment code of each unit (sorted, nulls last, as the means) and one row of segment values per code."""
    if not by:
        return np.zeros(len(keys), dtype=np.int64), pd.DataFrame(index=range(1))
    codes = keys.groupby(list(by), sort=True, dropna=False, observed=True).ngroup().to_numpy(np.int64)
    _, first = np.unique(codes, return_index=True)
    return codes, keys[list(by)].iloc[first].reset_index(drop=True)


def _train_arrays(
    frame: pd.DataFrame, codes: np.ndarray, n_items: int, query: str, order: np.ndarray, users: np.ndarray
) -> Train:
    weight = frame[WEIGHT].to_numpy(np.float64) if WEIGHT in frame.columns else np.ones(len(frame))
    query_codes, query_ids = pd.factorize(frame[query])
    positive = weight > 0
    pairs, _ = count_distinct(query_codes[positive].astype(np.int64) * n_items + codes[positive])
    return Train(
        known=np.bincount(codes, minlength=n_items) > 0,
        users=np.bincount(pairs % n_items, minlength=n_items).astype(np.float64),
        interactions=np.bincount(codes, weights=weight, minlength=n_items),
        n_users=len(query_ids),
        order=order,
        pair_query=pairs // n_items,
        pair_item=pairs % n_items,
        row_user=users,
        row_item=codes,
        row_weight=weight,
    )


def lists_of(
    df: pd.DataFrame,
    columns: Columns,
    by: Sequence[str],
    *,
    train: object = None,
    catalog: object = None,
    features: object = None,
    measures: Sequence[Measure] = (),
) -> tuple[Lists, Any, pd.DataFrame]:
    """The inputs checked and laid out: (the lists, the units (``.keys``: by columns and query), segment rows).

    ``measures``: the metrics to compute, for those that read each query's own history (``BeyondSpec.history``).
    """
    items = df[columns.item]
    catalog_ids = None if catalog is None else check_catalog(catalog, items, columns.item)
    train_frame = None if train is None else check_train(train, columns, items)
    feature_frame = None if features is None else check_features(features, columns, items)
    grade = grades(df, columns, measures)
    groups, rows, offsets = ranked_rows(df, columns, by)
    if train_frame is not None:
        check_history(measures, train_frame, df[columns.query], columns.query)
    seg_of_unit, seg_keys = segments(groups.keys, by)
    parts = [items.to_numpy()[rows]]
    parts += [] if catalog_ids is None else [catalog_ids.to_numpy()]
    parts += [] if train_frame is None else [train_frame[columns.item].to_numpy()]
    parts += [] if feature_frame is None else [feature_frame[columns.item].to_numpy()]
    codes, n_items, order = item_index(*parts)
    train_codes = codes[1 + (catalog_ids is not None)] if train_frame is not None else None
    unit_user, train_users = None, np.empty(0, dtype=np.int64)
    if train_frame is not None and any(isinstance(m.spec, BeyondSpec) and m.spec.history for m in measures):
        # each list's query and train's queries in one index: a query's own history (Calibration)
        (unit_user, train_users), _, _ = item_index(
            groups.keys[columns.query].to_numpy(), train_frame[columns.query].to_numpy()
        )
    catalog_mask = None
    if catalog_ids is not None:
        catalog_mask = np.zeros(n_items, dtype=bool)
        catalog_mask[codes[1]] = True
    lists = Lists(
        n_units=groups.n,
        unit_segment=seg_of_unit,
        n_segments=len(seg_keys),
        unit=groups.codes[rows].astype(np.int64),
        pos=positions_in_lists(offsets),
        item=codes[0],
        n_items=n_items,
        catalog=catalog_mask,
        train=None
        if train_frame is None or train_codes is None
        else _train_arrays(train_frame, train_codes, n_items, columns.query, order, train_users),
        features=None if feature_frame is None else _feature_arrays(feature_frame, codes[-1], n_items),
        unit_user=unit_user,
        grade=None if grade is None else grade[rows],
        unit_history=None
        if train_frame is None or not reads_relevance(measures)
        else _history(train_frame, groups.keys, columns.query),
    )
    return lists, groups, seg_keys


def evaluate(
    df: pd.DataFrame,
    measures: Sequence[Measure],
    columns: Columns,
    by: Sequence[str],
    *,
    train: object = None,
    catalog: object = None,
    features: object = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The beyond-accuracy values of a validated table: (per-list values, set-level rows).

    Per-list values are ``[*by, query, metric, value]`` (the per-query contract of the other engines); set-level
    rows ``[*by, metric, value, n]`` with ``n`` = the segment's queries.
    """
    lists, groups, seg_keys = lists_of(
        df, columns, by, train=train, catalog=catalog, features=features, measures=measures
    )
    seg_of_unit = lists.unit_segment
    per_query, sets = [], []
    units_per_segment = np.bincount(seg_of_unit, minlength=len(seg_keys))
    for m in measures:
        values = np.asarray(BEYOND_KERNELS[m.spec.name](lists, **m.kw), dtype=np.float64)
        if is_set_level(m):
            sets.append(seg_keys.assign(metric=str(m), value=values, n=units_per_segment.astype(np.int64)))
        else:
            per_query.append(groups.keys.assign(metric=str(m), value=values))
    empty: dict[str, Any] = {c: groups.keys[c].iloc[:0] for c in groups.keys.columns}
    pq = pd.concat(per_query, ignore_index=True) if per_query else pd.DataFrame({**empty, "metric": [], "value": []})
    st = pd.concat(sets, ignore_index=True) if sets else pd.DataFrame()
    return pq, st


def with_set_rows(
    means: pd.DataFrame | None, sets: pd.DataFrame, by: Sequence[str], asked: Sequence[str]
) -> pd.DataFrame:
    """The means and the set-level rows in one frame: by segment (sorted, nulls last), then metric as asked."""
    if len(sets):
        sets = sets.assign(metric=metric_labels(sets["metric"].to_numpy(dtype=object), sets.index))
    if means is None:
        out = sets.reset_index(drop=True)
    elif not len(sets):
        return means
    else:
        out = pd.concat([means, sets], ignore_index=True)
    rank = {name: i for i, name in enumerate(asked)}
    # sort keys in a frame of our own with positional names, so no user column name can collide with them
    keys = pd.DataFrame({i: out[c] for i, c in enumerate(by)})
    keys[len(by)] = out["metric"].map(rank).astype(np.int64)
    order = keys.sort_values(list(keys.columns), kind="stable", na_position="last").index.to_numpy()
    return out.iloc[order].reset_index(drop=True)
