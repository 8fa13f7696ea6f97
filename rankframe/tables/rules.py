"""The long table's rules, each declared once: its name, columns, words, the rows a failure shows and its class.

As metrics declare themselves (``rankframe.declare``), every rule of the long-format table is one
:class:`TableRule` in :data:`RULES`. The faces that check a table take their words, example-row counts and error
class from here and keep only their own test of the rule: the pandera schema (``rankframe.schema``), the DuckDB
view over files and relations (``rankframe.engines.duckdb_view``), Spark (``rankframe.spark.validate``) and the
SQL macros (``sql/validate.sql`` ``rf_validate``, ``rf__check_duplicates`` in ``sql/evaluate.sql``, the
``rf:table[<column>]`` errors of ``sql/prepare.sql``). The SQL files are shipped text, so they spell the words
out; ``tests/hostile/test_table_rules.py`` breaks each rule on each face and holds the words against this declaration.
See CONTRIBUTING.md, "Adding a table rule".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.errors import RankframeError, ValidationError, did_you_mean, keyword

if TYPE_CHECKING:
    from ..core.columns import Columns

#: the most offending rows a failure shows (every Python face, and rf_validate's ``examples``)
EXAMPLES = 5
#: the most repeated keys a SQL error message names (rf__check_duplicates)
SQL_ERROR_EXAMPLES = 3

#: the columns of a table by role: ``ids`` are query, item and the segments
IDS = ("query", "item", "segments")

#: what a null means in each value column, in the words of its "must be numeric" rule
NULL_MEANS = {"relevance": "unjudged", "rank": "judged but not retrieved", "score": "not retrieved"}


@dataclass(frozen=True)
class TableRule:
    """One rule of the long table.

    ``columns`` are the roles it applies to (``query``, ``item``, ``segments``, ``relevance``, ``rank``,
    ``score``); ``text`` its words, a template over ``{column}`` (the caller's name of the column), ``{unit}``
    (the unit's columns, ``segments..., query``) and the rule's own fields; ``sql`` the words of the SQL face
    when they differ (``rf_validate`` repeats the column in the rule; SQL spells keyword arguments ``:=``).
    ``hint`` / ``sql_hint`` end the words with the fix, on the Python faces / in SQL.
    ``shows`` says which offending rows a failure shows (at most :data:`EXAMPLES`); ``faces`` which faces check
    the rule (``pandas``, ``duckdb``, ``spark``, ``sql``: rf_validate's rows, ``sql_error``: a macro's error).
    """

    name: str
    columns: tuple[str, ...]
    text: str
    shows: str
    faces: tuple[str, ...]
    sql: str | None = None
    hint: str = ""
    sql_hint: str = ""
    error: type[RankframeError] = ValidationError

    def message(self, face: str = "python", *, hint: bool = True, **fields: Any) -> str:
        """The rule's words on a face (``python`` for pandas, DuckDB and Spark; ``sql``), fields filled in.

        ``hint=False`` leaves out the fix the words end with (``hint``, ``sql_hint``), for a face that names its
        own (a message naming a segment column, rf__check_duplicates' counts).
        """
        text = self.sql if face == "sql" and self.sql is not None else self.text
        if hint:
            text += self.sql_hint if face == "sql" else self.hint
            if face != "sql":  # the fix in the caller's words: allow_duplicates=True, or --allow-duplicates
                fields.setdefault("allow_duplicates", keyword("allow_duplicates", True))
        if "unit" in fields and not isinstance(fields["unit"], str):
            fields["unit"] = ", ".join(map(str, fields["unit"]))
        return text.format(**fields)


ALL = ("pandas", "duckdb", "spark", "sql")

#: every rule of the long table, in the order rf_validate reports them (the order of its rows)
RULES: dict[str, TableRule] = {
    r.name: r
    for r in (
        TableRule(
            "order_column",
            ("rank", "score"),
            "neither a rank column {rank!r} nor a score column {score!r} in dataframe{did_you_mean}. "
            "Columns in dataframe: {present}",
            "none: the table's column names",
            ("pandas", "duckdb", "spark"),  # SQL: rf__input's missing column error names the order_by column
        ),
        TableRule(
            "not_null",
            ("query", "item"),
            "must not be null",
            "the rows whose id is null",
            ALL,
            sql="{column} must not be null",
        ),
        TableRule(
            "one_id_type",
            IDS,
            "{column} ids must all have one type (found mixed types such as '1' and 1, which different engines "
            "would keep apart or merge; convert the column with .astype(str))",
            "the rows whose value type is not the column's most common one",
            ("pandas",),  # typed columns (DuckDB, Spark, SQL) hold one type
        ),
        TableRule(
            "nested",
            IDS,
            "{column} holds nested values ({found}), which are not allowed: ids and segments must be atomic values "
            "(string, number, date, ...)",
            "the rows holding a nested value (pandas); none where the column's type says it (DuckDB, Spark)",
            ("pandas", "duckdb", "spark"),
        ),
        TableRule(
            "binary",
            IDS,
            "{column} ids must be atomic values (string, number, date, ...), not binary",
            "none: the column's type says it",
            ("spark",),
        ),
        TableRule(
            "numeric",
            ("relevance", "rank", "score"),
            "{role} must be numeric (null = {null_means})",
            "the non-null rows, those that do not parse as numbers first",
            ALL + ("sql_error",),  # rf__keyed: a rank column of text for order_by := 'rank'
        ),
        TableRule(
            "relevance_finite",
            ("relevance",),
            "relevance must be finite (null = unjudged)",
            "the rows whose relevance is infinite",
            ALL,
        ),
        TableRule(
            "rank_integer",
            ("rank",),
            "rank must be an integer >= 1 (null = judged but not retrieved)",
            "the rows whose rank is not an integer >= 1",
            ALL,
        ),
        TableRule(
            "score_finite",
            ("score",),
            "score must be finite",
            "the rows whose score is infinite",
            ALL,
        ),
        TableRule(
            "unique_rank",
            ("rank",),
            "rank must be unique within each ({unit})",
            "the rows of the repeated (unit, rank) keys",
            ALL,
        ),
        TableRule(
            "unique_item",
            ("item",),
            "{column} must be unique within each ({unit})",
            "the rows of the repeated (unit, item) keys",
            ALL + ("sql_error",),  # rf__check_duplicates: the error of rf_per_query, rf_means, rf_compare
            hint=" (pass {allow_duplicates} to keep repeated rows)",
            sql_hint=" (pass allow_duplicates := true to keep repeated rows)",
        ),
        TableRule(
            "ranks_1_to_n",
            ("rank",),
            "order_by := 'position' needs ranks 1..n in every query",
            "none: the count of ranked rows and the largest rank of one query",
            ("sql_error",),  # the other faces sort by rank when ranks are not 1..n (a shortcut, not a rule)
        ),
    )
}


def numeric_rule(word: str) -> str:
    """The plain words of the rule "must be numeric" of the role ``word`` (relevance, rank or score)."""
    return RULES["numeric"].message(role=word, null_means=NULL_MEANS[word])


def unique_rank_rule(unit: Sequence[str]) -> str:
    """The words of the rule "ranks unique per unit" (``unit``: the unit's column names, segments then query)."""
    return RULES["unique_rank"].message(unit=unit)


def duplicate_item_rule(item: str, by: Sequence[str], query: str, segment: str | None = None) -> str:
    """The words of the rule "items unique per unit" on every Python face (pandas schema, DuckDB files, Spark).

    ``segment`` is a column in which the repeated (unit, item) rows differ, and which would make them unique: the
    message then suggests ``by=`` that column instead of ``allow_duplicates``, both in the caller's words
    (:func:`rankframe.errors.keyword`: ``--by``, ``--allow-duplicates`` on the command line).
    """
    unit = [*by, query]
    rule = RULES["unique_item"]
    if segment is None:
        return rule.message(column=item, unit=unit)
    fix = keyword("by", segment if not by else [*by, segment])
    return (
        f"{rule.message(column=item, unit=unit, hint=False)}: rows repeat ({', '.join([*unit, item])}) but differ "
        f"in column {segment!r}: did you mean {fix}? (or pass {keyword('allow_duplicates', True)} to keep repeated "
        "rows)"
    )


def ranking_column(names: Sequence[str], columns: Columns) -> str | None:
    """The column that orders the lists: ``rank`` if present (rank wins over score), else ``score``, else None.

    The rule ``order_column`` on every face (pandas, DuckDB, Spark, the CLI, the accessor) asks this function.
    """
    if columns.rank in names:
        return columns.rank
    if columns.score in names:
        return columns.score
    return None


def missing_order_failure(rank: str, score: str, present: Sequence[str]) -> dict:
    """The failure of a ranked table with neither its rank column nor its score column."""
    words = RULES["order_column"].message(
        rank=rank, score=score, did_you_mean=did_you_mean(rank, present), present=present
    )
    return {"column": rank, "rule": words, "count": 0}


def failure(column: str, rule: str, count: int = 0, examples: Any = None) -> dict:
    """One entry of :attr:`ValidationError.failures`: the column, the rule's words, the offending rows."""
    return {"column": column, "rule": rule, "count": count, "examples": examples}


def nested_failure(column: str, found: str, count: int = 0, examples: Any = None) -> dict:
    """The failure of an id or segment column holding nested values (lists, dicts, structs, arrays, maps).

    One wording for every face: the pandas check, the DuckDB source's column types, Spark's schema.
    """
    return failure(column, RULES["nested"].message(column=column, found=found), count, examples)


def not_numeric_failure(
    column: str, word: str, dtype: str, count: int, unparsable: int, examples: Any, convert: str
) -> dict:
    """The failure of a value column that is not numeric, on every face (pandas schema, DuckDB files, Spark).

    ``dtype`` is the column's type as the face names it, ``count`` the non-null rows whose value is not a number,
    ``unparsable`` how many of them do not parse as numbers (``examples`` shows those first: their values are
    named), ``convert`` the face's conversion of the column (``pd.to_numeric(df['rank'])``).
    """
    rule = f"{numeric_rule(word)}; found dtype {dtype}"
    if unparsable:
        shown: list = []
        if examples is not None and column in examples.columns:
            shown = list(dict.fromkeys(examples[column].head(3).tolist()))
        rule += (
            f": {unparsable} value(s) do not parse as numbers (such as {', '.join(map(repr, shown))}); fix or drop "
            f"those rows, then convert the column with {convert}"
        )
    else:
        rule += f": convert the column with {convert}"
    return failure(column, rule, count, examples)
