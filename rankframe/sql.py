"""Find and load rankframe's DuckDB SQL macros (``sql/*.sql``).

The macros are plain ``.sql`` files: ``prepare.sql`` (parameter checks, gains, ``rf_prepare``), one file per
metric named like the registry (``ap.sql`` defines ``rf_ap`` and ``rf_agg_ap``), ``evaluate.sql`` (the table
macros ``rf_per_query`` / ``rf_means``), ``compare.sql`` (``rf_compare`` and the t distribution ``rf_t_cdf`` /
``rf_t_ppf``), ``validate.sql`` (``rf_validate``) and ``fuse.sql`` (``rf_fuse``, rank fusion; ordered among the
metric files by what it calls). In an installed wheel they
live in ``rankframe/_sql`` (hatch ``force-include``); in a source checkout or editable install the loader
falls back to the repository's top-level ``sql/`` folder.

The single ``.read``-able file ``rankframe.sql`` (every macro, in dependency order) is generated, never committed:
the wheel's build hook (``hatch_build.py``) writes it into ``rankframe/_sql``, ``rankframe sql [-o FILE]`` and
``python -m rankframe.sql`` print or write it, and :func:`bundle` gives its path (in a checkout, a file generated
once per process). The order of the metric files is read from the SQL itself (a file comes after the files
defining the macros it calls), so adding ``sql/<name>.sql`` needs no list to edit. This module uses only the
standard library (the build hook loads it by path, without importing rankframe).

One job: turning ``sql/`` into the bundle, with the generated parts of every table macro (the accuracy macros'
metric wiring, the intent-aware macros' measures and parameters) filled in; the build hook loads this one file by
path, so its parts cannot live in other modules.

Examples
--------
>>> import duckdb, rankframe.sql
>>> con = duckdb.connect()
>>> _ = rankframe.sql.install(con)
>>> con.sql("SELECT rf_ap([1, 0, 1], 2)").fetchall()[0][0]  # (1/1 + 2/3) / 2
0.8333333333333333
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = [
    "render",
    "render_compare",
    "directory",
    "files",
    "text",
    "install",
    "bundle",
    "write",
    "register",
    "unregister",
    "version",
    "BUNDLE",
]

#: name of the generated single-file bundle (``rankframe sql -o rankframe.sql``, then ``.read rankframe.sql``)
BUNDLE = "rankframe.sql"
_HEAD = ["prepare.sql"]
_TAIL = ["evaluate.sql", "compare.sql", "anova.sql", "validate.sql"]
_DEFINES = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(rf_\w+)", re.I)
_CALLS = re.compile(r"\b(rf_\w+)\s*\(")


def directory() -> Path:
    """The folder holding the ``.sql`` files: the wheel's ``rankframe/_sql`` or the checkout's ``sql/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_sql", here.parent / "sql"):
        if (candidate / "prepare.sql").is_file():
            return candidate
    raise FileNotFoundError(
        f"rankframe's SQL macros were not found: looked in {here / '_sql'} (installed wheel) and "
        f"{here.parent / 'sql'} (source checkout)"
    )


def _strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql)


#: SQL kernels added at run time by :func:`register` (file name -> text), ordered and wired as the files of ``sql/``
_EXTRA: dict[str, str] = {}
#: bumped by every :func:`register` / :func:`unregister`: a connection or bundle made before is stale
_VERSION = [0]


def register(name: str, sql: str) -> None:
    """Add the SQL kernel of a metric declared at run time: the text that would be ``sql/<name>.sql``.

    It takes the same road as the files of ``sql/`` (dependency order, its ``rf:column`` wiring into the table
    macros); the metric's declaration goes to ``rankframe.registry.register``. Connections and bundles made before
    it are stale (:func:`version`).
    """
    file = f"{name}.sql"
    if file in (*_HEAD, *_TAIL, BUNDLE) or (directory() / file).is_file():
        raise ValueError(f"sql/{file} already exists")
    _EXTRA[file] = sql
    _VERSION[0] += 1


