"""The layout's promises (issue 20), held: no import circle inside rankframe/, and no module over ~500 lines unless
its docstring says which one job makes it long.

The import graph counts every import, function-level ones too: a lazy import is still a dependency, and a circle of
them is two modules that cannot be understood (or moved) one without the other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rankframe"
MAX_LINES = 500
ONE_JOB = re.compile(r"\bone job\b", re.IGNORECASE)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the rankframe modules it imports (a package counts only when a name is taken from its ``__init__``)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                submodules = [alias.name for alias in node.names if f"{source}.{alias.name}" in modules]
                graph[name].update(f"{source}.{sub}" for sub in submodules)
                if source in modules and len(submodules) < len(node.names):
                    graph[name].add(source)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_import_graph_has_no_circle():
    assert circles(import_graph()) == []


def room(module: str) -> str:
    """The room of a module: the package right under rankframe/ (``rankframe.tables.io.trec`` -> ``tables``), or the
    top-level module itself (``rankframe.evaluate`` -> ``evaluate``); ``rankframe`` for the package's ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Room -> the other rooms its modules import. The package's ``__init__`` (the public names, imported at first
    use) is left out: it sits above every room by design."""
    rooms: dict[str, set[str]] = {}
    for module, imported in graph.items():
        if room(module) == "rankframe":
            continue
        targets = rooms.setdefault(room(module), set())
        targets.update(room(m) for m in imported if room(m) not in ("rankframe", room(module)))
    return rooms


#: the package-level knots still open, each with the imports that close it; a new knot fails the test below, and a
#: knot opened must leave this list (issue 34). None is open:
#: (engines -> sql -> warehouse -> engines opened when the family's argument rules left engines/beyond_engine.py
#: for beyond/arguments.py: warehouse.render no longer imports an engine. beyond <-> intent <-> measures opened when
#: the refusal naming the collected macros moved up to measures/arguments.refuse_beyond, beyond/sqlgen.main collected
#: its family with core.declare.collect, and beyond/arguments read the inputs a metric needs from its declaration
#: (MetricSpec.needed / reads_history, IntentSpec's too) and took core.declare.Asked instead of measures' Measure.)
KNOTS: list[list[str]] = []


def test_the_rooms_have_no_knot_but_the_known_ones():
    # the module graph has no circle, but two rooms can still need each other (a.x -> b.y, b.z -> a.w): then neither
    # room can be read, tested or moved without the other
    assert circles(room_graph(import_graph())) == KNOTS


def test_a_knot_between_rooms_is_seen():
    # the guard of the guard: modules in no circle (a.x -> b.y -> a.z) make a knot of their rooms a and b
    graph = {"rankframe.a.x": {"rankframe.b.y"}, "rankframe.b.y": {"rankframe.a.z"}, "rankframe.a.z": set()}
    assert circles(graph) == []
    assert circles(room_graph(graph)) == [["a", "b"]]
    assert room_graph({"rankframe": {"rankframe.a.x"}, "rankframe.a.x": {"rankframe"}}) == {"a": set()}


def test_the_circle_finder_finds_a_circle():
    # the guard of the guard: a graph with a circle through three modules is reported, a chain is not
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize("name", sorted(_modules()))
def test_a_long_module_says_why(name):
    path = _modules()[name]
    source = path.read_text(encoding="utf-8")
    lines = source.count("\n")
    if lines <= MAX_LINES:
        return
    docstring = ast.get_docstring(ast.parse(source)) or ""
    assert ONE_JOB.search(docstring), (
        f"{path.relative_to(ROOT)} has {lines} lines (over {MAX_LINES}): split it by job, or say in its docstring "
        "'One job: <why this is one job>'"
    )


def _defaults(function) -> dict:
    import inspect

    return {name: p.default for name, p in inspect.signature(function).parameters.items()}


@pytest.mark.parametrize(
    "face, twin, unlike",
    [
        ("rankframe.compare:compare", "rankframe.compare:checked_call", ()),
        ("rankframe.compare:compare", "rankframe.spark.compare:compare", ()),
        ("rankframe.evaluate:evaluate", "rankframe.spark.evaluate:evaluate", ()),
        ("rankframe.fusion.fuse:fuse", "rankframe.spark.fuse:fuse", ()),
        # pairs: compare's "baseline"/"all" is another parameter than anova's effect sizes switch
        ("rankframe.compare:compare", "rankframe.anova:anova", ("pairs",)),
        ("rankframe.anova:anova", "rankframe.anova:checked_call", ()),
        ("rankframe.anova:anova", "rankframe.spark.anova:anova", ()),
        ("rankframe.spark.compare:compare", "rankframe.spark.anova:anova", ("pairs",)),
        # ci: evaluate's interval is asked for (None: none), compare's and anova's is a level (0.95)
        ("rankframe.spark.evaluate:evaluate", "rankframe.spark.compare:compare", ("ci",)),
        ("rankframe.spark.evaluate:evaluate", "rankframe.spark.anova:anova", ("ci",)),
        # the table rules' switches: rankframe.validate, rankframe.schema.validate and the Spark face's
        ("rankframe.evaluate:validate", "rankframe.tables.schema:validate", ()),
        ("rankframe.tables.schema:validate", "rankframe.spark.validate:validate", ()),
        ("rankframe.agreement:agreement", "rankframe.spark.agreement:agreement", ()),
        # segment_means: segments are its by (required), its intervals the bootstrap's by default
        ("rankframe.compare:compare", "rankframe.segments:segment_means", ("by", "ci_method")),
    ],
)
def test_the_faces_share_their_defaults(face, twin, unlike):
    # a default written on two faces is one default only while the two agree: the same input must get the same
    # default answer from pandas and Spark (and compare's checks must see compare's defaults); the Spark faces'
    # reading of the table (qrels_columns, validate, allow_duplicates, the policies, buckets) is evaluate's
    import importlib

    def load(spec: str):
        module, name = spec.split(":")
        return getattr(importlib.import_module(module), name)

    ours, theirs = _defaults(load(face)), _defaults(load(twin))
    shared = sorted(set(ours) & set(theirs) - set(unlike))
    assert len(shared) >= 7, shared
    assert {n: theirs[n] for n in shared} == {n: ours[n] for n in shared}


@pytest.mark.parametrize(
    "functions",
    [
        ("rankframe.engines.beyond_engine:evaluate", "rankframe.engines.duckdb_beyond:evaluate"),
        ("rankframe.engines.intent_engine:evaluate", "rankframe.engines.duckdb_intent:evaluate"),
        *[(f"rankframe.plot.{m}:{m}", "rankframe.plot.at_k:at_k") for m in ("differences", "distribution", "forest")],
        ("rankframe.plot.pr_curve:pr_curve", "rankframe.plot.at_k:at_k"),
    ],
)
def test_the_twins_share_their_signature(functions):
    # an engine's evaluate is called by the one dispatcher with either engine's name: the two take the same
    # arguments, written twice (Python cannot derive one from the other); the plots take the same ax, columns,
    # qrels and **options (the reading of a long table before the plot)
    import importlib
    import inspect

    def params(spec: str) -> dict:
        module, name = spec.split(":")
        return dict(inspect.signature(getattr(importlib.import_module(module), name)).parameters)

    ours, theirs = (params(f) for f in functions)
    if "plot" in functions[0]:
        ours, theirs = (
            {n: p for n, p in x.items() if n in ("ax", "columns", "qrels", "options")} for x in (ours, theirs)
        )
        assert len(ours) == 4, ours
    assert ours == theirs


def test_the_tree_of_the_architecture_page_is_the_package():
    """docs/architecture.md's tree names every top-level module and package of rankframe/, and nothing that is not
    there (``metrics/<name>.py`` names the package ``metrics/``): a new room of the package gets its line."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("## The tree", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    lines = block.split("rankframe/\n", 1)[1].splitlines()
    lines = lines[: next(i for i, line in enumerate(lines) if not line.startswith(" "))]  # up to the next folder
    tree = set()
    for line in lines:
        m = re.match(r"^  ([^ ]+)", line)  # an entry at the top level: two spaces in
        if m:
            tree.update(f"{n.split('/')[0]}/" if "/" in n else n for n in m.group(1).split())
    package = ROOT / "rankframe"
    actual = {p.name for p in package.glob("*.py")}
    actual |= {f"{p.name}/" for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert sorted(actual - tree) == [], "give these their line in docs/architecture.md's tree"
    assert sorted(tree - actual) == [], "these lines of docs/architecture.md's tree name nothing in rankframe/"
