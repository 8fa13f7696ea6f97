"""The view ``rf__src`` over a file or relation read by DuckDB, and the long table's rules checked on it.

:func:`prepare_view` renames the caller's columns to the macros' names (query, item, rank|score, relevance,
segments ``rf_s0``...), with the value rules of every road (a float NaN is null, a DECIMAL a float, a CSV cell
text to parse). :func:`validate_source` checks the table's rules over the view in one scan of the units plus, only
when needed, a hash aggregation per uniqueness rule; the rules' words, example counts and class are declared in
:mod:`rankframe.table_rules`, and "ranks are exactly 1..n" is the macro ``rf__agg_is_1_to_n`` of
``sql/prepare.sql``. Only counts and example rows reach pandas.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pandas as pd

from ..core.columns import Columns
from ..core.errors import ValidationError, missing_columns_error
from ..tables.io._whitespace import NUMBER_TEXT
from ..tables.rules import (
    EXAMPLES,
    RULES,
    duplicate_item_rule,
    failure,
    missing_order_failure,
    nested_failure,
    not_numeric_failure,
    numeric_rule,
    ranking_column,
    unique_rank_rule,
)
from ..tables.units import segment_guesses
from .duckdb_engine import translate_error

_SRC = "rf__src"
_NUMBER_TYPES = (
    *("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT"),
    *("UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"),
    *("FLOAT", "DOUBLE", '"NULL"', "NULL"),
)
_FLOAT_TYPES = ("FLOAT", "DOUBLE")


def _quote(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _describe(con: duckdb.DuckDBPyConnection, rel: str) -> dict[str, str]:
    return dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {rel})").fetchall())


def _nested(type_name: str) -> bool:
    """A DuckDB type holding several values: a list or array (``INTEGER[]``), STRUCT, MAP or UNION."""
    return type_name.endswith("]") or type_name.startswith(("STRUCT", "MAP", "UNION"))


def value_sql(name: str, type_name: str) -> str:
    """The column ``name`` (of DuckDB type ``type_name``) as every road reads it: a float NaN is null (docs/inputs.md).

    The one SQL spelling of that rule: the view ``rf__src`` and compare's look at the system column call it.
    """
    q = _quote(name)
    if type_name in _FLOAT_TYPES:
        # not nullif(x, 'nan') nor isnan(x): a Parquet file's statistics leave NaN out of min/max, and DuckDB
        # (2.0) then folds those tests to false; isfinite is not folded (a NaN is neither finite nor inf)
        return f"CASE WHEN isfinite({q}) OR isinf({q}) THEN {q} END"
    return q


def _numeric(type_name: str) -> bool:
    return type_name in _NUMBER_TYPES or type_name.startswith("DECIMAL")


def prepare_view(
    con: duckdb.DuckDBPyConnection, rel: str, columns: Columns, by: Sequence[str], csv: bool
) -> tuple[str, dict[str, str]]:
    """The view ``rf__src`` with the macros' column names; returns the order column ('rank'/'score') and types.

    Missing columns raise the ValidationError of the pandas path (same message, did-you-mean hint).
    """
    types = _describe(con, rel)
    present = list(types)
    order_col = ranking_column(present, columns)
    order = None if order_col is None else "rank" if order_col == columns.rank else "score"
    required = [columns.query, columns.item, *by, columns.relevance]
    missing = [c for c in dict.fromkeys(required) if c not in types]
    if missing or order is None:
        err = missing_columns_error(missing, present)
        if order is None:
            err.failures.append(missing_order_failure(columns.rank, columns.score, present))
        raise ValidationError(err.failures)
    order_col = columns.rank if order == "rank" else columns.score

    ids = dict.fromkeys([columns.query, columns.item, *by])
    nested = [nested_failure(c, types[c]) for c in ids if _nested(types[c])]
    if nested:
        raise ValidationError(nested)

    def value(col: str) -> str:
        return value_sql(col, types[col])

    def number(col: str) -> str:
        # CSV cells are text: empty = null, anything else must be a number as text (NUMBER_TEXT: DuckDB's CAST
        # also reads '1_000' and '+-1'), else null here and a validation failure ("must be numeric"). The regex
        # costs ~0.3 s per 10M cells over the cast alone; a cheaper pre-test (no '_') let '+-1' through
        if csv:
            cell = f"trim({_quote(col)})"
            return f"CASE WHEN regexp_full_match({cell}, '{NUMBER_TEXT}') THEN TRY_CAST({cell} AS DOUBLE) END"
        return f"CAST({_quote(col)} AS DOUBLE)" if types[col].startswith("DECIMAL") else value(col)

    parts = [
        f"{value(columns.query)} AS query",
        f"{value(columns.item)} AS item",
        f"{number(order_col)} AS {order}",
        f"{number(columns.relevance)} AS relevance",
        *(f"{value(b)} AS rf_s{i}" for i, b in enumerate(by)),
    ]
    if csv:  # the text itself, for the rule "must be numeric"
        parts += [f"{_quote(order_col)} AS rf_ord_txt", f"{_quote(columns.relevance)} AS rf_rel_txt"]
    con.execute(f"CREATE OR REPLACE TEMP VIEW {_SRC} AS SELECT {', '.join(parts)} FROM {rel}")
    if csv:
        types = {**types, order_col: "DOUBLE", columns.relevance: "DOUBLE"}
    return order, types


def validate_source(
    con: duckdb.DuckDBPyConnection,
    columns: Columns,
    by: Sequence[str],
    order: str,
    types: dict[str, str],
    allow_duplicates: bool,
    csv: bool,
) -> bool:
    """Check the rules of the long table in one scan; raise ValidationError; return True when ranks are 1..n.

    The rules, their words and example rows are those of :data:`rankframe.table_rules.RULES`: ids not null,
    relevance and the order column numeric and finite, ranks integers >= 1 and unique per unit, items unique per
    unit unless ``allow_duplicates``. One GROUP BY over the units counts the row rules and proves ranks 1..n; a
    hash aggregation over (unit, item), and over (unit, rank) only when some unit's ranks are not 1..n, finds the
    repeats (DuckDB spills its hash tables under the memory limit); example rows are fetched only for a broken
    rule.
    """
    unit_names = [*by, columns.query]
    unit_cols = [*(f"rf_s{i}" for i in range(len(by))), "query"]
    unit = ", ".join(unit_cols)
    failures: list[dict] = []
    order_col = columns.rank if order == "rank" else columns.score
    for col, word in ((columns.relevance, "relevance"), (order_col, order)):
        if not _numeric(types[col]):
            failures.append(_not_numeric(con, col, word, types[col], by, columns))
    if failures:
        raise ValidationError(failures)
    rank_checks = order == "rank"
    # (column, words, condition marking the offending rows), in the words of rankframe.table_rules
    row_rules = {
        "null_query": (columns.query, RULES["not_null"].message(), "query IS NULL"),
        "null_item": (columns.item, RULES["not_null"].message(), "item IS NULL"),
        "bad_rel": (columns.relevance, RULES["relevance_finite"].message(), "NOT isfinite(relevance)"),
    }
    if rank_checks:
        row_rules["bad_rank"] = (
            columns.rank,
            RULES["rank_integer"].message(),
            "NOT isfinite(rank) OR rank < 1 OR rank <> floor(rank)",
        )
    else:
        row_rules["bad_score"] = (columns.score, RULES["score_finite"].message(), "NOT isfinite(score)")
    if csv:
        row_rules["text_rel"] = (
            columns.relevance,
            numeric_rule("relevance"),
            "relevance IS NULL AND nullif(trim(rf_rel_txt), '') IS NOT NULL",
        )
        row_rules["text_ord"] = (
            order_col,
            numeric_rule(order),
            f"{order} IS NULL AND nullif(trim(rf_ord_txt), '') IS NOT NULL",
        )
    keys = list(row_rules)
    # pass 1, one GROUP BY over the units (no hash table of the size of the table): the row rules, and whether
    # each unit's ranks are exactly 1..n, which proves them unique too. rf__agg_is_1_to_n (sql/prepare.sql) is the
    # test of 1..n, exact given unique ranks; uniqueness is then proven by the sum of the ranks' 64-bit hashes: a
    # multiset of n ranks in 1..n with the hash sum of 1..n (from a table of prefix sums over 1..max n) repeats a
    # rank only if two sums of hashes coincide (odds about 2**-64 per unit). Every other unit (gaps, or a failed
    # test) gets the exact check of pass 2.
    ranks = _RANKS_1_TO_N if rank_checks else "true"
    counts = ", ".join(f"count(*) FILTER (WHERE {cond}) AS {key}" for key, (_, _, cond) in row_rules.items())
    query = f"""
