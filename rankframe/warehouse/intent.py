"""The intent-aware measures in the portable SQL (``rankframe.sql.render(..., qrels=<subtopic qrels>)``).

Two tables: the run (segments..., query, item, rank or score) and the subtopic qrels (query, subtopic, item,
relevance), read as :func:`rankframe.evaluate` reads them (decision 0021 "SQL", "Portable SQL"). Each measure's
value is the ``portable(t, **params)`` beside its numpy kernel in ``rankframe/intent/<name>.py``, over the named
sums of :class:`IntentTerms`; this module writes those sums as PostgreSQL-flavoured text that
:func:`rankframe.warehouse.render.finish` writes in the target dialect: window functions, aggregates, ``UNION ALL``,
``CASE``; no array, lambda, macro, UDF or recursion.

The greedy ideal list (``rankframe.intent.lists._greedy``) is written as generated *stages*, one CTE per position:
each stage reads the one before it once (so no engine expands the chain) and holds one row per relevant
(query, subtopic, item) pair with the pair's subtopic weight, and the step and gain of its item once taken. A stage
is three window passes: each candidate's score (the sum of its subtopics' weights), the query's best candidate
(the largest score, ties to the largest item id as text, byte by byte: ndeval's strcmp), and the weights of the
subtopics it covers times (1 - alpha). The number of stages is the largest ``k`` that reads the ideal at that
(rel, alpha), or ``ideal_depth`` for a measure without ``@k``; a query whose relevant items outnumber the stages of
a whole-list measure gets NaN, never a value of a shorter ideal.

CTEs (all ``rf__i...``): ``rf__isrc`` the run, ``rf__iqr`` the qrels, ``rf__iunits`` the units (a judged query no
run row mentions is a unit with NULL segments: ``rankframe/join.py`` rule 2; with the ``system`` segment, one per
system: rule 3), ``rf__ipos_<tie>`` the retrieved rows' positions per tie rule, ``rf__ij_<r>`` the relevant
judgments per ``rel``, ``rf__ipair_<tie>_<r>`` the relevant (element, subtopic) pairs with the items of the
subtopic above, ``rf__iideal_<r>_<a>_<s>`` the stages, ``rf__iv<i>`` the sums of measure ``i`` per unit.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from ..intent.declare import needs_subtopics, refuse
from ..intent.lists import series_terms
from ..measures.names import Measure
from ..measures.registry import INTENT_KERNELS
from .terms import FLOAT, Terms, literal

#: the measures that read the greedy ideal list (their modules' ``portable`` reads ``t.idcg``, ``t.ierr``,
#: ``t.irbp``): found by the terms they ask for, see :meth:`IntentTerms.reads_ideal`
_IDEAL_TERMS = ("rf__idcg", "rf__ierr", "rf__irbp")


@dataclass(frozen=True)
class IntentTerms:
    """The named per-unit sums a measure's ``portable(t, **params)`` combines (columns of ``rf__iv<i>``).

    The sums mirror :mod:`rankframe.intent.lists`: ``dcg``/``err``/``rbp`` of the run's novelty-discounted gains
    (``Gains.dcg``/``err``/``rbp`` within the top k), ``idcg``/``ierr``/``irbp`` the same of the greedy ideal,
    ``s`` the query's S, ``n_pairs`` the relevant (element, subtopic) pairs in the top k, ``n_first`` those first
    of their subtopic, ``n_covered`` the subtopics the whole list covers, ``ap`` the sum of precision at each pair
    over its subtopic's relevant items, ``cut`` k (or the list's length), ``nret`` the list's length.
    """

    alpha: float = 0.5
    k: int | None = None
    like: str | None = None
    dcg: str = "rf__dcg"
    err: str = "rf__err"
    rbp: str = "rf__rbp"
    idcg: str = "rf__idcg"
    ierr: str = "rf__ierr"
    irbp: str = "rf__irbp"
    s: str = "rf__nsub"
    n_pairs: str = "rf__np"
    n_first: str = "rf__nf"
    n_covered: str = "rf__nc"
    ap: str = "rf__ap"
    nret: str = "rf__nret"

    num = staticmethod(Terms.num)
    ratio = staticmethod(Terms.ratio)
    least = staticmethod(Terms.least)

    @property
    def cut(self) -> str:
        """k, or the list's length without @k (P_IA's depth)."""
        return self.nret if self.k is None else self.num(self.k)

    def ideal_ideal(self, discount: str) -> str:
        """Ndeval's "ideal ideal" (:meth:`rankframe.intent.lists.IntentLists.ideal_ideal`) of the unit."""
        return f"rf__ii_{discount}"


