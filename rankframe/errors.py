"""One exception hierarchy; every user-facing message is built here."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


class RankframeError(ValueError):
    """Base class of every error rankframe raises on bad input or bad parameters."""


class ValidationError(RankframeError):
    """The table breaks one or more rules of the long-format data model.

    ``failures`` holds one dict per broken rule with keys ``column``, ``rule``, ``count`` and ``examples``
    (a small DataFrame of offending rows).
    """

    def __init__(self, failures: list[dict]):
        self.failures = failures
        lines = [f"the ranking table breaks {len(failures)} rule(s):"]
        for f in failures:
            count = f" ({f['count']} offending row(s))" if f.get("count") else ""
            lines.append(f"- column {f['column']!r}: {f['rule']}{count}")
            ex = f.get("examples")
            if ex is not None and len(ex):
                body = ex.to_string(max_rows=5, max_colwidth=40)
                lines.extend("    " + line for line in body.splitlines())
        super().__init__("\n".join(lines))


class ParameterError(RankframeError):
    """A metric or call parameter has a value outside its declared constraint."""


class UnknownMetricError(RankframeError):
    """A metric name that the registry does not know."""


def parameter_error(owner: str, name: str, expected: str, got: object) -> ParameterError:
    """Build the one message format for a bad parameter (scikit-learn style)."""
    return ParameterError(f"The {name!r} parameter of {owner} must be {expected}. Got {got!r} instead.")


def unknown_name_error(kind: str, got: str, known: Iterable[str]) -> UnknownMetricError:
    """Build the message for an unknown name, with the known names and a close match if there is one."""
    known = sorted(set(known), key=str.lower)
    hint = difflib.get_close_matches(got.lower(), [k.lower() for k in known], n=1)
    text = f"unknown {kind} {got!r}. Known: {', '.join(known)}."
    if hint:
        match = next(k for k in known if k.lower() == hint[0])
        text += f" Hint: did you mean {match!r}?"
    return UnknownMetricError(text)


def missing_columns_error(missing: Sequence[str], present: Sequence[str]) -> ValidationError:
    """Build the failure for columns that are not in the frame."""
    import pandas as pd

    rows = [
        {
            "column": c,
            "rule": f"column {c!r} not in dataframe. Columns in dataframe: {list(present)}",
            "count": 0,
            "examples": pd.DataFrame(),
        }
        for c in missing
    ]
    return ValidationError(rows)
