"""The beyond-accuracy engine: check the extra inputs, lay the lists out over one item index, run the kernels.

The rules that need no data (a metric needs an input it was not given, an input no metric reads, set-level metrics
with ``per_query``/``agg``) are the family's, in :mod:`rankframe.beyond.arguments`; ``check_catalog`` and
``check_train`` hold the rules of the inputs themselves; ``evaluate`` returns the per-list values (the per-query
contract of the other engines) and the set-level rows (one per segment).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..beyond import input_rules as rules
from ..beyond.arguments import is_set_level, reads_history, reads_relevance
from ..beyond.declare import BeyondSpec
from ..beyond.lists import Features, Lists, Train, count_distinct, item_index
from ..core.columns import Columns
from ..core.errors import ParameterError
from ..measures.names import Measure
from ..measures.registry import BEYOND_KERNELS, beyond_hook
from ..stats.aggregate import metric_labels
from ..tables import inputs, units
from ..tables.prepare import ranked_rows
from ..tables.units.order import positions_in_lists

#: the columns of the checked inputs (check_train, check_features): names of our own, never a user's
QUERY, ITEM, WEIGHT, FEATURE, VALUE = "rf__query", "rf__item", "rf__weight", "rf__feature", "rf__value"


def _check_ids(ids: pd.Series, name: str, items: pd.Series, item_col: str) -> None:
    """No null ids, and every id of the same kind as the recommendations' item column (all of them looked at)."""
    where = rules.where(name, item_col)
    null = ids.isna().to_numpy()
    if null.any():
        raise rules.null_ids_error(where, int(null.sum()), f"positions {np.flatnonzero(null)[:5].tolist()}")
    mine, theirs = units.id_kind(ids), units.id_kind(items)
    if rules.kinds_clash(mine, theirs):
        raise rules.id_kind_error(where, mine, theirs, _example(ids, theirs), items.dropna().iloc[0], item_col)


def _example(ids: pd.Series, theirs: str) -> object:
    """An id of ``ids`` whose kind is not ``theirs`` (the first id when every one is: booleans, dates)."""
    odd = ids[ids.map(units.value_kind) != theirs]
    return (odd if len(odd) else ids).iloc[0]


def check_catalog(catalog: object, items: pd.Series, item_col: str) -> pd.Series:
    """``catalog=`` as a Series of distinct, non-null ids of the item column's kind."""
    if isinstance(catalog, (str, bytes, dict)) or catalog is None:
        raise rules.catalog_type_error(catalog)
    if isinstance(catalog, pd.Series):
        ids = catalog.reset_index(drop=True)
    elif isinstance(catalog, (list, tuple, np.ndarray, pd.Index, set, frozenset, range)):
        ids = pd.Series(list(catalog) if isinstance(catalog, (set, frozenset)) else catalog)
    else:
        try:
            frame = inputs.to_pandas(catalog, owner="evaluate", name="catalog")
        except ParameterError:
            raise rules.catalog_type_error(catalog) from None
        if frame.shape[1] != 1:
            raise rules.catalog_columns_error(list(frame.columns))
        ids = frame.iloc[:, 0].reset_index(drop=True)
    if len(ids) == 0:
        raise rules.empty_error("catalog")
    _check_ids(ids, "catalog", items, item_col)
    repeated = ids[ids.duplicated()]
    if len(repeated):
        raise rules.repeated_catalog_error(len(repeated), repeated.head(5).tolist())
    return ids


def check_train(train: object, columns: Columns, items: pd.Series) -> pd.DataFrame:
    """``train=`` checked, as a new frame ``[rf__query, rf__item, rf__weight]`` (1 per row without a weight column).

    The names are our own: a query or item column named ``weight`` is never read as the weights
    (``input_rules.optional_column``).
    """
    frame = inputs.to_pandas(train, owner="evaluate", name="train")
    wanted = [columns.query, columns.item]
    _require(frame, "train", wanted)
    null_query = frame[columns.query].isna().to_numpy()
    if null_query.any():
        raise rules.null_train_query_error(
            columns.query, int(null_query.sum()), f"rows {np.flatnonzero(null_query)[:5].tolist()}"
        )
    _check_ids(frame[columns.item], "train", items, columns.item)
    weight = rules.optional_column("train", list(frame.columns), columns.query, columns.item)
    _check_numbers(frame, "train", weight, wanted, negative=False)
    return pd.DataFrame(
        {
            QUERY: frame[columns.query].to_numpy(),
            ITEM: frame[columns.item].to_numpy(),
            WEIGHT: np.ones(len(frame)) if weight is None else frame[weight].to_numpy(np.float64),
        },
        copy=False,
    )


