"""``rankframe.anova``: the omnibus two-way (system x query) ANOVA, the system x segment interaction, effect sizes.

The per-query values come from :func:`rankframe.evaluate` (``per_query=True``, the system column and the
interaction column added to ``by``), as in :func:`rankframe.compare`; the same query-alignment rule (``missing=``,
:mod:`rankframe.stats.align`) makes the query sets agree, and :mod:`rankframe.stats.anova` computes every term of
every (segment, metric) at once from group sums. See ``docs/comparing.md``, "Omnibus ANOVA and interaction".

One job: the ANOVA face of every engine — its argument rules (shared with Spark and the CLI), the table and the
pairs table built from :mod:`rankframe.stats.anova`'s arrays; the statistics themselves live there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np
import pandas as pd

from . import stats
from .comparing.frame import misaligned_error, pair_indices, per_query_codes
from .comparing.rules import (
    EVALUATE_OPTIONS,
    check_system_name,
    check_system_series,
    hint,
    table_role,
)
from .core import progress as progress_
from .core.columns import Columns, column_list
from .core.errors import ParameterError, ValidationError, keyword, missing_columns_error, parameter_error
from .evaluate import evaluate, parse_metrics
from .measures.arguments import check_level
from .measures.names import Measure
from .stats.align import MISSING
from .stats.anova import AnovaResult, effect_size_interval, effect_sizes, split_plot_anova
from .tables import inputs

if TYPE_CHECKING:
    from .evaluate import Engine
    from .stats.align import Missing
    from .tables.inputs import Output

__all__ = ["ANOVA_COLUMNS", "PAIR_COLUMNS", "RANDOM", "RANDOM_COLUMNS", "TERMS", "anova", "anova_values"]

OWNER = "anova"
#: the ``term`` values: the systems' main effect, and the system x segment interaction (with ``interaction=``)
TERMS = ("system", "system:segment")
#: the columns of the ANOVA table after the segment columns
ANOVA_COLUMNS = (
    "metric",
    "term",
    "n",
    "systems",
    "groups",
    "statistic",
    "df",
    "df_error",
    "p_value",
    "ss",
    "ss_error",
    "mse",
    "partial_eta_sq",
    "note",
)
#: the ``random=`` values: the queries as random effects (the linear mixed model ``value ~ system + (1 | query)``)
RANDOM = ("query",)
#: the columns ``random="query"`` adds to the ANOVA table before ``note``: the REML variance components of the
#: random query effect and of the error, and the share of the query's, ``var_query / (var_query + var_error)``
RANDOM_COLUMNS = ("var_query", "var_error", "icc")
#: the columns of the ``pairs=True`` table after the segment columns (Sakai's effect size per pair of systems)
PAIR_COLUMNS = (
    *("metric", "system", "baseline", "n", "mean", "baseline_mean", "delta", "mse"),
    *("effect_size", "effect_low", "effect_high", "better", "note"),
)
#: ``out.attrs["effect_size"]`` of the pairs table
EFFECT_SIZE = "delta / sqrt(MSE), MSE the error mean square of the ANOVA (Sakai)"
_RESERVED = (*ANOVA_COLUMNS, *RANDOM_COLUMNS, *PAIR_COLUMNS, "value")


class AnovaCall(NamedTuple):
    """An :func:`anova` call with its arguments checked, before any evaluation."""

    df: Any
    qrels: Any
    names: list[str]
    by: list[str]
    interaction: str | None
    system: str
    columns: Columns
    missing: str
    pairs: bool
    output: str
    random: bool
    ci: float


def anova(
    df: Any,
    metrics: str | Measure | Iterable[str | Measure],
    *,
    system: str | None = None,
    by: str | Sequence[str] | None = None,
    interaction: str | None = None,
    pairs: bool = False,
    random: str | None = None,
    ci: float = 0.95,
    missing: Missing = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    engine: Engine = "pandas",
    output: Output = "pandas",
    progress: bool | None = None,
    **options: Any,
) -> pd.DataFrame | Any:  # a DataFrame; with output='arrow'/'polars' a Table (optional packages: Any)
    """The omnibus ANOVA of systems over queries per segment and metric, and the system x segment interaction.

    Within a segment and metric the per-query values form a randomized complete block design (queries are blocks,
    systems are treatments). The two-way ANOVA without replication tests H0 "every system has the same mean":
    ``F = (SS_system / (s - 1)) / MSE`` on ``(s - 1, (s - 1)(n - 1))`` degrees of freedom, ``MSE`` the residual
    (system x query) mean square. With ``interaction="length"`` the queries are split into groups by that column
    (every query in one group) and the split-plot ANOVA also tests the system x group interaction, H0 "the systems'
    differences are the same in every group": ``F`` on ``((s - 1)(g - 1), (s - 1)(n - g))`` degrees of freedom,
    the error being system x query(group); the ``system`` row then uses that error term too. Formulas:
    :mod:`rankframe.stats.anova`; how to read them: ``docs/comparing.md``, "Omnibus ANOVA and interaction".

    Parameters
    ----------
    df : table
        The long ranking table, any kind :func:`rankframe.evaluate` takes, with a column naming the system of each
        row (as for :func:`rankframe.compare`).
    metrics : str or list of str
        Metric names, e.g. ``["AP", "nDCG@10"]``.
    system : str, optional
        The system column (default: ``columns.system``, i.e. ``"system"``).
    by : str or list of str, optional
        Segment columns: one separate ANOVA per segment.
    interaction : str, optional
        A between-query column (query length, country, ...) whose interaction with the systems is tested (term
        ``"system:segment"``); every query must have one value of it (within a segment of ``by``).
    pairs : bool, default False
        Return Sakai's effect size of every pair of systems instead of the ANOVA table: ``delta / sqrt(MSE)``,
        ``delta`` the difference of the two systems' means, ``MSE`` the ANOVA's error mean square (Sakai,
        "Topic set size design", 2016; *Laboratory Experiments in Information Retrieval*, 2018, ch. 5), with its
        interval ``[effect_low, effect_high]`` at level ``ci``: the pair's t statistic ``effect * sqrt(n / 2)`` on
        the error df inverted through the noncentral t distribution
        (:func:`rankframe.stats.anova.effect_size_interval`).
    ci : float, default 0.95
        The level of the pairs' effect size intervals (``pairs=True``).
    random : {None, "query"}, default None
        ``"query"``: also fit the linear mixed model with random query effects, ``value ~ system + (1 | query)``
        (``value ~ system * group + (1 | query)``, queries nested in groups, with ``interaction=``), by REML, and
        add its variance components ``var_query`` (the queries'), ``var_error`` and ``icc = var_query / (var_query +
        var_error)`` to every row. The design is balanced after the alignment, so REML has a closed form from the
        ANOVA's sums (``var_query = max(0, (MS_query - MSE) / s)``; :mod:`rankframe.stats.anova`), and the mixed
        model's F tests of the fixed effects are the ANOVA's rows.
    missing : {"error", "zero", "drop"}, default "error"
        :func:`rankframe.compare`'s rule for a query some systems of a segment (or group) have a value for and
        others not: an error naming a few, 0 for the systems that lack it, or the query left out.
    columns, qrels, engine, output, progress, **options
        As for :func:`rankframe.compare` (the evaluate options ``no_relevant``, ``validate``, ... are passed on).

    Returns
    -------
    DataFrame
        Without ``pairs``: columns ``[*by, metric, term, n, systems, groups, statistic, df, df_error, p_value, ss,
        ss_error, mse, partial_eta_sq, note]``, one row per (segment, metric, term); ``term`` is ``"system"``, and
        ``"system:segment"`` with ``interaction=``; ``n`` queries, ``systems`` and ``groups`` (1 without
        ``interaction``) counted; ``statistic`` is F, ``df`` its numerator and ``df_error`` its denominator degrees
        of freedom, ``p_value = P(F >= statistic)``, ``ss`` the term's sum of squares, ``mse = ss_error /
        df_error``, ``partial_eta_sq = ss / (ss + ss_error)``; with ``random="query"``, ``var_query``,
        ``var_error`` and ``icc`` (the same on both terms of a segment and metric) before ``note``; ``note`` says
        why a value is NaN. With
        ``pairs=True``: ``[*by, metric, system, baseline, n, mean, baseline_mean, delta, mse, effect_size, effect_low,
        effect_high, better, note]``,
        every pair of systems (``system`` later in the sorted order); ``delta = mean - baseline_mean``, and
        ``better`` names the system of the pair with the better mean in the metric's direction
        (:func:`rankframe.direction`: the lower ARP), None when the means are equal (:func:`rankframe.stats.equal`),
        either is NaN or the metric has no direction (a count). ``out.attrs`` records ``missing`` and
        ``interaction`` (and ``effect_size`` for the pairs).

    Raises
    ------
    ValidationError
        No system column, fewer than 2 systems, null systems, misaligned queries (``missing="error"``), a query in
        two groups of ``interaction``, or any table rule of :func:`rankframe.evaluate`.
    ParameterError
        A bad argument, or a segment / interaction / system column that collides with an output column.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankframe.anova import anova
    >>> df = pd.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "query": [1, 1, 2, 2, 3, 3] * 2,
    ...                    "item": ["a", "b"] * 6, "rank": [1, 2] * 6,
    ...                    "relevance": [0, 1, 0, 1, 1, 0,   1, 0, 1, 0, 0, 1]})
    >>> out = anova(df, "RR")   # RR: A = 1/2, 1/2, 1; B = 1, 1, 1/2
    >>> # two systems: F = t**2 of the paired t-test; d = 1/2, 1/2, -1/2, mean 1/6, sd**2 = 1/3, t = 1/2, F = 1/4
    >>> out[["metric", "term", "n", "statistic", "df", "df_error"]]
      metric    term  n  statistic   df  df_error
    0     RR  system  3       0.25  1.0       2.0
    >>> # random="query": query means 3/4, 3/4, 3/4, so SS_query = 0 < MSE: REML's boundary, var_query = 0 and
    >>> # var_error = (SS_query + SS_error) / (df_query + df_error) = (0 + 1/3) / (2 + 2) = 1/12
    >>> anova(df, "RR", random="query")[["var_query", "var_error", "icc"]].round(6)
       var_query  var_error  icc
    0        0.0   0.083333  0.0
    """
    call = checked_call(
        df,
        metrics,
        system=system,
        by=by,
        interaction=interaction,
        pairs=pairs,
        random=random,
        ci=ci,
        missing=missing,
        columns=columns,
        qrels=qrels,
        engine=engine,
        output=output,
        **options,
    )
    with progress_.using(progress):
        extra = [call.interaction] if call.interaction else []
        per = evaluate(
            call.df,
            call.names,
            by=[*call.by, *extra, call.system],
            per_query=True,
            columns=call.columns,
            qrels=call.qrels,
            engine=engine,
            **options,
        )
    out = anova_values(
        per,
        call.names,
        call.by,
        call.interaction,
        call.columns.query,
        call.system,
        call.missing,
        pairs,
        call.random,
        call.ci,
    )
    return inputs.from_pandas(out, call.output)


def checked_call(
    df: Any,
    metrics: Any,
    *,
    system: str | None = None,
    by: Any = None,
    interaction: str | None = None,
    pairs: bool = False,
    random: str | None = None,
    ci: float = 0.95,
    missing: str = "error",
    columns: Columns | dict | None = None,
    qrels: Any = None,
    engine: str = "pandas",
    output: str = "pandas",
    **options: Any,
) -> AnovaCall:
    """Every check of :func:`anova` that comes before the evaluation (compare's rules, in anova's words)."""
    if not isinstance(engine, str) or engine.lower() not in ("pandas", "duckdb"):
        raise parameter_error(OWNER, "engine", "one of 'pandas', 'duckdb'", engine)
    for key in options:
        if key not in EVALUATE_OPTIONS:
            raise ParameterError(
                f"anova got an unknown option {key!r}; the evaluate options it passes on are "
                f"{list(EVALUATE_OPTIONS)}.{hint(key, EVALUATE_OPTIONS)}",
                owner=OWNER,
                parameter=key,
                expected=f"one of the evaluate options {list(EVALUATE_OPTIONS)}",
                got=options[key],
            )
    system, by, columns, names, missing = checked_arguments(
        metrics, system=system, by=by, interaction=interaction, pairs=pairs, missing=missing, columns=columns
    )
    with_random = random_option(random, pairs)
    level = check_level(OWNER, ci)
    output = inputs.check_output(output, OWNER)
    if inputs.kind(df) not in ("path", "relation") or qrels is not None:
        df = inputs.to_pandas(df, owner=OWNER, name="df", columns=columns)
        if qrels is not None:
            qrels = inputs.to_pandas(qrels, owner=OWNER, name="qrels", columns=columns)
        absent = [c for c in [system, *([interaction] if interaction else [])] if c not in df.columns]
        if absent:
            raise missing_columns_error(absent, list(df.columns))
        check_system_series(df[system], system, OWNER)
    return AnovaCall(
        df, qrels, names, by, interaction, system, columns, missing, bool(pairs), output, with_random, level
    )


def random_option(random: object, pairs: object = False) -> bool:
    """Whether ``random=`` asks for the random query effect's variance components (every face's check)."""
    if random is None:
        return False
    if not isinstance(random, str) or random.lower() not in RANDOM:
        raise parameter_error(OWNER, "random", "None or " + ", ".join(map(repr, RANDOM)), random)
    if pairs:
        raise ParameterError(
            "anova got random='query' with pairs=True: random= adds variance components to the ANOVA table, "
            "pairs=True returns the pairs table instead; pass one of them",
            owner=OWNER,
            parameter="random",
        )
    return True


def checked_arguments(
    metrics: Any,
    *,
    system: str | None,
    by: Any,
    interaction: str | None,
    pairs: bool,
    missing: str,
    columns: Columns | dict | None,
) -> tuple[str, list[str], Columns, list[str], Missing]:
    """The checks of anova's arguments that need no data (every face): ``(system, by, columns, names, missing)``."""
    columns = Columns.coerce(columns)
    if system is None:
        system = columns.system
    elif isinstance(system, str) and system != columns.system:
        columns = columns.with_(system=system)
    by = column_list(by, OWNER)
    if interaction is not None and not isinstance(interaction, str):
        raise parameter_error(OWNER, "interaction", "None or a column name (str)", interaction)
    if not isinstance(pairs, (bool, np.bool_)):
        raise parameter_error(OWNER, "pairs", "True or False", pairs)
    if not isinstance(missing, str) or missing.lower() not in MISSING:
        raise parameter_error(OWNER, "missing", "one of " + ", ".join(map(repr, MISSING)), missing)
    names = [str(m) for m in parse_metrics(metrics, OWNER, face="anova")]
    check_names(system, by, interaction, columns)
    return system, by, columns, names, cast("Missing", missing.lower())


