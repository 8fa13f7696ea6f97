"""How a metric is declared: ``Param`` (one parameter) and ``MetricSpec`` (one metric), plus shared parameters.

Each metric declares itself once, as ``SPEC = MetricSpec(...)`` beside its numpy kernel in
``rankframe/metrics/<name>.py``; ``rankframe.registry`` collects the declarations and everything else (the name
parser, the accessor methods, the docs tables, the CLI's trec_eval names, the DuckDB engine's "nothing relevant"
rule, the tests of the SQL macros) is derived from them. See CONTRIBUTING.md, "Add a metric".
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .constraints import (  # noqa: F401 - re-exported: GainMap, sql_literal and K_MAX used to live here
    K_MAX,
    Choice,
    Constraint,
    GainMap,
    of_kind,
    sql_literal,
)
from .errors import ParameterError, unknown_name_error


@dataclass(frozen=True)
class Param:
    """One declared metric parameter; its rule is a constraint object (``rankframe.constraints``).

    Give the rule as ``constraint=`` or by a named shorthand, ``kind=`` ("choice" with ``choices``, "k",
    "threshold", "int>=1", "open_unit", "unit", "nonnegative", "base", "gains", "flag"; ``constraints.KINDS``).
    Every face reads ``constraint``, never ``kind``.
    """

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    kind: str | None = field(default=None, compare=False)  # a shorthand of ``constraint`` (constraints.KINDS)
    aliases: tuple[str, ...] = ()
    constraint: Constraint = None  # type: ignore[assignment]  # None: from kind, in __post_init__

    def __post_init__(self) -> None:
        if self.constraint is None:
            rule = of_kind(self.kind or "choice", self.choices, self.default)
            object.__setattr__(self, "constraint", rule)
        if self.choices is None and isinstance(self.constraint, Choice):  # Param(..., constraint=Choice((...)))
            object.__setattr__(self, "choices", self.constraint.choices)

    def expected(self) -> str:
        """Describe the allowed values, for error messages and docs (the constraint's words)."""
        return self.constraint.describe()

    def check(self, owner: str, value: Any) -> Any:
        """Return the value, normalised, or raise the declared-constraint error (with its fields)."""
        return self.constraint.check(owner, self.name, value)


def k_param() -> Param:
    """The cutoff parameter shared by most metrics."""
    return Param(
        "k", None, "cutoff: only the top k ranked items count (None = the whole list)", kind="k", aliases=("cutoff",)
    )


#: the peers a preset ``like=`` names: name -> the library and where its definitions are (the accuracy metrics'
#: presets, nDCG(like='rectools'), and the beyond-accuracy family's, rankframe.beyond.declare)
PEERS: dict[str, str] = {
    "recommenders": "Microsoft Recommenders (recommenders/evaluation/python_evaluation.py)",
    "recbole": "RecBole (recbole/evaluator/metrics.py)",
    "recmetrics": "recmetrics (recmetrics/metrics.py)",
    "evidently": "Evidently (src/evidently/metrics/recsys/)",
    "rectools": "RecTools (rectools/metrics/)",
    "replay": "RePlay (replay/metrics/)",
    "elliot": "Elliot (elliot/evaluation/metrics/)",
    "lenskit": "LensKit (lenskit/metrics/)",
    "informfully": "Informfully (Informfully/Recommenders cornac/metrics/diversity.py, RADio)",
    "ndeval": "ndeval (the TREC Web track's diversity evaluation; pyndeval, ir_measures' provider)",
    "tf_ranking": "TF-Ranking (tensorflow_ranking/python/metrics_impl.py: AlphaDCGMetric, PrecisionIAMetric)",
}


def like_param(presets: tuple[str, ...] | list[str]) -> Param:
    """The ``like=`` parameter of a metric with presets for these peers."""
    return Param(
        "like",
        None,
        "a peer whose conventions every other option takes unless given by name: "
        + ", ".join(f"'{p}' = {PEERS[p]}" for p in presets),
        choices=(None, *presets),
    )


def rel_param(default: float | None = 1) -> Param:
    """The relevance-threshold parameter (binary metrics default to 1, graded ones to None)."""
    if default is None:
        text = (
            "relevance threshold for gains: grades below it give no gain (None = use every positive grade "
            "as is, trec_eval)"
        )
    else:
        text = "relevance threshold: an item is relevant when its grade >= rel (trec_eval -l)"
    return Param("rel", default, text, kind="threshold", aliases=("threshold", "relevance_level"))


GAIN = Param(
    "gain",
    "linear",
    "gain of a grade g: 'linear' = g (trec_eval, scikit-learn), "
    "'exponential' = 2^g - 1 (Burges, gdeval, ranx ndcg_burges), "
    "'binary' = 1 for every positive grade (>= rel when set), the gain of binary relevance (RecTools)",
    choices=("linear", "exponential", "binary"),
)
IDEAL = Param(
    "ideal",
    "judged",
    "ideal ranking from 'judged' items (all judgments incl. unretrieved, trec_eval) "
    "or 'retrieved' items only (scikit-learn, torchmetrics)",
    choices=("judged", "retrieved"),
)
#: IDCG's and nDCG's ideal: nERR's two, and 'full' (the judged ideal list filled to the cutoff)
IDEAL_DCG = Param(
    "ideal",
    "judged",
    "ideal ranking from 'judged' items (all judgments incl. unretrieved, trec_eval) "
    "or 'retrieved' items only (scikit-learn, torchmetrics), or 'full' = the judged ideal list filled to all k "
    "positions with copies of its last gain, as if every query had k relevant items (RecTools' NDCG; with "
    "gain='binary' IDCG@k = sum_{i<=k} 1/log2(i+1))",
    choices=("judged", "retrieved", "full"),
)
#: the largest cutoff of ideal='full', whose ideal sums the discounts of k positions whatever the list's length
FULL_IDEAL_MAX_K = 10**6
LOG_BASE = Param(
    "log_base",
    2.0,
    "base b of the discount 1 / log_b(rank + 1) (2 = trec_eval; scikit-learn's log_base)",
    kind="base",
)
GAINS = Param(
    "gains",
    None,
    "gain of each listed grade, e.g. {0: 0, 1: 1, 2: 3}, applied before `gain` (unlisted grades keep their "
    "value; trec_eval ndcg's gain parameters, ir_measures gains=)",
    kind="gains",
)
JUDGED_ONLY = Param(
    "judged_only",
    False,
    "remove the unjudged retrieved items before computing (trec_eval -J, ir_measures judged_only=); the "
    "query-set policies still see the whole list",
    kind="flag",
)
TIES = Param(
    "ties",
    "first",
    "items with equal scores: 'first' = each keeps its own position in trec_eval's order (score descending, then "
    "item id descending); 'average' = each gets the mean gain of its tie group (McSherry & Najork; scikit-learn "
    "ndcg_score/dcg_score, torchmetrics). Ranks never tie: with a rank column both give the same value",
    choices=("first", "average"),
)
#: parameters that need the scores, which the list macros ``rf_<name>`` (grades in rank order) and the aggregates
#: ``rf_agg_<name>`` (positions and grades) never see: the engines and the SQL table macros take them (docs/sql.md,
#: "Tied scores", gives the aggregates' recipe: a tie-averaged gain from the window macro ``rf_tie_gain``)
SCORE_PARAMS = ("ties",)
#: parameters the engines apply before the kernel (the numpy kernels ``compute`` and the SQL aggregates
#: ``rf_agg_<name>`` never see them; the list macros ``rf_<name>`` take them)
ENGINE_PARAMS = ("judged_only",)
#: the weight of recall in (beta + 1) P R / (beta P + R), shared by F1 and SetF
BETA = Param(
    "beta",
    1.0,
    "weight of recall against precision in (beta + 1) P R / (beta P + R) (trec_eval set_F, ir_measures SetF); "
    "the textbook F_b (scikit-learn fbeta_score(beta=b)) is beta = b**2",
    kind="nonnegative",
)
MAX_GRADE = Param(
    "max_grade",
    4,
    "grade of certain satisfaction in ERR's Pr = (2^g - 1) / 2^max_grade (4 = gdeval, ir_measures ERR)",
    kind="int>=1",
)


#: what "nothing relevant" means for a metric whose value is undefined (0/0) without relevant items: the
#: ``no_relevant`` policy applies to those units. Key -> its meaning (docs/metrics.md); its SQL test is evaluate.sql's
#: ``-- rf:none <key>`` line, which the table macros and the DuckDB engine both read.
NOTHING_RELEVANT: dict[str, str] = {
    "relevant": ("no judged item has a grade >= rel (no relevant item at all)"),
    "gain": (
        "the ideal list has no positive gain: no judged item (retrieved item with ideal='retrieved') with a grade "
        "> 0 and >= rel when rel is set"
    ),
    "any_gain": (
        "the ideal list has no positive grade: no judged item (retrieved item with ideal='retrieved') with a grade > 0"
    ),
}


#: the declared directions (``MetricSpec.better``) and what :func:`rankframe.direction` answers for each
BETTER: dict[str | None, int] = {"higher": 1, "lower": -1, None: 0}


@dataclass(frozen=True)
class MetricSpec:
    """A declared metric: everything the rest of rankframe needs to know about it.

    ``example`` is the value of the metric (rounded to 5 digits) on the example frame of the accessor's
    docstrings (one query: grades [0, 2, 1] in rank order and one judged, unretrieved item of grade 1), and
    ``example_why`` its derivation by hand; both become the accessor method's doctest.
    """

    name: str  # file name (rankframe/metrics/<name>.py, sql/<name>.sql), accessor method, SQL macros rf_<name>
    canonical: str  # IR community name, used in metric strings and result labels
    aliases: tuple[str, ...]  # other input names (case-insensitive); trec_eval's names are added automatically
    summary: str
    params: tuple[Param, ...]
    bounded: bool = True  # value in [0, 1]
    perfect_is_one: bool = False  # a perfect ranking of all relevant items (k = None) scores 1
    nothing_relevant: str | None = None  # key of NOTHING_RELEVANT when undefined without relevant items
    binary: bool = True  # uses the relevance threshold, not the grades
    trec_eval: str | None = None  # trec_eval's name of the whole-list measure (map, ndcg, recip_rank, Rprec)
    #: trec_eval's family printed with the cutoff: <name>_<k> (P_5, ndcg_cut_10), or with the parameter written
    #: after @ when it is not k: <name>_<level:.2f> (iprec_at_recall_0.50)
    trec_eval_cut: str | None = None
    ir_measures: str | None = None  # ir_measures' name of the measure, where it has it
    example: str = ""  # value on the accessor's example frame (see above)
    example_why: str = ""  # its hand derivation
    sql_data_args: tuple[str, ...] = ()  # data arguments of rf_<name> after ``grades`` (n_rel, judged_grades, ...)
    #: (parameter, name in the SQL table macros) where rf_per_query / rf_means name it otherwise (one parameter of
    #: the table macros serves several metrics: graded_rel is CG/DCG/IDCG/nDCG's rel, p_denominator P's denominator)
    sql_table_params: tuple[tuple[str, str], ...] = ()
    count: bool = False  # a count (NumRel, ...): defined on an empty list, so no_retrieved='zero' keeps its value
    table_column: bool = True  # a column of the SQL table macros rf_per_query / rf_means (named canonical)
    #: (name, values of the parameter after @): a name that stands for several measures, one per value
    #: (trec_eval's iprec_at_recall is the 11-point curve IPrec@0.0 ... IPrec@1.0); names.expand reads it
    family: tuple[str, tuple[Any, ...]] | None = None
    order: int = 1000  # position in listings (docs tables, the SQL bundle)
    #: which way is better (:data:`BETTER`): "higher", "lower", or None for a value that is never better or worse
    #: (a count of the judgments or of the list, a property of the pool); ``rankframe.direction`` reads it
    #: (rankframe/better.py)
    better: str | None = "higher"
    #: ``(parameter, value, better)``: an option value that turns the direction (ILD's output='similarity': "lower")
    better_when: tuple[tuple[str, Any, str | None], ...] = ()
    #: why, in a few words: the direction table of docs/metrics.md and docs/beyond-accuracy.md
    better_why: str = ""
    #: a peer of :data:`PEERS` -> the option values of its conventions; the metric declares ``like_param`` and
    #: ``like=<peer>`` sets them, options given by name override them (nDCG(like='rectools'), the beyond family)
    presets: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for _, _, way in ((None, None, self.better), *self.better_when):
            if way not in BETTER:
                raise ValueError(f"{self.name}: better must be one of {list(BETTER)}, got {way!r}")
        for name, value, _ in self.better_when:
            self.param(name).check(self.name, value)
        for peer, values in self.presets.items():
            if peer not in PEERS:
                raise ValueError(f"{self.name}: unknown peer {peer!r} in presets")
            if peer not in (self.param("like").choices or ()):
                raise ValueError(f"{self.name}: the preset {peer!r} is not a choice of its like= parameter")
            for key, value in values.items():
                self.param(key).check(self.name, value)
        if self.nothing_relevant is not None and self.nothing_relevant not in NOTHING_RELEVANT:
            raise ValueError(
                f"{self.name}: nothing_relevant must be one of {sorted(NOTHING_RELEVANT)}, got "
                f"{self.nothing_relevant!r}"
            )

    def direction(self, kw: dict[str, Any] | None = None) -> int:
        """+1 (higher is better), -1 (lower is better) or 0 (neither) with these option values (``better_when``)."""
        way = self.better
        for name, value, turned in self.better_when:
            if kw is not None and kw.get(name) == value:
                way = turned
        return BETTER[way]

    @property
    def limits_grades(self) -> bool:
        """Declares ``max_grade``: every grade of the table must be <= it (ERR, nERR; checked on every face)."""
        return any(p.name == MAX_GRADE.name for p in self.params)

    @property
    def needs_relevant(self) -> bool:
        """Undefined (0/0) without relevant items: the ``no_relevant`` policy applies."""
        return self.nothing_relevant is not None

    def table_param(self, name: str) -> str:
        """The name of a parameter of this metric in the SQL table macros."""
        return dict(self.sql_table_params).get(name, name)

    @property
    def trec_names(self) -> tuple[str, ...]:
        """trec_eval's names of this metric (the whole-list name and the cutoff family)."""
        return tuple(n for n in (self.trec_eval, self.trec_eval_cut) if n)

    @property
    def at(self) -> str:
        """The parameter written after ``@`` in a metric string: the cutoff ``k``, or IPrec's recall level."""
        return self.extra.get("at", "k")

    def trec_cut_name(self, value: Any) -> str:
        """trec_eval's name of this measure with ``value`` after @ (``P_5``, ``iprec_at_recall_0.50``)."""
        if self.trec_eval_cut is None:
            raise ValueError(f"{self.canonical} has no trec_eval cutoff family")
        return f"{self.trec_eval_cut}_{value:.2f}" if self.at != "k" else f"{self.trec_eval_cut}_{value}"

    @property
    def sql_macro(self) -> str:
        """Name of this metric's scalar DuckDB macro."""
        return f"rf_{self.name}"

    def param(self, name: str) -> Param:
        """Look a parameter up by name or alias."""
        for p in self.params:
            if name == p.name or name in p.aliases:
                return p
        raise unknown_name_error(f"parameter of {self.canonical}", name, [p.name for p in self.params])

    @property
    def preset_params(self) -> tuple[str, ...]:
        """The parameters some preset of this metric sets.

        Their SQL macro defaults are NULL: the preset's value, or the declared default.
        """
        return tuple(dict.fromkeys(name for values in self.presets.values() for name in values))

    def after_bind(self, values: dict[str, Any], given: dict[str, str]) -> dict[str, Any]:
        """The bound values adjusted (``given``: the parameters given by name).

        The options not given by name take the values of the preset ``like=`` names (options given by name win).
        """
        peer = values.get("like")
        if peer is None:
            return values
        return {**values, **{k: v for k, v in self.presets[peer].items() if k not in given}}

    def shown_defaults(self, values: dict[str, Any]) -> dict[str, Any]:
        """The values a canonical metric string leaves out: the declared defaults, overlaid with the preset's.

        ``nDCG(like='rectools')@10`` and ``Gini(like='recbole')@10`` round-trip.
        """
        base = {p.name: p.default for p in self.params}
        peer = values.get("like")
        return base if peer is None else {**base, **self.presets[peer]}

    def needed(self, kw: dict[str, Any]) -> list[str]:
        """The extra inputs (train=, catalog=, features=) this metric reads with these option values: none here.

        The beyond-accuracy family (``BeyondSpec``) and the intent-aware family's recommender form (``IntentSpec``,
        ``like='informfully'``) declare theirs; the faces read this, never the family's name.
        """
        return []

    def reads_history(self, kw: dict[str, Any]) -> bool:
        """It reads each query's own history in train= with these option values (train='s query ids then matter)."""
        return False

    def bind(self, **given: Any) -> dict[str, Any]:
        """Fill defaults and check every value against its declaration."""
        values = {p.name: p.default for p in self.params}
        seen: dict[str, str] = {}
        for key, val in given.items():
            p = self.param(key)
            if p.name in seen:
                raise ParameterError(
                    f"The {p.name!r} parameter of {self.canonical} is given twice (as "
                    f"{seen[p.name]!r} and {key!r}); give it once.",
                    owner=self.canonical,
                    parameter=p.name,
                )
            seen[p.name] = key
            values[p.name] = p.check(self.name, val)
        values = self.after_bind(values, seen)
        if values.get("ideal") == "full" and (values.get("k") or 0) > FULL_IDEAL_MAX_K:
            raise ParameterError(
                f"{self.canonical} with ideal='full' takes k <= {FULL_IDEAL_MAX_K} (its ideal list fills all k "
                f"positions), got k={values['k']}.",
                owner=self.canonical,
                parameter="k",
            )
        for p in self.params:  # a parameter without a default must be given (IPrec's recall level)
            if values[p.name] is None and not p.constraint.accepts_none:
                raise ParameterError(
                    f"The {p.name!r} parameter of {self.canonical} must be given: {p.expected()}, "
                    f"e.g. {self.canonical}@0.5.",
                    owner=self.canonical,
                    parameter=p.name,
                    expected=p.expected(),
                )
        return values


class Asked(Protocol):
    """A metric as asked (``rankframe.measures.names.Measure``): its declaration and its bound options.

    The families' rules take it, so they need not import the room that parses metric names.
    """

    @property
    def spec(self) -> MetricSpec:
        """The metric's declaration."""
        ...

    @property
    def kw(self) -> dict[str, Any]:
        """Its options, bound (defaults filled in)."""
        ...


def collect(package: Any) -> tuple[tuple[MetricSpec, ...], dict[str, Callable]]:
    """Every ``SPEC`` of the modules of ``package`` with its ``compute`` kernel, in the modules' order.

    A module without ``SPEC`` is a helper of the family; a ``SPEC`` named otherwise than its module is an error.
    ``rankframe.measures.registry`` collects ``metrics/``, ``beyond/`` and ``intent/`` with it, and
    ``python -m rankframe.beyond.sqlgen`` the files of its own family.
    """
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        spec = getattr(module, "SPEC", None)
        if spec is None:
            continue  # a helper module without a metric of its own
        if spec.name != info.name:
            raise ImportError(f"{package.__name__}.{info.name} declares a metric named {spec.name!r}")
        found.append((spec, module.compute))
    return tuple(s for s, _ in found), {s.name: f for s, f in found}


#: the head of a public scalar macro (``rf_<name>``, ``rf_agg_<name>``) that checks its parameters inline: its
#: checks, one per parameter of its signature, are each parameter's constraint's SQL guard (generated, below)
_GUARDED = re.compile(
    r"CREATE OR REPLACE MACRO (?P<macro>rf_\w+)\((?P<args>[^)]*)\) AS\n    CASE WHEN (?P<checks>[^;]*?)"
    r"(?=\n         THEN NULL)"
)
#: a metric's helper ``rf__<name>_bad(<parameters>, owner)``: the checks its two public macros share
_HELPER = re.compile(
    r"CREATE OR REPLACE MACRO rf__(?P<name>\w+)_bad\((?P<args>[^)]*), owner\) AS\n    (?P<checks>[^;]*)"
)
#: between two checks of a head, of a helper
_GUARD_SEP, _HELPER_SEP = "\n              OR ", "\n        OR "


def _guards(spec: MetricSpec, where: str, exprs: list[str], owner: str, sep: str) -> str:
    """One SQL guard per parameter ``exprs`` (as the macro writes them: ``"like"`` quoted), joined by ``sep``."""
    params = {p.name: p for p in spec.params}
    guards = []
    for expr in exprs:
        name = expr.strip('"')
        if name not in params:
            raise ValueError(f"{where}: its parameter {name!r} is not a declared parameter of {spec.canonical}")
        guards.append(params[name].constraint.sql_guard(expr, name, owner))
    return sep.join(guards)


def sql_guards(spec: MetricSpec, macro: str, args: str) -> str:
    """The checks at the head of ``spec``'s public macro ``macro``: one SQL guard per parameter of its signature.

    ``args``: the signature as written (``grades, k := NULL, rel := 1``); each named argument is a declared
    parameter, checked by its constraint (:meth:`rankframe.constraints.Constraint.sql_guard`) in the words of
    ``macro``, in the signature's order.

    >>> from rankframe.registry import lookup
    >>> print(sql_guards(lookup("rr"), "rf_rr", "grades, k := NULL, rel := 1, judged_only := false"))
    rf__k(k, 'rf_rr') < 0
                  OR rf__rel(rel, 'rf_rr') IS NULL
                  OR rf__flag(judged_only, 'judged_only', 'rf_rr') IS NULL
    """
    named = [part.split(":=")[0].strip() for part in args.split(",") if ":=" in part]
    return _guards(spec, macro, named, sql_literal(macro), _GUARD_SEP)


def with_sql_guards(spec: MetricSpec, text: str) -> str:
    """``sql/<spec.name>.sql``'s text with its parameter checks generated (:func:`sql_guards`).

    The heads of its public macros and its helper ``rf__<name>_bad(<parameters>, owner)`` (one guard per parameter,
    in the words of the ``owner`` argument). A head that calls the helper is the helper's; a helper with more
    checks than parameters also states rules between them (idcg's ideal='full' needs k, ndcg's presets) and is
    left as written.
    """

    def head(m: re.Match[str]) -> str:
        if m["macro"] not in (spec.sql_macro, f"rf_agg_{spec.name}") or f"rf__{spec.name}_bad(" in m["checks"]:
            return m[0]
        return m[0][: m.start("checks") - m.start()] + sql_guards(spec, m["macro"], m["args"])

    def helper(m: re.Match[str]) -> str:
        exprs = [a.strip() for a in m["args"].split(",")]
        if m["name"] != spec.name or m["checks"].count(_HELPER_SEP) + 1 != len(exprs):
            return m[0]
        where = f"rf__{spec.name}_bad"
        return m[0][: m.start("checks") - m.start()] + _guards(spec, where, exprs, "owner", _HELPER_SEP)

    return _HELPER.sub(helper, _GUARDED.sub(head, text))
