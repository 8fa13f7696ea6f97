"""The dbt package: ``{{ rankframe.metrics(ref('recs'), ['nDCG@10', 'AP'], by=['country']) }}`` per adapter.

No metric SQL is written in Jinja. For each dialect and each number of ``by`` columns (0 to ``max_by``) the
generator calls :func:`rankframe.sql.render` once per output shape with *sentinel* names (the table
``rf_dbt_relation``, the columns ``rf_dbt_query``, ``rf_dbt_item``, ... and ``rf_dbt_by0``, ...), then turns the
statement into a Jinja template by replacing, in the text sqlglot wrote:

- each quoted sentinel by the quoted name the model gives (quoted in Jinja with the dialect's own rule, read from
  sqlglot: the identifier's quote characters and how it escapes them);
- the direction of the ordering window (``ASC`` for ``order_by='rank'``, ``DESC`` for ``'score'``; the two renders
  differ in that one place only, which is checked);
- the query-set policies' state codes (``WHEN rf__n_judged = 0 THEN <code>``, one per metric, counted);
- the body of the ``rf__metrics`` CTE (one ``SELECT i AS rf__i, 'label' AS rf__metric`` per metric, joined by
  ``UNION ALL``) by the parts of the metrics the model asks for.

Filled with the generated metric list, the template gives render's statement byte for byte (tests/sql/
test_dbt_templates.py renders the Jinja for every dialect, shape and policy). A subset of the generated metrics
keeps every metric's column in ``rf__unit`` (computed, not shown): the rows shown are the asked metrics', as
``rankframe.evaluate`` gives them. ``rankframe sql --dbt DIR -m ...`` writes the package; the repository ships it
generated in ``dbt/`` (:data:`SHIPPED_METRICS`), held up to date by tests/project/test_dbt_generated.py.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..beyond.declare import inputs_not_taken
from ..core.columns import PANDAS_ONLY_ROLES, Columns
from ..core.errors import ParameterError
from ..core.numeric import check_number
from ..measures.arguments import parse_metrics
from ..measures.registry import POLICIES
from .render import _POLICY_STATE, ORDER_BY, TESTED_DIALECTS, render
from .terms import sqlglot

OWNER = "rankframe sql --dbt"
#: the metrics of the package shipped in the repository's dbt/ folder
SHIPPED_METRICS = (
    "P@5",
    "P@10",
    "R@10",
    "R@100",
    "AP",
    "AP@100",
    "RR",
    "RR@10",
    "nDCG",
    "nDCG@5",
    "nDCG@10",
    "nDCG@20",
    "Success@10",
    "Rprec",
    "ERR@20",
)
#: the most ``by`` columns a generated package takes (one template per count)
MAX_BY = 3
MAX_BY_LIMIT = 16  #: the most by columns a package takes: each one adds a statement per dialect (seconds each)
_NOT_TAKEN = "evaluate it with rankframe.sql.render(..., catalog=/train=/features=) or rankframe.evaluate"
#: the dialects generated; each is the dbt adapter type of the same name (``target.type``)
DIALECTS = TESTED_DIALECTS
TABLE = "rf_dbt_relation"
#: the column roles render reads, each with its sentinel (``key`` is the rank or score column, by ``order_by``)
ROLES = {"query": "rf_dbt_query", "item": "rf_dbt_item", "relevance": "rf_dbt_relevance", "key": "rf_dbt_key"}
_BY = "rf_dbt_by{}"
#: render's policy arguments used for the templates: three different codes, so a wrong substitution shows
_BASE_POLICIES = {"no_judged": "skip", "no_retrieved": "nan", "no_relevant": "zero"}
_STATE_AT = {
    "no_judged": r"(WHEN rf__n_judged = 0\s+THEN )(\d)",
    "no_retrieved": r"(WHEN rf__n_ret = 0\s+THEN )(\d)",
    "no_relevant": r"(WHEN rf__nr\d+ = 1\s+THEN )(\d)",
}
#: the order word's place: (text before, rank word, score word, text after, (context before, context after))
Order = tuple[str, str, str, str, tuple[str, str]]
_METRICS_CTE = re.compile(r"(rf__metrics AS \(\n)(.*?)(\n\), rf__long AS \()", re.S)
_END_OF_CTES = "\n)\nSELECT"


def quote(name: str, dialect: str) -> str:
    """``name`` quoted as an identifier of ``dialect`` (sqlglot's rule; the Jinja macro applies the same)."""
    return str(sqlglot().exp.to_identifier(name, quoted=True).sql(dialect=dialect))


def quote_rule(dialect: str) -> dict[str, str]:
    """How the dialect quotes an identifier: the opening and closing characters and the escapes inside.

    Read from sqlglot on probe names; :func:`quote` and the Jinja ``rankframe._rf_quote`` macro agree on every name
    (tests/sql/test_dbt_templates.py tries hostile ones).
    """
    plain = quote("x", dialect)
    start, end = plain[0], plain[-1]
    backslash = quote("x\\", dialect)[2:-1]
    closing = quote("x" + end, dialect)[2:-1]
    return {"start": start, "end": end, "backslash": backslash, "closing": closing}


def _fill_quoted(text: str, dialect: str, names: dict[str, str]) -> str:
    for sentinel, jinja in names.items():
        quoted = quote(sentinel, dialect)
        if quoted not in text:
            raise AssertionError(f"{dialect}: the sentinel {quoted} is not in the rendered statement")
        text = text.replace(quoted, jinja)
    if "rf_dbt_" in text:
        raise AssertionError(f"{dialect}: a sentinel name was left in the template")
    return text


def _render(measures: list[str], dialect: str, n_by: int, per_query: bool, order_by: str) -> str:
    columns = {role: ROLES[role] for role in ("query", "item", "relevance")}
    columns["rank" if order_by == "rank" else "score"] = ROLES["key"]
    return render(
        measures,
        dialect=dialect,
        table=TABLE,
        by=[_BY.format(i) for i in range(n_by)],
        per_query=per_query,
        columns=columns,
        order_by=order_by,
        ideal_depth=None,  # the intent-aware family's option (render's **policies may not fill it)
        **_BASE_POLICIES,
    )


def _split_parts(body: str, labels: list[str], dialect: str) -> tuple[list[str], str]:
    """The rf__metrics body cut into one part per metric, and the text joining them."""
    separator = "\n  UNION ALL\n"
    parts = body.split(separator)
    if len(parts) != len(labels):
        raise AssertionError(f"{dialect}: rf__metrics has {len(parts)} parts for {len(labels)} metrics")
    return parts, separator


def _order_words(rank: str, score: str) -> tuple[str, str, str, str]:
    """The one place where the ``rank`` and ``score`` statements differ: (before, rank word, score word, after)."""
    start = 0
    while start < min(len(rank), len(score)) and rank[start] == score[start]:
        start += 1
    end = 0
    while end < min(len(rank), len(score)) - start and rank[-1 - end] == score[-1 - end]:
        end += 1
    while start > 0 and (rank[start - 1].isalnum() or rank[start - 1] == "_"):  # whole words: ASC / DESC share SC
        start -= 1
    while end > 0 and (rank[len(rank) - end].isalnum() or rank[len(rank) - end] == "_"):
        end -= 1
    rank_word, score_word = rank[start : len(rank) - end], score[start : len(score) - end]
    if not re.fullmatch(r"\w*", rank_word) or not re.fullmatch(r"\w+", score_word):
        raise AssertionError(f"order_by changes more than one word: {rank_word!r} / {score_word!r}")
    return rank[:start], rank_word, score_word, rank[len(rank) - end :]


def _order_place(mean: str, labels: list[str], dialect: str, n_by: int, known: Order | None) -> Order:
    """Where and what the order word is in ``mean``.

    The words found for fewer ``by`` columns when their context is in ``mean`` once (the ordering window does not
    change with the segments), else found by rendering the ``score`` statement and comparing (:func:`_order_words`).
    """
    if known is not None:
        _, rank_word, score_word, _, context = known
        head, tail = context
        if mean.count(head + rank_word + tail) == 1:
            at = mean.index(head + rank_word + tail) + len(head)
            return mean[:at], rank_word, score_word, mean[at + len(rank_word) :], context
    before, rank_word, score_word, after = _order_words(mean, _render(labels, dialect, n_by, False, "score"))
    return before, rank_word, score_word, after, (before[-24:], after[:12])


def _template(
    labels: list[str], dialect: str, n_by: int, known: Order | None = None
) -> tuple[str, dict[str, Any], Order]:
    """The Jinja template of one dialect and number of ``by`` columns.

    Also the dialect's data it was cut with, and where the order word was (for the next number of ``by`` columns).
    """
    mean = _render(labels, dialect, n_by, False, "rank")
    per_query = _render(labels, dialect, n_by, True, "rank")
    if any(mark in text for text in (mean, per_query) for mark in ("{{", "{%", "{#")):
        raise AssertionError(f"{dialect}: the rendered statement contains Jinja delimiters")
    order = _order_place(mean, labels, dialect, n_by, known)
    before, rank_word, score_word, after, _ = order
    mean = before + "\x00ORDER\x00" + after
    cut, cut_mean = per_query.index(_END_OF_CTES) + 3, mean.index(_END_OF_CTES) + 3
    if per_query[:cut] != mean[:cut_mean].replace("\x00ORDER\x00", rank_word):
        raise AssertionError(f"{dialect}: the per-query and mean statements do not share their CTEs")
    ctes, finals = mean[:cut_mean], (per_query[cut:], mean[cut_mean:])
    found = _METRICS_CTE.search(ctes)
    if found is None:
        raise AssertionError(f"{dialect}: no rf__metrics CTE in the rendered statement")
    parts, separator = _split_parts(found.group(2), labels, dialect)
    ctes = ctes[: found.start(2)] + "\x00METRICS\x00" + ctes[found.end(2) :]
    for policy, pattern in _STATE_AT.items():
        code = str(_POLICY_STATE[_BASE_POLICIES[policy]])
        ctes, count = re.subn(pattern, functools.partial(_state, policy=policy, code=code), ctes)
        if count != len(labels):
            raise AssertionError(f"{dialect}: {count} places for {policy}, {len(labels)} metrics")
    text = ctes + "\x00IF\x00" + finals[0] + "\x00ELSE\x00" + finals[1] + "\x00ENDIF\x00"
    names = {TABLE: "{{ a.table }}", **{s: f"{{{{ a.{role} }}}}" for role, s in ROLES.items()}}
    names.update({_BY.format(i): f"{{{{ a.by[{i}] }}}}" for i in range(n_by)})
    text = _fill_quoted(text, dialect, names)
    text = (
        text.replace("\x00ORDER\x00", "{{ a.order }}")
        .replace("\x00METRICS\x00", "{{ a.metrics }}")
        .replace("\x00IF\x00", "{% if a.per_query %}")
        .replace("\x00ELSE\x00", "{% else %}")
        .replace("\x00ENDIF\x00", "{% endif %}")
    )
    data = {"parts": parts, "separator": separator, "order": {"rank": rank_word, "score": score_word}}
    return text, data, order


def _state(m: re.Match[str], *, policy: str, code: str) -> str:
    if m.group(2) != code:
        raise AssertionError(f"the {policy} code is {m.group(2)}, expected {code}")
    return m.group(1) + "{{ a." + policy + " }}"


def _output_names(labels: list[str], dialect: str) -> dict[str, list[str]]:
    """The output columns of render's two shapes that are not the user's: a ``by`` name must not take one."""
    shapes = {}
    for per_query in (False, True):
        statement = sqlglot().parse_one(_render(labels, dialect, 0, per_query, "rank"), read=dialect)
        shapes["per_query" if per_query else "mean"] = [
            n for n in statement.named_selects if n != ROLES["query"] and not n.startswith("rf_dbt_")
        ]
    return shapes


def _jinja(value: Any) -> str:
    """A Python value as a Jinja literal (JSON's strings are Jinja's: ASCII with backslash escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_jinja(k)}: {_jinja(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_jinja(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=True)


def _spellings(given: list[Any]) -> dict[str, str]:
    """Each metric string given to the generator (lowercased) -> its label, so the model may write it as given."""
    out = {}
    for g in given:
        parsed = parse_metrics([g], OWNER)
        if isinstance(g, str) and len(parsed) == 1:
            out[g.lower()] = str(parsed[0])
    return out


def _command(metrics: Sequence[str]) -> str:
    """The command that generated the package, ready for more ``-m`` (the macro's messages end it)."""
    return "rankframe sql --dbt DIR " + " ".join("-m '" + m.replace("'", "'\\''") + "'" for m in metrics)


def package(metrics: Sequence[str] = SHIPPED_METRICS, *, max_by: int = MAX_BY) -> dict[str, str]:
    """The files of the dbt package (relative path -> text) for these metric strings and up to ``max_by`` columns.

    >>> sorted(package(["P@10"], max_by=1))[:3]
    ['README.md', 'dbt_project.yml', 'macros/bigquery.sql']
    """
    max_by = check_number(
        OWNER, "max_by", max_by, integer=True, low=0, high=MAX_BY_LIMIT,
        expected=f"an int in [0, {MAX_BY_LIMIT}] (each by column adds a statement per dialect)",
    )  # fmt: skip
    given = [metrics] if isinstance(metrics, str) else list(metrics)
    measures = parse_metrics(given, OWNER)
    inputs_not_taken(measures, "the dbt package (its macro rankframe.metrics reads one relation)", _NOT_TAKEN)
    labels = [str(m) for m in measures]
    roles = [f.name for f in fields(Columns) if f.name not in PANDAS_ONLY_ROLES]
    command = _command(labels)
    common = {
        "labels": labels,
        "max_by": max_by,
        "spellings": _spellings(given),
        "command": command,
        "roles": roles,
        "defaults": {name: getattr(Columns(), name) for name in roles},
        "order_by": list(ORDER_BY.choices or ()),
        "policies": {p.name: {"default": p.default, "choices": list(p.choices or ())} for p in POLICIES},
        "codes": dict(_POLICY_STATE),
        "outputs": _output_names(labels, "postgres"),
        "dialects": list(DIALECTS),
    }
    files = {
        "dbt_project.yml": _PROJECT.format(labels=", ".join(labels), max_by=max_by),
        "README.md": _README.format(
            labels=", ".join(f"`{m}`" for m in labels), max_by=max_by, cmd=f"{command} --dbt-max-by {max_by}"
        ),
        "macros/rankframe.sql": _HEAD + "{% macro _rf_common() %}{{ return(" + _jinja(common) + ") }}{% endmacro %}\n"
        "\n" + _COMMON,
    }
    for dialect in DIALECTS:
        blocks: list[str] = []
        data: dict[str, Any] = {}
        order: Order | None = None
        for n_by in range(max_by + 1):
            text, data, order = _template(labels, dialect, n_by, order)
            blocks.append(f"{{% macro _rf_{dialect}_by{n_by}(a) %}}{text}{{% endmacro %}}\n")
        data = {**data, "quote": quote_rule(dialect)}
        pick = " ".join(
            f"{'if' if n == 0 else 'elif'} a.by | length == {n} %}}{{{{ rankframe._rf_{dialect}_by{n}(a) }}}}{{%-"
            for n in range(max_by + 1)
        )
        files[f"macros/{dialect}.sql"] = (
            _HEAD
            + f"{{% macro {dialect}__rf_dialect() %}}{{{{ return({_jinja(data)}) }}}}{{% endmacro %}}\n\n"
            + f"{{% macro {dialect}__rf_statement(a) %}}{{%- {pick} endif %}}{{% endmacro %}}\n\n"
            + "\n".join(blocks)
        )
    return files


def write(directory: str | Path, metrics: Sequence[str] = SHIPPED_METRICS, *, max_by: int = MAX_BY) -> list[Path]:
    """Write the package (:func:`package`) into ``directory`` (created if missing, not its parent); the files."""
    root = Path(directory)
    at = str(root)
    if root.exists() and not root.is_dir():
        raise ParameterError(f"{OWNER}: {at!r} is a file, not a folder", owner=OWNER, parameter="directory", got=at)
    if not root.exists() and not root.absolute().parent.is_dir():
        why = f"the parent folder of {at!r} does not exist (only the package's is made)"
        raise ParameterError(f"{OWNER}: {why}", owner=OWNER, parameter="directory", got=at)
    files = package(metrics, max_by=max_by)
    root.mkdir(exist_ok=True)
    written = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


_HEAD = "{#- generated by `rankframe sql --dbt` (rankframe.warehouse.dbt) from rankframe.sql.render: do not edit. -#}\n"
_PROJECT = """\
# generated by `rankframe sql --dbt` (rankframe.warehouse.dbt): do not edit; regenerate instead.
name: rankframe
version: "1.0.0"
config-version: 2
require-dbt-version: [">=1.5.0", "<3.0.0"]
macro-paths: ["macros"]
# metrics: {labels}
# by columns: at most {max_by}
# rankframe.metrics(...) refuses other metrics and more by columns at compile time, naming the command that
# regenerates the package with them.
"""
_README = """\
# rankframe's dbt package (generated)

`{{{{ rankframe.metrics(ref('recs'), ['nDCG@10', 'AP'], by=['country']) }}}}` expands to one plain SELECT that
computes `rankframe.evaluate`'s tidy frame on the adapter's warehouse (duckdb, postgres, bigquery, snowflake,
spark, trino): `[*by, metric, value, n]`, or with `per_query=true` `[*by, query, metric, value]`.

Generated by `rankframe sql --dbt` from `rankframe.sql.render`; do not edit. Metrics of this package: {labels}
(at most {max_by} `by` columns). Another set: `{cmd}`. Documentation: docs/warehouse.md, section "dbt", in the
rankframe repository.
"""
_COMMON = """\
{% macro metrics(relation, metrics, by=none, per_query=false, columns=none, order_by='rank', no_relevant=none,
                 no_retrieved=none, no_judged=none) -%}
{#- rankframe.evaluate(relation, metrics, by=by, per_query=per_query) as one SELECT of the target's dialect -#}
{%- set c = rankframe._rf_common() -%}
{%- set d = adapter.dispatch('rf_dialect', 'rankframe')() -%}
{%- set problem = rankframe._rf_check(c, metrics, by, per_query, columns, order_by,
      {'no_relevant': no_relevant, 'no_retrieved': no_retrieved, 'no_judged': no_judged}) -%}
{%- if problem -%}{{ exceptions.raise_compiler_error('rankframe.metrics: ' ~ problem) }}{%- endif -%}
{%- set asked = [metrics] if metrics is string else metrics -%}
{%- set segments = [] if by is none else ([by] if by is string else by) -%}
{%- set names = {} -%}
{%- for role in c.roles -%}
{%- do names.update({role: (columns or {}).get(role, c.defaults[role])}) -%}
{%- endfor -%}
{%- set parts = [] -%}
{%- for m in asked -%}{%- do parts.append(d.parts[c.labels.index(rankframe._rf_label(c, m))]) -%}{%- endfor -%}
{%- set a = {
  'table': relation,
  'by': rankframe._rf_quote_all(d, segments),
  'query': rankframe._rf_quote(d, names.query),
  'item': rankframe._rf_quote(d, names.item),
  'relevance': rankframe._rf_quote(d, names.relevance),
  'key': rankframe._rf_quote(d, names[order_by]),
  'order': d.order[order_by],
  'metrics': parts | join(d.separator),
  'per_query': per_query,
} -%}
{%- for policy, given in {'no_relevant': no_relevant, 'no_retrieved': no_retrieved,
                          'no_judged': no_judged}.items() -%}
{%- do a.update({policy: c.codes[c.policies[policy].default if given is none else given]}) -%}
{%- endfor -%}
{{- adapter.dispatch('rf_statement', 'rankframe')(a) -}}
{%- endmacro %}

{% macro default__rf_dialect() -%}
{{ exceptions.raise_compiler_error("rankframe.metrics: no SQL was generated for the adapter '" ~ target.type
   ~ "' (generated: " ~ rankframe._rf_common().dialects | join(', ') ~ ")") }}
{%- endmacro %}

{% macro _rf_quote(d, name) -%}
{{- return(d.quote.start ~ name | replace('\\\\', d.quote.backslash) | replace(d.quote.end, d.quote.closing)
    ~ d.quote.end) -}}
{%- endmacro %}

{% macro _rf_quote_all(d, names) -%}
{%- set out = [] -%}{%- for n in names -%}{%- do out.append(rankframe._rf_quote(d, n)) -%}{%- endfor -%}
{{- return(out) -}}
{%- endmacro %}

{% macro _rf_label(c, m) -%}
{#- the generated label of a metric string: itself, a string given to the generator, or equal ignoring case -#}
{%- if m in c.labels -%}{{- return(m) -}}{%- endif -%}
{%- if m | lower in c.spellings -%}{{- return(c.spellings[m | lower]) -}}{%- endif -%}
{%- set found = [] -%}
{%- for label in c.labels if label | lower == m | lower -%}{%- do found.append(label) -%}{%- endfor -%}
{{- return(found[0] if found | length == 1 else none) -}}
{%- endmacro %}

{% macro _rf_check(c, metrics, by, per_query, columns, order_by, policies) -%}
{#- the first problem with the arguments, in words, or '' (a compile error names it) -#}
{%- set asked = [metrics] if metrics is string else metrics -%}
{%- if asked is not sequence or asked is mapping or asked | length == 0 -%}
{{- return("metrics must be a metric string such as 'nDCG@10' or a non-empty list of them, got " ~ metrics) -}}
{%- endif -%}
{%- set seen = [] -%}
{%- for m in asked -%}
{%- if m is not string -%}{{- return("a metric must be a string such as 'nDCG@10', got " ~ m) -}}{%- endif -%}
{%- set label = rankframe._rf_label(c, m) -%}
{%- if label is none -%}
{{- return("the metric '" ~ m ~ "' is not in this generated package (generated for: " ~ c.labels | join(', ')
    ~ "); add it by regenerating the package: " ~ c.command ~ " -m '" ~ m | replace("'", "'\\''") ~ "' --dbt-max-by "
    ~ c.max_by) -}}
{%- endif -%}
{%- if label in seen -%}{{- return("asks for " ~ label ~ " twice; give each metric once") -}}{%- endif -%}
{%- do seen.append(label) -%}
{%- endfor -%}
{%- if per_query is not boolean -%}{{- return("per_query must be true or false, got " ~ per_query) -}}{%- endif -%}
{%- if columns is not none and columns is not mapping -%}
{{- return("columns must be a mapping such as {'query': 'user_id'}, got " ~ columns) -}}
{%- endif -%}
{%- for role, name in (columns or {}).items() -%}
{%- if role not in c.roles -%}
{{- return("unknown column role '" ~ role ~ "'; the roles are " ~ c.roles | join(', ')) -}}
{%- endif -%}
{%- if name is not string or name == '' -%}
{{- return("the column of role '" ~ role ~ "' must be a non-empty string, got " ~ name) -}}
{%- endif -%}
{%- endfor -%}
{%- set query = (columns or {}).get('query', c.defaults.query) -%}
{%- set segments = [] if by is none else ([by] if by is string else by) -%}
{%- if segments is not sequence or segments is mapping -%}
{{- return("by must be a column name or a list of them, got " ~ by) -}}
{%- endif -%}
{%- set shown = [] -%}
{%- for s in segments -%}
{%- if s is not string or s == '' -%}{{- return("a by column must be a non-empty string, got " ~ s) -}}{%- endif -%}
{%- if s in shown -%}{{- return("by names the column '" ~ s ~ "' twice") -}}{%- endif -%}
{%- if s == query -%}
{{- return("by contains the query column '" ~ s ~ "'; the query is always part of the unit (use per_query=true)") -}}
{%- endif -%}
{%- set outputs = c.outputs.per_query if per_query else c.outputs.mean -%}
{%- if s in outputs or s.startswith('rf__') -%}
{{- return("the by column '" ~ s ~ "' has the name of an output column (" ~ outputs | join(', ')
    ~ ") or of rankframe's own (rf__*); rename it in a view first") -}}
{%- endif -%}
{%- do shown.append(s) -%}
{%- endfor -%}
{%- if per_query and query in c.outputs.per_query -%}
{{- return("the query column '" ~ query ~ "' has the name of an output column (" ~ c.outputs.per_query | join(', ')
    ~ "); rename it in a view first") -}}
{%- endif -%}
{%- if query.startswith('rf__') -%}
{{- return("the query column '" ~ query ~ "' has a name of rankframe's own (rf__*); rename it in a view") -}}
{%- endif -%}
{%- if segments | length > c.max_by -%}
{{- return("this package takes at most " ~ c.max_by ~ " by columns, got " ~ segments | length
    ~ "; regenerate it: " ~ c.command ~ " --dbt-max-by " ~ segments | length) -}}
{%- endif -%}
{%- if order_by not in c.order_by -%}
{{- return("order_by must be one of " ~ c.order_by | join(', ') ~ ", got " ~ order_by) -}}
{%- endif -%}
{%- for policy, given in policies.items() -%}
{%- if given is not none and given not in c.policies[policy].choices -%}
{{- return(policy ~ " must be one of " ~ c.policies[policy].choices | join(', ') ~ ", got " ~ given) -}}
{%- endif -%}
{%- endfor -%}
{{- return('') -}}
{%- endmacro %}
"""


def _main() -> None:  # python -m rankframe.warehouse.dbt DIR: regenerate the shipped package
    import sys

    for path in write(sys.argv[1] if len(sys.argv) > 1 else "dbt"):
        sys.stdout.write(f"{path}\n")


if __name__ == "__main__":
    _main()