def _series(alpha: float, k: int, discount: str) -> float:
    """S-free "ideal ideal" of depth k, computed as the numpy kernel does (its series, its length rule)."""
    depth = min(k, series_terms(alpha, 0, k))
    p = np.arange(1, depth + 1, dtype=np.float64)
    w = 1.0 / np.log2(p + 1.0) if discount == "log" else 1.0 / p
    return float(np.concatenate(([0.0], np.cumsum(np.power(1.0 - alpha, p - 1.0) * w)))[depth])


def _portable(m: Measure):
    kernel = INTENT_KERNELS[m.spec.name]
    return getattr(sys.modules[kernel.__module__], "portable")


def reads_ideal(m: Measure) -> bool:
    """The measure's portable expression reads the greedy ideal list."""
    text = _portable(m)(IntentTerms(k=m.kw.get("k")), **m.kw)
    return any(name in text for name in _IDEAL_TERMS)


@dataclass(frozen=True)
class IntentSources:
    """What the statement reads, already quoted."""

    table: str
    qrels: str
    select_keys: str  # '"seg" AS rf__s0, ' ...
    query: str
    item: str
    key: str
    subtopic: str
    relevance: str
    order: str  # 'rank' or 'score'
    postgres: bool
    system_key: str | None  # the rf__s<j> key of the system segment (join.py rule 3), if by holds it


@dataclass(frozen=True)
class IntentPart:
    """The intent-aware part of a statement: its CTEs, (rf__i, label) per measure, rf__long's SELECTs."""

    ctes: list[str]
    labels: list[tuple[int, str]]
    long: list[str]


def _f(x: str) -> str:
    return f"CAST({x} AS {FLOAT})"


def _log2(x: str) -> str:
    return f"(LN({x}) / LN(2))"


def check(measures: Sequence[Measure], qrels: object, ideal_depth: object, subtopic: str) -> None:
    """The family's render rules: a qrels is needed, and a depth for a whole-list ideal."""
    # the recommender form (like='informfully', declare.HISTORY_FACES) has no SQL: the family's one refusal
    refuse(measures, "render", "rankframe.sql.render")
    if qrels is None:
        raise needs_subtopics(measures, subtopic, None)
    whole = [str(m) for m in measures if m.kw.get("k") is None and reads_ideal(m)]
    if ideal_depth is None and whole:
        raise ParameterError.of(
            "render",
            "ideal_depth",
            f"an int >= 1 for {', '.join(whole)} without @k: they divide by the greedy ideal list of all the "
            "query's relevant items, whose length SQL written before reading the data cannot know (a query with "
            "more relevant items gets NaN)",
            None,
            "Or ask @k (k generated stages; docs/warehouse.md).",
        )
    if ideal_depth is not None and (
        isinstance(ideal_depth, bool) or not isinstance(ideal_depth, (int, np.integer)) or ideal_depth < 1
    ):
        raise ParameterError.of(
            "render",
            "ideal_depth",
            "a positive int (the stages of the greedy ideal list of a measure without @k)",
            ideal_depth,
        )