def check_names(system: object, by: list[str], interaction: str | None, columns: Columns) -> None:
    """The system and interaction columns: names, not roles, not segments, not an output column's name."""
    check_system_name(system, by, columns, OWNER)
    role = table_role(interaction, columns)
    if role:
        raise ParameterError(
            f"the interaction column {interaction!r} is the table's {role} column; pass {keyword('interaction')} a "
            "column that names the group of each query",
            owner=OWNER,
            parameter="interaction",
        )
    if interaction is not None and (interaction in by or interaction == system):
        where = "the system column" if interaction == system else f"in {keyword('by', by)}"
        raise ParameterError(
            f"the interaction column {interaction!r} is {where}: {keyword('interaction')} names a between-query "
            f"column (query length, country, ...) whose groups anova compares within each segment of {keyword('by')}",
            owner=OWNER,
            parameter="interaction",
        )
    # the system column names the systems of the per-query values and the pairs table: only metric/value clash there
    clash: list[object] = [c for c in [*by, *([interaction] if interaction else [])] if c in _RESERVED]
    clash += [c for c in [system] if c in ("metric", "value")]
    if clash:
        raise ParameterError(
            f"the column {clash[0]!r} has the name of an output column of anova {sorted(set(_RESERVED))}; "
            f"rename it first, e.g. df.rename(columns={{{clash[0]!r}: '{clash[0]}_'}})",
            owner="anova",
            parameter="by" if clash[0] in by else "interaction" if clash[0] == interaction else "system",
            got=clash[0],
        )


