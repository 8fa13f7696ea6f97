"""Metric-name grammar: ``NAME``, ``NAME@K``, ``NAME(param=value, ...)@K``; parsed with ``ast``.

Examples: ``"nDCG@10"``, ``"AP(rel=2)@100"``, ``"map@10"``, ``"P(rel=2)@10"``, ``"RR"``,
``"nDCG(gain='exponential')@10"``. Names are case-insensitive; the canonical form
(``Measure.__str__``) uses the IR community name and leaves out default parameters. trec_eval's measure names
are accepted too (declared per metric): ``"ndcg_cut_10"`` is ``nDCG@10``, ``"P_5"`` is ``P@5``, ``"map"`` is
``AP``, ``"recip_rank"`` is ``RR``, ``"iprec_at_recall_0.50"`` is ``IPrec@0.5``; in a list of metrics
(:func:`expand`) trec_eval's ``"iprec_at_recall"`` is its 11-point curve ``IPrec@0.0`` ... ``IPrec@1.0``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from ..core.errors import MetricSyntaxError, ParameterError
from .registry import MetricSpec, family, lookup, trec_cut


@dataclass(frozen=True)
class Measure:
    """A metric with all its parameters bound (defaults filled in)."""

    spec: MetricSpec
    params: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, name: str | MetricSpec, **params: Any) -> Measure:
        """Bind a metric (by name or spec) to parameters, checking each against its declaration."""
        spec = lookup(name) if isinstance(name, str) else name
        bound = spec.bind(**params)
        return cls(spec, tuple(bound.items()))

    @property
    def kw(self) -> dict[str, Any]:
        """Parameters as a dict."""
        return dict(self.params)

    def __str__(self) -> str:
        kw = self.kw
        at = self.spec.at  # the parameter written after @: k, or IPrec's recall level
        defaults = self.spec.shown_defaults(kw)
        inner = [f"{n}={v!r}" for n, v in self.params if n != at and v != defaults[n]]
        text = self.spec.canonical + (f"({', '.join(inner)})" if inner else "")
        if kw.get(at) is not None:
            text += f"@{kw[at]}"
        return text

    __repr__ = __str__


def _literal(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Name):  # bare words: gain=exponential
        return {"None": None, "True": True, "False": False}.get(node.id, node.id)
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise MetricSyntaxError(f"cannot read a parameter value in metric {text!r}: {ast.unparse(node)}") from None


def _given(key: str, name: str) -> str:
    return "@" if key == "@" else name if key == name else f"{key}="


def parse(text: str | Measure) -> Measure:
    """Parse one metric string into a bound :class:`Measure`.

    >>> str(parse("map@10")), str(parse("nDCG(gain='exponential')@10")), str(parse("P(rel=2)@5"))
    ('AP@10', "nDCG(gain='exponential')@10", 'P(rel=2)@5')
    >>> str(parse("ndcg_cut_10")), str(parse("P_5")), str(parse("recip_rank")), str(parse("map_cut_100"))
    ('nDCG@10', 'P@5', 'RR', 'AP@100')
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str) or not text.strip():
        raise MetricSyntaxError(f"a metric name must be a non-empty string, got {text!r}")
    found = family(text.strip())
    if found is not None:
        spec, values = found
        raise MetricSyntaxError(
            f"{text.strip()!r} is trec_eval's name of {len(values)} measures, {spec.canonical}@{values[0]} ... "
            f"{spec.canonical}@{values[-1]}: give it in a list of metrics (rankframe.evaluate, the CLI's -m), or "
            f"name one of them, e.g. {spec.canonical}@{values[len(values) // 2]}"
        )
    level = trec_cut(text.strip()) if "." in text else None  # iprec_at_recall_0.50: not a Python name
    if level is not None:
        return Measure.of(level[0], **{level[0].at: level[1]})
    # '-' and '.' appear in a few aliases (r-precision); map them to valid identifiers first
    src = text.strip().replace("r-precision", "r_precision").replace("R-precision", "r_precision")
    try:
        node = ast.parse(src, mode="eval").body
    except SyntaxError:
        raise MetricSyntaxError(
            f"cannot parse metric {text!r}: expected NAME, NAME@K or NAME(param=value, ...)@K, e.g. 'nDCG@10'"
        ) from None
    k: Any = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        k = _literal(node.right, text)
        node = node.left
    given: list[tuple[str, Any]] = []
    if isinstance(node, ast.Call):
        if node.args or any(kw.arg is None for kw in node.keywords):
            raise MetricSyntaxError(f"metric {text!r}: parameters must be named, e.g. AP(rel=2)@10")
        given = [(str(kw.arg), _literal(kw.value, text)) for kw in node.keywords]
        node = node.func
    if not isinstance(node, ast.Name):
        raise MetricSyntaxError(f"cannot parse metric {text!r}: expected NAME, NAME@K or NAME(param=value)@K")
    cut = trec_cut(node.id)  # trec_eval's cutoff names: P_5, ndcg_cut_10, map_cut_100, recall_1000, success_1
    spec = lookup(node.id) if cut is None else cut[0]
    if cut is not None:
        given.insert(0, (node.id, cut[1]))
    if k is not None:
        given.append(("@", k))
    # each parameter once: AP(rel=2, rel=3), AP(rel=2, threshold=3) and AP(k=5)@10 are ambiguous
    names: dict[str, str] = {}
    params: dict[str, Any] = {}
    for key, value in given:
        name = ("k" if key == node.id else spec.at) if key in ("@", node.id) else spec.param(key).name
        if name in names:
            first, second = (_given(names[name], node.id), _given(key, node.id))
            raise ParameterError(
                f"metric {text!r} gives the {name!r} parameter twice ({first}... and {second}...); give it once.",
                owner=spec.canonical,
                parameter=name,
                hint="give it once.",
            )
        names[name] = key
        params[name] = value
    return Measure.of(spec, **params)


def expand(text: str | Measure) -> list[Measure]:
    """The measures a name in a list of metrics stands for: one, or a declared family's (``iprec_at_recall``).

    >>> [str(m) for m in expand("iprec_at_recall")][:3], [str(m) for m in expand("P_5")]
    (['IPrec@0.0', 'IPrec@0.1', 'IPrec@0.2'], ['P@5'])
    """
    found = family(text.strip()) if isinstance(text, str) else None
    if found is None:
        return [parse(text)]
    spec, values = found
    return [Measure.of(spec, **{spec.at: v}) for v in values]