class _Builder:
    def __init__(self, src: IntentSources, keys: Sequence[str], ideal_depth: int | None) -> None:
        self.src = src
        self.keys = list(keys)
        self.ideal_depth = ideal_depth
        self.ctes: dict[str, str] = {}
        self.rels: dict[float, int] = {}
        self.alphas: dict[float, int] = {}

    @property
    def unit(self) -> str:
        return ", ".join([*self.keys, "rf__q"])

    def base(self) -> None:
        s = self.src
        self.ctes["rf__isrc"] = (
            f"SELECT {s.select_keys}{s.query} AS rf__q, CAST({s.item} AS TEXT) AS rf__item, {s.key} AS rf__key "
            f"FROM {s.table}"
        )
        self.ctes["rf__iqr"] = (
            f"SELECT {s.query} AS rf__q, {s.subtopic} AS rf__sub, CAST({s.item} AS TEXT) AS rf__item, "
            f"{_f(s.relevance)} AS rf__g FROM {s.qrels}"
        )
        unseen = "FROM rf__iqr AS j WHERE NOT EXISTS (SELECT 1 FROM rf__isrc AS r WHERE r.rf__q = j.rf__q)"
        if s.system_key is None:
            nulls = "".join(f"NULL AS {k}, " for k in self.keys)
            extra = f"SELECT DISTINCT {nulls}j.rf__q {unseen}"
        else:  # every system on each judged query no run row mentions (join.py rule 3)
            cols = "".join(("y.rf__sys" if k == s.system_key else "NULL") + f" AS {k}, " for k in self.keys)
            systems = f"(SELECT DISTINCT {s.system_key} AS rf__sys FROM rf__isrc) AS y"
            extra = f"SELECT DISTINCT {cols}j.rf__q " + unseen.replace(
                "FROM rf__iqr AS j", f"FROM rf__iqr AS j CROSS JOIN {systems}"
            )
        self.ctes["rf__iunits"] = f"SELECT DISTINCT {self.unit} FROM rf__isrc UNION ALL {extra}"
        # the judged items of each query (a grade in some subtopic): none = the no_judged policy
        self.ctes["rf__inj"] = (
            "SELECT rf__q, COUNT(DISTINCT rf__item) AS rf__nj FROM rf__iqr WHERE rf__g IS NOT NULL GROUP BY rf__q"
        )

    def positions(self, nd: bool) -> str:
        name = f"rf__ipos_{'a' if nd else 'd'}"
        if name not in self.ctes:
            item = "rf__item" + (' COLLATE "C"' if self.src.postgres else "")
            key = "rf__key ASC" if self.src.order == "rank" else "rf__key DESC"
            self.ctes[name] = (
                f"SELECT {self.unit}, rf__item, ROW_NUMBER() OVER (PARTITION BY {self.unit} ORDER BY {key}, "
                f"{item} {'ASC' if nd else 'DESC'}) AS rf__pos FROM rf__isrc WHERE rf__key IS NOT NULL"
            )
        return name

    def judgments(self, rel: float) -> str:
        r = self.rels.setdefault(rel, len(self.rels))
        name = f"rf__ij_{r}"
        if name not in self.ctes:
            self.ctes[name] = f"SELECT rf__q, rf__sub, rf__item FROM rf__iqr WHERE rf__g >= {Terms.num(rel)}"
            self.ctes[f"rf__ins_{r}"] = f"SELECT rf__q, COUNT(DISTINCT rf__sub) AS rf__ns FROM {name} GROUP BY rf__q"
            self.ctes[f"rf__inrel_{r}"] = (
                f"SELECT rf__q, rf__sub, {_f('COUNT(*)')} AS rf__nrel FROM {name} GROUP BY rf__q, rf__sub"
            )
        return name

    def pairs(self, nd: bool, rel: float) -> str:
        j = self.judgments(rel)
        pos = self.positions(nd)
        name = f"rf__ipair_{'a' if nd else 'd'}_{self.rels[rel]}"
        if name not in self.ctes:
            e = ", ".join(f"e.{c}" for c in [*self.keys, "rf__q"])
            self.ctes[name] = (
                f"SELECT {e}, e.rf__pos, j.rf__sub, ROW_NUMBER() OVER (PARTITION BY {e}, j.rf__sub ORDER BY "
                f"e.rf__pos) - 1 AS rf__seen FROM {pos} AS e JOIN {j} AS j ON j.rf__q = e.rf__q AND "
                "j.rf__item = e.rf__item"
            )
        return name

    def ideal(self, rel: float, alpha: float, depth: int) -> str:
        """The last stage of the greedy ideal at (rel, alpha) to ``depth`` positions (stages shared by depths)."""
        j = self.judgments(rel)
        tag = f"{self.rels[rel]}_{self.alphas.setdefault(alpha, len(self.alphas))}"
        first = f"rf__iideal_{tag}_0"
        if first not in self.ctes:
            self.ctes[first] = (
                f"SELECT rf__q, rf__item, rf__sub, CAST(1 AS {FLOAT}) AS rf__w, CAST(NULL AS BIGINT) AS rf__step, "
                f"CAST(NULL AS {FLOAT}) AS rf__gain FROM {j}"
            )
        item = "rf__item" + (' COLLATE "C"' if self.src.postgres else "")
        keep = Terms.num(1.0 - alpha)  # the weight factor as the numpy kernel computes it (1.0 - alpha)
        for step in range(1, depth + 1):
            name = f"rf__iideal_{tag}_{step}"
            if name in self.ctes:
                continue
            scored = (
                "SELECT p.*, SUM(CASE WHEN rf__step IS NULL THEN rf__w END) OVER (PARTITION BY rf__q, rf__item) "
                f"AS rf__sc FROM rf__iideal_{tag}_{step - 1} AS p"
            )
            best = (
                "SELECT a.*, FIRST_VALUE(rf__item) OVER (PARTITION BY rf__q ORDER BY CASE WHEN rf__sc IS NULL "
                f"THEN 1 ELSE 0 END, rf__sc DESC, {item} DESC) AS rf__best FROM ({scored}) AS a"
            )
            picked = (
                "SELECT b.*, CASE WHEN rf__sc IS NOT NULL AND rf__item = rf__best THEN 1 ELSE 0 END AS rf__pick "
                f"FROM ({best}) AS b"
            )
            self.ctes[name] = (
                "SELECT rf__q, rf__item, rf__sub, rf__w * CASE WHEN MAX(rf__pick) OVER (PARTITION BY rf__q, rf__sub) "
                f"= 1 THEN {keep} ELSE CAST(1 AS {FLOAT}) END AS rf__w, CASE WHEN rf__pick = 1 THEN {step} ELSE "
                f"rf__step END AS rf__step, CASE WHEN rf__pick = 1 THEN rf__sc ELSE rf__gain END AS rf__gain "
                f"FROM ({picked}) AS c"
            )
        return f"rf__iideal_{tag}_{depth}"

    def measure(self, i: int, m: Measure, depths: dict[tuple[float, float], int]) -> str:
        """The CTE ``rf__iv<i>``: the sums of measure i per unit, and its value ``rf__v`` / state inputs."""
        kw = m.kw
        k, rel, like = kw.get("k"), kw["rel"], kw.get("like")
        alpha, beta = kw.get("alpha", 0.5), kw.get("beta", 0.5)
        nd = like == "ndeval"
        pairs = self.pairs(nd, rel)
        r = self.rels[rel]
        top = "TRUE" if k is None else f"rf__pos <= {literal(k)}"
        gains = (
            f"SELECT {self.unit}, rf__pos, SUM(POWER({Terms.num(1.0 - alpha)}, rf__seen)) AS rf__gain FROM {pairs} "
            f"GROUP BY {self.unit}, rf__pos"
        )
        zero = f"CAST(0 AS {FLOAT})"
        cols = [
            "rf__dcg",
            "rf__err",
            "rf__rbp",
            "rf__np",
            "rf__nf",
            "rf__nc",
            "rf__ap",
            "rf__nret",
            "rf__iil",
            "rf__iir",
        ]

        def row(src: str, values: dict[str, str], where: str = "") -> str:
            return (
                f"SELECT {self.unit}, "
                + ", ".join(f"{_f(values.get(c, 'NULL'))} AS {c}" for c in cols)
                + f" FROM {src}"
                + (f" WHERE {where}" if where else "")
            )

        w_beta = f"POWER({Terms.num(beta)}, rf__pos - 1)"
        parts = [
            row("rf__iunits", {}),
            row(
                f"({gains}) AS g",
                {
                    "rf__dcg": f"rf__gain / {_log2('rf__pos + 1')}",
                    "rf__err": "rf__gain / rf__pos",
                    "rf__rbp": f"rf__gain * {w_beta}",
                },
                top,
            ),
            row(
                f"{pairs} AS p JOIN rf__inrel_{r} AS n ON n.rf__q = p.rf__q AND n.rf__sub = p.rf__sub",
                {
                    "rf__np": f"CASE WHEN {top} THEN 1 ELSE 0 END",
                    "rf__nf": f"CASE WHEN {top} AND rf__seen = 0 THEN 1 ELSE 0 END",
                    "rf__nc": "CASE WHEN rf__seen = 0 THEN 1 ELSE 0 END",
                    "rf__ap": f"CASE WHEN {top} THEN (rf__seen + 1) / {_f('rf__pos')} / rf__nrel ELSE 0 END",
                },
            ).replace(f"SELECT {self.unit}, ", "SELECT " + ", ".join(f"p.{c}" for c in [*self.keys, "rf__q"]) + ", "),
            row(  # the list's length and, without @k, ndeval's "ideal ideal" series to it (its own positions)
                self.positions(nd),
                {
                    "rf__nret": "1",
                    "rf__iil": f"POWER({Terms.num(1.0 - alpha)}, rf__pos - 1) / {_log2('rf__pos + 1')}",
                    "rf__iir": f"POWER({Terms.num(1.0 - alpha)}, rf__pos - 1) / rf__pos",
                },
            ),
        ]
        sums = ", ".join(f"COALESCE(SUM({c}), {zero}) AS {c}" for c in cols)
        unit_rows = f"SELECT {self.unit}, {sums} FROM ({' UNION ALL '.join(parts)}) AS x GROUP BY {self.unit}"
        t = IntentTerms(alpha=alpha, k=k, like=like)
        ideal_join, incomplete = "", "0"
        if reads_ideal(m):
            last = self.ideal(rel, alpha, depths[(rel, alpha)])
            itop = "TRUE" if k is None else f"rf__step <= {literal(k)}"
            taken = f"(SELECT DISTINCT rf__q, rf__item, rf__step, rf__gain FROM {last} WHERE rf__step IS NOT NULL)"
            sums_i = (
                f"SELECT rf__q, SUM(CASE WHEN {itop} THEN rf__gain / {_log2('rf__step + 1')} ELSE 0 END) AS rf__idcg, "
                f"SUM(CASE WHEN {itop} THEN rf__gain / rf__step ELSE 0 END) AS rf__ierr, "
                f"SUM(CASE WHEN {itop} THEN rf__gain * POWER({Terms.num(beta)}, rf__step - 1) ELSE 0 END) AS rf__irbp "
                f"FROM {taken} AS t GROUP BY rf__q"
            )
            # a whole-list ideal cut short by ideal_depth: the value is NaN (never a shorter ideal's)
            inc = "0" if k is not None else "MAX(CASE WHEN rf__step IS NULL THEN 1 ELSE 0 END)"
            ideal_join = (
                f" LEFT JOIN (SELECT s.rf__q, s.rf__idcg, s.rf__ierr, s.rf__irbp, c.rf__inc FROM ({sums_i}) AS s "
                f"JOIN (SELECT rf__q, {inc} AS rf__inc FROM {last} GROUP BY rf__q) AS c ON c.rf__q = s.rf__q) AS i "
                "ON i.rf__q = u.rf__q"
            )
            incomplete = "COALESCE(i.rf__inc, 0)"
        # ndeval's "ideal ideal": S x the series to k (a constant: k and alpha are known here) or to the list's
        # length (the sum over the unit's own positions); like='ndeval' leaves a depth of 1 unnormalised
        iis = {}
        for discount, col in (("log", "x.rf__iil"), ("reciprocal", "x.rf__iir")):
            if k is None:
                series, one = col, "x.rf__nret = 1"
            else:
                series, one = Terms.num(_series(alpha, k, discount)), ("TRUE" if k == 1 else "FALSE")
            value = f"COALESCE(n.rf__ns, 0) * {series}"
            iis[discount] = f"CASE WHEN {one} THEN {Terms.num(1.0)} ELSE {value} END" if nd else value
        inner = (
            f"SELECT x.*, COALESCE(n.rf__ns, 0) AS rf__nsub, {iis['log']} AS rf__ii_log, {iis['reciprocal']} AS "
            f"rf__ii_reciprocal FROM ({unit_rows}) AS x LEFT JOIN rf__ins_{r} AS n ON n.rf__q = x.rf__q"
        )
        expr = _portable(m)(t, **kw)
        uq = ", ".join(f"u.{c}" for c in [*self.keys, "rf__q"])
        name = f"rf__iv{i}"
        self.ctes[name] = (
            f"SELECT {uq}, COALESCE(j.rf__nj, 0) AS rf__nj, u.rf__nret, u.rf__nsub, "
            f"CASE WHEN {incomplete} = 1 THEN CAST('NaN' AS {FLOAT}) ELSE {expr} END AS rf__v "
            f"FROM ({inner}) AS u LEFT JOIN rf__inj AS j ON j.rf__q = u.rf__q{ideal_join}"
        )
        return name


