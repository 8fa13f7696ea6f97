"""The suite's tiers, declared once, and the scheduling that starts each expensive thing once per run.

A tier is a pytest marker that says what a test needs and proves (``TIERS``). Every tier item is also ``slow``:
``python -m pytest -m "not slow"`` is the quick loop (hand cases, oracles that start fast, every face's parity on
small tables); ``python -m pytest`` runs everything. Mark the slow *item*, not its file.

Three tiers start something expensive that must start once per run, so their items run on one xdist worker each
(``GROUPED``): ``spark`` (a local Spark JVM), ``warehouse`` (a throwaway PostgreSQL cluster), ``oracle`` (ranx's
numba functions: compiled once into ranx's on-disk cache, then loaded). xdist's own ``--dist loadgroup`` reads a
group from a suffix it writes into the node id, which pytest 9.2 no longer keeps, so the tests were spread over
both workers silently (two JVMs on two cores, ranx compiled twice). Here the workers write each grouped item's
node id to a file while collecting, and the controller's scheduler (``GroupScheduling``) reads it: that works on
every pytest/xdist version, and the biggest group is sent first.

The proof that it works is a check at the end of every run (``check_run``): each process that started a Spark JVM
or compiled a ranx function leaves a mark in the run's folder, and the run fails when a JVM started in more than
one process or ranx compiled in more than one.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

#: marker -> what it needs (pyproject's marker lines say the same; tests/project/test_tiers.py holds them equal)
TIERS = {
    "spark": "the Spark face: a local Spark JVM (Java), started once per run",
    "warehouse": "PostgreSQL and dbt: a throwaway cluster on a unix socket, started once per run",
    "oracle": "peers that are slow to start: ranx's numba functions (compiled once, then cached)",
    "browser": "the HTML report opened in headless Chromium",
    "scale": "large tables (100k rows and more) or long drawings",
    "realdata": "the real TREC runs and qrels of ../shared/data: every item that asks the shared_data fixture "
    "(set by tests/tiers.py modify_items)",
}
#: the fixture whose items are in the ``realdata`` tier, whatever their file says
REALDATA_FIXTURE = "shared_data"
#: the tiers whose items share one worker (what they start must start once)
GROUPED = ("spark", "warehouse", "oracle")
#: the environment variable naming this run's folder of marks (set by the controller before workers start)
RUN_DIR = "RANKFRAME_TEST_RUN_DIR"


#: ``@pytest.mark.quick_sample(n)`` on a parametrized test: the quick loop keeps ``n`` of its cases, the rest are slow
SAMPLE = "quick_sample"
#: the mark of a sampled sweep's cases left out of the quick loop (slow too): a run that wants every case of the
#: sweeps but not the tiers (CI's DuckDB legs) selects ``not slow or sampled_out``
SAMPLED_OUT = pytest.mark.sampled_out


def tier_of(item: pytest.Item) -> list[str]:
    return [name for name in TIERS if item.get_closest_marker(name) is not None]


#: the quick loop's marker expression (CONTRIBUTING): outside CI it draws the ``quick`` hypothesis profile
QUICK = "not slow"


def quick_profile(config: pytest.Config) -> None:
    """The quick loop (``-m "not slow"``, no HYPOTHESIS_PROFILE, not CI) draws the ``quick`` profile's examples."""
    if os.environ.get("HYPOTHESIS_PROFILE") or os.environ.get("CI"):
        return
    if " ".join((config.getoption("markexpr", "") or "").split()) == QUICK:
        from hypothesis import settings

        settings.load_profile("quick")


