"""The SQL face's option rules, generated from the declarations into ``sql/<name>.sql`` (never a hand copy).

Each beyond-accuracy metric file ``sql/<name>.sql`` holds one generated block between ``-- rf:generated-begin`` and
``-- rf:generated-end``: the macro ``rf__<name>_options(k, like, <options...>, train_given, catalog_given, owner)``,
which checks every option given (NULL = not given), fills the others from the preset ``like`` names, then from the
declared default, and raises the declared "needs an input" error. ``python -m rankframe.beyond.sqlgen`` rewrites
the blocks; ``tests/rung4_faces/test_sql_beyond_parity.py`` fails when one is out of date. ``sql/beyond.sql`` holds one
more block: ``rf__beyond_list_opts``, the one struct of every per-list metric's options that each per-list
``rf__<name>_opts`` fills with its own (:func:`list_pack_sql`), and the checks of the extra inputs
(:func:`inputs_sql`) from ``rankframe/beyond/input_rules.py``: each rule's words and code as the declaration writes
them.

Examples
--------
>>> from rankframe.beyond import entropy
>>> "rf__entropy_options" in options_sql(entropy.SPEC)
True
"""

from __future__ import annotations

import re
import string
import textwrap
from pathlib import Path

from ..declare import Param, sql_literal
from .declare import BeyondSpec
from .input_rules import InputRule

BEGIN = "-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the options of rankframe/beyond/{name}.py)"
END = "-- rf:generated-end"
#: the extra inputs as the SQL macros take them (table names), for the "needs an input" error
SQL_INPUTS = {
    "catalog": "a table with an item column (the catalog's item ids)",
    "train": "a table of past interactions with the query and item columns (and optionally weight)",
    "features": "a table of item features with the item column, feature (and optionally value)",
}
NL, Q, QQ = "\n", "'", "''"
_BLOCK = re.compile(r"-- rf:generated-begin[^\n]*\n.*?-- rf:generated-end", re.S)


_literal = sql_literal  # the one writer of values into SQL


