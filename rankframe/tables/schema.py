"""Pandera schemas for the long-format table, built from the column names.

``rankframe.schema(...)`` returns a plain :class:`pandera.pandas.DataFrameSchema` that users can reuse in
their own pipelines; :func:`validate` runs it lazily (every failure collected) and raises one
:class:`~rankframe.errors.ValidationError` that names each column, rule and a few offending rows. The rules'
words, example counts and error class are declared in :mod:`rankframe.table_rules` (``nested_failure``,
``not_numeric_failure``, ``numeric_rule`` and ``NULL_MEANS`` stay importable from here); the checks are pandas'.
One job, kept whole (~570 lines): the pandas checks of those rules, the whole-column proof that skips pandera on a
valid table (``_proven_valid``) and the translation of pandera's failure cases into one ValidationError.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..core.columns import Columns, column_list
from ..core.errors import ParameterError, ValidationError, check_unique_names, missing_columns_error
from . import units
from .rules import (
    EXAMPLES,
    NULL_MEANS,
    RULES,
    duplicate_item_rule,
    failure,
    missing_order_failure,
    nested_failure,
    not_numeric_failure,
    numeric_rule,
    ranking_column,
)

if TYPE_CHECKING:  # pandera is imported where a schema is built or a failure read (~1 s, and PySpark with it)
    from ._pandera import SchemaErrors, pa


def _is_numeric(s: pd.Series) -> bool:
    t = s.dtype
    return (
        pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t) and not pd.api.types.is_complex_dtype(t)
    )


# inferred kinds of an object id column that hold one type of value; "mixed-integer" is '1' next to 1, which the
# pandas engine would keep apart and SQL would merge, so it is rejected (as are "mixed" and unhashable values)
_ONE_KIND = {
    "string",
    "integer",
    "floating",
    "mixed-integer-float",
    "decimal",
    "bytes",
    "boolean",
    "date",
    "datetime",
    "datetime64",
    "time",
    "timedelta",
    "timedelta64",
    "period",
    "empty",
    "categorical",
}


#: Python values that hold several values: never an id or a segment (one rule on every road, docs/inputs.md)
_NESTED = (list, tuple, dict, set, frozenset, np.ndarray)


def nested_failures(df: pd.DataFrame, names: Sequence[str]) -> list[dict]:
    """:func:`nested_failure` for each column of ``names`` that holds a nested value.

    Only object and Arrow columns are looked at: the values of a column of one atomic kind are not visited.
    """
    failures = []
    for name in dict.fromkeys(names):
        col = df[name]
        dtype = col.dtype
        if isinstance(dtype, pd.ArrowDtype):
            import pyarrow as pa

            t = dtype.pyarrow_dtype
            if pa.types.is_nested(t):
                failures.append(nested_failure(name, str(t), len(col), df.iloc[:EXAMPLES]))
            continue
        if _id_kind(col) != "mixed":
            continue  # one atomic kind ("string", "integer", ...) or a typed column: nothing nested
        values = col.cat.categories.to_series() if isinstance(dtype, pd.CategoricalDtype) else col
        bad = values.map(lambda v: isinstance(v, _NESTED)).to_numpy(dtype=bool)
        if bad.any():
            found = type(values[bad].iloc[0]).__name__
            rows = df.iloc[np.flatnonzero(bad)[:EXAMPLES]] if values is col else df.iloc[:0]
            failures.append(nested_failure(name, found, int(bad.sum()), rows))
    return failures


def _id_kind(s: pd.Series) -> str:
    return units.inferred_kind(s)  # every value's kind (one rule with the inputs' id kinds: units.kinds)


def _one_id_type(s: pd.Series):
    kind = _id_kind(s)
    if kind == "typed" or kind in _ONE_KIND:
        return True
    # rare path: mark the rows whose value type is not the column's most common one (nulls are another rule's)
    types = s.map(lambda v: type(v).__name__ if not pd.isna(v) else None)
    common = types.value_counts().index[0]
    return types.isna() | (types == common)


def _id_checks(name: str) -> list[pa.Check]:
    from ._pandera import pa

    return [
        pa.Check(
            _one_id_type,
            element_wise=False,
            ignore_na=False,  # nulls pass (another rule's); pandera's dropna would copy the column
            name="one id type",
            error=RULES["one_id_type"].message(column=name),
        )
    ]


def _only_if_numeric(fn, passes=None):
    # a non-numeric column is reported once by the dtype rule; its value rules then pass. ``passes(s)`` is a
    # cheap whole-column test (True: every row passes); the row mask is built only when it says no or cannot tell
    def check(s: pd.Series):
        if not _is_numeric(s):
            return True
        if passes is not None and passes(s):
            return True
        return pd.Series(fn(units.as_float(s)), index=s.index)

    return check


def _number_column(role: str, fn, passes, name: str, rule: str):
    """The column of rank, score or relevance: numeric (the dtype rule, once), then its value rule ``rule``."""
    from ._pandera import pa

    return pa.Column(
        nullable=True,
        checks=[
            pa.Check(
                _is_numeric,
                element_wise=False,
                ignore_na=False,  # a dtype rule: pandera's dropna would copy the column for nothing
                name="numeric dtype",
                error=numeric_rule(role),
            ),
            pa.Check(
                _only_if_numeric(fn, passes),
                name=name,
                error=RULES[rule].message(),
                ignore_na=False,  # nulls pass the rule itself; pandera's dropna would copy the column
            ),
        ],
    )


def _integer_typed(s: pd.Series) -> bool:
    """Numpy or pandas-nullable integers (the values are integers and finite by type)."""
    dtype = s.dtype
    return (isinstance(dtype, np.dtype) and dtype.kind in "iu") or isinstance(
        dtype,
        (
            pd.Int8Dtype,
            pd.Int16Dtype,
            pd.Int32Dtype,
            pd.Int64Dtype,
            pd.UInt8Dtype,
            pd.UInt16Dtype,
            pd.UInt32Dtype,
            pd.UInt64Dtype,
        ),
    )


def _plain_float(s: pd.Series) -> bool:
    return isinstance(s.dtype, np.dtype) and s.dtype.kind == "f"


def _all_positive_integers(s: pd.Series) -> bool:
    """Every non-null value is an integer >= 1, tested in a few passes without a row mask (None: cannot tell)."""
    if not len(s):
        return True
    if _integer_typed(s):
        low = s.min()  # skips nulls; NA/NaN when every value is null
        return bool(pd.isna(low) or low >= 1)
    if _plain_float(s):
        v = s.to_numpy()
        with np.errstate(invalid="ignore"):
            return bool(np.nanmin(v) >= 1 and np.nanmax(v) < np.inf and np.array_equal(v, np.floor(v), equal_nan=True))
    return False


def _all_finite(s: pd.Series) -> bool:
    if _integer_typed(s):
        return True
    if _plain_float(s):
        return not np.isinf(s.to_numpy()).any()
    return False


def _positive_integer(v: np.ndarray):
    return np.isnan(v) | ((v >= 1) & (v == np.floor(v)) & np.isfinite(v))


def _finite_or_null(v: np.ndarray):
    return ~np.isinf(v)


def _row_mask(n: int, rows: np.ndarray) -> np.ndarray:
    ok = np.ones(n, dtype=bool)
    ok[rows] = False
    return ok


def _not_numeric(df: pd.DataFrame, column: str, word: str) -> dict:
    """:func:`not_numeric_failure` of a pandas column (the caller's row labels; nothing is modified)."""
    s = df[column]
    present = s.notna().to_numpy()
    if pd.api.types.is_bool_dtype(s.dtype):  # (pd.to_numeric keeps a bool column bool)
        bad, unparsable = present, np.zeros(len(s), dtype=bool)
        convert = f"df[{column!r}].astype(int)"
    else:
        values = s.astype(object)
        is_number = values.map(
            lambda v: isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        ).to_numpy(dtype=bool)
        bad = present & ~is_number
        if not bad.any():  # an object column that holds numbers only: the dtype alone is wrong
            bad = present
        text = values.map(lambda v: v if isinstance(v, (bool, np.bool_)) else str(v))
        unparsable = bad & pd.to_numeric(text, errors="coerce").isna().to_numpy()
        convert = f"pd.to_numeric(df[{column!r}])"
    rows = np.flatnonzero(unparsable if unparsable.any() else bad)[:EXAMPLES]
    return not_numeric_failure(
        column, word, str(s.dtype), int(bad.sum()), int(unparsable.sum()), df.iloc[rows], convert
    )


def not_numeric(df: pd.DataFrame, column: str, word: str) -> dict | None:
    """The "must be numeric" failure of a pandas value column (``word``: relevance, rank or score), or None.

    The rule every road applies to a value column (a decimal column is a number: :func:`numbers_as_float` first):
    a column of text, of Python objects or of bools is refused, its unparsable values shown first; a null is
    a null (``relevance``: unjudged). For a reading outside the schema check (the subtopic qrels of
    ``intent_engine.split_qrels``).
    """
    return None if _is_numeric(df[column]) else _not_numeric(df, column, word)


def schema(
    columns: Columns | dict | None = None,
    *,
    by: str | Sequence[str] | None = (),
    order: str | None = "rank",
    allow_duplicates: bool = False,
    require_relevance: bool = True,
    scores: bool = False,
) -> pa.DataFrameSchema:
    """Build the pandera schema of a long-format ranking table.

    Parameters
    ----------
    columns : Columns or dict, optional
        Column names (default ``query``, ``item``, ``rank``, ``relevance``, ``score``), as a :class:`Columns` or a
        dict of roles to names such as ``{"query": "user_id"}``.
    by : str or sequence of str
        Segment column(s) (a str is one column): the unit of evaluation is (segment values, query), so
        uniqueness rules apply per unit.
    order : {"rank", "score", None}
        Which column orders the ranked list (``rank`` wins when both exist); None for judgments (no order).
    allow_duplicates : bool
        Keep repeated (query, item) rows instead of rejecting them.
    require_relevance : bool
        Whether the relevance column must be present (False for a run checked before joining qrels).
    scores : bool
        Whether the score column is read even when ``rank`` orders the lists (a fusion method that adds the scores):
        it then has the score rules too (numeric, finite).

    Returns
    -------
    pandera.pandas.DataFrameSchema

    Examples
    --------
    >>> import pandas as pd, rankframe
    >>> df = pd.DataFrame({"query": [1, 1], "item": ["a", "b"], "rank": [1, 2], "relevance": [1, 0]})
    >>> rankframe.schema().validate(df).equals(df)
    True
    """
    from ._pandera import pa

    c = Columns.coerce(columns, function="schema")
    by = column_list(by, "schema")
    unit = [*by, c.query]
    cols: dict[str, pa.Column] = {
        c.query: pa.Column(nullable=False, name=c.query, checks=_id_checks(c.query)),
        c.item: pa.Column(nullable=False, name=c.item, checks=_id_checks(c.item)),
    }
    for b in by:
        cols[b] = pa.Column(nullable=True, name=b, checks=_id_checks(b))
    if require_relevance:
        cols[c.relevance] = _number_column("relevance", _finite_or_null, _all_finite, "finite", "relevance_finite")
    frame_checks = []
    if order == "rank":
        cols[c.rank] = _number_column(
            "rank", _positive_integer, _all_positive_integers, "positive integer", "rank_integer"
        )

        def unique_rank(df: pd.DataFrame):
            if not _is_numeric(df[c.rank]):
                return True
            groups = units.group_codes(df, unit)
            dup = units.ranked_order(df, groups, c.rank).duplicate_rank_rows
            return True if not len(dup) else pd.Series(_row_mask(len(df), dup), index=df.index)

        frame_checks.append(
            pa.Check(unique_rank, name=f"unique:{c.rank}", error=RULES["unique_rank"].message(unit=unit))
        )
    if order == "score" or scores:
        cols[c.score] = _number_column("score", _finite_or_null, _all_finite, "finite", "score_finite")
    if not allow_duplicates:

        def unique_item(df: pd.DataFrame):
            groups = units.group_codes(df, unit)
            rank_col = c.rank if order == "rank" and _is_numeric(df[c.rank]) else None  # noqa: B023
            dup = units.duplicate_item_rows(df, groups, c.item, rank_col)
            return True if not len(dup) else pd.Series(_row_mask(len(df), dup), index=df.index)

        frame_checks.append(
            pa.Check(
                unique_item,
                name=f"unique:{c.item}",
                error=duplicate_item_rule(c.item, by, c.query),
            )
        )
    return pa.DataFrameSchema(cols, checks=frame_checks, strict=False, name="rankframe long table")


def numbers_as_float(frame: pd.DataFrame, columns: Columns) -> pd.DataFrame:
    """``frame`` with its rank, score and relevance columns of decimals as float64 (the rule of every road).

    A decimal column (Python ``Decimal`` objects, an Arrow ``decimal128``, DuckDB's and Spark's DECIMAL) is a
    number: it is read as a float, as the DuckDB and Spark roads compute it. ``frame`` itself is returned when
    no column holds decimals; otherwise a shallow copy (the caller's frame is never modified).
    """
    if not frame.columns.is_unique:
        return frame  # the validation names the repeated column
    names = [n for n in dict.fromkeys((columns.rank, columns.score, columns.relevance)) if n in frame.columns]
    decimal = [n for n in names if _decimal(frame[n])]
    if not decimal:
        return frame
    out = frame.copy(deep=False)
    for n in decimal:
        out[n] = frame[n].astype("float64")
    return out


def _decimal(col: pd.Series) -> bool:
    dtype = col.dtype
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow

        return pyarrow.types.is_decimal(dtype.pyarrow_dtype)
    return dtype == np.dtype(object) and pd.api.types.infer_dtype(col, skipna=True) == "decimal"


def validate(
    df: pd.DataFrame,
    columns: Columns | dict | None = None,
    *,
    by: str | Sequence[str] | None = (),
    allow_duplicates: bool = False,
    require_relevance: bool = True,
    table: str = "ranking table",
    ranked: bool = True,
    scores: bool = False,
) -> None:
    """Check a long-format table against every rule at once; raise :class:`ValidationError` if any fails.

    ``df`` is a pandas DataFrame (:func:`rankframe.validate` takes any table :func:`rankframe.evaluate` takes, and
    reads it with :func:`rankframe.inputs.to_pandas` first); it is never modified. Decimal numbers are read as
    floats (:func:`numbers_as_float`).
    ``columns`` is a :class:`Columns` or a dict such as ``{"query": "user_id"}``; ``by`` a segment column or a
    list of them (as :func:`rankframe.evaluate` reads them).
    ``table`` names the table in the message (``"qrels table"`` for judgments); ``ranked=False`` checks a
    table without a rank or score column (judgments). ``scores=True`` also holds the score column to the score rules
    when ``rank`` orders the lists (:func:`rankframe.fuse` with a method that adds the scores).

    Examples
    --------
    >>> import pandas as pd
    >>> judgments = pd.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "relevance": [1, float("inf")]})
    >>> try:
    ...     validate(judgments, table="qrels table", ranked=False)
    ... except ValidationError as e:
    ...     print(e.failures[0]["column"], "-", e.failures[0]["rule"])
    relevance - relevance must be finite (null = unjudged)
    """
    c = Columns.coerce(columns, function="validate")
    by = column_list(by, "validate")
    if not isinstance(df, pd.DataFrame):
        raise ParameterError(
            f"The 'df' parameter of rankframe.schema.validate must be a pandas DataFrame. Got {type(df).__name__} "
            "instead; rankframe.validate takes any table (Arrow, polars, a DuckDB relation, a file path).",
            owner="rankframe.schema.validate",
            parameter="df",
        )
    df = numbers_as_float(df, c)  # as rankframe.inputs.to_pandas reads every table: a pandas caller gets the same
    present = list(df.columns)
    check_unique_names(present, table)
    order_col = ranking_column(present, c) if ranked else None
    required = [c.query, c.item, *by] + ([c.relevance] if require_relevance else [])
    missing = [name for name in dict.fromkeys(required) if name not in present]
    if missing or (order_col is None and ranked):
        failures = missing_columns_error(missing, present, table).failures
        if order_col is None and ranked:
            failures.append(missing_order_failure(c.rank, c.score, present))
        raise ValidationError(failures, table=table)
    nested = nested_failures(df, [c.query, c.item, *by])
    if nested:  # lists or dicts as ids: the other rules (grouping, uniqueness) would only give false messages
        raise ValidationError(nested, table=table)
    order = None if order_col is None else "rank" if order_col == c.rank else "score"
    with units.shared():  # the fast proof and the checks share the engine's codes and orders (one call's memo)
        scores = scores and order == "rank" and c.score in present
        if _proven_valid(df, c, by, order, allow_duplicates, require_relevance, scores):
            return
        sch = schema(
            c, by=by, order=order, allow_duplicates=allow_duplicates, require_relevance=require_relevance, scores=scores
        )
        # validate a shallow view with a 0..n-1 index: failure cases then name row positions, so example rows are
        # right even when the caller's index repeats (pd.concat without ignore_index); the data is not copied
        view = df.copy(deep=False)
        view.index = pd.RangeIndex(len(df))
        units.alias(view, df)  # the checks' codes and orders are the engine's (computed once per call)
        from ._pandera import SchemaErrors

        try:
            sch.validate(view, lazy=True, inplace=True)
        except SchemaErrors as err:
            error = _explain_numeric(_to_validation_error(df, err, table), df, c)
            raise _suggest_segment(error, df, c, by, order) from None


def _explain_numeric(error: ValidationError, df: pd.DataFrame, c: Columns) -> ValidationError:
    """Each "must be numeric" failure with the column's dtype, its offending rows and count, and the fix."""
    plain = {numeric_rule(word): (getattr(c, word), word) for word in NULL_MEANS}
    if not any(f["rule"] in plain for f in error.failures):
        return error
    failures = [_not_numeric(df, *plain[f["rule"]]) if f["rule"] in plain else f for f in error.failures]
    return ValidationError(failures, table=error.table)


def _suggest_segment(
    error: ValidationError, df: pd.DataFrame, c: Columns, by: Sequence[str], order: str | None
) -> ValidationError:
    """The repeated-item failure names the column its rows differ in (``by=`` forgotten), when one separates them."""
    plain = duplicate_item_rule(c.item, by, c.query)
    if not any(f["rule"] == plain for f in error.failures):
        return error
    guesses = units.segment_guesses(list(df.columns), [c.query, c.item, c.rank, c.relevance, c.score], by, c.system)
    if not guesses:
        return error
    rank_col = c.rank if order == "rank" and _is_numeric(df[c.rank]) else None
    rows = units.duplicate_item_rows(df, units.group_codes(df, [*by, c.query]), c.item, rank_col)
    segment = units.separating_column(df, rows, [*by, c.query, c.item], guesses)
    if segment is None:
        return error
    rule = duplicate_item_rule(c.item, by, c.query, segment)
    failures = [{**f, "rule": rule} if f["rule"] == plain else f for f in error.failures]
    return ValidationError(failures, table=error.table)


def _proven_valid(
    df: pd.DataFrame,
    c: Columns,
    by: Sequence[str],
    order: str | None,
    allow_duplicates: bool,
    require_relevance: bool,
    scores: bool = False,
) -> bool:
    """True when whole-column tests prove that the table passes every rule of :func:`schema` (no row masks).

    The schema's rules, each decided here from what the engine computes anyway (the unit codes, the ranked
    order, the item grouping) or from the dtype: ids not null and of one type; relevance, rank and score
    numeric and finite; ranks integers >= 1, unique per unit; items unique per unit. False means "not
    proven": pandera then runs the schema and reports every failure with its rows.
    """
    unit = [*by, c.query]
    for name in [c.query, c.item, *by]:
        col = df[name]
        if name not in by and _has_nulls(col):
            return False
        if _id_kind(col) not in _ONE_KIND | {"typed"}:
            return False
    value_columns = ([c.relevance] if require_relevance else []) + ([c.score] if order == "score" or scores else [])
    for name in value_columns:
        col = df[name]
        if not (_is_numeric(col) and (_all_finite(col) or not np.isinf(units.as_float(col)).any())):
            return False
    groups = units.group_codes(df, unit)
    lists = None
    if order == "rank":
        col = df[c.rank]
        if not _is_numeric(col):
            return False
        # a dense order (ranks exactly 1..n in every unit) proves "integer >= 1" and "unique" at once; the
        # engine's own packed sort proves it when it applies (units.dense_lists), else the ranked order
        if require_relevance:
            lists = units.dense_lists(df, groups, c.rank, c.relevance, c.item)
        if lists is None:
            ranked = units.ranked_order(df, groups, c.rank)
            if not ranked.dense and (len(ranked.duplicate_rank_rows) or not _all_positive_integers(col)):
                return False
    if not allow_duplicates:
        rank_col = c.rank if order == "rank" else None
        if len(units.duplicate_item_rows(df, groups, c.item, rank_col, lists=lists)):
            return False
    return True


def _has_nulls(col: pd.Series) -> bool:
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iub":
        return False  # numpy integers and booleans cannot hold a null
    return bool(col.isna().any())


def _to_validation_error(df: pd.DataFrame, err: SchemaErrors, table: str = "ranking table") -> ValidationError:
    fc = err.failure_cases
    failures = []
    frame_level = fc["schema_context"] == "DataFrameSchema"
    # a frame-wide rule fails once per row, but pandera lists every column of the row: name its key columns
    fc = fc.assign(column=fc["column"].where(~frame_level, "<rows>"))
    fc = fc.drop_duplicates(["column", "check", "index"])
    for (column, check), part in fc.groupby(["column", "check"], sort=False, dropna=False):
        column = column if isinstance(column, str) else "<table>"
        if column == "<rows>":
            column = str(check).split(" must", 1)[0]  # frame rules' messages start with their column
        positions = np.unique(pd.to_numeric(part["index"], errors="coerce").dropna().to_numpy(np.int64))
        rows = df.iloc[positions[:EXAMPLES]] if len(positions) else pd.DataFrame()
        rule = _rule_text(err, column, check)
        count = len(positions) if len(positions) else len(part)
        failures.append(failure(column, rule, count, rows))
    return ValidationError(failures, table=table)


_BUILTIN_RULES = {"not_nullable": RULES["not_null"].message(), "column_in_dataframe": "column is missing"}


def _rule_text(err: SchemaErrors, column: str, check: str) -> str:
    if check in _BUILTIN_RULES:
        return _BUILTIN_RULES[check]
    for e in err.schema_errors:
        chk = getattr(e, "check", None)
        name = getattr(chk, "name", None) or str(chk)
        if name == check or str(check) == str(chk):
            return getattr(chk, "error", None) or str(check)
    return str(check)
