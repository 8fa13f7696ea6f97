"""The rules of the family's extra inputs ``train=``, ``catalog=``, ``features=``, each declared once.

As the long table's rules (``rankframe.table_rules``), every rule of an extra input is one :class:`InputRule` in
:data:`RULES`: its name, the inputs and the column it is about, its words, its error class and the stable code its
SQL error starts with. Each face keeps its own test of the rule and takes the words from here:

- ``pandas`` and ``duckdb``: ``rankframe.engines.beyond_engine`` on the inputs as pandas frames (the DuckDB engine
  checks them in Python before its SQL);
- ``spark``: ``rankframe.spark.beyond``, Spark jobs that count the offending rows of a Spark input;
- ``sql``: the check macros ``rf__beyond_check_<input>`` generated into ``sql/beyond.sql`` from :data:`RULES`
  (``python -m rankframe.beyond.sqlgen``), which every table macro ``rf_<name>`` runs before its rows;
- ``portable``: ``rankframe.sql.render``, which sees table and column names only: the rules about names (an item
  column named ``feature``); the rules about rows are not checked there (docs/warehouse.md "What render cannot
  check");
- the CLI reads its files and calls ``rankframe.evaluate``: the pandas face's words, in its own option names.

An input's optional column (train='s ``weight``, features='s ``value``) is read only when it is not one of the
input's id columns (:func:`optional_column`): a query or item column named ``weight`` is never read as weights.
``tests/hostile/test_beyond_input_rules.py`` breaks each rule on each face it declares.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ParameterError, RankframeError

#: train='s optional weight column, features='s feature and optional value columns (fixed names: SQL cannot take
#: a name for them from a table, so every face reads the same ones)
WEIGHT, FEATURE, VALUE = "weight", "feature", "value"
INPUT_NAMES = ("train", "catalog", "features")
#: the faces an input rule can declare
FACES = ("pandas", "duckdb", "spark", "sql", "portable")
#: the faces that look at the inputs' rows (the portable statement names tables it cannot look at: docs/warehouse.md)
ALL = ("pandas", "duckdb", "spark", "sql")
PYTHON = ("pandas", "duckdb", "spark")

#: what an empty input should hold
#: (an empty train= is no error: a history without interactions, every item cold; RecTools gives ARP 0)
EMPTY = {
    "catalog": "it lists the items that could be recommended",
    "features": "it holds the items' (item, feature, value) rows",
}
#: the words of an id kind (rankframe.units.id_kind)
KIND_WORDS = {"number": "numbers", "text": "text", "other": "neither numbers nor text"}


@dataclass(frozen=True)
class InputRule:
    """One rule of the extra inputs.

    ``inputs`` are the inputs it applies to, ``column`` the column it is about (``query``, ``item``, ``weight``,
    ``feature``, ``value``; ``table`` for the input as a whole), ``text`` its words (a template over the rule's
    fields), ``faces`` the faces that check it (:data:`FACES`), ``code`` the stable code of its SQL error
    (``rf:param``: an argument of the call breaks it) and ``error`` its class on every face.
    """

    name: str
    inputs: tuple[str, ...]
    column: str
    text: str
    faces: tuple[str, ...] = ALL
    code: str = "rf:param"
    error: type[RankframeError] = ParameterError

    def message(self, **fields: Any) -> str:
        """The rule's words, fields filled in."""
        return self.text.format(**fields)

    def failure(self, **fields: Any) -> RankframeError:
        """The rule's error (raise it)."""
        return self.error(self.message(**fields))

    def fields(self) -> list[str]:
        """The names of the fields its words take."""
        return [f for _, f, _, _ in string.Formatter().parse(self.text) if f]


