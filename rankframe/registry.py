"""The declared metric set: names, aliases, parameters, properties.

Everything that needs to know which metrics exist reads this module: the metric-name parser
(``names.py``), the accessor's methods, the error messages, the DuckDB macro-parity test and the
property tests. Kernels live in ``rankframe/metrics/<name>.py`` and ``sql/<name>.sql``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import ParameterError, parameter_error, unknown_name_error

_MISSING = object()
K_MAX = 2**63 - 1  # a cutoff must fit a signed 64-bit integer (numpy positions, DuckDB BIGINT)


@dataclass(frozen=True)
class Param:
    """One declared metric parameter."""

    name: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    # "choice" | "k" | "threshold" | "int>=1" | "open_unit" | "unit" | "nonnegative" | "base" | "gains" | "flag"
    kind: str = "choice"
    aliases: tuple[str, ...] = ()

    def expected(self) -> str:
        """Describe the allowed values, for error messages and docs."""
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices or ())
        return {
            "k": "an int >= 1 (at most 2**63 - 1) or None",
            "threshold": "a finite number" + (" or None" if self.default is None else ""),
            "int>=1": "an int >= 1",
            "open_unit": "a float in the open interval (0, 1)",
            "unit": "a float in [0, 1]",
            "nonnegative": "a finite float >= 0",
            "base": "a finite float > 1",
            "gains": "a dict {grade: gain} of finite numbers, or None",
            "flag": "True or False",
        }[self.kind]

    def check(self, owner: str, value: Any) -> Any:
        """Return the value, normalised, or raise the declared-constraint error."""
        ok = True
        if self.kind == "choice":
            if isinstance(value, str):
                value = value.lower()
            ok = value in (self.choices or ())
        elif self.kind == "k":
            if value is not None:
                ok = _is_int(value) and 1 <= value <= K_MAX
                value = int(value) if ok else value
        elif self.kind == "threshold":
            if value is None:
                ok = self.default is None
            else:
                ok = _is_number(value) and math.isfinite(value)
        elif self.kind == "int>=1":
            ok = _is_int(value) and value >= 1
            value = int(value) if ok else value
        elif self.kind == "open_unit":
            ok = _is_number(value) and 0 < value < 1
            value = float(value) if ok else value
        elif self.kind == "unit":
            ok = _is_number(value) and 0 <= value <= 1
            value = float(value) if ok else value
        elif self.kind == "flag":
            ok = isinstance(value, (bool, np.bool_))
            value = bool(value) if ok else value
        elif self.kind == "base":
            ok = _is_number(value) and 1 < value < math.inf
            value = float(value) if ok else value
        elif self.kind == "gains":
            if value is not None:
                ok = isinstance(value, dict) and all(
                    _is_number(x) and math.isfinite(x) for pair in value.items() for x in pair
                )
                value = GainMap.of(value) if ok else value
        elif self.kind == "nonnegative":
            ok = _is_number(value) and 0 <= value < math.inf
            value = float(value) if ok else value
        if not ok:
            raise parameter_error(owner, self.name, self.expected(), value)
        return value


class GainMap(tuple):
    """A ``gains={grade: gain}`` mapping, normalised to sorted ``(grade, gain)`` pairs (hashable, comparable).

    Its repr is the dict's, so a metric label such as ``nDCG(gains={0: 0, 1: 1, 2: 3})`` parses back to it.
    """

    __slots__ = ()

    @classmethod
    def of(cls, mapping: dict) -> GainMap:
        """Normalise a dict of numbers (integral values print as ints)."""

        def num(x: Any) -> float | int:
            return int(x) if float(x).is_integer() else float(x)

        return cls(sorted((num(g), num(v)) for g, v in mapping.items()))

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{g!r}: {v!r}" for g, v in self) + "}"


def _is_int(v: Any) -> bool:
    import numbers

    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    import numbers

    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def k_param() -> Param:
    """The cutoff parameter shared by most metrics."""
    return Param(
        "k", None, "cutoff: only the top k ranked items count (None = the whole list)", kind="k", aliases=("cutoff",)
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
    "'exponential' = 2^g - 1 (Burges, gdeval, ranx ndcg_burges)",
    choices=("linear", "exponential"),
)
IDEAL = Param(
    "ideal",
    "judged",
    "ideal ranking from 'judged' items (all judgments incl. unretrieved, trec_eval) "
    "or 'retrieved' items only (scikit-learn, torchmetrics)",
    choices=("judged", "retrieved"),
)
LOG_BASE = Param(
    "log_base",
    2.0,
    "base b of the discount 1 / log_b(rank + 1) (2 = trec_eval; scikit-learn's log_base)",
    kind="base",
)
JUDGED_ONLY = Param(
    "judged_only",
    False,
    "remove the unjudged retrieved items before computing (trec_eval -J, ir_measures judged_only=); the "
    "query-set policies still see the whole list",
    kind="flag",
)
GAINS = Param(
    "gains",
    None,
    "gain of each listed grade, e.g. {0: 0, 1: 1, 2: 3}, applied before `gain` (unlisted grades keep their "
    "value; trec_eval ndcg's gain parameters, ir_measures gains=)",
    kind="gains",
)
MAX_GRADE = Param(
    "max_grade",
    4,
    "grade of certain satisfaction in ERR's Pr = (2^g - 1) / 2^max_grade (4 = gdeval, ir_measures ERR)",
    kind="int>=1",
)


@dataclass(frozen=True)
class MetricSpec:
    """A declared metric."""

    name: str  # our method name, also the SQL macro suffix (rf_<name>)
    canonical: str  # IR community name, used in metric strings and result labels
    aliases: tuple[str, ...]
    summary: str
    params: tuple[Param, ...]
    bounded: bool = True  # value in [0, 1]
    perfect_is_one: bool = False  # a perfect ranking of all relevant items (k = None) scores 1
    needs_relevant: bool = False  # undefined (0/0) without relevant items: the no_relevant policy applies
    binary: bool = True  # uses the relevance threshold, not the grades
    trec_eval: str | None = None  # trec_eval measure name, where it has the metric
    extra: dict = field(default_factory=dict)

    @property
    def at(self) -> str:
        """The parameter written after ``@`` in a metric string: the cutoff ``k``, or IPrec's recall level."""
        return self.extra.get("at", "k")

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

    def bind(self, **given: Any) -> dict[str, Any]:
        """Fill defaults and check every value against its declaration."""
        values = {p.name: p.default for p in self.params}
        seen: dict[str, str] = {}
        for key, val in given.items():
            p = self.param(key)
            if p.name in seen:
                raise ParameterError(
                    f"The {p.name!r} parameter of {self.canonical} is given twice (as "
                    f"{seen[p.name]!r} and {key!r}); give it once."
                )
            seen[p.name] = key
            values[p.name] = p.check(self.name, val)
        for p in self.params:  # a parameter without a default must be given (IPrec's recall level)
            if values[p.name] is None and p.kind == "unit":
                raise ParameterError(
                    f"The {p.name!r} parameter of {self.canonical} must be given: {p.expected()}, "
                    f"e.g. {self.canonical}@0.5."
                )
        return values