def unregister(name: str) -> None:
    """Remove a kernel added by :func:`register`."""
    if _EXTRA.pop(f"{name}.sql", None) is not None:
        _VERSION[0] += 1


def version() -> int:
    """A number that changes whenever the set of SQL kernels does (caches of installed macros compare it)."""
    return _VERSION[0]


def _read(folder: Path | None = None) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """(raw metric-file texts by name, metric files in dependency order, head and tail texts) of a folder.

    The metric files are ordered by what they call: a file comes after the files that define the macros it uses
    (ties by name). A cycle between files is an error.
    """
    d = directory() if folder is None else Path(folder)
    missing = [n for n in (*_HEAD, *_TAIL) if not (d / n).is_file()]
    if missing:
        raise FileNotFoundError(f"missing SQL macro file(s) in {d}: {', '.join(missing)}")
    raw = {p.name: p.read_text(encoding="utf-8") for p in d.glob("*.sql") if p.name not in (*_HEAD, *_TAIL, BUNDLE)}
    if folder is None:
        raw.update(_EXTRA)
    middle = sorted(raw)
    code = {n: _strip_comments(raw[n]) for n in middle}
    defined_in = {macro: n for n in middle for macro in _DEFINES.findall(code[n])}
    needs = {n: {defined_in[c] for c in _CALLS.findall(code[n]) if defined_in.get(c, n) != n} for n in middle}
    ordered: list[str] = []
    while len(ordered) < len(middle):
        ready = [n for n in middle if n not in ordered and needs[n] <= set(ordered)]
        if not ready:
            stuck = sorted(n for n in middle if n not in ordered)
            raise ValueError(f"the SQL macro files call each other in a cycle: {', '.join(stuck)}")
        ordered.append(ready[0])
    ends = {n: (d / n).read_text(encoding="utf-8") for n in (*_HEAD, *_TAIL)}
    return raw, ordered, ends


class Wiring:
    """The declared wiring of the metric columns (``rf:column``/``rf:value``, ``rf:row``, ``rf:prep`` lines).

    One parse of the macro files serves both SQL faces: the loader generates the table macros' parts from it
    (:func:`_wire`) and the DuckDB engine builds its columns from the same lines
    (``rankframe.engines.duckdb_engine``).
    """

    def __init__(self, raw: dict[str, str], ordered: list[str], ends: dict[str, str]) -> None:
        texts = {**raw, **ends}
        #: the table macros' metric columns, in their order
        self.columns = sorted((c for n in ordered for c in table_columns(raw[n])), key=lambda c: (c.order, c.name))
        #: the table macros' metric parameters: (name, default as SQL)
        self.params = param_lines(texts["evaluate.sql"])
        #: (name, expression) of the per-row terms (rf:row)
        self.rows = [term for n in ordered for term in row_terms(raw[n])]
        #: (level, name, expression) of the prepared windows the terms read (rf:prep, in evaluate.sql)
        self.preps = prep_lines(texts["evaluate.sql"])
        #: "nothing relevant" rule -> its expression over the rows x (rf:none, in evaluate.sql)
        self.nones = {m["key"]: m["expr"].strip() for m in _NONE.finditer(texts["evaluate.sql"])}
        lacking = sorted({c.nothing_relevant for c in self.columns} - {"none", *self.nones})
        if lacking:
            raise ValueError(f"nothing_relevant= rule(s) without an rf:none line in evaluate.sql: {', '.join(lacking)}")
        intent = texts.get("intent.sql", "")
        #: the intent-aware measures of the qrels form (``-- rf:intent`` lines of intent.sql)
        self.intent = [IntentColumn(m["name"], m["kernel"], m["presets"]) for m in _INTENT.finditer(intent)]
        #: the intent-aware table macros' parameters: (name, default as SQL) (``-- rf:intent_param`` lines)
        self.intent_params = [(m["name"], m["default"].strip()) for m in _INTENT_PARAM.finditer(intent)]
        if "intent.sql" in texts and not (self.intent and self.intent_params):
            raise ValueError(
                "sql/intent.sql has no rf:intent / rf:intent_param lines (rankframe.registry.write_sql_params)"
            )
        #: the row-value metrics of the beyond-accuracy family (files defining rf__<name>_row_value), in file order
        self.row_values = [m["name"] for n in ordered for m in _ROW_VALUE.finditer(_strip_comments(raw[n]))]
        #: their options, each once: name -> SQL type (rf:row_option lines)
        self.row_options: dict[str, str] = {}
        for n in ordered:
            for m in _ROW_OPTION.finditer(raw[n]):
                if self.row_options.setdefault(m["name"], m["type"]) != m["type"]:
                    raise ValueError(
                        f"rf:row_option {m['name']} is {self.row_options[m['name']]} in one file and {m['type']} in {n}"
                    )
        names = [name for name, _ in self.rows] + [name for _, name, _ in self.preps]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"rf:row / rf:prep term(s) declared twice: {', '.join(repeated)}")

    def column(self, canonical: str) -> TableColumn | None:
        """The table column of a metric (its canonical name), or None for a metric that is not one."""
        return next((c for c in self.columns if c.name == canonical), None)