def anova_values(
    per: pd.DataFrame,
    names: list[str],
    by: list[str],
    interaction: str | None,
    query: str,
    system: str,
    missing: str = "error",
    pairs: bool = False,
    random: bool = False,
    ci: float = 0.95,
) -> pd.DataFrame:
    """The ANOVA (or the pairs table) from per-query values ``[*by, interaction, system, query, metric, value]``.

    ``random``: add :data:`RANDOM_COLUMNS` (checked by :func:`random_option`); ``ci``: the level of the pairs'
    effect size intervals.
    """
    check_system_series(per[system], system, OWNER)
    segs = [*by, *([interaction] if interaction else [])]
    seg_keys, offsets, row, row_q, q_uniques, m_codes, s_codes, s_uniques = per_query_codes(
        per, segs, query, system, names
    )
    n_rows, n_metrics, n_systems = offsets[-1], len(names), len(s_uniques)
    values, exists = stats.pivot(
        row, m_codes, s_codes, per["value"].to_numpy(np.float64), (n_rows, n_metrics, n_systems)
    )
    alignment = stats.align(values, exists, offsets, missing)
    row_seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    if missing == "error" and alignment.misaligned[0].size:
        raise misaligned_error(alignment, seg_keys, segs, row_seg, row_q, q_uniques, names, s_uniques, query, system)
    if interaction:
        outer = (
            seg_keys.groupby(by, sort=False, dropna=False, observed=True).ngroup().to_numpy(np.int64)
            if by
            else np.zeros(len(seg_keys), dtype=np.int64)
        )
        first = np.concatenate([[0], np.flatnonzero(np.diff(outer)) + 1])
        outer_offsets = offsets[np.concatenate([first, [len(outer)]])]
        _check_one_group(outer[row_seg], row_q, q_uniques, seg_keys, row_seg, by, interaction, query)
        keys = seg_keys.iloc[first][by].reset_index(drop=True) if by else None
        result = split_plot_anova(alignment.values, outer_offsets, offsets)
    else:
        keys = seg_keys if by else None
        result = split_plot_anova(alignment.values, offsets)
    if pairs:
        out = pairs_frame(result, keys, names, pd.Index(s_uniques), ci)
        out.attrs.update(effect_size=EFFECT_SIZE, ci=ci)
    else:
        out = anova_frame(result, keys, names, bool(interaction), random)
    out.attrs.update(missing=missing, interaction=interaction)
    if missing != "error":
        out.attrs.update(filled=alignment.n_filled, dropped=alignment.n_dropped)
    return out


