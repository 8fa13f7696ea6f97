"""One exception hierarchy; every user-facing message is built here."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, NamedTuple


def install_extra(extra: str) -> str:
    """How to install an optional extra, from PyPI and from a checkout (the words of every missing-extra error).

    >>> install_extra("plot")
    'pip install "rankframe[plot]" (from a checkout: pip install -e ".[plot]")'
    """
    return f'pip install "rankframe[{extra}]" (from a checkout: pip install -e ".[{extra}]")'


class RankframeError(ValueError):
    """Base class of every error rankframe raises on bad input or bad parameters."""


class ValidationError(RankframeError):
    """The table breaks one or more rules of the long-format data model.

    ``failures`` holds one dict per broken rule with keys ``column``, ``rule``, ``count`` and ``examples``
    (a small DataFrame of offending rows).
    """

    def __init__(self, failures: list[dict], table: str = "ranking table"):
        self.failures = failures
        self.table = table
        lines = [f"the {table} breaks {len(failures)} rule(s):"]
        for f in failures:
            count = f" ({f['count']} offending row(s))" if f.get("count") else ""
            lines.append(f"- column {f['column']!r}: {f['rule']}{count}")
            ex = f.get("examples")
            if ex is not None and len(ex):
                body = ex.to_string(max_rows=5, max_colwidth=40)
                lines.extend("    " + line for line in body.splitlines())
        super().__init__("\n".join(lines))


_UNSET: Any = type("_Unset", (), {"__repr__": lambda self: "<unset>"})()


class ParameterError(RankframeError):
    """A metric or call parameter has a value outside its declared constraint.

    Built by :meth:`of` (or :func:`parameter_error`) it carries fields: ``owner`` (the function or metric whose
    parameter it is, ``"compare"``), ``parameter`` (its keyword, ``"ci"``), ``expected`` (the rule in words),
    ``got`` (the value given) and ``hint`` (a sentence after the rule, or None). A message that does not fit the
    one template may still name its parameter: ``ParameterError(text, owner=..., parameter=...)``, where ``text``
    begins with :attr:`subject`. A plain ``ParameterError(text)`` has every field None. The command line reads
    ``parameter`` to name the option instead of the keyword (:meth:`with_subject`). It pickles with its fields
    (a Spark or joblib worker's error comes back whole).

    >>> e = ParameterError.of("compare", "ci", "a level in the open interval (0, 1)", 2)
    >>> str(e)
    "The 'ci' parameter of compare must be a level in the open interval (0, 1). Got 2 instead."
    >>> e.parameter, e.got
    ('ci', 2)
    >>> e.with_subject("--ci")
    '--ci must be a level in the open interval (0, 1). Got 2 instead.'
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        owner: str | None = None,
        parameter: str | None = None,
        expected: str | None = None,
        got: Any = _UNSET,
        hint: str | None = None,
    ):
        self.owner = owner
        self.parameter = parameter
        self.expected = expected
        self.got = None if got is _UNSET else got
        self.hint = hint
        if message is None:
            message = self._template(self.subject, expected, got, hint)
        super().__init__(message)

    @classmethod
    def of(cls, owner: str, parameter: str, expected: str, got: object, hint: str | None = None) -> ParameterError:
        """The one message of a bad parameter (scikit-learn's words), with its fields.

        ``The 'k' parameter of evaluate must be an int >= 1. Got 0 instead.``, then ``hint`` if given.
        """
        return cls(owner=owner, parameter=parameter, expected=expected, got=got, hint=hint)

    @property
    def subject(self) -> str:
        """``The 'k' parameter of evaluate``: how the message names the parameter ("" without the fields)."""
        if self.parameter is None:
            return ""
        return f"The {self.parameter!r} parameter" + ("" if self.owner is None else f" of {self.owner}")

    @staticmethod
    def _template(subject: str, expected: str | None, got: object, hint: str | None) -> str:
        text = f"{subject} must be {expected}."
        if got is not _UNSET:
            text += f" Got {got!r} instead."
        if hint:
            text += " " + hint.strip()
        return text

    def with_subject(self, subject: str) -> str:
        """The message with :attr:`subject` said as ``subject`` (the command line's ``--ci``); as is without it."""
        text = str(self)
        if not self.subject or not text.startswith(self.subject):
            return text
        return subject + text[len(self.subject) :]


class CallerOptions(NamedTuple):
    """The running command line's options (set by ``rankframe.cli`` while a command runs).

    ``flags``: a library parameter -> the option that sets it (``"per_query"`` -> ``"--per-query"``);
    ``metavars``: an option's word for its value (``"train"`` -> ``"FILE"``); ``owners``: the library functions whose
    parameters the options are (``("compare", "evaluate")``); ``repeated``: the parameters whose option is given once
    per value (``--by a --by b``; another option takes a list comma-separated: ``--labels 0,1``).
    """

    flags: Mapping[str, str]
    metavars: Mapping[str, str] = {}
    owners: tuple[str, ...] = ()
    repeated: frozenset[str] = frozenset()


#: the caller's options while a ``rankframe`` command runs; empty in Python (messages then say ``missing='zero'``)
CALLER_OPTIONS: ContextVar[CallerOptions] = ContextVar("rankframe_caller_options", default=CallerOptions({}))

#: ``keyword(name)`` without a value: the keyword alone (``ci=``)
NO_VALUE: Any = _UNSET


