"""Where a test run's time went: the items' seconds summed per file and per test function.

    python -m tests.timing ~/.cache/rankframe-ci/junit-main.xml       # CI's last main-suite run (.ci/run writes it)
    python -m pytest -m "not slow" --junitxml=/tmp/quick.xml && python -m tests.timing /tmp/quick.xml --top 20

Reads a JUnit XML file (``--junitxml``: one ``testcase`` per item, its ``time`` = setup + call + teardown);
CONTRIBUTING, "Tests".

Wall seconds grow with the machine's load; CPU seconds much less. So every item also records the CPU seconds its
process spent from its setup to its teardown (``cpu`` property: every thread of the worker, DuckDB's included,
plus the children it waited for, e.g. a ``rankframe`` CLI; not a Spark JVM, which lives on) through the hooks
below (tests/conftest.py imports them), and the report sums both when the file has them.
"""

from __future__ import annotations

import argparse
import collections
import resource
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

#: the JUnit property holding an item's CPU seconds
CPU = "cpu"


def cpu_seconds() -> float:
    """CPU seconds of this process (every thread) and of the children it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


#: where an item keeps the CPU clock of its start (in the process that runs it: an xdist worker, not the controller)
_START = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Note the CPU clock when an item starts (before its setup)."""
    item.stash[_START] = cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """The teardown's report carries the item's CPU seconds (JUnit writes a teardown's user properties)."""
    outcome = yield
    if call.when == "teardown" and _START in item.stash:
        spent = cpu_seconds() - item.stash[_START]
        outcome.get_result().user_properties.append((CPU, f"{spent:.3f}"))


def items(path: Path) -> list[tuple[str, str, float, float | None]]:
    """``(file, test name, seconds, CPU seconds or None)`` of every item of a JUnit XML file."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "")
        file = module.replace(".", "/") + ".py" if module else case.get("file", "?")
        cpu = next((p.get("value") for p in case.iter("property") if p.get("name") == CPU), None)
        out.append((file, case.get("name", ""), float(case.get("time") or 0.0), None if cpu is None else float(cpu)))
    return out


def report(rows: list[tuple[str, str, float, float | None]], top: int) -> str:
    """The items' seconds (and CPU seconds, when recorded) summed per file and per test function, most first."""
    with_cpu = any(cpu is not None for *_, cpu in rows)
    by_file: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[str] = collections.Counter()
    cpu_file: collections.Counter[str] = collections.Counter()
    cpu_function: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for file, name, seconds, cpu in rows:
        function = f"{file}::{name.split('[')[0]}"
        by_file[file] += seconds
        by_function[function] += seconds
        cpu_file[file] += cpu or 0.0
        cpu_function[function] += cpu or 0.0
        count[file] += 1
    total = sum(by_file.values())
    head = f"{len(rows)} items, {total:.0f} s of item time (summed over the workers)"
    if with_cpu:
        head += f", {sum(cpu_file.values()):.0f} CPU-s; ordered by CPU seconds"
    order_file, order_function = (cpu_file, cpu_function) if with_cpu else (by_file, by_function)

    def cpu_text(counter: collections.Counter[str], key: str) -> str:
        return f" {counter[key]:9.1f} CPU-s" if with_cpu else ""

    lines = [head, "", "files:"]
    lines += [
        f"{by_file[f]:9.1f} s{cpu_text(cpu_file, f)} {count[f]:6d} items  {f}" for f, _ in order_file.most_common(top)
    ]
    lines += ["", "test functions:"]
    lines += [f"{by_function[f]:9.1f} s{cpu_text(cpu_function, f)}  {f}" for f, _ in order_function.most_common(top)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.timing", description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path, help="a JUnit XML file written by pytest --junitxml")
    parser.add_argument("--top", type=int, default=30, help="how many files and functions to list (default 30)")
    args = parser.parse_args(argv)
    print(report(items(args.junit), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