def _check_one_group(
    outer_row: np.ndarray,
    row_q: np.ndarray,
    q_uniques: Any,
    seg_keys: pd.DataFrame,
    row_seg: np.ndarray,
    by: list[str],
    interaction: str,
    query: str,
) -> None:
    """Every query in one group of the interaction column (within its segment of ``by``)."""
    key = outer_row * max(len(q_uniques), 1) + row_q
    order = np.argsort(key, kind="stable")
    twice = np.flatnonzero(np.diff(key[order]) == 0)
    if twice.size:
        rows = np.unique(np.concatenate([order[twice], order[twice + 1]]))[:6]
        ex = seg_keys.iloc[row_seg[rows]].reset_index(drop=True)
        ex.insert(0, query, np.asarray(q_uniques)[row_q[rows]])
        raise one_group_error(interaction, by, int(twice.size), ex)


def one_group_error(interaction: str, by: list[str], count: int, examples: pd.DataFrame) -> ValidationError:
    """A query in several groups of the interaction column (every face's words)."""
    rule = (
        f"every query must lie in one group of the interaction column {interaction!r} (a between-query factor"
        f"{' within each segment of ' + keyword('by', by) if by else ''}); {count} query(ies) are in several"
    )
    return ValidationError([{"column": interaction, "rule": rule, "count": count, "examples": examples}])


