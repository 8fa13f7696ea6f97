"""The rules of a comparison that need no per-query value, written once for every face of compare.

The parameters (``test``, ``ci``, ``ci_method``, ``correction``, ``pairs``, ``missing``, ``seed``, ``n_resamples``,
``engine``, ``family``, ``alternative``, ``margin`` and the evaluate options passed on), the system column (a column
name, not a role, not a segment, not an output column's name, present, no null value), the systems (at least 2) and the
baseline (one of them, matched by value, with a hint when only its text matches). pandas (:func:`rankframe.compare`),
DuckDB files and relations, Spark (:func:`rankframe.spark.compare`) and the CLI each gather what a rule needs their own
way (the frame's values, one DuckDB aggregate, Spark's distinct values) and call the rule here, so the messages are the
same on every face; anova and fuse call the system rules too, in their own name (``owner``). ``sql/compare.sql``
(``rf_compare``, ``rf_anova``) and ``sql/fuse.sql`` (``rf_fuse``) write the system rules' words again in SQL, and
``tests/hostile/test_compare_words.py`` holds their messages to the templates declared here (:data:`SYSTEM_IN_BY`,
:data:`TOO_FEW_SYSTEMS`, :data:`UNKNOWN_BASELINE`, :data:`NULL_SYSTEMS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from .. import stats
from ..core.columns import Columns
from ..core.errors import ParameterError, ValidationError, close_match, keyword, missing_columns_error, parameter_error
from ..core.numeric import check_number
from ..display import OUTPUT_COLUMNS
from ..evaluate import evaluate_parameters
from ..measures.arguments import check_level
from ..stats.align import MISSING
from ..stats.corrections import Correction
from ..stats.randomization import check_n_resamples, check_seed
from ..tables.schema import nested_failures

#: compare's tests and interval methods (the types of ``test=`` and ``ci_method=``; None picks the default)
Test = Literal["t", "randomization", "wilcoxon", "tukey"]
TESTS: tuple[Test, ...] = get_args(Test)
CiMethod = Literal["t", "bootstrap", "bca", "tukey"]
CI_METHODS: tuple[CiMethod, ...] = get_args(CiMethod)
#: the interval methods that resample queries (a seed, ``n_resamples``): percentile and BCa bootstrap
BOOTSTRAP_CI_METHODS = ("bootstrap", "bca")
Pairs = Literal["baseline", "all"]
PAIRS: tuple[Pairs, ...] = get_args(Pairs)
#: ``alternative=`` values: "greater" is the system's mean above the baseline's (delta > 0, or > -margin): better
#: where higher is better, worse where lower is better (ARP); ``delta`` is system - baseline whatever the direction
ALTERNATIVES = stats.ALTERNATIVES
#: the tests that take a one-sided ``alternative`` (Tukey's HSD is two-sided by construction)
ONE_SIDED_TESTS = ("t", "randomization", "wilcoxon")
CORRECTIONS = stats.CORRECTIONS
#: ``correction=`` values: ``"auto"`` (the default) is no correction after Tukey's HSD, Holm otherwise
CorrectionChoice = Literal["auto", Correction]
CORRECTION_CHOICES: tuple[CorrectionChoice | None, ...] = (*get_args(CorrectionChoice), None)


def westfall_young_test(test: str) -> ParameterError:
    """Westfall-Young with another test than the randomization test (it resamples that test's sign flips)."""
    return ParameterError(
        f"{keyword('correction', 'westfall-young')} resamples the sign flips of the randomization test (max-|t| "
        f"step-down over the same draws); pass {keyword('test', 'randomization')} with it, or use "
        f"{keyword('correction', 'holm')} with {keyword('test', test)}",
        owner="compare",
        parameter="correction",
    )


#: ``evaluate`` options that ``compare`` passes through unchanged (``**options``)
_OWN = {"df", "metrics", "by", "per_query", "columns", "qrels", "engine", "output", "progress", "n_resamples", "seed"}
EVALUATE_OPTIONS = tuple(p.name for p in evaluate_parameters(without=_OWN))

#: the system column listed among the segments (``by_arg``: the segments as the face's caller wrote them,
#: ``by_name``: that face's name of the parameter)
SYSTEM_IN_BY = (
    "the system column {system!r} is also in {by_arg}: {owner} adds it to the segments itself; {by_name} names "
    "only the segment columns (country, device, ...)"
)
#: a row without a system (the rule of a ValidationError on the system column)
NULL_SYSTEMS = "every row must name its system (no null values)"
#: fewer than 2 systems in the table (``found``: the few systems found)
TOO_FEW_SYSTEMS = "{owner} needs at least 2 systems in column {system!r}; found {count}: {found}"
#: a baseline that is not one of the table's systems (``shown``: up to 20 of them, ``hint``: a did-you-mean)
UNKNOWN_BASELINE = (
    "The 'baseline' parameter of {owner} must be one of the systems in column {system!r}: {shown}. "
    "Got {baseline!r} instead.{hint}"
)


def hint(name: object, known: Iterable[object]) -> str:
    """`` Hint: did you mean 'x'?`` for the closest of ``known`` (case counts), or ``""``."""
    close = close_match(name, known, ignore_case=False)
    return f" Hint: did you mean {close!r}?" if close else ""


def _choice(name: str, value: object, choices: Sequence[object]) -> Any:
    if isinstance(value, str):
        value = value.lower()
    if value not in choices:
        raise parameter_error("compare", name, "one of " + ", ".join(map(repr, choices)), value)
    return value


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_parameters(p: dict[str, Any]) -> dict[str, Any]:
    """Check every parameter that does not need the data; return them normalised."""
    p["pairs"] = _choice("pairs", p["pairs"], PAIRS)
    if p["test"] is None:
        p["test"] = "tukey" if p["pairs"] == "all" else "t"
    p["test"] = _choice("test", p["test"], TESTS)
    if p["test"] == "tukey" and p["pairs"] != "all":
        raise ParameterError(
            f"{keyword('test', 'tukey')} compares every pair of systems at once (the blocked Tukey HSD); pass "
            f"{keyword('pairs', 'all')} with it, or use {keyword('test', 't')}, 'randomization' or 'wilcoxon' "
            "against a baseline",
            owner="compare",
            parameter="test",
        )
    if p["ci_method"] is None:
        p["ci_method"] = "tukey" if p["test"] == "tukey" else "t"
    p["ci_method"] = _choice("ci_method", p["ci_method"], CI_METHODS)
    if p["ci_method"] == "tukey" and p["test"] != "tukey":
        raise ParameterError(
            f"{keyword('ci_method', 'tukey')} (simultaneous Tukey intervals) needs {keyword('test', 'tukey')}; with "
            f"{keyword('test', p['test'])} use {keyword('ci_method', 't')} or 'bootstrap'",
            owner="compare",
            parameter="ci_method",
        )
    p["ci"] = check_level("compare", p["ci"])
    p["correction"] = default_correction(_choice("correction", p["correction"], CORRECTION_CHOICES), p["test"])
    if p["correction"] == "westfall-young" and p["test"] != "randomization":
        raise westfall_young_test(p["test"])
    p["zero_method"] = check_zero_method(p.get("zero_method"), p["test"])
    p["alternative_asked"] = p.get("alternative_asked", p.get("alternative"))  # margin_side reads what was given
    p["margin"], p["alternative"] = check_alternative(p.get("alternative"), p.get("margin"), p["test"], p["ci_method"])
    p["missing"] = _choice("missing", p["missing"], MISSING)
    p["n_resamples"] = check_n_resamples(p["n_resamples"], "compare")
    p["seed"] = check_seed(p["seed"], "compare")
    if not isinstance(p["engine"], str) or p["engine"].lower() not in ("pandas", "duckdb"):
        raise parameter_error("compare", "engine", "one of 'pandas', 'duckdb'", p["engine"])
    for key in p["options"]:
        if key not in EVALUATE_OPTIONS:
            raise ParameterError(
                f"compare got an unknown option {key!r}; the evaluate options it passes on are "
                f"{list(EVALUATE_OPTIONS)}.{hint(key, EVALUATE_OPTIONS)}",
                owner="compare",
                parameter=key,
                expected=f"one of the evaluate options {list(EVALUATE_OPTIONS)}",
                got=p["options"][key],
            )
    return p


def check_zero_method(zero_method: object, test: str) -> str:
    """``zero_method`` checked: ``"wilcox"`` (default: zero differences dropped) or ``"pratt"`` (Wilcoxon test only)."""
    if zero_method is None:
        return "wilcox"
    value: str = _choice("zero_method", zero_method, stats.ZERO_METHODS)
    if value != "wilcox" and test != "wilcoxon":
        raise ParameterError(
            f"zero_method={value!r} is how the Wilcoxon signed-rank test treats zero differences; "
            f"{keyword('test', test)} has no such choice: pass {keyword('test', 'wilcoxon')}, or leave zero_method out",
            owner="compare",
            parameter="zero_method",
        )
    return value


def check_alternative(alternative: object, margin: object, test: str, ci_method: str) -> tuple[float | None, str]:
    """The checked ``margin`` (None, or a finite float >= 0) and ``alternative`` (its default filled in).

    ``alternative=None`` is ``"two-sided"``, or ``"greater"`` with a margin: ``margin=m`` is the non-inferiority
    test of H0 ``delta <= -m`` against ``delta > -m``, the one-sided t-test of ``delta + m > 0``; it needs
    ``test="t"`` and a one-sided alternative: ``"greater"``, or ``"less"`` for metrics where lower is better
    (:func:`margin_side` decides it once the metrics are known). Tukey's HSD (and its interval) is two-sided only.
    """
    checked: float | None = None
    if margin is not None:
        checked = check_number(
            "compare", "margin", margin, low=0, expected="None or a finite number >= 0 (in the metric's units)"
        )
        if test != "t":
            raise ParameterError(
                f"{keyword('margin')} (non-inferiority: H0 delta <= -margin) is a one-sided paired t-test of delta + "
                f"margin > 0; {keyword('test', test)} takes no margin: pass {keyword('test', 't')}, or leave "
                f"{keyword('margin', bare=True)} out",
                owner="compare",
                parameter="margin",
            )
    if alternative is None:
        alternative = "two-sided" if margin is None else "greater"
    side: str = _choice("alternative", alternative, ALTERNATIVES)
    if margin is not None and side == "two-sided":
        raise margin_side_error("", "delta <= -margin", "delta > -margin", "greater", side)
    if side != "two-sided" and (test not in ONE_SIDED_TESTS or ci_method == "tukey"):
        raise ParameterError(
            f"{keyword('alternative', side)}: the blocked Tukey HSD and its simultaneous intervals are two-sided; "
            f"use {keyword('alternative', 'two-sided')}, or test={ONE_SIDED_TESTS} with {keyword('ci_method', 't')} "
            "or 'bootstrap'",
            owner="compare",
            parameter="alternative",
        )
    return checked, side


def margin_side_error(what: str, h0: str, h1: str, side: str, got: str) -> ParameterError:
    """The error of an alternative that is not the non-inferiority test's side (the words of both directions)."""
    return ParameterError(
        f"{keyword('margin')} tests non-inferiority{what} (H0 {h0} against {h1}), a one-sided test of "
        f"{keyword('alternative', side)}; got {keyword('alternative', got)}: leave "
        f"{keyword('alternative', bare=True)} out or pass {side!r}",
        owner="compare",
        parameter="margin",
    )


def margin_side(names: list[str], margin: float | None, alternative: str, asked: object) -> str:
    """The side of the non-inferiority test of ``margin=`` in the metrics' direction (:func:`rankframe.direction`).

    "Not worse by ``margin`` or more": H0 ``delta <= -margin`` against ``delta > -margin`` (``"greater"``) where
    higher is better, H0 ``delta >= margin`` against ``delta < margin`` (``"less"``) where lower is better (ARP,
    Gini, Calibration); ``delta`` stays system - baseline. The metrics of one call share the margin, so they share
    a direction; a metric without one (a count) is never worse, and takes no margin. ``asked``: the alternative as
    given (None: the side is filled in). Without a margin, ``alternative`` as it is.
    """
    if margin is None:
        return alternative
    from ..measures.better import WORDS, of_labels

    ways = of_labels(names)
    none = [n for n, w in zip(names, ways) if w == 0]
    if none:
        raise ParameterError(
            f"{keyword('margin')} tests that a system is not worse than the baseline by the margin; "
            f"{', '.join(none)} has no "
            "direction (never better or worse: docs/metrics.md, 'Which way is better'): leave it out of a call "
            "with a margin",
            owner="compare",
            parameter="margin",
        )
    if len(set(ways.tolist())) > 1:
        lower = [n for n, w in zip(names, ways) if w < 0]
        raise ParameterError(
            f"{keyword('margin')} is one margin in the metrics' units, on one side: {', '.join(lower)} "
            f"{WORDS[-1]}, the others "
            f"{WORDS[1]}; compare them in separate calls, each with its own margin",
            owner="compare",
            parameter="margin",
        )
    higher = bool(ways[0] > 0)
    side = "greater" if higher else "less"
    if asked is not None and alternative != side:
        h0, h1 = ("delta <= -margin", "delta > -margin") if higher else ("delta >= margin", "delta < margin")
        what = "" if higher else f" of {', '.join(names)} ({WORDS[-1]})"
        raise margin_side_error(what, h0, h1, side, alternative)
    return side


def default_correction(correction: str | None, test: str) -> str | None:
    """The correction ``"auto"`` stands for: none after Tukey's HSD, Holm after any other test.

    Tukey's p-values already control the family-wise error rate over the pairs of each segment and metric; Holm on
    top would correct them a second time.
    """
    if correction != "auto":
        return correction
    return None if test == "tukey" else "holm"


def family_columns(family: object, by: list[str]) -> list[str]:
    """The output columns that split the correction family ([] = one family: every comparison of the call)."""
    allowed = ["metric", *by, "system", "baseline"]
    if isinstance(family, str) and family.lower() == "all":
        return []
    cols = [family] if isinstance(family, str) else family
    if not isinstance(cols, (list, tuple)) or not cols or not all(isinstance(c, str) for c in cols):
        raise parameter_error("compare", "family", f"'all' or column name(s) among {allowed}", family)
    bad = [c for c in cols if c not in allowed]
    if bad:
        raise parameter_error(
            "compare", "family", f"'all' or column name(s) among {allowed}", family, hint(bad[0], allowed)
        )
    return list(dict.fromkeys(cols))


def check_family_correction(family: list[str], by: list[str], correction: str | None) -> None:
    """Westfall-Young's families lie within one segment: ``family=`` must name every segment column.

    The sign flips of the queries of one segment are drawn together; segments have their own queries and flips
    (an exactly enumerated small segment has no counterpart in a random one), so a family spanning segments has no
    joint resampling distribution to take the maximum over.
    """
    if correction != "westfall-young" or not by or set(by) <= set(family):
        return
    raise ParameterError(
        f"{keyword('correction', 'westfall-young')} adjusts over the comparisons of one segment (their queries share "
        f"the sign flips); with segments {by} pass family= naming them, e.g. family={[*by]!r} (one family per "
        f"segment) or family={[*by, 'metric']!r}; got family={family or 'all'!r}",
        owner="compare",
        parameter="correction",
    )


def check_system_name(system: object, by: list[str], columns: Columns, owner: str) -> None:
    """The ``system`` argument of ``owner`` (compare, anova): a column name, not a segment, not a role of the table."""
    if not isinstance(system, str):
        raise parameter_error(owner, "system", "a column name (str)", system)
    if system in by:
        raise ParameterError(
            SYSTEM_IN_BY.format(system=system, by_arg=keyword("by", by), owner=owner, by_name=keyword("by")),
            owner=owner,
            parameter="system",
        )
    role = table_role(system, columns)
    if role:
        raise ParameterError(
            f"the system column {system!r} is the table's {role} column; pass system= the "
            "column that names the system (run) of each row",
            owner=owner,
            parameter="system",
        )


def table_role(name: object, columns: Columns) -> str | None:
    """The role (query, item, rank, relevance, score) the column ``name`` plays in the long table, if any."""
    roles = {r: getattr(columns, r) for r in ("query", "item", "rank", "relevance", "score")}
    return next((r for r, c in roles.items() if c == name), None)


def check_system_column(system: object, by: list[str], columns: Columns, present: list, rename_hint: str) -> None:
    """The rules of the ``system`` argument shared by every face of compare (pandas, DuckDB and Spark).

    ``present`` lists the table's columns; ``rename_hint`` formats a rename call of that face for a column name.
    """
    check_system_name(system, by, columns, "compare")
    assert isinstance(system, str)  # check_system_name
    clash = [c for c in by if c in (*OUTPUT_COLUMNS, "value")] + [c for c in [system] if c in ("metric", "value")]
    if clash:
        raise ParameterError(
            f"the column {clash[0]!r} has the name of an output column of compare "
            f"{list(OUTPUT_COLUMNS)}; rename it first, e.g. {rename_hint.format(name=clash[0])}",
            owner="compare",
            parameter="by" if clash[0] in by else "system",
            got=clash[0],
        )
    if system not in present:
        raise missing_columns_error([system], list(present))


def null_systems_error(system: str, count: int, examples: pd.DataFrame | None) -> ValidationError:
    """The error of ``count`` rows without a system (``examples``: a few of them)."""
    return ValidationError([{"column": system, "rule": NULL_SYSTEMS, "count": int(count), "examples": examples}])


def check_frame_system(df: pd.DataFrame, system: str, by: list[str], columns: Columns) -> None:
    """The system column rules on a pandas frame: :func:`check_system_column`, then no null system."""
    if not isinstance(df, pd.DataFrame):
        raise parameter_error("compare", "df", "a pandas DataFrame", type(df).__name__)
    check_system_column(system, by, columns, list(df.columns), "df.rename(columns={{{name!r}: '{name}_'}})")
    check_system_values(df, system)


def check_system_values(frame: pd.DataFrame, system: str) -> None:
    """The system column's values: no null (:data:`NULL_SYSTEMS`, a few of ``frame``'s rows shown), no list or dict."""
    nulls = frame[system].isna()
    if nulls.any():
        raise null_systems_error(system, int(nulls.sum()), frame[nulls].head(5))
    nested = nested_failures(frame, [system])  # lists or dicts as systems: the long table's rule, before any pd.unique
    if nested:
        raise ValidationError(nested)


def distinct_systems(values: pd.Series) -> list:
    """The distinct systems of a column, in their order of appearance, as Python values (not numpy scalars)."""
    return [v.item() if isinstance(v, np.generic) else v for v in pd.unique(values)]


def check_systems(found: list, system: str, owner: str = "compare", table: str | None = None) -> None:
    """The one rule of the number of systems (compare, anova, fuse and their SQL macros): at least 2 among ``found``.

    ``found``: the distinct values of the system column, in the face's order; ``owner`` names the function in the
    words of :data:`TOO_FEW_SYSTEMS`; ``table`` the table of the ValidationError (``"runs to fuse"``), else the
    ranking table.
    """
    if len(found) < 2:
        rule = TOO_FEW_SYSTEMS.format(owner=owner, system=system, count=len(found), found=found[:5])
        failures = [{"column": system, "rule": rule, "count": 0, "examples": None}]
        raise ValidationError(failures) if table is None else ValidationError(failures, table=table)


def check_system_series(values: pd.Series, system: str, owner: str) -> None:
    """The system column's values (:func:`check_system_values`), then at least 2 systems (:func:`check_systems`)."""
    check_system_values(values.to_frame(system), system)
    check_systems(distinct_systems(values), system, owner)


def match_baseline(found: list, system: str, baseline: object) -> object:
    """The system(s) among ``found`` equal to ``baseline`` (the table's values, with their type), else a ParameterError.

    ``baseline`` is one system, or several as a list or tuple (:func:`several_baselines`): then a list of the
    matched systems. When only the text matches (``baseline="1"``, systems 1, 2), the message says the table's value
    has another type.
    """
    if isinstance(baseline, (list, tuple)):
        matched = [match_baseline(found, system, b) for b in several_baselines(baseline)]
        return matched[0] if len(matched) == 1 else matched  # one baseline in a list is that baseline
    exact = [s for s in found if s == baseline]
    if exact:
        return exact[0]
    matches = [s for s in found if str(s) == str(baseline)]
    why = f" (the table's value {matches[0]!r} has another type)" if matches else hint(baseline, found)
    shown = sorted(found, key=str)[:20]
    raise ParameterError(
        UNKNOWN_BASELINE.format(owner="compare", system=system, shown=shown, baseline=baseline, hint=why),
        owner="compare",
        parameter="baseline",
        expected=f"one of the systems in column {system!r}: {shown}",
        got=baseline,
        hint=why.strip() or None,
    )


def several_baselines(baseline: list | tuple) -> list:
    """The rule of several baselines (``baseline=["prod", "public"]``): at least one, each once.

    Every other system is compared with each of them, in the order given (the rows of one baseline are the rows
    ``baseline=that one`` gives, less the earlier baselines: two baselines are compared once, the later one against
    the earlier); the correction's family holds every row.
    """
    items = list(baseline)
    if not items:
        raise ParameterError(
            "The 'baseline' parameter of compare must name at least one system; got an empty list. "
            "Pass None for the default (the system of the table's first row)",
            owner="compare",
            parameter="baseline",
            got=[],
        )
    repeated = [b for i, b in enumerate(items) if b in items[:i]]
    if repeated:
        raise ParameterError(
            f"The 'baseline' parameter of compare must name each system once; {repeated[0]!r} is repeated in {items}",
            owner="compare",
            parameter="baseline",
            got=baseline,
        )
    return items


def baseline_positions(labels: list, baseline: object) -> list[int] | None:
    """The positions of the baseline(s) among the systems ``labels`` (None without a baseline)."""
    if baseline is None:
        return None
    wanted = baseline if isinstance(baseline, list) else [baseline]
    return [next(i for i, s in enumerate(labels) if s == b) for b in wanted]


def pick_baseline(df: pd.DataFrame, system: str, baseline: object, pairs: str) -> tuple[object, list]:
    """The baseline(s) (checked against the systems of the table) and the systems found.

    Without ``baseline``: the system of the first row with ``pairs="baseline"``, None with ``pairs="all"``.
    Several baselines (a list or tuple) come back as a list and need ``pairs="baseline"``.
    """
    found = distinct_systems(df[system])
    check_systems(found, system)
    check_baseline_pairs(baseline, pairs)
    if baseline is None:
        return (df[system].iloc[0] if pairs == "baseline" else None), found
    return match_baseline(found, system, baseline), found


def check_baseline_pairs(baseline: object, pairs: str) -> None:
    """Several baselines need ``pairs="baseline"``: with all pairs a baseline only orders them."""
    if isinstance(baseline, (list, tuple)) and pairs != "baseline":
        raise ParameterError(
            f"The 'baseline' parameter of compare names several systems ({list(baseline)}), which needs "
            f"{keyword('pairs', 'baseline')} (every system against each baseline); with {keyword('pairs', pairs)} name "
            "one system, "
            "which then only comes first in the order of the pairs",
            owner="compare",
            parameter="baseline",
        )


def source_baseline(
    source: object, system: str, baseline: object, by: list[str], columns: Columns, pairs: str, config: object
) -> object:
    """The system column rules and :func:`pick_baseline` for a file or DuckDB relation, from one aggregate in DuckDB."""
    from ..engines import duckdb_source

    info = duckdb_source.systems(source, system, duckdb_source.settings_from(config))
    check_system_column(system, by, columns, info.columns, "a view that renames it (SELECT * RENAME ({name} AS ...))")
    if info.nulls:
        raise null_systems_error(system, info.nulls, info.examples)
    seen = pd.DataFrame({system: pd.Series([*([info.first] if info.found else []), *info.found], dtype=object)})
    return pick_baseline(seen, system, baseline, pairs)[0]
