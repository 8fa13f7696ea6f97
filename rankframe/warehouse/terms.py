"""The vocabulary of the portable metric expressions: the prepared rows' columns and the pieces the metrics use.

A metric that is portable declares, beside its numpy kernel, ``portable(t, **params) -> str``: its value for one
unit (segments..., query) as ONE aggregate expression over the unit's rows, written with the methods of the
:class:`Terms` object ``t`` it is given (never with SQL of its own beyond ``CASE``, arithmetic and comparisons).
The expression is PostgreSQL-flavoured text that :mod:`rankframe.warehouse.render` parses with sqlglot and writes
in the target dialect. Every portability trap lives here, once:

* positions come from the retrieved rows only (``rf__pos`` is NULL for the judged-not-retrieved branch; no window
  ever orders a NULL), so no dialect's NULL ordering matters;
* every ratio casts both sides to a float (:meth:`Terms.ratio`): no integer division (Postgres, Trino) nor a
  6-digit decimal scale (Snowflake);
* logarithms are ``LN(x) / LN(b)`` (:meth:`Terms.discount`), never ``LOG`` (its argument order differs between
  dialects and Postgres' two-argument ``log`` takes numerics only);
* a product is ``EXP(SUM(LN(x)))`` (no dialect has a product aggregate);
* no window is partitioned by a float (BigQuery refuses it): tie groups of equal scores are numbered by a
  running count of score changes along the ranking (:meth:`Terms.tie_average`);
* ``judged_only=True`` numbers the kept rows in a partition of their own (:meth:`Terms.variant`), so no window
  orders a NULL position either.

Windows a metric needs (a running count along the ranking, a count over the whole unit, the ideal ordering) are
asked for by name through the methods below; each distinct one becomes one column of the prepared rows.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.errors import RankframeError, install_extra

#: the prepared rows' columns (position among the retrieved rows, NULL when not retrieved; grade as a float, NULL
#: when unjudged) and the unit's key, named so that no user column collides (rankframe's ``rf__`` prefix)
POS = "rf__pos"
#: judged_only=True's position: among the retrieved rows with a grade >= 0 (trec_eval -J drops a null or negative
#: grade), NULL for every other row
JPOS = "rf__jpos"
#: 1 on a retrieved row whose score differs from the row above it (the first row of a tie group), else 0
TIE_START = "rf__tie_start"
GRADE = "rf__g"
FLOAT = "DOUBLE PRECISION"


class NotPortable(RankframeError):
    """A metric (or a value of one of its parameters) has no portable SQL expression yet."""


class MissingExtra(RankframeError, ImportError):
    """sqlglot, which writes the statement in each dialect, is not installed."""


def sqlglot() -> Any:
    """The sqlglot module, or the error naming the extra to install."""
    try:
        import sqlglot as module
    except ImportError as e:
        raise MissingExtra(
            f"rankframe.sql.render needs sqlglot, which is not installed ({e}); install the warehouse extra: "
            + install_extra("warehouse")
        ) from e
    return module


def literal(value: Any) -> str:
    """A number as a SQL literal (floats with a decimal point, so that no dialect reads them as integers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise NotPortable(f"not portable yet: the value {value!r} has no SQL literal")
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


class Terms:
    """The pieces of the portable expressions of one statement; collects the window columns they ask for.

    ``ranked_windows`` maps each window expression over the retrieved rows (ordered by position) to its column
    name, ``unit_windows`` each one over every row of the unit; ``columns`` names the preparation columns the
    statement must compute besides ``rf__pos`` (:data:`JPOS`, :data:`TIE_START`). A :meth:`variant` (one metric's
    ``judged_only`` and ``ties``) shares them.
    """

    def __init__(self, *, order_by: str = "rank") -> None:
        self.ranked_windows: dict[str, str] = {}
        self.unit_windows: dict[str, str] = {}
        self.columns: set[str] = set()
        self.order_by = order_by
        self.judged_only = False
        self.ties = "first"

    def variant(self, *, judged_only: bool = False, ties: str = "first") -> Terms:
        """The same statement's terms for one metric's ``judged_only`` and ``ties`` (windows and columns shared).

        ``judged_only=True`` (trec_eval -J): :attr:`pos` is the position among the retrieved rows with a grade
        >= 0, NULL for the others, which every term then reads as not retrieved (their grade gives no hit and no
        gain); |R| and the ideal list still count every judgment. ``ties="average"``: :meth:`dcg` reads each
        ranked row's gain as the mean gain of its tie group (equal scores; ranks never tie).
        """
        v = Terms(order_by=self.order_by)
        v.ranked_windows, v.unit_windows, v.columns = self.ranked_windows, self.unit_windows, self.columns
        v.judged_only, v.ties = bool(judged_only), ties
        if v.judged_only:
            self.columns.add(JPOS)
        return v

    def preparation(self, ranking: str) -> dict[str, str]:
        """The extra columns of the numbered retrieved rows the terms asked for: name -> window expression.

        ``ranking`` is the statement's ``PARTITION BY ... ORDER BY ...`` of ``rf__pos`` (a total order: ties by
        item). :data:`JPOS` keeps a grade >= 0 (trec_eval -J reads a negative grade as pooled but unjudged, as
        ``rankframe.prepare.Prepared.judged_only``); :data:`TIE_START` compares each score with the one above.
        """
        kept = f"{GRADE} >= 0"
        partition, order = ranking.split(" ORDER BY ")
        out = {}
        if JPOS in self.columns:
            out[JPOS] = (
                f"CASE WHEN {kept} THEN ROW_NUMBER() OVER ({partition}, CASE WHEN {kept} THEN 0 ELSE 1 END "
                f"ORDER BY {order}) END"
            )
        if TIE_START in self.columns:
            out[TIE_START] = f"CASE WHEN LAG(rf__key) OVER ({ranking}) = rf__key THEN 0 ELSE 1 END"
        return out

    # ------------------------------------------------------------------ rows
    @property
    def pos(self) -> str:
        """The position of the row in the ranking (1 = top), NULL when not retrieved (or removed by judged_only)."""
        return JPOS if self.judged_only else POS

    @property
    def _ranked_partition(self) -> str:
        """The PARTITION BY of the windows along :attr:`pos`: with judged_only, the removed rows apart."""
        return "{unit}" + (f", CASE WHEN {JPOS} IS NULL THEN 1 ELSE 0 END" if self.judged_only else "")

    @property
    def grade(self) -> str:
        """The grade as a float, NULL when unjudged."""
        return GRADE

    def within(self, k: int | None) -> str:
        """The row is retrieved at a position <= k (any position when k is None)."""
        return f"{self.pos} IS NOT NULL" if k is None else f"{self.pos} <= {literal(k)}"

    @property
    def retrieved(self) -> str:
        """The row is retrieved (and kept, with judged_only)."""
        return self.within(None)

    def hit(self, rel: float) -> str:
        """The row's grade is >= rel (an unjudged row is never a hit)."""
        return f"{GRADE} >= {literal(rel)}"

    @staticmethod
    def nonrel(rel: float) -> str:
        """The row is judged non-relevant: 0 <= grade < rel (a negative grade is pooled but unjudged)."""
        return f"{GRADE} >= 0 AND {GRADE} < {literal(rel)}"

    @property
    def pooled(self) -> str:
        """The row's grade is negative: in the pool but not judged (trec_eval's reading of a negative label)."""
        return f"{GRADE} < 0"

    @staticmethod
    def as_float(term: str) -> str:
        """A term (a count) as a float."""
        return f"CAST({term} AS {FLOAT})"

    @staticmethod
    def num(value: Any) -> str:
        """A number as a float literal."""
        return f"CAST({literal(value)} AS {FLOAT})"

    # ------------------------------------------------------------------ aggregates over the unit's rows
    @staticmethod
    def count(condition: str) -> str:
        """How many rows of the unit meet the condition."""
        return f"COUNT(CASE WHEN {condition} THEN 1 END)"

    @staticmethod
    def total(term: str, condition: str = "TRUE") -> str:
        """The sum of a float term over the rows meeting the condition (0 when none)."""
        return f"COALESCE(SUM(CASE WHEN {condition} THEN {term} END), CAST(0 AS {FLOAT}))"

    @staticmethod
    def smallest(term: str, condition: str) -> str:
        """The smallest term over the rows meeting the condition (NULL when none)."""
        return f"MIN(CASE WHEN {condition} THEN {term} END)"

    @staticmethod
    def largest(term: str, condition: str) -> str:
        """The largest term over the rows meeting the condition (NULL when none)."""
        return f"MAX(CASE WHEN {condition} THEN {term} END)"

    @staticmethod
    def ratio(num: str, den: str) -> str:
        """Num / den as floats, 0 when den = 0 (both sides cast: no integer division, no decimal scale)."""
        return f"CASE WHEN {den} = 0 THEN CAST(0 AS {FLOAT}) ELSE CAST({num} AS {FLOAT}) / CAST({den} AS {FLOAT}) END"

    @staticmethod
    def least(a: str, b: str) -> str:
        """The smaller of two values."""
        return f"LEAST({a}, {b})"

    @staticmethod
    def when(condition: str, then: str, otherwise: str) -> str:
        """A CASE expression."""
        return f"CASE WHEN {condition} THEN {then} ELSE {otherwise} END"

    @staticmethod
    def f_measure(p: str, r: str, beta: float) -> str:
        """(beta + 1) P R / (beta P + R), 0 when the denominator is 0 (SetF, F1)."""
        b = Terms.num(float(beta))
        return Terms.ratio(f"({b} + 1) * ({p}) * ({r})", f"{b} * ({p}) + ({r})")

    @staticmethod
    def power(base: str, exponent: str) -> str:
        """The power base ^ exponent, as floats."""
        return f"POWER(CAST({base} AS {FLOAT}), CAST({exponent} AS {FLOAT}))"

    @staticmethod
    def floor(term: str) -> str:
        """The largest integer <= term."""
        return f"FLOOR({term})"

    @staticmethod
    def discount(position: str, log_base: float) -> str:
        """log_b(position + 1), as LN(position + 1) / LN(b) (never LOG: see the module's docstring)."""
        return f"(LN(CAST({position} AS {FLOAT}) + 1) / LN({Terms.num(log_base)}))"

    # ------------------------------------------------------------------ gains
    @staticmethod
    def gain(rel: float | None, gain: str, gains: Any = None, grade: str = GRADE) -> str:
        """The gain of the row's grade, as ``rankframe.prepare.gain_of``.

        Listed grades mapped by ``gains``, then max(value, 0) (0 when unjudged), 0 below ``rel`` (compared with
        the grade itself), 2^g - 1 when exponential, 1 for a positive value when binary.
        """
        value = grade
        if gains:
            cases = " ".join(f"WHEN {grade} = {literal(g)} THEN {Terms.num(v)}" for g, v in gains)
            value = f"(CASE {cases} ELSE {grade} END)"
        clipped = f"(CASE WHEN {grade} IS NULL OR {value} <= 0 THEN CAST(0 AS {FLOAT}) ELSE {value} END)"
        if rel is not None:
            clipped = f"(CASE WHEN {grade} >= {literal(rel)} THEN {clipped} ELSE CAST(0 AS {FLOAT}) END)"
        if gain == "exponential":
            return f"(POWER(CAST(2 AS {FLOAT}), {clipped}) - 1)"
        if gain == "binary":
            return f"(CASE WHEN {clipped} > 0 THEN CAST(1 AS {FLOAT}) ELSE CAST(0 AS {FLOAT}) END)"
        return clipped

    # ------------------------------------------------------------------ windows (one column each, shared)
    def running_count(self, condition: str) -> str:
        """Per retrieved row: how many rows at or above its position meet the condition (NULL if not retrieved)."""
        expr = (
            f"SUM(CASE WHEN {condition} THEN 1 ELSE 0 END) OVER (PARTITION BY {self._ranked_partition} "
            f"ORDER BY {self.pos} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
        )
        return self._window(self.ranked_windows, expr)

    def running_log_product_before(self, factor: str) -> str:
        """Per retrieved row: the product of ``factor`` (each in (0, 1]) over the rows above it, 1 for the top row.

        As EXP(SUM(LN(factor))): no dialect has a product aggregate; the factors must be > 0 (ERR's 1 - Pr is for
        grades <= max_grade; a factor <= 0 counts as 1, and the metric says NULL for such a unit).
        """
        expr = (
            f"EXP(COALESCE(SUM(LN(CASE WHEN {factor} > 0 THEN {factor} ELSE 1 END)) "
            f"OVER (PARTITION BY {self._ranked_partition} ORDER BY {self.pos} "
            f"ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), CAST(0 AS {FLOAT})))"
        )
        return self._window(self.ranked_windows, expr)

    def unit_count(self, condition: str) -> str:
        """Per row: how many rows of its unit meet the condition."""
        return self._window(self.unit_windows, f"COUNT(CASE WHEN {condition} THEN 1 END) OVER (PARTITION BY {{unit}})")

    def ideal_position(self, value: str) -> str:
        """Per row: its position in the unit's rows sorted by ``value`` descending (the ideal ordering).

        ``value`` is never NULL, so no NULL ordering is involved, and rows of equal value are interchangeable.
        """
        return self._window(self.unit_windows, f"ROW_NUMBER() OVER (PARTITION BY {{unit}} ORDER BY {value} DESC)")

    def ideal_log_product_before(self, value: str, factor: str) -> str:
        """Per row: the product of ``factor`` over the rows above it in the ideal ordering (``value`` descending).

        Rows of equal value (a peer group) are interchangeable but no window orders them the same way twice, so
        the product is written without their order: the product through the whole peer group (a RANGE window),
        divided by ``factor`` once for each peer at or below the row's :meth:`ideal_position`. ``factor`` must be
        a function of ``value`` and > 0 (a factor <= 0 counts as 1), as ERR's 1 - Pr.
        """
        safe = f"(CASE WHEN {factor} > 0 THEN {factor} ELSE 1 END)"
        order = f"PARTITION BY {{unit}} ORDER BY {value} DESC RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
        through = self._window(self.unit_windows, f"SUM(LN({safe})) OVER ({order})")
        last = self._window(self.unit_windows, f"COUNT(*) OVER ({order})")
        return f"EXP({through} - ({last} - {self.ideal_position(value)} + 1) * LN({safe}))"

    def tie_average(self, term: str) -> str:
        """Per retrieved row: the mean of ``term`` over its tie group (the retrieved rows of equal score).

        With judged_only, over the kept rows of the group. Ranks never tie: ordered by rank, the term itself.

        The groups are numbered by a running count of :data:`TIE_START` (a score change along the ranking,
        found with LAG), not partitioned by the score: BigQuery partitions by no float.
        """
        if self.order_by == "rank":
            return term
        self.columns.add(TIE_START)
        group = self._window(
            self.ranked_windows,
            f"SUM({TIE_START}) OVER (PARTITION BY {{unit}} ORDER BY {POS} "
            "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
        )
        kept = f", CASE WHEN {JPOS} IS NULL THEN 1 ELSE 0 END" if self.judged_only else ""
        return self._window(self.unit_windows, f"AVG({term}) OVER (PARTITION BY {{unit}}, {group}{kept})")

    def unit_window(self, expr: str) -> str:
        """A window expression of the caller's own over the whole unit (``{unit}`` = its PARTITION BY list)."""
        return self._window(self.unit_windows, expr)

    def _window(self, store: dict[str, str], expr: str) -> str:
        if expr not in store:
            store[expr] = f"rf__w{len(store)}_{'r' if store is self.ranked_windows else 'u'}"
        return store[expr]

    # ------------------------------------------------------------------ the ideal list
    def ideal_gain(self, rel: float | None, gain: str, ideal: str, gains: Any = None) -> str:
        """The row's gain in the ideal list: every judged row (ideal='judged') or the retrieved ones only."""
        return self.ideal_value(self.gain(rel, gain, gains), ideal)

    def ideal_value(self, value: str, ideal: str) -> str:
        """A row's value in the ideal list: every judged row's (ideal='judged', 'full') or the retrieved rows' only."""
        return (
            value
            if ideal != "retrieved"
            else f"(CASE WHEN {self.pos} IS NULL THEN CAST(0 AS {FLOAT}) ELSE {value} END)"
        )

    def idcg(self, k: int | None, rel: float | None, gain: str, ideal: str, log_base: float, gains: Any) -> str:
        """IDCG@k of the unit: the ideal gains in descending order, discounted by their ideal position.

        ``ideal='full'``: an ideal list of L < k gains is filled to all k positions with copies of its last gain,
        ``last * (sum_{i<=k} 1/log_b(i+1) - sum_{i<=L} 1/log_b(i+1))`` (the first sum a constant of k).
        """
        value = self.ideal_gain(rel, gain, ideal, gains)
        ip = self.ideal_position(value)
        cond = f"{value} > 0" + ("" if k is None else f" AND {ip} <= {literal(k)}")
        best = self.total(f"{value} / {self.discount(ip, log_base)}", cond)
        if ideal != "full" or k is None:
            return best
        whole = math.fsum(math.log(b) / math.log(i + 1) for b in (float(log_base),) for i in range(1, k + 1))
        held = self.total(f"1 / {self.discount(ip, log_base)}", f"{value} > 0")
        positive = f"{value} > 0"
        length = self.count(positive)
        fill = f"{self.smallest(value, positive)} * ({self.num(whole)} - {held})"
        short = f"{length} > 0 AND {length} < {literal(k)}"
        return f"({best} + {self.when(short, fill, self.num(0.0))})"

    def dcg(self, k: int | None, rel: float | None, gain: str, log_base: float, gains: Any) -> str:
        """DCG@k of the unit (with ties='average', of the tie-averaged gains)."""
        g = self.gain(rel, gain, gains)
        if self.ties == "average":
            g = self.tie_average(g)
        return self.total(f"{g} / {self.discount(self.pos, log_base)}", self.within(k))


def not_portable(owner: str, why: str) -> NotPortable:
    """The error of a metric or parameter value without a portable expression."""
    return NotPortable(f"{owner} is not portable yet: {why}")