def configure(config: pytest.Config) -> None:
    """Every process (the controller, xdist's workers, a run without xdist): the quick loop's profile (before any
    test module is imported), the markers; the controller (or a run without xdist) creates the run's folder."""
    quick_profile(config)
    for name, why in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {why} (implies slow)")
    config.addinivalue_line(
        "markers",
        f"{SAMPLE}(n, per=None): a parametrized test whose cases prove one rule many times over: the quick loop "
        "keeps n of them (n for each value of the parameter per), spread over the list; the rest are slow "
        "(tests/tiers.py sample)",
    )
    config.addinivalue_line(
        "markers", "sampled_out: a sampled sweep's case left out of the quick loop (set by tiers.py)"
    )
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        os.environ[RUN_DIR] = tempfile.mkdtemp(prefix="rf-tests-")


def sample(items: list[pytest.Item]) -> None:
    """``@pytest.mark.quick_sample(n)``: of each marked test function's collected cases, ``n`` spread evenly over
    the list (the first and the last among them) stay in the quick loop, the others are marked slow.

    For a sweep that proves one rule over many cases (every table name, every option value, every hostile number):
    the quick loop still walks the rule's road ``n`` times, the whole suite walks every case. ``per="road"`` keeps
    ``n`` cases for each value of the parameter ``road`` (so every face of a faces x cases sweep stays in the quick
    loop), the k-th value's choice shifted by k cases (so the faces keep different cases). The choice depends on the collected list only, so every xdist worker makes the same one.
    """
    cases: dict[tuple[str, str, str], list[pytest.Item]] = {}
    for item in items:
        marker = item.get_closest_marker(SAMPLE)
        if marker is not None:
            per = marker.kwargs.get("per")
            params = getattr(getattr(item, "callspec", None), "params", {})
            if per is not None and per not in params:
                raise ValueError(f"@pytest.mark.{SAMPLE}(per={per!r}): {item.nodeid} has no parameter {per!r}")
            value = "" if per is None else repr(params[per])
            key = (item.parent.nodeid if item.parent else "", getattr(item, "originalname", item.name), value)
            cases.setdefault(key, []).append(item)
    ordinal: dict[tuple[str, str], int] = {}
    for (module, name, _), group in cases.items():
        n = int(group[0].get_closest_marker(SAMPLE).args[0])
        if n < 1:
            raise ValueError(f"@pytest.mark.{SAMPLE}(n) needs n >= 1: {group[0].nodeid}")
        # the k-th group of a test shifts its choice by k, so that the faces of a sweep keep different cases
        shift = ordinal[module, name] = ordinal.get((module, name), -1) + 1
        spread = {round(i * (len(group) - 1) / (n - 1)) for i in range(n)} if n > 1 else {0}
        kept = {(i + shift) % len(group) for i in spread}
        for i, item in enumerate(group):
            if i not in kept:
                item.add_marker(pytest.mark.slow)
                item.add_marker(SAMPLED_OUT)  # the DuckDB legs select these back: -m "(not slow or sampled_out) ..."


def modify_items(items: list[pytest.Item]) -> None:
    """Every tier item is slow, a sampled sweep's other cases too (:func:`sample`); write the grouped items' node
    ids for the controller's scheduler."""
    sample(items)
    groups = []
    for item in items:
        if REALDATA_FIXTURE in getattr(item, "fixturenames", ()) and item.get_closest_marker("realdata") is None:
            item.add_marker(pytest.mark.realdata)
        tiers = tier_of(item)
        if tiers:
            item.add_marker(pytest.mark.slow)
        group = next((t for t in GROUPED if t in tiers), None)
        if group is not None:
            groups.append(f"{item.nodeid}\t{group}\n")
    run_dir = os.environ.get(RUN_DIR)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if run_dir and worker:
        Path(run_dir, f"groups-{worker}.tsv").write_text("".join(groups))


#: the tiers of the item running in this process (set at each item's setup): a tier's resource checks it at start
_current: list[str] = []


def require(tier: str, what: str) -> None:
    """Fail the running item at once when it starts ``what`` without carrying the ``tier`` marker.

    The end-of-run check (``check_run``) only sees a second JVM or compiler when the scheduler happened to spread the
    unmarked item to another worker; this says which item, on every run, with or without xdist.
    """
    if os.environ.get("PYTEST_CURRENT_TEST") and tier not in _current:
        pytest.fail(
            f"this test starts {what} but does not carry @pytest.mark.{tier}: mark it, so that it runs on the worker "
            f"that owns the {tier!r} tier (tests/tiers.py)",
            pytrace=False,
        )