def _segment_rows(keys: pd.DataFrame | None, n_seg: int, repeat: int) -> pd.DataFrame:
    if keys is None:
        return pd.DataFrame(index=range(n_seg * repeat))
    return keys.iloc[np.repeat(np.arange(n_seg), repeat)].reset_index(drop=True)


def anova_frame(
    r: AnovaResult, keys: pd.DataFrame | None, names: list[str], with_interaction: bool, random: bool = False
) -> pd.DataFrame:
    """One row per (segment, metric, term); ``random``: with the :data:`RANDOM_COLUMNS` before ``note``."""
    terms = TERMS if with_interaction else TERMS[:1]
    n_seg, n_metrics, n_terms = r.n.shape[0], len(names), len(terms)

    def stack(system: np.ndarray, inter: np.ndarray) -> np.ndarray:
        parts = [system, inter][:n_terms]
        return np.stack(parts, axis=-1).ravel()  # (segment, metric, term)

    def rep(a: np.ndarray) -> np.ndarray:
        return np.repeat(np.asarray(a).ravel(), n_terms)

    out = _segment_rows(keys, n_seg, n_metrics * n_terms)
    out["metric"] = np.tile(np.repeat(np.asarray(names, dtype=object), n_terms), n_seg)
    out["term"] = np.tile(np.asarray(terms, dtype=object), n_seg * n_metrics)
    out["n"] = rep(r.n).astype(np.int64)
    out["systems"] = rep(r.s).astype(np.int64)
    out["groups"] = rep(r.g).astype(np.int64)
    out["statistic"] = stack(r.f_system, r.f_interaction)
    out["df"] = stack(r.df_system, r.df_interaction)
    out["df_error"] = rep(r.df_error)
    out["p_value"] = stack(r.p_system, r.p_interaction)
    ss = stack(r.ss_system, r.ss_interaction)
    ss_error = rep(r.ss_error)
    out["ss"] = ss
    out["ss_error"] = ss_error
    out["mse"] = rep(r.mse)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["partial_eta_sq"] = np.where(ss + ss_error > 0, ss / (ss + ss_error), np.nan)
    if random:
        for name in RANDOM_COLUMNS:
            out[name] = rep(getattr(r, name))
        out.attrs.update(random="query: value ~ system (* group) + (1 | query), REML (closed form, balanced design)")
    out["note"] = pd.Series(stack(r.note_system, r.note_interaction), dtype=object)
    out.attrs.update(test="F (two-way ANOVA without replication; split plot with interaction=)")
    return out


