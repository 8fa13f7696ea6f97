"""A mypy plugin: ``df.rank_metrics`` is rankframe's namespace, and its metric methods are the declared metrics.

pandas-stubs types an unknown attribute of a DataFrame as a column (``DataFrame.__getattr__ -> Series``), so
without help mypy reads ``df.rank_metrics.map(k=10)`` as ``Series.map`` and reports a wrong call. With

.. code-block:: toml

    [tool.mypy]
    plugins = ["rankframe.mypy_plugin"]

``df.rank_metrics`` is a :class:`rankframe.accessor.RankMetrics`; its fixed methods (``evaluate``, ``compare``,
...) keep their signatures, and a metric method (``ndcg``, ``ap``, ...: one per declared metric, made
at import) is checked against the declarations: its parameters by name, ``by=``, ``per_query=`` and evaluate's
options; a name that is no declared metric is an error (the registry is read when mypy runs, so a metric a
project registers at run time is not known here).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from mypy.nodes import ARG_NAMED_OPT, ARG_OPT, TypeInfo
from mypy.plugin import AttributeContext, Plugin
from mypy.types import AnyType, CallableType, Instance, Type, TypeOfAny

_ACCESSOR = "rankframe.accessor.RankMetrics"
_FRAMES = ("pandas.core.frame.DataFrame.rank_metrics",)


@lru_cache(maxsize=1)
def _declared() -> dict[str, tuple[str | None, tuple[str, ...]]]:
    """Each metric method's name -> (its positional parameter, its other parameters), from the declarations."""
    from .accessor import _CALL_OPTIONS, _method_names
    from .measures.registry import METRICS

    out: dict[str, tuple[str | None, tuple[str, ...]]] = {}
    for spec in METRICS:
        at = spec.at if any(p.name == spec.at for p in spec.params) else None
        rest = tuple(p.name for p in spec.params if p.name != at) + ("by", "per_query", *_CALL_OPTIONS)
        for name in _method_names(spec):
            out[name] = (at, rest)
    return out


def _namespace(ctx: AttributeContext) -> Type:
    module, _, name = _ACCESSOR.rpartition(".")
    # the checker's modules by full name (TypeChecker.modules; named_type would walk the package's names instead)
    tree = ctx.api.modules.get(module)  # type: ignore[attr-defined]
    symbol = tree.names.get(name) if tree is not None else None
    if symbol is None or not isinstance(symbol.node, TypeInfo):  # not in the build: pandas-stubs' reading stays
        return ctx.default_attr_type
    return Instance(symbol.node, [])


def _metric_method(name: str) -> Callable[[AttributeContext], Type]:
    def hook(ctx: AttributeContext) -> Type:
        # mypy asks for every attribute of the class: only the ones its own members do not answer (__getattr__)
        if name.startswith("_") or (isinstance(ctx.type, Instance) and ctx.type.type.get(name) is not None):
            return ctx.default_attr_type
        declared = _declared().get(name)
        any_ = AnyType(TypeOfAny.special_form)
        if declared is None:
            ctx.api.fail(f'"RankMetrics" has no metric method "{name}" (not a declared metric or option)', ctx.context)
            return any_
        at, rest = declared
        # every name the method takes: an unknown one is an UnknownMetricError at run time, an error here
        names: list[str | None] = [at] if at else []
        names += rest
        kinds = ([ARG_OPT] if at else []) + [ARG_NAMED_OPT] * len(rest)
        fallback = ctx.api.named_generic_type("builtins.function", [])
        # the result: a float (the mean), or a Series / frame with by=, per_query=, ci= or output=
        return CallableType([any_] * len(names), kinds, names, any_, fallback, name=name)

    return hook


class _Plugin(Plugin):
    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        if fullname in _FRAMES:
            return _namespace
        prefix = _ACCESSOR + "."
        if fullname.startswith(prefix) and "." not in fullname[len(prefix) :]:
            return _metric_method(fullname[len(prefix) :])
        return None


def plugin(version: str) -> type[Plugin]:
    """The entry point mypy calls."""
    return _Plugin
