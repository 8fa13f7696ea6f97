"""Options with a fixed set of values are ``Literal[...]`` types in the public signatures (issue 36), equal to the
choices the checks read: the tuples are derived from the Literals (``typing.get_args``) where one module declares
both, and the fusion names, declared as data, are held equal here. A user's script is type-checked by mypy: the
right values pass, a misspelt one is an error naming the allowed values."""

from __future__ import annotations

import importlib
import types
import typing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the modules that declare the Literal types (the public modules import them for type checking only); imported by
#: name: rankframe.stats re-exports functions (align, ...) under its modules' names
DECLARING = {
    name.replace("spark.", "spark_").rsplit(".", 1)[-1]: importlib.import_module(f"rankframe.{name}")
    for name in (
        "comparing.rules", "engines.aggregate", "fusion.methods", "stats.align", "stats.corrections", "stats.paired",
        "stats.wilcoxon", "evaluate", "inputs", "registry", "segments", "spark.evaluate",
    )
}  # fmt: skip
rules, aggregate, fusion_methods = DECLARING["rules"], DECLARING["aggregate"], DECLARING["methods"]
align, paired, wilcoxon = DECLARING["align"], DECLARING["paired"], DECLARING["wilcoxon"]
ENGINES, OUTPUTS = DECLARING["evaluate"].ENGINES, DECLARING["inputs"].OUTPUTS
POLICY_CHOICES, SEGMENT_CI_METHODS = DECLARING["registry"].POLICY_CHOICES, DECLARING["segments"].SEGMENT_CI_METHODS

POLICIES = {"no_relevant": POLICY_CHOICES, "no_retrieved": POLICY_CHOICES, "no_judged": POLICY_CHOICES}
COMPARE = {
    "test": (*rules.TESTS, None),
    "ci_method": (*rules.CI_METHODS, None),
    "correction": rules.CORRECTION_CHOICES,
    "pairs": rules.PAIRS,
    "alternative": (*rules.ALTERNATIVES, None),
    "zero_method": wilcoxon.ZERO_METHODS,
    "missing": align.MISSING,
    "engine": ENGINES,
    "output": OUTPUTS,
}
#: (function, parameter, the choices its checks accept: the declared tuple, None where None is the default's "pick")
CASES = [
    *[("evaluate", p, c) for p, c in {"engine": ENGINES, "agg": aggregate.AGGREGATIONS, "output": OUTPUTS}.items()],
    *[("evaluate", p, c) for p, c in POLICIES.items()],
    *[("compare", p, c) for p, c in COMPARE.items()],
    *[("report", p, COMPARE[p]) for p in ("test", "correction", "missing")],
    *[("anova", p, COMPARE[p]) for p in ("missing", "engine", "output")],
    ("segment_means", "ci_method", SEGMENT_CI_METHODS),
    *[("segment_means", p, COMPARE[p]) for p in ("engine", "output")],
    ("fuse", "method", tuple(fusion_methods.METHODS)),
    ("fuse", "norm", (*fusion_methods.NORMS, None)),
    ("fuse", "output", OUTPUTS),
    ("fuse_train", "method", tuple(fusion_methods.METHODS)),
    ("fuse_train", "norm", (*fusion_methods.NORMS, None)),
    ("power", "alternative", paired.ALTERNATIVES),
    ("topic_set_size", "alternative", paired.ALTERNATIVES),
    # the Spark face (importing it starts no JVM)
    *[("spark.compare", p, COMPARE[p]) for p in ("test", "ci_method", "correction", "pairs", "alternative", "missing")],
    *[("spark.compare", p, c) for p, c in POLICIES.items()],
    ("spark.evaluate", "agg", aggregate.AGGREGATIONS),
    ("spark.evaluate", "engine", DECLARING["spark_evaluate"].ENGINES),
    *[("spark.evaluate", p, c) for p, c in POLICIES.items()],
    ("spark.anova", "missing", align.MISSING),
    *[("spark.anova", p, c) for p, c in POLICIES.items()],
    ("spark.fuse", "method", tuple(fusion_methods.METHODS)),
    ("spark.fuse", "norm", (*fusion_methods.NORMS, None)),
]