def better_of_pairs(out: pd.DataFrame, names: list[str], n_pairs: int) -> pd.Series:
    """The system of each pair with the better mean in the metric's direction (:func:`rankframe.direction`).

    None where the two means are equal by the one rule (:func:`rankframe.stats.equal`), either is NaN, or the metric
    has no direction. Not a test: the pairs table has effect sizes, not p-values.
    """
    from .measures.better import of_labels

    way = np.tile(np.repeat(of_labels(names), n_pairs), len(out) // max(len(names) * n_pairs, 1))
    x, y = out["mean"].to_numpy(np.float64), out["baseline_mean"].to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        ahead = np.sign(way * (x - y))
    ahead[np.isnan(ahead) | stats.equal(x, y)] = 0
    who = np.full(len(out), None, dtype=object)
    who[ahead > 0] = out["system"].to_numpy(object)[ahead > 0]
    who[ahead < 0] = out["baseline"].to_numpy(object)[ahead < 0]
    return pd.Series(who, dtype=object, index=out.index)


def pairs_frame(
    r: AnovaResult, keys: pd.DataFrame | None, names: list[str], labels: pd.Index, ci: float = 0.95
) -> pd.DataFrame:
    """One row per (segment, metric, pair of systems): delta, delta / sqrt(MSE) and its interval at level ``ci``."""
    pair_idx = pair_indices(len(labels), None, "all")
    n_seg, n_metrics, n_pairs = r.n.shape[0], len(names), len(pair_idx)
    delta, effect = effect_sizes(r, pair_idx)
    out = _segment_rows(keys, n_seg, n_metrics * n_pairs)
    out["metric"] = np.tile(np.repeat(np.asarray(names, dtype=object), n_pairs), n_seg)
    out["system"] = labels.take(np.tile(pair_idx[:, 0], n_seg * n_metrics))
    out["baseline"] = labels.take(np.tile(pair_idx[:, 1], n_seg * n_metrics))
    out["n"] = np.repeat(r.n.ravel(), n_pairs).astype(np.int64)
    out["mean"] = r.means[:, :, pair_idx[:, 0]].ravel()
    out["baseline_mean"] = r.means[:, :, pair_idx[:, 1]].ravel()
    out["delta"] = delta.ravel()
    out["mse"] = np.repeat(r.mse.ravel(), n_pairs)
    out["effect_size"] = effect.ravel()
    low, high = effect_size_interval(r, effect, ci)
    out["effect_low"] = low.ravel()
    out["effect_high"] = high.ravel()
    out["better"] = better_of_pairs(out, names, n_pairs)
    note = np.repeat(r.note_system.ravel(), n_pairs)
    absent = np.isnan(delta.ravel()) & (note == None)  # noqa: E711 - elementwise on an object array
    note[absent] = "a system of the pair has no queries in this segment"
    out["note"] = pd.Series(note, dtype=object)
    return out
