"""Where a test run's time went: the items' seconds summed per file and per test function.

    python -m tests.timing ~/.cache/rankframe-ci/junit-main.xml       # CI's last main-suite run (.ci/run writes it)
    python -m pytest -m "not slow" --junitxml=/tmp/quick.xml && python -m tests.timing /tmp/quick.xml --top 20

Reads a JUnit XML file (``--junitxml``: one ``testcase`` per item, its ``time`` = setup + call + teardown);
CONTRIBUTING, "Tests".
"""

from __future__ import annotations

import argparse
import collections
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def items(path: Path) -> list[tuple[str, str, float]]:
    """``(file, test name, seconds)`` of every item of a JUnit XML file."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "")
        file = module.replace(".", "/") + ".py" if module else case.get("file", "?")
        out.append((file, case.get("name", ""), float(case.get("time") or 0.0)))
    return out


def report(rows: list[tuple[str, str, float]], top: int) -> str:
    by_file: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[str] = collections.Counter()
    count: collections.Counter[str] = collections.Counter()
    for file, name, seconds in rows:
        by_file[file] += seconds
        by_function[f"{file}::{name.split('[')[0]}"] += seconds
        count[file] += 1
    total = sum(by_file.values())
    lines = [f"{len(rows)} items, {total:.0f} s of item time (summed over the workers)", "", "files:"]
    lines += [f"{s:9.1f} s {count[f]:6d} items  {f}" for f, s in by_file.most_common(top)]
    lines += ["", "test functions:"]
    lines += [f"{s:9.1f} s  {f}" for f, s in by_function.most_common(top)]
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
