"""How an intent-aware measure is declared: ``IntentSpec`` (a ``MetricSpec`` with the family's fields) and its rules.

The family's rules are written here once: its shared parameters (``alpha``, ``beta``, ``rel``, ``like``), the
faces that serve it (:data:`FACES`), the error of a face that does not (:func:`refuse`) and the error of a qrels
without subtopics (:func:`needs_subtopics`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.declare import MetricSpec, Param, k_param, like_param, rel_param
from ..core.errors import ParameterError, caller_option, keyword

#: the faces that compute the family: ``rankframe.evaluate`` with engine='pandas' on a table (any table kind it reads
#: into pandas) and a subtopic ``qrels=``, the accessor and the polars namespace (which call it),
#: ``rankframe.compare`` and ``anova`` (``rankframe.anova``; both call evaluate), ``rankframe.evaluate(...,
#: engine='duckdb')`` on a DataFrame (the SQL kernel of ``sql/intent.sql``), ``rankframe.spark.evaluate``,
#: ``spark_compare`` and ``spark_anova`` (``rankframe.spark.compare`` / ``rankframe.spark.anova``: the pandas
#: function per bucket of queries, ``rankframe.spark.intent``), ``sql``: the public table macros
#: ``rf_intent_per_query`` / ``rf_intent_means`` of ``sql/intent.sql`` (SQL users; no Python caller passes this
#: key) and ``render``: the portable SQL of ``rankframe.sql.render(..., qrels=)`` (``rankframe.warehouse.intent``; the
#: owner parse_metrics is called with). Every other face (the DuckDB engine's file road, the accuracy table macros
#: rf_per_query / rf_means, dbt) raises :func:`refuse`'s error
FACES: tuple[str, ...] = (
    "pandas",
    "accessor",
    "polars",
    "compare",
    "anova",
    "duckdb",
    "spark",
    "spark_compare",
    "spark_anova",
    "sql",
    "render",
)
#: the faces of the recommender form (``like='informfully'``, train= and features=): it has no SQL kernel
HISTORY_FACES: tuple[str, ...] = ("pandas", "accessor", "polars", "compare")
#: the callers (``owner`` of :func:`rankframe.arguments.parse_metrics`) that reach the pandas engine
OWNERS: tuple[str, ...] = ("evaluate", "compare", "segment_means", "means")

ALPHA = Param(
    "alpha",
    0.5,
    "redundancy penalty: the n-th item of a subtopic gains (1 - alpha)^(n - 1) (Clarke et al. 2008; ndeval -alpha)",
    kind="unit",
)
BETA = Param(
    "beta",
    0.5,
    "patience of NRBP: position p weighs beta^(p - 1) (Clarke et al. 2009; ndeval -beta)",
    kind="unit",
)
REL = rel_param(1)
#: the presets of the family: ``like='ndeval'`` on every measure, ``like='tf_ranking'`` on the two TF-Ranking has
#: (alpha_DCG, P_IA). They set no option values: their conventions are the kernels' own branches, listed in
#: docs/diversity.md ("like='ndeval'", "like='tf_ranking'")
PRESETS: dict[str, dict[str, Any]] = {"ndeval": {}}
TF_PRESETS: dict[str, dict[str, Any]] = {"ndeval": {}, "tf_ranking": {}}
#: ``like='informfully'`` (alpha_nDCG only): Informfully's recommender form (Informfully/Recommenders,
#: cornac/metrics/diversity.py, ``Alpha_NDCG``): the subtopics are the genres (``features=``) of the query's history
#: (``train=``), no qrels; its kernel is ``rankframe.intent.history``
INFORMFULLY = "informfully"
NDCG_PRESETS: dict[str, dict[str, Any]] = {"ndeval": {}, INFORMFULLY: {}}
#: the inputs the recommender form reads (the beyond-accuracy family's train= and features=, read by its engine)
HISTORY_INPUTS: tuple[str, ...] = ("train", "features")


def params(
    *, alpha: bool = False, beta: bool = False, presets: dict[str, dict[str, Any]] = PRESETS
) -> tuple[Param, ...]:
    """The parameters of a measure of the family: k, alpha (novelty-discounted gains), beta (NRBP), rel, like."""
    return (k_param(), *((ALPHA,) if alpha else ()), *((BETA,) if beta else ()), REL, like_param(tuple(presets)))


@dataclass(frozen=True)
class IntentSpec(MetricSpec):
    """An intent-aware measure: a :class:`~rankframe.declare.MetricSpec` read from a subtopic qrels.

    ``faces``: the faces that serve it (:data:`FACES`); ``sql``: True, the family has public SQL table macros of
    its own (``rf_intent_per_query`` / ``rf_intent_means`` of ``sql/intent.sql``, one column per measure); the
    accuracy table macros and the portable SQL (render, dbt) still refuse it, :func:`refuse`.
    """

    faces: tuple[str, ...] = FACES
    sql: bool = True

    def needed(self, kw: dict[str, Any]) -> list[str]:
        """The recommender form (``like='informfully'``) reads train= and features= (:data:`HISTORY_INPUTS`)."""
        return list(HISTORY_INPUTS) if self.reads_history(kw) else []

    def reads_history(self, kw: dict[str, Any]) -> bool:
        """The recommender form (``like='informfully'``) reads each query's history in train=, no qrels."""
        return kw.get("like") == INFORMFULLY

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.nothing_relevant != "relevant":
            raise ValueError(f"{self.name}: an intent-aware measure is undefined without a relevant subtopic")