def _require(frame: pd.DataFrame, name: str, wanted: list[str]) -> None:
    """A long input (train=, features=) has its columns, and features= its rows.

    An empty train= is a history without interactions: every item is cold (popularity 0; RecTools gives ARP 0),
    not an error (issue 33).
    """
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise rules.input_columns_error(name, wanted, missing, list(frame.columns))
    if len(frame) == 0 and name != "train":  # an empty train= is a history without interactions (every item cold)
        raise rules.empty_error(name)


def _check_numbers(frame: pd.DataFrame, name: str, column: str | None, ids: list[str], *, negative: bool) -> None:
    """The optional numeric column of a long input: finite numbers (and >= 0 unless ``negative``), else the rows."""
    if column is None:
        return
    values = frame[column]
    ok = pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)
    numbers = pd.to_numeric(values, errors="coerce").to_numpy(np.float64) if ok else None
    if numbers is None:
        bad = np.ones(len(frame), dtype=bool)
    else:
        bad = ~(np.isfinite(numbers) if negative else np.isfinite(numbers) & (numbers >= 0))
    if bad.any():
        raise rules.bad_number_error(name, int(bad.sum()), frame.loc[bad, [*ids, column]].head(5).to_string())


def check_history(measures: Sequence[Measure], train: pd.DataFrame, queries: pd.Series, query_col: str) -> None:
    """A metric reading each query's own history (:func:`reads_history`): train='s query ids of the table's kind.

    ``train`` is :func:`check_train`'s frame.
    """
    readers = [str(m) for m in measures if reads_history(m)]
    if not readers:
        return
    ids = train[QUERY]
    mine, theirs = units.id_kind(ids), units.id_kind(queries)
    if rules.kinds_clash(mine, theirs):
        raise rules.history_kind_error(
            readers, query_col, mine, theirs, _example(ids, theirs), queries.dropna().iloc[0]
        )


def check_features(features: object, columns: Columns, items: pd.Series) -> pd.DataFrame:
    """``features=`` checked, as a new frame ``[rf__item, rf__feature, rf__value]`` (1 per row without values).

    Ids of the item column's kind, each (item, feature) pair once; a column ``value`` that is the item column holds
    ids, never values.
    """
    frame = inputs.to_pandas(features, owner="evaluate", name="features")
    if columns.item == rules.FEATURE:
        raise rules.feature_is_item_error()
    wanted = [columns.item, rules.FEATURE]
    _require(frame, "features", wanted)
    null_feature = frame[rules.FEATURE].isna().to_numpy()
    if null_feature.any():
        raise rules.null_feature_error(int(null_feature.sum()), f"rows {np.flatnonzero(null_feature)[:5].tolist()}")
    _check_ids(frame[columns.item], "features", items, columns.item)
    value = rules.optional_column("features", list(frame.columns), columns.query, columns.item)
    _check_numbers(frame, "features", value, wanted, negative=True)
    repeated = frame.duplicated(wanted, keep=False).to_numpy()
    if repeated.any():
        rows = frame.loc[repeated, wanted].head(5)
        raise rules.repeated_pairs_error(int(repeated.sum()), rows.to_string())
    return pd.DataFrame(
        {
            ITEM: frame[columns.item].to_numpy(),
            FEATURE: frame[rules.FEATURE].to_numpy(),
            VALUE: np.ones(len(frame)) if value is None else frame[value].to_numpy(np.float64),
        },
        copy=False,
    )


def _feature_arrays(frame: pd.DataFrame, codes: np.ndarray, n_items: int) -> Features:
    feature_codes, names = pd.factorize(frame[FEATURE])
    return Features(
        item=codes,
        feature=feature_codes.astype(np.int64),
        value=frame[VALUE].to_numpy(np.float64),
        n_features=len(names),
        known=np.bincount(codes, minlength=n_items) > 0,
    )


def grades(df: pd.DataFrame, columns: Columns, measures: Sequence[Measure]) -> np.ndarray | None:
    """The float grade of each row of ``df`` (NaN: unjudged) when a metric reads it (None otherwise)."""
    if not reads_relevance(measures):
        return None
    if columns.relevance not in df.columns:  # reachable with validate=False
        names = ", ".join(str(m) for m in measures if isinstance(m.spec, BeyondSpec) and m.spec.reads_relevance)
        raise ParameterError(
            f"{names} reads the relevance column {columns.relevance!r}, which is not in the table's columns "
            f"{list(df.columns)}",
            parameter="columns",
            expected="a relevance column in the table",
            got=columns.relevance,
        )
    return pd.to_numeric(df[columns.relevance], errors="coerce").to_numpy(np.float64)


