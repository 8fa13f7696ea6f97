"""The generated parts of ``sql/intent.sql``: its measures, their columns and its table macros' parameters.

``rankframe.registry.write_sql_params`` writes the declarations into ``sql/intent.sql`` as comment lines
(``-- rf:intent <Name> kernel=<column> presets=<a,b>``, ``-- rf:intent_param <name> := <default>``);
the loader (``rankframe/sql.py``, standard library only, like this module) reads them with :func:`intent_lines`
and fills each ``intent_*`` marker with :func:`intent_part`, so that no macro of the family lists a measure, a
preset or a parameter by hand.
"""

from __future__ import annotations

import re

_INTENT = re.compile(r"^-- rf:intent (?P<name>\w+) kernel=(?P<kernel>\w+) presets=(?P<presets>[\w,]*)$", re.M)
_INTENT_PARAM = re.compile(r"^-- rf:intent_param (?P<name>\w+) := (?P<default>[^\n]+)$", re.M)
#: the name inside the intent macros of a parameter whose declared name is an SQL keyword (``like``)
_INNER = {"like": "lk"}


class IntentColumn:
    """One measure of the intent-aware table macros (an ``-- rf:intent`` line of intent.sql, from its declaration).

    ``name``: its canonical name (the output column); ``kernel``: its column of ``rf__intent_values``;
    ``presets``: the ``like=`` values it declares in the qrels form.
    """

    def __init__(self, name: str, kernel: str, presets: str) -> None:
        self.name, self.kernel = name, kernel
        self.presets = [p for p in presets.split(",") if p]

    def __repr__(self) -> str:
        return f"IntentColumn({self.name!r})"


def intent_lines(text: str) -> tuple[list[IntentColumn], list[tuple[str, str]]]:
    """(the measures, the parameters as (name, default as SQL)) of the ``rf:intent`` lines of a text."""
    measures = [IntentColumn(m["name"], m["kernel"], m["presets"]) for m in _INTENT.finditer(text)]
    return measures, [(m["name"], m["default"].strip()) for m in _INTENT_PARAM.finditer(text)]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def intent_part(part: str, measures: list[IntentColumn], params: list[tuple[str, str]]) -> str:
    """The SQL of one ``intent_*`` marker of intent.sql."""
    if part == "intent_measures":  # rf__intent_measures(): [{'name': ..., 'presets': [...]}, ...]
        return ", ".join(
            f"{{'name': '{m.name}', 'presets': [{', '.join(repr(p) for p in m.presets)}]}}" for m in measures
        )
    if part == "intent_names":  # the output columns in lower case
        return ", ".join(f"'{m.name.lower()}'" for m in measures)
    if part == "intent_presets":  # every preset of the qrels form
        return ", ".join(f"'{p}'" for p in dict.fromkeys(p for m in measures for p in m.presets))
    if part == "intent_values":  # the kernel's values (the columns that follow are the caller's)
        return ", ".join(f"v.{m.kernel} AS rf__v_{m.kernel}" for m in measures)
    if part == "intent_zeros":  # the same columns for a unit with nothing retrieved: only the policies give values
        return ", ".join(f"0.0 AS rf__v_{m.kernel}" for m in measures)
    if part == "intent_policies":  # each measure's column after the query-set policies
        pad = " " * 17
        return ",\n".join(
            f"{pad}rf__intent_policy(rf__v_{m.kernel}, rf__n_judged, rf__n_ret, rf__n_sub, no_relevant, "
            f"no_retrieved, no_judged) AS {_quoted(m.name)}"
            for m in measures
        )
    if part == "intent_params":  # the public macros' parameters with their declared defaults
        return ", ".join(f"{_quoted(name)} := {default}" for name, default in params)
    if part == "intent_args":  # the same, passed on by position
        return ", ".join(_quoted(name) for name, _ in params)
    if part == "intent_inner":  # the internal macro's names of them
        return ", ".join(_INNER.get(name, name) for name, _ in params)
    raise ValueError(f"unknown generated part /* rf:generated {part} */")