def _sources(folder: Path | None = None) -> list[tuple[str, str]]:
    """(file name, text) of every macro file in dependency order: ``prepare.sql``, the metric files, the rest."""
    raw, ordered, ends = _read(folder)
    w = Wiring(raw, ordered, ends)
    texts = {**raw, **ends}
    return [(n, _wire(texts[n], w)) for n in (*_HEAD, *ordered, *_TAIL)]


_WIRING: dict[int, Wiring] = {}


def wiring() -> Wiring:
    """The declared wiring of the installed macro files (cached until :func:`register` changes them)."""
    if version() not in _WIRING:
        _WIRING.clear()
        _WIRING[version()] = Wiring(*_read())
    return _WIRING[version()]


def files(folder: Path | None = None) -> list[Path]:
    """The macro files of the folder (``sql/`` by default) in dependency order (see :func:`_sources`)."""
    d = directory() if folder is None else Path(folder)
    return [d / n for n, _ in _sources(d)]


# ------------------------------------------------------------------------------ the table macros' metric wiring
# A metric file that is a column of the table macros (rf_per_query, rf_means, rf_compare) says so in comment lines:
#   -- rf:column <Name> order=<n> nothing_relevant=<none|relevant|gain|any_gain> [better=<higher|lower|none>]
#      [count] [uncut]
#   -- rf:value <its expression in rf__per_query_raw, over the prepared rows x and the checked parameters>
# (rf:value may repeat: one line each, joined by newlines), and, for a value that sums a per-row term, that term as
#   -- rf:row rf__t_<name> := <its expression over the prepared rows z and the checked parameters>
# which rf__per_query_raw computes once per row in a subquery, so that rf:value reads x.rf__t_<name>. (A macro's
# argument is copied wherever the macro body names it: rf__xsum names its argument 13 times, so a value that passed
# the whole term to it made DuckDB bind the term 13 times; binding was most of a small rf_means call.)
# evaluate.sql holds the generated parts as markers
# /* rf:generated <part> */; the metric files are the one place that lists metrics (no list to edit in
# evaluate.sql or compare.sql). tests/project/test_declared.py holds each rf:column line to the Python declaration.

