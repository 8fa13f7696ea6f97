"""The SQL face's option rules, generated from the declarations into ``sql/<name>.sql`` (never a hand copy).

Each beyond-accuracy metric file ``sql/<name>.sql`` holds one generated block between ``-- rf:generated-begin`` and
``-- rf:generated-end``: the macro ``rf__<name>_options(k, like, <options...>, train_given, catalog_given, owner)``,
which checks every option given (NULL = not given), fills the others from the preset ``like`` names, then from the
declared default, and raises the declared "needs an input" error. ``python -m rankframe.beyond.sqlgen`` rewrites
the blocks; ``tests/sql/test_sql_beyond.py`` fails when one is out of date.

Examples
--------
>>> from rankframe.beyond import entropy
>>> "rf__entropy_options" in options_sql(entropy.SPEC)
True
"""

from __future__ import annotations

import re
from pathlib import Path

from ..declare import Param
from .declare import BeyondSpec

BEGIN = "-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/{name}.py)"
END = "-- rf:generated-end"
#: the extra inputs as the SQL macros take them (table names), for the "needs an input" error
SQL_INPUTS = {
    "catalog": "a table with an item column (the catalog's item ids)",
    "train": "a table of past interactions with the query and item columns (and optionally weight)",
    "features": "a table of item features with the item column, feature (and optionally value)",
}
#: the SQL type of an option of each kind
_TYPES = {
    "choice": "VARCHAR",
    "nonnegative": "DOUBLE",
    "unit": "DOUBLE",
    "base": "DOUBLE",
    "flag": "BOOLEAN",
    "threshold": "DOUBLE",
}
NL, Q, QQ = "\n", "'", "''"
_BLOCK = re.compile(r"-- rf:generated-begin[^\n]*\n.*?-- rf:generated-end", re.S)


def _literal(value: object) -> str:
    """A declared value as SQL: text quoted, floats parsed from their exact repr, flags as booleans."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, int):
        return str(value)
    return f"CAST('{float(value)!r}' AS DOUBLE)"  # type: ignore[arg-type]


def _checked(p: Param) -> str:
    """The expression of one option as given: NULL when not given, else checked (an ``rf:param`` error)."""
    if p.kind == "choice":
        choices = ", ".join(_literal(c) for c in p.choices or () if c is not None)
        return f"rf__opt_choice({p.name}, [{choices}], '{p.name}', owner)"
    if p.kind == "nonnegative":
        return f"rf__opt_nonnegative({p.name}, '{p.name}', owner)"
    if p.kind == "unit":
        return f"rf__opt_unit({p.name}, '{p.name}', owner)"
    if p.kind == "base":
        return f"rf__opt_base({p.name}, owner)"
    if p.kind == "flag":
        return f"rf__opt_flag({p.name}, '{p.name}', owner)"
    if p.kind == "threshold":  # NULL = not given (a threshold the family declares is never None)
        return f"rf__threshold({p.name}, '{p.name}', owner)"
    raise ValueError(f"no SQL check for the option kind {p.kind!r}")


def options_sql(spec: BeyondSpec) -> str:
    """The generated block of ``sql/<spec.name>.sql``."""
    options = [p for p in spec.params if p.name not in ("k", "like")]
    peers = [peer for peer in spec.presets]
    checked_like = f"rf__opt_choice(\"like\", [{', '.join(_literal(p) for p in peers)}], 'like', owner)"
    like = "rf__lk"  # the checked like, bound once by the lambda below (not expanded into every option's CASE)
    fields = ["k := rf__k(k, owner)", f'"like" := {like}']
    for p in options:
        preset = [(peer, values[p.name]) for peer, values in spec.presets.items() if p.name in values]
        parts = [_checked(p)]
        if preset:
            cases = " ".join(f"WHEN {_literal(peer)} THEN {_literal(v)}" for peer, v in preset)
            parts.append(f"CASE {like} {cases} END")
        parts.append(_literal(p.default))
        fields.append(f"{p.name} := coalesce({', '.join(parts)})")
    if spec.level == "list":  # rf__beyond_row_values reads the options of every per-list metric: NULL if not its own
        from ..registry import BEYOND

        own = {p.name for p in spec.params}
        lists = [s for s in BEYOND if isinstance(s, BeyondSpec) and s.level == "list"]
        others = {p.name: p for s in lists for p in s.params if p.name not in own}
        fields += [f"{name} := CAST(NULL AS {_TYPES[p.kind]})" for name, p in others.items()]
    names = ", ".join(['"like"' if p.name == "like" else p.name for p in spec.params])
    resolve = (
        f"CREATE OR REPLACE MACRO rf__{spec.name}_opts({names}, owner) AS\n"
        f"    list_transform([{checked_like}], lambda {like}: struct_pack(\n        "
        + ",\n        ".join(fields)
        + "))[1];"
    )
    needs = [("true", n) for n in spec.needs]
    unless = {n: f" AND struct_extract(x, '{o}') <> {_literal(v)}" for n, o, v in spec.needs_unless}
    needs += [(f"struct_extract(x, '{o}') = {_literal(v)}{unless.get(n, '')}", n) for o, v, n in spec.needs_when]
    cases = "".join(
        f"{NL}         WHEN {cond} AND NOT {n}_given THEN error('rf:param: {spec.canonical} (' || owner || ') needs "
        f"{n} := ''<table>'', {SQL_INPUTS[n].replace(Q, QQ)}')"
        for cond, n in needs
    )
    given = given_names(spec)
    check = (
        f"CREATE OR REPLACE MACRO rf__{spec.name}_needs(o, {given}, owner) AS\n"
        f"    list_transform([o], lambda x: CASE WHEN x IS NULL THEN NULL{cases}{NL}         ELSE x END)[1];"
    )
    both = (
        f"CREATE OR REPLACE MACRO rf__{spec.name}_options({names}, {given}, owner) AS\n"
        f"    rf__{spec.name}_needs(rf__{spec.name}_opts({names}, owner), {given}, owner);"
    )
    return "\n".join([BEGIN.format(name=spec.name), resolve, check, both, END])


def given_names(spec: BeyondSpec) -> str:
    """The ``<input>_given`` flags of the generated macros: train and catalog, and features for a metric reading it."""
    reads = {n for n in spec.needs} | {n for _, _, n in spec.needs_when}
    return ", ".join(f"{n}_given" for n in ("train", "catalog", "features") if n != "features" or n in reads)


def sql_path(spec: BeyondSpec) -> Path:
    """``sql/<name>.sql`` of the checkout."""
    return Path(__file__).resolve().parents[2] / "sql" / f"{spec.name}.sql"


def rewritten(spec: BeyondSpec, text: str) -> str:
    """``text`` (a metric file) with its generated block replaced by :func:`options_sql`."""
    if not _BLOCK.search(text):
        raise ValueError(f"sql/{spec.name}.sql has no rf:generated-begin/-end block")
    return _BLOCK.sub(lambda _: options_sql(spec), text, count=1)


def main() -> None:
    """Rewrite the generated block of every ``sql/<name>.sql`` of the family (``python -m rankframe.beyond.sqlgen``)."""
    from ..registry import BEYOND

    for spec in BEYOND:
        if not isinstance(spec, BeyondSpec):
            continue
        path = sql_path(spec)
        path.write_text(rewritten(spec, path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