def _spec(name, canonical, aliases, summary, params, **kw) -> MetricSpec:
    return MetricSpec(name, canonical, tuple(aliases), summary, tuple(params), **kw)


METRICS: tuple[MetricSpec, ...] = (
    _spec(
        "precision",
        "P",
        ["p", "precision"],
        "fraction of the top k that is relevant",
        [
            k_param(),
            rel_param(),
            Param(
                "denominator",
                "k",
                "'k' (trec_eval) or 'retrieved' = min(k, number retrieved)",
                choices=("k", "retrieved"),
            ),
            JUDGED_ONLY,
        ],
        trec_eval="P",
    ),
    _spec(
        "recall",
        "R",
        ["r", "recall"],
        "fraction of the relevant judged items found in the top k",
        [
            k_param(),
            rel_param(),
            Param(
                "denominator",
                "relevant",
                "'relevant' = all relevant judged (trec_eval) or 'min_k' = min(k, relevant) (capped recall)",
                choices=("relevant", "min_k"),
            ),
            JUDGED_ONLY,
        ],
        perfect_is_one=True,
        needs_relevant=True,
        trec_eval="recall",
    ),
    _spec(
        "ap",
        "AP",
        ["ap", "map", "average_precision"],
        "average precision at the ranks of relevant items",
        [
            k_param(),
            rel_param(),
            Param(
                "denominator",
                "relevant",
                "'relevant' = all relevant judged (trec_eval, "
                "ranx), 'min_k' = min(relevant, k) (Spark, MS Recommenders), "
                "'retrieved' = relevant found in the top k (torchmetrics)",
                choices=("relevant", "min_k", "retrieved"),
            ),
            JUDGED_ONLY,
        ],
        perfect_is_one=True,
        needs_relevant=True,
        trec_eval="map",
    ),
    _spec(
        "rr",
        "RR",
        ["rr", "mrr", "recip_rank", "reciprocal_rank"],
        "1 / rank of the first relevant item",
        [k_param(), rel_param(), JUDGED_ONLY],
        perfect_is_one=True,
        trec_eval="recip_rank",
    ),
    _spec(
        "cg",
        "CG",
        ["cg"],
        "sum of the gains of the top k",
        [k_param(), rel_param(None), GAIN],
        bounded=False,
        binary=False,
    ),
    _spec(
        "dcg",
        "DCG",
        ["dcg"],
        "sum of gain / log2(rank + 1) over the top k",
        [k_param(), rel_param(None), GAIN, LOG_BASE, GAINS],
        bounded=False,
        binary=False,
    ),
    _spec(
        "idcg",
        "IDCG",
        ["idcg"],
        "DCG of the ideal ordering",
        [k_param(), rel_param(None), GAIN, IDEAL, LOG_BASE, GAINS],
        bounded=False,
        binary=False,
    ),
    _spec(
        "ndcg",
        "nDCG",
        ["ndcg"],
        "DCG / IDCG",
        [k_param(), rel_param(None), GAIN, IDEAL, LOG_BASE, GAINS, JUDGED_ONLY],
        perfect_is_one=True,
        needs_relevant=True,
        binary=False,
        trec_eval="ndcg",
    ),
    _spec(
        "err",
        "ERR",
        ["err", "expected_reciprocal_rank"],
        "expected reciprocal rank (cascade model)",
        [k_param(), MAX_GRADE],
        binary=False,
    ),
    _spec(
        "nerr",
        "nERR",
        ["nerr"],
        "ERR / ERR of the ideal ordering",
        [k_param(), MAX_GRADE, IDEAL],
        perfect_is_one=True,
        needs_relevant=True,
        binary=False,
    ),
    _spec(
        "r_precision",
        "Rprec",
        ["rprec", "r_precision", "r-precision"],
        "precision at rank R = number relevant (with k: of the list cut at k, as trec_eval -M k)",
        [k_param(), rel_param(), JUDGED_ONLY],
        perfect_is_one=True,
        needs_relevant=True,
        trec_eval="Rprec",
    ),
    _spec(
        "hit_rate",
        "Success",
        ["success", "hit_rate", "hits", "hitrate"],
        "1 if a relevant item is in the top k",
        [k_param(), rel_param(), JUDGED_ONLY],
        perfect_is_one=True,
        trec_eval="success",
    ),
    _spec(
        "f1",
        "F1",
        ["f1", "f"],
        "weighted harmonic mean (beta + 1) P R / (beta P + R) of P@k and R@k (beta = 1: F1)",
        [
            k_param(),
            rel_param(),
            Param(
                "beta",
                1.0,
                "weight of recall against precision in (beta + 1) P R / (beta P + R), as SetF (trec_eval set_F, "
                "ir_measures); the textbook F_b (scikit-learn fbeta_score(beta=b)) is beta = b**2",
                kind="nonnegative",
            ),
        ],
        needs_relevant=True,
    ),
    _spec(
        "bpref",
        "Bpref",
        ["bpref"],
        "binary preference (trec_eval definition; with k: of the list cut at k, as trec_eval -M k)",
        [k_param(), rel_param()],
        perfect_is_one=True,
        needs_relevant=True,
        trec_eval="bpref",
    ),
    _spec(
        "rbp",
        "RBP",
        ["rbp", "rank_biased_precision"],
        "rank-biased precision (1 - p) sum p^(rank-1) rel",
        [k_param(), rel_param(), Param("p", 0.8, "persistence", kind="open_unit", aliases=("persistence",))],
    ),
    _spec(
        "judged",
        "Judged",
        ["judged"],
        "fraction of the top min(k, retrieved) that has a judgment",
        [k_param()],
        binary=False,
    ),
    _spec(
        "iprec",
        "IPrec",
        ["iprec", "iprec_at_recall", "interpolated_precision"],
        "interpolated precision at a recall level: the best precision at or after it (trec_eval)",
        [
            Param(
                "recall",
                None,
                "recall level r in [0, 1] (written after @: IPrec@0.5); it is reached at the "
                "floor(r |R| + 0.9)-th relevant item (trec_eval 9, pytrec_eval, ir_measures)",
                kind="unit",
            ),
            rel_param(),
            JUDGED_ONLY,
        ],
        perfect_is_one=True,
        needs_relevant=True,
        trec_eval="iprec_at_recall",
        extra={"at": "recall"},
    ),
    _spec(
        "infap",
        "infAP",
        ["infap", "inferred_ap"],
        "inferred AP: AP estimated from a sampled judgment pool (trec_eval, Yilmaz & Aslam)",
        [rel_param()],
        needs_relevant=True,
        trec_eval="infAP",
    ),
    _spec(
        "set_p",
        "SetP",
        ["setp", "set_p", "set_precision"],
        "relevant retrieved / retrieved, over the whole list (trec_eval set_P)",
        [rel_param(), JUDGED_ONLY],
        trec_eval="set_P",
    ),
    _spec(
        "set_r",
        "SetR",
        ["setr", "set_r", "set_recall"],
        "relevant retrieved / relevant judged, over the whole list (trec_eval set_recall)",
        [rel_param()],
        perfect_is_one=True,
        needs_relevant=True,
        trec_eval="set_recall",
    ),
    _spec(
        "set_f",
        "SetF",
        ["setf", "set_f"],
        "weighted harmonic mean (beta + 1) P R / (beta P + R) of SetP and SetR (trec_eval set_F)",
        [
            rel_param(),
            Param(
                "beta",
                1.0,
                "weight of recall against precision in (beta + 1) P R / (beta P + R) (trec_eval, ir_measures; the "
                "textbook F_b is beta = b**2)",
                kind="nonnegative",
            ),
            JUDGED_ONLY,
        ],
        needs_relevant=True,
        trec_eval="set_F",
    ),
    _spec(
        "set_ap",
        "SetAP",
        ["setap", "set_ap", "set_map"],
        "SetP x SetR = relevant retrieved^2 / (retrieved x relevant) (trec_eval set_map)",
        [rel_param(), JUDGED_ONLY],
        needs_relevant=True,
        trec_eval="set_map",
    ),
)