# The metric parameters of the table macros (rf_per_query, rf_means, rf_compare, rf_anova) are generated the same
# way, from the declarations: evaluate.sql holds one "-- rf:param <name> := <default>" line per declared parameter
# (a block written by rankframe.registry.write_sql_params, held current by tests/sql/test_sql_table_params.py), and
# the macros say /* rf:generated metric_params */ (the list with the defaults) or /* rf:generated metric_args */
# (the names, to pass them on) where the list goes: no macro lists a metric parameter by hand.
# The intent-aware table macros of intent.sql (rf_intent_per_query, rf_intent_means) likewise: write_sql_params
# writes its "-- rf:intent <Name> kernel=<column> presets=<a,b>" and "-- rf:intent_param <name> := <default>" lines
# from rankframe/intent/*.py, and the markers named intent_* (measures, names, presets, values, zeros, policies,
# params, args, inner) take them. A marker may not stand inside a -- comment (_wire refuses it).

_PARAM = re.compile(r"^-- rf:param (?P<name>\w+) := (?P<default>[^\n]+)$", re.M)


def param_lines(sql: str) -> list[tuple[str, str]]:
    """(name, default as SQL) of every ``-- rf:param`` line of the text (evaluate.sql's generated block)."""
    return [(m["name"], m["default"].strip()) for m in _PARAM.finditer(sql)]


