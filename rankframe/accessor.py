"""``df.rank_metrics``: a thin, stateless namespace over :func:`rankframe.evaluate`."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .core.columns import Columns
from .core.errors import ParameterError, RankframeError, unknown_name_error
from .evaluate import (
    as_column_list,
    as_flag,
    evaluate,
    evaluate_parameters,
    validate,  # any table (polars frames use this namespace too)
)
from .measures import registry
from .measures.names import Measure
from .measures.registry import MetricSpec
from .tables import inputs
from .tables.rules import ranking_column
from .tables.schema import schema

if TYPE_CHECKING:
    from .fusion.methods import FuseMethod

#: evaluate's parameters a metric method takes besides its own (``by``, ``per_query``, then every option), read
#: from evaluate's signature so that a new option reaches the methods too
_SHORTCUT_PARAMETERS = evaluate_parameters(without=("df", "metrics"))
#: the options a metric method passes on to evaluate as they are
_CALL_OPTIONS = tuple(p.name for p in _SHORTCUT_PARAMETERS if p.name not in ("by", "per_query"))


class RankMetrics:
    """Ranking metrics of a long-format DataFrame (``df.rank_metrics``).

    Call it to name the columns once for the whole chain::

        df.rank_metrics(query="user_id", item="movie_id", rank="position", relevance="rating").ndcg(k=10)

    Every method validates its input (unless ``validate=False``), computes, and returns a new object; the
    DataFrame is never modified.
    """

    def __init__(self, obj: pd.DataFrame, columns: Columns | None = None) -> None:
        self._obj = obj
        self._columns = columns or Columns()

    # the metric methods (ndcg, ap, precision, ...) are made from the declarations at import (_make_shortcuts); a
    # type checker sees them here, and the mypy plugin rankframe.mypy_plugin gives each its declared signature
    def __getattr__(self, name: str) -> Any:
        """An alias spelled as a method (``df.rank_metrics.map``): the canonical method, with a FutureWarning.

        Deprecated in 0.x (CHANGELOG): aliases stay metric strings (``evaluate(["MAP@10"])``), not methods; they are
        kept for one release and hidden from ``dir()`` and the docs.
        """
        alias = _ALIASES.get(name)
        if alias is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        spelling, spec = alias
        warnings.warn(
            f"df.rank_metrics.{name}() is deprecated and will be removed in the next release: call "
            f"df.rank_metrics.{spec.name}() (the same metric), or use the metric string {spelling!r} in "
            f"df.rank_metrics.evaluate([{spelling!r}])",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(self, spec.name)

    def __call__(self, columns: Columns | dict | None = None, **names: str) -> RankMetrics:
        """Return the same API with other column names (``query=``, ``item=``, ``rank=``, ...)."""
        base = self._columns if columns is None else Columns.coerce(columns)
        return RankMetrics(self._obj, base.with_(**names))

    def evaluate(
        self,
        metrics: str | Measure | Iterable[str | Measure],
        *,
        by: str | Sequence[str] | None = None,
        per_query: bool = False,
        **options: Any,
    ) -> pd.DataFrame:
        """Evaluate several metrics; tidy frame ``[*by, query (per_query), metric, value]``.

        See :func:`rankframe.evaluate` for the options.

        Examples
        --------
        >>> import pandas as pd, rankframe
        >>> df = pd.DataFrame({"query": [1, 1, 2, 2], "item": [1, 2, 1, 2], "rank": [1, 2, 1, 2],
        ...                    "relevance": [1, 0, 0, 1], "country": ["de", "de", "fr", "fr"]})
        >>> df.rank_metrics.evaluate(["RR", "P@1"], by="country")
          country metric  value  n
        0      de     RR    1.0  1
        1      de    P@1    1.0  1
        2      fr     RR    0.5  1
        3      fr    P@1    0.0  1
        """
        return self._result(self._evaluate(metrics, by=by, per_query=per_query, **options))

    def _evaluate(self, metrics: Any, *, by: Any = None, per_query: bool = False, **options: Any) -> pd.DataFrame:
        columns = options.pop("columns", None)
        columns = self._columns if columns is None else Columns.coerce(columns)
        return evaluate(self._obj, metrics, by=by, per_query=per_query, columns=columns, **options)

    def _result(self, result: Any) -> Any:
        """A result as this namespace gives it (pandas here; the polars namespace converts)."""
        return result

    def compare(self, metrics: str | Measure | Iterable[str | Measure], **options: Any) -> pd.DataFrame:
        """Compare systems per segment and metric: paired tests, intervals, corrections.

        See :func:`rankframe.compare` for the options (``system=``, ``baseline=``, ``by=``, ``test=``, ...).
        """
        from .compare import compare

        columns = options.pop("columns", None)
        columns = self._columns if columns is None else Columns.coerce(columns)
        return self._result(compare(self._obj, metrics, columns=columns, **options))

    def segment_means(self, metrics: str | Measure | Iterable[str | Measure], **options: Any) -> pd.DataFrame:
        """Per-segment means with intervals, and differences to a reference segment (:func:`rankframe.segment_means`).

        See :func:`rankframe.segment_means` for the options (``by=``, ``versus=``, ``ci_method=``, ...).
        """
        from .segments import segment_means

        columns = options.pop("columns", None)
        columns = self._columns if columns is None else Columns.coerce(columns)
        return self._result(segment_means(self._obj, metrics, columns=columns, **options))

    def anova(self, metrics: str | Measure | Iterable[str | Measure], **options: Any) -> pd.DataFrame:
        """The omnibus system x query ANOVA per segment and metric, the system x segment interaction, effect sizes.

        See :func:`rankframe.anova` for the options (``system=``, ``by=``, ``interaction=``, ``pairs=``, ...).
        """
        from .anova import anova

        columns = options.pop("columns", None)
        columns = self._columns if columns is None else Columns.coerce(columns)
        return self._result(anova(self._obj, metrics, columns=columns, **options))

    def agreement(self, *args: Any, **options: Any) -> Any:
        """Agreement between label columns per segment: Cohen's kappa, or Krippendorff's alpha (several coders).

        See :func:`rankframe.agreement` for the two forms (``a=``/``b=`` or ``coder=``/``value=``) and the options.
        """
        from .agreement import agreement

        columns = options.pop("columns", None)
        columns = self._columns if columns is None else Columns.coerce(columns)
        return self._result(agreement(self._obj, *args, columns=columns, **options))

    def fuse(self, method: FuseMethod = "rrf", **options: Any) -> Any:
        """The table plus the fused run of its systems' runs (a new ``system`` value).

        See :func:`rankframe.fuse` for the methods and options (``k=``, ``norm=``, ``weights=``, ``name=``, ...).
        """
        from .fusion import fuse

        columns = options.pop("columns", None)
        columns = self._columns if columns is None else Columns.coerce(columns)
        return self._result(fuse(self._obj, method, columns=columns, **options))

    def validate(self, *, by: str | Sequence[str] | None = None, allow_duplicates: bool = False) -> pd.DataFrame:
        """Check the table against every rule; raise one ValidationError, or return the (same) frame."""
        validate(
            self._obj,
            self._columns,
            by=as_column_list(by, "validate"),
            allow_duplicates=as_flag("allow_duplicates", allow_duplicates, "validate"),
        )
        return self._obj

    def schema(self, *, by: Sequence[str] = (), allow_duplicates: bool = False):
        """The pandera schema for this table's column names."""
        order = "score" if ranking_column(list(self._obj.columns), self._columns) == self._columns.score else "rank"
        return schema(self._columns, by=by, order=order, allow_duplicates=allow_duplicates)

    def _one(self, spec: MetricSpec, args: tuple, by, per_query: bool, kwargs: dict[str, Any]):
        params = dict(kwargs)
        if args:
            if len(args) > 1 or not any(p.name == spec.at for p in spec.params):
                raise ParameterError(
                    f"{spec.name}() takes only {spec.at} as a positional argument (got {len(args)} "
                    "positional argument(s)); name the others, e.g. rel=2",
                    owner=spec.name,
                    parameter=spec.at,
                    got=args,
                    hint="name the others, e.g. rel=2",
                )
            params[spec.at] = args[0]
        options = {n: params.pop(n) for n in _CALL_OPTIONS if n in params}
        output = inputs.check_output(options.pop("output", "pandas"), spec.name)
        try:
            measure = Measure.of(spec, **params)
        except RankframeError:
            for name in params:
                try:
                    spec.param(name)
                except RankframeError:
                    raise unknown_name_error(
                        f"argument of {spec.name}()", name, [p.name for p in spec.params] + list(_CALL_OPTIONS)
                    ) from None
            raise
        out = self._evaluate([measure], by=by, per_query=per_query, **options)
        label = str(measure)
        segments = as_column_list(by)
        result: Any
        if per_query:
            result = out.set_index([*segments, self._columns.query])["value"].rename(label)
        elif options.get("ci") is not None:  # the mean with its interval: a Series, or a frame per segment
            table = out.drop(columns="metric")
            result = table.iloc[0].rename(label) if not segments else table.set_index(segments)
        elif not segments:
            return float(out["value"].iloc[0])
        else:
            result = out.set_index(segments)["value"].rename(label)
        return self._result(result if output == "pandas" else _as_output(result, output))