BY_NAME: dict[str, MetricSpec] = {m.name: m for m in METRICS}
_ALIASES: dict[str, MetricSpec] = {}
for _m in METRICS:
    for _a in (_m.name, _m.canonical, *_m.aliases):
        _ALIASES[_a.lower()] = _m


def lookup(name: str) -> MetricSpec:
    """Find a metric by any of its names (case-insensitive)."""
    spec = _ALIASES.get(name.lower())
    if spec is None:
        known = [m.canonical for m in METRICS] + [m.name for m in METRICS if m.name != m.canonical.lower()]
        raise unknown_name_error("metric", name, known)
    return spec


# Query-set policies: what a query's value is when its value is undefined or when it has no data.
POLICY_CHOICES = ("zero", "nan", "skip")
POLICIES: tuple[Param, ...] = (
    Param(
        "no_relevant",
        "zero",
        "judged query with nothing relevant (metrics undefined without relevant "
        "items): 'zero' counts it as 0 (trec_eval), 'nan' keeps it as NaN (left out of means), 'skip' drops it",
        choices=POLICY_CHOICES,
    ),
    Param(
        "no_retrieved",
        "zero",
        "judged query with nothing retrieved: 'zero' counts it as 0 (trec_eval -c, "
        "ir_measures), 'skip' drops it (trec_eval default), 'nan' keeps NaN",
        choices=POLICY_CHOICES,
    ),
    Param(
        "no_judged",
        "skip",
        "query with retrieved rows but no judgment at all: 'skip' drops it (trec_eval), "
        "'zero' scores it 0, 'nan' keeps NaN",
        choices=POLICY_CHOICES,
    ),
)