def intent(measures: Sequence[Any]) -> list[Any]:
    """The intent-aware measures of a list, in the order asked."""
    return [m for m in measures if isinstance(m.spec, IntentSpec)]


def from_history(measure: Any) -> bool:
    """An intent-aware measure in the recommender form (``like='informfully'``): train= and features=, no qrels."""
    return isinstance(measure.spec, IntentSpec) and measure.spec.reads_history(measure.kw)


def from_qrels(measures: Sequence[Any]) -> list[Any]:
    """The intent-aware measures of a list that read a subtopic qrels (every preset but the recommender form)."""
    return [m for m in intent(measures) if not from_history(m)]


def faces_of(measure: Any) -> tuple[str, ...]:
    """The faces that serve one bound measure of the family (the recommender form: :data:`HISTORY_FACES`)."""
    return HISTORY_FACES if from_history(measure) else measure.spec.faces


def refuse(measures: Sequence[Any], face: str, words: str | None = None) -> None:
    """Raise the error of a face that does not serve the family (yet), naming the measures and the faces that do.

    ``face``: the face's key (:data:`FACES`); ``words``: how the message names it (the key itself without).
    """
    asked = [m for m in intent(measures) if face not in faces_of(m)]
    if asked:
        history = any(from_history(m) for m in asked)
        duckdb = "" if history else f", {keyword('engine', 'duckdb')} on a DataFrame"
        macros = (
            ""
            if history
            else " In SQL: the table macros rf_intent_per_query / rf_intent_means (docs/sql.md); in a warehouse: "
            "rankframe.sql.render(metrics, table=<run>, qrels=<subtopic qrels>) (docs/warehouse.md)."
        )
        raise ParameterError(
            f"{', '.join(map(str, asked))}: the intent-aware diversity measures (docs/diversity.md) are computed "
            "by rankframe.evaluate and its callers, pandas-only for now on every other face; "
            f"{words or face} does not serve them yet. Use rankframe.evaluate(run, metrics, "
            f"qrels=<subtopic qrels>) with {keyword('engine', 'pandas')} (the default){duckdb}, the accessor "
            "df.rank_metrics.evaluate, the polars namespace or rankframe.compare"
            f"{'' if duckdb == '' else ' or rankframe.anova (on Spark: rankframe.spark.evaluate, compare, anova)'}."
            + macros,
            owner=face,
            parameter="metrics",
            got=[str(m) for m in asked],
        )


def needs_subtopics(measures: Sequence[Any], subtopic: str, found: Sequence[str] | None) -> ParameterError:
    """The error of intent-aware measures asked without a qrels table that has the subtopic column."""
    names = ", ".join(str(m) for m in from_qrels(measures))
    if caller_option("subtopic_qrels") is not None:  # the command's file options, not a qrels= table
        where = "these judgments have no subtopic" if found is None else _no_subtopic(subtopic, found)
        return ParameterError(
            f"{names} read subtopic judgments: give {keyword('qrels')} FILE {keyword('subtopic_qrels', True)}"
            f" (qid subtopic docno relevance); {where}.",
            owner="evaluate",
            parameter="qrels",
        )
    where = "no qrels= was given" if found is None else _no_subtopic(subtopic, found)
    return ParameterError(
        f"{names} read subtopic judgments: pass qrels= with the columns query, subtopic, item, relevance (the "
        "subtopic column's name set by qrels_columns={'subtopic': ...} or Columns(subtopic=...)); " + where + ".",
        owner="evaluate",
        parameter="qrels",
    )


def _no_subtopic(subtopic: str, found: Sequence[str]) -> str:
    return f"the qrels table has no column {subtopic!r} (its columns: {', '.join(map(repr, found))})"