def mark(kind: str) -> None:
    """Leave a mark of this process in the run's folder: ``kind`` is ``jvm`` or ``numba``."""
    run_dir = os.environ.get(RUN_DIR)
    if run_dir and os.path.isdir(run_dir):
        Path(run_dir, f"{kind}-{os.getpid()}").touch()


def mark_numba_compiles() -> None:
    """At a process's end: did it compile any of ranx's cached numba functions (a cache miss)?"""
    if not any(name == "ranx" or name.startswith("ranx.") for name in sys.modules):
        return
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:
        return
    for name, module in list(sys.modules.items()):
        if not (name == "ranx" or name.startswith("ranx.")) or module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and sum(value.stats.cache_misses.values()) > 0:
                mark("numba")
                return


def check_run(session: pytest.Session) -> list[str]:
    """Controller: the problems this run's marks show (a second JVM, ranx compiled in two processes)."""
    run_dir = os.environ.get(RUN_DIR)
    if not run_dir or not os.path.isdir(run_dir):
        return []
    names = os.listdir(run_dir)
    problems = []
    jvms = [n for n in names if n.startswith("jvm-")]
    if len(jvms) > 1:
        problems.append(
            f"the Spark tests started {len(jvms)} JVMs (processes {', '.join(sorted(j[4:] for j in jvms))}): "
            "every item that starts Spark must carry the 'spark' marker (tests/tiers.py)"
        )
    compiled = [n for n in names if n.startswith("numba-")]
    if len(compiled) > 1:
        problems.append(
            f"ranx's numba functions compiled in {len(compiled)} processes: every item that calls ranx must carry "
            "the 'oracle' marker (tests/tiers.py)"
        )
    return problems


def cleanup() -> None:
    run_dir = os.environ.get(RUN_DIR)
    if run_dir and os.path.isdir(run_dir) and os.environ.get("PYTEST_XDIST_WORKER") is None:
        for name in os.listdir(run_dir):
            os.unlink(os.path.join(run_dir, name))
        os.rmdir(run_dir)


def make_scheduler(config: pytest.Config, log):
    """xdist's load scheduling, with each grouped tier's items as one unit of work (biggest first)."""
    from xdist.scheduler import LoadGroupScheduling

    class GroupScheduling(LoadGroupScheduling):
        _groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:
                self._groups = {}
                run_dir = os.environ.get(RUN_DIR, "")
                for path in Path(run_dir).glob("groups-*.tsv") if run_dir else []:
                    for line in path.read_text().splitlines():
                        node, _, group = line.partition("\t")
                        self._groups[node] = group
            if nodeid in self._groups:
                return f"tier:{self._groups[nodeid]}"
            return super()._split_scope(nodeid)

    return GroupScheduling(config, log)


# --------------------------------------------------------------------------- the hooks (tests/conftest.py imports them)


def pytest_configure(config: pytest.Config) -> None:
    configure(config)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every tier item is slow (``python -m pytest -m "not slow"`` is the quick loop); the grouped ones share a worker."""
    modify_items(items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Remember the running item's tiers (``require``)."""
    _current[:] = tier_of(item)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With ``--dist loadgroup`` (pyproject's addopts): each grouped tier on one worker, on every pytest version."""
    if config.getvalue("dist") == "loadgroup":
        return make_scheduler(config, log)
    return None


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Each process marks whether it compiled ranx; the controller fails the run on a second JVM or compiler."""
    mark_numba_compiles()
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        problems = check_run(session)
        if problems:
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            for p in problems:
                (reporter.write_line if reporter else print)(f"TIERS FAILED: {p}")
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        cleanup()