def _checked(p: Param) -> str:
    """The expression of one option as given: NULL when not given, else checked (an ``rf:param`` error)."""
    return p.constraint.sql_check(p.name, p.name)


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
    # rf__beyond_row_values reads the options of every row-value metric (BeyondSpec.row_values): one struct of them
    # all, packed by rf__beyond_list_opts (sql/beyond.sql), NULL where not this metric's own
    pack = "rf__beyond_list_opts" if spec.row_values else "struct_pack"
    if spec.row_values:
        fields[:2] = ["rf__k(k, owner)", like]  # k and like are the pack's two positional arguments
    names = ", ".join(['"like"' if p.name == "like" else p.name for p in spec.params])
    resolve = (
        f"CREATE OR REPLACE MACRO rf__{spec.name}_opts({names}, owner) AS\n"
        f"    list_transform([{checked_like}], lambda {like}: {pack}(\n        " + ",\n        ".join(fields) + "))[1];"
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


def list_options() -> dict[str, Param]:
    """Every option of the row-value metrics (``BeyondSpec.row_values``) but k and like, each once.

    In the order of the family's declarations.
    """
    from ..registry import BEYOND

    lists = [s for s in BEYOND if isinstance(s, BeyondSpec) and s.row_values]
    return {p.name: p for s in lists for p in s.params if p.name not in ("k", "like")}


def list_pack_sql() -> str:
    """``rf__beyond_list_opts(k, like, <option> := NULL, ...)``: the one struct of every per-list metric's options.

    Each per-list metric's ``rf__<name>_opts`` names its own options; every other one is a NULL of its SQL type.
    """
    options = list_options()
    params = ",\n        ".join(f"{n} := {p.constraint.sql_value(None)}" for n, p in options.items())
    fields = textwrap.fill(", ".join(f"{n} := {n}" for n in options), 110, subsequent_indent="        ")
    return (
        "-- the options of every per-list metric as one struct (rf__beyond_row_values reads them all): NULL where\n"
        "-- not the metric's own (each metric's generated rf__<name>_opts names its own)\n"
        f'CREATE OR REPLACE MACRO rf__beyond_list_opts(k, "like",\n        {params}) AS\n'
        f'    struct_pack(k := k, "like" := "like",\n        {fields});'
    )


def given_names(spec: BeyondSpec) -> str:
    """The ``<input>_given`` flags of the generated macros: train and catalog, and features for a metric reading it."""
    reads = {n for n in spec.needs} | {n for _, _, n in spec.needs_when}
    return ", ".join(f"{n}_given" for n in ("train", "catalog", "features") if n != "features" or n in reads)


# ------------------------------------------------------------------------------------------------ input rules
#: the generated block of sql/beyond.sql: the checks of the extra inputs (rankframe/beyond/input_rules.py)
INPUTS_BEGIN = (
    "-- rf:generated-begin (python -m rankframe.beyond.sqlgen: the input rules of rankframe/beyond/input_rules.py)"
)
#: DuckDB's names of the number types (``typeof``): ids of these types are numbers (rankframe.units.id_kind)
_NUMBER_TYPES = (
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT",
    "UHUGEINT", "FLOAT", "DOUBLE",
)  # fmt: skip


class Sql(str):
    """A field of a rule's words given as an SQL expression (not a Python value written as text)."""


def words_sql(rule: InputRule, **fields: object) -> str:
    """The declared words of ``rule`` as an SQL text expression starting with its code (``rf:param: ...``).

    A field is an :class:`Sql` expression (cast to text) or a Python value (written as the Python words write it).
    """
    parts = [_literal(f"{rule.code}: ")]
    for literal, name, _, conversion in string.Formatter().parse(rule.text):
        if literal:
            parts.append(_literal(literal))
        if name is None:
            continue
        value = fields[name]
        if isinstance(value, Sql):
            parts.append(f"CAST({value} AS VARCHAR)")
        else:
            parts.append(_literal(repr(value) if conversion == "r" else str(value)))
    return " || ".join(parts)


def _raise(rule: InputRule, **fields: object) -> str:
    return f"error({words_sql(rule, **fields)})"


def _example(kind: str, value: str) -> Sql:
    """An id as the Python words show it (text quoted)."""
    quote = _literal("'")  # one quote, as an SQL literal
    text = f"CAST({value} AS VARCHAR)"
    return Sql(f"CASE WHEN {kind} = 'text' THEN {quote} || {text} || {quote} ELSE {text} END")


def _rows(columns: list[str], where: str) -> Sql:
    """At most five offending rows, as a list of structs."""
    pack = ", ".join(f"{c} := t.{c}" for c in columns)
    order = ", ".join(f"t.{c}" for c in columns)  # the same five rows whatever order DuckDB reads them in
    return Sql(f"CAST(list(struct_pack({pack}) ORDER BY {order}) FILTER (WHERE {where})[1:5] AS VARCHAR)")


def _null_shown(column: str) -> str:
    return f"find them with WHERE {column} IS NULL"


def inputs_sql() -> str:
    """The generated block of ``sql/beyond.sql``: the kinds of ids and one check macro per extra input.

    ``rf__beyond_check_<input>(tbl, <input>[, history])`` is true, or raises the first rule of
    :data:`rankframe.beyond.input_rules.RULES` (face ``sql``) the input breaks, in the declared words and code.
    Every column is read through ``UNION ALL BY NAME`` so that a missing one binds (as NULL) and reaches its rule.
    """
    from . import input_rules as ir

    R = ir.RULES
    number = ", ".join(_literal(t) for t in _NUMBER_TYPES)
    words = " ".join(f"WHEN {_literal(k)} THEN {_literal(v)}" for k, v in ir.KIND_WORDS.items())
    out = [
        INPUTS_BEGIN,
        list_pack_sql(),
        "-- the kind of ids of a column of DuckDB type t (rankframe.units.id_kind): number, text, other, empty (NULL)",
        "CREATE OR REPLACE MACRO rf__id_kind(t) AS",
        "    CASE WHEN t = '\"NULL\"' THEN 'empty' WHEN t = 'VARCHAR' THEN 'text'",
        f"         WHEN t IN ({number}) OR t LIKE 'DECIMAL%' THEN 'number' ELSE 'other' END;",
        "CREATE OR REPLACE MACRO rf__kinds_clash(a, b) AS a <> 'empty' AND b <> 'empty' AND (a <> b OR a = 'other');",
        f"CREATE OR REPLACE MACRO rf__kind_words(k) AS CASE k {words} END;",
        "-- the ranking table's kinds of item and query ids (NULL columns when it has not got them: its own rule)",
        "CREATE OR REPLACE MACRO rf__beyond_table_kinds(tbl) AS TABLE",
        "    SELECT rf__id_kind(typeof(any_value(s.item))) AS rf__ik, any_value(s.item) AS rf__ix,",
        "           rf__id_kind(typeof(any_value(s.query))) AS rf__qk, any_value(s.query) AS rf__qx",
        "    FROM (SELECT * FROM query_table(tbl)",
        "          UNION ALL BY NAME SELECT NULL AS item, NULL AS query WHERE false) AS s;",
    ]
    numeric = "rf__id_kind(typeof({c})) = 'number'"

    def bad_number(column: str, negative: bool) -> str:
        x = f"TRY_CAST(t.{column} AS DOUBLE)"
        ok = f"{x} IS NOT NULL AND isfinite({x})" + ("" if negative else f" AND {x} >= 0")
        return f"list_contains(m.rf__names, '{column}') AND NOT coalesce({ok}, false)"

    def kind_case(name: str, where: str) -> str:
        rule = R["id_kind"]
        return (
            "\n         WHEN rf__kinds_clash(c.rf__ik, r.rf__ik) THEN "
            + _raise(
                rule, where=where, mine=Sql("rf__kind_words(c.rf__ik)"), theirs=Sql("rf__kind_words(r.rf__ik)"),
                mine_example=_example("c.rf__ik", "c.rf__ix"), their_example=_example("r.rf__ik", "r.rf__ix"),
                item="item",
            )
        )  # fmt: skip

    # train (empty: every item cold, no error): columns, null query, null item, kind, weight, (history) query kind
    w_bad = bad_number("weight", negative=False)
    w_type = "NOT list_contains(m.rf__names, 'weight') OR " + numeric.format(c="t.weight")
    train_cases = (
        "\n         WHEN len(rf__lacking(m.rf__names, ['query', 'item'])) > 0 THEN "
        + _raise(
            R["columns"], input="train", wanted_words=ir.WANTED_WORDS["train"], wanted=["query", "item"],
            optional=ir.WEIGHT, missing=Sql("rf__lacking(m.rf__names, ['query', 'item'])"), present=Sql("m.rf__names"),
        )
        + "\n         WHEN c.rf__nq > 0 THEN "
        + _raise(R["null_query"], column="query", count=Sql("c.rf__nq"), shown=_null_shown("query"))
        + "\n         WHEN c.rf__ni > 0 THEN "
        + _raise(R["null_ids"], where=ir.where("train", "item"), count=Sql("c.rf__ni"), shown=_null_shown("item"))
        + kind_case("train", ir.where("train", "item"))
        + "\n         WHEN c.rf__nw > 0 THEN "
        + _raise(R["weight"], count=Sql("c.rf__nw"), rows=Sql("c.rf__rows"))
        + "\n         WHEN history AND rf__kinds_clash(c.rf__qk, r.rf__qk) THEN "
        + _raise(
            R["history_kind"], readers=Sql("owner"), query="query", mine=Sql("rf__kind_words(c.rf__qk)"),
            theirs=Sql("rf__kind_words(r.rf__qk)"), mine_example=_example("c.rf__qk", "c.rf__qx"),
            their_example=_example("r.rf__qk", "r.rf__qx"),
        )
    )  # fmt: skip
    out += [
        "-- train: true, or the first input rule it breaks (train IS NULL: nothing read)",
        "CREATE OR REPLACE MACRO rf__beyond_check_train(tbl, train, history, owner) AS (",
        "    SELECT CASE WHEN train IS NULL THEN true" + train_cases + "\n         ELSE true END",
        "    FROM (SELECT count(t.rf__one) AS rf__n, count(t.rf__one) FILTER (WHERE t.query IS NULL) AS rf__nq,",
        "                 count(t.rf__one) FILTER (WHERE t.item IS NULL) AS rf__ni,",
        "                 rf__id_kind(typeof(any_value(t.item))) AS rf__ik, any_value(t.item) AS rf__ix,",
        "                 rf__id_kind(typeof(any_value(t.query))) AS rf__qk, any_value(t.query) AS rf__qx,",
        f"                 count(t.rf__one) FILTER (WHERE NOT ({w_type}) OR {w_bad}) AS rf__nw,",
        f"                 {_rows(['query', 'item', 'weight'], f'NOT ({w_type}) OR {w_bad}')} AS rf__rows",
        "          FROM rf__columns(coalesce(train, tbl)) AS m,",
        "               (SELECT *, 1 AS rf__one FROM query_table(coalesce(train, tbl)) WHERE train IS NOT NULL",
        "                UNION ALL BY NAME SELECT NULL AS query, NULL AS item, NULL AS weight WHERE false) AS t",
        "          ) AS c, rf__columns(coalesce(train, tbl)) AS m, rf__beyond_table_kinds(tbl) AS r);",
    ]
    # catalog: one column (its ids, whatever its name), empty, null ids, kind, repeated ids
    catalog_cases = (
        "\n         WHEN len(m.rf__names) <> 1 THEN " + _raise(R["catalog_columns"], columns=Sql("m.rf__names"))
        + "\n         WHEN coalesce(c.rf__n, 0) = 0 THEN "
        + _raise(R["empty"], input="catalog", what=ir.EMPTY["catalog"])
        + "\n         WHEN c.rf__ni > 0 THEN "
        + _raise(R["null_ids"], where=ir.where("catalog", "item"), count=Sql("c.rf__ni"), shown=_null_shown("item"))
        + kind_case("catalog", ir.where("catalog", "item"))
        + "\n         WHEN c.rf__nd < c.rf__n THEN "
        + _raise(R["repeated_ids"], count=Sql("c.rf__n - c.rf__nd"), examples=Sql("c.rf__rep"))
    )  # fmt: skip
    out += [
        "-- catalog: its one column, the item ids (whatever its name); true, or the first input rule it breaks",
        "CREATE OR REPLACE MACRO rf__beyond_catalog(tbl, catalog) AS TABLE",
        "    SELECT struct_extract(row(*COLUMNS(*)), 1) AS item FROM query_table(coalesce(catalog, tbl))",
        "    WHERE catalog IS NOT NULL;",
        "CREATE OR REPLACE MACRO rf__beyond_check_catalog(tbl, catalog) AS (",
        "    SELECT CASE WHEN catalog IS NULL THEN true" + catalog_cases + "\n         ELSE true END",
        "    FROM rf__columns(coalesce(catalog, tbl)) AS m, rf__beyond_table_kinds(tbl) AS r,",
        "         (SELECT count(*) AS rf__n, count(*) FILTER (WHERE t.item IS NULL) AS rf__ni,",
        "                 count(DISTINCT t.item) AS rf__nd, rf__id_kind(typeof(any_value(t.item))) AS rf__ik,",
        "                 any_value(t.item) AS rf__ix,",
        "                 (SELECT CAST(list(d.item ORDER BY d.item)[1:5] AS VARCHAR) FROM (SELECT u.item",
        "                  FROM rf__beyond_catalog(tbl, catalog) AS u GROUP BY u.item HAVING count(*) > 1) AS d)",
        "                 AS rf__rep",
        "          FROM rf__beyond_catalog(tbl, catalog) AS t) AS c);",
    ]
    # features: columns, empty, null feature, null item, kind, value, repeated pairs
    v_bad = bad_number("value", negative=True)
    v_type = "NOT list_contains(m.rf__names, 'value') OR " + numeric.format(c="t.value")
    features_cases = (
        "\n         WHEN len(rf__lacking(m.rf__names, ['item', 'feature'])) > 0 THEN "
        + _raise(
            R["columns"], input="features", wanted_words=ir.WANTED_WORDS["features"], wanted=["item", "feature"],
            optional=ir.VALUE, missing=Sql("rf__lacking(m.rf__names, ['item', 'feature'])"),
            present=Sql("m.rf__names"),
        )
        + "\n         WHEN c.rf__n = 0 THEN " + _raise(R["empty"], input="features", what=ir.EMPTY["features"])
        + "\n         WHEN c.rf__nf > 0 THEN "
        + _raise(R["null_feature"], count=Sql("c.rf__nf"), shown=_null_shown("feature"))
        + "\n         WHEN c.rf__ni > 0 THEN "
        + _raise(R["null_ids"], where=ir.where("features", "item"), count=Sql("c.rf__ni"), shown=_null_shown("item"))
        + kind_case("features", ir.where("features", "item"))
        + "\n         WHEN c.rf__nv > 0 THEN " + _raise(R["value"], count=Sql("c.rf__nv"), rows=Sql("c.rf__rows"))
        + "\n         WHEN c.rf__np > 0 THEN "
        + _raise(R["repeated_pairs"], count=Sql("c.rf__np"), rows=Sql("c.rf__prows"))
    )  # fmt: skip
    out += [
        "-- features: true, or the first input rule it breaks (features IS NULL: nothing read)",
        "CREATE OR REPLACE MACRO rf__beyond_check_features(tbl, features) AS (",
        "    SELECT CASE WHEN features IS NULL THEN true" + features_cases + "\n         ELSE true END",
        "    FROM (SELECT count(t.rf__one) AS rf__n, count(t.rf__one) FILTER (WHERE t.feature IS NULL) AS rf__nf,",
        "                 count(t.rf__one) FILTER (WHERE t.item IS NULL) AS rf__ni,",
        "                 rf__id_kind(typeof(any_value(t.item))) AS rf__ik, any_value(t.item) AS rf__ix,",
        f"                 count(t.rf__one) FILTER (WHERE NOT ({v_type}) OR {v_bad}) AS rf__nv,",
        f"                 {_rows(['item', 'feature', 'value'], f'NOT ({v_type}) OR {v_bad}')} AS rf__rows,",
        "                 (SELECT coalesce(sum(p.rf__c), 0) FROM (SELECT count(*) AS rf__c",
        "                  FROM rf__beyond_features(tbl, features) AS f",
        "                  GROUP BY f.item, f.rf__dim HAVING count(*) > 1) AS p) AS rf__np,",
        "                 (SELECT CAST(list(struct_pack(item := p.item, feature := p.rf__dim)",
        "                              ORDER BY p.item, p.rf__dim)[1:5] AS VARCHAR) FROM",
        "                  (SELECT f.item, f.rf__dim FROM rf__beyond_features(tbl, features) AS f",
        "                   GROUP BY f.item, f.rf__dim HAVING count(*) > 1) AS p) AS rf__prows",
        "          FROM rf__columns(coalesce(features, tbl)) AS m,",
        "               (SELECT *, 1 AS rf__one FROM query_table(coalesce(features, tbl)) WHERE features IS NOT NULL",
        "                UNION ALL BY NAME SELECT NULL AS item, NULL AS feature, NULL AS value WHERE false) AS t",
        "          ) AS c, rf__columns(coalesce(features, tbl)) AS m, rf__beyond_table_kinds(tbl) AS r);",
        "-- every input given: true, or the first rule one breaks (history: a metric reading each query's history)",
        "CREATE OR REPLACE MACRO rf__beyond_check_inputs(tbl, train, catalog, features, history, owner) AS",
        "    rf__beyond_check_train(tbl, train, history, owner) AND rf__beyond_check_catalog(tbl, catalog)",
        "    AND rf__beyond_check_features(tbl, features);",
        END,
    ]
    return "\n".join(out)


def sql_path(spec: BeyondSpec) -> Path:
    """``sql/<name>.sql`` of the checkout."""
    return Path(__file__).resolve().parents[2] / "sql" / f"{spec.name}.sql"


def rewritten(spec: BeyondSpec, text: str) -> str:
    """``text`` (a metric file) with its generated block replaced by :func:`options_sql`."""
    if not _BLOCK.search(text):
        raise ValueError(f"sql/{spec.name}.sql has no rf:generated-begin/-end block")
    return _BLOCK.sub(lambda _: options_sql(spec), text, count=1)


def inputs_path() -> Path:
    """``sql/beyond.sql`` of the checkout (the input rules' block)."""
    return Path(__file__).resolve().parents[2] / "sql" / "beyond.sql"


def inputs_rewritten(text: str) -> str:
    """``sql/beyond.sql``'s text with its generated block replaced by :func:`inputs_sql`."""
    if not _BLOCK.search(text):
        raise ValueError("sql/beyond.sql has no rf:generated-begin/-end block")
    return _BLOCK.sub(lambda _: inputs_sql(), text, count=1)


def main() -> None:
    """Rewrite the generated block of every ``sql/<name>.sql`` of the family (``python -m rankframe.beyond.sqlgen``)."""
    from ..registry import BEYOND

    for spec in BEYOND:
        if not isinstance(spec, BeyondSpec):
            continue
        path = sql_path(spec)
        path.write_text(rewritten(spec, path.read_text(encoding="utf-8")), encoding="utf-8")
    path = inputs_path()
    path.write_text(inputs_rewritten(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