#: the one set of query-set defaults every face uses (evaluate, the accessor, the CLI; the SQL macros' defaults are
#: held against it by a test)
POLICY_DEFAULTS: dict[str, str] = {p.name: p.default for p in POLICIES}


def bind_policies(owner: str = "evaluate", **given: Any) -> dict[str, str]:
    """Fill the query-set policy defaults and check the given values."""
    values = {p.name: p.default for p in POLICIES}
    names = {p.name: p for p in POLICIES}
    for key, val in given.items():
        if key not in names:
            raise unknown_name_error("policy", key, names)
        values[key] = names[key].check(owner, val)
    return values


def params_markdown() -> str:
    """The parameter table of docs/metrics.md, generated from the declarations above."""
    lines = ["| metric | method / aliases | parameter | default | allowed | meaning |", "|---|---|---|---|---|---|"]
    for m in METRICS:
        names = ", ".join(dict.fromkeys([m.name, *m.aliases]))
        for i, p in enumerate(m.params):
            head = f"`{m.canonical}` | {names}" if i == 0 else " | "
            lines.append(f"| {head} | `{p.name}` | `{p.default!r}` | {p.expected()} | {p.description} |")
    return "\n".join(lines)


def write_params_doc(path: str = "docs/metrics.md") -> None:
    """Regenerate the parameter table between the markers of docs/metrics.md."""
    from pathlib import Path

    doc = Path(path).read_text()
    start, end = "<!-- params:start -->", "<!-- params:end -->"
    head, rest = doc.split(start, 1)
    _, tail = rest.split(end, 1)
    Path(path).write_text(f"{head}{start}\n{params_markdown()}\n{end}{tail}")
