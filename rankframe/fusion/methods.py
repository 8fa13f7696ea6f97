"""The fusion methods and normalisations, each declared once: name, what it reads, parameters, ranx's name.

:func:`rankframe.fuse`, its messages, the docs' table and the tests read these declarations; the arithmetic of
each method is one small function of per-entry arrays (:mod:`rankframe.fusion.kernels`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.errors import ParameterError, did_you_mean


@dataclass(frozen=True)
class FusionMethod:
    """One unsupervised fusion method.

    ``reads`` is ``"score"`` (the runs' scores, after ``norm``) or ``"rank"`` (positions in each run);
    ``params`` the keyword parameters it takes (with ``rankframe.fuse``'s defaults); ``weighted`` whether it
    needs ``weights={system: weight}``; ``ranx`` the name of ``ranx.fuse(method=...)``.
    """

    name: str
    reads: str
    summary: str
    ranx: str
    params: tuple[str, ...] = ()
    weighted: bool = False


#: fused scores are rounded to this many significant digits before they are ordered (and returned), on every engine:
#: scores equal in exact arithmetic then tie, and the item tie-break orders them, whatever order a float sum took
#: (decision 0015, "Ties"). 12 digits: well above the 1e-9 the scores are held to, well below float64's ~16.
FUSED_DIGITS = 12

#: the parameters of the methods, with fuse()'s defaults (ranx's names)
PARAM_DEFAULTS: dict[str, object] = {"k": 60, "rank_base": 1, "phi": 0.8, "gamma": 1.0, "sigma": 0.01}

_METHODS = (
    FusionMethod("rrf", "rank", "sum of 1 / (k + rank)", "rrf", ("k", "rank_base")),
    FusionMethod("isr", "rank", "CombMNZ of 1 / rank^2", "isr"),
    FusionMethod("log_isr", "rank", "sum of 1 / rank^2, times log(n)", "log_isr"),
    FusionMethod("logn_isr", "rank", "sum of 1 / rank^2, times log(n + sigma)", "logn_isr", ("sigma",)),
    FusionMethod("rbc", "rank", "sum of (1 - phi) phi^(rank - 1)", "rbc", ("phi",)),
    FusionMethod("bordafuse", "rank", "sum of Borda points (N - rank + 1; unranked: the mean left)", "bordafuse"),
    FusionMethod("w_bordafuse", "rank", "weighted sum of Borda points", "w_bordafuse", weighted=True),
    FusionMethod("combsum", "score", "sum of the scores", "sum"),
    FusionMethod("combmnz", "score", "sum of the scores, times n", "mnz"),
    FusionMethod("combanz", "score", "sum of the scores / n (their mean)", "anz"),
    FusionMethod("combmax", "score", "largest score", "max"),
    FusionMethod("combmin", "score", "smallest score", "min"),
    FusionMethod("combmed", "score", "median score", "med"),
    FusionMethod("combgmnz", "score", "sum of the scores, times n^gamma", "gmnz", ("gamma",)),
    FusionMethod("wsum", "score", "weighted sum of the scores", "wsum", weighted=True),
    FusionMethod(
        "wmnz", "score", "sum of the scores times the sum of the weights of the runs holding it", "wmnz", weighted=True
    ),
    FusionMethod("mixed", "score", "weighted sum of the scores, times sqrt(n)", "mixed", weighted=True),
)

#: every method by name (n = the number of runs holding the item)
METHODS: dict[str, FusionMethod] = {m.name: m for m in _METHODS}

#: ranx's spelling of the comb* methods, accepted as input aliases
ALIASES: dict[str, str] = {
    **{m.ranx: m.name for m in _METHODS if m.ranx != m.name},
    **{f"comb_{m.ranx}": m.name for m in _METHODS if m.name.startswith("comb")},
    "weighted_bordafuse": "w_bordafuse",
}


@dataclass(frozen=True)
class Normalisation:
    """One per-(system, query) normalisation of a run's scores (ranx's ``norm=``)."""

    name: str
    reads: str  # "score" or "rank" (rank and borda only need the order)
    formula: str


NORMS: dict[str, Normalisation] = {
    n.name: n
    for n in (
        Normalisation("min-max", "score", "(s - min) / (max - min)"),
        Normalisation("max", "score", "s / max"),
        Normalisation("sum", "score", "(s - min) / (sum - n min)"),
        Normalisation("zmuv", "score", "(s - mean) / sd (population sd)"),
        Normalisation("rank", "rank", "1 - (rank - 1) / n"),
        Normalisation("borda", "rank", "1 - (rank - 1) / N; unranked: 1/2 - (n - 1) / (2 N); every candidate"),
        Normalisation("none", "score", "s (raw scores, no scale check)"),
    )
}
NORM_ALIASES = {"min_max": "min-max", "minmax": "min-max"}

#: the declared names as types, for ``fuse(method=, norm=)`` (a type cannot be built from the declarations above:
#: tests/project/test_literal_types.py holds each equal to them, in order)
FuseMethod = Literal[
    "rrf", "isr", "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse", "combsum", "combmnz", "combanz",
    "combmax", "combmin", "combmed", "combgmnz", "wsum", "wmnz", "mixed",
]  # fmt: skip
FuseNorm = Literal["min-max", "max", "sum", "zmuv", "rank", "borda", "none"]


@dataclass(frozen=True)
class Grid:
    """The search grid of a trained method (ranx's ``optimize_fusion``): one parameter, or the weights.

    ``param == "weights"``: every vector of one weight per system, each a multiple of ``step`` in [0, 1], summing
    to 1. Otherwise the values ``low, low + step, ..., high`` of the parameter ``param``.
    """

    param: str
    low: float
    high: float
    step: float
    note: str = ""


#: the methods :func:`rankframe.fuse_train` trains, with ranx's grids (ranx/fusion_optimization/optimize_*.py)
TRAINING: dict[str, Grid] = {
    **{m: Grid("weights", 0.0, 1.0, 0.1) for m in ("wsum", "wmnz", "mixed", "w_bordafuse")},
    "rrf": Grid("k", 10, 100, 10),
    "rbc": Grid("phi", 0.01, 0.99, 0.01, "ranx also tries phi = 1, where every item scores 0"),
    "logn_isr": Grid("sigma", 0.01, 1.0, 0.01),
    "combgmnz": Grid("gamma", 0.01, 1.0, 0.01),
}


def trained_method(name: object) -> tuple[FusionMethod, Grid]:
    """The declared method called ``name`` and its training grid; a ParameterError for an untrained one."""
    m = method(name)
    if m.name not in TRAINING:
        raise ParameterError(
            f"The 'method' parameter of fuse_train must be a method with weights or a parameter to learn: one of "
            f"{', '.join(TRAINING)}. Got {name!r} instead ({m.name!r} has nothing to train).",
            owner="fuse_train",
            parameter="method",
        )
    return m, TRAINING[m.name]


def method(name: object) -> FusionMethod:
    """The declared method called ``name`` (rankframe's or ranx's spelling, case-insensitive)."""
    if isinstance(name, str):
        key = name.lower()
        key = ALIASES.get(key, key)
        if key in METHODS:
            return METHODS[key]
        if key in ("condorcet", "w_condorcet"):
            raise ParameterError(
                f"The 'method' parameter of fuse: {name!r} is not offered: ranx's Condorcet sorts with a "
                "non-transitive comparison, so its answer depends on the candidates' order, and an order-free "
                "Condorcet counts every pair of candidates (quadratic per query); 'bordafuse' is the linear vote "
                "(docs/decisions/0015-fusion.md).",
                owner="fuse",
                parameter="method",
            )
    raise ParameterError.of("fuse", "method", f"one of {', '.join(METHODS)}", name, did_you_mean(str(name), METHODS))


def normalisation(name: object) -> Normalisation | None:
    """The declared normalisation called ``name`` (None: no normalisation asked)."""
    if name is None:
        return None
    if isinstance(name, str):
        key = NORM_ALIASES.get(name.lower(), name.lower())
        if key in NORMS:
            return NORMS[key]
    hint = did_you_mean(name, NORMS) if isinstance(name, str) else None
    raise ParameterError.of("fuse", "norm", f"None or one of {', '.join(NORMS)}", name, hint)


def methods_markdown() -> str:
    """The methods table of docs/fusion.md."""
    lines = ["| method | ranx | reads | parameters | fused score |", "|---|---|---|---|---|"]
    for m in _METHODS:
        params = ", ".join(f"`{p}={PARAM_DEFAULTS[p]}`" for p in m.params) + (" `weights`" if m.weighted else "")
        lines.append(f"| `{m.name}` | `{m.ranx}` | {m.reads} | {params.strip()} | {m.summary} |")
    return "\n".join(lines)


def norms_markdown() -> str:
    """The normalisations table of docs/fusion.md."""
    lines = ["| norm | reads | value of an item of a (system, query) list |", "|---|---|---|"]
    lines += [f"| `{n.name}` | {n.reads} | {n.formula} |" for n in NORMS.values()]
    return "\n".join(lines)


def training_markdown() -> str:
    """The table of the trained methods' grids in docs/fusion.md."""
    lines = ["| method | learns | grid (ranx's) |", "|---|---|---|"]
    for name, g in TRAINING.items():
        if g.param == "weights":
            grid = f"one weight per system in {{0, {g.step}, ..., 1}}, summing to 1"
        else:
            grid = f"{g.low}, {g.low + g.step:g}, ..., {g.high}" + (f" ({g.note})" if g.note else "")
        lines.append(f"| `{name}` | `{g.param}` | {grid} |")
    return "\n".join(lines)