def _as_output(result: pd.Series | pd.DataFrame, output: str) -> Any:
    """A metric method's Series or frame as ``output=`` asks (arrow, polars): the index becomes columns."""
    if isinstance(result, pd.Series) and all(name is None for name in result.index.names):  # ci=: one row
        frame = result.to_frame().T.reset_index(drop=True)
        frame = frame.astype({c: "int64" if c == "n" else "float64" for c in frame.columns})
    else:
        frame = result.reset_index()
    return inputs.from_pandas(frame, output)


# The example frame of every metric method's doctest (rankframe.declare.MetricSpec.example: the value by hand).
_EXAMPLE_FRAME = (
    'pd.DataFrame({"query": 1, "item": ["a", "b", "c", "d"], "rank": [1, 2, 3, None], "relevance": [0, 2, 1, 1]})'
)


def _signature(spec: MetricSpec) -> inspect.Signature:
    """``(self, k=None, *, <the metric's other parameters>, by=None, per_query=False, <evaluate's options>)``."""
    kinds = inspect.Parameter
    at = [p for p in spec.params if p.name == spec.at]
    rest = [p for p in spec.params if p.name != spec.at]
    params = [kinds("self", kinds.POSITIONAL_OR_KEYWORD)]
    params += [kinds(p.name, kinds.POSITIONAL_OR_KEYWORD, default=p.default) for p in at]
    params += [kinds(p.name, kinds.KEYWORD_ONLY, default=p.default) for p in rest]
    params += [p.replace(kind=kinds.KEYWORD_ONLY) for p in _SHORTCUT_PARAMETERS]
    return inspect.Signature(params)