#: every rule of the extra inputs, in the order each face checks them
RULES: dict[str, InputRule] = {
    r.name: r
    for r in (
        InputRule(
            "catalog_type",
            ("catalog",),
            "table",
            "The 'catalog' parameter of evaluate must be a sequence of item ids or a one-column table. "
            "Got {got} instead.",
            faces=PYTHON,  # SQL names a table
        ),
        InputRule(
            "catalog_columns",
            ("catalog",),
            "table",
            "catalog= as a table must have one column (the item ids); it has {columns}",
            faces=("pandas", "duckdb", "spark", "sql"),
        ),
        InputRule(
            "columns",
            ("train", "features"),
            "table",
            "{input}= must have {wanted_words} {wanted} (and optionally {optional!r}); {missing} not in its columns "
            "{present}",
            faces=ALL,  # portable: the warehouse's own error (a missing column)
        ),
        InputRule(
            "feature_is_item",
            ("features",),
            "feature",
            "features= reads its feature names from the column 'feature', which is the ranking table's item column "
            "here: name the item column otherwise (columns={{'item': ...}} and the same name in features=)",
            faces=("pandas", "duckdb", "spark", "portable"),  # SQL macros: the item column is always 'item'
        ),
        InputRule("empty", tuple(EMPTY), "table", "{input}= is empty: {what}"),
        InputRule(
            "null_query",
            ("train",),
            "query",
            "train= has {count} null id(s) in {column!r} ({shown})",
        ),
        InputRule(
            "null_ids",
            INPUT_NAMES,
            "item",
            "{where} has {count} null item id(s) ({shown}); item ids are never null",
        ),
        InputRule(
            "id_kind",
            INPUT_NAMES,
            "item",
            "the item ids of {where} are {mine} (e.g. {mine_example}) but those of the ranking table's column "
            "{item!r} are {theirs} (e.g. {their_example}): ids of different kinds never match; convert one of them "
            "first",
            faces=ALL,  # portable: the warehouse's error, or no match (docs)
        ),
        InputRule(
            "null_feature",
            ("features",),
            "feature",
            "features= has {count} null feature name(s) in 'feature' ({shown})",
        ),
        InputRule(
            "weight",
            ("train",),
            "weight",
            "train='s column 'weight' must hold finite numbers >= 0 (0 = a known item without interactions); "
            "{count} row(s) do not, e.g.\n{rows}",
        ),
        InputRule(
            "value",
            ("features",),
            "value",
            "features='s column 'value' must hold finite numbers (a pair not listed is 0); {count} row(s) do not, "
            "e.g.\n{rows}",
        ),
        InputRule(
            "repeated_ids",
            ("catalog",),
            "item",
            "catalog= lists {count} item id(s) more than once, e.g. {examples}: give each item once",
        ),
        InputRule(
            "repeated_pairs",
            ("features",),
            "item",
            "features= lists {count} row(s) of the same (item, feature) pair, e.g.\n{rows}\ngive each pair once",
        ),
        InputRule(
            "history_kind",
            ("train",),
            "query",
            "{readers} reads each query's history in train=, but train='s query ids in {query!r} are {mine} (e.g. "
            "{mine_example}) and the ranking table's are {theirs} (e.g. {their_example}): ids of different kinds "
            "never match; convert one of them first",
        ),
    )
}

#: per input: its id columns (roles of the ranking table's columns, or fixed names) and its optional column
SHAPES: dict[str, tuple[tuple[str, ...], str | None]] = {
    "train": (("query", "item"), WEIGHT),
    "features": (("item", FEATURE), VALUE),
    "catalog": (("item",), None),
}
#: how the "columns" rule names an input's id columns
WANTED_WORDS = {
    "train": "the ranking table's query and item columns",
    "features": "the ranking table's item column and 'feature'",
}


def rules_of(name: str, face: str) -> list[InputRule]:
    """The rules of input ``name`` that ``face`` checks, in order."""
    return [r for r in RULES.values() if name in r.inputs and face in r.faces]


def id_columns(name: str, query: str, item: str) -> list[str]:
    """The id columns of input ``name`` under the ranking table's query and item column names."""
    roles = {"query": query, "item": item}
    return [roles.get(c, c) for c in SHAPES[name][0]]


def optional_name(name: str, query: str, item: str) -> str | None:
    """The name of input ``name``'s optional column (``weight``, ``value``), None when it is one of its id columns.

    A column named ``weight`` that is train='s query or item column holds ids, never weights (one rule on every
    face: pandas, the DuckDB engine, Spark, the CLI's typed reading of the file).
    """
    optional = SHAPES[name][1]
    return None if optional is None or optional in id_columns(name, query, item) else optional