def _history(train: pd.DataFrame, keys: pd.DataFrame, query: str) -> np.ndarray:
    """Per unit: the code of its query among train='s queries (pd.factorize's order, as ``Train``), -1 without."""
    _, train_queries = pd.factorize(train[QUERY])
    return pd.Index(train_queries).get_indexer(keys[query]).astype(np.int64)


def segments(keys: pd.DataFrame, by: Sequence[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Segment code of each unit (sorted, nulls last, as the means) and one row of segment values per code."""
    if not by:
        return np.zeros(len(keys), dtype=np.int64), pd.DataFrame(index=range(1))
    codes = keys.groupby(list(by), sort=True, dropna=False, observed=True).ngroup().to_numpy(np.int64)
    _, first = np.unique(codes, return_index=True)
    return codes, keys[list(by)].iloc[first].reset_index(drop=True)


def _train_arrays(frame: pd.DataFrame, codes: np.ndarray, n_items: int, order: np.ndarray, users: np.ndarray) -> Train:
    weight = frame[WEIGHT].to_numpy(np.float64)
    query_codes, query_ids = pd.factorize(frame[QUERY])
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


class Checked(NamedTuple):
    """The extra inputs after :func:`check_inputs` (None: not given)."""

    catalog: pd.Series | None
    train: pd.DataFrame | None
    features: pd.DataFrame | None


def check_inputs(
    df: pd.DataFrame,
    columns: Columns,
    measures: Sequence[Measure],
    *,
    train: object = None,
    catalog: object = None,
    features: object = None,
) -> Checked:
    """The family's rules of the asked metrics' options and of the extra inputs, in one order on every engine.

    The rules between a metric's options (its module's ``check_rules``), then ``catalog=``, ``train=`` and
    ``features=`` (:func:`check_catalog`, :func:`check_train`, :func:`check_features`), then a metric's own rule of
    features='s values (its ``check_features``: Calibration's shares), then the history's query ids
    (:func:`check_history`). The pandas engine (:func:`lists_of`) and the DuckDB engine
    (:func:`rankframe.engines.duckdb_beyond.evaluate`) call it, so a table with two faults says the same first one.
    """
    for m in measures:
        option_rules = beyond_hook(m.spec.name, "check_rules")
        if option_rules is not None:
            option_rules(**m.kw)
    items = df[columns.item]
    catalog_ids = None if catalog is None else check_catalog(catalog, items, columns.item)
    train_frame = None if train is None else check_train(train, columns, items)
    feature_frame = None if features is None else check_features(features, columns, items)
    if feature_frame is not None:
        for m in measures:
            check = beyond_hook(m.spec.name, "check_features")
            if check is not None:
                check(feature_frame[VALUE].to_numpy(np.float64))
    if train_frame is not None:
        check_history(measures, train_frame, df[columns.query], columns.query)
    return Checked(catalog_ids, train_frame, feature_frame)


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
    catalog_ids, train_frame, feature_frame = check_inputs(
        df, columns, measures, train=train, catalog=catalog, features=features
    )
    grade = grades(df, columns, measures)
    groups, rows, offsets = ranked_rows(df, columns, by)
    seg_of_unit, seg_keys = segments(groups.keys, by)
    parts = [items.to_numpy()[rows]]
    parts += [] if catalog_ids is None else [catalog_ids.to_numpy()]
    parts += [] if train_frame is None else [train_frame[ITEM].to_numpy()]
    parts += [] if feature_frame is None else [feature_frame[ITEM].to_numpy()]
    codes, n_items, order = item_index(*parts)
    train_codes = codes[1 + (catalog_ids is not None)] if train_frame is not None else None
    unit_user, train_users = None, np.empty(0, dtype=np.int64)
    if train_frame is not None and any(reads_history(m) for m in measures):
        # each list's query and train's queries in one index: a query's own history (Calibration)
        (unit_user, train_users), _, _ = item_index(
            groups.keys[columns.query].to_numpy(), train_frame[QUERY].to_numpy()
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
        else _train_arrays(train_frame, train_codes, n_items, order, train_users),
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