_COLUMN = re.compile(r"^-- rf:column (?P<name>\w+)(?P<opts>[^\n]*)$", re.M)
_VALUE = re.compile(r"^-- rf:value (?P<line>[^\n]*)$", re.M)
_ROW = re.compile(r"^-- rf:row (?P<name>rf__t_\w+) := (?P<expr>[^\n]+)$", re.M)
_NONE = re.compile(r"^-- rf:none (?P<key>\w+) := (?P<expr>[^\n]+)$", re.M)
_PREP = re.compile(r"^-- rf:prep (?P<level>[wy]) (?P<name>rf__\w+) := (?P<expr>[^\n]+)$", re.M)
_MARKER = re.compile(r"/\* rf:generated (?P<part>\w+) \*/")
#: a marker inside a ``--`` comment line: an error (the loader would fill it there, where no SQL reads it)
_COMMENTED = re.compile(r"--[^\n]*/\* rf:generated \w+ \*/")
#: a row-value metric of the beyond-accuracy family (ARP, APLT, Novelty): its file defines rf__<name>_row_value
#: and rf__<name>_row_counted (i: the item's row of popularity, NULL when cold; z: train's totals; o: the options) and
#: lists its options as "-- rf:row_option <name> <SQL type>" lines (written by rankframe.beyond.sqlgen); beyond.sql's
#: rf__beyond_row_values dispatches on the metric's name by a CASE generated from them (row_values, row_counted),
#: and rf__beyond_list_opts packs every such option (row_option_params, row_option_fields)
_ROW_VALUE = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+rf__(?P<name>\w+)_row_value\s*\(", re.I)
_ROW_OPTION = re.compile(r"^-- rf:row_option (?P<name>\w+) (?P<type>\w+)$", re.M)
_INTENT = re.compile(r"^-- rf:intent (?P<name>\w+) kernel=(?P<kernel>\w+) presets=(?P<presets>[\w,]*)$", re.M)
_INTENT_PARAM = re.compile(r"^-- rf:intent_param (?P<name>\w+) := (?P<default>[^\n]+)$", re.M)
#: the name inside the intent macros of a parameter whose declared name is an SQL keyword (``like``)
_INTENT_INNER = {"like": "lk"}


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


#: the keys of an rf:column line's nothing_relevant= (rankframe.declare.NOTHING_RELEVANT's, and none); each but none
#: is an rf:none line of evaluate.sql, the column rf__none_<key> of rf__per_query_raw
_NOTHING_RELEVANT = ("none", "relevant", "gain", "any_gain")


def _none_column(key: str) -> str:
    return "false" if key == "none" else f"r.rf__none_{key}"


#: rf__direction's value of each ``better=`` of an rf:column line (rankframe.declare.BETTER in SQL's words)
_BETTER = {"higher": 1, "lower": -1, "none": 0}


class TableColumn:
    """One metric column of the table macros, as its file's ``rf:column`` / ``rf:value`` lines declare it."""

    def __init__(self, name: str, opts: str, value: str) -> None:
        words = opts.split()
        keyed = dict(w.split("=", 1) for w in words if "=" in w)
        self.name = name
        self.order = int(keyed.get("order", 1000))
        self.nothing_relevant = keyed.get("nothing_relevant", "none")
        if self.nothing_relevant not in _NOTHING_RELEVANT:
            raise ValueError(f"rf:column {name}: nothing_relevant must be one of {sorted(_NOTHING_RELEVANT)}")
        self.count = "count" in words
        self.uncut = "uncut" in words
        #: which way is better (the declaration's ``better``: higher, lower or none); rf_compare's wins read it
        self.better = keyed.get("better", "higher")
        if self.better not in _BETTER:
            raise ValueError(f"rf:column {name}: better must be one of {sorted(_BETTER)}")
        #: (parameter, SQL value, better) for each ``better_when=<parameter>:<value>:<better>`` word: an option value
        #: that turns the direction (the declaration's ``better_when``; RBP's residual := true: none)
        self.better_when = [tuple(w.split("=", 1)[1].split(":")) for w in words if w.startswith("better_when=")]
        for _, _, way in self.better_when:
            if way not in _BETTER:
                raise ValueError(f"rf:column {name}: better_when's direction must be one of {sorted(_BETTER)}")
        self.value = value

    def __repr__(self) -> str:
        return f"TableColumn({self.name!r})"


def table_columns(sql: str) -> list[TableColumn]:
    """The ``rf:column`` declarations of one metric file (none, or one)."""
    heads = list(_COLUMN.finditer(sql))
    if len(heads) > 1:
        raise ValueError(f"more than one rf:column line: {', '.join(h['name'] for h in heads)}")
    if not heads:
        return []
    value = "\n".join(v["line"] for v in _VALUE.finditer(sql)).strip()
    if not value:
        raise ValueError(f"rf:column {heads[0]['name']} has no rf:value line")
    return [TableColumn(heads[0]["name"], heads[0]["opts"], value)]


def row_terms(sql: str) -> list[tuple[str, str]]:
    """(name, expression) of every ``-- rf:row`` line of one metric file (the per-row terms its rf:value reads)."""
    return [(m["name"], m["expr"].strip()) for m in _ROW.finditer(sql)]


def prep_lines(sql: str) -> list[tuple[str, str, str]]:
    """(level, name, expression) of every ``-- rf:prep`` line of the text (evaluate.sql's prepared windows)."""
    return [(m["level"], m["name"], m["expr"].strip()) for m in _PREP.finditer(sql)]


def _generated(part: str, w: Wiring) -> str:
    pad = " " * 11
    columns, params = w.columns, w.params
    if part == "row_columns":  # each ends with a comma: DuckDB takes a trailing one, and none at all is then valid
        return "\n".join(f"{' ' * 17}{expr} AS {name}," for name, expr in w.rows)  # one line each
    if part == "none_columns":  # the "nothing relevant" rules (rf:none), each with a comma
        return "\n".join(f"{pad}{expr} AS rf__none_{key}," for key, expr in w.nones.items())
    if part in ("prep_w", "prep_y"):  # the prepared windows of one level (rf:prep w|y), each with a comma
        return "\n".join(f"{' ' * 17}{expr} AS {name}," for level, name, expr in w.preps if level == part[-1])
    if part == "metric_params":
        return ", ".join(f"{name} := {default}" for name, default in params)
    if part == "metric_args":
        return ", ".join(name for name, _ in params)
    if part == "metric_columns":
        return ", ".join(f"'{c.name}'" for c in columns)
    if part == "directions":  # rf__direction(name): 1 higher is better, -1 lower, 0 neither (rankframe.direction)
        return " ".join(f"WHEN '{c.name}' THEN {_direction(c)}" for c in columns)
    if part in ("direction_params", "direction_args"):  # the options that turn a direction (better_when), passed on
        return "".join(f", {name}" for name in sorted({w[0] for c in columns for w in c.better_when}))
    if part == "uncut_columns":
        return ", ".join(f"'{c.name}'" for c in columns if c.uncut)
    if part == "raw_columns":  # continuation lines of a value keep their own indent, below the 11 of the list
        return ",\n".join(pad + c.value.replace("\n", "\n" + pad) + f' AS "{c.name}"' for c in columns)
    if part == "policy_columns":
        return ",\n".join(
            f'{pad}rf__unit_policy(r."{c.name}", r.rf__filled{"_count" if c.count else ""}, r.rf__fill, '
            f'{_none_column(c.nothing_relevant)}, r.rf__relevant_fill) AS "{c.name}"'
            for c in columns
        )
    if part.startswith("intent_"):
        return _intent_part(part, w)
    if part in ("row_values", "row_counted"):  # rf__beyond_row_values's CASE metric: each row-value file's macro
        macro = "row_value" if part == "row_values" else "row_counted"
        return " ".join(f"WHEN '{name}' THEN rf__{name}_{macro}(i, z, o)" for name in w.row_values)
    if part == "row_option_params":  # rf__beyond_list_opts's options, each after a comma, NULL by default
        return "".join(f", {name} := CAST(NULL AS {kind})" for name, kind in w.row_options.items())
    if part == "row_option_fields":
        return "".join(f", {name} := {name}" for name in w.row_options)
    raise ValueError(f"unknown generated part /* rf:generated {part} */")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _intent_part(part: str, w: Wiring) -> str:
    """A generated part of intent.sql: its measures, their columns, its macros' parameters (the rf:intent lines)."""
    measures, params = w.intent, w.intent_params
    if part == "intent_measures":  # rf__intent_measures(): [{'name': ..., 'presets': [...]}, ...]
        return ", ".join(
            f"{{'name': '{m.name}', 'presets': [{', '.join(repr(p) for p in m.presets)}]}}" for m in measures
        )
    if part == "intent_names":  # the output columns in lower case
        return ", ".join(f"'{m.name.lower()}'" for m in measures)
    if part == "intent_presets":  # every preset of the qrels form
        return ", ".join(f"'{p}'" for p in dict.fromkeys(p for m in measures for p in m.presets))
    if part == "intent_values":  # the kernel's values, each with a comma (the columns that follow are the caller's)
        return " ".join(f"v.{m.kernel} AS rf__v_{m.kernel}," for m in measures).rstrip(",")
    if part == "intent_zeros":  # the same columns for a unit with nothing retrieved: only the policies give values
        return ", ".join(f"0.0 AS rf__v_{m.kernel}" for m in measures)
    if part == "intent_policies":  # each measure's column after the query-set policies, with a comma
        pad = " " * 17
        return "\n".join(
            f"{pad}rf__intent_policy(rf__v_{m.kernel}, rf__n_judged, rf__n_ret, rf__n_sub, no_relevant, "
            f"no_retrieved, no_judged) AS {_quoted(m.name)},"
            for m in measures
        ).rstrip(",")
    if part == "intent_params":  # the public macros' parameters with their declared defaults
        return ", ".join(f"{_quoted(name)} := {default}" for name, default in params)
    if part == "intent_args":  # the same, passed on by position
        return ", ".join(_quoted(name) for name, _ in params)
    if part == "intent_inner":  # the internal macro's names of them
        return ", ".join(_INTENT_INNER.get(name, name) for name, _ in params)
    raise ValueError(f"unknown generated part /* rf:generated {part} */")


def _direction(c: TableColumn) -> str:
    """The column's direction as SQL: its ``better``, or a CASE over the options of its ``better_when`` words."""
    if not c.better_when:
        return str(_BETTER[c.better])
    turns = " ".join(f"WHEN {name} = {value} THEN {_BETTER[way]}" for name, value, way in c.better_when)
    return f"CASE {turns} ELSE {_BETTER[c.better]} END"


def _wire(sql: str, w: Wiring) -> str:
    """The text with each ``/* rf:generated <part> */`` marker replaced by its part (columns, params, terms).

    A marker inside a ``--`` comment is an error: it would be filled where no SQL reads it.
    """
    commented = _COMMENTED.search(sql)
    if commented:
        line = sql[: commented.start()].count("\n") + 1
        raise ValueError(f"a /* rf:generated ... */ marker inside a -- comment (line {line}): write it in SQL only")
    return _MARKER.sub(lambda m: _generated(m["part"], w).lstrip(" "), sql)


def text(folder: Path | None = None) -> str:
    """All macros as one SQL script, in dependency order (the content of the ``rankframe.sql`` bundle)."""
    parts = [
        "-- rankframe DuckDB macros: generated by `rankframe sql` / rankframe.sql.text(); do not edit.\n"
        "-- Load with `.read rankframe.sql` in the DuckDB CLI or rankframe.sql.install(con) in Python.\n"
    ]
    for name, sql in _sources(folder):
        parts.append(f"\n-- ==== {name} ====\n")
        parts.append(sql.rstrip() + "\n")
    return "".join(parts)


def write(path: str | Path) -> Path:
    """Write the bundle (:func:`text`) to ``path``; return the path."""
    out = Path(path)
    out.write_text(text(), encoding="utf-8")
    return out


_GENERATED: dict[int, Path] = {}


def bundle() -> Path:
    """The path of a ``.read``-able bundle of every macro.

    The wheel's ``rankframe/_sql/rankframe.sql``, or in a source checkout a file generated from ``sql/`` once per
    process (in a temporary folder, removed at exit).
    """
    shipped = directory() / BUNDLE
    if shipped.is_file() and directory().name == "_sql" and not _EXTRA:
        return shipped
    if version() not in _GENERATED:
        import atexit
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="rankframe-sql-"))
        atexit.register(shutil.rmtree, folder, True)
        _GENERATED[version()] = write(folder / BUNDLE)
    return _GENERATED[version()]