def literal_values(hint: object) -> tuple:
    """The values a (possibly optional, possibly nested) Literal type admits, None for NoneType, in order."""
    if hint is type(None):
        return (None,)
    if typing.get_origin(hint) is typing.Literal:
        return typing.get_args(hint)  # nested Literals come flattened
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return tuple(v for arg in typing.get_args(hint) for v in literal_values(arg))
    raise AssertionError(f"not a Literal type: {hint!r}")


@pytest.mark.parametrize(("func", "param", "choices"), CASES, ids=[f"{f}-{p}" for f, p, _ in CASES])
def test_public_option_is_a_literal_of_its_declared_choices(func, param, choices):
    names = {k: v for module in DECLARING.values() for k, v in vars(module).items() if not k.startswith("__")}
    module, _, name = func.rpartition(".")
    public = importlib.import_module(f"rankframe.{module}" if module else "rankframe")
    hints = typing.get_type_hints(getattr(public, name), localns=names)
    assert literal_values(hints[param]) == tuple(choices), (func, param)


@pytest.mark.parametrize(
    ("alias", "declared"),
    [(fusion_methods.FuseMethod, fusion_methods.METHODS), (fusion_methods.FuseNorm, fusion_methods.NORMS)],
    ids=["FuseMethod", "FuseNorm"],
)
def test_fusion_literals_equal_the_declared_names(alias, declared):
    # the one pair written twice (the declarations are data): a method added to _METHODS fails here until typed
    assert typing.get_args(alias) == tuple(declared)


SCRIPT = """\
import pandas as pd

import rankframe

runs = pd.read_parquet("examples/paired.parquet")
out = rankframe.compare(runs, ["nDCG@5", "AP"], baseline="bm25", test="wilcoxon", correction="bh", missing="drop")
means = rankframe.evaluate(runs, "AP", by="system", engine="duckdb", agg="gmean", output="arrow")
fused = rankframe.fuse(runs, "combmnz", norm="min-max")
n = rankframe.topic_set_size(0.05, 0.2, alternative="greater")
bad = rankframe.compare(runs, "AP", baseline="bm25", correction="holmes")
"""


@pytest.mark.slow  # one mypy run: ~2 s with the repository's warm .mypy_cache, ~15 s cold
def test_mypy_reads_the_options_of_a_user_script(tmp_path, monkeypatch):
    api = pytest.importorskip("mypy.api")
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    monkeypatch.chdir(ROOT)  # mypy finds this checkout's rankframe (and pyproject's [tool.mypy]) from here
    out, err, status = api.run(
        [str(script), "--cache-dir", str(ROOT / ".mypy_cache"), "--no-error-summary", "--show-error-codes"]
    )
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1 and len(errors) == 1, out + err  # the last line only: every right value passes
    # (not the path: mypy's cache answers for a file of the same name and content with the path it first saw)
    assert 'user_script.py:10: error: Argument "correction" to "compare"' in errors[0], errors
    assert "'holm', 'bonferroni', 'bh', 'westfall-young'" in errors[0]  # the allowed values, as an IDE offers them


@pytest.mark.parametrize("func", ["render", "render_compare"])
def test_render_offers_the_tested_dialects_and_takes_any_other(func):
    # any sqlglot dialect is accepted (untested): the type is TestedDialect | str, so an editor offers the tested ones
    portable = importlib.import_module("rankframe.portable")
    render = importlib.import_module("rankframe.portable.render")
    hints = typing.get_type_hints(getattr(portable, func), localns=vars(render))
    literal, other = typing.get_args(hints["dialect"])
    assert typing.get_args(literal) == render.TESTED_DIALECTS and other is str
