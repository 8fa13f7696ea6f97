"""How a beyond-accuracy metric is declared: ``BeyondSpec`` (a ``MetricSpec`` with a level, inputs and presets).

The family's rules are written here once: which faces serve it (:data:`FACES`), the peers a preset can name
(:data:`PEERS`), the error a face that does not serve it raises (:func:`refuse`) and the error of a missing input
(:func:`missing_input`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.declare import PEERS, MetricSpec, Param, like_param  # noqa: F401 (PEERS, like_param: the family imports them here)
from ..core.errors import ParameterError, caller_option, keyword

#: the faces that compute the family: ``rankframe.evaluate`` on pandas frames (engine='pandas' and
#: engine='duckdb', with the table macros rf_coverage ... rf_personalization of sql/, which are the face 'sql'), the
#: pandas accessor and the polars namespace (which call it), rankframe.compare (the per-list metrics by the paired
#: tests, the set-level ones by a paired bootstrap over queries) and ``rankframe.spark.evaluate`` (the portable SQL
#: of rankframe.sql.render run by spark.sql). Every other face raises :func:`refuse`'s error
FACES: tuple[str, ...] = ("pandas", "duckdb", "sql", "accessor", "polars", "compare", "spark")
#: the faces that refuse it, with their words in the message
NOT_SERVED: dict[str, str] = {
    "duckdb_files": "the DuckDB engine's file road (a path or DuckDB relation input, the CLI)",
    "anova": "rankframe.anova",
    "spark_compare": "rankframe.spark.compare",
    "spark_anova": "rankframe.spark.anova (run rankframe.anova on a sample or one segment brought to pandas)",
}
#: the faces that serve the per-list metrics but not the set-level ones: their per-query values take the ANOVA and
#: Spark's paired tests as they are (``aggregate='rows'`` makes them set-level: evaluate refuses per_query=True then)
PER_LIST_FACES: tuple[str, ...] = ("anova", "spark_compare")
#: why a face of :data:`PER_LIST_FACES` cannot take a set-level metric, and what to do instead (its own words)
SET_LEVEL_REFUSED: dict[str, str] = {
    "anova": "rankframe.anova decomposes the variance of per-query values (system, query and segment effects), and a "
    "set-level metric has no value per query: one value per system and segment, computed from all its lists. "
    "Compare the systems on it with rankframe.compare (a paired bootstrap over queries), and ask anova for the "
    "per-query metrics (nDCG, AP, ...) and the per-list beyond-accuracy ones (ARP, APLT, Novelty, ILD, ...)",
    "spark_compare": "rankframe.spark.compare tests per-query differences, and a set-level metric has no value per "
    "query: one value per system and segment, computed from all its lists. Compare the systems on it with "
    "rankframe.compare on a pandas table of the lists (a paired bootstrap over queries); the per-list metrics are "
    "compared on Spark, with train=, features=",
}
#: the extra inputs: keyword argument of evaluate -> what it is
INPUTS: dict[str, str] = {
    "catalog": "the item ids of the catalog (a sequence or a one-column table)",
    "train": "past interactions (a long table with the query and item columns, optional 'weight')",
    "features": "item features (a long table with the item column, 'feature' and optional 'value')",
}


#: the shared SQL macro of the row-value metrics' lists (sql/beyond.sql; each metric's row terms are its own
#: ``rf__<name>_row_value`` / ``rf__<name>_row_counted`` in sql/<name>.sql, called by ``rf__beyond_row_values``)
ROW_VALUES_MACRO = "rf__beyond_lists"


@dataclass(frozen=True)
class BeyondSpec(MetricSpec):
    """A beyond-accuracy metric: a :class:`~rankframe.declare.MetricSpec` plus the family's own fields.

    ``level`` is ``"set"`` (one value per segment from all its lists' top-k rows: never per query) or ``"list"``
    (one value per list, then averaged like an accuracy metric). ``needs`` are the inputs it always reads,
    ``needs_when`` ``(parameter, value, input)`` triples for the inputs one option value reads (Coverage with
    ``universe='train'`` reads ``train=``). ``presets`` maps a peer of :data:`PEERS` to the values of every
    convention of that peer; ``like=<peer>`` sets them and options given by name override them.
    """

    level: str = "list"
    needs: tuple[str, ...] = ()
    needs_when: tuple[tuple[str, Any, str], ...] = ()
    #: ``(input, parameter, value)``: an input of ``needs_when`` is not read when that option has that value
    #: (Serendipity's form='popularity' reads no similarity, so no features=)
    needs_unless: tuple[tuple[str, str, Any], ...] = ()
    faces: tuple[str, ...] = FACES
    #: the SQL table macro of its per-list values: ``rf__beyond_lists`` (the row-value metrics ARP, APLT, Novelty:
    #: ``(tbl, train, segments, order_by, name, o, ok)``) or its own ``rf__<name>_lists`` taking
    #: ``(tbl, train, features, segments, order_by, o, ok)``
    lists_macro: str = "rf__beyond_lists"  # ROW_VALUES_MACRO
    #: reads the ranking table's ``relevance`` column (Serendipity; every other metric of the family never does)
    reads_relevance: bool = False
    #: ``(parameter, value)`` pairs under which a metric declared ``bounded`` may leave [0, 1] (a peer's formula
    #: that is bounded only on full lists: Personalization's ``norm='k'``)
    unbounded_when: tuple[tuple[str, Any], ...] = ()
    #: it reads each query's own rows of train= (its history: Calibration), so train='s query ids must be of the
    #: ranking table's kind (numbers or text) for a query to find its history
    history: bool = False
    #: marks the family for ``rankframe.registry.register``
    beyond_family: ClassVar[bool] = True

    @property
    def row_values(self) -> bool:
        """Its value is a mean of per-row values over train's items (ARP, APLT, Novelty).

        The shared macro ``rf__beyond_lists`` (:data:`ROW_VALUES_MACRO`) computes its lists, and its portable hook
        returns a row's ``(value, counted)`` terms rather than a whole per-list CTE.
        """
        return self.level == "list" and self.lists_macro == ROW_VALUES_MACRO

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.level not in ("set", "list"):
            raise ValueError(f"{self.name}: level must be 'set' or 'list'")
        for _, _, needed in self.needs_when:
            if needed not in INPUTS:
                raise ValueError(f"{self.name}: unknown input {needed!r}")

    def is_bounded(self, kw: dict[str, Any]) -> bool:
        """The value lies in [0, 1] with these option values (``bounded``, unless an ``unbounded_when`` pair holds)."""
        return self.bounded and not any(kw.get(name) == value for name, value in self.unbounded_when)

    def is_set_level(self, kw: dict[str, Any]) -> bool:
        """One value per segment with these option values (``level='set'``, or ``aggregate='rows'``)."""
        return self.level == "set" or kw.get("aggregate") == "rows"

    def reads_history(self, kw: dict[str, Any]) -> bool:
        """It reads each query's own history in train= (:attr:`history`: Calibration)."""
        return self.history

    def needed(self, kw: dict[str, Any]) -> list[str]:
        """The inputs this metric reads with these option values."""
        unless = {needed: (name, value) for needed, name, value in self.needs_unless}
        extra = [
            needed
            for name, value, needed in self.needs_when
            if kw.get(name) == value and not (needed in unless and kw.get(unless[needed][0]) == unless[needed][1])
        ]
        return list(dict.fromkeys([*self.needs, *extra]))


LOG_BASE = Param("log_base", 2.0, "base of the logarithm (2 = bits; math.e = nats, RecBole)", kind="base")
POPULARITY = Param(
    "popularity",
    "users",
    "popularity of an item in train=: 'users' = the distinct queries with a positive weight (every row without a "
    "weight column), 'interactions' = the sum of its weights (1 per row without a weight column; RecBole, "
    "Microsoft Recommenders)",
    choices=("users", "interactions"),
)
AGGREGATE = Param(
    "aggregate",
    "per_list",
    "'per_list' = each list's mean, then the mean over lists (every list weighs the same; intervals and paired "
    "tests apply), 'rows' = one mean over every counted row of the segment (a set-level value; Microsoft "
    "Recommenders' novelty)",
    choices=("per_list", "rows"),
)
E = math.e


def universe_param(description: str, choices: tuple[str, ...] = ("catalog", "train")) -> Param:
    """The ``universe=`` parameter of the set-level metrics over a universe of items (Coverage, Gini).

    Its name, its default ``'catalog'`` and the values that read an input (:data:`UNIVERSE_NEEDS`), said once.
    """
    return Param("universe", "catalog", description, choices=choices)


#: ``BeyondSpec.needs_when`` of a metric with :func:`universe_param`: 'catalog' reads catalog=, 'train' train=
UNIVERSE_NEEDS = (("universe", "catalog", "catalog"), ("universe", "train", "train"))


def inputs_not_taken(measures: Sequence[Any], owner: str, instead: str) -> None:
    """Refuse a metric that reads an input (train=, catalog=, features=) ``owner`` cannot take; ``instead``: the fix.

    The words of :func:`missing_input` would tell the caller to pass an argument ``owner`` does not have.
    """
    for m in measures:
        if isinstance(m.spec, BeyondSpec):
            for name in m.spec.needed(m.kw):
                raise ParameterError(
                    f"{m} needs {name}=, {INPUTS[name]}, which {owner} cannot take: {instead}.",
                    owner=owner,
                    parameter=name,
                )


def missing_input(measure: Any, name: str) -> ParameterError:
    """The error of a metric that reads an input it was not given (on the command line: its file option)."""
    if caller_option(name) is not None:  # the command's option and its value's word: needs --train FILE
        return ParameterError(
            f"{measure} needs {keyword(name, metavar=True)}, {INPUTS[name]}.", owner="evaluate", parameter=name
        )
    return ParameterError(
        f"{measure} needs {name}=, {INPUTS[name]}: pass it to evaluate, e.g. rankframe.evaluate(df, "
        f"[{str(measure)!r}], {name}=...).",
        owner="evaluate",
        parameter=name,
    )