def install(con: Any = None) -> Any:
    """Create every rankframe macro on a DuckDB connection (the default connection if ``con`` is None).

    Returns the connection. Macros are created with ``CREATE OR REPLACE``, so installing twice is harmless.
    """
    import duckdb

    if con is None:
        con = (
            duckdb.default_connection()
            if callable(getattr(duckdb, "default_connection", None))
            else duckdb.default_connection
        )
    con.execute(text())
    if callable(getattr(con, "complete", None)):  # duckdb >= 2: finish the script's result
        con.complete()
    return con


def render(metrics: Any, **options: Any) -> str:
    """One plain SELECT computing ``rankframe.evaluate``'s tidy frame in a SQL warehouse.

    PostgreSQL, BigQuery, Snowflake, Spark SQL, Trino, DuckDB: :func:`rankframe.warehouse.render`, whose docstring
    lists the options (``dialect``, ``table``, ``by``, ``per_query``, ``columns``, ``order_by``, the policies);
    ``docs/warehouse.md``.

    >>> print(render("P@10", dialect="postgres").splitlines()[0])
    WITH rf__src AS (
    """
    from .warehouse import render as render_portable

    return render_portable(metrics, **options)


def render_compare(metrics: Any, **options: Any) -> str:
    """One plain SELECT of the paired t-test's statistics per segment, metric and system, in a SQL warehouse.

    :func:`rankframe.warehouse.render_compare` (options: ``baseline``, ``system``, ``by`` and render's); the
    p-value is finished where the numbers land (``docs/warehouse.md``, "Comparing systems").

    >>> print(render_compare("P@10", baseline="bm25").splitlines()[0])
    WITH rf__src AS (
    """
    from .warehouse import render_compare as render_compare_portable

    return render_compare_portable(metrics, **options)


def _main() -> None:  # python -m rankframe.sql > rankframe.sql
    import sys

    sys.stdout.write(text())


if __name__ == "__main__":
    _main()