def build(
    measures: Sequence[tuple[int, Measure]],
    src: IntentSources,
    keys: Sequence[str],
    ideal_depth: int | None,
    states: dict[str, int],
) -> IntentPart:
    """The intent-aware part of one statement: CTEs, per-unit long rows (rf__long's columns) and labels."""
    b = _Builder(src, keys, ideal_depth)
    b.base()
    depths: dict[tuple[float, float], int] = {}
    for _, m in measures:
        if reads_ideal(m):
            key = (m.kw["rel"], m.kw.get("alpha", 0.5))
            want = m.kw["k"] if m.kw.get("k") is not None else ideal_depth
            assert want is not None
            depths[key] = max(depths.get(key, 0), int(want))
    long = []
    for i, m in measures:
        name = b.measure(i, m, depths)
        state = (
            f"CASE WHEN rf__nj = 0 THEN {states['no_judged']} WHEN rf__nret = 0 THEN {states['no_retrieved']} "
            f"WHEN rf__nsub = 0 THEN {states['no_relevant']} ELSE 0 END"
        )
        label = "'" + str(m).replace("'", "''") + "'"
        long.append(
            f"SELECT {', '.join([*keys, 'rf__q'])}, {i} AS rf__i, {label} AS rf__metric, {state} AS rf__state, "
            f"rf__v AS rf__raw FROM {name}"
        )
    return IntentPart(
        ctes=[f"{n} AS ({sql})" for n, sql in b.ctes.items()],
        labels=[(i, str(m)) for i, m in measures],
        long=long,
    )