WITH units AS (
  SELECT {counts}, count(rf__r) AS n, {ranks} AS one_to_n, sum(hash(rf__r)) FILTER (WHERE rf__r IS NOT NULL) AS sh
  FROM (SELECT *, {_rank_int(rank_checks)} AS rf__r FROM {_SRC})
  GROUP BY {unit}
), prefix AS (
  SELECT i AS n, sum(hash(i)) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sh
  FROM range(1, (SELECT coalesce(max(n), 0) + 1 FROM units)) AS t(i)
), checked AS (
  SELECT u.*, u.one_to_n AND (u.n = 0 OR u.sh = p.sh) AS ok
  FROM units AS u LEFT JOIN prefix AS p ON u.n = p.n
)
SELECT {", ".join(f"sum({k})" for k in keys)}, count(*) FILTER (WHERE NOT ok), coalesce(bool_and(ok), true)
FROM checked"""
    try:
        row = con.execute(query).fetchone()
        values = list(row) if row is not None else []
        # pass 2: repeated (unit, item) keys, one slim hash aggregation (DuckDB spills it under the memory limit)
        dup_items = dup_item_rows = 0
        if not allow_duplicates:
            item_row = con.execute(
                f"SELECT count(*), sum(n) FROM (SELECT count(*) AS n FROM {_SRC} WHERE item IS NOT NULL "
                f"GROUP BY {unit}, item HAVING count(*) > 1)"
            ).fetchone()
            dup_items, dup_item_rows = item_row if item_row is not None else (0, 0)
        dup_ranks = dup_rank_rows = 0
        if rank_checks and values[len(keys)]:
            # some unit's ranks are not 1..n (gaps, a repeat, a rank that is not an integer): the exact check of
            # repeated (unit, rank) keys, counting their rows as pandas does
            rank_row = con.execute(
                f"SELECT count(*), sum(n) FROM (SELECT count(*) AS n FROM {_SRC} WHERE rank IS NOT NULL "
                f"GROUP BY {unit}, rank HAVING count(*) > 1)"
            ).fetchone()
            dup_ranks, dup_rank_rows = rank_row if rank_row is not None else (0, 0)
    except duckdb.OutOfMemoryException:
        raise  # the caller names the memory limit that was hit
    except duckdb.Error as e:
        raise translate_error(e) from None
    for (col, rule, cond), count in zip(row_rules.values(), values):
        if count:
            failures.append(failure(col, rule, int(count), _examples(con, cond, by, columns)))
    dense = values[len(keys) + 1]
    if dup_ranks:
        failures.append(
            failure(
                "rank",  # as the pandas schema names its frame-wide rank rule
                unique_rank_rule(unit_names),
                int(dup_rank_rows),
                _examples(
                    con,
                    f"({unit}, rank) IN (SELECT ({unit}, rank) FROM {_SRC} WHERE rank IS NOT NULL "
                    f"GROUP BY ALL HAVING count(*) > 1)",
                    by,
                    columns,
                ),
            )
        )
    if dup_items:
        failures.append(
            failure(
                columns.item,
                duplicate_item_rule(columns.item, by, columns.query, _separating_column(con, columns, by, types)),
                int(dup_item_rows),
                _examples(
                    con,
                    f"({unit}, item) IN (SELECT ({unit}, item) FROM {_SRC} WHERE item IS NOT NULL "
                    f"GROUP BY ALL HAVING count(*) > 1)",
                    by,
                    columns,
                ),
            )
        )
    if failures:
        raise ValidationError(failures)
    return bool(dense) and rank_checks


def _not_numeric(
    con: duckdb.DuckDBPyConnection, column: str, word: str, type_name: str, by: Sequence[str], columns: Columns
) -> dict:
    """The "must be numeric" failure of a typed column, in the pandas schema's words.

    Its non-null rows are offending; those that do not parse as numbers are shown first.
    """
    # rf__src names the value column by its role (relevance, rank or score)
    unparsable = f"{word} IS NOT NULL AND TRY_CAST({word} AS DOUBLE) IS NULL"
    row = con.execute(f"SELECT count({word}), count(*) FILTER (WHERE {unparsable}) FROM {_SRC}").fetchone()
    count, bad = (int(row[0]), int(row[1])) if row is not None else (0, 0)
    examples = _examples(con, unparsable if bad else f"{word} IS NOT NULL", by, columns)
    return not_numeric_failure(column, word, type_name, count, bad, examples, f"CAST({_quote(column)} AS DOUBLE)")


def _separating_column(
    con: duckdb.DuckDBPyConnection, columns: Columns, by: Sequence[str], types: dict[str, str]
) -> str | None:
    """The first other column of the raw table that makes its repeated (unit, item) rows unique (the pandas rule)."""
    guesses = segment_guesses(
        list(types), [columns.query, columns.item, columns.rank, columns.relevance, columns.score], by, columns.system
    )
    key = ", ".join(_quote(c) for c in [*by, columns.query, columns.item])
    for name in guesses:
        row = con.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM rf__raw WHERE {_quote(columns.item)} IS NOT NULL "
            f"GROUP BY {key}, {_quote(name)} HAVING count(*) > 1)"
        ).fetchone()
        if row is not None and row[0] == 0:
            return name
    return None


def _rank_int(rank_checks: bool = True) -> str:
    """A rank as a BIGINT when it is an integer in 1..2**31 - 1, else NULL (``rf__r``, over ``rf__src``).

    The argument of rf__agg_is_1_to_n, whose cast to BIGINT would fail on an infinite or huge rank.
    """
    if not rank_checks:
        return "CAST(NULL AS BIGINT)"
    return "CASE WHEN rank >= 1 AND rank < 2147483648 AND rank = floor(rank) THEN CAST(rank AS BIGINT) END"


#: a unit's aggregate: every rank an integer (rf__r not null) and the ranks exactly 1..n given unique ranks, by the
#: one SQL rule of the macros (rf__agg_is_1_to_n, sql/prepare.sql)
_RANKS_1_TO_N = "count(rank) = count(rf__r) AND rf__agg_is_1_to_n(rf__r)"


def _dense(con: duckdb.DuckDBPyConnection, n_segments: int) -> bool:
    """True when every unit's ranks are 1..n, given unique ranks (one GROUP BY over the units, no sort)."""
    unit = ", ".join([*(f"rf_s{i}" for i in range(n_segments)), "query"])
    row = con.execute(
        f"SELECT bool_and(ok) FROM (SELECT {_RANKS_1_TO_N} AS ok FROM (SELECT *, {_rank_int()} AS rf__r FROM {_SRC}) "
        f"GROUP BY {unit})"
    ).fetchone()
    return bool(row and row[0])


def _examples(con: duckdb.DuckDBPyConnection, cond: str, by: Sequence[str], columns: Columns) -> pd.DataFrame:
    """Up to ``EXAMPLES`` offending rows, with the caller's column names (only fetched when a rule is broken)."""
    shown = [("query", columns.query), ("item", columns.item)]
    shown += [(f"rf_s{i}", b) for i, b in enumerate(by)]
    cols = _describe(con, _SRC)
    for role in ("rank", "score"):
        if role in cols:
            shown.append((role, getattr(columns, role)))
    shown.append(("relevance", columns.relevance))
    sql = f"SELECT {', '.join(f'{c} AS {_quote(n)}' for c, n in shown)} FROM {_SRC} WHERE {cond} LIMIT {EXAMPLES}"
    return con.execute(sql).df()