def keyword(parameter: str, value: object = NO_VALUE, *, metavar: bool = False, bare: bool = False) -> str:
    """A parameter (and a value) mentioned inside a message, in the caller's words (issue 34).

    Every message that names a parameter other than its subject (a remedy: "pass ``missing='zero'``", a clash:
    "does not apply with ``per_query=True``") writes the mention with this function, at the moment it raises.

    In Python, the keyword argument: ``missing='zero'``, ``per_query=True``, ``by=['a', 'b']``, or ``ci=`` without
    a value (with ``bare=True`` the name alone: ``leave margin out``). While a ``rankframe`` command runs
    (:data:`CALLER_OPTIONS`, set by the CLI around the library's call, in which the library raises), the option that
    sets the parameter: ``--missing zero``; ``True`` is the switch alone (``--per-query``); a list repeats a repeated
    option (``--by a --by b``) and is comma-separated after another (``--labels 0,1``); no value is the option alone
    (``--ci``), or with ``metavar=True`` the option and its value's word (``--train FILE``). A parameter the command
    has no option for (and ``False``, which no switch says) keeps its Python words.

    >>> keyword("missing", "zero"), keyword("per_query", True), keyword("by", ["a", "b"]), keyword("ci")
    ("missing='zero'", 'per_query=True', "by=['a', 'b']", 'ci=')
    >>> token = CALLER_OPTIONS.set(
    ...     CallerOptions({"missing": "--missing", "per_query": "--per-query", "by": "--by", "ci": "--ci",
    ...                    "rank_base": "--rank-base", "train": "--train", "labels": "--labels"},
    ...                   {"train": "FILE"}, ("compare",), frozenset({"by"})))
    >>> keyword("missing", "zero"), keyword("per_query", True), keyword("by", ["a", "b"]), keyword("ci")
    ('--missing zero', '--per-query', '--by a --by b', '--ci')
    >>> keyword("rank_base", 0), keyword("train", metavar=True), keyword("seed", 3), keyword("per_query", False)
    ('--rank-base 0', '--train FILE', 'seed=3', 'per_query=False')
    >>> f"leave {keyword('ci', bare=True)} out", f"leave {keyword('margin', bare=True)} out"
    ('leave --ci out', 'leave margin out')
    >>> keyword("labels", [0.0, 1.0])
    '--labels 0.0,1.0'
    >>> CALLER_OPTIONS.reset(token)
    """
    caller = CALLER_OPTIONS.get()
    option = caller.flags.get(parameter)
    if option is None or value is False:
        if value is NO_VALUE:
            return parameter if bare else f"{parameter}="
        return f"{parameter}={value!r}"
    if value is NO_VALUE:
        word = caller.metavars.get(parameter) if metavar else None
        return option if word is None else f"{option} {word}"
    if value is True:
        return option
    if isinstance(value, (list, tuple)):
        if parameter in caller.repeated:
            return " ".join(f"{option} {v}" for v in value)
        return f"{option} {','.join(map(str, value))}"
    return f"{option} {value}"


def caller_option(parameter: str) -> str | None:
    """The running command's option for ``parameter`` (:data:`CALLER_OPTIONS`), None in Python or without one.

    For the few messages whose remedy is a different sentence on the command line (a file option instead of a
    Python call); a mere mention of a parameter is :func:`keyword`.
    """
    return CALLER_OPTIONS.get().flags.get(parameter)


class UnknownMetricError(RankframeError):
    """A metric name that the registry does not know."""


class MetricSyntaxError(RankframeError):
    """A metric string that does not follow the grammar ``NAME(param=value, ...)@K``."""


def parameter_error(owner: str, name: str, expected: str, got: object, hint: str | None = None) -> ParameterError:
    """The one message format for a bad parameter (scikit-learn style): :meth:`ParameterError.of`."""
    return ParameterError.of(owner, name, expected, got, hint)


def close_match(name: object, known: Iterable[object], *, ignore_case: bool = True) -> str | None:
    """The known name closest to ``name`` (difflib), as it is spelled in ``known``; None when none is close."""
    text = [str(k) for k in known]
    if not ignore_case:
        close = difflib.get_close_matches(str(name), text, n=1)
        return close[0] if close else None
    close = difflib.get_close_matches(str(name).lower(), [t.lower() for t in text], n=1)
    return next(t for t in text if t.lower() == close[0]) if close else None


def unknown_name_error(kind: str, got: str, known: Iterable[str]) -> UnknownMetricError:
    """Build the message for an unknown name, with the known names and a close match if there is one."""
    known = sorted(set(known), key=str.lower)
    text = f"unknown {kind} {got!r}. Known: {', '.join(known)}."
    match = close_match(got, known)
    if match is not None:
        text += f" Hint: did you mean {match!r}?"
    return UnknownMetricError(text)


def did_you_mean(name: str, known: Iterable[object]) -> str:
    """`` (did you mean 'x'?)`` when a known name is close to ``name`` (case-insensitive), else ``""``."""
    match = close_match(name, known)
    return "" if match is None else f" (did you mean {match!r}?)"


def missing_columns_error(
    missing: Sequence[str], present: Sequence[str], table: str = "ranking table"
) -> ValidationError:
    """Build the failure for columns that are not in the frame, with a did-you-mean hint."""
    import pandas as pd

    rows = [
        {
            "column": c,
            "rule": f"column {c!r} not in dataframe{did_you_mean(c, present)}. Columns in dataframe: {list(present)}",
            "count": 0,
            "examples": pd.DataFrame(),
        }
        for c in missing
    ]
    return ValidationError(rows, table=table)


def check_unique_names(present: list, table: str) -> None:
    """Raise the ValidationError of repeated column names (pandas and Spark tables alike), or nothing."""
    repeated = sorted({str(c) for c in present if present.count(c) > 1})
    if repeated:
        raise ValidationError(
            [
                {
                    "column": name,
                    "rule": f"column names must be unique: {name!r} appears "
                    f"{sum(str(c) == name for c in present)} times",
                    "count": 0,
                }
                for name in repeated
            ],
            table=table,
        )
