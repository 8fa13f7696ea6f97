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

    def with_(self, **names: str | None) -> Columns:
        """Return a copy with some names replaced (``None`` values are ignored)."""
        valid = {f.name for f in fields(self)}
        unknown = set(names) - valid
        if unknown:
            from .errors import parameter_error

            raise parameter_error("Columns", sorted(unknown)[0], f"one of {sorted(valid)}", names)
        return replace(self, **{k: v for k, v in names.items() if v is not None})