def _method(spec: MetricSpec):
    def method(self: RankMetrics, *args: Any, by=None, per_query: bool = False, **kwargs: Any):
        return self._one(spec, args, by, per_query, kwargs)

    params = "\n".join(f"{p.name} : default {p.default!r}\n    {p.description}; {p.expected()}." for p in spec.params)
    method.__name__ = method.__qualname__ = spec.name
    method.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    example_args = spec.extra.get("example_args", "")  # a metric without a default (IPrec's level)
    why = "  # " + spec.example_why if spec.example_why else ""
    options = ", ".join(["by", "per_query", *_CALL_OPTIONS])
    method.__doc__ = (
        f"{spec.canonical}: {spec.summary} (see docs/metrics.md).\n\n"
        f"Returns the mean over queries (float); with ``by=`` a Series per segment; with ``per_query=True`` a "
        f"Series indexed by the segment columns and the query; with ``ci=0.95`` the mean with ``n``, ``std_err``, "
        f"``ci_low``, ``ci_high`` (a Series, or a DataFrame per segment). With ``output='arrow'`` or "
        f"``'polars'`` a Series or DataFrame comes back as that kind of table (its index as columns); the mean "
        f"stays a float.\n\n"
        f"Parameters\n----------\n{params}\n"
        f"{options}\n"
        "    As for :func:`rankframe.evaluate`.\n\n"
        "Examples\n--------\n"
        ">>> import pandas as pd, rankframe\n"
        f">>> df = {_EXAMPLE_FRAME}\n"
        f">>> round(df.rank_metrics.{spec.name}({example_args}), 5){why}\n"
        f"{spec.example}\n"
    )
    return method


def _method_names(spec: MetricSpec) -> list[str]:
    """The metric's one method: its declared name (``ndcg``, ``ap``); aliases are metric strings, not methods."""
    return [spec.name]


def _alias_methods(spec: MetricSpec) -> dict[str, str]:
    """The alias methods of old (``map``, ``mrr``, ...: deprecated), each -> the alias as a metric string."""
    names: dict[str, str] = {}
    for alias in spec.aliases:
        names.setdefault(alias.lower(), alias)  # the first spelling declared (MAP before map)
    return {n: a for n, a in names.items() if n.isidentifier() and len(n) > 1 and n != spec.name}


#: the shortcut methods made from the declarations, by method name (remade when the metric set changes)
_SHORTCUTS: dict[str, MetricSpec] = {}
#: the deprecated alias methods: name -> (the alias as a metric string, the metric), answered by __getattr__
_ALIASES: dict[str, tuple[str, MetricSpec]] = {}


def _make_shortcuts() -> None:
    """One method per declared metric (``df.rank_metrics.ndcg``), following ``registry.METRICS``."""
    _ALIASES.clear()
    _ALIASES.update(
        (name, (spelling, spec)) for spec in registry.METRICS for name, spelling in _alias_methods(spec).items()
    )
    wanted = {name: spec for spec in registry.METRICS for name in _method_names(spec)}
    for name in [n for n in _SHORTCUTS if _SHORTCUTS[n] is not wanted.get(n)]:
        delattr(RankMetrics, name)
        del _SHORTCUTS[name]
    for name, spec in wanted.items():
        if name not in _SHORTCUTS:
            setattr(RankMetrics, name, _method(spec))
            _SHORTCUTS[name] = spec


registry.on_change(_make_shortcuts)


class RankMetricsAccessor(RankMetrics):
    """The ``df.rank_metrics`` namespace; stores the frame and nothing else.

    pandas makes it through ``rankframe._on_import`` (registered when pandas and rankframe are both imported).
    """

    def __init__(self, pandas_obj: pd.DataFrame) -> None:
        super().__init__(pandas_obj)
