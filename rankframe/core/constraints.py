"""A parameter's rule as one object: it checks, describes itself, writes its SQL and draws its test values (issue 34).

scikit-learn's ``validate_params`` idea (``sklearn/utils/_param_validation.py``): a declared parameter
(``rankframe.declare.Param``) holds a constraint, and every face reads the rule from it instead of switching on a
name: the numpy engine's check and its message (:meth:`Constraint.check`, :meth:`Constraint.describe`), the docs
tables, the DuckDB engine's typed values (:meth:`Constraint.sql_value`), the generated option checks of the SQL
macros (:meth:`Constraint.sql_check`), the checks at the head of each metric's public scalar macros
(:meth:`Constraint.sql_guard`, written into ``sql/<name>.sql`` by ``rankframe.registry.write_sql_params``) and the
hypothesis strategies of the tests (:meth:`Constraint.strategy`, :meth:`Constraint.invalid`; hypothesis is a test
dependency, imported there only).

The named shorthands ``Param(kind="k")``, ``kind="unit"``, ... are looked up in one table, :data:`KINDS`.

One job: a parameter's rule, in each form a face reads it (a rule class holds all its forms side by side, so that
no face can drift from another).

>>> K.check("nDCG", "k", 10), K.describe(), K.sql_type
(10, 'an int >= 1 (at most 2**63 - 1) or None', 'BIGINT')
>>> Choice(("linear", "exponential")).check("nDCG", "gain", "LINEAR")
'linear'
>>> UNIT.sql_check("alpha", "alpha")
"rf__opt_unit(alpha, 'alpha', owner)"
>>> K.sql_guard("k", "k", "'rf_ap'"), FLAG.sql_guard("judged_only", "judged_only", "'rf_ap'")
("rf__k(k, 'rf_ap') < 0", "rf__flag(judged_only, 'judged_only', 'rf_ap') IS NULL")
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import parameter_error
from .numeric import check_number

K_MAX = 2**63 - 1  # a cutoff must fit a signed 64-bit integer (numpy positions, DuckDB BIGINT)


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


def sql_literal(value: Any, *, exact: bool = True) -> str:
    """A Python value as DuckDB SQL text: the one writer of values into rankframe's generated SQL.

    ``NULL``; ``true``/``false``; a text quoted (``'`` doubled); an integer as written; a gain map
    (:class:`GainMap`) as ``MAP(DOUBLE, DOUBLE)``; a dict as a STRUCT; a float as ``CAST('<repr>' AS DOUBLE)``, the
    same double on every DuckDB version (DuckDB reads ``0.8`` as a DECIMAL). ``exact=False`` writes a float as
    Python does (``0.8``): the defaults shown in the macros' signatures and docs/sql.md, which the macros normalise
    to DOUBLE themselves.

    >>> sql_literal(0.8), sql_literal(0.8, exact=False), sql_literal("it's"), sql_literal(None)
    ("CAST('0.8' AS DOUBLE)", '0.8', "'it''s'", 'NULL')
    """
    if value is None:
        return "NULL"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, GainMap):  # gains={grade: gain}
        pairs = ", ".join(f"{sql_literal(float(g))}: {sql_literal(float(v))}" for g, v in value)
        return f"MAP {{{pairs}}}" if pairs else "CAST(MAP {} AS MAP(DOUBLE, DOUBLE))"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{sql_literal(str(k))}: {sql_literal(v, exact=exact)}" for k, v in value.items()) + "}"
    return f"CAST('{float(value)!r}' AS DOUBLE)" if exact else repr(float(value))


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


@dataclass(frozen=True)
class Constraint:
    """The rule of a parameter's values (a subclass per rule); instances are frozen, compared by value, picklable."""

    #: the SQL type of a value: the type the table macros normalise it to (rf__per_query_ok: rf__as_k, rf__as_num,
    #: rf__lc, rf__as_bool, MAP(DOUBLE, DOUBLE)); the DuckDB engine writes a measure's values in it
    sql_type = "VARCHAR"

    def check(self, owner: str, name: str, value: Any) -> Any:
        """The value, normalised, or the ParameterError (with its fields) of ``owner``'s parameter ``name``."""
        raise NotImplementedError

    def describe(self) -> str:
        """The allowed values in words: the ``expected`` of the error message and the docs tables' "allowed"."""
        raise NotImplementedError

    @property
    def accepts_none(self) -> bool:
        """None is a value of the parameter (a cutoff's "the whole list"); else a None default must be given."""
        return False

    def values(self) -> tuple[Any, ...] | None:
        """Every allowed value, when there are few (a choice's, a flag's); None for a range."""
        return None

    def sql_value(self, value: Any) -> str:
        """A (checked) value as a typed SQL literal, in :attr:`sql_type` (the DuckDB engine's measure values)."""
        return f"CAST(NULL AS {self.sql_type})" if value is None else sql_literal(value)

    def sql_check(self, expr: str, name: str) -> str:
        """The SQL that checks ``expr`` (NULL = not given) in a generated macro with an ``owner`` argument."""
        raise ValueError(f"no SQL check for a parameter that must be {self.describe()} ({name})")

    def sql_guard(self, expr: str, name: str, owner: str) -> str:
        """An SQL condition that raises the ``rf:param`` error of a bad ``expr`` and is never true otherwise.

        The checks at the head of a metric's public scalar macros (``CASE WHEN <guard> OR <guard> THEN NULL ELSE
        ...``), where a parameter has its default in the signature and a NULL is a value to check like any other;
        ``owner``: the SQL of the macro's name in the message (``'rf_ap'``).
        """
        raise ValueError(f"no SQL guard for a parameter that must be {self.describe()} ({name})")

    def refuse(self, owner: str, name: str, value: Any) -> Exception:
        """The one error of a value outside this rule (:func:`rankframe.errors.parameter_error`)."""
        return parameter_error(owner, name, self.describe(), value)

    def strategy(self) -> Any:
        """A hypothesis strategy of values :meth:`check` accepts (hypothesis is imported here: tests only)."""
        raise NotImplementedError

    def invalid(self) -> Any:
        """A hypothesis strategy of values :meth:`check` refuses with a ParameterError."""
        raise NotImplementedError


def _hypothesis() -> Any:
    from hypothesis import strategies as st

    return st


#: values no rule of this module takes, whatever it is (a list, a bytes, an object)
def _foreign() -> Any:
    st = _hypothesis()
    return st.sampled_from([[1], b"1", object(), {1, 2}, (1,)])


@dataclass(frozen=True)
class Choice(Constraint):
    """One of a few values; a text is compared lower-cased (``gain='LINEAR'`` is ``'linear'``)."""

    choices: tuple[Any, ...] = ()
    sql_type = "VARCHAR"

    def check(self, owner: str, name: str, value: Any) -> Any:
        """The value, normalised, or the ParameterError (:meth:`Constraint.check`)."""
        if isinstance(value, str):
            value = value.lower()
        try:
            ok = bool(value in self.choices)
        except (TypeError, ValueError):  # an array's == is elementwise: not one of the choices
            ok = False
        if not ok:
            raise self.refuse(owner, name, value)
        return value

    def describe(self) -> str:
        """The rule in words (:meth:`Constraint.describe`)."""
        return "one of " + ", ".join(repr(c) for c in self.choices)

    @property
    def accepts_none(self) -> bool:
        """None is a value of the parameter (:attr:`Constraint.accepts_none`)."""
        return None in self.choices

    def values(self) -> tuple[Any, ...]:
        """Every allowed value (:meth:`Constraint.values`)."""
        return self.choices

    def sql_value(self, value: Any) -> str:
        """A value as a typed SQL literal (:meth:`Constraint.sql_value`)."""
        return super().sql_value(None if value is None else str(value).lower())

    def sql_check(self, expr: str, name: str) -> str:
        """The SQL check of ``expr`` (:meth:`Constraint.sql_check`)."""
        choices = ", ".join(sql_literal(c) for c in self.choices if c is not None)
        return f"rf__opt_choice({expr}, [{choices}], '{name}', owner)"

    def sql_guard(self, expr: str, name: str, owner: str) -> str:
        """The SQL guard of ``expr`` (:meth:`Constraint.sql_guard`)."""
        if self.accepts_none:
            return super().sql_guard(expr, name, owner)
        choices = ", ".join(sql_literal(c) for c in self.choices)
        return f"rf__choice({expr}, [{choices}], '{name}', {owner}) = ''"

    def strategy(self) -> Any:
        """Values the rule takes (:meth:`Constraint.strategy`)."""
        st = _hypothesis()
        upper = [c.upper() for c in self.choices if isinstance(c, str) and c.upper() != c]
        return st.sampled_from(self.choices + tuple(upper))

    def invalid(self) -> Any:
        """Values the rule refuses (:meth:`Constraint.invalid`)."""
        st = _hypothesis()
        lowered = {c.lower() for c in self.choices if isinstance(c, str)}
        text = st.text(max_size=8).filter(lambda s: s.lower() not in lowered)
        others = st.sampled_from([v for v in (None, 0, 1.5, True, math.nan) if v not in self.choices])
        return st.one_of(text, others, _foreign())


@dataclass(frozen=True)
class Flag(Constraint):
    """True or False (a numpy bool too); never 1 or 0."""

    sql_type = "BOOLEAN"

    def check(self, owner: str, name: str, value: Any) -> Any:
        """The value, normalised, or the ParameterError (:meth:`Constraint.check`)."""
        if not isinstance(value, (bool, np.bool_)):
            raise self.refuse(owner, name, value)
        return bool(value)

    def describe(self) -> str:
        """The rule in words (:meth:`Constraint.describe`)."""
        return "True or False"

    def values(self) -> tuple[Any, ...]:
        """Every allowed value (:meth:`Constraint.values`)."""
        return (False, True)

    def sql_value(self, value: Any) -> str:
        """A value as a typed SQL literal (:meth:`Constraint.sql_value`)."""
        return super().sql_value(None if value is None else bool(value))

    def sql_check(self, expr: str, name: str) -> str:
        """The SQL check of ``expr`` (:meth:`Constraint.sql_check`)."""
        return f"rf__opt_flag({expr}, '{name}', owner)"

    def sql_guard(self, expr: str, name: str, owner: str) -> str:
        """The SQL guard of ``expr`` (:meth:`Constraint.sql_guard`)."""
        return f"rf__flag({expr}, '{name}', {owner}) IS NULL"

    def strategy(self) -> Any:
        """Values the rule takes (:meth:`Constraint.strategy`)."""
        st = _hypothesis()
        return st.one_of(st.booleans(), st.sampled_from([np.bool_(True), np.bool_(False)]))

    def invalid(self) -> Any:
        """Values the rule refuses (:meth:`Constraint.invalid`)."""
        st = _hypothesis()
        return st.one_of(st.sampled_from([0, 1, 1.0, "True", "false", None, math.nan]), _foreign())


@dataclass(frozen=True)
class Gains(Constraint):
    """A dict ``{grade: gain}`` of finite numbers (normalised to a :class:`GainMap`), or None."""

    sql_type = "MAP(DOUBLE, DOUBLE)"

    def check(self, owner: str, name: str, value: Any) -> Any:
        """The value, normalised, or the ParameterError (:meth:`Constraint.check`)."""
        if value is None:
            return value
        if not (
            isinstance(value, dict) and all(_is_number(x) and math.isfinite(x) for pair in value.items() for x in pair)
        ):
            raise self.refuse(owner, name, value)
        return GainMap.of(value)

    def describe(self) -> str:
        """The rule in words (:meth:`Constraint.describe`)."""
        return "a dict {grade: gain} of finite numbers, or None"

    @property
    def accepts_none(self) -> bool:
        """None is a value of the parameter (:attr:`Constraint.accepts_none`)."""
        return True

    def sql_value(self, value: Any) -> str:
        """A value as a typed SQL literal (:meth:`Constraint.sql_value`)."""
        if isinstance(value, GainMap):
            return f"CAST({sql_literal(value)} AS MAP(DOUBLE, DOUBLE))"
        return super().sql_value(value)

    def sql_guard(self, expr: str, name: str, owner: str) -> str:
        """The SQL guard of ``expr`` (:meth:`Constraint.sql_guard`)."""
        return f"cardinality(rf__gains({expr}, {owner})) < 0"

    def strategy(self) -> Any:
        """Values the rule takes (:meth:`Constraint.strategy`)."""
        st = _hypothesis()
        grade = st.integers(-2, 10) | st.sampled_from([0.5, 2.5])
        gain = st.integers(-10, 100) | st.floats(-1e3, 1e3, allow_nan=False)
        return st.none() | st.dictionaries(grade, gain, max_size=4)

    def invalid(self) -> Any:
        """Values the rule refuses (:meth:`Constraint.invalid`)."""
        st = _hypothesis()
        bad = st.sampled_from([math.nan, math.inf, -math.inf, "1", True, None])
        return st.one_of(
            st.builds(lambda v: {1: v}, bad),
            st.builds(lambda v: {v: 1}, st.sampled_from([math.nan, math.inf, "1", True])),
            st.sampled_from([[1, 2], "linear", 1, True]),
        )


@dataclass(frozen=True)
class Interval(Constraint):
    """A number in a range (rankframe.numeric.check_number's rule: a bool is no number, finite, int64 at most).

    ``words`` are the rule's words in messages and docs; ``none``: None is a value too; ``sql``: the template of
    its SQL check (``{expr}`` and ``{name}``), None when no generated macro checks it; ``guard``: the template of
    its SQL guard (``{expr}``, ``{name}``, ``{owner}``; :meth:`Constraint.sql_guard`), and ``guards``: the guards of
    the parameters whose SQL macro says their name itself (``(("max_grade", "rf__max_grade(...) < 0"),)``: the
    macros of sql/ that word one parameter), which take precedence.
    """

    words: str = "a finite number"
    integer: bool = False
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    none: bool = False
    sql: str | None = None
    guard: str | None = None
    guards: tuple[tuple[str, str], ...] = ()
    sql_type = "DOUBLE"

    def check(self, owner: str, name: str, value: Any) -> Any:
        """The value, normalised, or the ParameterError (:meth:`Constraint.check`)."""
        if value is None and self.none:
            return value
        return check_number(
            owner,
            name,
            value,
            integer=self.integer,
            low=self.low,
            high=self.high,
            low_open=self.low_open,
            high_open=self.high_open,
            expected=self.describe(),
        )

    def describe(self) -> str:
        """The rule in words (:meth:`Constraint.describe`)."""
        return self.words

    @property
    def accepts_none(self) -> bool:
        """None is a value of the parameter (:attr:`Constraint.accepts_none`)."""
        return self.none

    def sql_value(self, value: Any) -> str:
        """A value as a typed SQL literal (:meth:`Constraint.sql_value`)."""
        return super().sql_value(None if value is None else float(value))

    def sql_check(self, expr: str, name: str) -> str:
        """The SQL check of ``expr`` (:meth:`Constraint.sql_check`)."""
        if self.sql is None:
            return super().sql_check(expr, name)
        return self.sql.format(expr=expr, name=name)

    def sql_guard(self, expr: str, name: str, owner: str) -> str:
        """The SQL guard of ``expr`` (:meth:`Constraint.sql_guard`)."""
        template = dict(self.guards).get(name, self.guard)
        if template is None:
            return super().sql_guard(expr, name, owner)
        return template.format(expr=expr, name=name, owner=owner)

    def _takes(self, value: Any) -> bool:
        try:
            self.check("", "", value)
        except ValueError:
            return False
        return True

    def strategy(self) -> Any:
        """Values the rule takes (:meth:`Constraint.strategy`)."""
        st = _hypothesis()
        if self.integer:
            low = None if self.low is None else math.floor(self.low) + (1 if self.low_open else 0)
            high = K_MAX if self.high is None else math.ceil(self.high) - (1 if self.high_open else 0)
            drawn = st.integers(low, high) | st.integers(low, high).map(np.int64)
        else:
            drawn = st.floats(
                self.low,
                self.high,
                exclude_min=self.low_open and self.low is not None,
                exclude_max=self.high_open and self.high is not None,
                allow_nan=False,
                allow_infinity=False,
            )
            if self._takes(1):
                drawn = drawn | st.just(1)  # an int where a float is asked
        return (st.none() | drawn) if self.none else drawn

    def invalid(self) -> Any:
        """Values the rule refuses (:meth:`Constraint.invalid`)."""
        st = _hypothesis()
        bad: list[Any] = [math.nan, math.inf, -math.inf, True, False, "1", 10**400]
        if self.low is not None:
            bad += [self.low] if self.low_open else []
            bad += [self.low - 1, self.low - 0.5]
        if self.high is not None:
            bad += [self.high] if self.high_open else []
            bad += [self.high + 1, self.high + 0.5]
        if self.integer:
            bad += [2.0, 2.5, 2**63, 10**40]
        if not self.none:
            bad.append(None)
        return st.one_of(st.sampled_from(bad), _foreign())


@dataclass(frozen=True)
class Threshold(Interval):
    """A relevance threshold: any finite number, kept as given (``rel=2`` prints as 2 in a label)."""

    words: str = "a finite number"
    sql: str | None = "rf__threshold({expr}, '{name}', owner)"

    def check(self, owner: str, name: str, value: Any) -> Any:
        """The value, normalised, or the ParameterError (:meth:`Constraint.check`)."""
        super().check(owner, name, value)
        return value

    def describe(self) -> str:
        """The rule in words (:meth:`Constraint.describe`)."""
        return self.words + (" or None" if self.none else "")

    def sql_guard(self, expr: str, name: str, owner: str) -> str:
        """The SQL guard of ``expr`` (:meth:`Constraint.sql_guard`): NULL is "no threshold" when None is a value.

        ``rel``'s own macros (``rf__rel``: set, ``rf__relopt``: or NULL) for ``rel``; another name: ``rf__threshold``.
        """
        if not self.none:
            if name != "rel":
                return super().sql_guard(expr, name, owner)
            return f"rf__rel({expr}, {owner}) IS NULL"
        if name == "rel":
            return f"isnan(rf__relopt({expr}, {owner}))"
        return f"isnan(rf__threshold({expr}, '{name}', {owner}))"


@dataclass(frozen=True)
class Cutoff(Interval):
    """The cutoff ``k``: an int >= 1 that fits int64, or None (the whole list); BIGINT in SQL."""

    words: str = "an int >= 1 (at most 2**63 - 1) or None"
    integer: bool = True
    low: float | None = 1
    high: float | None = K_MAX
    none: bool = True
    sql: str | None = "rf__k({expr}, owner)"
    guard: str | None = "rf__k({expr}, {owner}) < 0"
    sql_type = "BIGINT"

    def sql_value(self, value: Any) -> str:
        """A value as a typed SQL literal (:meth:`Constraint.sql_value`)."""
        return f"CAST(NULL AS {self.sql_type})" if value is None else f"CAST({int(value)} AS BIGINT)"


#: the rules of the shared parameters, by value (a new declaration may build its own)
K = Cutoff()
UNIT = Interval(
    "a float in [0, 1]",
    low=0,
    high=1,
    sql="rf__opt_unit({expr}, '{name}', owner)",
    guard="rf__unit({expr}, '{name}', {owner}) < 0",
)
OPEN_UNIT = Interval(
    "a float in the open interval (0, 1)",
    low=0,
    high=1,
    low_open=True,
    high_open=True,
    guard="rf__open_unit({expr}, '{name}', {owner}, '') < 0",
    guards=(("p", "rf__p({expr}, {owner}) < 0"),),
)
NONNEGATIVE = Interval(
    "a finite float >= 0",
    low=0,
    sql="rf__opt_nonnegative({expr}, '{name}', owner)",
    guards=(("beta", "rf__beta({expr}, {owner}) < 0"),),
)
BASE = Interval(
    "a finite float > 1",
    low=1,
    low_open=True,
    sql="rf__opt_base({expr}, owner)",
    guards=(("log_base", "rf__log_base({expr}, {owner}) < 0"),),
)
#: a confidence level (compare's, anova's and segment_means' ci): the open unit interval, with an example
LEVEL = Interval("a float in the open interval (0, 1), e.g. 0.95", low=0, high=1, low_open=True, high_open=True)
INT_AT_LEAST_1 = Interval(
    "an int >= 1", integer=True, low=1, guards=(("max_grade", "rf__max_grade({expr}, {owner}) < 0"),)
)
FLAG = Flag()
GAINS = Gains()

#: the named shorthands of ``Param(kind=...)``: kind -> the constraint, from the parameter's choices and default
KINDS: dict[str, Callable[[tuple[Any, ...] | None, Any], Constraint]] = {
    "choice": lambda choices, default: Choice(tuple(choices or ())),
    "k": lambda choices, default: K,
    "threshold": lambda choices, default: Threshold(none=default is None),
    "int>=1": lambda choices, default: INT_AT_LEAST_1,
    "open_unit": lambda choices, default: OPEN_UNIT,
    "unit": lambda choices, default: UNIT,
    "nonnegative": lambda choices, default: NONNEGATIVE,
    "base": lambda choices, default: BASE,
    "gains": lambda choices, default: GAINS,
    "flag": lambda choices, default: FLAG,
}


def of_kind(kind: str, choices: tuple[Any, ...] | None = None, default: Any = None) -> Constraint:
    """The constraint a named shorthand stands for (:data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown parameter kind {kind!r}; the kinds are {list(KINDS)} (or give constraint=)")
    return KINDS[kind](choices, default)