def optional_column(name: str, present: Sequence[str], query: str, item: str) -> str | None:
    """The optional column of input ``name`` when it has one (:func:`optional_name`)."""
    optional = optional_name(name, query, item)
    return optional if optional in present else None


def show(value: object) -> str:
    """An id as the user wrote it (``1``, not ``np.int64(1)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def kinds_clash(mine: str, theirs: str) -> bool:
    """Whether ids of these kinds (``rankframe.units.id_kind``'s words) never match."""
    return "empty" not in (mine, theirs) and (mine != theirs or mine == "other")


# ------------------------------------------------------------------------------------------------ the errors
# Each face calls these with what it found; the words are the declarations'.
def catalog_type_error(catalog: object) -> RankframeError:
    """catalog= of a type that holds no ids."""
    return RULES["catalog_type"].failure(got=type(catalog).__name__)


def catalog_columns_error(columns: list) -> RankframeError:
    """catalog= as a table of more than one column."""
    return RULES["catalog_columns"].failure(columns=columns)


def input_columns_error(name: str, wanted: list[str], missing: list[str], present: list) -> RankframeError:
    """train= or features= without the columns it must have."""
    return RULES["columns"].failure(
        input=name, wanted_words=WANTED_WORDS[name], wanted=wanted, optional=SHAPES[name][1], missing=missing,
        present=present,
    )  # fmt: skip


def feature_is_item_error() -> RankframeError:
    """features= when the ranking table's item column is named 'feature'."""
    return RULES["feature_is_item"].failure()


def empty_error(name: str) -> RankframeError:
    """An input without rows."""
    return RULES["empty"].failure(input=name, what=EMPTY[name])


def null_train_query_error(column: str, count: int, shown: str) -> RankframeError:
    """train= with null query ids (``shown``: where they are)."""
    return RULES["null_query"].failure(column=column, count=count, shown=shown)


def null_ids_error(where: str, count: int, shown: str) -> RankframeError:
    """An input with null item ids (``shown``: where they are, e.g. ``positions [0, 3]``)."""
    return RULES["null_ids"].failure(where=where, count=count, shown=shown)


def id_kind_error(
    where: str, mine: str, theirs: str, mine_example: object, their_example: object, item_col: str
) -> RankframeError:
    """Item ids of another kind than the ranking table's."""
    return RULES["id_kind"].failure(
        where=where, mine=KIND_WORDS[mine], theirs=KIND_WORDS[theirs], mine_example=show(mine_example),
        their_example=show(their_example), item=item_col,
    )  # fmt: skip


def null_feature_error(count: int, shown: str) -> RankframeError:
    """features= with null feature names."""
    return RULES["null_feature"].failure(count=count, shown=shown)


def bad_number_error(name: str, count: int, rows: str) -> RankframeError:
    """train='s weight or features='s value that is not a finite number (a weight also >= 0)."""
    return RULES["weight" if name == "train" else "value"].failure(count=count, rows=rows)


def repeated_catalog_error(count: int, examples: list) -> RankframeError:
    """catalog= listing an id more than once."""
    return RULES["repeated_ids"].failure(count=count, examples=examples)


def repeated_pairs_error(count: int, rows: str) -> RankframeError:
    """features= listing an (item, feature) pair more than once."""
    return RULES["repeated_pairs"].failure(count=count, rows=rows)


def history_kind_error(
    readers: Sequence[str], query: str, mine: str, theirs: str, mine_example: object, their_example: object
) -> RankframeError:
    """train='s query ids of another kind than the ranking table's, for a metric reading each query's history."""
    return RULES["history_kind"].failure(
        readers=", ".join(readers), query=query, mine=KIND_WORDS[mine], theirs=KIND_WORDS[theirs],
        mine_example=show(mine_example), their_example=show(their_example),
    )  # fmt: skip


def where(name: str, item: str) -> str:
    """How a message names an input's item column: ``catalog=``, ``train='s column 'item'``."""
    return "catalog=" if name == "catalog" else f"{name}='s column {item!r}"
