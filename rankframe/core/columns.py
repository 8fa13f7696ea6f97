"""Column names of the long-format table, said once per call chain."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Columns:
    """Names of the columns of a long-format ranking table.

    One row per (query, item). ``rank`` is 1 for the top item and null for items that were judged but not
    retrieved; ``relevance`` is the graded judgment (null = unjudged); ``score`` is used to derive ranks
    when the table has no rank column.

    Examples
    --------
    >>> Columns(query="user_id", item="movie_id", rank="position", relevance="rating").query
    'user_id'
    """

    query: str = "query"
    item: str = "item"
    rank: str = "rank"
    relevance: str = "relevance"
    score: str = "score"
    system: str = "system"
    #: the subtopic (intent, aspect) id of a subtopic qrels: read by the intent-aware measures only (docs/diversity.md)
    subtopic: str = "subtopic"

    def with_(self, **names: str | None) -> Columns:
        """Return a copy with some names replaced (``None`` values are ignored)."""
        valid = {f.name for f in fields(self)}
        unknown = sorted(set(names) - valid)
        if unknown:
            from .errors import ParameterError, did_you_mean

            raise ParameterError(
                f"unknown column role {unknown[0]!r}{did_you_mean(unknown[0], valid)}; the roles are {sorted(valid)}",
                parameter="columns",
                expected=f"a dict with keys among {sorted(valid)}",
                got=unknown[0],
            )
        bad = {k: v for k, v in names.items() if v is not None and not isinstance(v, str)}
        if bad:
            from .errors import parameter_error

            key = sorted(bad)[0]
            raise parameter_error("Columns", key, "a column name (str)", bad[key])
        return replace(self, **{k: v for k, v in names.items() if v is not None})

    @classmethod
    def coerce(cls, value: Columns | dict | None, owner: str = "columns", function: str = "evaluate") -> Columns:
        """Accept a :class:`Columns`, a dict of roles to names (``{"query": "user_id"}``) or None.

        ``owner`` is the parameter's name and ``function`` the function taking it, for the message.
        """
        if value is None:
            return cls()
        if isinstance(value, Columns):
            return value
        if isinstance(value, dict):
            return cls().with_(**value)
        from .errors import parameter_error

        raise parameter_error(function, owner, "a rankframe.Columns or a dict such as {'query': 'user_id'}", value)


#: the roles only the pandas engine reads (the intent-aware measures' subtopic): the SQL faces (dbt) leave them out
PANDAS_ONLY_ROLES: tuple[str, ...] = ("subtopic",)


def judgment_columns(
    columns: Columns | dict | None, qrels_columns: Columns | dict | None, function: str = "evaluate"
) -> Columns:
    """The column names of a ``qrels=`` table: ``columns=`` with the roles ``qrels_columns=`` names replaced.

    The one reading of ``qrels_columns=`` (evaluate, compare, report, the accessors, fuse_train, the CLI): None
    gives the run's names (``columns``); a dict renames only the roles it names (``{"relevance": "grade"}``);
    a :class:`Columns` renames the roles it sets to other than their default names (``Columns(relevance="grade")``
    keeps the run's query and item names). A name the qrels table lacks is then a
    :class:`~rankframe.ValidationError` naming the column, never a silent default.

    Examples
    --------
    >>> run = Columns(query="user_id", item="item_id", rank="position", relevance="rating")
    >>> judgment_columns(run, None).relevance, judgment_columns(run, {"relevance": "grade"}).query
    ('rating', 'user_id')
    >>> j = judgment_columns(run, Columns(relevance="grade", subtopic="intent")); (j.query, j.relevance, j.subtopic)
    ('user_id', 'grade', 'intent')
    """
    base = Columns.coerce(columns, function=function)
    if qrels_columns is None:
        return base
    if isinstance(qrels_columns, dict):
        Columns.coerce(qrels_columns, "qrels_columns", function)  # the roles and names checked, in its words
        return base.with_(**qrels_columns)
    if isinstance(qrels_columns, Columns):
        default = Columns()
        named = {f.name: getattr(qrels_columns, f.name) for f in fields(Columns)}
        return base.with_(**{k: v for k, v in named.items() if v != getattr(default, k)})
    from .errors import parameter_error

    raise parameter_error(
        function, "qrels_columns", "a rankframe.Columns or a dict such as {'relevance': 'grade'}", qrels_columns
    )


def column_list(value: object, owner: str, name: str = "by") -> list[str]:
    """A parameter naming columns (``by=``) as a list of distinct names: every function reads it here.

    None and ``[]`` give no column; a str is one column (``by="model"``, never its letters); a list or tuple of
    str is taken in its order. A repeated name or a name that is not a str is a
    :class:`~rankframe.ParameterError` naming ``owner`` (the function called) and the parameter ``name``.

    Examples
    --------
    >>> column_list("model", "evaluate"), column_list(("country", "device"), "compare"), column_list(None, "plot")
    (['model'], ['country', 'device'], [])
    """
    from .errors import ParameterError, parameter_error

    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise parameter_error(owner, name, "a column name or a list of column names (str)", value)
    repeated = [v for i, v in enumerate(value) if v in value[:i]]
    if repeated:
        raise ParameterError(
            f"The {name!r} parameter of {owner} names column {repeated[0]!r} twice; give each column once. "
            f"Got {list(value)!r} instead.",
            owner=owner,
            parameter=name,
        )
    return list(value)
